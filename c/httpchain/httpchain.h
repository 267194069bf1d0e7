/*
 * httpchain.h -- the httpchain workload (seed 001): a chain of three HTTP/1.1
 * GETs on loopback, each request's path the previous response's body:
 *
 *   GET /a -> "/b",  GET /b -> "/c",  GET /c -> "/d"     (anything else: 404)
 *
 * One operation is one chain; a chain is verified when every response is a
 * 200 whose body is the next path, and the third body is "/d".  `bytes`
 * counts the bodies (6 per chain).
 *
 * Pieces:
 *   protocol.c  the path table both sides share (hc_next_path)
 *   session.c   the server's request handling: bytes in, responses out, with
 *               llhttp; no sockets, so the fuzzer (c/httpchain/fuzz/) drives it
 *               exactly as the server does
 *   client.c    a client connection (libuv TCP, llhttp response parser) with
 *               one GET in flight at a time and its deadline (--stall-ms), the
 *               pass's K connections, and a GET as a promise
 *   workload.c  what the harness asks (flags, check, variants)
 *   callback.c promise.c await.c fiber.c stackless.c   one file per style
 *   main.c      the client driver, build/bin/c-httpchain
 *   main_server.c  the server, build/bin/c-httpchain-server
 *
 * Modes: sequential (one chain at a time on one connection) and bounded (K
 * chains at once, each on its own keep-alive connection; chains go to the
 * next free connection).
 *
 * The timed section, the same in every style: the clock starts first
 * (ab_run_begin, DESIGN section 3), then the pass's connection records, their
 * deadline timers and the promise styles' safety net are set up
 * (hc_pass_new) and the K connections opened (hc_pass_connect), as Go's
 * http.Transport and Node's keep-alive agent connect inside their timed
 * section on first use; then the style's own frames, promises or coroutines
 * (their stacks from the pool) are created and run the chains.  The clock
 * stops at the N-th verified
 * chain (ab_run_ok), so closing the connections (hc_pass_close) is not timed,
 * as Node's agent.destroy() and Go's CloseIdleConnections after their N-th
 * chain are not.
 */
#ifndef AB_HTTPCHAIN_H
#define AB_HTTPCHAIN_H

#include <stddef.h>
#include <stdint.h>

#include <llhttp.h>
#include <uv.h>

#include "harness.h"
#include "promise.h"

/* ---- protocol.c ------------------------------------------------------------ */

/* Requests in one chain, and the path each chain starts with. */
#define HC_CHAIN_LEN 3
#define HC_FIRST_PATH "/a"
#define HC_LAST_PATH "/d"

/* The body the server answers for path (len bytes), or NULL: a 404. */
const char *hc_next_path(const char *path, size_t len);

/* ---- session.c: the server's side of one connection ------------------------ */

/* Longest request target and header section the server accepts (beyond: 414
 * or 431, then it closes). */
#define HC_MAX_URL 256
#define HC_MAX_HEADER_BYTES 8192

/* A growable output buffer. */
typedef struct hc_buf_s {
  char *data;
  size_t len;
  size_t cap;
} hc_buf_t;

typedef struct hc_session_s {
  llhttp_t parser;
  llhttp_settings_t settings;
  hc_buf_t *out;           /* where responses go while feeding */
  size_t url_len;
  size_t header_bytes;
  int url_too_long;
  int limit_hit;           /* a complete header section broke a limit */
  int closing;             /* a response said Connection: close: stop reading */
  int oom;
  char url[HC_MAX_URL];
} hc_session_t;

void hc_session_init(hc_session_t *s);

/* Parses len bytes of what the client sent and appends the responses to out,
 * in request order (pipelined requests are answered in turn; a request split
 * over several calls is answered when its last byte arrives).  Returns 0 to
 * keep reading, 1 when the connection must close once out is written (the
 * client asked for Connection: close, HTTP/1.0 without keep-alive, or bad
 * input, answered with a 400, 414 or 431 first), -1 when out of memory. */
int hc_session_feed(hc_session_t *s, const char *data, size_t len, hc_buf_t *out);

/* The client closed its side (EOF): 1 when what it sent last was a request cut
 * short (nothing is answered), else 0. */
int hc_session_eof(hc_session_t *s);

/* Frees what out holds. */
void hc_buf_free(hc_buf_t *b);

/* ---- client.c: one keep-alive connection, one GET at a time ---------------- */

/* Longest response body a client accepts (every right answer is 2 bytes). */
#define HC_MAX_BODY 64

typedef struct hc_conn_s hc_conn_t;
typedef struct hc_pass_s hc_pass_t;

/* Called once per GET: err 0 and the response in conn (status, body,
 * body_len), or a libuv error code (UV_EOF: the server closed the connection
 * before the response ended; UV_EPROTO: a response llhttp rejects; UV_E2BIG:
 * a body longer than HC_MAX_BODY; UV_ETIMEDOUT: the response was not
 * complete within --stall-ms of the request). */
typedef void (*hc_get_cb)(hc_conn_t *conn, int err);

struct hc_conn_s {
  uv_tcp_t tcp;
  uv_timer_t deadline;     /* --stall-ms after a request was sent (the first: after its
                            * connect started), while its GET or connect is in flight */
  uv_connect_t connect;
  uv_write_t write;
  llhttp_t parser;
  hc_pass_t *pass;
  long slot;               /* its index in the pass */
  long chain;              /* the chain it runs now (the styles set it) */
  int step;                /* request of the chain, 0..HC_CHAIN_LEN-1 */
  hc_get_cb cb;            /* the GET in flight, NULL when idle */
  int status;
  int complete;            /* the response ended (on_message_complete) */
  int err;                 /* what the connection failed with, 0 while fine */
  int open;                /* connected and not closed */
  int writing;             /* the request's uv_write_t is libuv's until its callback */
  int stray;               /* the server sent bytes after a response's end */
  int connecting;          /* its connect has not answered yet */
  int fresh;               /* no GET sent yet: the deadline armed at the connect runs on */
  size_t body_len;
  char body[HC_MAX_BODY];
  char path[HC_MAX_BODY];  /* the path of the GET in flight */
  size_t path_len;
  char req[HC_MAX_BODY * 2 + 64];
  void *data;              /* the style's */
};

struct hc_pass_s {
  ab_run_t *run;
  uv_loop_t *loop;
  int port;
  long slots;              /* connections to open */
  long n;                  /* connections set up (hc_pass_connect) */
  long next;               /* next chain to start */
  long connecting;         /* connects not answered yet */
  int late;                /* a connect was not answered within --stall-ms */
  int promised;            /* the microtask safety net is attached */
  hc_conn_t *conns;
};

/* The workload's state (setup): the server's port and --stall-ms. */
typedef struct hc_state_s {
  int port;
  long stall_ms;
} hc_state_t;

/* A pass of `slots` connections, none open yet, with their deadline timers
 * (not started) and, when `promised`, the promise styles' microtask safety
 * net.  Called once the clock has started (the connection records are per
 * connection).  Returns the pass, or NULL with the failure recorded. */
hc_pass_t *hc_pass_new(ab_run_t *run, long slots, int promised);

/* Opens the pass's connections to 127.0.0.1:port and runs the loop until all
 * are connected.  Called once the clock has
 * started (else the pass fails): opening the connections is timed.  Each
 * connection's deadline starts with its connect and runs on for its first
 * GET, as Go's and Node's first GET on a new connection has its connect
 * inside its --stall-ms (DESIGN section 3).  Returns 0, or -1 with the
 * failure recorded (a refused connection: nothing answers on the port; a
 * connect not answered within --stall-ms: a server whose backlog is full;
 * exit 3 both); the caller still closes the pass. */
int hc_pass_connect(hc_pass_t *pass);

/* Turns the loop until every chain of the pass has verified or one failed. */
void hc_pass_run(hc_pass_t *pass);

/* Closes every connection and its timer, runs the loop dry, frees the pass.
 * Returns 0, or -1 when the pass failed. */
int hc_pass_close(hc_pass_t *pass);

/* Sends GET path on conn (idle, open) and calls cb when the response has
 * ended or the connection failed.  The response must be complete within
 * --stall-ms of the request, of the connect for a connection's first
 * (DESIGN section 3): when it is not (the server
 * is silent, drips, or sends less than its Content-Length), cb gets
 * UV_ETIMEDOUT and the run fails with exit 3.  Returns 0, or a libuv error (cb is then
 * never called). */
int hc_get(hc_conn_t *conn, const char *path, size_t len, hc_get_cb cb);

/* After a GET of step `conn->step` of chain `conn->chain` completed with err:
 * 0 when the response is a 200 whose body is the next path (conn->body is
 * then the next request's path), else -1 with the failure recorded. */
int hc_verify(hc_conn_t *conn, int err);

/* After the last verified GET of a chain: the chain's check (ab_run_check):
 * 0, or -1. */
int hc_chain_done(hc_conn_t *conn);

/* Takes the next chain for conn (conn->chain, step 0): 1, or 0 when every
 * chain has been started or the run failed. */
int hc_next_chain(hc_conn_t *conn);

/* GET path as a promise: fulfilled with conn (the response in it) once
 * hc_verify passed, rejected with the failure recorded in the run otherwise
 * (code UV_EPROTO for a wrong answer).  NULL when out of memory (recorded). */
ab_promise_t *hc_get_promise(hc_conn_t *conn, const char *path, size_t len);

/* What the check of a chain receives. */
typedef struct hc_chain_s {
  int requests;            /* verified responses */
  const char *last;        /* the last body */
  size_t last_len;
} hc_chain_t;

extern const ab_workload_t ab_httpchain;

/* One function per style; each runs one pass over ab_run_slots() connections. */
int hc_callback(ab_run_t *run);
int hc_promise(ab_run_t *run);
int hc_await(ab_run_t *run);
int hc_fiber(ab_run_t *run);
int hc_stackless(ab_run_t *run);

#endif /* AB_HTTPCHAIN_H */
