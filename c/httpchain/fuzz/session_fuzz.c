/*
 * session_fuzz.c -- libFuzzer target for the server's request handling
 * (c/httpchain/session.c), built and run by scripts/fuzz.sh.
 *
 * The first input byte picks how the rest is cut into reads (1 to 256 bytes
 * each, varying), the way a socket may deliver a request in pieces.  The
 * same bytes are fed once whole and once in those pieces to two sessions;
 * the server must answer both identically (a split request is answered as if
 * it came whole), and what it writes must be well-formed HTTP/1.1 responses
 * (parsed back with llhttp) with a status it can give: 200 with body /b, /c
 * or /d, or 404, 400, 414, 431.  Anything else aborts, as does what ASan or
 * UBSan finds.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "httpchain/httpchain.h"

static int responses;
static int bad;
static char body[64];
static size_t body_len;

static int on_begin(llhttp_t *p) {
  (void)p;
  body_len = 0;
  return 0;
}

static int on_body(llhttp_t *p, const char *at, size_t len) {
  (void)p;
  if (body_len + len > sizeof(body)) {
    bad = 1;
    return HPE_USER;
  }
  memcpy(body + body_len, at, len);
  body_len += len;
  return 0;
}

static int on_complete(llhttp_t *p) {
  int status = llhttp_get_status_code(p);
  responses++;
  if (status == 200) {
    if (body_len != 2 || body[0] != '/' || body[1] < 'b' || body[1] > 'd') bad = 1;
  } else if (status != 404 && status != 400 && status != 414 && status != 431) {
    bad = 1;
  }
  return 0;
}

/* Aborts unless out is a sequence of complete, well-formed responses. */
static void check_responses(const hc_buf_t *out) {
  llhttp_t parser;
  llhttp_settings_t s;
  llhttp_settings_init(&s);
  s.on_message_begin = on_begin;
  s.on_body = on_body;
  s.on_message_complete = on_complete;
  llhttp_init(&parser, HTTP_RESPONSE, &s);
  responses = 0;
  bad = 0;
  llhttp_errno_t e = out->len ? llhttp_execute(&parser, out->data, out->len) : HPE_OK;
  /* After a Connection: close response llhttp stops (HPE_CLOSED_CONNECTION
   * would follow more bytes, and the server writes none). */
  if ((e != HPE_OK && e != HPE_CLOSED_CONNECTION) || bad) {
    fprintf(stderr, "session_fuzz: malformed output (%s, %d responses): %.*s\n",
            llhttp_errno_name(e), responses, (int)(out->len < 400 ? out->len : 400), out->data);
    abort();
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  unsigned cut = data[0];
  const char *in = (const char *)data + 1;
  size_t len = size - 1;

  hc_session_t whole, pieces;
  hc_buf_t out_whole = {NULL, 0, 0}, out_pieces = {NULL, 0, 0};
  hc_session_init(&whole);
  hc_session_init(&pieces);
  int rc_whole = len ? hc_session_feed(&whole, in, len, &out_whole) : 0;
  if (rc_whole == 0) hc_session_eof(&whole);

  int rc_pieces = 0;
  size_t at = 0;
  for (unsigned k = 0; at < len && rc_pieces == 0; k++) {
    size_t n = 1 + (cut * 7 + k * 13) % 256;
    if (n > len - at) n = len - at;
    rc_pieces = hc_session_feed(&pieces, in + at, n, &out_pieces);
    at += n;
  }
  if (rc_pieces == 0) hc_session_eof(&pieces);

  if (rc_whole < 0 || rc_pieces < 0) abort(); /* out of memory: not expected here */
  if (rc_whole != rc_pieces || out_whole.len != out_pieces.len ||
      (out_whole.len && memcmp(out_whole.data, out_pieces.data, out_whole.len) != 0)) {
    fprintf(stderr, "session_fuzz: whole (%d, %zu bytes) and in pieces (%d, %zu bytes) differ\n",
            rc_whole, out_whole.len, rc_pieces, out_pieces.len);
    abort();
  }
  check_responses(&out_whole);
  hc_buf_free(&out_whole);
  hc_buf_free(&out_pieces);
  return 0;
}
