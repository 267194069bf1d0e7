/*
 * client.c -- the clients' connections (httpchain.h): libuv TCP, llhttp in
 * response mode, one GET in flight per connection, keep-alive.
 *
 * A connection reads all the time; llhttp pauses at the end of each response
 * (on_message_complete returns HPE_PAUSED), so bytes after it (which a server
 * must not send unasked) are a protocol error, not the next answer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "httpchain.h"

/* ---- one response ----------------------------------------------------------- */

static int on_message_begin(llhttp_t *p) {
  hc_conn_t *c = p->data;
  c->body_len = 0;
  c->complete = 0;
  return HPE_OK;
}

static int on_body(llhttp_t *p, const char *at, size_t len) {
  hc_conn_t *c = p->data;
  if (c->body_len + len > sizeof(c->body)) {
    c->err = UV_E2BIG;
    return HPE_USER;
  }
  memcpy(c->body + c->body_len, at, len);
  c->body_len += len;
  return HPE_OK;
}

static int on_message_complete(llhttp_t *p) {
  hc_conn_t *c = p->data;
  c->status = llhttp_get_status_code(p);
  c->complete = 1;
  return HPE_PAUSED;
}

static llhttp_settings_t settings;

/* The GET in flight ends with err (0: the response is in c). */
static void finish(hc_conn_t *c, int err) {
  hc_get_cb cb = c->cb;
  c->cb = NULL;
  uv_timer_stop(&c->deadline);
  if (cb != NULL) cb(c, err);
  ab_microtasks_drain(); /* as Node does after every callback */
}

/* The connection is unusable from now on: fail what is in flight. */
static void broken(hc_conn_t *c, int err) {
  if (c->err == 0) c->err = err;
  if (c->open) {
    c->open = 0;
    uv_read_stop((uv_stream_t *)&c->tcp);
  }
  if (c->cb != NULL) finish(c, c->err);
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf) {
  (void)h;
  (void)suggested;
  static char scratch[65536]; /* one loop thread; consumed before the next read */
  buf->base = scratch;
  buf->len = sizeof(scratch);
}

static void on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf) {
  hc_conn_t *c = (hc_conn_t *)s;
  if (nread == 0) return;
  if (nread < 0) {
    /* The server closed the connection: mid-response, or between requests
     * (then the next GET fails with it). */
    broken(c, nread == UV_EOF ? UV_EOF : (int)nread);
    return;
  }
  if (c->cb == NULL || c->complete) {
    c->stray = 1; /* bytes nobody asked for */
    broken(c, UV_EPROTO);
    return;
  }
  llhttp_errno_t e = llhttp_execute(&c->parser, buf->base, (size_t)nread);
  if (e == HPE_PAUSED) {
    const char *end = llhttp_get_error_pos(&c->parser);
    if (end != buf->base + nread) {
      c->stray = 1; /* bytes after the response's end */
      broken(c, UV_EPROTO);
      return;
    }
    llhttp_resume(&c->parser);
    finish(c, 0);
  } else if (e != HPE_OK) {
    broken(c, c->err ? c->err : UV_EPROTO);
  }
}

/* --stall-ms after the request (or the connect, for a connection's first):
 * the response has not ended, whether nothing came, bytes keep dripping in,
 * or the body is shorter than announced; or the connect has not been
 * answered.  Connected with its first GET not sent yet, the connection keeps
 * the deadline's passing for it (hc_get). */
static void on_deadline(uv_timer_t *t) {
  hc_conn_t *c = t->data;
  if (c->connecting) {
    if (c->err == 0) c->err = UV_ETIMEDOUT;
    c->pass->late = 1;
  } else if (c->cb != NULL) {
    broken(c, UV_ETIMEDOUT);
  }
}

static void on_written(uv_write_t *req, int status) {
  hc_conn_t *c = req->data;
  c->writing = 0;
  if (status < 0) broken(c, status);
}

int hc_get(hc_conn_t *c, const char *path, size_t len, hc_get_cb cb) {
  if (len >= sizeof(c->path)) return UV_E2BIG;
  memcpy(c->path, path, len);
  c->path[len] = '\0';
  c->path_len = len;
  if (!c->open) return c->err ? c->err : UV_ENOTCONN;
  /* libuv calls a write's callback before the reads of a later loop turn, so
   * the last request's is always done by now; if not, its uv_write_t is still
   * libuv's and must not be reused: fail rather than corrupt it. */
  if (c->writing) return UV_EBUSY;
  int n = snprintf(c->req, sizeof(c->req), "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n",
                   c->path, c->pass->port);
  uv_buf_t b = uv_buf_init(c->req, (unsigned)n);
  c->complete = 0;
  c->status = 0;
  c->body_len = 0;
  c->write.data = c;
  int rc = uv_write(&c->write, (uv_stream_t *)&c->tcp, &b, 1, on_written);
  if (rc == 0) {
    c->cb = cb;
    c->writing = 1;
    hc_state_t *st = c->pass->run->state;
    /* A connection's first GET keeps the deadline its connect started (as
     * Go's and Node's first GET on a new connection dials inside its
     * timeout); if that passed before it was sent, it fails at once. */
    if (!c->fresh)
      uv_timer_start(&c->deadline, on_deadline, (uint64_t)st->stall_ms, 0);
    else if (!uv_is_active((uv_handle_t *)&c->deadline))
      uv_timer_start(&c->deadline, on_deadline, 0, 0);
    c->fresh = 0;
  }
  return rc;
}

/* ---- verification ----------------------------------------------------------- */

int hc_verify(hc_conn_t *c, int err) {
  ab_run_t *run = c->pass->run;
  if (err != 0) {
    const char *why = err == UV_EOF ? "the server closed the connection before the response ended"
                      : err == UV_EPROTO && c->stray ? "the server broke the protocol: bytes after the response's end"
                      : err == UV_EPROTO ? "the response is not HTTP/1.1 the client can parse"
                      : err == UV_E2BIG ? "the response body is too long"
                      : err == UV_ETIMEDOUT ? "no complete response within --stall-ms (the server does not answer, or not in full)"
                      : uv_strerror(err);
    ab_run_fail(run, c->chain, "request %d (GET %s): %s", c->step + 1, c->path, why);
    if (err == UV_ETIMEDOUT) run->env_error = 1;
    return -1;
  }
  const char *want = hc_next_path(c->path, c->path_len);
  if (c->status != 200) {
    ab_run_fail(run, c->chain, "request %d (GET %s): status %d, expected 200", c->step + 1,
                c->path, c->status);
    return -1;
  }
  if (want == NULL || c->body_len != strlen(want) || memcmp(c->body, want, c->body_len) != 0) {
    ab_run_fail(run, c->chain, "request %d (GET %s): body \"%.*s\", expected \"%s\"",
                c->step + 1, c->path, (int)c->body_len, c->body, want ? want : "(none)");
    return -1;
  }
  return 0;
}

int hc_chain_done(hc_conn_t *c) {
  hc_chain_t result = {c->step + 1, c->body, c->body_len};
  return ab_run_check(c->pass->run, c->chain, &result);
}

int hc_next_chain(hc_conn_t *c) {
  hc_pass_t *pass = c->pass;
  if (pass->next >= pass->run->n || ab_run_failed(pass->run)) return 0;
  c->chain = pass->next++;
  c->step = 0;
  return 1;
}

/* ---- the pass: K connections, each with its deadline timer ------------------ */

static void on_connect(uv_connect_t *req, int status) {
  hc_conn_t *c = req->data;
  c->connecting = 0;
  c->pass->connecting--;
  if (status < 0) {
    if (c->err == 0) c->err = status; /* UV_ETIMEDOUT stays: a connect closed late */
    uv_timer_stop(&c->deadline);
    return;
  }
  c->open = 1;
  uv_tcp_nodelay(&c->tcp, 1);
  if (uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read) != 0) broken(c, UV_EIO);
}

hc_pass_t *hc_pass_new(ab_run_t *run, long slots, int promised) {
  hc_state_t *st = run->state;
  hc_pass_t *pass = calloc(1, sizeof(*pass));
  hc_conn_t *conns = calloc((size_t)slots, sizeof(*conns));
  if (pass == NULL || conns == NULL) {
    free(pass);
    free(conns);
    ab_run_oom(run, 0, "the connections");
    return NULL;
  }
  if (settings.on_message_complete == NULL) {
    llhttp_settings_init(&settings);
    settings.on_message_begin = on_message_begin;
    settings.on_body = on_body;
    settings.on_message_complete = on_message_complete;
  }
  pass->run = run;
  pass->loop = run->loop;
  pass->port = st->port;
  pass->slots = slots;
  pass->conns = conns;
  for (long k = 0; k < slots; k++) {
    uv_timer_init(run->loop, &conns[k].deadline);
    conns[k].deadline.data = &conns[k];
  }
  int rc;
  if (promised && (rc = ab_promise_loop_attach(run->loop)) != 0) {
    ab_run_fail(run, 0, "ab_promise_loop_attach: %s", uv_strerror(rc));
    hc_pass_close(pass);
    return NULL;
  }
  pass->promised = promised;
  return pass;
}

int hc_pass_connect(hc_pass_t *pass) {
  ab_run_t *run = pass->run;
  hc_state_t *st = run->state;
  /* Go's transport and Node's agent connect inside their timed section: so
   * must this (the styles call ab_run_begin before it). */
  if (run->t_start_ns == 0) {
    ab_run_fail(run, 0, "the connections were opened before the clock started");
    return -1;
  }
  struct sockaddr_in addr;
  uv_ip4_addr("127.0.0.1", st->port, &addr);
  int rc = 0;
  uv_update_time(run->loop); /* the deadlines start now, not at the loop's last turn */
  for (long k = 0; k < pass->slots; k++) {
    hc_conn_t *c = &pass->conns[k];
    c->pass = pass;
    c->slot = k;
    llhttp_init(&c->parser, HTTP_RESPONSE, &settings);
    c->parser.data = c;
    if ((rc = uv_tcp_init(run->loop, &c->tcp)) != 0) break;
    pass->n++;
    c->connect.data = c;
    if ((rc = uv_tcp_connect(&c->connect, &c->tcp, (const struct sockaddr *)&addr, on_connect)) != 0) {
      c->err = rc;
      break;
    }
    c->connecting = 1;
    c->fresh = 1;
    uv_timer_start(&c->deadline, on_deadline, (uint64_t)st->stall_ms, 0);
    pass->connecting++;
  }
  /* A connect on loopback is answered at once, accepted or refused, unless
   * the server's backlog is full: the kernel then drops the SYN and retries
   * for about two minutes, so each connect has the deadline too.  The
   * reads started on connected ones keep the loop alive, so it turns until
   * the last connect has answered (or one is late) rather than until it is
   * idle; a connect still pending is cancelled when the pass closes. */
  while (pass->connecting > 0 && !pass->late)
    uv_run(run->loop, UV_RUN_ONCE);
  for (long k = 0; k < pass->n && rc == 0; k++)
    if (pass->conns[k].err != 0) rc = pass->conns[k].err;
  if (rc == UV_ETIMEDOUT) {
    ab_run_fail(run, 0, "cannot connect to 127.0.0.1:%d within --stall-ms (%ld ms): the "
                "server does not accept connections (its backlog is full)", st->port, st->stall_ms);
    run->env_error = 1;
    return -1;
  }
  if (rc != 0 || pass->n < pass->slots) {
    ab_run_fail(run, 0, "cannot connect to 127.0.0.1:%d: %s (is the server running? "
                "start build/bin/c-httpchain-server and pass its port)",
                st->port, uv_strerror(rc ? rc : UV_ENOMEM));
    run->env_error = 1;
    return -1;
  }
  return 0;
}

void hc_pass_run(hc_pass_t *pass) {
  ab_run_t *run = pass->run;
  /* Open connections keep the loop alive, so it turns until every chain has
   * verified or the pass failed (a GET's deadline ends a pass that hangs). */
  while (!ab_run_done(run) && !ab_run_failed(run)) {
    uv_run(run->loop, UV_RUN_ONCE);
    ab_microtasks_drain();
  }
}

int hc_pass_close(hc_pass_t *pass) {
  ab_run_t *run = pass->run;
  /* A GET still in flight (the pass stopped at a failure) ends now, so that
   * every style's suspended chain finishes before its frames go. */
  for (long k = 0; k < pass->n; k++)
    if (pass->conns[k].cb != NULL) broken(&pass->conns[k], UV_ECANCELED);
  ab_microtasks_drain();
  for (long k = 0; k < pass->slots; k++) uv_close((uv_handle_t *)&pass->conns[k].deadline, NULL);
  for (long k = 0; k < pass->n; k++) {
    hc_conn_t *c = &pass->conns[k];
    c->open = 0;
    uv_close((uv_handle_t *)&c->tcp, NULL);
  }
  if (pass->promised) ab_promise_loop_detach();
  ab_promise_loop_run(run->loop);
  free(pass->conns);
  free(pass);
  return ab_run_failed(run) ? -1 : 0;
}

/* ---- a GET as a promise ---------------------------------------------------- */

static void on_get_settled(hc_conn_t *c, int err) {
  ab_promise_t *p = c->data;
  c->data = NULL;
  if (hc_verify(c, err) == 0)
    ab_promise_resolve(p, c, NULL);
  else
    ab_promise_reject(p, UV_EPROTO, "a wrong answer (recorded in the run)");
  ab_promise_release(p);
}

ab_promise_t *hc_get_promise(hc_conn_t *c, const char *path, size_t len) {
  ab_promise_t *p = ab_promise_new();
  if (p == NULL) {
    ab_run_oom(c->pass->run, c->chain, "a promise");
    return NULL;
  }
  int rc = hc_get(c, path, len, on_get_settled);
  if (rc != 0) {
    hc_verify(c, rc);
    ab_promise_reject(p, rc, "the request could not be sent (recorded in the run)");
    return p;
  }
  c->data = ab_promise_retain(p); /* the request's reference */
  return p;
}
