/*
 * fused.c -- the "fused" backend: open, fstat, read and close as ONE
 * threadpool request (uv_queue_work), so one round trip per read where node4
 * makes four.  The work runs the blocking read (ab__read_blocking) on a pool
 * thread; the completion runs on the loop thread, as any uv_work_t's does.
 * What changes against node4 is only the number of hand-offs between the
 * loop and the pool: the system calls are the same.
 */
#include "readfile.h"

#include "counters.h"

static void fused_work(uv_work_t *work) {
  ab_read_t *req = work->data;
  req->result = ab__read_blocking(req, req->path);
}

static void fused_done(uv_work_t *work, int status) {
  ab_read_t *req = work->data;
  if (status != 0) { /* cancelled: uv_cancel is never called, but say so */
    req->result = status;
    req->failed_op = "open";
  }
  req->cb(req, req->result);
}

static int fused_start(uv_loop_t *loop, ab_read_t *req, const char *path, ab_read_cb cb) {
  int rc;
  ab__read_reset(req, path, cb);
  req->u.work.data = req;
  rc = uv_queue_work(loop, &req->u.work, fused_work, fused_done);
  if (rc == 0) ab_counters.threadpool++;
  return rc;
}

static ssize_t fused_read_sync(ab_read_t *req, const char *path) {
  return req->result = ab__read_blocking(req, path);
}

const ab_backend_t ab_backend_fused = {
  "fused",
  NULL, /* uv_queue_work needs nothing per loop */
  NULL,
  fused_start,
  fused_read_sync,
  NULL,
  1     /* its reads are threadpool requests */
};
