/*
 * modes_callback.c -- the callback style's skeleton (modes.h): K slots, each
 * completion verifies its operation and issues the next unissued one on the
 * same slot.  1 slot is the sequential chain, N slots parallel, K bounded
 * (ab_run_slots).  Also the test-only mistake of issuing all and stopping the
 * clock without waiting.
 */
#include "modes.h"

/* Starts iteration set->next on op; 0, or -1 with the failure recorded. */
static int slot_issue(ab_ops_t *set, ab_op_t *op) {
  op->i = set->next++;
  int rc = set->type->start(op);
  if (rc != 0) {
    ab__op_start_failed(set->run, op->i, rc);
    return -1;
  }
  set->inflight++;
  return 0;
}

static void slot_done(ab_op_t *op, int code, const char *what) {
  ab_ops_t *set = op->set;
  ab_run_t *run = set->run;
  set->inflight--;
  if (code != 0)
    ab_op_fail(run, op->i, code, what);
  else
    ab_run_check(run, op->i, op);
  if (set->nowait) {
    if (set->inflight == 0)
      ab__ops_free(set, 1);
  } else if (!ab_run_failed(run) && set->next < run->n) {
    slot_issue(set, op);
  }
}

int ab_mode_slots(ab_run_t *run, const ab_op_type_t *type) {
  ab_run_begin(run);
  ab_ops_t *set = ab_ops_start(run, type, ab_run_slots(run), 0, 0);
  if (set == NULL)
    return -1;
  for (long k = 0; k < set->n && !ab_run_failed(run); k++)
    slot_issue(set, ab_ops_at(set, k));
  return ab_ops_finish(set);
}

/*
 * The test-only mistake: issue everything, stop the clock, report.  The
 * operations still complete later (the harness drains the loop before closing
 * it); the last completion frees the set, so nothing leaks.
 */
int ab_mode_slots_nowait(ab_run_t *run, const ab_op_type_t *type) {
  ab_run_begin(run);
  ab_ops_t *set = ab_ops_start(run, type, run->n, 0, 0);
  if (set == NULL)
    return -1;
  set->nowait = 1;
  for (long k = 0; k < set->n; k++) {
    ab_op_t *op = ab_ops_at(set, k);
    op->i = k;
    if (type->start(op) == 0)
      set->inflight++;
  }
  run->t_end_ns = ab_now_ns();
  if (set->inflight == 0)
    ab__ops_free(set, 0);
  return 0;
}

/* ab_op_done in callback form (modes.h). */
void ab__op_slot_done(ab_op_t *op, int code, const char *what) { slot_done(op, code, what); }
