/*
 * await.c -- the await style on stackful coroutines: K async functions
 * looping `await op(i); check` (sequential 1, bounded K), or one awaiting
 * Promise.all of all N.
 *
 * Its skeletons are in c/lib/modes_await.c (the rule: docs/adding.md).
 */
#include "workload.h"

int ab_noop_await_loop(ab_run_t *run) {
  return ab_mode_await_loops(run, &ab_noop_op);
}

int ab_noop_await_all(ab_run_t *run) {
  return ab_mode_await_all(run, &ab_noop_op);
}
