/*
 * fiber.c -- the fiber style on coro.h directly: one coroutine per connection
 * runs the chains as straight-line code; a GET suspends it (the response is
 * always pending on a network) and the read callback that completes the
 * response resumes it directly: no promise, no microtask turn.
 */
#include <stdlib.h>

#include "httpchain.h"
#include "coro.h"

typedef struct {
  ab_coro_t *co;
  int err;
} fiber_t;

static void on_response(hc_conn_t *c, int err) {
  fiber_t *f = c->data;
  f->err = err;
  ab_coro_resume(f->co);
  if (ab_coro_done(f->co)) {
    ab_coro_destroy(f->co);
    f->co = NULL;
  }
}

/* GET path from inside the fiber: 0 once the response is verified, else -1
 * (recorded).  Suspends only when the request went out.  Inline, so that
 * the fiber is resumed in the frame of its loop (c/lib/coro.h). */
static inline __attribute__((always_inline)) int fiber_get(hc_conn_t *c, const char *path, size_t len) {
  fiber_t *f = c->data;
  int rc = hc_get(c, path, len, on_response);
  if (rc == 0) {
    ab_coro_yield();
    rc = f->err;
  }
  return hc_verify(c, rc);
}

static void chains(void *arg) {
  hc_conn_t *c = arg;
  while (hc_next_chain(c)) {
    if (fiber_get(c, HC_FIRST_PATH, sizeof(HC_FIRST_PATH) - 1) != 0) return;
    c->step = 1;
    if (fiber_get(c, c->body, c->body_len) != 0) return;
    c->step = 2;
    if (fiber_get(c, c->body, c->body_len) != 0) return;
    if (hc_chain_done(c) != 0) return;
  }
}

int hc_fiber(ab_run_t *run) {
  long slots = ab_run_slots(run);
  ab_run_begin(run);
  fiber_t *fibers = calloc((size_t)slots, sizeof(*fibers));
  if (fibers == NULL) {
    ab_run_oom(run, 0, "the fibers");
    return -1;
  }
  hc_pass_t *pass = hc_pass_new(run, slots, 0);
  if (pass == NULL) {
    free(fibers);
    return -1;
  }
  hc_pass_connect(pass); /* a failure is recorded: no fiber starts */
  /* Creating a coroutine (its stack from the pool) is the style's cost, so it
   * is timed, as await.c's ab_async and the other workloads' fiber styles are. */
  for (long k = 0; k < pass->n && !ab_run_failed(run); k++) {
    pass->conns[k].data = &fibers[k];
    if ((fibers[k].co = ab_coro_create(chains, &pass->conns[k])) == NULL) {
      ab_run_oom(run, 0, "a coroutine stack");
      break;
    }
    ab_coro_resume(fibers[k].co);
    if (ab_coro_done(fibers[k].co)) {
      ab_coro_destroy(fibers[k].co);
      fibers[k].co = NULL;
    }
  }
  hc_pass_run(pass);
  int rc = hc_pass_close(pass);
  /* A fiber still suspended (its chain failed elsewhere, or the pass stopped
   * early) is never resumed again: its stack goes back as it is. */
  for (long k = 0; k < slots; k++)
    if (fibers[k].co != NULL) {
      if (!ab_run_failed(run)) {
        ab_run_fail(run, run->n - 1, "a fiber outlived the pass");
        rc = -1;
      }
      ab_coro_destroy(fibers[k].co);
    }
  free(fibers);
  return rc;
}
