/*
 * await.c -- the await style: async functions on stackful coroutines
 * (c/lib/async.h) awaiting one promise per read (ab_op_promise of
 * ab_readfile_op).
 *
 *   await-sequential      one async function: for (i...) { await read(i);
 *                         check } (seed 000's "async blocking")
 *   await-bounded         K async functions running that loop over a shared
 *                         counter: at most K reads in flight, K coroutine stacks
 *   await-parallel        one async function issues all N reads as promises,
 *                         awaits Promise.all of them, then verifies every read
 *                         (seed 000's and Node's "async parallel"): one stack
 *   await-tasks-parallel  one async function per read (await read(i); check),
 *                         all started at once by a driver async function that
 *                         awaits Promise.all of their promises: N coroutines
 *                         suspended together, on at most 128 stacks, each
 *                         suspended one beyond them keeping its used stack
 *                         copied out (c/lib/coro.h) -- the memory price of
 *                         stackful await used that way
 *
 * Its skeletons are in c/lib/modes_await.c (the rule: docs/adding.md).
 */
#include "workload.h"

/* Sequential (1 async function) and bounded (K). */
int ab_readfile_await_loop(ab_run_t *run) {
  return ab_mode_await_loops(run, &ab_readfile_op);
}

int ab_readfile_await_all(ab_run_t *run) {
  return ab_mode_await_all(run, &ab_readfile_op);
}

int ab_readfile_await_tasks(ab_run_t *run) {
  return ab_mode_await_tasks(run, &ab_readfile_op);
}
