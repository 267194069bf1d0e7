/*
 * promise.c -- load() returns a promise (c/lib/promise.h): on a hit one
 * already fulfilled with the cached entry (Promise.resolve), on the miss one
 * the read's callback settles.  The promise styles share this load:
 *
 *   promise-sequential  the loop is a .then chain: the reaction to load i
 *                       verifies it and calls load(i + 1).then(...) itself,
 *                       so every load takes a microtask turn and allocates a
 *                       promise and its derived promise (from the pool)
 *
 * await.c and stackless.c await the same promises.
 */
#include "workload.h"

#include "modes.h"

static void read_done(ab_read_t *req, ssize_t nread) {
  cl_state_t *st = req->data;
  ab_promise_t *p = st->miss;
  st->miss = NULL;
  const cl_entry_t *e;
  if (nread < 0)
    ab_promise_reject(p, (int)nread, req->failed_op);
  else if ((e = cl_cache_put(st, st->path, req->buf, (size_t)nread)) == NULL)
    ab_promise_reject(p, AB_ENOMEM, "the cached file"); /* recorded */
  else
    ab_promise_resolve(p, (void *)e, NULL);
  ab_promise_release(p);
  ab_microtasks_drain();
}

ab_promise_t *cl_load_promise(cl_state_t *st) {
  const cl_entry_t *e = cl_cache_get(st, st->path);
  ab_promise_t *p = e != NULL ? ab_promise_resolved((void *)e, NULL) : ab_promise_new();
  if (p == NULL) {
    ab_run_oom(st->run, st->i, "a promise");
    return NULL;
  }
  if (e != NULL)
    return p;
  st->miss = ab_promise_retain(p);
  st->req.data = st;
  int rc = st->backend->start(st->loop, &st->req, st->path, read_done);
  if (rc != 0) {
    st->miss = NULL;
    ab_promise_release(p);
    ab_promise_release(p);
    cl_read_failed(st, rc);
    return NULL;
  }
  return p;
}

int cl_promise_finish(ab_run_t *run) {
  cl_state_t *st = run->state;
  ab_microtasks_drain();
  uv_run(st->loop, UV_RUN_DEFAULT);
  ab_microtasks_drain();
  if (!ab_run_failed(run) && ab_promise_live() != 0)
    ab_run_fail(run, run->n - 1, "%zu promises were never freed", ab_promise_live());
  return cl_pass_end(run);
}

/* Records why load st->i's promise rejected (the read's code and step). */
static void load_failed(cl_state_t *st, const ab_promise_t *p) {
  if (ab_promise_code(p) != AB_ENOMEM) /* out of memory is recorded already */
    ab_op_fail(st->run, st->i, ab_promise_code(p), ab_promise_message(p));
}

/* ---- promise-sequential: a .then chain ---------------------------------------- */

static void chain_next(cl_state_t *st);

static void loaded(void *arg, ab_promise_t *settled, ab_promise_t *out) {
  (void)out;
  cl_state_t *st = arg;
  if (ab_promise_state(settled) == AB_REJECTED) {
    load_failed(st, settled);
    return;
  }
  if (cl_loaded(st, ab_promise_value(settled)) == 0)
    chain_next(st);
}

static void chain_next(cl_state_t *st) {
  if (st->i >= st->run->n || ab_run_failed(st->run))
    return;
  ab_promise_t *p = cl_load_promise(st);
  if (p == NULL)
    return;
  ab_promise_t *d = ab_promise_then(p, loaded, loaded, st);
  if (d == NULL)
    ab_run_oom(st->run, st->i, "a promise");
  ab_promise_release(d);
  ab_promise_release(p);
}

int cl_promise(ab_run_t *run) {
  cl_pass_begin(run);
  ab_run_begin(run);
  chain_next(run->state);
  return cl_promise_finish(run);
}
