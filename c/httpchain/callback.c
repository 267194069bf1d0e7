/*
 * callback.c -- the callback style, as seed 001 nests it: the response to
 * GET /a starts GET <its body> from its callback, whose callback starts the
 * third, whose callback verifies the chain and starts the next chain on the
 * same connection.  One connection per chain in flight (1 or K).
 */
#include "httpchain.h"

static void on_first(hc_conn_t *c, int err);
static void on_second(hc_conn_t *c, int err);
static void on_third(hc_conn_t *c, int err);

/* Sends GET path; a request that cannot even be sent fails the chain now. */
static void get(hc_conn_t *c, int step, const char *path, size_t len, hc_get_cb cb) {
  c->step = step;
  int rc = hc_get(c, path, len, cb);
  if (rc != 0) hc_verify(c, rc);
}

static void start_chain(hc_conn_t *c) {
  if (hc_next_chain(c)) get(c, 0, HC_FIRST_PATH, sizeof(HC_FIRST_PATH) - 1, on_first);
}

static void on_first(hc_conn_t *c, int err) {
  if (hc_verify(c, err) == 0) get(c, 1, c->body, c->body_len, on_second);
}

static void on_second(hc_conn_t *c, int err) {
  if (hc_verify(c, err) == 0) get(c, 2, c->body, c->body_len, on_third);
}

static void on_third(hc_conn_t *c, int err) {
  if (hc_verify(c, err) == 0 && hc_chain_done(c) == 0) start_chain(c);
}

int hc_callback(ab_run_t *run) {
  ab_run_begin(run);
  hc_pass_t *pass = hc_pass_new(run, ab_run_slots(run), 0);
  if (pass == NULL) return -1;
  if (hc_pass_connect(pass) != 0) return hc_pass_close(pass);
  for (long k = 0; k < pass->n; k++) start_chain(&pass->conns[k]);
  hc_pass_run(pass);
  return hc_pass_close(pass);
}
