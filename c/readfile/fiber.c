/*
 * fiber.c -- the fiber style (c/lib/fiber.h): plain code on stackful
 * coroutines that suspend only while a read is pending.  The backend's
 * completion callback wakes the fiber at once, on the callback's stack: no
 * promise, no microtask between a read's completion and its check.
 *
 *   fiber-sequential  one fiber: for (i...) { read(i); suspend; check }
 *   fiber-bounded     K fibers running that loop over a shared counter: at
 *                     most K reads in flight, K stacks
 *   fiber-parallel    one fiber starts all N reads, suspends once until the
 *                     last completes, then verifies every read: one stack
 *
 * The reads' records (ab_readfile_op_t, whose req the workload's check
 * reads) and the stacks are made once the clock has started (c/lib/modes.h)
 * and freed after the pass, the stacks back to the coroutine pool.
 */
#include "workload.h"

#include <stdlib.h>

#include "fiber.h"

/* A pass: its records, and what the fibers share. */
typedef struct fiber_pass_s {
  ab_run_t *run;
  const ab_readfile_t *st;
  ab_readfile_op_t *recs;
  long nrecs;
  long next;               /* next iteration to issue (loops) */
  long pending;            /* parallel: reads not yet completed */
  ab_fiber_t *waiter;      /* parallel: the fiber waiting for them */
} fiber_pass_t;

/* The one read a looping fiber waits for, with the fiber: req.data. */
static void read_woke(ab_read_t *req, ssize_t nread) {
  (void)nread; /* req->result holds it for the check */
  ab_fiber_wake(req->data);
}

/* Starts iteration i on r with `cb`; 0, or -1 with the failure recorded. */
static int start(fiber_pass_t *fp, ab_readfile_op_t *r, long i, ab_read_cb cb) {
  r->op.i = i;
  int rc = fp->st->backend->start(fp->st->loop, &r->req, fp->st->path, cb);
  if (rc != 0) {
    if (rc == UV_ENOMEM)
      ab_run_oom(fp->run, i, "starting the read");
    else
      ab_run_fail(fp->run, i, "could not start the read: %s", uv_strerror(rc));
    return -1;
  }
  return 0;
}

/* ---- sequential and bounded: K fibers over a shared counter ------------------ */

typedef struct loop_arg_s {
  fiber_pass_t *fp;
  ab_readfile_op_t *r;
} loop_arg_t;

static void loop_body(void *arg) {
  loop_arg_t a = *(loop_arg_t *)arg; /* the starter's copy goes at once */
  fiber_pass_t *fp = a.fp;
  a.r->req.data = ab_fiber_current();
  while (fp->next < fp->run->n && !ab_run_failed(fp->run)) {
    long i = fp->next++;
    if (start(fp, a.r, i, read_woke) != 0)
      break;
    ab_fiber_suspend();
    if (ab_run_check(fp->run, i, a.r) != 0)
      break;
  }
}

/* ---- parallel: one fiber, N reads, one suspension ---------------------------- */

static void counted(ab_read_t *req, ssize_t nread) {
  (void)nread;
  fiber_pass_t *fp = req->data;
  if (--fp->pending == 0)
    ab_fiber_wake(fp->waiter);
}

static void all_body(void *arg) {
  fiber_pass_t *fp = arg;
  long k;
  fp->waiter = ab_fiber_current();
  for (k = 0; k < fp->nrecs; k++) {
    fp->recs[k].req.data = fp;
    if (start(fp, &fp->recs[k], k, counted) != 0)
      break;
    fp->pending++;
  }
  if (fp->pending > 0)
    ab_fiber_suspend();
  for (long j = 0; j < k; j++)
    if (ab_run_check(fp->run, j, &fp->recs[j]) != 0)
      break;
}

/* ---- the pass ------------------------------------------------------------------ */

static int run_fibers(ab_run_t *run, long fibers, long recs, int parallel) {
  fiber_pass_t fp = {.run = run, .st = run->state, .nrecs = recs};
  ab_run_begin(run);
  fp.recs = calloc((size_t)recs, sizeof(*fp.recs));
  loop_arg_t *args = calloc((size_t)fibers, sizeof(*args));
  if (fp.recs == NULL || args == NULL) {
    free(fp.recs);
    free(args);
    ab_run_oom(run, 0, "the records");
    return -1;
  }
  for (long k = 0; k < fibers && !ab_run_failed(run); k++) {
    args[k] = (loop_arg_t){&fp, &fp.recs[k]};
    if (ab_fiber_start(parallel ? all_body : loop_body, parallel ? (void *)&fp : &args[k]) != 0)
      ab_run_oom(run, fp.next, "a fiber stack");
  }
  uv_run(run->loop, UV_RUN_DEFAULT);
  if (!ab_run_failed(run) && ab_coro_live() != 0)
    ab_run_fail(run, run->n - 1, "%zu fibers never finished", ab_coro_live());
  for (long k = 0; k < recs; k++)
    ab_read_cleanup(&fp.recs[k].req);
  free(fp.recs);
  free(args);
  return ab_run_failed(run) ? -1 : 0;
}

int ab_readfile_fiber_loop(ab_run_t *run) {
  long k = ab_run_slots(run);
  return run_fibers(run, k, k, 0);
}

int ab_readfile_fiber_all(ab_run_t *run) {
  return run_fibers(run, 1, run->n, 1);
}
