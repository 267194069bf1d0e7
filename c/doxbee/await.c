/*
 * await.c -- the await style: an async function per upload on a stackful
 * coroutine (async.h), awaiting Promise.all of the put and the lookup and
 * then each operation's promise in turn (sequential shape), or Promise.all
 * of its queries and then the commit (parallel shape), as
 * promises-native-async-await.js does (but joining the put and the lookup
 * and awaiting the commit too: every variant does the same work).  Every
 * await takes a microtask turn, as in JavaScript.  The N stacks come from
 * the coroutine pool once the clock has started (c/lib/modes.h).
 */
#include "workload.h"

#include <stdlib.h>

/* `await op(kind, j)`: the operation's result, or -1 with the failure
 * recorded (results are never negative).  Inline, as an `await` written in
 * the async function's body is: a resumed upload continues in its own
 * frame, where a call would return across the switch, mispredicted
 * (c/lib/coro.h). */
static inline __attribute__((always_inline)) long await_op(ab_doxbee_up_t *up, ab_doxbee_op_t *op, int kind, long j) {
  ab_promise_t *p = ab_doxbee_promise(op, up, kind, j);
  if (p == NULL) return -1;
  void *value = NULL;
  int rc = ab_await(p, &value);
  long got = rc == 0 ? ((ab_doxbee_op_t *)value)->result : -1;
  if (rc != 0) ab_op_fail(up->head.set->run, up->head.i, rc, "an operation");
  ab_promise_release(p);
  return got;
}

static int seq_body(void *arg, void **value) {
  (void)value;
  ab_doxbee_up_t *up = arg;
  ab_promise_t *all = ab_doxbee_join(up);
  if (all == NULL) return 0;
  void *list = NULL;
  int rc = ab_await(all, &list);
  if (rc != 0) ab_op_fail(up->head.set->run, up->head.i, rc, "the put or the lookup");
  int bad = rc != 0 || ab_doxbee_joined(up, list) != 0;
  ab_promise_release(all);
  if (bad) return 0;
  for (int kind = AB_DOXBEE_VERSION; kind < AB_DOXBEE_COMMIT; kind++) {
    long got = kind == AB_DOXBEE_CREATE ? ab_doxbee_create_query(up, NULL)
                                        : await_op(up, &up->ops[0], kind, 0);
    if (got < 0 || ab_doxbee_verify(up, kind, 0, got) != 0) return 0;
  }
  long got = await_op(up, &up->ops[0], AB_DOXBEE_COMMIT, 0);
  if (got >= 0) ab_doxbee_committed(up, got);
  return 0;
}

static int par_body(void *arg, void **value) {
  (void)value;
  ab_doxbee_up_t *up = arg;
  ab_run_t *run = up->head.set->run;
  long p = ab_doxbee_state(up)->queries, j;
  ab_promise_t **ps = calloc((size_t)p, sizeof(*ps));
  if (ps == NULL) {
    ab_run_oom(run, up->head.i, "the query list");
    return 0;
  }
  for (j = 0; j < p; j++)
    if ((ps[j] = ab_doxbee_promise(&up->ops[j], up, AB_DOXBEE_FILEVERSION, j)) == NULL) break;
  ab_promise_t *all = j == p ? ab_promise_all(ps, (size_t)p) : NULL;
  while (j-- > 0) ab_promise_release(ps[j]);
  free(ps);
  if (all == NULL) {
    ab_run_oom(run, up->head.i, "a promise");
    return 0;
  }
  void *list = NULL;
  int rc = ab_await(all, &list);
  int ok = rc == 0;
  if (rc != 0) ab_op_fail(run, up->head.i, rc, "a query");
  for (size_t k = 0; ok && k < ((ab_list_t *)list)->n; k++) {
    const ab_doxbee_op_t *op = ((ab_list_t *)list)->items[k].ptr;
    ok = ab_doxbee_verify(up, AB_DOXBEE_FILEVERSION, (long)k, op->result) == 0;
  }
  ab_promise_release(all);
  if (!ok) return 0;
  long got = await_op(up, &up->ops[0], AB_DOXBEE_COMMIT, 0);
  if (got >= 0) ab_doxbee_committed(up, got);
  return 0;
}

static void ignore(void *arg, ab_promise_t *settled) {
  (void)arg;
  (void)settled;
}

/* Starts one async function per upload and runs the pass. */
static int run_uploads(ab_run_t *run, int shape_parallel, ab_async_fn body) {
  ab_run_begin(run);
  ab_ops_t *set = ab_doxbee_begin(run, shape_parallel, 1);
  if (set == NULL) return -1;
  for (long k = 0; k < set->n && !ab_run_failed(run); k++) {
    ab_promise_t *p = ab_async(body, ab_doxbee_up(set, k));
    if (p == NULL) {
      ab_run_oom(run, k, "a promise");
      break;
    }
    if (ab_promise_state(p) == AB_REJECTED) {
      if (ab_promise_code(p) == AB_ENOMEM) ab_run_oom(run, k, "a coroutine stack");
      else ab_run_fail(run, k, "async function failed: %s", ab_promise_message(p));
      ab_promise_on_settle(p, ignore, NULL);
    }
    ab_promise_release(p);
  }
  ab_microtasks_drain();
  return ab_ops_finish(set);
}

int ab_doxbee_await_seq(ab_run_t *run) { return run_uploads(run, 0, seq_body); }
int ab_doxbee_await_par(ab_run_t *run) { return run_uploads(run, 1, par_body); }
