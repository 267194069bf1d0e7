/*
 * main_server.c -- the httpchain server, build/bin/c-httpchain-server: HTTP/1.1
 * on libuv with llhttp (session.c), GET /a -> "/b", /b -> "/c", /c -> "/d",
 * 404 for anything else.
 *
 * Usage: c-httpchain-server [--port P]
 *
 * It listens on 127.0.0.1 only, on port P (default 0: a free port the kernel
 * picks), and prints {"port":N} as one line on stdout when it accepts
 * connections.  Keep-alive, Connection: close, pipelined requests and
 * requests split over many reads are all served; a client that goes away
 * mid-request is dropped.
 *
 * It stops, closing every handle so that uv_loop_close returns 0, and exits 0:
 *   - on SIGTERM or SIGINT;
 *   - when its stdin is a pipe and the pipe ends (the runner holds the other
 *     end, so the server ends with the runner whatever killed it);
 *   - on Linux, when its parent dies (PR_SET_PDEATHSIG, SIGTERM).
 * Exit 2: a bad flag.  Exit 3: the port cannot be bound (in use), or libuv
 * fails to start.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "httpchain.h"

typedef struct conn_s {
  uv_tcp_t tcp;
  hc_session_t session;
  int closing;
  int writes;              /* writes in flight */
  struct conn_s *prev, *next;
} conn_t;

typedef struct {
  uv_write_t req;
  conn_t *conn;
  hc_buf_t buf;
} write_t;

static uv_loop_t loop;
static uv_tcp_t server;
static uv_signal_t sigterm, sigint;
static uv_pipe_t in;
static int watching_stdin;
static int stopping;
static conn_t *conns;
static const char *prog = "c-httpchain-server";

static void on_conn_closed(uv_handle_t *h) {
  conn_t *c = (conn_t *)h;
  if (c->prev) c->prev->next = c->next;
  else conns = c->next;
  if (c->next) c->next->prev = c->prev;
  free(c);
}

static void conn_close(conn_t *c) {
  if (c->closing) return;
  c->closing = 1;
  uv_close((uv_handle_t *)&c->tcp, on_conn_closed);
}

static void on_write(uv_write_t *req, int status) {
  write_t *w = (write_t *)req;
  conn_t *c = w->conn;
  c->writes--;
  hc_buf_free(&w->buf);
  free(w);
  /* A failed write (the client went away) or the last write of a closing
   * session ends the connection. */
  if (status < 0 || (c->session.closing && c->writes == 0)) conn_close(c);
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf) {
  (void)h;
  (void)suggested;
  buf->base = malloc(16384);
  buf->len = buf->base ? 16384 : 0;
}

static void on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf) {
  conn_t *c = (conn_t *)s;
  hc_buf_t out = {NULL, 0, 0};
  int rc = 0;
  if (nread > 0 && !c->closing)
    rc = hc_session_feed(&c->session, buf->base, (size_t)nread, &out);
  free(buf->base);
  if (nread < 0) {
    /* EOF (or a reset): a request cut short is dropped; written responses
     * already in flight are cancelled by the close. */
    hc_session_eof(&c->session);
    hc_buf_free(&out);
    conn_close(c);
    return;
  }
  if (rc < 0) {
    fprintf(stderr, "%s: out of memory for a response; connection dropped\n", prog);
    hc_buf_free(&out);
    conn_close(c);
    return;
  }
  if (rc == 1) uv_read_stop(s);
  if (out.len > 0) {
    write_t *w = malloc(sizeof(*w));
    if (w == NULL) {
      hc_buf_free(&out);
      conn_close(c);
      return;
    }
    w->conn = c;
    w->buf = out;
    uv_buf_t b = uv_buf_init(out.data, (unsigned)out.len);
    if (uv_write(&w->req, s, &b, 1, on_write) != 0) {
      hc_buf_free(&w->buf);
      free(w);
      conn_close(c);
      return;
    }
    c->writes++;
  } else if (rc == 1 && c->writes == 0) {
    conn_close(c);
  }
}

static void on_connection(uv_stream_t *srv, int status) {
  if (status < 0 || stopping) return;
  conn_t *c = calloc(1, sizeof(*c));
  if (c == NULL || uv_tcp_init(&loop, &c->tcp) != 0) {
    free(c);
    return; /* the pending connection stays in the backlog; the next try may work */
  }
  if (uv_accept(srv, (uv_stream_t *)&c->tcp) != 0) {
    uv_close((uv_handle_t *)&c->tcp, (uv_close_cb)free);
    return;
  }
  uv_tcp_nodelay(&c->tcp, 1);
  hc_session_init(&c->session);
  c->next = conns;
  if (conns) conns->prev = c;
  conns = c;
  if (uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read) != 0) conn_close(c);
}

/* Closes everything; the loop then ends by itself. */
static void stop(void) {
  if (stopping) return;
  stopping = 1;
  uv_close((uv_handle_t *)&server, NULL);
  uv_close((uv_handle_t *)&sigterm, NULL);
  uv_close((uv_handle_t *)&sigint, NULL);
  if (watching_stdin) uv_close((uv_handle_t *)&in, NULL);
  for (conn_t *c = conns; c != NULL; c = c->next) conn_close(c);
}

static void on_signal(uv_signal_t *h, int signum) {
  (void)h;
  (void)signum;
  stop();
}

static void on_stdin_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf) {
  static char scratch[256];
  (void)h;
  (void)suggested;
  buf->base = scratch;
  buf->len = sizeof(scratch);
}

static void on_stdin(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf) {
  (void)s;
  (void)buf;
  if (nread < 0) stop(); /* the pipe ended: whoever started us is gone */
}

static int usage(FILE *out, int code) {
  fprintf(out,
          "usage: %s [--port P]\n"
          "  HTTP/1.1 on 127.0.0.1:P (0, the default: a free port), GET /a -> /b, /b -> /c,\n"
          "  /c -> /d, 404 otherwise; prints {\"port\":N} when ready; stops on SIGTERM,\n"
          "  SIGINT or the end of its stdin when that is a pipe\n",
          prog);
  return code;
}

static int parse_port(const char *s, int *port) {
  char *end;
  if (s == NULL || *s < '0' || *s > '9') return -1;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (*end != '\0' || errno != 0 || v < 0 || v > 65535) return -1;
  *port = (int)v;
  return 0;
}

static int fail(const char *what, int err) {
  fprintf(stderr, "%s: %s: %s\n", prog, what, uv_strerror(err));
  return AB_EXIT_ENV;
}

int main(int argc, char **argv) {
  int port = 0, rc;
  if (argc > 0) prog = argv[0];
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--help") == 0) return usage(stdout, 0);
    if (strcmp(argv[i], "--port") == 0 && i + 1 < argc) {
      if (parse_port(argv[++i], &port) != 0) {
        fprintf(stderr, "%s: --port takes a number from 0 to 65535, got '%s'\n", prog, argv[i]);
        return usage(stderr, AB_EXIT_USAGE);
      }
    } else {
      fprintf(stderr, "%s: unknown argument '%s'\n", prog, argv[i]);
      return usage(stderr, AB_EXIT_USAGE);
    }
  }
#ifdef __linux__
  /* Die with the parent; a parent gone before the request is seen at once. */
  pid_t parent = getppid();
  if (prctl(PR_SET_PDEATHSIG, SIGTERM) == 0 && getppid() != parent) return 0;
#endif
  if (ab_loop_fds_check(prog) != AB_EXIT_OK) return AB_EXIT_ENV;
  if ((rc = uv_loop_init(&loop)) != 0) return fail("uv_loop_init", rc);
  uv_signal_init(&loop, &sigterm);
  uv_signal_init(&loop, &sigint);
  uv_signal_start(&sigterm, on_signal, SIGTERM);
  uv_signal_start(&sigint, on_signal, SIGINT);
  uv_tcp_init(&loop, &server);

  struct sockaddr_in addr;
  uv_ip4_addr("127.0.0.1", port, &addr);
  if ((rc = uv_tcp_bind(&server, (const struct sockaddr *)&addr, 0)) == 0)
    rc = uv_listen((uv_stream_t *)&server, 511, on_connection);
  if (rc != 0) {
    char what[64];
    snprintf(what, sizeof(what), "cannot listen on 127.0.0.1:%d", port);
    rc = fail(what, rc);
    stop();
    uv_run(&loop, UV_RUN_DEFAULT);
    uv_loop_close(&loop);
    return rc;
  }
  struct sockaddr_storage bound;
  int len = sizeof(bound);
  uv_tcp_getsockname(&server, (struct sockaddr *)&bound, &len);
  port = ntohs(((struct sockaddr_in *)&bound)->sin_port);

  if (uv_guess_handle(0) == UV_NAMED_PIPE && uv_pipe_init(&loop, &in, 0) == 0) {
    if (uv_pipe_open(&in, 0) == 0 && uv_read_start((uv_stream_t *)&in, on_stdin_alloc, on_stdin) == 0)
      watching_stdin = 1;
    else
      uv_close((uv_handle_t *)&in, NULL);
  }

  printf("{\"port\":%d}\n", port);
  if (fflush(stdout) != 0) {
    fprintf(stderr, "%s: cannot write the port line\n", prog);
    stop();
  }
  uv_run(&loop, UV_RUN_DEFAULT);
  if ((rc = uv_loop_close(&loop)) != 0) {
    fprintf(stderr, "%s: uv_loop_close: %s (a handle was left open)\n", prog, uv_strerror(rc));
    return AB_EXIT_VERIFY;
  }
  return 0;
}
