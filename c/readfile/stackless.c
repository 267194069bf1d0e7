/*
 * stackless.c -- the stackless await style: switch-based state machines
 * (c/lib/stackless.h) with an explicit frame, awaiting the same promises as
 * the await style (ab_op_promise of ab_readfile_op) but with no coroutine
 * stack at all.
 *
 *   stackless-sequential      one frame looping: read(i), await it, check
 *   stackless-bounded         K such frames over a shared counter
 *   stackless-parallel        one frame issues all N reads as promises,
 *                             awaits Promise.all of them, then verifies every
 *                             read (the shape of await-parallel)
 *   stackless-tasks-parallel  one frame per read (with its own result promise,
 *                             as an async function has), all started at once
 *                             by a driver frame awaiting Promise.all of those
 *                             results: N frames live together
 *
 * Its skeletons are in c/lib/modes_stackless.c (the rule: docs/adding.md).
 */
#include "workload.h"

/* Sequential (1 frame) and bounded (K frames). */
int ab_readfile_stackless_loop(ab_run_t *run) {
  return ab_mode_stackless_loops(run, &ab_readfile_op);
}

int ab_readfile_stackless_all(ab_run_t *run) {
  return ab_mode_stackless_all(run, &ab_readfile_op);
}

int ab_readfile_stackless_tasks(ab_run_t *run) {
  return ab_mode_stackless_tasks(run, &ab_readfile_op);
}
