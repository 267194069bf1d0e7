/*
 * await_ordering.h -- shared by test_async.c and test_stackless.c: a trace of
 * labels in the order code ran, and the check against Node.
 *
 * Also the .then chain most scenarios run beside the awaits.
 *
 * Same scheme as test_promise_order.c: each scenario is a JavaScript snippet
 * c/tests/ordering/NAME.js, and NAME.out holds what Node printed for it (here
 * one line of space-separated labels).  A test builds the same trace in C and
 * asserts it equals NAME.out; when node is installed ($NODE, or `node` on
 * PATH) it also runs the snippet and asserts Node prints the C trace today, so
 * the recorded file cannot drift.  The folder is found from this header's
 * path as the compiler saw it (the project root when built by the Makefile),
 * or under $AB_ROOT.
 */
#ifndef AB_AWAIT_ORDERING_H
#define AB_AWAIT_ORDERING_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "promise.h"

static char trace_buf[512];

static void trace_reset(void) { trace_buf[0] = '\0'; }

static void trace(const char *label) {
  if (trace_buf[0])
    strncat(trace_buf, " ", sizeof(trace_buf) - strlen(trace_buf) - 1);
  strncat(trace_buf, label, sizeof(trace_buf) - strlen(trace_buf) - 1);
}

/* A then() handler that traces its arg. */
static void then_trace(void *arg, ab_promise_t *settled, ab_promise_t *out) {
  (void)settled;
  (void)out;
  trace(arg);
}

/* Promise.resolve().then(() => trace(a)).then(() => trace(b)).then(...c) */
static void then_chain(const char *a, const char *b, const char *c) {
  ab_promise_t *p0 = ab_promise_resolved(NULL, NULL);
  ab_promise_t *p1 = ab_promise_then(p0, then_trace, NULL, (void *)a);
  ab_promise_t *p2 = ab_promise_then(p1, then_trace, NULL, (void *)b);
  ab_promise_t *p3 = ab_promise_then(p2, then_trace, NULL, (void *)c);
  ab_promise_release(p0);
  ab_promise_release(p1);
  ab_promise_release(p2);
  ab_promise_release(p3);
}

/* c/tests/ordering/<file> into path. */
static void ordering_path(const char *file, char *path, size_t cap) {
  const char *root = getenv("AB_ROOT");
  if (root && *root) {
    snprintf(path, cap, "%s/c/tests/ordering/%s", root, file);
    return;
  }
  const char *here = __FILE__; /* .../c/tests/await_ordering.h */
  const char *slash = strrchr(here, '/');
  int dir = slash ? (int)(slash - here + 1) : 0;
  snprintf(path, cap, "%.*sordering/%s", dir, here, file);
}

/* Drops trailing newlines. */
static void chomp(char *s) {
  size_t n = strlen(s);
  while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r'))
    s[--n] = '\0';
}

/* The recorded line of NAME.out into out; -1 when it cannot be read. */
static int recorded_output(const char *name, char *out, size_t cap) {
  char path[1024], file[128];
  snprintf(file, sizeof(file), "%s.out", name);
  ordering_path(file, path, sizeof(path));
  FILE *f = fopen(path, "r");
  if (!f)
    return -1;
  size_t n = fread(out, 1, cap - 1, f);
  out[n] = '\0';
  fclose(f);
  chomp(out);
  return 0;
}

/* What node prints for NAME.js into out; -1 without node. */
static int node_output(const char *name, char *out, size_t cap) {
  const char *node = getenv("NODE");
  if (!node || !*node)
    node = "node";
  char path[1024], file[128], cmd[2300];
  snprintf(file, sizeof(file), "%s.js", name);
  ordering_path(file, path, sizeof(path));
  snprintf(cmd, sizeof(cmd), "command -v '%s' >/dev/null 2>&1 || exit 99; '%s' '%s'", node,
           node, path);
  FILE *f = popen(cmd, "r");
  if (!f)
    return -1;
  size_t n = fread(out, 1, cap - 1, f);
  out[n] = '\0';
  int status = pclose(f);
  if (status != 0 && n == 0)
    return -1; /* no node here: the recorded line stands */
  chomp(out);
  return 0;
}

/* Asserts the C trace equals NAME.out, and what Node prints for NAME.js when
 * node is installed. */
#define assert_matches_node(name)                                    \
  do {                                                               \
    char rec_line_[512], node_line_[512];                            \
    assert_int_equal(recorded_output((name), rec_line_, sizeof(rec_line_)), 0); \
    assert_string_equal(trace_buf, rec_line_);                       \
    if (node_output((name), node_line_, sizeof(node_line_)) == 0)    \
      assert_string_equal(node_line_, trace_buf);                    \
  } while (0)

#endif /* AB_AWAIT_ORDERING_H */
