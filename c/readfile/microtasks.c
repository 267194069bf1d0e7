/*
 * microtasks.c -- the start and the end of a pass of a style that runs on the
 * promise core's microtask queue (await.c, stackless.c): attach the queue to
 * the loop, and at the end run loop and queue dry, detach, and report what
 * leaked; and a read as a promise, which both styles await.  The styles' own
 * per-read records are theirs to free.
 */
#include "styles.h"
#include "promise.h"

int ab_readfile_queue_attach(ab_run_t *run) {
  int rc = ab_promise_loop_attach(run->loop);
  if (rc != 0) {
    ab_run_fail(run, 0, "could not attach the microtask queue: %s", uv_strerror(rc));
    return -1;
  }
  return 0;
}

int ab_readfile_queue_finish(ab_run_t *run) {
  ab_promise_loop_run(run->loop);
  ab_promise_loop_detach();
  ab_promise_loop_run(run->loop); /* lets the two handles close */
  if (!ab_run_failed(run) && ab_promise_live() != 0)
    ab_run_fail(run, run->n - 1, "%zu promises were never freed", ab_promise_live());
  if (!ab_run_failed(run) && ab_coro_live() != 0)
    ab_run_fail(run, run->n - 1, "%zu coroutines never finished", ab_coro_live());
  ab_promise_pool_trim();
  return ab_run_failed(run) ? -1 : 0;
}

/* The completion: settle the read's promise, then drain the queue, as Node
 * drains microtasks after every macrotask callback. */
static void readp_done(ab_read_t *req, ssize_t nread) {
  ab_readp_t *r = (ab_readp_t *)req; /* req is its first member */
  ab_promise_t *p = r->pending;
  r->pending = NULL;
  r->nread = nread;
  if (nread < 0) /* the payload names the read, through Promise.all too */
    ab_promise_reject_reason(p, (ab_reason_t){(int)nread, req->failed_op, r, NULL});
  else
    ab_promise_resolve(p, r, NULL);
  ab_promise_release(p);
  ab_microtasks_drain();
}

ab_promise_t *ab_readp_start(ab_run_t *run, ab_readp_t *r, long i) {
  ab_promise_t *p = ab_promise_new();
  if (p == NULL) {
    ab_run_fail(run, i, "out of memory for a promise");
    return NULL;
  }
  r->i = i;
  r->pending = ab_promise_retain(p);
  int rc = run->backend->start(run->loop, &r->req, run->opts->file, readp_done);
  if (rc != 0) {
    r->pending = NULL;
    ab_promise_release(p);
    ab_promise_release(p);
    ab_run_fail(run, i, "start failed: %s", uv_strerror(rc));
    return NULL;
  }
  return p;
}

int ab_readp_check(ab_run_t *run, ab_readp_t *r, ab_promise_t *p, int code) {
  if (code != 0) {
    ab_readp_failed(run, p, code, r->i);
    return -1;
  }
  return ab_run_check(run, r->i, r->req.buf, r->nread);
}

void ab_readp_failed(ab_run_t *run, const ab_promise_t *p, int code, long i) {
  ab_reason_t why = ab_promise_reason(p);
  if (why.code != 0 && why.ptr != NULL && why.type == NULL) {
    const ab_readp_t *r = why.ptr;
    ab_run_fail(run, r->i, "%s failed: %s", why.message ? why.message : "read",
                ab_promise_strerror(why.code));
  } else {
    ab_run_fail(run, i, "await failed: %s", ab_promise_strerror(code));
  }
}

int ab_readp_verify_all(ab_run_t *run, const ab_list_t *reads) {
  for (size_t k = 0; k < reads->n; k++) {
    const ab_readp_t *r = reads->items[k].ptr;
    if (ab_run_check(run, r->i, r->req.buf, r->nread) != 0)
      return -1;
  }
  return 0;
}
