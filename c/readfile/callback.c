/*
 * callback.c -- the callback style: the backend's completion callback
 * verifies the read and starts the next unissued one on the same slot
 * (ab_mode_slots; the read is ab_readfile_op).  With 1 slot that is the
 * sequential chain, with N slots every read is issued at once (parallel),
 * with K slots at most K are in flight (bounded).
 *
 * Its skeletons are in c/lib/modes_callback.c (the rule: docs/adding.md).
 */
#include "workload.h"

int ab_readfile_callback(ab_run_t *run) {
  return ab_mode_slots(run, &ab_readfile_op);
}

/* Test only: issues every read and stops the clock without waiting for them
 * (seed 000's first mistake); the runner must mark it invalid. */
int ab_readfile_callback_nowait(ab_run_t *run) {
  return ab_mode_slots_nowait(run, &ab_readfile_op);
}
