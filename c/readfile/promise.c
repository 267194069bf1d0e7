/*
 * promise.c -- the promise style (c/lib/promise.h) on any readfile backend.
 *
 * A read is a promise (ab_op_promise of ab_readfile_op): the completion
 * callback fulfils it with the read's record or rejects it with the libuv
 * error, then drains the microtask queue, as Node does after every macrotask
 * (c/lib/modes.h).
 *
 *   promise-sequential        a recursive .then chain: the reaction to each
 *                             read's promise verifies it and starts the next
 *                             (seed 000's "update: sequential promises")
 *   promise-parallel          all N issued, ab_promise_all, every read checked
 *                             in the one final reaction
 *   promise-counter-parallel  all N issued, each .then verifies and counts
 *                             (seed 000's mislabelled "blocking" test)
 *   promise-bounded           K chains like the sequential one: at most K in
 *                             flight, each reaction starts the next unissued read
 *
 * Its skeletons are in c/lib/modes_promise.c (the rule: docs/adding.md).
 */
#include "workload.h"

/* Sequential (1 chain) and bounded (K chains). */
int ab_readfile_promise_chain(ab_run_t *run) {
  return ab_mode_chains(run, &ab_readfile_op);
}

int ab_readfile_promise_counter(ab_run_t *run) {
  return ab_mode_then_counter(run, &ab_readfile_op);
}

int ab_readfile_promise_all(ab_run_t *run) {
  return ab_mode_then_all(run, &ab_readfile_op);
}
