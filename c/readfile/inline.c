/*
 * inline.c -- the "inline" backend: open, fstat, read and close as blocking
 * system calls on the loop thread, with no threadpool at all.  A read is
 * queued by start() and performed, and its callback called, from a uv_idle
 * handle on the loop's next turn: never inside the call that started it.
 *
 * Why not read at once and call back from start()?  Then the same callback
 * would run sometimes before start() returns and sometimes after (Isaac
 * Schlueter's "Zalgo"): a caller that sets up state after starting a read
 * would find it missing only on this backend, a sequential chain would
 * recurse one stack frame per read, and a promise resolved inside its own
 * executor would behave unlike one resolved later.  docs/workloads.md's "readfile
 * backends" section says more.
 *
 * One loop per process (the harness's): the queue and the idle handle are
 * this file's, made by loop_init and closed by loop_close.
 */
#include "readfile.h"

static uv_idle_t idle;
static uv_loop_t *idle_loop;   /* the loop loop_init prepared; NULL: none */
static ab_read_t *head, *tail; /* reads queued for the next turn */

/* The loop's turn: every read queued before it, in order.  Reads started by
 * their callbacks queue behind a fresh list, for the turn after. */
static void inline_turn(uv_idle_t *h) {
  ab_read_t *req = head;
  head = tail = NULL;
  while (req != NULL) {
    ab_read_t *next = req->next;
    req->next = NULL;
    req->result = ab__read_blocking(req, req->path);
    req->cb(req, req->result);
    req = next;
  }
  if (head == NULL) uv_idle_stop(h);
}

static int inline_loop_init(uv_loop_t *loop) {
  int rc;
  if (idle_loop != NULL) return UV_EBUSY;
  if ((rc = uv_idle_init(loop, &idle)) != 0) return rc;
  idle_loop = loop;
  head = tail = NULL;
  return 0;
}

static void inline_loop_close(uv_loop_t *loop) {
  if (idle_loop != loop) return;
  uv_close((uv_handle_t *)&idle, NULL);
  idle_loop = NULL;
}

static int inline_start(uv_loop_t *loop, ab_read_t *req, const char *path, ab_read_cb cb) {
  int rc;
  if (loop != idle_loop) return UV_EINVAL; /* loop_init was not called on it */
  ab__read_reset(req, path, cb);
  req->next = NULL;
  if (head == NULL && (rc = uv_idle_start(&idle, inline_turn)) != 0) return rc;
  if (tail != NULL) tail->next = req;
  else head = req;
  tail = req;
  return 0;
}

static ssize_t inline_read_sync(ab_read_t *req, const char *path) {
  return req->result = ab__read_blocking(req, path);
}

const ab_backend_t ab_backend_inline = {
  "inline",
  inline_loop_init,
  inline_loop_close,
  inline_start,
  inline_read_sync,
  NULL,
  0     /* the loop thread reads: no threadpool */
};
