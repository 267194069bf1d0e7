/*
 * await.c -- the await style: an async function per task on its own
 * stackful coroutine, awaiting its sleep, all joined by Promise.all
 * (ab_mode_await_tasks): N + 1 stacks, taken once the clock has started.
 * A stack is committed page by page as it is touched, so a suspended task
 * costs at least one page of resident memory (the top of its stack, where
 * the coroutine's record and its frames are), whatever the stack's size.
 */
#include "workload.h"

int ab_tasks_await(ab_run_t *run) {
  if (ab_tasks_begin(run, 1) != 0) return -1;
  return ab_mode_await_tasks(run, ab_tasks_op(run));
}
