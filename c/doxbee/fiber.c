/*
 * fiber.c -- the fiber style: a stackful coroutine per upload (coro.h used
 * directly, no promises).  An operation that is pending suspends the
 * coroutine (ab_coro_yield); the timer's wake-up resumes it from the
 * operation's callback, and the query creation, whose result is there at
 * once, is a plain call: the coroutine suspends only on pending work, as
 * node-fibers did.  The parallel shape starts its P queries, suspends until
 * the last is back, checks each and commits.  The N stacks come from the
 * coroutine pool once the clock has started (c/lib/modes.h).
 */
#include "workload.h"

/* The operation completed: the suspended coroutine goes on (a sequential
 * upload at once; a parallel one when its last query is back). */
static void resume(ab_doxbee_op_t *op) {
  ab_doxbee_up_t *up = op->up;
  if (--up->pending != 0) return; /* more to come, or the upload gave up (-1) */
  ab_coro_resume(up->co);
  if (ab_coro_done(up->co)) {
    ab_coro_destroy(up->co);
    up->co = NULL;
  }
}

/* Starts operation kind (index j) in the upload's record k, to resume it
 * when it is back: 0, or -1 with the failure recorded. */
static int start(ab_doxbee_up_t *up, long k, int kind, long j) {
  if (ab_doxbee_start(&up->ops[k], up, kind, j, resume) == 0) return 0;
  /* Those started still wake; the pass has failed and they resume nothing. */
  up->pending = -1;
  return -1;
}

/* Starts `count` operations of `kind` (index j = 0..count-1) and suspends
 * until all are back; 0, or -1 with the failure recorded. */
static int wait_ops(ab_doxbee_up_t *up, int kind, long count) {
  up->pending = count;
  for (long j = 0; j < count; j++)
    if (start(up, j, kind, j) != 0) return -1;
  ab_coro_yield();
  return 0;
}

/* Starts the put and the lookup together and suspends until both are back. */
static int wait_put_and_lookup(ab_doxbee_up_t *up) {
  up->pending = 2;
  if (start(up, 0, AB_DOXBEE_PUT, 0) != 0 || start(up, 1, AB_DOXBEE_LOOKUP, 0) != 0) return -1;
  ab_coro_yield();
  return 0;
}

static void seq_body(void *arg) {
  ab_doxbee_up_t *up = arg;
  if (wait_put_and_lookup(up) != 0) return;
  for (int k = 0; k < 2; k++)
    if (ab_doxbee_verify(up, up->ops[k].kind, 0, up->ops[k].result) != 0) return;
  for (int kind = AB_DOXBEE_VERSION; kind < AB_DOXBEE_COMMIT; kind++) {
    long got;
    if (kind == AB_DOXBEE_CREATE) {
      got = ab_doxbee_create_query(up, NULL);
    } else {
      if (wait_ops(up, kind, 1) != 0) return;
      got = up->ops[0].result;
    }
    if (ab_doxbee_verify(up, kind, 0, got) != 0) return;
  }
  if (wait_ops(up, AB_DOXBEE_COMMIT, 1) == 0) ab_doxbee_committed(up, up->ops[0].result);
}

static void par_body(void *arg) {
  ab_doxbee_up_t *up = arg;
  long p = ab_doxbee_state(up)->queries;
  if (wait_ops(up, AB_DOXBEE_FILEVERSION, p) != 0) return;
  for (long j = 0; j < p; j++)
    if (ab_doxbee_verify(up, AB_DOXBEE_FILEVERSION, j, up->ops[j].result) != 0) return;
  if (wait_ops(up, AB_DOXBEE_COMMIT, 1) == 0) ab_doxbee_committed(up, up->ops[0].result);
}

static int run_uploads(ab_run_t *run, int shape_parallel, ab_coro_fn body) {
  ab_run_begin(run);
  ab_ops_t *set = ab_doxbee_begin(run, shape_parallel, 0);
  if (set == NULL) return -1;
  for (long k = 0; k < set->n && !ab_run_failed(run); k++) {
    ab_doxbee_up_t *up = ab_doxbee_up(set, k);
    if ((up->co = ab_coro_create(body, up)) == NULL) {
      ab_run_oom(run, k, "a coroutine stack");
      break;
    }
    ab_coro_resume(up->co); /* runs to its first pending operation */
    if (ab_coro_done(up->co)) {
      ab_coro_destroy(up->co);
      up->co = NULL;
    }
  }
  return ab_ops_finish(set); /* fails the pass if a coroutine is left */
}

int ab_doxbee_fiber_seq(ab_run_t *run) { return run_uploads(run, 0, seq_body); }
int ab_doxbee_fiber_par(ab_run_t *run) { return run_uploads(run, 1, par_body); }
