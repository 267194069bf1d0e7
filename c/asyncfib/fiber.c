/*
 * fiber.c -- the plain functions of sync.c, called from one fiber
 * (c/lib/fiber.h): nothing is pending, so nothing ever suspends and every
 * call is a plain call on the fiber's stack.  What a stackful coroutine
 * without JavaScript's await rule costs here: the stack itself (16 KiB,
 * lazily committed) and nothing per call.
 */
#include "workload.h"

#include "fiber.h"
#include "promise.h"

static void body(void *arg) {
  af_state_t *st = arg;
  uint64_t (*fib)(af_state_t *, int) =
      st->shape == AF_RECURSIVE ? af_fib_recursive : af_fib_iterative;
  while (st->i < st->total)
    if (af_done(st, fib(st, af_arg(st, st->i))) != 0)
      break;
}

static int on_fiber(ab_run_t *run, af_shape_t shape) {
  af_state_t *st = af_pass_begin(run, shape);
  ab_run_begin(run);
  if (ab_fiber_start(body, st) != 0)
    ab_run_oom(run, 0, "a coroutine stack");
  if (!ab_run_failed(run) && ab_coro_live() != 0)
    ab_run_fail(run, run->n - 1, "%zu fibers never finished", ab_coro_live());
  return af_pass_end(run);
}

int af_fiber_recursive(ab_run_t *run) { return on_fiber(run, AF_RECURSIVE); }
int af_fiber_iterative(ab_run_t *run) { return on_fiber(run, AF_ITERATIVE); }
