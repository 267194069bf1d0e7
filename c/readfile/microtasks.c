/*
 * microtasks.c -- the start and the end of a pass of a style that runs on the
 * promise core's microtask queue (await.c, stackless.c): attach the queue to
 * the loop, and at the end run loop and queue dry, detach, and report what
 * leaked.  The styles' own per-read records are theirs to free.
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
