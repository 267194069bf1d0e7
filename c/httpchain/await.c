/*
 * await.c -- the await style on stackful coroutines (async.h), seed 001's
 * getData: path = await get("/a"); path = await get(path); path = await
 * get(path).  One async function per connection loops over the chains; each
 * await takes a microtask turn, as in JavaScript.
 */
#include "async.h"
#include "httpchain.h"

static int chains(void *arg, void **value) {
  hc_conn_t *c = arg;
  (void)value;
  while (hc_next_chain(c)) {
    const char *path = HC_FIRST_PATH;
    size_t len = sizeof(HC_FIRST_PATH) - 1;
    for (c->step = 0;; c->step++) {
      ab_promise_t *p = hc_get_promise(c, path, len);
      if (p == NULL) return 0;
      void *response = NULL;
      int rc = ab_await(p, &response);
      ab_promise_release(p);
      if (rc != 0) return 0; /* recorded in the run */
      if (c->step == HC_CHAIN_LEN - 1) break;
      path = c->body;
      len = c->body_len;
    }
    if (hc_chain_done(c) != 0) return 0;
  }
  return 0;
}

static void ignore(void *arg, ab_promise_t *settled) {
  (void)arg;
  (void)settled;
}

int hc_await(ab_run_t *run) {
  ab_run_begin(run);
  hc_pass_t *pass = hc_pass_new(run, ab_run_slots(run), 1);
  if (pass == NULL) return -1;
  hc_pass_connect(pass); /* a failure is recorded: no async function starts */
  for (long k = 0; k < pass->n && !ab_run_failed(run); k++) {
    ab_promise_t *p = ab_async(chains, &pass->conns[k]);
    if (p == NULL) {
      ab_run_oom(run, 0, "a promise");
      break;
    }
    if (ab_promise_state(p) == AB_REJECTED) {
      ab_run_oom(run, 0, "a coroutine stack");
      ab_promise_on_settle(p, ignore, NULL);
    }
    ab_promise_release(p);
  }
  ab_microtasks_drain();
  hc_pass_run(pass);
  int rc = hc_pass_close(pass);
  if (rc == 0 && ab_coro_live() != 0) {
    ab_run_fail(run, run->n - 1, "%zu coroutines outlived the pass", ab_coro_live());
    rc = -1;
  }
  return rc;
}
