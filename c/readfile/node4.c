/*
 * node4.c -- the "node4" backend: what Node's fs.readFile does for a
 * regular file.  open, fstat, read (until the fstat size is read, or EOF for a
 * file that reports size 0, whatever it holds), close: each a separate uv_fs_* request, so each a
 * round trip through libuv's threadpool.  The uv_fs_t is allocated per read
 * and freed before the callback.  The blocking form makes the same system
 * calls on the calling thread.
 */
#include "readfile.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>

#include "counters.h"

/* Counts a threadpool round trip when the uv_fs_* call `rc` started one. */
static int counted(int rc) {
  if (rc == 0) ab_counters.threadpool++;
  return rc;
}

static void node4_on_close(uv_fs_t *fs);

static void node4_finish(ab_read_t *req) {
  free(req->u.fs);
  req->u.fs = NULL;
  req->cb(req, req->result);
}

static void node4_close(ab_read_t *req) {
  int rc = counted(uv_fs_close(req->u.fs->loop, req->u.fs, req->fd, node4_on_close));
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
    if (n > 0 && !ab__read_complete(req)) {
      int rc = ab__read_next_iov(req);
      if (rc == 0)
        rc = counted(uv_fs_read(fs->loop, fs, req->fd, &req->iov, 1, -1, node4_on_read));
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
  } else if ((rc = ab__read_prepare(req, size)) != 0 || (rc = ab__read_next_iov(req)) != 0) {
    node4_fail(req, "read", rc);
  } else {
    rc = counted(uv_fs_read(fs->loop, fs, req->fd, &req->iov, 1, -1, node4_on_read));
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
  rc = counted(uv_fs_fstat(fs->loop, fs, req->fd, node4_on_fstat));
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
  ab__read_reset(req, path, cb);
  /* A request object per read, as Node allocates one per fs call (an
   * FSReqCallback): a uv_fs_t is 440 bytes, which a record of every other
   * backend would carry for nothing. */
  if ((req->u.fs = malloc(sizeof(*req->u.fs))) == NULL) return UV_ENOMEM;
  AB_COUNT_ALLOC();
  req->u.fs->data = req;
  rc = counted(uv_fs_open(loop, req->u.fs, path, O_RDONLY, 0, node4_on_open));
  if (rc != 0) {
    free(req->u.fs);
    req->u.fs = NULL;
  }
  return rc;
}

static ssize_t node4_read_sync(ab_read_t *req, const char *path) {
  return req->result = ab__read_blocking(req, path);
}

const ab_backend_t ab_backend_node4 = {
  "node4",
  NULL, /* uv_fs_* requests need nothing per loop */
  NULL,
  node4_start,
  node4_read_sync,
  NULL,
  1     /* its reads are threadpool requests */
};
