/*
 * ordering.h -- checks that C code runs its steps in the order Node runs the
 * same JavaScript.  Shared by test_promise_order.c, test_async.c and
 * test_stackless.c (include after cmocka.h).
 *
 * Each scenario is written twice: as JavaScript in c/tests/ordering/NAME.js,
 * and as C that records a trace of what ran -- trace() and tracef() add a
 * word to the current line, say() adds one and ends the line.
 * ordering_check(NAME) asserts the trace equals NAME.out (what Node printed
 * for the snippet) and, when node is installed ($NODE, or `node` on PATH),
 * that node prints the same trace today, so the recorded file cannot drift.  Without node it says so and the recorded
 * file stands; a $NODE that cannot be run is an error.
 *
 * The snippets are found from this header's path as the compiler saw it (the
 * project root when built by the Makefile), or under $AB_ROOT.
 */
#ifndef AB_ORDERING_H
#define AB_ORDERING_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static char trace_buf[4096];
static size_t trace_len;

static void trace_reset(void) {
  trace_len = 0;
  trace_buf[0] = '\0';
}

/* Appends n bytes of s; a trace that does not fit fails the test. */
static void trace_append(const char *s, size_t n) {
  assert_true(trace_len + n < sizeof(trace_buf));
  memcpy(trace_buf + trace_len, s, n);
  trace_len += n;
  trace_buf[trace_len] = '\0';
}

/* One more word on the current line, after a space (the snippet logs the
 * words joined by spaces at its end). */
static void trace(const char *label) {
  if (trace_len > 0 && trace_buf[trace_len - 1] != '\n') trace_append(" ", 1);
  trace_append(label, strlen(label));
}

static void trace_vword(const char *fmt, va_list ap) {
  char word[512];
  int n = vsnprintf(word, sizeof(word), fmt, ap);
  assert_true(n >= 0 && (size_t)n < sizeof(word));
  trace(word);
}

/* trace() of a printf-style word. */
static inline void tracef(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  trace_vword(fmt, ap);
  va_end(ap);
}

/* A printf-style word that ends the current line: one console.log line of
 * the snippet, when every step says its own. */
static inline void say(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  trace_vword(fmt, ap);
  va_end(ap);
  trace_append("\n", 1);
}

/* c/tests/ordering/NAME.EXT into path. */
static void ordering_path(const char *name, const char *ext, char *path, size_t cap) {
  const char *root = getenv("AB_ROOT");
  if (root != NULL && *root != '\0') {
    snprintf(path, cap, "%s/c/tests/ordering/%s%s", root, name, ext);
    return;
  }
  const char *here = __FILE__; /* .../c/tests/ordering.h */
  const char *slash = strrchr(here, '/');
  int dir = slash ? (int)(slash - here + 1) : 0;
  snprintf(path, cap, "%.*sordering/%s%s", dir, here, name, ext);
}

/* Reads a whole stream (a file, or a command's output) into buf. */
static void slurp(FILE *f, char *buf, size_t cap) {
  size_t n = fread(buf, 1, cap - 1, f);
  buf[n] = '\0';
}

/* The node to run: $NODE, else `node` when it is on PATH, else NULL. */
static const char *ordering_node(void) {
  const char *node = getenv("NODE");
  if (node != NULL && *node != '\0') return node;
  return system("command -v node >/dev/null 2>&1") == 0 ? "node" : NULL;
}

/* Asserts the trace equals NAME.out, and what node prints for NAME.js when
 * node is installed.  An open line of words is ended first. */
static void ordering_check(const char *name) {
  char path[1024], recorded[sizeof(trace_buf)], from_node[sizeof(trace_buf)];

  if (trace_len > 0 && trace_buf[trace_len - 1] != '\n') trace_append("\n", 1);

  ordering_path(name, ".out", path, sizeof(path));
  FILE *f = fopen(path, "r");
  if (f == NULL) fail_msg("cannot open %s (run from the project root or set AB_ROOT)", path);
  slurp(f, recorded, sizeof(recorded));
  fclose(f);
  assert_string_equal(trace_buf, recorded);

  const char *node = ordering_node();
  if (node == NULL) {
    print_message("node not found ($NODE or node on PATH): %s checked against %s only\n", name,
                  path);
    return;
  }
  char cmd[2200];
  ordering_path(name, ".js", path, sizeof(path));
  snprintf(cmd, sizeof(cmd), "'%s' '%s'", node, path);
  FILE *p = popen(cmd, "r");
  assert_non_null(p);
  slurp(p, from_node, sizeof(from_node));
  int status = pclose(p);
  if (status != 0)
    fail_msg("%s exited with %d (is $NODE a node?)", cmd, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  assert_string_equal(trace_buf, from_node);
}

#endif /* AB_ORDERING_H */
