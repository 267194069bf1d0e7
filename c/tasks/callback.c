/*
 * callback.c -- the callback style: every task's sleep started at once, its
 * completion callback verifies it (ab_mode_slots with N slots).
 *
 * Its skeletons are in c/lib/modes_callback.c (the rule: docs/adding.md).
 */
#include "workload.h"

int ab_tasks_callback(ab_run_t *run) {
  if (ab_tasks_begin(run, 0) != 0) return -1;
  return ab_mode_slots(run, ab_tasks_op(run));
}
