/*
 * await.c -- the await style: async functions on stackful coroutines
 * (c/lib/async.h) awaiting one promise per read.
 *
 * A read is a promise (ab_readp_start, microtasks.c): the completion callback
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

#include <stdlib.h>

typedef struct aw_state_s aw_state_t;

typedef struct aw_op_s {
  ab_readp_t rd;
  aw_state_t *st;
} aw_op_t;

struct aw_state_s {
  ab_run_t *run;
  aw_op_t *ops;
  long nops;
  long next;              /* next iteration to issue (sequential, bounded) */
};

/* `await read(i); check` on op.  Returns 0 when verified, -1 otherwise (the
 * failure is recorded in the run). */
static int await_read(aw_op_t *op, long i) {
  ab_run_t *run = op->st->run;
  ab_promise_t *p = ab_readp_start(run, &op->rd, i);
  if (p == NULL)
    return -1;
  void *value = NULL;
  int rc = ab_await(p, &value);
  rc = ab_readp_check(run, &op->rd, p, rc);
  ab_promise_release(p);
  return rc;
}

static aw_state_t *state_new(ab_run_t *run, long nops) {
  aw_state_t *st = calloc(1, sizeof(*st));
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

static void state_free(aw_state_t *st) {
  for (long k = 0; k < st->nops; k++)
    ab_read_cleanup(&st->ops[k].rd.req);
  free(st->ops);
  free(st);
}

static aw_state_t *start(ab_run_t *run, long nops) {
  aw_state_t *st = state_new(run, nops);
  if (st == NULL) {
    ab_run_fail(run, 0, "out of memory for %ld read records", nops);
    return NULL;
  }
  if (ab_readfile_queue_attach(run) != 0) {
    state_free(st);
    return NULL;
  }
  return st;
}

static int finish(ab_run_t *run, aw_state_t *st) {
  int rc = ab_readfile_queue_finish(run);
  state_free(st);
  return rc;
}

/* Reports a rejected async function (out of memory for its stack). */
static void async_failed(ab_run_t *run, ab_promise_t *p, long i) {
  if (ab_promise_state(p) == AB_REJECTED)
    ab_run_fail(run, i, "async function failed: %s", ab_promise_message(p));
}

/* ---- sequential and bounded: K async functions over a shared counter ------ */

static int worker(void *arg, void **value) {
  (void)value;
  aw_op_t *op = arg;
  aw_state_t *st = op->st;
  /* A failure is recorded in the run (one line naming the iteration), not
   * thrown: a rejection nobody handles would only add a second report. */
  while (st->next < st->run->n && !ab_run_failed(st->run))
    if (await_read(op, st->next++) != 0)
      break;
  return 0;
}

int ab_readfile_await_loop(ab_run_t *run) {
  aw_state_t *st = start(run, ab_run_slots(run));
  if (st == NULL)
    return -1;
  ab_run_begin(run);
  for (long k = 0; k < st->nops && !ab_run_failed(run); k++) {
    ab_promise_t *p = ab_async(worker, &st->ops[k]);
    if (p == NULL) {
      ab_run_fail(run, st->next, "out of memory for a promise");
      break;
    }
    async_failed(run, p, st->next);
    ab_promise_release(p);
  }
  ab_microtasks_drain();
  return finish(run, st);
}

/* ---- parallel: one async function awaits Promise.all of N reads ---------- */

typedef struct aw_all_s {
  aw_state_t *st;
  ab_promise_t **ps;
} aw_all_t;

/* Issues every read as a promise, awaits Promise.all, verifies every read:
 * one async function, so one coroutine stack however large N is. */
static int all_reads(void *arg, void **value) {
  (void)value;
  aw_all_t *a = arg;
  ab_run_t *run = a->st->run;
  long k;
  for (k = 0; k < a->st->nops; k++)
    if ((a->ps[k] = ab_readp_start(run, &a->st->ops[k].rd, k)) == NULL)
      break; /* recorded */
  ab_promise_t *all = k == a->st->nops ? ab_promise_all(a->ps, (size_t)k) : NULL;
  for (long j = 0; j < k; j++)
    ab_promise_release(a->ps[j]);
  if (all == NULL) {
    ab_run_fail(run, k, "out of memory for a promise");
    return 0;
  }
  void *reads = NULL;
  int rc = ab_await(all, &reads);
  if (rc != 0)
    ab_readp_failed(run, all, rc, run->n - 1);
  else
    ab_readp_verify_all(run, reads);
  ab_promise_release(all);
  return 0;
}

/* ---- tasks-parallel: one async function per read, then Promise.all -------- */

static int read_task(void *arg, void **value) {
  aw_op_t *op = arg;
  *value = op;
  await_read(op, op->rd.i); /* a failure is recorded in the run, as above */
  return 0;
}

/* The driver itself is an async function: start one async function per read,
 * await Promise.all of their promises. */
static int all_tasks(void *arg, void **value) {
  (void)value;
  aw_all_t *a = arg;
  ab_run_t *run = a->st->run;
  long k;
  for (k = 0; k < a->st->nops; k++) {
    a->st->ops[k].rd.i = k;
    if ((a->ps[k] = ab_async(read_task, &a->st->ops[k])) == NULL)
      break;
  }
  ab_promise_t *all = k == a->st->nops ? ab_promise_all(a->ps, (size_t)k) : NULL;
  if (all == NULL) {
    ab_run_fail(run, k, "out of memory for a promise");
  } else {
    void *list = NULL;
    int rc = ab_await(all, &list);
    if (rc != 0)
      ab_readp_failed(run, all, rc, run->n - 1);
    ab_promise_release(all);
  }
  for (long j = 0; j < k; j++)
    ab_promise_release(a->ps[j]);
  return 0;
}

/* Runs `driver` as the pass's one top-level async function. */
static int run_driver(ab_run_t *run, ab_async_fn driver) {
  aw_state_t *st = start(run, run->n);
  if (st == NULL)
    return -1;
  aw_all_t a = {st, malloc((size_t)run->n * sizeof(ab_promise_t *))};
  if (a.ps == NULL) {
    ab_run_fail(run, 0, "out of memory for %ld promises", run->n);
    ab_promise_loop_detach();
    uv_run(run->loop, UV_RUN_DEFAULT);
    state_free(st);
    return -1;
  }
  ab_run_begin(run);
  ab_promise_t *p = ab_async(driver, &a);
  if (p == NULL) {
    ab_run_fail(run, 0, "out of memory for a promise");
  } else {
    async_failed(run, p, 0);
    ab_promise_release(p);
  }
  ab_microtasks_drain();
  int rc = finish(run, st);
  free(a.ps);
  return rc;
}

int ab_readfile_await_all(ab_run_t *run) {
  return run_driver(run, all_reads);
}

int ab_readfile_await_tasks(ab_run_t *run) {
  return run_driver(run, all_tasks);
}
