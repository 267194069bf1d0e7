/*
 * await.c -- the await style: an async function per task on its own
 * stackful coroutine, awaiting its sleep, all joined by Promise.all
 * (ab_mode_await_tasks): N + 1 coroutines on at most 128 stacks
 * (c/lib/coro.h), taken once the clock has started.  Beyond those, a
 * suspended task keeps the used part of its stack copied to the heap (a few
 * hundred bytes) while another one runs on its stack, so it costs that and
 * its records, not a page.
 *
 * Its skeletons are in c/lib/modes_await.c (the rule: docs/adding.md).
 */
#include "workload.h"

int ab_tasks_await(ab_run_t *run) {
  if (ab_tasks_begin(run, 1) != 0) return -1;
  return ab_mode_await_tasks(run, ab_tasks_op(run));
}
