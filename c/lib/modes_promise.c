/*
 * modes_promise.c -- the promise style's skeletons (modes.h): chains of
 * .then, Promise.all with one final reaction, and N counting reactions.
 *
 * Every reaction whose derived promise nobody needs is registered through
 * then_check: its rejection handler records the failure, so an operation's
 * failure is reported once, as the run's one line; and its derived promise,
 * which the skeleton would release at once, is made only when the promise
 * settles (ab_promise_then_release), so a pending .then costs no promise.
 */
#include "modes.h"

/* An operation's rejection: the reason names the operation (ab_ops_failed). */
static void op_failed(void *arg, ab_promise_t *settled, ab_promise_t *out) {
  (void)out;
  ab_ops_t *set = arg;
  ab_ops_failed(set, settled, ab_promise_code(settled), set->run->n - 1);
}

/* p.then(on_ok, op_failed), its derived promise released at once (made when
 * the promise settles: ab_promise_then_release); records running out of memory
 * for it (iteration i). */
static void then_check(ab_ops_t *set, ab_promise_t *p, ab_then_fn on_ok, long i) {
  if (ab_promise_then_release(p, on_ok, op_failed, set) != 0)
    ab_run_oom(set->run, i, "a promise");
}

/* ---- sequential and bounded: chains of .then -------------------------------- */

static void chain_next(ab_ops_t *set, ab_op_t *op);

static void chain_ok(void *arg, ab_promise_t *settled, ab_promise_t *out) {
  (void)out;
  ab_ops_t *set = arg;
  ab_op_t *op = ab_promise_value(settled);
  ab_run_check(set->run, op->i, op);
  if (!ab_run_failed(set->run) && set->next < set->run->n)
    chain_next(set, op);
}

/* op(i).then(check-and-start(i+1)) on op, i the next unissued iteration. */
static void chain_next(ab_ops_t *set, ab_op_t *op) {
  long i = set->next++;
  ab_promise_t *p = ab_op_promise(op, i);
  if (p == NULL)
    return; /* recorded */
  then_check(set, p, chain_ok, i);
  ab_promise_release(p);
}

int ab_mode_chains(ab_run_t *run, const ab_op_type_t *type) {
  ab_run_begin(run);
  ab_ops_t *set = ab_ops_start(run, type, ab_run_slots(run), 0, 1);
  if (set == NULL)
    return -1;
  for (long k = 0; k < set->n && !ab_run_failed(run); k++)
    chain_next(set, ab_ops_at(set, k));
  ab_microtasks_drain();
  return ab_ops_finish(set);
}

/* ---- counter-parallel: N .then reactions, each counts ------------------------ */

static void count_ok(void *arg, ab_promise_t *settled, ab_promise_t *out) {
  (void)out;
  ab_ops_t *set = arg;
  ab_op_t *op = ab_promise_value(settled);
  ab_run_check(set->run, op->i, op);
}

int ab_mode_then_counter(ab_run_t *run, const ab_op_type_t *type) {
  ab_run_begin(run);
  ab_ops_t *set = ab_ops_start(run, type, run->n, 0, 1);
  if (set == NULL)
    return -1;
  for (long k = 0; k < set->n && !ab_run_failed(run); k++) {
    ab_promise_t *p = ab_op_promise(ab_ops_at(set, k), k);
    if (p == NULL)
      break; /* recorded */
    then_check(set, p, count_ok, k);
    ab_promise_release(p);
  }
  ab_microtasks_drain();
  return ab_ops_finish(set);
}

/* ---- parallel: Promise.all and one final reaction ----------------------------- */

static void all_ok(void *arg, ab_promise_t *settled, ab_promise_t *out) {
  (void)arg;
  (void)out;
  ab_ops_verify(ab_promise_value(settled));
}

int ab_mode_then_all(ab_run_t *run, const ab_op_type_t *type) {
  ab_run_begin(run);
  ab_ops_t *set = ab_ops_start(run, type, run->n, 0, 1);
  if (set == NULL)
    return -1;
  ab_promise_t *all = ab_ops_all(set);
  if (all != NULL)
    then_check(set, all, all_ok, run->n - 1);
  ab_promise_release(all);
  ab_microtasks_drain();
  return ab_ops_finish(set);
}
