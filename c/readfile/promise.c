/*
 * promise.c -- the promise style (c/lib/promise.h) on any readfile backend.
 *
 * A read is a promise (ab_readp_start, promised.c): the completion callback
 * fulfils it with the read's record or rejects it with the libuv error, then
 * drains the microtask queue, as Node does after every macrotask; the loop's
 * safety net (ab_promise_loop_attach) is on too.
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
 * The per-read records are allocated before the clock starts, as in the
 * callback style: per-operation state every style needs is not the style's cost.
 */
#include "styles.h"

/* A read's rejection: the reason names the read (promised.c). */
static void read_failed(void *arg, ab_promise_t *settled, ab_promise_t *out) {
  (void)out;
  ab_reads_t *set = arg;
  ab_reads_failed(set, settled, ab_promise_code(settled), set->run->n - 1);
}

/* p.then(on_ok, read_failed) for a reaction whose derived promise nobody
 * needs; records running out of memory for it (iteration i). */
static void then_check(ab_reads_t *set, ab_promise_t *p, ab_then_fn on_ok, long i) {
  ab_promise_t *derived = ab_promise_then(p, on_ok, read_failed, set);
  if (derived == NULL)
    ab_run_oom(set->run, i, "a promise");
  ab_promise_release(derived);
}

/* ---- sequential and bounded: chains of .then ------------------------------ */

static void chain_next(ab_reads_t *set, ab_readp_t *r);

static void chain_ok(void *arg, ab_promise_t *settled, ab_promise_t *out) {
  (void)out;
  ab_reads_t *set = arg;
  ab_readp_t *r = ab_promise_value(settled);
  ab_readp_verify(r);
  if (!ab_run_failed(set->run) && set->next < set->run->n)
    chain_next(set, r);
}

/* read(i).then(check-and-read(i+1)) on r, i the next unissued iteration. */
static void chain_next(ab_reads_t *set, ab_readp_t *r) {
  long i = set->next++;
  ab_promise_t *p = ab_readp_start(r, i);
  if (p == NULL)
    return; /* recorded */
  then_check(set, p, chain_ok, i);
  ab_promise_release(p);
}

/* Sequential (1 chain) and bounded (K chains). */
int ab_readfile_promise_chain(ab_run_t *run) {
  ab_reads_t *set = ab_reads_start(run, ab_run_slots(run), sizeof(ab_readp_t));
  if (set == NULL) return -1;
  ab_run_begin(run);
  for (long k = 0; k < set->n && !ab_run_failed(run); k++) chain_next(set, ab_reads_at(set, k));
  ab_microtasks_drain();
  return ab_reads_finish(set);
}

/* ---- counter-parallel: N .then reactions, each counts --------------------- */

static void count_ok(void *arg, ab_promise_t *settled, ab_promise_t *out) {
  (void)arg;
  (void)out;
  ab_readp_verify(ab_promise_value(settled));
}

int ab_readfile_promise_counter(ab_run_t *run) {
  ab_reads_t *set = ab_reads_start(run, run->n, sizeof(ab_readp_t));
  if (set == NULL) return -1;
  ab_run_begin(run);
  for (long k = 0; k < set->n && !ab_run_failed(run); k++) {
    ab_promise_t *p = ab_readp_start(ab_reads_at(set, k), k);
    if (p == NULL) break; /* recorded */
    then_check(set, p, count_ok, k);
    ab_promise_release(p);
  }
  ab_microtasks_drain();
  return ab_reads_finish(set);
}

/* ---- parallel: ab_promise_all and one final reaction ---------------------- */

static void all_ok(void *arg, ab_promise_t *settled, ab_promise_t *out) {
  (void)arg;
  (void)out;
  ab_reads_verify(ab_promise_value(settled));
}

int ab_readfile_promise_all(ab_run_t *run) {
  ab_reads_t *set = ab_reads_start(run, run->n, sizeof(ab_readp_t));
  if (set == NULL) return -1;
  ab_run_begin(run);
  ab_promise_t *all = ab_reads_all(set);
  if (all != NULL) then_check(set, all, all_ok, run->n - 1);
  ab_promise_release(all);
  ab_microtasks_drain();
  return ab_reads_finish(set);
}
