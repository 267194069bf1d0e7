/*
 * workload.c -- what the harness asks of httpchain (httpchain.h): the --port
 * flag, the backends (which server, and keep-alive), the check of one chain
 * and the variant table.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "httpchain.h"
#include "modes.h" /* AB_CORO_RUNTIME */

static const ab_variant_t variants[] = {
  /* style      shape  mode          function */
  {"callback",  NULL,  "sequential", hc_callback, NULL, 0},
  {"callback",  NULL,  "bounded",    hc_callback, NULL, 0},
  {"promise",   NULL,  "sequential", hc_promise, NULL, 0},
  {"promise",   NULL,  "bounded",    hc_promise, NULL, 0},
  {"await",     NULL,  "sequential", hc_await, AB_CORO_RUNTIME, 0},
  {"await",     NULL,  "bounded",    hc_await, AB_CORO_RUNTIME, 0},
  {"fiber",     NULL,  "sequential", hc_fiber, AB_CORO_RUNTIME, 0},
  {"fiber",     NULL,  "bounded",    hc_fiber, AB_CORO_RUNTIME, 0},
  {"stackless", NULL,  "sequential", hc_stackless, NULL, 0},
  {"stackless", NULL,  "bounded",    hc_stackless, NULL, 0},
  {NULL, NULL, NULL, NULL, NULL, 0}
};

static const ab_flag_t flags[] = {
  {"--port", "P", "0", "the server's port on 127.0.0.1 (required; the runner passes it)"},
  {"--stall-ms", "MS", "10000", "a response not complete within MS milliseconds of its request fails the run (exit 3)"},
  {NULL, NULL, NULL, NULL}
};

/* The server the client talks to, and how: every C client keeps its
 * connections alive; the server part names who answers (the id tells the
 * runtimes apart). */
static const char *backend(size_t k) {
  static const char *const names[] = {"cserver.keepalive", "goserver.keepalive",
                                      "nodeserver.keepalive"};
  return k < sizeof(names) / sizeof(names[0]) ? names[k] : NULL;
}

static hc_state_t the_state;

static int setup(const ab_opts_t *o, uv_loop_t *loop, void **state) {
  const char *s = o->flags[0];
  char *end;
  (void)loop;
  errno = 0;
  long port = strtol(s, &end, 10);
  if (*s < '0' || *s > '9' || *end != '\0' || errno != 0 || port < 1 || port > 65535) {
    fprintf(stderr, "%s: --port needs the server's port, 1 to 65535, got '%s' (start "
            "build/bin/c-httpchain-server; it prints {\"port\":N})\n", o->prog, s);
    return AB_EXIT_USAGE;
  }
  the_state.port = (int)port;
  const char *t = o->flags[1];
  errno = 0;
  long stall = strtol(t, &end, 10);
  if (*t < '0' || *t > '9' || *end != '\0' || errno != 0 || stall < 1 || stall > 3600000) {
    fprintf(stderr, "%s: --stall-ms takes 1 to 3600000 milliseconds, got '%s'\n", o->prog, t);
    return AB_EXIT_USAGE;
  }
  the_state.stall_ms = stall;
  *state = &the_state;
  return AB_EXIT_OK;
}

static int check(ab_run_t *run, long i, const void *result) {
  const hc_chain_t *c = result;
  size_t want = strlen(HC_LAST_PATH);
  if (c->requests != HC_CHAIN_LEN || c->last_len != want || memcmp(c->last, HC_LAST_PATH, want) != 0) {
    ab_run_fail(run, i, "the chain ended after %d requests at \"%.*s\", expected %d at \"%s\"",
                c->requests, (int)c->last_len, c->last, HC_CHAIN_LEN, HC_LAST_PATH);
    return -1;
  }
  /* Every body of a right chain is 2 bytes: "/b", "/c", "/d". */
  ab_run_ok(run, (uint64_t)HC_CHAIN_LEN * 2);
  return 0;
}

const ab_workload_t ab_httpchain = {
  "httpchain",
  "a chain of three HTTP GETs on loopback (/a -> /b -> /c -> /d), every body checked",
  flags,
  backend,
  variants,
  setup,
  check,
  NULL,
  NULL,
  1 /* an operation holds its connection */
};
