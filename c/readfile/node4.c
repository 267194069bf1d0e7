/*
 * node4.c -- the "node4" backend: what Node's fs.readFile does for a
 * regular file.  open, fstat, read (until the fstat size is read, or EOF for a
 * file that reports size 0, whatever it holds), close: each a separate uv_fs_* request, so each a
 * round trip through libuv's threadpool.  The blocking form makes the same
 * system calls on the calling thread.
 */
#include "readfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Makes room for the file's bytes: `size` from fstat (0 when unknown: a
 * procfs file is read until EOF, the buffer growing as it fills).  0,
 * UV_EFBIG past AB_READ_MAX, or UV_ENOMEM. */
static int prepare_buffer(ab_read_t *req, uint64_t size) {
  if (size > AB_READ_MAX) return UV_EFBIG;
  req->size = (size_t)size;
  req->len = 0;
  if (req->size <= AB_READ_INLINE) {
    req->buf = req->inline_buf;
    req->cap = AB_READ_INLINE;
    return 0;
  }
  if (req->heap_cap < req->size) {
    char *p = realloc(req->heap, req->size);
    if (p == NULL) return UV_ENOMEM;
    req->heap = p;
    req->heap_cap = req->size;
  }
  req->buf = req->heap;
  req->cap = req->size;
  return 0;
}

/* True when nothing more is to be read: the fstat size is in.  A file of
 * unknown size is read until a read returns 0 (EOF). */
static int read_complete(const ab_read_t *req) {
  return req->size > 0 && req->len >= req->size;
}

/* Points req->iov at the room for the next read: the rest of a known size,
 * or, for a file of unknown size, the rest of a buffer doubled when full.
 * 0, UV_EFBIG (over AB_READ_MAX) or UV_ENOMEM. */
static int next_iov(ab_read_t *req) {
  size_t room;
  if (req->len == req->cap) { /* unknown size: grow */
    size_t cap = req->cap * 2;
    int was_inline = req->buf == req->inline_buf;
    if (req->cap >= AB_READ_MAX) return UV_EFBIG;
    if (cap > AB_READ_MAX) cap = AB_READ_MAX;
    if (req->heap_cap < cap) {
      /* realloc keeps the bytes read so far when they are in the heap */
      char *p = realloc(req->heap, cap);
      if (p == NULL) return UV_ENOMEM;
      req->heap = p;
      req->heap_cap = cap;
    }
    if (was_inline) memcpy(req->heap, req->inline_buf, req->len);
    req->buf = req->heap;
    req->cap = cap;
  }
  room = (req->size > 0 ? req->size : req->cap) - req->len;
  req->iov = uv_buf_init((char *)req->buf + req->len, (unsigned int)room);
  return 0;
}

static void node4_on_close(uv_fs_t *fs);

static void node4_finish(ab_read_t *req) {
  req->cb(req, req->result);
}

static void node4_close(ab_read_t *req) {
  int rc = uv_fs_close(req->fs.loop, &req->fs, req->fd, node4_on_close);
  if (rc != 0) {
    if (req->result >= 0) {
      req->result = rc;
      req->failed_op = "close";
    }
    node4_finish(req);
  }
}

static void node4_fail(ab_read_t *req, const char *op, int err) {
  req->result = err;
  req->failed_op = op;
}

static void node4_on_read(uv_fs_t *fs) {
  ab_read_t *req = fs->data;
  ssize_t n = fs->result;
  uv_fs_req_cleanup(fs);
  if (n < 0) {
    node4_fail(req, "read", (int)n);
  } else {
    req->len += (size_t)n;
    req->result = (ssize_t)req->len;
    if (n > 0 && !read_complete(req)) {
      int rc = next_iov(req);
      if (rc == 0)
        rc = uv_fs_read(fs->loop, fs, req->fd, &req->iov, 1, -1, node4_on_read);
      if (rc == 0) return;
      node4_fail(req, "read", rc);
    }
  }
  node4_close(req);
}

static void node4_on_fstat(uv_fs_t *fs) {
  ab_read_t *req = fs->data;
  int rc = (int)fs->result;
  uint64_t size = fs->statbuf.st_size;
  uv_fs_req_cleanup(fs);
  if (rc < 0) {
    node4_fail(req, "fstat", rc);
  } else if ((rc = prepare_buffer(req, size)) != 0 || (rc = next_iov(req)) != 0) {
    node4_fail(req, "read", rc);
  } else {
    rc = uv_fs_read(fs->loop, fs, req->fd, &req->iov, 1, -1, node4_on_read);
    if (rc == 0) return;
    node4_fail(req, "read", rc);
  }
  node4_close(req);
}

static void node4_on_open(uv_fs_t *fs) {
  ab_read_t *req = fs->data;
  int rc = (int)fs->result;
  uv_fs_req_cleanup(fs);
  if (rc < 0) {
    node4_fail(req, "open", rc);
    node4_finish(req);
    return;
  }
  req->fd = rc;
  rc = uv_fs_fstat(fs->loop, fs, req->fd, node4_on_fstat);
  if (rc == 0) return;
  node4_fail(req, "fstat", rc);
  node4_close(req);
}

static void node4_on_close(uv_fs_t *fs) {
  ab_read_t *req = fs->data;
  int rc = (int)fs->result;
  uv_fs_req_cleanup(fs);
  if (rc < 0 && req->result >= 0) node4_fail(req, "close", rc);
  node4_finish(req);
}

static int node4_start(uv_loop_t *loop, ab_read_t *req, const char *path,
                       ab_read_cb cb) {
  int rc;
  req->cb = cb;
  req->path = path;
  req->result = 0;
  req->failed_op = NULL;
  req->buf = req->inline_buf;
  req->fs.data = req;
  rc = uv_fs_open(loop, &req->fs, path, O_RDONLY, 0, node4_on_open);
  return rc;
}

static ssize_t read_blocking(ab_read_t *req, const char *path) {
  struct stat st;
  ssize_t n;
  int fd, rc;

  req->failed_op = NULL;
  req->buf = req->inline_buf;
  fd = open(path, O_RDONLY);
  if (fd < 0) {
    req->failed_op = "open";
    return -errno; /* libuv's error codes are negated errno values on Unix */
  }
  if (fstat(fd, &st) != 0) {
    req->failed_op = "fstat";
    rc = -errno;
    close(fd);
    return rc;
  }
  if ((rc = prepare_buffer(req, st.st_size < 0 ? 0 : (uint64_t)st.st_size)) != 0) {
    req->failed_op = "read";
    close(fd);
    return rc;
  }
  for (;;) {
    if ((rc = next_iov(req)) != 0) {
      req->failed_op = "read";
      close(fd);
      return rc;
    }
    n = read(fd, req->iov.base, req->iov.len);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      req->failed_op = "read";
      rc = -errno;
      close(fd);
      return rc;
    }
    req->len += (size_t)n;
    if (n == 0 || read_complete(req)) break;
  }
  if (close(fd) != 0) {
    req->failed_op = "close";
    return -errno;
  }
  return (ssize_t)req->len;
}

static ssize_t node4_read_sync(ab_read_t *req, const char *path) {
  return req->result = read_blocking(req, path);
}

const ab_backend_t ab_backend_node4 = {
  "node4",
  NULL, /* uv_fs_* requests need nothing per loop */
  NULL,
  node4_start,
  node4_read_sync
};
