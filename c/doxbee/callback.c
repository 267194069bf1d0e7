/*
 * callback.c -- the callback style: each operation's completion callback
 * checks its result and starts the next (sequential shape: after the put and
 * the lookup, started together and counted back), or counts the queries back
 * and commits after the last (parallel shape), as bluebird's
 * callbacks-baseline.js and its parallel counterpart do.
 */
#include "workload.h"

/* ---- sequential ---------------------------------------------------------------- */

static void seq_done(ab_doxbee_op_t *op);

/* The created query arrived (synchronously): execute it. */
static void query_created(ab_doxbee_up_t *up, long q) {
  if (ab_doxbee_verify(up, AB_DOXBEE_CREATE, 0, q) == 0)
    ab_doxbee_start(&up->ops[0], up, AB_DOXBEE_EXEC, 0, seq_done);
}

static void seq_done(ab_doxbee_op_t *op) {
  ab_doxbee_up_t *up = op->up;
  int kind = op->kind;
  if (kind == AB_DOXBEE_COMMIT) {
    ab_doxbee_committed(up, op->result);
    return;
  }
  if (ab_doxbee_verify(up, kind, 0, op->result) != 0) return;
  if (kind == AB_DOXBEE_VERSION) {
    /* The lookup found no file: create it through a new query. */
    ab_doxbee_create_query(up, query_created);
    return;
  }
  ab_doxbee_start(op, up, kind + 1, 0, seq_done);
}

/* The put or the lookup came back: the second of the two goes on. */
static void joined(ab_doxbee_op_t *op) {
  ab_doxbee_up_t *up = op->up;
  if (ab_doxbee_verify(up, op->kind, 0, op->result) != 0) return;
  if (--up->pending == 0) ab_doxbee_start(&up->ops[0], up, AB_DOXBEE_VERSION, 0, seq_done);
}

int ab_doxbee_callback_seq(ab_run_t *run) {
  ab_run_begin(run);
  ab_ops_t *set = ab_doxbee_begin(run, 0, 0);
  if (set == NULL) return -1;
  for (long k = 0; k < set->n && !ab_run_failed(run); k++) {
    ab_doxbee_up_t *up = ab_doxbee_up(set, k);
    up->pending = 2;
    if (ab_doxbee_start(&up->ops[0], up, AB_DOXBEE_PUT, 0, joined) == 0)
      ab_doxbee_start(&up->ops[1], up, AB_DOXBEE_LOOKUP, 0, joined);
  }
  return ab_ops_finish(set);
}

/* ---- parallel ------------------------------------------------------------------- */

static void par_committed(ab_doxbee_op_t *op) { ab_doxbee_committed(op->up, op->result); }

static void par_done(ab_doxbee_op_t *op) {
  ab_doxbee_up_t *up = op->up;
  if (ab_doxbee_verify(up, AB_DOXBEE_FILEVERSION, op->j, op->result) != 0) return;
  if (--up->pending == 0)
    ab_doxbee_start(&up->ops[0], up, AB_DOXBEE_COMMIT, 0, par_committed);
}

int ab_doxbee_callback_par(ab_run_t *run) {
  long p = ((ab_doxbee_t *)run->state)->queries;
  ab_run_begin(run);
  ab_ops_t *set = ab_doxbee_begin(run, 1, 0);
  if (set == NULL) return -1;
  for (long k = 0; k < set->n && !ab_run_failed(run); k++) {
    ab_doxbee_up_t *up = ab_doxbee_up(set, k);
    up->pending = p;
    for (long j = 0; j < p; j++)
      if (ab_doxbee_start(&up->ops[j], up, AB_DOXBEE_FILEVERSION, j, par_done) != 0) break;
  }
  return ab_ops_finish(set);
}
