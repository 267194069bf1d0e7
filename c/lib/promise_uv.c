/*
 * promise_uv.c -- running the tick and microtask queues with a libuv loop.
 *
 * The style code drains the queues at the end of every libuv callback it owns
 * (as Node drains after each macrotask).  The safety net here catches the
 * callbacks that do not: a uv_prepare drains right before the loop may block
 * in poll, a uv_check right after the I/O callbacks of an iteration.  Both
 * are unref'd, so they never keep the loop alive, and closed by
 * ab_promise_loop_detach() so that uv_loop_close() can return 0.
 */
#include "microtask.h"
#include "promise.h"

#include <uv.h>

static uv_prepare_t net_prepare;
static uv_check_t net_check;
static int net_attached;

static void net_prepare_cb(uv_prepare_t *h) {
  (void)h;
  ab_microtasks_drain();
}

static void net_check_cb(uv_check_t *h) {
  (void)h;
  ab_microtasks_drain();
}

int ab_promise_loop_attach(uv_loop_t *loop) {
  int err;
  if (net_attached) return UV_EBUSY;
  if ((err = uv_prepare_init(loop, &net_prepare)) != 0) return err;
  if ((err = uv_check_init(loop, &net_check)) != 0) {
    uv_close((uv_handle_t *)&net_prepare, NULL);
    return err;
  }
  uv_prepare_start(&net_prepare, net_prepare_cb);
  uv_check_start(&net_check, net_check_cb);
  uv_unref((uv_handle_t *)&net_prepare);
  uv_unref((uv_handle_t *)&net_check);
  net_attached = 1;
  return 0;
}

void ab_promise_loop_detach(void) {
  if (!net_attached) return;
  uv_close((uv_handle_t *)&net_prepare, NULL);
  uv_close((uv_handle_t *)&net_check, NULL);
  net_attached = 0;
}

int ab_promise_loop_run(uv_loop_t *loop) {
  int r;
  for (;;) {
    ab_microtasks_drain();
    r = uv_run(loop, UV_RUN_DEFAULT);
    /* uv_run returned: nothing ref'd is alive.  Microtasks queued by the
     * last callbacks may start new work; stop only when they did not. */
    if (ab_microtasks_drain() == 0 && !uv_loop_alive(loop)) break;
  }
  return r;
}
