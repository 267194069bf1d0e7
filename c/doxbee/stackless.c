/*
 * stackless.c -- the stackless await style: a state-machine frame per
 * upload (stackless.h; the upload record is the frame), awaiting
 * Promise.all of the put and the lookup and then each operation's promise in
 * turn (sequential shape), or Promise.all of its queries and then the commit
 * (parallel shape).  Every await takes a
 * microtask turn, as ab_await does.
 */
#include "workload.h"

#include <stdlib.h>

/* The result of an awaited operation (pt->value is its record), or -1 with
 * the failure recorded. */
static long awaited(ab_doxbee_up_t *up) {
  if (up->pt.code != 0) {
    ab_op_fail(up->head.set->run, up->head.i, up->pt.code, "an operation");
    return -1;
  }
  return ((const ab_doxbee_op_t *)up->pt.value)->result;
}

static int seq_step(ab_pt_t *pt) {
  ab_doxbee_up_t *up = AB_PT_FRAME(pt, ab_doxbee_up_t, pt);
  long got;
  int bad;
  AB_PT_BEGIN(pt);
  if ((up->p = ab_doxbee_join(up)) == NULL) AB_PT_RETURN(pt, -1);
  AB_PT_AWAIT(pt, up->p);
  if (up->pt.code != 0) ab_op_fail(up->head.set->run, up->head.i, up->pt.code, "the put or the lookup");
  bad = up->pt.code != 0 || ab_doxbee_joined(up, up->pt.value) != 0;
  ab_promise_release(up->p);
  up->p = NULL;
  if (bad) AB_PT_RETURN(pt, -1);
  for (up->step = AB_DOXBEE_VERSION; up->step <= AB_DOXBEE_COMMIT; up->step++) {
    if (up->step == AB_DOXBEE_CREATE) {
      got = ab_doxbee_create_query(up, NULL);
    } else {
      up->p = ab_doxbee_promise(&up->ops[0], up, up->step, 0);
      if (up->p == NULL) AB_PT_RETURN(pt, -1);
      AB_PT_AWAIT(pt, up->p);
      got = awaited(up);
      ab_promise_release(up->p);
      up->p = NULL;
      if (got < 0) AB_PT_RETURN(pt, -1);
    }
    if (up->step == AB_DOXBEE_COMMIT) {
      ab_doxbee_committed(up, got);
    } else if (ab_doxbee_verify(up, up->step, 0, got) != 0) {
      AB_PT_RETURN(pt, -1);
    }
  }
  AB_PT_END(pt);
}

/* Promise.all of the upload's P queries (a new reference), or NULL with the
 * failure recorded. */
static ab_promise_t *start_queries(ab_doxbee_up_t *up) {
  ab_run_t *run = up->head.set->run;
  long p = ab_doxbee_state(up)->queries, j;
  ab_promise_t **ps = calloc((size_t)p, sizeof(*ps));
  if (ps == NULL) {
    ab_run_oom(run, up->head.i, "the query list");
    return NULL;
  }
  for (j = 0; j < p; j++)
    if ((ps[j] = ab_doxbee_promise(&up->ops[j], up, AB_DOXBEE_FILEVERSION, j)) == NULL) break;
  ab_promise_t *all = j == p ? ab_promise_all(ps, (size_t)p) : NULL;
  if (all == NULL && j == p) ab_run_oom(run, up->head.i, "a promise");
  while (j-- > 0) ab_promise_release(ps[j]);
  free(ps);
  return all;
}

/* Checks every query of a fulfilled Promise.all: 0, or -1. */
static int check_queries(ab_doxbee_up_t *up) {
  if (up->pt.code != 0) {
    ab_op_fail(up->head.set->run, up->head.i, up->pt.code, "a query");
    return -1;
  }
  const ab_list_t *list = up->pt.value;
  for (size_t j = 0; j < list->n; j++) {
    const ab_doxbee_op_t *op = list->items[j].ptr;
    if (ab_doxbee_verify(up, AB_DOXBEE_FILEVERSION, (long)j, op->result) != 0) return -1;
  }
  return 0;
}

static int par_step(ab_pt_t *pt) {
  ab_doxbee_up_t *up = AB_PT_FRAME(pt, ab_doxbee_up_t, pt);
  long got;
  int bad;
  AB_PT_BEGIN(pt);
  if ((up->p = start_queries(up)) == NULL) AB_PT_RETURN(pt, -1);
  AB_PT_AWAIT(pt, up->p);
  bad = check_queries(up);
  ab_promise_release(up->p);
  up->p = NULL;
  if (bad) AB_PT_RETURN(pt, -1);
  up->p = ab_doxbee_promise(&up->ops[0], up, AB_DOXBEE_COMMIT, 0);
  if (up->p == NULL) AB_PT_RETURN(pt, -1);
  AB_PT_AWAIT(pt, up->p);
  got = awaited(up);
  ab_promise_release(up->p);
  up->p = NULL;
  if (got >= 0) ab_doxbee_committed(up, got);
  AB_PT_END(pt);
}

static int run_uploads(ab_run_t *run, int shape_parallel, ab_pt_step_fn step) {
  ab_run_begin(run);
  ab_ops_t *set = ab_doxbee_begin(run, shape_parallel, 1);
  if (set == NULL) return -1;
  for (long k = 0; k < set->n && !ab_run_failed(run); k++)
    ab_pt_start(&ab_doxbee_up(set, k)->pt, step, NULL);
  ab_microtasks_drain();
  return ab_ops_finish(set);
}

int ab_doxbee_stackless_seq(ab_run_t *run) { return run_uploads(run, 0, seq_step); }
int ab_doxbee_stackless_par(ab_run_t *run) { return run_uploads(run, 1, par_step); }
