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
 * A read is a promise (ab_readp_start, microtasks.c) settled by the
 * completion callback, which then drains the microtask queue.  Frames are
 * allocated before the clock starts.
 */
#include "styles.h"
#include "stackless.h"

#include <stdlib.h>

typedef struct sl_state_s sl_state_t;

typedef struct sl_op_s {
  ab_pt_t pt;
  ab_readp_t rd;
  ab_promise_t *awaited;   /* the read's promise, the frame's reference */
  ab_promise_t *result;    /* parallel: this frame's own promise */
  sl_state_t *st;
} sl_op_t;

struct sl_state_s {
  ab_run_t *run;
  sl_op_t *ops;
  long nops;
  long next;
};

/* Starts read i; op->awaited is its promise.  0, or -1 (recorded). */
static int read_start(sl_op_t *op, long i) {
  op->awaited = ab_readp_start(op->st->run, &op->rd, i);
  return op->awaited ? 0 : -1;
}

/* After the await: verifies the read.  0, or -1 (recorded). */
static int read_finish(sl_op_t *op) {
  int rc = ab_readp_check(op->st->run, &op->rd, op->awaited, op->pt.code);
  ab_promise_release(op->awaited);
  op->awaited = NULL;
  return rc;
}

static sl_state_t *state_new(ab_run_t *run, long nops) {
  sl_state_t *st = calloc(1, sizeof(*st));
  if (st == NULL)
    return NULL;
  st->run = run;
  st->nops = nops;
  st->ops = calloc((size_t)nops, sizeof(*st->ops));
  if (st->ops == NULL) {
    free(st);
    return NULL;
  }
  for (long k = 0; k < nops; k++) {
    st->ops[k].st = st;
  }
  return st;
}

static void state_free(sl_state_t *st) {
  for (long k = 0; k < st->nops; k++)
    ab_read_cleanup(&st->ops[k].rd.req);
  free(st->ops);
  free(st);
}

static sl_state_t *start(ab_run_t *run, long nops) {
  sl_state_t *st = state_new(run, nops);
  if (st == NULL) {
    ab_run_fail(run, 0, "out of memory for %ld frames", nops);
    return NULL;
  }
  if (ab_readfile_queue_attach(run) != 0) {
    state_free(st);
    return NULL;
  }
  return st;
}

static int finish(ab_run_t *run, sl_state_t *st) {
  int rc = ab_readfile_queue_finish(run);
  state_free(st);
  return rc;
}

/* ---- sequential and bounded: K looping frames ----------------------------- */

static int loop_step(ab_pt_t *pt) {
  sl_op_t *op = AB_PT_FRAME(pt, sl_op_t, pt);
  sl_state_t *st = op->st;
  AB_PT_BEGIN(pt);
  while (st->next < st->run->n && !ab_run_failed(st->run)) {
    if (read_start(op, st->next++) != 0)
      AB_PT_RETURN(pt, -1);
    AB_PT_AWAIT(pt, op->awaited);
    if (read_finish(op) != 0)
      AB_PT_RETURN(pt, -1);
  }
  AB_PT_END(pt);
}

int ab_readfile_stackless_loop(ab_run_t *run) {
  sl_state_t *st = start(run, ab_run_slots(run));
  if (st == NULL)
    return -1;
  ab_run_begin(run);
  for (long k = 0; k < st->nops && !ab_run_failed(run); k++)
    ab_pt_start(&st->ops[k].pt, loop_step, NULL);
  ab_microtasks_drain();
  return finish(run, st);
}

/* ---- parallel: one frame awaits Promise.all of N reads -------------------- */

typedef struct sl_driver_s {
  ab_pt_t pt;
  sl_state_t *st;
  ab_promise_t **ps;
  ab_promise_t *all;
  long k;
} sl_driver_t;

/* Issues every read as a promise, awaits Promise.all, verifies every read:
 * one frame however large N is. */
static int all_step(ab_pt_t *pt) {
  sl_driver_t *d = AB_PT_FRAME(pt, sl_driver_t, pt);
  ab_run_t *run = d->st->run;
  AB_PT_BEGIN(pt);
  for (d->k = 0; d->k < d->st->nops; d->k++)
    if ((d->ps[d->k] = ab_readp_start(run, &d->st->ops[d->k].rd, d->k)) == NULL)
      break; /* recorded */
  if (d->k == d->st->nops)
    d->all = ab_promise_all(d->ps, (size_t)d->k);
  for (long j = 0; j < d->k; j++)
    ab_promise_release(d->ps[j]);
  if (d->all == NULL) {
    ab_run_fail(run, d->k, "out of memory for a promise");
    AB_PT_RETURN(pt, -1);
  }
  AB_PT_AWAIT(pt, d->all);
  if (pt->code != 0)
    ab_readp_failed(run, d->all, pt->code, run->n - 1);
  else
    ab_readp_verify_all(run, pt->value);
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
  ab_run_t *run = d->st->run;
  AB_PT_BEGIN(pt);
  for (d->k = 0; d->k < d->st->nops; d->k++) {
    sl_op_t *op = &d->st->ops[d->k];
    op->rd.i = d->k;
    if ((op->result = ab_promise_new()) == NULL)
      break;
    d->ps[d->k] = ab_promise_retain(op->result);
    ab_pt_start(&op->pt, one_step, one_done);
  }
  if (d->k == d->st->nops)
    d->all = ab_promise_all(d->ps, (size_t)d->k);
  for (long j = 0; j < d->k; j++)
    ab_promise_release(d->ps[j]);
  if (d->all == NULL) {
    ab_run_fail(run, d->k, "out of memory for a promise");
    AB_PT_RETURN(pt, -1);
  }
  AB_PT_AWAIT(pt, d->all);
  if (pt->code != 0)
    ab_readp_failed(run, d->all, pt->code, run->n - 1);
  ab_promise_release(d->all);
  d->all = NULL;
  AB_PT_END(pt);
}

/* Runs `step` as the pass's one top-level frame. */
static int run_driver(ab_run_t *run, ab_pt_step_fn step) {
  sl_state_t *st = start(run, run->n);
  if (st == NULL)
    return -1;
  sl_driver_t d = {.st = st, .ps = malloc((size_t)run->n * sizeof(ab_promise_t *))};
  if (d.ps == NULL) {
    ab_run_fail(run, 0, "out of memory for %ld promises", run->n);
    ab_promise_loop_detach();
    uv_run(run->loop, UV_RUN_DEFAULT);
    state_free(st);
    return -1;
  }
  ab_run_begin(run);
  ab_pt_start(&d.pt, step, NULL);
  ab_microtasks_drain();
  int rc = finish(run, st);
  free(d.ps);
  return rc;
}

int ab_readfile_stackless_all(ab_run_t *run) {
  return run_driver(run, all_step);
}

int ab_readfile_stackless_tasks(ab_run_t *run) {
  return run_driver(run, tasks_step);
}
