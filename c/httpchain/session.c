/*
 * session.c -- the server's handling of one connection's bytes (httpchain.h):
 * llhttp parses requests, each complete request appends its response.
 *
 * Only the request target matters; headers are counted (bounded) but not
 * kept, a request body is read and ignored.  Responses carry Content-Length,
 * so a keep-alive client knows where each ends; a response that closes the
 * connection says Connection: close.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "httpchain.h"

static int buf_add(hc_buf_t *b, const char *data, size_t len) {
  if (b->len + len > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + len) cap *= 2;
    char *p = realloc(b->data, cap);
    if (p == NULL) return -1;
    b->data = p;
    b->cap = cap;
  }
  memcpy(b->data + b->len, data, len);
  b->len += len;
  return 0;
}

void hc_buf_free(hc_buf_t *b) {
  free(b->data);
  b->data = NULL;
  b->len = b->cap = 0;
}

/* Appends one response; `close` adds Connection: close. */
static void respond(hc_session_t *s, int status, const char *reason, const char *body,
                    int close) {
  char head[160];
  size_t blen = strlen(body);
  int n = snprintf(head, sizeof(head),
                   "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\nContent-Length: %zu\r\n%s\r\n",
                   status, reason, blen, close ? "Connection: close\r\n" : "");
  if (buf_add(s->out, head, (size_t)n) != 0 || buf_add(s->out, body, blen) != 0)
    s->oom = 1;
}

static hc_session_t *of(llhttp_t *p) { return p->data; }

static int on_message_begin(llhttp_t *p) {
  hc_session_t *s = of(p);
  s->limit_hit = 0;
  s->url_len = 0;
  s->header_bytes = 0;
  s->url_too_long = 0;
  return HPE_OK;
}

/* Limits are noted as the bytes come and enforced when the headers are
 * complete: llhttp hands a span over in as many pieces as the reads cut it
 * into, so refusing at the piece that crosses a limit would answer a request
 * differently depending on how it arrived (and bad bytes later in it would
 * be a 400 one time and a 414 the other).  Nothing beyond the limits is kept. */
static int on_url(llhttp_t *p, const char *at, size_t len) {
  hc_session_t *s = of(p);
  if (s->url_too_long || s->url_len + len > sizeof(s->url)) {
    s->url_too_long = 1;
    return HPE_OK;
  }
  memcpy(s->url + s->url_len, at, len);
  s->url_len += len;
  return HPE_OK;
}

static int on_header_bytes(llhttp_t *p, const char *at, size_t len) {
  hc_session_t *s = of(p);
  (void)at;
  if (s->header_bytes <= HC_MAX_HEADER_BYTES) s->header_bytes += len;
  return HPE_OK;
}

static int on_headers_complete(llhttp_t *p) {
  hc_session_t *s = of(p);
  s->limit_hit = s->url_too_long || s->header_bytes > HC_MAX_HEADER_BYTES;
  return s->limit_hit ? -1 : 0; /* -1: llhttp stops with HPE_CB_HEADERS_COMPLETE */
}

static int on_message_complete(llhttp_t *p) {
  hc_session_t *s = of(p);
  int keep = llhttp_should_keep_alive(p);
  const char *next = llhttp_get_method(p) == HTTP_GET ? hc_next_path(s->url, s->url_len) : NULL;
  if (next != NULL)
    respond(s, 200, "OK", next, !keep);
  else
    respond(s, 404, "Not Found", "not found", !keep);
  if (!keep) {
    s->closing = 1;
    return HPE_PAUSED; /* nothing after this request is read */
  }
  return HPE_OK;
}

void hc_session_init(hc_session_t *s) {
  memset(s, 0, sizeof(*s));
  llhttp_settings_init(&s->settings);
  s->settings.on_message_begin = on_message_begin;
  s->settings.on_url = on_url;
  s->settings.on_header_field = on_header_bytes;
  s->settings.on_header_value = on_header_bytes;
  s->settings.on_headers_complete = on_headers_complete;
  s->settings.on_message_complete = on_message_complete;
  llhttp_init(&s->parser, HTTP_REQUEST, &s->settings);
  s->parser.data = s;
}

int hc_session_feed(hc_session_t *s, const char *data, size_t len, hc_buf_t *out) {
  if (s->closing) return 1;
  s->out = out;
  llhttp_errno_t e = llhttp_execute(&s->parser, data, len);
  s->out = NULL;
  if (s->oom) return -1;
  if (e == HPE_OK) return 0;
  if (e == HPE_PAUSED && s->closing) return 1;
  /* Bad input: say what, once, and close.  414 and 431 only when a complete
   * header section broke a limit (on_headers_complete refused it); bad bytes
   * before that are a 400 however long the target had grown. */
  s->out = out;
  if (s->limit_hit && s->url_too_long)
    respond(s, 414, "URI Too Long", "request target too long", 1);
  else if (s->limit_hit)
    respond(s, 431, "Request Header Fields Too Large", "headers too large", 1);
  else
    respond(s, 400, "Bad Request", "bad request", 1);
  s->out = NULL;
  s->closing = 1;
  return s->oom ? -1 : 1;
}

int hc_session_eof(hc_session_t *s) {
  if (s->closing) return 0;
  /* llhttp_finish reports a request cut short as an error; between requests
   * it is fine. */
  return llhttp_finish(&s->parser) != HPE_OK;
}
