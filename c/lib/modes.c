/*
 * modes.c -- what every skeleton shares (modes.h): a pass's records, starting
 * an operation, and its completion in promise form.  Each style's skeletons
 * are the style's own file: modes_callback.c, modes_promise.c, modes_await.c,
 * modes_stackless.c.
 */
#include "modes.h"

#include <stdlib.h>

#include "coro.h"

/* ---- records --------------------------------------------------------------- */

/* Frees the set after type->cleanup of every record.  A cleanup may close a
 * handle embedded in its record (uv_close): unless this runs inside a loop
 * callback (`in_callback`, where uv_run must not be re-entered), the loop runs
 * once more so that those close callbacks are done before the records go. */
void ab__ops_free(ab_ops_t *set, int in_callback) {
  if (set->recs != NULL && set->type->cleanup != NULL) {
    for (long k = 0; k < set->n; k++)
      set->type->cleanup(ab_ops_at(set, k));
    if (!in_callback)
      uv_run(set->run->loop, UV_RUN_DEFAULT);
  }
  free(set->recs);
  free(set->ps);
  free(set);
}

ab_ops_t *ab_ops_start(ab_run_t *run, const ab_op_type_t *type, long n, size_t head,
                       int promised) {
  ab_ops_t *set = calloc(1, sizeof(*set));
  if (set != NULL) {
    set->type = type;
    set->n = n;
    set->head = AB_OPS_ALIGNED(head);
    /* type->size is a multiple of the record's alignment (sizeof says so),
     * the head one of any: every record and head stays aligned. */
    set->stride = set->head + type->size;
    set->recs = calloc((size_t)n, set->stride);
  }
  if (set == NULL || set->recs == NULL) {
    free(set);
    ab_run_oom(run, 0, "the operation records");
    return NULL;
  }
  set->run = run;
  set->promised = promised != 0;
  for (long k = 0; k < n; k++)
    ab_ops_at(set, k)->set = set;
  return set;
}

ab_promise_t **ab_ops_slots(ab_ops_t *set) {
  if (set->ps == NULL && (set->ps = calloc((size_t)set->n, sizeof(*set->ps))) == NULL)
    ab_run_oom(set->run, 0, "the promise slots");
  return set->ps;
}

int ab_ops_finish(ab_ops_t *set) {
  ab_run_t *run = set->run;
  int promised = set->promised;
  if (!promised) {
    uv_run(run->loop, UV_RUN_DEFAULT);
    ab__ops_free(set, 0);
  } else {
    /* Every callback the skeletons own drains the queue (ab_op_done), and so
     * has the skeleton once it issued: nothing may be queued when the loop
     * has run dry, or a callback would have left its promise jobs for later. */
    uv_run(run->loop, UV_RUN_DEFAULT);
    if (!ab_run_failed(run) && ab_microtasks_pending() != 0)
      ab_run_fail(run, run->n - 1, "%zu microtasks were left queued by a callback that did not drain",
                  ab_microtasks_pending());
    ab_promise_loop_run(run->loop);
    ab__ops_free(set, 0);
    if (!ab_run_failed(run) && ab_promise_live() != 0)
      ab_run_fail(run, run->n - 1, "%zu promises were never freed", ab_promise_live());
  }
  if (!ab_run_failed(run) && ab_coro_live() != 0)
    ab_run_fail(run, run->n - 1, "%zu coroutines never finished", ab_coro_live());
  /* The promise and stack pools stay filled for the next pass (modes.h). */
  return ab_run_failed(run) ? -1 : 0;
}

void ab_op_fail(ab_run_t *run, long i, int code, const char *what) {
  if (code == UV_ENOMEM || code == AB_ENOMEM)
    ab_run_oom(run, i, what != NULL ? what : "an operation");
  else
    ab_run_fail(run, i, "%s failed: %s", what != NULL ? what : "the operation",
                ab_promise_strerror(code));
}

/* ---- starting an operation ------------------------------------------------- */

/* Records that the operation of iteration i could not start (libuv code rc):
 * out of memory (uv_fs_open copies the path) is the environment's, exit 3. */
void ab__op_start_failed(ab_run_t *run, long i, int rc) {
  if (rc == UV_ENOMEM)
    ab_run_oom(run, i, "starting the operation");
  else
    ab_run_fail(run, i, "could not start the operation: %s", uv_strerror(rc));
}

/* ---- promise form ------------------------------------------------------------ */

/* The completion in promise form when it failed: reject the operation's
 * promise, then drain (a fulfilled one is ab_op_done's, modes.h). */
void ab__op_rejected(ab_op_t *op, int code, const char *what) {
  ab_promise_t *p = op->pending;
  op->pending = NULL;
  ab_promise_reject_reason(p, (ab_reason_t){code, what, op, NULL});
  ab_promise_release(p);
  ab_microtasks_drain();
}

ab_promise_t *ab__op_promise_failed(ab_op_t *op, long i, ab_promise_t *p, int rc) {
  ab_run_t *run = op->set->run;
  if (p == NULL) {
    ab_run_oom(run, i, "a promise");
    return NULL;
  }
  op->pending = NULL;
  ab_promise_release(p);
  ab_promise_release(p);
  ab__op_start_failed(run, i, rc);
  return NULL;
}

int ab__op_check_failed(ab_op_t *op, const ab_promise_t *p, int code) {
  ab_ops_failed(op->set, p, code, op->i);
  return -1;
}

void ab_ops_failed(ab_ops_t *set, const ab_promise_t *p, int code, long i) {
  ab_reason_t why = ab_promise_reason(p);
  /* An operation's rejection carries its record as an untyped payload. */
  const ab_op_t *op = why.code != 0 && why.ptr != NULL && why.type == NULL ? why.ptr : NULL;
  if (op != NULL)
    ab_op_fail(set->run, op->i, why.code, why.message);
  else if (code == AB_ENOMEM)
    ab_run_oom(set->run, i, "an await");
  else
    ab_run_fail(set->run, i, "await failed: %s", ab_promise_strerror(code));
}

ab_promise_t *ab_ops_all(ab_ops_t *set) {
  long k;
  if (ab_ops_slots(set) == NULL)
    return NULL; /* recorded */
  for (k = 0; k < set->n; k++)
    if ((set->ps[k] = ab_op_promise(ab_ops_at(set, k), k)) == NULL)
      break; /* recorded */
  ab_promise_t *all = k == set->n ? ab_promise_all(set->ps, (size_t)k) : NULL;
  if (all == NULL && k == set->n)
    ab_run_oom(set->run, k - 1, "a promise");
  for (long j = 0; j < k; j++)
    ab_promise_release(set->ps[j]);
  return all;
}

int ab_ops_verify(const ab_list_t *ops) {
  for (size_t k = 0; k < ops->n; k++) {
    ab_op_t *op = ops->items[k].ptr;
    if (ab_run_check(op->set->run, op->i, op) != 0)
      return -1;
  }
  return 0;
}
