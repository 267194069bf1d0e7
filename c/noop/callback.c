/*
 * callback.c -- the callback style: each completion verifies its operation
 * and starts the next unissued one on its slot (ab_mode_slots): 1, N or K
 * slots for sequential, parallel and bounded.
 *
 * Its skeletons are in c/lib/modes_callback.c (the rule: docs/adding.md).
 */
#include "workload.h"

int ab_noop_callback(ab_run_t *run) {
  return ab_mode_slots(run, &ab_noop_op);
}
