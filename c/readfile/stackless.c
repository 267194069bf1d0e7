/*
 * stackless.c -- the stackless await style: switch-based state machines
 * (c/lib/stackless.h) with an explicit frame, awaiting the same promises as
 * the await style but with no coroutine stack at all.
 *
 *   stackless-sequential      one frame looping: read(i), await it, check
 *   stackless-bounded         K such frames over a shared counter
 *   stackless-parallel        one frame issues all N reads as promises,
 *                             awaits Promise.all of them, then verifies every
 *                             read (the shape of await-parallel)
 *   stackless-tasks-parallel  one frame per read (with its own result promise,
 *                             as an async function has), all started at once
 *                             by a driver frame awaiting Promise.all of those
 *                             results: N frames live together
 *
 * A read is a promise (ab_readp_start, promised.c) settled by the
 * completion callback, which then drains the microtask queue.  Frames are
 * allocated before the clock starts.
 */
#include "styles.h"
#include "stackless.h"

/* A read's frame (sequential, bounded, tasks-parallel): the set's record. */
typedef struct sl_op_s {
  ab_readp_t rd;           /* first: the set's record */
  ab_pt_t pt;
  ab_promise_t *awaited;   /* the read's promise, the frame's reference */
  ab_promise_t *result;    /* tasks-parallel: this frame's own promise */
} sl_op_t;

/* Starts read i; op->awaited is its promise.  0, or -1 (recorded). */
static int read_start(sl_op_t *op, long i) {
  op->awaited = ab_readp_start(&op->rd, i);
  return op->awaited ? 0 : -1;
}

/* After the await: verifies the read.  0, or -1 (recorded). */
static int read_finish(sl_op_t *op) {
  int rc = ab_readp_check(&op->rd, op->awaited, op->pt.code);
  ab_promise_release(op->awaited);
  op->awaited = NULL;
  return rc;
}

/* ---- sequential and bounded: K looping frames ----------------------------- */

static int loop_step(ab_pt_t *pt) {
  sl_op_t *op = AB_PT_FRAME(pt, sl_op_t, pt);
  ab_reads_t *set = op->rd.set;
  AB_PT_BEGIN(pt);
  while (set->next < set->run->n && !ab_run_failed(set->run)) {
    if (read_start(op, set->next++) != 0)
      AB_PT_RETURN(pt, -1);
    AB_PT_AWAIT(pt, op->awaited);
    if (read_finish(op) != 0)
      AB_PT_RETURN(pt, -1);
  }
  AB_PT_END(pt);
}

int ab_readfile_stackless_loop(ab_run_t *run) {
  ab_reads_t *set = ab_reads_start(run, ab_run_slots(run), sizeof(sl_op_t));
  if (set == NULL)
    return -1;
  ab_run_begin(run);
  for (long k = 0; k < set->n && !ab_run_failed(run); k++)
    ab_pt_start(&((sl_op_t *)ab_reads_at(set, k))->pt, loop_step, NULL);
  ab_microtasks_drain();
  return ab_reads_finish(set);
}

/* The pass's one top-level frame (parallel, tasks-parallel). */
typedef struct sl_driver_s {
  ab_pt_t pt;
  ab_reads_t *set;
  ab_promise_t *all;
  long k;
} sl_driver_t;

/* ---- parallel: one frame awaits Promise.all of N reads -------------------- */

/* Issues every read as a promise, awaits Promise.all, verifies every read:
 * one frame however large N is. */
static int all_step(ab_pt_t *pt) {
  sl_driver_t *d = AB_PT_FRAME(pt, sl_driver_t, pt);
  AB_PT_BEGIN(pt);
  if ((d->all = ab_reads_all(d->set)) == NULL)
    AB_PT_RETURN(pt, -1); /* recorded */
  AB_PT_AWAIT(pt, d->all);
  if (pt->code != 0)
    ab_reads_failed(d->set, d->all, pt->code, d->set->run->n - 1);
  else
    ab_reads_verify(pt->value);
  ab_promise_release(d->all);
  d->all = NULL;
  AB_PT_END(pt);
}

/* ---- tasks-parallel: a frame per read, a driver frame awaiting them all --- */

static int one_step(ab_pt_t *pt) {
  sl_op_t *op = AB_PT_FRAME(pt, sl_op_t, pt);
  AB_PT_BEGIN(pt);
  if (read_start(op, op->rd.i) != 0)
    AB_PT_RETURN(pt, -1);
  AB_PT_AWAIT(pt, op->awaited);
  AB_PT_RETURN(pt, read_finish(op));
  AB_PT_END(pt);
}

/* Settles the frame's own promise, as returning from an async function does. */
static void one_done(ab_pt_t *pt) {
  sl_op_t *op = AB_PT_FRAME(pt, sl_op_t, pt);
  if (pt->result == 0)
    ab_promise_resolve(op->result, op, NULL);
  else
    ab_promise_reject(op->result, pt->result, "read failed");
  ab_promise_release(op->result);
  op->result = NULL;
}

static int tasks_step(ab_pt_t *pt) {
  sl_driver_t *d = AB_PT_FRAME(pt, sl_driver_t, pt);
  ab_reads_t *set = d->set;
  AB_PT_BEGIN(pt);
  for (d->k = 0; d->k < set->n; d->k++) {
    sl_op_t *op = (sl_op_t *)ab_reads_at(set, d->k);
    op->rd.i = d->k;
    if ((op->result = ab_promise_new()) == NULL)
      break;
    set->ps[d->k] = ab_promise_retain(op->result);
    ab_pt_start(&op->pt, one_step, one_done);
  }
  if (d->k == set->n)
    d->all = ab_promise_all(set->ps, (size_t)d->k);
  for (long j = 0; j < d->k; j++)
    ab_promise_release(set->ps[j]);
  if (d->all == NULL) {
    ab_run_oom(set->run, d->k < set->n ? d->k : d->k - 1, "a promise");
    AB_PT_RETURN(pt, -1);
  }
  AB_PT_AWAIT(pt, d->all);
  if (pt->code != 0)
    ab_reads_failed(set, d->all, pt->code, set->run->n - 1);
  ab_promise_release(d->all);
  d->all = NULL;
  AB_PT_END(pt);
}

/* Runs `step` as the pass's one top-level frame over N records of `size`. */
static int run_driver(ab_run_t *run, ab_pt_step_fn step, size_t size) {
  ab_reads_t *set = ab_reads_start(run, run->n, size);
  if (set == NULL)
    return -1;
  sl_driver_t d = {.set = set};
  ab_run_begin(run);
  ab_pt_start(&d.pt, step, NULL);
  ab_microtasks_drain();
  return ab_reads_finish(set);
}

int ab_readfile_stackless_all(ab_run_t *run) {
  return run_driver(run, all_step, sizeof(ab_readp_t));
}

int ab_readfile_stackless_tasks(ab_run_t *run) {
  return run_driver(run, tasks_step, sizeof(sl_op_t));
}
