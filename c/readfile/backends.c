/*
 * backends.c -- the backend table and what all backends share: the request's
 * buffer (inline, or a heap buffer reused by the next read of the request)
 * and the blocking read (node4's, fused's and inline's one form).
 * Adding a backend: one file implementing ab_backend_t, one line in `backends`.
 */
#include "readfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "counters.h"

static const ab_backend_t *const backends[] = {
  &ab_backend_node4,
  &ab_backend_fused,
  &ab_backend_inline,
#ifdef __linux__
  &ab_backend_uring,
#endif
  NULL
};

const ab_backend_t *ab_backend_find(const char *name) {
  int i;
  for (i = 0; backends[i] != NULL; i++)
    if (strcmp(backends[i]->name, name) == 0) return backends[i];
  return NULL;
}

const char *ab_backend_name(size_t k) {
  return k < sizeof(backends) / sizeof(backends[0]) - 1 ? backends[k]->name : NULL;
}

void ab_read_cleanup(ab_read_t *req) {
  free(req->heap);
  req->heap = NULL;
  req->heap_cap = 0;
}

void ab__read_reset(ab_read_t *req, const char *path, ab_read_cb cb) {
  req->cb = cb;
  req->path = path;
  req->result = 0;
  req->failed_op = NULL;
  req->buf = req->inline_buf;
  req->size = 0;
  req->len = 0;
  req->cap = AB_READ_INLINE;
}

/* The heap buffer at least `cap` bytes (its bytes kept): 0 or UV_ENOMEM. */
static int heap_reserve(ab_read_t *req, size_t cap) {
  char *p;
  if (req->heap_cap >= cap) return 0;
  p = realloc(req->heap, cap);
  if (p == NULL) return UV_ENOMEM;
  AB_COUNT_ALLOC(); /* fused reads on a threadpool thread */
  req->heap = p;
  req->heap_cap = cap;
  return 0;
}

int ab__read_prepare(ab_read_t *req, uint64_t size) {
  int rc;
  if (size > AB_READ_MAX) return UV_EFBIG;
  req->size = (size_t)size;
  req->len = 0;
  if (req->size <= AB_READ_INLINE) {
    req->buf = req->inline_buf;
    req->cap = AB_READ_INLINE;
    return 0;
  }
  if ((rc = heap_reserve(req, req->size)) != 0) return rc;
  req->buf = req->heap;
  req->cap = req->size;
  return 0;
}

int ab__read_complete(const ab_read_t *req) {
  return req->size > 0 && req->len >= req->size;
}

int ab__read_next_iov(ab_read_t *req) {
  size_t room;
  if (req->len == req->cap) { /* unknown size: grow */
    size_t cap = req->cap * 2;
    int was_inline = req->buf == req->inline_buf, rc;
    if (req->cap >= AB_READ_MAX) return UV_EFBIG;
    if (cap > AB_READ_MAX) cap = AB_READ_MAX;
    /* realloc keeps the bytes read so far when they are in the heap */
    if ((rc = heap_reserve(req, cap)) != 0) return rc;
    if (was_inline) memcpy(req->heap, req->inline_buf, req->len);
    req->buf = req->heap;
    req->cap = cap;
  }
  room = (req->size > 0 ? req->size : req->cap) - req->len;
  req->iov = uv_buf_init((char *)req->buf + req->len, (unsigned int)room);
  return 0;
}

ssize_t ab__read_blocking(ab_read_t *req, const char *path) {
  struct stat st;
  ssize_t n;
  int fd, rc;

  req->failed_op = NULL;
  req->buf = req->inline_buf;
  fd = open(path, O_RDONLY | O_CLOEXEC);
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
  if ((rc = ab__read_prepare(req, st.st_size < 0 ? 0 : (uint64_t)st.st_size)) != 0) {
    req->failed_op = "read";
    close(fd);
    return rc;
  }
  for (;;) {
    if ((rc = ab__read_next_iov(req)) != 0) {
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
    if (n == 0 || ab__read_complete(req)) break;
  }
  if (close(fd) != 0) {
    req->failed_op = "close";
    return -errno;
  }
  return (ssize_t)req->len;
}
