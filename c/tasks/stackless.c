/*
 * stackless.c -- the stackless await style: a state-machine frame per task
 * awaiting its sleep's promise (ab_mode_stackless_tasks).
 *
 * Its skeletons are in c/lib/modes_stackless.c (the rule: docs/adding.md).
 */
#include "workload.h"

int ab_tasks_stackless(ab_run_t *run) {
  if (ab_tasks_begin(run, 0) != 0) return -1;
  return ab_mode_stackless_tasks(run, ab_tasks_op(run));
}
