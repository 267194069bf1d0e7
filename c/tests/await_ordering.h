/*
 * await_ordering.h -- shared by test_async.c and test_stackless.c: a trace of
 * labels in the order code ran, and the check against Node.
 *
 * Each ordering scenario is a JavaScript snippet in c/tests/ordering/ that
 * prints its labels on one line, space separated.  A test builds the same
 * trace in C and asserts it equals the line Node printed when the snippet was
 * written (kept in the test), and, when node is installed ($NODE or `node` on
 * PATH), runs the snippet and asserts Node prints the C trace today as well.
 * Tests run from the project root (make test-c does).
 */
#ifndef AB_AWAIT_ORDERING_H
#define AB_AWAIT_ORDERING_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char trace_buf[512];

static void trace_reset(void) { trace_buf[0] = '\0'; }

static void trace(const char *label) {
  if (trace_buf[0])
    strncat(trace_buf, " ", sizeof(trace_buf) - strlen(trace_buf) - 1);
  strncat(trace_buf, label, sizeof(trace_buf) - strlen(trace_buf) - 1);
}

/* Runs c/tests/ordering/<snippet> with node into out; -1 without node. */
static int node_output(const char *snippet, char *out, size_t cap) {
  const char *node = getenv("NODE");
  if (!node || !*node)
    node = "node";
  char cmd[512];
  snprintf(cmd, sizeof(cmd), "command -v '%s' >/dev/null 2>&1 || exit 99; '%s' c/tests/ordering/%s",
           node, node, snippet);
  FILE *f = popen(cmd, "r");
  if (!f)
    return -1;
  size_t n = fread(out, 1, cap - 1, f);
  out[n] = '\0';
  int status = pclose(f);
  if (status != 0 && n == 0)
    return -1; /* no node here (or it could not run): the recorded line stands */
  while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == '\r'))
    out[--n] = '\0';
  return 0;
}

/* Asserts the C trace equals what Node printed (recorded), and what Node
 * prints now when it is installed. */
#define assert_matches_node(snippet, recorded)                     \
  do {                                                             \
    assert_string_equal(trace_buf, (recorded));                    \
    char node_line_[512];                                          \
    if (node_output((snippet), node_line_, sizeof(node_line_)) == 0) \
      assert_string_equal(node_line_, trace_buf);                  \
  } while (0)

#endif /* AB_AWAIT_ORDERING_H */
