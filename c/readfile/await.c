/*
 * await.c -- the await style: async functions on stackful coroutines
 * (c/lib/async.h) awaiting one promise per read.
 *
 * A read is a promise (ab_readp_start, promised.c): the completion callback
 * fulfils it with the read's record or rejects it with the libuv error, then
 * drains the microtask queue, as Node does after every macrotask.
 *
 *   await-sequential      one async function: for (i...) { await read(i);
 *                         check } (seed 000's "async blocking")
 *   await-bounded         K async functions running that loop over a shared
 *                         counter: at most K reads in flight, K coroutine stacks
 *   await-parallel        one async function issues all N reads as promises,
 *                         awaits Promise.all of them, then verifies every read
 *                         (seed 000's and Node's "async parallel"): one stack
 *   await-tasks-parallel  one async function per read (await read(i); check),
 *                         all started at once by a driver async function that
 *                         awaits Promise.all of their promises: N coroutines
 *                         suspended together, so N stacks (16 KiB each, lazily
 *                         committed: about one resident page each) -- the
 *                         memory price of stackful await used that way
 *
 * The per-read records are allocated before the clock starts, as in the
 * callback and promise styles; coroutine stacks come from the pool, which the
 * warm-up pass fills.
 */
#include "styles.h"
#include "async.h"

/* `await read(i); check` on r.  Returns 0 when verified, -1 otherwise (the
 * failure is recorded in the run). */
static int await_read(ab_readp_t *r, long i) {
  ab_promise_t *p = ab_readp_start(r, i);
  if (p == NULL)
    return -1;
  void *value = NULL;
  int rc = ab_readp_check(r, p, ab_await(p, &value));
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

/* ---- sequential and bounded: K async functions over a shared counter ------ */

static int worker(void *arg, void **value) {
  (void)value;
  ab_readp_t *r = arg;
  ab_reads_t *set = r->set;
  /* A failure is recorded in the run (one line naming the iteration), not
   * thrown: a rejection nobody handles would only add a second report. */
  while (set->next < set->run->n && !ab_run_failed(set->run))
    if (await_read(r, set->next++) != 0)
      break;
  return 0;
}

int ab_readfile_await_loop(ab_run_t *run) {
  ab_reads_t *set = ab_reads_start(run, ab_run_slots(run), sizeof(ab_readp_t));
  if (set == NULL)
    return -1;
  ab_run_begin(run);
  for (long k = 0; k < set->n && !ab_run_failed(run); k++)
    spawn(run, worker, ab_reads_at(set, k), set->next);
  ab_microtasks_drain();
  return ab_reads_finish(set);
}

/* ---- parallel: one async function awaits Promise.all of N reads ---------- */

/* Issues every read as a promise, awaits Promise.all, verifies every read:
 * one async function, so one coroutine stack however large N is. */
static int all_reads(void *arg, void **value) {
  (void)value;
  ab_reads_t *set = arg;
  ab_promise_t *all = ab_reads_all(set);
  if (all == NULL)
    return 0; /* recorded */
  void *reads = NULL;
  int rc = ab_await(all, &reads);
  if (rc != 0)
    ab_reads_failed(set, all, rc, set->run->n - 1);
  else
    ab_reads_verify(reads);
  ab_promise_release(all);
  return 0;
}

/* ---- tasks-parallel: one async function per read, then Promise.all -------- */

static int read_task(void *arg, void **value) {
  ab_readp_t *r = arg;
  *value = r;
  await_read(r, r->i); /* a failure is recorded in the run, as above */
  return 0;
}

/* Starts one async function per read, awaits Promise.all of their promises. */
static int all_tasks(void *arg, void **value) {
  (void)value;
  ab_reads_t *set = arg;
  long k;
  for (k = 0; k < set->n; k++) {
    ab_reads_at(set, k)->i = k;
    if ((set->ps[k] = ab_async(read_task, ab_reads_at(set, k))) == NULL) {
      ab_run_oom(set->run, k, "a promise");
      break;
    }
    if (ab_promise_state(set->ps[k]) == AB_REJECTED) {
      /* No stack: stop here rather than fail once per remaining read. */
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
      ab_reads_failed(set, all, rc, set->run->n - 1);
    ab_promise_release(all);
  }
  for (long j = 0; j < k; j++)
    ab_promise_release(set->ps[j]);
  return 0;
}

/* Runs `driver` as the pass's one top-level async function over N records. */
static int run_driver(ab_run_t *run, ab_async_fn driver) {
  ab_reads_t *set = ab_reads_start(run, run->n, sizeof(ab_readp_t));
  if (set == NULL)
    return -1;
  ab_run_begin(run);
  spawn(run, driver, set, 0);
  ab_microtasks_drain();
  return ab_reads_finish(set);
}

int ab_readfile_await_all(ab_run_t *run) {
  return run_driver(run, all_reads);
}

int ab_readfile_await_tasks(ab_run_t *run) {
  return run_driver(run, all_tasks);
}
