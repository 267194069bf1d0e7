/*
 * stackless.c -- the stackless await style: K state-machine frames looping
 * over the operations (sequential 1, bounded K), or one frame awaiting
 * Promise.all of all N.
 *
 * Its skeletons are in c/lib/modes_stackless.c (the rule: docs/adding.md).
 */
#include "workload.h"

int ab_noop_stackless_loop(ab_run_t *run) {
  return ab_mode_stackless_loops(run, &ab_noop_op);
}

int ab_noop_stackless_all(ab_run_t *run) {
  return ab_mode_stackless_all(run, &ab_noop_op);
}
