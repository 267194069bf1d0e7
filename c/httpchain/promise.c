/*
 * promise.c -- the promise style, seed 001's makeRequest as a promise with a
 * .then chain: get("/a").then(r => get(r.body)).then(r => get(r.body))
 * .then(verify and start the next chain).  A handler returns the next GET's
 * promise, which the derived promise adopts (the extra microtask turns
 * JavaScript takes for that are taken here too).
 */
#include "httpchain.h"

static void start_chain(hc_conn_t *c);

/* r => get(r.body): the previous response was verified (its promise fulfilled). */
static void next_get(void *arg, ab_promise_t *settled, ab_promise_t *out) {
  hc_conn_t *c = arg;
  (void)settled;
  c->step++;
  ab_promise_t *p = hc_get_promise(c, c->body, c->body_len);
  if (p == NULL) {
    ab_promise_reject(out, AB_ENOMEM, "out of memory (recorded in the run)");
    return;
  }
  ab_promise_resolve_promise(out, p);
  ab_promise_release(p);
}

static void last(void *arg, ab_promise_t *settled, ab_promise_t *out) {
  hc_conn_t *c = arg;
  (void)settled;
  (void)out;
  if (hc_chain_done(c) == 0) start_chain(c);
}

/* The failure is recorded in the run where it happened; this only ends the
 * chain quietly (an unhandled rejection would report it a second time). */
static void failed(void *arg, ab_promise_t *settled, ab_promise_t *out) {
  (void)arg;
  (void)settled;
  (void)out;
}

static void start_chain(hc_conn_t *c) {
  if (!hc_next_chain(c)) return;
  ab_promise_t *p0 = hc_get_promise(c, HC_FIRST_PATH, sizeof(HC_FIRST_PATH) - 1);
  if (p0 == NULL) return;
  ab_promise_t *p1 = ab_promise_then(p0, next_get, NULL, c);
  ab_promise_t *p2 = p1 ? ab_promise_then(p1, next_get, NULL, c) : NULL;
  ab_promise_t *p3 = p2 ? ab_promise_then(p2, last, failed, c) : NULL;
  if (p3 == NULL) ab_run_oom(c->pass->run, c->chain, "a promise");
  ab_promise_release(p0);
  if (p1) ab_promise_release(p1);
  if (p2) ab_promise_release(p2);
  if (p3) ab_promise_release(p3);
}

int hc_promise(ab_run_t *run) {
  ab_run_begin(run);
  hc_pass_t *pass = hc_pass_new(run, ab_run_slots(run), 1);
  if (pass == NULL) return -1;
  if (hc_pass_connect(pass) != 0) return hc_pass_close(pass);
  for (long k = 0; k < pass->n; k++) start_chain(&pass->conns[k]);
  ab_microtasks_drain();
  hc_pass_run(pass);
  int rc = hc_pass_close(pass);
  if (ab_promise_live() != 0 && rc == 0) {
    ab_run_fail(run, run->n - 1, "%zu promises outlived the pass", ab_promise_live());
    rc = -1;
  }
  return rc;
}
