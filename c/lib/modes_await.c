/*
 * modes_await.c -- the await style's skeletons (modes.h): async functions on
 * stackful coroutines (async.h) awaiting one promise per operation.
 *
 *   loops  K async functions: for (...) { await op(next++); check } over a
 *          shared counter; K = 1 is sequential, at most K in flight, on
 *          min(K, 128) stacks
 *   all    one async function issues all N operations as promises, awaits
 *          Promise.all of them, then verifies each: one stack however large N
 *   tasks  one async function per operation (await op(i); check), all started
 *          by a driver async function awaiting Promise.all of their promises:
 *          N coroutines suspended at once, on at most 128 shared stacks
 *
 * The clock starts first (modes.h): a pass runs K, 1 or N + 1 coroutines,
 * and a coroutine has a stack of its own only while fewer than
 * AB_CORO_SHARED_STACKS (128) are in use, the later ones sharing those
 * (coro.h), so a pass uses min(K, 128), 1 or min(N + 1, 128) stacks (the
 * ucontext fallback never shares: K, 1 or N + 1).  Each is taken from the
 * coroutine pool inside the timed section, mapped there unless a warm-up
 * pass left it in the pool, as the stackless skeletons allocate their
 * frames there.  Nothing is mapped ahead: the harness fails a pass that
 * maps a stack before ab_run_begin.
 *
 * The clock stops at the N-th verification (ab_run_ok): in loops and tasks
 * inside the async function that awaited the operation, before the driver's
 * final Promise.all settles (the same point as modes_stackless.c); in all,
 * after Promise.all, since the verification follows it there.
 */
#include "modes.h"

#include "async.h"

/* `await op(i); check` on op: 0 when verified, -1 otherwise (the failure is
 * recorded in the run).  Always inlined, as an `await` written in the async
 * function's own body is: the coroutine then suspends and is resumed in the
 * frame of the async function itself, and each yield returns where the
 * resume's call predicted (coro.h).  Left a call, every operation paid two
 * mispredicted returns: await_op's return to the loop crossed the
 * resumption, and the next yield returned from a frame made after it. */
static inline __attribute__((always_inline)) int await_op(ab_op_t *op, long i) {
  ab_promise_t *p = ab_op_promise(op, i);
  if (p == NULL)
    return -1;
  void *value = NULL;
  int rc = ab_op_check(op, p, ab_await(p, &value));
  ab_promise_release(p);
  return rc;
}

static void ignore(void *arg, ab_promise_t *settled) {
  (void)arg;
  (void)settled;
}

/* Records that the async function of iteration i could not start (ab_async
 * rejected p: no stack could be mapped) and marks p handled, so the failure
 * is reported once, as the run's one line. */
static void start_failed(ab_run_t *run, ab_promise_t *p, long i) {
  if (ab_promise_code(p) == AB_ENOMEM)
    ab_run_oom(run, i, "a coroutine stack");
  else
    ab_run_fail(run, i, "async function failed: %s", ab_promise_message(p));
  ab_promise_on_settle(p, ignore, NULL);
}

/* Starts fn(arg) as an async function whose promise nobody awaits; records
 * the failure when it could not run (out of memory for a promise or stack). */
static void spawn(ab_run_t *run, ab_async_fn fn, void *arg, long i) {
  ab_promise_t *p = ab_async(fn, arg);
  if (p == NULL)
    ab_run_oom(run, i, "a promise");
  else if (ab_promise_state(p) == AB_REJECTED)
    start_failed(run, p, i);
  ab_promise_release(p);
}

/* ---- sequential and bounded: K async functions over a shared counter ------- */

static int loop_body(void *arg, void **value) {
  (void)value;
  ab_op_t *op = arg;
  ab_ops_t *set = op->set;
  /* A failure is recorded in the run (one line naming the iteration), not
   * thrown: a rejection nobody handles would only add a second report. */
  while (set->next < set->run->n && !ab_run_failed(set->run))
    if (await_op(op, set->next++) != 0)
      break;
  return 0;
}

int ab_mode_await_loops(ab_run_t *run, const ab_op_type_t *type) {
  ab_run_begin(run);
  ab_ops_t *set = ab_ops_start(run, type, ab_run_slots(run), 0, 1);
  if (set == NULL)
    return -1;
  for (long k = 0; k < set->n && !ab_run_failed(run); k++)
    spawn(run, loop_body, ab_ops_at(set, k), set->next);
  ab_microtasks_drain();
  return ab_ops_finish(set);
}

/* ---- parallel: one async function awaits Promise.all of N operations -------- */

static int all_body(void *arg, void **value) {
  (void)value;
  ab_ops_t *set = arg;
  ab_promise_t *all = ab_ops_all(set);
  if (all == NULL)
    return 0; /* recorded */
  void *ops = NULL;
  int rc = ab_await(all, &ops);
  if (rc != 0)
    ab_ops_failed(set, all, rc, set->run->n - 1);
  else
    ab_ops_verify(ops);
  ab_promise_release(all);
  return 0;
}

/* ---- tasks-parallel: one async function per operation, then Promise.all ----- */

static int task_body(void *arg, void **value) {
  ab_op_t *op = arg;
  *value = op;
  await_op(op, op->i); /* a failure is recorded in the run, as above */
  return 0;
}

/* Starts one async function per operation, awaits Promise.all of their promises. */
static int tasks_body(void *arg, void **value) {
  (void)value;
  ab_ops_t *set = arg;
  long k;
  if (ab_ops_slots(set) == NULL)
    return 0; /* recorded */
  for (k = 0; k < set->n; k++) {
    ab_ops_at(set, k)->i = k;
    if ((set->ps[k] = ab_async(task_body, ab_ops_at(set, k))) == NULL) {
      ab_run_oom(set->run, k, "a promise");
      break;
    }
    if (ab_promise_state(set->ps[k]) == AB_REJECTED) {
      /* No stack: stop here rather than fail once per remaining operation. */
      start_failed(set->run, set->ps[k], k);
      k++; /* released below */
      break;
    }
  }
  ab_promise_t *all = k == set->n ? ab_promise_all(set->ps, (size_t)k) : NULL;
  if (all == NULL) {
    if (k == set->n)
      ab_run_oom(set->run, k - 1, "a promise");
  } else {
    void *list = NULL;
    int rc = ab_await(all, &list);
    if (rc != 0)
      ab_ops_failed(set, all, rc, set->run->n - 1);
    ab_promise_release(all);
  }
  for (long j = 0; j < k; j++)
    ab_promise_release(set->ps[j]);
  return 0;
}

/* Runs `driver` as the pass's one top-level async function over N records. */
static int run_driver(ab_run_t *run, const ab_op_type_t *type, ab_async_fn driver) {
  ab_run_begin(run);
  ab_ops_t *set = ab_ops_start(run, type, run->n, 0, 1);
  if (set == NULL)
    return -1;
  spawn(run, driver, set, 0);
  ab_microtasks_drain();
  return ab_ops_finish(set);
}

int ab_mode_await_all(ab_run_t *run, const ab_op_type_t *type) {
  return run_driver(run, type, all_body);
}

int ab_mode_await_tasks(ab_run_t *run, const ab_op_type_t *type) {
  /* the driver and one async function per operation, all suspended at once:
   * N + 1 coroutines on at most 128 stacks (AB_CORO_SHARED_STACKS) */
  return run_driver(run, type, tasks_body);
}
