/*
 * promise.c -- every call returns a promise (c/lib/promise.h), as a
 * JavaScript function that returns one:
 *
 *   recursive  fib(n) = Promise.all([fib(n-1), fib(n-2)]).then(sum), and
 *              Promise.resolve(1) for n <= 1: both children start at once,
 *              their results are combined from a reaction
 *   iterative  the loop, then Promise.resolve of its result (the seed's
 *              fibonacci_promise)
 *
 * The top-level calls are a .then chain: the reaction to call i verifies it
 * and makes call i + 1.  Promises come from the pool: what a call costs is
 * promise objects and microtask turns.
 */
#include "workload.h"

#include "promise.h"

static ab_promise_t *oom(af_state_t *st) {
  ab_run_oom(st->run, af_rep(st), "a promise");
  return NULL;
}

static void sum(void *arg, ab_promise_t *settled, ab_promise_t *out) {
  (void)arg;
  const ab_list_t *both = ab_promise_value(settled);
  ab_promise_resolve(out, AF_VALUE(AF_UINT(both->items[0].ptr) + AF_UINT(both->items[1].ptr)),
                     NULL);
}

static ab_promise_t *fib_recursive(af_state_t *st, int n) {
  st->calls++;
  if (n <= 1)
    return ab_promise_resolved(AF_VALUE(1), NULL);
  ab_promise_t *children[2] = {fib_recursive(st, n - 1), NULL};
  if (children[0] == NULL || (children[1] = fib_recursive(st, n - 2)) == NULL) {
    ab_promise_release(children[0]);
    return oom(st);
  }
  ab_promise_t *all = ab_promise_all(children, 2);
  ab_promise_release(children[0]);
  ab_promise_release(children[1]);
  if (all == NULL)
    return oom(st);
  ab_promise_t *result = ab_promise_then(all, sum, NULL, NULL);
  ab_promise_release(all);
  return result != NULL ? result : oom(st);
}

static ab_promise_t *fib_iterative(af_state_t *st, int n) {
  ab_promise_t *p = ab_promise_resolved(AF_VALUE(af_fib_iterative(st, n)), NULL);
  return p != NULL ? p : oom(st);
}

static void next(af_state_t *st);

static void returned(void *arg, ab_promise_t *settled, ab_promise_t *out) {
  (void)out;
  af_state_t *st = arg;
  if (af_done(st, AF_UINT(ab_promise_value(settled))) == 0)
    next(st);
}

static void next(af_state_t *st) {
  if (st->i >= st->total || ab_run_failed(st->run))
    return;
  int n = af_arg(st, st->i);
  ab_promise_t *p = st->shape == AF_RECURSIVE ? fib_recursive(st, n) : fib_iterative(st, n);
  if (p == NULL)
    return; /* recorded */
  ab_promise_t *d = ab_promise_then(p, returned, NULL, st);
  if (d == NULL)
    oom(st);
  ab_promise_release(d);
  ab_promise_release(p);
}

static int chain(ab_run_t *run, af_shape_t shape) {
  af_state_t *st = af_pass_begin(run, shape);
  ab_run_begin(run);
  next(st);
  return af_promise_finish(run);
}

int af_promise_recursive(ab_run_t *run) { return chain(run, AF_RECURSIVE); }
int af_promise_iterative(ab_run_t *run) { return chain(run, AF_ITERATIVE); }
