/*
 * fiber.c -- one fiber (c/lib/fiber.h) runs the plain loop: for (i...) {
 * entry = load(name); check }.  A hit is the sync style's code: the cached
 * entry, with no promise, no queue and no switch (hits()); the miss starts
 * the backend's read and suspends the fiber, whose callback wakes it.  This
 * is what node-fibers let seed 002's streamline program do.  Nothing is
 * allocated per load.
 */
#include "workload.h"

#include "fiber.h"
#include "modes.h"

static void read_done(ab_read_t *req, ssize_t nread) {
  cl_state_t *st = req->data;
  st->read_code = nread < 0 ? (int)nread : 0;
  ab_fiber_wake(st->waiter);
}

/* Loads while they hit: the sync style's loop, a plain function with no
 * switch in it, so that its code is sync.c's.  1 at a miss (st->path is not
 * cached: iteration st->i reads it), 0 when the pass is over or failed. */
static __attribute__((noinline)) int hits(cl_state_t *st) {
  while (st->i < st->run->n) {
    const cl_entry_t *e = cl_cache_get(st, st->path);
    if (e == NULL)
      return 1;
    if (cl_loaded(st, e) != 0)
      return 0;
  }
  return 0;
}

/* The miss: starts the backend's read and suspends the fiber until
 * read_done wakes it.  Inline in the fiber's own function, which the
 * suspension then resumes (c/lib/coro.h); kept out of the hit loop above,
 * where the switch, which clobbers every register, would make the compiler
 * keep the loop's values on the stack (+0.3 ns a hit, measured). */
static inline __attribute__((always_inline)) const cl_entry_t *miss(cl_state_t *st,
                                                                   const char *name) {
  st->req.data = st;
  st->waiter = ab_fiber_current();
  int rc = st->backend->start(st->loop, &st->req, name, read_done);
  if (rc == 0) {
    ab_fiber_suspend();
    rc = st->read_code;
  }
  st->waiter = NULL;
  if (rc != 0) {
    cl_read_failed(st, rc);
    return NULL;
  }
  return cl_cache_put(st, name, st->req.buf, (size_t)st->req.result);
}

static void body(void *arg) {
  cl_state_t *st = arg;
  while (hits(st)) {
    const cl_entry_t *e = miss(st, st->path);
    if (e == NULL || cl_loaded(st, e) != 0)
      break;
  }
}

int cl_fiber(ab_run_t *run) {
  cl_state_t *st = run->state;
  cl_pass_begin(run);
  ab_run_begin(run);
  if (ab_fiber_start(body, st) != 0)
    ab_run_oom(run, 0, "a coroutine stack");
  uv_run(st->loop, UV_RUN_DEFAULT);
  if (!ab_run_failed(run) && ab_coro_live() != 0)
    ab_run_fail(run, run->n - 1, "%zu fibers never finished", ab_coro_live());
  return cl_pass_end(run);
}
