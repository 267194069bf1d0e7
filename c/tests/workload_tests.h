/*
 * workload_tests.h -- what the tests of a workload (and of the harness) share:
 * parsing a driver's flags quietly, and running ab_main whole in a child with
 * its stdout and stderr collected.  Include after cmocka.h.
 */
#ifndef AB_WORKLOAD_TESTS_H
#define AB_WORKLOAD_TESTS_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "run_child.h"

/* ab_parse_args of w over "prog" and the NULL-terminated arguments after o,
 * with the usage errors sent to /dev/null. */
static int parse_quiet(const ab_workload_t *w, ab_opts_t *o, ...) {
  char *argv[32];
  int argc = 0;
  va_list ap;
  char *a;
  FILE *saved = stderr;
  argv[argc++] = "prog";
  va_start(ap, o);
  while ((a = va_arg(ap, char *)) != NULL && argc < 31) argv[argc++] = a;
  va_end(ap);
  argv[argc] = NULL;
  stderr = fopen("/dev/null", "w");
  int rc = ab_parse_args(argc, argv, w, o);
  fclose(stderr);
  stderr = saved;
  return rc;
}

/* w's setup (then its teardown) on a fresh loop with the backend and the
 * workload's flag values `flags` (NULL-terminated), its messages sent to
 * /dev/null: setup's exit code.  The loop must close. */
static inline int setup_quiet(const ab_workload_t *w, const char *backend, const char *const *flags) {
  ab_opts_t o;
  uv_loop_t loop;
  void *st = NULL;
  FILE *saved = stderr;
  memset(&o, 0, sizeof(o));
  o.prog = "prog";
  o.backend = backend;
  for (int k = 0; flags[k] != NULL && k < AB_FLAGS_MAX; k++) o.flags[k] = flags[k];
  assert_int_equal(uv_loop_init(&loop), 0);
  stderr = fopen("/dev/null", "w");
  int rc = w->setup(&o, &loop, &st);
  fclose(stderr);
  stderr = saved;
  if (rc == AB_EXIT_OK && w->teardown != NULL) w->teardown(st);
  uv_run(&loop, UV_RUN_DEFAULT);
  assert_int_equal(uv_loop_close(&loop), 0);
  return rc;
}

static const ab_workload_t *main_workload;
static char *main_argv[32];
static char main_out_path[64];

static void main_child(void) {
  int argc = 0;
  while (main_argv[argc] != NULL) argc++;
  /* stdout stays an open fd (libuv asserts its own fds are above 2) */
  if (freopen(main_out_path, "w", stdout) == NULL) _exit(99);
  _exit(ab_main(argc, main_argv, main_workload));
}

/* Runs ab_main(w) over "prog" and the NULL-terminated list `args` in a child:
 * its exit status and stderr in *c, its stdout in out (size bytes). */
static void main_in_child(const ab_workload_t *w, child_t *c, char *out, size_t size,
                          const char *const *args) {
  int n = 0;
  main_workload = w;
  main_argv[n++] = "prog";
  while (args[n - 1] != NULL && n < 31) {
    main_argv[n] = (char *)args[n - 1];
    n++;
  }
  main_argv[n] = NULL;
  strcpy(main_out_path, "/tmp/ab_test_main_XXXXXX");
  int fd = mkstemp(main_out_path);
  assert_true(fd >= 0);
  close(fd);
  run_in_child(main_child, c);
  FILE *f = fopen(main_out_path, "r");
  assert_non_null(f);
  out[fread(out, 1, size - 1, f)] = '\0';
  fclose(f);
  unlink(main_out_path);
}

#endif /* AB_WORKLOAD_TESTS_H */
