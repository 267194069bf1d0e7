/*
 * modes_stackless.c -- the stackless await style's skeletons (modes.h):
 * switch-based state machines (stackless.h) with an explicit frame, awaiting
 * the same promises as the await style but with no coroutine stack at all.
 *
 *   loops  K frames, each looping: op(next++), await it, check
 *   all    one frame issues all N operations as promises, awaits Promise.all
 *          of them, then verifies each (the shape of await's all)
 *   tasks  one frame (with its own result promise, as an async function has)
 *          per operation, all started by a driver frame awaiting Promise.all
 *          of those results: N frames live together
 *
 * A loop or task frame sits just before its operation's record, in the same
 * allocation (the set's head); frames are allocated once the clock has
 * started and freed after the pass, as modes_await.c takes its stacks.
 *
 * The clock stops at the N-th verification (ab_run_ok): in loops and tasks
 * inside the frame that awaited the operation, before the driver's final
 * Promise.all settles (the same point as modes_await.c); in all, after
 * Promise.all, since the verification follows it there.
 */
#include "modes.h"

#include "stackless.h"

/* The frame before every record of a loops or tasks set: what lives across
 * the await and no more (a tasks frame's own promise is in the set's slot
 * of its operation, set->ps[op->i], below): 48 bytes on 64-bit hosts. */
typedef struct sl_frame_s {
  ab_pt_t pt;
  ab_promise_t *awaited;   /* the operation's promise, the frame's reference */
} sl_frame_t;

_Static_assert(sizeof(void *) != 8 || sizeof(sl_frame_t) == 48, "a frame is 48 bytes on LP64");

/* Bytes from a frame to its record. */
#define SL_HEAD AB_OPS_ALIGNED(sizeof(sl_frame_t))

static sl_frame_t *frame_of(ab_op_t *op) {
  return (sl_frame_t *)((char *)op - SL_HEAD);
}

static ab_op_t *op_of(ab_pt_t *pt) {
  return (ab_op_t *)((char *)AB_PT_FRAME(pt, sl_frame_t, pt) + SL_HEAD);
}

/* Starts op(i); the frame's awaited is its promise.  0, or -1 (recorded). */
static int op_start(sl_frame_t *f, ab_op_t *op, long i) {
  f->awaited = ab_op_promise(op, i);
  return f->awaited ? 0 : -1;
}

/* After the await: verifies the operation.  0, or -1 (recorded). */
static int op_finish(sl_frame_t *f, ab_op_t *op) {
  int rc = ab_op_check(op, f->awaited, f->pt.code);
  ab_promise_release(f->awaited);
  f->awaited = NULL;
  return rc;
}

/* ---- sequential and bounded: K looping frames ------------------------------- */

static int loop_step(ab_pt_t *pt) {
  sl_frame_t *f = AB_PT_FRAME(pt, sl_frame_t, pt);
  ab_op_t *op = op_of(pt);
  ab_ops_t *set = op->set;
  AB_PT_BEGIN(pt);
  while (set->next < set->run->n && !ab_run_failed(set->run)) {
    if (op_start(f, op, set->next++) != 0)
      AB_PT_RETURN(pt, -1);
    AB_PT_AWAIT(pt, f->awaited);
    if (op_finish(f, op) != 0)
      AB_PT_RETURN(pt, -1);
  }
  AB_PT_END(pt);
}

/* A set of N or K records, each after its frame. */
static ab_ops_t *frames_start(ab_run_t *run, const ab_op_type_t *type, long n) {
  return ab_ops_start(run, type, n, SL_HEAD, 1);
}

int ab_mode_stackless_loops(ab_run_t *run, const ab_op_type_t *type) {
  ab_run_begin(run);
  ab_ops_t *set = frames_start(run, type, ab_run_slots(run));
  if (set == NULL)
    return -1;
  for (long k = 0; k < set->n && !ab_run_failed(run); k++)
    ab_pt_start(&frame_of(ab_ops_at(set, k))->pt, loop_step, NULL);
  ab_microtasks_drain();
  return ab_ops_finish(set);
}

/* The pass's one top-level frame (all, tasks). */
typedef struct sl_driver_s {
  ab_pt_t pt;
  ab_ops_t *set;
  ab_promise_t *all;
  long k;
} sl_driver_t;

/* ---- parallel: one frame awaits Promise.all of N operations ------------------ */

static int all_step(ab_pt_t *pt) {
  sl_driver_t *d = AB_PT_FRAME(pt, sl_driver_t, pt);
  AB_PT_BEGIN(pt);
  if ((d->all = ab_ops_all(d->set)) == NULL)
    AB_PT_RETURN(pt, -1); /* recorded */
  AB_PT_AWAIT(pt, d->all);
  if (pt->code != 0)
    ab_ops_failed(d->set, d->all, pt->code, d->set->run->n - 1);
  else
    ab_ops_verify(pt->value);
  ab_promise_release(d->all);
  d->all = NULL;
  AB_PT_END(pt);
}

/* ---- tasks-parallel: a frame per operation, a driver frame awaiting them all -- */

static int one_step(ab_pt_t *pt) {
  sl_frame_t *f = AB_PT_FRAME(pt, sl_frame_t, pt);
  ab_op_t *op = op_of(pt);
  AB_PT_BEGIN(pt);
  if (op_start(f, op, op->i) != 0)
    AB_PT_RETURN(pt, -1);
  AB_PT_AWAIT(pt, f->awaited);
  AB_PT_RETURN(pt, op_finish(f, op));
  AB_PT_END(pt);
}

/* Settles the frame's own promise, as returning from an async function does:
 * set->ps[i] holds the frame's reference once the driver has dropped its
 * own (after Promise.all), and is not read again. */
static void one_done(ab_pt_t *pt) {
  ab_op_t *op = op_of(pt);
  ab_pt_promise_return(op->set->ps[op->i], pt->result, "the operation failed", op);
}

static int tasks_step(ab_pt_t *pt) {
  sl_driver_t *d = AB_PT_FRAME(pt, sl_driver_t, pt);
  ab_ops_t *set = d->set;
  AB_PT_BEGIN(pt);
  if (ab_ops_slots(set) == NULL)
    AB_PT_RETURN(pt, -1); /* recorded */
  for (d->k = 0; d->k < set->n; d->k++) {
    ab_op_t *op = ab_ops_at(set, d->k);
    sl_frame_t *f = frame_of(op);
    op->i = d->k;
    if ((set->ps[d->k] = ab_pt_promise_new()) == NULL)
      break;
    ab_pt_start(&f->pt, one_step, one_done);
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
    ab_ops_failed(set, d->all, pt->code, set->run->n - 1);
  ab_promise_release(d->all);
  d->all = NULL;
  AB_PT_END(pt);
}

/* Runs `step` as the pass's one top-level frame over N records, each after
 * `head` bytes (a frame, or nothing); the clock starts before they are made. */
static int run_driver(ab_run_t *run, const ab_op_type_t *type, size_t head,
                      ab_pt_step_fn step) {
  ab_run_begin(run);
  ab_ops_t *set = ab_ops_start(run, type, run->n, head, 1);
  if (set == NULL)
    return -1;
  sl_driver_t d = {.set = set};
  ab_pt_start(&d.pt, step, NULL);
  ab_microtasks_drain();
  return ab_ops_finish(set);
}

int ab_mode_stackless_all(ab_run_t *run, const ab_op_type_t *type) {
  return run_driver(run, type, 0, all_step);
}

int ab_mode_stackless_tasks(ab_run_t *run, const ab_op_type_t *type) {
  return run_driver(run, type, SL_HEAD, tasks_step);
}
