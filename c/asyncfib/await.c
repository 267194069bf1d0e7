/*
 * await.c -- every call is an async function (c/lib/async.h) on a coroutine
 * of its own, as the seed's fibonacci_async_10 and fibonacci_async_20:
 *
 *   recursive  return (await fib(n-1)) + (await fib(n-2)): the children run
 *              one after the other, and each await -- of a promise already
 *              fulfilled, since nothing here is pending -- takes a microtask
 *              turn (JavaScript's semantics)
 *   iterative  the loop inside an async function
 *
 * A driver async function awaits the top-level calls one after another.  At
 * most M + 1 coroutines are alive at once (the driver and one chain of
 * calls): their stacks come from the coroutine pool once the clock has
 * started, mapped on the first repetition (c/lib/modes.h).
 */
#include "workload.h"

#include "async.h"

/* What a call's async function is given; read before its first await. */
typedef struct call_s {
  af_state_t *st;
  int n;
} call_t;

/* Awaits the async call fn(n): 0 with *result, or the code it failed with.
 * Inline, so that a resumed call continues in its caller's own code: a
 * return across a switch is mispredicted (coro.h). */
static inline __attribute__((always_inline)) int await_call(ab_async_fn fn, af_state_t *st, int n,
                                                            uint64_t *result) {
  call_t c = {st, n};
  ab_promise_t *p = ab_async(fn, &c);
  if (p == NULL)
    return AB_ENOMEM;
  void *v = NULL;
  int rc = ab_await(p, &v);
  ab_promise_release(p);
  *result = AF_UINT(v);
  return rc;
}

static int fib_recursive(void *arg, void **value) {
  af_state_t *st = ((call_t *)arg)->st;
  int n = ((call_t *)arg)->n;
  uint64_t a, b;
  int rc;
  st->calls++;
  if (n <= 1) {
    *value = AF_VALUE(1);
    return 0;
  }
  if ((rc = await_call(fib_recursive, st, n - 1, &a)) != 0 ||
      (rc = await_call(fib_recursive, st, n - 2, &b)) != 0)
    return rc;
  *value = AF_VALUE(a + b);
  return 0;
}

static int fib_iterative(void *arg, void **value) {
  const call_t *c = arg;
  *value = AF_VALUE(af_fib_iterative(c->st, c->n));
  return 0;
}

static int driver(void *arg, void **value) {
  (void)value;
  af_state_t *st = arg;
  ab_async_fn fn = st->shape == AF_RECURSIVE ? fib_recursive : fib_iterative;
  while (st->i < st->total) {
    uint64_t r;
    int rc = await_call(fn, st, af_arg(st, st->i), &r);
    if (rc == AB_ENOMEM) {
      ab_run_oom(st->run, af_rep(st), "a coroutine stack or a promise");
      break;
    }
    if (rc != 0 || af_done(st, r) != 0) {
      if (rc != 0)
        ab_run_fail(st->run, af_rep(st), "the call failed: %s", ab_promise_strerror(rc));
      break;
    }
  }
  return 0;
}

static int run_driver(ab_run_t *run, af_shape_t shape) {
  af_state_t *st = af_pass_begin(run, shape);
  ab_run_begin(run);
  ab_promise_t *p = ab_async(driver, st);
  if (p == NULL || ab_promise_state(p) == AB_REJECTED)
    ab_run_oom(run, 0, "a coroutine stack");
  ab_promise_release(p);
  int rc = af_promise_finish(run);
  if (rc == 0 && ab_coro_live() != 0) {
    ab_run_fail(run, run->n - 1, "%zu coroutines never finished", ab_coro_live());
    rc = -1;
  }
  return rc;
}

int af_await_recursive(ab_run_t *run) { return run_driver(run, AF_RECURSIVE); }
int af_await_iterative(ab_run_t *run) { return run_driver(run, AF_ITERATIVE); }
