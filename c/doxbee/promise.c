/*
 * promise.c -- the promise style: each upload is a .then chain whose
 * handlers check a result and return the next operation's promise (which
 * the derived promise adopts, as returning a promise from .then does in
 * JavaScript), after Promise.all of the put and the lookup (sequential
 * shape); the parallel shape joins its queries with Promise.all and commits
 * in the reaction.
 */
#include "workload.h"

#include <stdlib.h>

/* Hands the next operation's promise to `out` (adopted).  When it could not
 * start (NULL: the failure is recorded in the run, the one line it ends
 * with), out is left to be fulfilled with nothing and the chain's next links
 * stop at that, rather than a rejection nobody handles adding a second line. */
static void adopt(ab_promise_t *out, ab_promise_t *next) {
  if (next == NULL) return;
  ab_promise_resolve_promise(out, next);
  ab_promise_release(next);
}

/* ---- sequential ------------------------------------------------------------------- */

/* One link of the chain: the settled operation's result is checked, the
 * next operation started and returned. */
static void seq_then(void *arg, ab_promise_t *settled, ab_promise_t *out) {
  ab_doxbee_up_t *up = arg;
  const ab_doxbee_op_t *op = ab_promise_value(settled);
  if (op == NULL) return; /* an earlier link failed (recorded): the chain stops */
  int kind = op->kind;
  if (kind == AB_DOXBEE_COMMIT) {
    ab_doxbee_committed(up, op->result);
    return;
  }
  if (ab_doxbee_verify(up, kind, 0, op->result) != 0) return;
  if (kind == AB_DOXBEE_VERSION) {
    /* The lookup found no file: create it through a new query, executed next. */
    if (ab_doxbee_verify(up, AB_DOXBEE_CREATE, 0, ab_doxbee_create_query(up, NULL)) != 0)
      return;
    kind = AB_DOXBEE_CREATE;
  }
  adopt(out, ab_doxbee_promise(&up->ops[0], up, kind + 1, 0));
}

/* The put and the lookup are back (Promise.all): check both, start the version insert. */
static void joined_then(void *arg, ab_promise_t *settled, ab_promise_t *out) {
  ab_doxbee_up_t *up = arg;
  if (ab_doxbee_joined(up, ab_promise_value(settled)) != 0) return;
  adopt(out, ab_doxbee_promise(&up->ops[0], up, AB_DOXBEE_VERSION, 0));
}

/* Links of the chain after the join: the version insert's, the query
 * execution's, the file-version insert's, the file update's and the commit's. */
#define SEQ_LINKS 5

int ab_doxbee_promise_seq(ab_run_t *run) {
  ab_run_begin(run);
  ab_ops_t *set = ab_doxbee_begin(run, 0, 1);
  if (set == NULL) return -1;
  for (long k = 0; k < set->n && !ab_run_failed(run); k++) {
    ab_doxbee_up_t *up = ab_doxbee_up(set, k);
    ab_promise_t *all = ab_doxbee_join(up);
    ab_promise_t *p = all != NULL ? ab_promise_then(all, joined_then, NULL, up) : NULL;
    if (all != NULL && p == NULL) ab_run_oom(run, k, "a promise");
    if (all != NULL) ab_promise_release(all);
    for (int s = 0; p != NULL && s < SEQ_LINKS; s++) {
      ab_promise_t *q = ab_promise_then(p, seq_then, NULL, up);
      if (q == NULL) ab_run_oom(run, k, "a promise");
      ab_promise_release(p);
      p = q;
    }
    if (p != NULL) ab_promise_release(p);
  }
  ab_microtasks_drain();
  return ab_ops_finish(set);
}

/* ---- parallel ---------------------------------------------------------------------- */

static void par_committed(void *arg, ab_promise_t *settled, ab_promise_t *out) {
  (void)out;
  const ab_doxbee_op_t *op = ab_promise_value(settled);
  if (op != NULL) ab_doxbee_committed(arg, op->result);
}

/* Promise.all of the queries fulfilled: check each, then commit. */
static void par_joined(void *arg, ab_promise_t *settled, ab_promise_t *out) {
  ab_doxbee_up_t *up = arg;
  const ab_list_t *list = ab_promise_value(settled);
  for (size_t j = 0; j < list->n; j++) {
    const ab_doxbee_op_t *op = list->items[j].ptr;
    if (ab_doxbee_verify(up, AB_DOXBEE_FILEVERSION, (long)j, op->result) != 0) return;
  }
  adopt(out, ab_doxbee_promise(&up->ops[0], up, AB_DOXBEE_COMMIT, 0));
}

int ab_doxbee_promise_par(ab_run_t *run) {
  long p = ((ab_doxbee_t *)run->state)->queries;
  ab_promise_t **ps = calloc((size_t)p, sizeof(*ps));
  if (ps == NULL) {
    ab_run_oom(run, 0, "the query list");
    return -1;
  }
  /* ps is the pass's scratch list for one upload's queries, not an
   * operation's: made before the clock. */
  ab_run_begin(run);
  ab_ops_t *set = ab_doxbee_begin(run, 1, 1);
  if (set == NULL) {
    free(ps);
    return -1;
  }
  for (long k = 0; k < set->n && !ab_run_failed(run); k++) {
    ab_doxbee_up_t *up = ab_doxbee_up(set, k);
    long j;
    for (j = 0; j < p; j++)
      if ((ps[j] = ab_doxbee_promise(&up->ops[j], up, AB_DOXBEE_FILEVERSION, j)) == NULL) break;
    ab_promise_t *all = j == p ? ab_promise_all(ps, (size_t)p) : NULL;
    while (j-- > 0) ab_promise_release(ps[j]);
    if (all == NULL) {
      ab_run_oom(run, k, "a promise");
      break;
    }
    ab_promise_t *joined = ab_promise_then(all, par_joined, NULL, up);
    ab_promise_t *done = joined != NULL ? ab_promise_then(joined, par_committed, NULL, up) : NULL;
    if (done == NULL) ab_run_oom(run, k, "a promise");
    ab_promise_release(all);
    if (joined != NULL) ab_promise_release(joined);
    if (done != NULL) ab_promise_release(done);
  }
  free(ps);
  ab_microtasks_drain();
  return ab_ops_finish(set);
}
