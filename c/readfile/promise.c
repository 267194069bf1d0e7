/*
 * promise.c -- the promise style (c/lib/promise.h) on any readfile backend.
 *
 * A read is wrapped in a promise: read_promise() starts the backend's read
 * and returns a promise that the completion callback fulfils with the read
 * (a borrowed pr_op_t: bytes at op->req.buf, length op->nread) or rejects
 * with the libuv error.  The completion callback is a libuv callback this
 * style owns, so it drains the microtask queue at its end, as Node does after
 * every macrotask; the loop's safety net (ab_promise_loop_attach) is on too.
 *
 *   promise-sequential        a recursive .then chain: the reaction to each
 *                             read's promise verifies it and starts the next
 *                             (seed 000's "update: sequential promises")
 *   promise-parallel          all N issued, ab_promise_all, every read checked
 *                             in the one final reaction
 *   promise-counter-parallel  all N issued, each .then verifies and counts
 *                             (seed 000's mislabelled "blocking" test)
 *   promise-bounded           K chains like the sequential one: at most K in
 *                             flight, each reaction starts the next unissued read
 *
 * The per-read records are allocated before the clock starts, as in the
 * callback style: per-operation state every style needs is not the style's cost.
 */
#include "styles.h"
#include "promise.h"

#include <stdlib.h>

typedef struct pr_state_s pr_state_t;

typedef struct pr_op_s {
  ab_read_t req;
  ab_promise_t *p;        /* the promise this read settles, while in flight */
  long i;                 /* iteration */
  ssize_t nread;          /* the read's result */
  pr_state_t *st;
} pr_op_t;

struct pr_state_s {
  ab_run_t *run;
  pr_op_t *ops;
  long nops;
  long next;              /* next iteration to issue */
};

static void on_read(ab_read_t *req, ssize_t nread) {
  pr_op_t *op = req->data;
  ab_promise_t *p = op->p;
  op->p = NULL;
  op->nread = nread;
  if (nread < 0)
    ab_promise_reject_reason(p, (ab_reason_t){(int)nread, req->failed_op, op, NULL});
  else
    ab_promise_resolve(p, op, NULL);
  ab_promise_release(p);
  ab_microtasks_drain();
}

/* Starts iteration st->next on op; returns its promise (a new reference),
 * rejected at once when the read cannot start. */
static ab_promise_t *read_promise(pr_state_t *st, pr_op_t *op) {
  ab_run_t *run = st->run;
  ab_promise_t *p = ab_promise_new();
  if (p == NULL) return NULL;
  op->i = st->next++;
  op->p = ab_promise_retain(p);
  int rc = run->backend->start(run->loop, &op->req, run->opts->file, on_read);
  if (rc != 0) {
    op->p = NULL;
    ab_promise_reject_reason(p, (ab_reason_t){rc, "start", op, NULL});
    ab_promise_release(p);
  }
  return p;
}

/* A read's rejection: the reason's message names the operation that failed,
 * its payload is the read. */
static void read_failed(void *arg, ab_promise_t *settled, ab_promise_t *out) {
  (void)out;
  pr_state_t *st = arg;
  ab_reason_t why = ab_promise_reason(settled);
  const pr_op_t *op = why.ptr;
  ab_run_fail(st->run, op->i, "%s failed: %s", why.message, ab_promise_strerror(why.code));
}

/* ---- sequential and bounded: chains of .then ------------------------------ */

static void chain_next(pr_state_t *st, pr_op_t *op);

static void chain_ok(void *arg, ab_promise_t *settled, ab_promise_t *out) {
  (void)out;
  pr_op_t *op = ab_promise_value(settled);
  pr_state_t *st = arg;
  ab_run_check(st->run, op->i, op->req.buf, op->nread);
  if (!ab_run_failed(st->run) && st->next < st->run->n) chain_next(st, op);
}

/* read(i).then(check-and-read(i+1)); the derived promise is not needed. */
static void chain_next(pr_state_t *st, pr_op_t *op) {
  ab_promise_t *p = read_promise(st, op);
  if (p == NULL) {
    ab_run_fail(st->run, st->next, "out of memory for a promise");
    return;
  }
  ab_promise_release(ab_promise_then(p, chain_ok, read_failed, st));
  ab_promise_release(p);
}

/* ---- counter-parallel: N .then reactions, each counts --------------------- */

static void count_ok(void *arg, ab_promise_t *settled, ab_promise_t *out) {
  (void)arg;
  (void)out;
  pr_op_t *op = ab_promise_value(settled);
  ab_run_check(op->st->run, op->i, op->req.buf, op->nread);
}

/* ---- parallel: ab_promise_all and one final reaction ---------------------- */

static void all_ok(void *arg, ab_promise_t *settled, ab_promise_t *out) {
  (void)out;
  pr_state_t *st = arg;
  const ab_list_t *l = ab_promise_value(settled);
  for (size_t k = 0; k < l->n; k++) {
    const pr_op_t *op = l->items[k].ptr;
    ab_run_check(st->run, op->i, op->req.buf, op->nread);
  }
}

/* ---- the variants ---------------------------------------------------------- */

static pr_state_t *state_new(ab_run_t *run, long nops) {
  pr_state_t *st = calloc(1, sizeof(*st));
  if (st == NULL) return NULL;
  st->run = run;
  st->nops = nops;
  st->ops = calloc((size_t)nops, sizeof(*st->ops));
  if (st->ops == NULL) {
    free(st);
    return NULL;
  }
  for (long k = 0; k < nops; k++) {
    st->ops[k].st = st;
    st->ops[k].req.data = &st->ops[k];
  }
  return st;
}

static void state_free(pr_state_t *st) {
  for (long k = 0; k < st->nops; k++) ab_read_cleanup(&st->ops[k].req);
  free(st->ops);
  free(st);
}

/* Runs the loop and the microtask queue to the end, closes the safety net
 * and reports a leaked promise as a failure. */
static int finish(ab_run_t *run, pr_state_t *st) {
  ab_promise_loop_run(run->loop);
  ab_promise_loop_detach();
  ab_promise_loop_run(run->loop);  /* lets the two handles close */
  state_free(st);
  if (ab_promise_live() != 0 && !ab_run_failed(run))
    ab_run_fail(run, run->n - 1, "%zu promises were never freed", ab_promise_live());
  ab_promise_pool_trim();
  return ab_run_failed(run) ? -1 : 0;
}

static pr_state_t *start(ab_run_t *run, long nops) {
  pr_state_t *st = state_new(run, nops);
  if (st == NULL) {
    ab_run_fail(run, 0, "out of memory for %ld read records", nops);
    return NULL;
  }
  int rc = ab_promise_loop_attach(run->loop);
  if (rc != 0) {
    ab_run_fail(run, 0, "could not attach the microtask queue: %s", uv_strerror(rc));
    state_free(st);
    return NULL;
  }
  return st;
}

/* Sequential (1 chain) and bounded (K chains). */
int ab_readfile_promise_chain(ab_run_t *run) {
  pr_state_t *st = start(run, ab_run_slots(run));
  if (st == NULL) return -1;
  ab_run_begin(run);
  for (long k = 0; k < st->nops && !ab_run_failed(run); k++) chain_next(st, &st->ops[k]);
  ab_microtasks_drain();
  return finish(run, st);
}

int ab_readfile_promise_counter(ab_run_t *run) {
  pr_state_t *st = start(run, run->n);
  if (st == NULL) return -1;
  ab_run_begin(run);
  for (long k = 0; k < st->nops && !ab_run_failed(run); k++) {
    ab_promise_t *p = read_promise(st, &st->ops[k]);
    if (p == NULL) {
      ab_run_fail(run, k, "out of memory for a promise");
      break;
    }
    ab_promise_release(ab_promise_then(p, count_ok, read_failed, st));
    ab_promise_release(p);
  }
  ab_microtasks_drain();
  return finish(run, st);
}

int ab_readfile_promise_all(ab_run_t *run) {
  pr_state_t *st = start(run, run->n);
  ab_promise_t **ps;
  if (st == NULL) return -1;
  if ((ps = malloc((size_t)run->n * sizeof(*ps))) == NULL) {
    ab_run_fail(run, 0, "out of memory for %ld promises", run->n);
    ab_promise_loop_detach();
    uv_run(run->loop, UV_RUN_DEFAULT);
    state_free(st);
    return -1;
  }
  ab_run_begin(run);
  long k;
  for (k = 0; k < st->nops; k++)
    if ((ps[k] = read_promise(st, &st->ops[k])) == NULL) break;
  if (k < st->nops) {
    ab_run_fail(run, k, "out of memory for a promise");
  } else {
    ab_promise_t *all = ab_promise_all(ps, (size_t)k);
    ab_promise_release(ab_promise_then(all, all_ok, read_failed, st));
    ab_promise_release(all);
  }
  for (long j = 0; j < k; j++) ab_promise_release(ps[j]);
  free(ps);
  ab_microtasks_drain();
  return finish(run, st);
}
