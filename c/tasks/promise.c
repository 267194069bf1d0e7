/*
 * promise.c -- the promise style: a promise per task, fulfilled when its
 * sleep is over, and one .then per task that verifies and counts
 * (ab_mode_then_counter).
 *
 * Its skeletons are in c/lib/modes_promise.c (the rule: docs/adding.md).
 */
#include "workload.h"

int ab_tasks_promise(ab_run_t *run) {
  if (ab_tasks_begin(run, 0) != 0) return -1;
  return ab_mode_then_counter(run, ab_tasks_op(run));
}
