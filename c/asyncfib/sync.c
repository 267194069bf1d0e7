/*
 * sync.c -- the plain functions (the seed's fibonacci_10 and fibonacci_20),
 * called in a loop: the floor.  Kept out of line and counting their calls,
 * so that the compiler cannot fold the recursion away.
 *
 * Both start on a 64-byte boundary: their loops are a few instructions, and
 * where a build happens to place one across a 32-byte fetch boundary it runs
 * up to twice as slow (seen on AMD EPYC: the same iterative code 1.8x slower
 * after unrelated code moved it by 16 bytes), which would move the floor every
 * other style is compared with.
 */
#include "workload.h"

__attribute__((noinline, aligned(64))) uint64_t af_fib_recursive(af_state_t *st, int n) {
  st->calls++;
  if (n <= 1)
    return 1;
  return af_fib_recursive(st, n - 1) + af_fib_recursive(st, n - 2);
}

__attribute__((noinline, aligned(64))) uint64_t af_fib_iterative(af_state_t *st, int n) {
  uint64_t a = 1, b = 0, t;
  st->calls++;
  while (n >= 0) {
    t = a;
    a = a + b;
    b = t;
    n--;
  }
  return b;
}

static int plain(ab_run_t *run, af_shape_t shape) {
  af_state_t *st = af_pass_begin(run, shape);
  uint64_t (*fib)(af_state_t *, int) = shape == AF_RECURSIVE ? af_fib_recursive : af_fib_iterative;
  ab_run_begin(run);
  while (st->i < st->total)
    if (af_done(st, fib(st, af_arg(st, st->i))) != 0)
      break;
  return af_pass_end(run);
}

int af_sync_recursive(ab_run_t *run) { return plain(run, AF_RECURSIVE); }
int af_sync_iterative(ab_run_t *run) { return plain(run, AF_ITERATIVE); }
