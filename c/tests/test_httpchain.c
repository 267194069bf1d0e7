/*
 * test_httpchain.c -- the httpchain server's request handling (session.c)
 * without sockets: the path table, keep-alive, pipelining, a request in
 * pieces, Connection: close and HTTP/1.0, bad input and its limits, a
 * request cut short; the client driver's flags; and that a pass opens its
 * connections only once the clock runs (the timed section).  The fuzzer
 * (scripts/fuzz.sh) drives the same code with random input; these are the
 * cases whose answers are known.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "httpchain/httpchain.h"
#include "workload_tests.h"

#define OK(body) "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\n" body
#define OK_CLOSE(body) \
  "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: close\r\n\r\n" body
#define NOT_FOUND "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: 9\r\n\r\nnot found"

/* Feeds `in` to a new session in reads of `piece` bytes (0: whole); returns
 * the last feed's result and leaves the answers in out (NUL-terminated). */
static int feed(const char *in, size_t piece, hc_buf_t *out) {
  hc_session_t s;
  size_t len = strlen(in), at = 0;
  int rc = 0;
  hc_session_init(&s);
  memset(out, 0, sizeof(*out));
  while (at < len && rc == 0) {
    size_t n = piece && piece < len - at ? piece : len - at;
    rc = hc_session_feed(&s, in + at, n, out);
    at += n;
  }
  /* Terminated for string comparisons (not part of what the server writes). */
  out->data = realloc(out->data, out->len + 1);
  assert_non_null(out->data);
  out->data[out->len] = '\0';
  return rc;
}

static void the_path_table_is_the_chain(void **state) {
  (void)state;
  assert_string_equal(hc_next_path("/a", 2), "/b");
  assert_string_equal(hc_next_path("/b", 2), "/c");
  assert_string_equal(hc_next_path("/c", 2), "/d");
  assert_null(hc_next_path("/d", 2));
  assert_null(hc_next_path("/a/", 3));
  assert_null(hc_next_path("/", 1));
}

static void keep_alive_and_pipelined_requests_are_answered_in_order(void **state) {
  hc_buf_t out;
  (void)state;
  static const char *in = "GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /zz HTTP/1.1\r\n\r\nGET /b HTTP/1.1\r\n\r\n";
  for (size_t piece = 0; piece < 5; piece++) {
    assert_int_equal(feed(in, piece, &out), 0);
    assert_string_equal(out.data, OK("/b") NOT_FOUND OK("/c"));
    hc_buf_free(&out);
  }
}

static void connection_close_and_http10_end_the_connection(void **state) {
  hc_buf_t out;
  (void)state;
  assert_int_equal(feed("GET /c HTTP/1.1\r\nConnection: close\r\n\r\nGET /a HTTP/1.1\r\n\r\n", 0, &out), 1);
  assert_string_equal(out.data, OK_CLOSE("/d"));
  hc_buf_free(&out);
  assert_int_equal(feed("GET /a HTTP/1.0\r\n\r\n", 3, &out), 1);
  assert_string_equal(out.data, OK_CLOSE("/b"));
  hc_buf_free(&out);
  assert_int_equal(feed("GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", 0, &out), 0);
  assert_string_equal(out.data, OK("/b"));
  hc_buf_free(&out);
}

static void a_request_body_is_read_and_a_post_is_not_found(void **state) {
  hc_buf_t out;
  (void)state;
  assert_int_equal(feed("POST /a HTTP/1.1\r\nContent-Length: 5\r\n\r\nhelloGET /b HTTP/1.1\r\n\r\n", 2, &out), 0);
  assert_string_equal(out.data, NOT_FOUND OK("/c"));
  hc_buf_free(&out);
}

static void bad_input_is_answered_once_and_closes(void **state) {
  hc_buf_t out;
  char big[HC_MAX_URL + 64], headers[HC_MAX_HEADER_BYTES + 128];
  (void)state;
  assert_int_equal(feed("NONSENSE\r\n\r\n", 0, &out), 1);
  assert_non_null(strstr(out.data, "HTTP/1.1 400 Bad Request\r\n"));
  hc_buf_free(&out);

  snprintf(big, sizeof(big), "GET /a%0*d HTTP/1.1\r\n\r\n", HC_MAX_URL, 0);
  for (size_t piece = 0; piece < 3; piece++) {
    assert_int_equal(feed(big, piece * 7, &out), 1);
    assert_non_null(strstr(out.data, "HTTP/1.1 414 URI Too Long\r\n"));
    hc_buf_free(&out);
  }
  snprintf(headers, sizeof(headers), "GET /a HTTP/1.1\r\nX: %0*d\r\n\r\n", HC_MAX_HEADER_BYTES, 0);
  assert_int_equal(feed(headers, 0, &out), 1);
  assert_non_null(strstr(out.data, "HTTP/1.1 431 "));
  hc_buf_free(&out);
}

static void a_request_cut_short_is_not_answered(void **state) {
  hc_session_t s;
  hc_buf_t out = {NULL, 0, 0};
  (void)state;
  hc_session_init(&s);
  assert_int_equal(hc_session_feed(&s, "GET /a HTTP/1.1\r\nHo", 19, &out), 0);
  assert_int_equal(out.len, 0);
  assert_int_equal(hc_session_eof(&s), 1);
  hc_session_init(&s);
  assert_int_equal(hc_session_feed(&s, "GET /a HTTP/1.1\r\n\r\n", 19, &out), 0);
  assert_int_equal(hc_session_eof(&s), 0); /* between requests: a clean end */
  hc_buf_free(&out);
}

#define parse(o, ...) parse_quiet(&ab_httpchain, o, "--variant", "callback-sequential", __VA_ARGS__)

static void the_driver_takes_port_stall_and_three_backends(void **state) {
  ab_opts_t o;
  (void)state;
  assert_int_equal(parse(&o, NULL), AB_EXIT_OK);
  assert_string_equal(o.backend, "cserver.keepalive");
  assert_string_equal(o.flags[0], "0");
  assert_string_equal(o.flags[1], "10000");
  assert_int_equal(parse(&o, "--backend", "goserver.keepalive", "--port", "80", NULL), AB_EXIT_OK);
  assert_int_equal(parse(&o, "--backend", "nodeserver.keepalive", NULL), AB_EXIT_OK);
  assert_int_equal(parse(&o, "--backend", "cserver.close", NULL), AB_EXIT_USAGE);
  assert_int_equal(parse(&o, "--variant", "fiber-bounded", NULL), AB_EXIT_OK);
}

/* A port nothing listens on: one the kernel gave out and that was closed. */
static int closed_port(void) {
  uv_loop_t loop;
  uv_tcp_t tcp;
  struct sockaddr_in addr;
  struct sockaddr_storage bound;
  int len = sizeof(bound);
  assert_int_equal(uv_loop_init(&loop), 0);
  uv_tcp_init(&loop, &tcp);
  uv_ip4_addr("127.0.0.1", 0, &addr);
  assert_int_equal(uv_tcp_bind(&tcp, (const struct sockaddr *)&addr, 0), 0);
  assert_int_equal(uv_tcp_getsockname(&tcp, (struct sockaddr *)&bound, &len), 0);
  uv_close((uv_handle_t *)&tcp, NULL);
  uv_run(&loop, UV_RUN_DEFAULT);
  assert_int_equal(uv_loop_close(&loop), 0);
  return ntohs(((struct sockaddr_in *)&bound)->sin_port);
}

static void the_driver_without_a_server_or_a_port_says_so(void **state) {
  child_t c;
  char out[256], port[16];
  (void)state;
  snprintf(port, sizeof(port), "%d", closed_port());
  const char *refused[] = {"--variant", "await-bounded", "--iterations", "5", "--port", port, NULL};
  main_in_child(&ab_httpchain, &c, out, sizeof(out), refused);
  assert_int_equal(WEXITSTATUS(c.status), AB_EXIT_ENV);
  assert_non_null(strstr(c.err, "cannot connect to 127.0.0.1:"));
  assert_string_equal(out, "");
  const char *no_port[] = {"--variant", "callback-sequential", "--iterations", "5", NULL};
  main_in_child(&ab_httpchain, &c, out, sizeof(out), no_port);
  assert_int_equal(WEXITSTATUS(c.status), AB_EXIT_USAGE);
  assert_non_null(strstr(c.err, "--port needs the server's port"));
  assert_non_null(strstr(c.err, "\nusage: ")); /* as every usage error */
}

/* Opening the connections is timed in every style, as Go's transport and
 * Node's agent connect inside their timed section: a pass whose clock has not
 * started refuses to connect, and fails saying so, with nothing opened. */
static void the_connections_open_only_once_the_clock_runs(void **state) {
  uv_loop_t loop;
  hc_state_t st = {closed_port(), 10000};
  ab_run_t run;
  (void)state;
  assert_int_equal(uv_loop_init(&loop), 0);
  memset(&run, 0, sizeof(run));
  run.loop = &loop;
  run.state = &st;
  run.n = 2;
  run.failed_at = -1;
  hc_pass_t *pass = hc_pass_new(&run, 2, 1);
  assert_non_null(pass);
  assert_false(ab_run_failed(&run));
  assert_int_equal(hc_pass_connect(pass), -1);
  assert_non_null(strstr(run.error, "before the clock started"));
  assert_int_equal(pass->n, 0); /* no socket was set up */
  assert_int_equal(hc_pass_close(pass), -1);
  /* With the clock running, the same pass tries: the port refuses (exit 3). */
  memset(&run, 0, sizeof(run));
  run.loop = &loop;
  run.state = &st;
  run.n = 2;
  run.failed_at = -1;
  pass = hc_pass_new(&run, 2, 0);
  assert_non_null(pass);
  ab_run_begin(&run);
  assert_int_equal(hc_pass_connect(pass), -1);
  assert_non_null(strstr(run.error, "cannot connect to 127.0.0.1:"));
  assert_int_equal(run.env_error, 1);
  assert_int_equal(hc_pass_close(pass), -1);
  assert_int_equal(uv_loop_close(&loop), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(the_path_table_is_the_chain),
    cmocka_unit_test(keep_alive_and_pipelined_requests_are_answered_in_order),
    cmocka_unit_test(connection_close_and_http10_end_the_connection),
    cmocka_unit_test(a_request_body_is_read_and_a_post_is_not_found),
    cmocka_unit_test(bad_input_is_answered_once_and_closes),
    cmocka_unit_test(a_request_cut_short_is_not_answered),
    cmocka_unit_test(the_driver_takes_port_stall_and_three_backends),
    cmocka_unit_test(the_driver_without_a_server_or_a_port_says_so),
    cmocka_unit_test(the_connections_open_only_once_the_clock_runs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
