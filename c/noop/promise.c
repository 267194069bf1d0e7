/*
 * promise.c -- the promise style: K recursive .then chains (sequential 1,
 * bounded K), or all N as promises verified in one Promise.all reaction.
 *
 * Its skeletons are in c/lib/modes_promise.c (the rule: docs/adding.md).
 */
#include "workload.h"

int ab_noop_promise_chain(ab_run_t *run) {
  return ab_mode_chains(run, &ab_noop_op);
}

int ab_noop_promise_all(ab_run_t *run) {
  return ab_mode_then_all(run, &ab_noop_op);
}
