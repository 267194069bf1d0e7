/*
 * test_readfile.c -- the readfile workload's part of the harness contract:
 * the flags and their defaults, the fixture check (exit 3), the check of one
 * read and its one-line messages, and every variant run whole through
 * ab_main.  Its backends (node4 among them) are tested in test_backends.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "readfile/workload.h"
#include "read_files.h"
#include "workload_tests.h"

static files_t files;

static int setup(void **state) {
  *state = &files;
  return files_make(&files, "readfile");
}

static int teardown(void **state) {
  (void)state;
  files_remove(&files);
  return 0;
}

/* ---- the workload ---------------------------------------------------------- */

#define parse(o, ...) parse_quiet(&ab_readfile, o, __VA_ARGS__)

static void defaults_are_the_contracts(void **state) {
  ab_opts_t o;
  (void)state;
  assert_int_equal(parse(&o, "--variant", "callback-parallel", NULL), AB_EXIT_OK);
  assert_string_equal(o.flags[0], "fixtures/text.txt");
  assert_string_equal(o.flags[1], "Hello, world");
  assert_string_equal(o.backend, "node4");
  assert_int_equal(o.iterations, 10000);
}

static void its_flags_are_read(void **state) {
  ab_opts_t o;
  (void)state;
  assert_int_equal(parse(&o, "--variant", "promise-counter-parallel", "--file", "/tmp/x",
                         "--expect", "abc", "--backend", "node4", NULL),
                   AB_EXIT_OK);
  assert_string_equal(o.flags[0], "/tmp/x");
  assert_string_equal(o.flags[1], "abc");
  assert_int_equal(parse(&o, "--variant", "callback-parallel", "--backend", "nope", NULL),
                   AB_EXIT_USAGE);
  assert_int_equal(parse(&o, "--variant", "callback-parallel", "--file", NULL), AB_EXIT_USAGE);
}

/* A run of n reads as the check sees it, expecting "Hello, world". */
static ab_readfile_t check_state = {&ab_backend_node4, NULL, NULL, "Hello, world", 12};

static void new_run(ab_run_t *run, long n) {
  memset(run, 0, sizeof(*run));
  run->workload = &ab_readfile;
  run->state = &check_state;
  run->n = n;
  run->failed_at = -1;
}

/* ab_run_check of a read of iteration i that returned `buf` (nread bytes, or
 * a libuv error). */
static int check(ab_run_t *run, long i, const char *buf, ssize_t nread) {
  ab_readfile_op_t r;
  memset(&r, 0, sizeof(r));
  r.req.buf = buf;
  r.req.result = nread;
  return ab_run_check(run, i, &r);
}

static void check_counts_verified_completions(void **state) {
  ab_run_t run;
  (void)state;
  new_run(&run, 2);
  ab_run_begin(&run);
  assert_int_equal(check(&run, 0, "Hello, world", 12), 0);
  assert_int_equal(run.ok, 1);
  assert_false(ab_run_done(&run));
  assert_int_equal(run.t_end_ns, 0);
  assert_int_equal(check(&run, 1, "Hello, world", 12), 0);
  assert_true(ab_run_done(&run));
  assert_int_equal(run.bytes, 24);
  assert_true(run.t_end_ns >= run.t_start_ns);
  assert_false(ab_run_failed(&run));
}

static void check_rejects_wrong_content(void **state) {
  ab_run_t run;
  (void)state;
  new_run(&run, 5);
  assert_int_equal(check(&run, 3, "Hello, World", 12), -1);
  assert_int_equal(run.failed_at, 3);
  assert_non_null(strstr(run.error, "expected 12 bytes 'Hello, world'"));
  assert_int_equal(run.ok, 0);
  /* a short read, an empty read and an error are failures too, but the first wins */
  assert_int_equal(check(&run, 4, "Hello", 5), -1);
  assert_int_equal(check(&run, 4, "", 0), -1);
  assert_int_equal(check(&run, 4, NULL, UV_ENOENT), -1);
  assert_int_equal(run.failed_at, 3);
  assert_int_equal(run.bytes, 0);
}

static void check_names_the_error(void **state) {
  ab_run_t run;
  (void)state;
  new_run(&run, 1);
  assert_int_equal(check(&run, 0, NULL, UV_EISDIR), -1);
  assert_non_null(strstr(run.error, "EISDIR"));
}

static void failure_is_one_line(void **state) {
  ab_run_t run;
  (void)state;
  new_run(&run, 1);
  /* a fixture written with echo: the newline is escaped, not printed */
  assert_int_equal(check(&run, 0, "Hello, world\n", 13), -1);
  assert_null(strchr(run.error, '\n'));
  assert_non_null(strstr(run.error, "read 13 bytes 'Hello, world\\n'"));
  new_run(&run, 1);
  assert_int_equal(check(&run, 0, "\0\0\r\t\\x", 6), -1);
  assert_non_null(strstr(run.error, "'\\x00\\x00\\r\\t\\\\x'"));
  new_run(&run, 1);
  char big[100];
  memset(big, 'a', sizeof(big));
  assert_int_equal(check(&run, 0, big, (ssize_t)sizeof(big)), -1);
  assert_non_null(strstr(run.error, "read 100 bytes 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...'"));
}

/* The workload's setup on `path`: its exit code, stderr in c->err. */
static const char *setup_path;

static void run_setup(void) {
  ab_opts_t o;
  uv_loop_t loop;
  void *st = NULL;
  memset(&o, 0, sizeof(o));
  o.prog = "prog";
  o.backend = "node4";
  o.flags[0] = setup_path;
  o.flags[1] = "Hello, world";
  if (uv_loop_init(&loop) != 0) _exit(99);
  int rc = ab_readfile.setup(&o, &loop, &st);
  if (rc == AB_EXIT_OK) ab_readfile.teardown(st);
  uv_run(&loop, UV_RUN_DEFAULT);
  if (uv_loop_close(&loop) != 0) _exit(98);
  _exit(rc);
}

static void setup_refuses_what_cannot_be_read_with_exit_3(void **state) {
  files_t *t = *state;
  char fifo[160];
  child_t c;
  setup_path = t->small;
  run_in_child(run_setup, &c);
  assert_int_equal(WEXITSTATUS(c.status), AB_EXIT_OK);
  assert_string_equal(c.err, "");
  setup_path = t->missing;
  run_in_child(run_setup, &c);
  assert_int_equal(WEXITSTATUS(c.status), AB_EXIT_ENV);
  assert_non_null(strstr(c.err, "missing.txt': No such file"));
  setup_path = t->dir;
  run_in_child(run_setup, &c);
  assert_int_equal(WEXITSTATUS(c.status), AB_EXIT_ENV);
  assert_non_null(strstr(c.err, "is a directory; --file must name a regular file"));
  snprintf(fifo, sizeof(fifo), "%s/fifo", t->dir);
  assert_int_equal(mkfifo(fifo, 0600), 0);
  setup_path = fifo;
  run_in_child(run_setup, &c); /* would hang on open() if it tried */
  unlink(fifo);
  assert_int_equal(WEXITSTATUS(c.status), AB_EXIT_ENV);
  assert_non_null(strstr(c.err, "is a FIFO; --file must name a regular file"));
}

/* Every variant through ab_main at small N: exit 0, its id in the line. */
static void every_variant_verifies_every_read(void **state) {
  files_t *t = *state;
  char name[64], id[128], out[1024];
  child_t c;
  for (const ab_variant_t *v = ab_readfile.variants; v->style != NULL; v++) {
    const char *args[] = {"--variant", ab_variant_name(v, name, sizeof(name)),
                          "--iterations", "50", "--warmup", "2", "--file", t->small,
                          "--concurrency", "4", NULL};
    main_in_child(&ab_readfile, &c, out, sizeof(out), args);
    snprintf(id, sizeof(id), "\"variant\":\"readfile/c/%s@node4\",", name);
    if (!WIFEXITED(c.status) || WEXITSTATUS(c.status) != 0 || strstr(out, id) == NULL)
      fail_msg("%s: status %d: %s%s", name, c.status, c.err, out);
  }
}

static void a_wrong_read_fails_every_variant_with_exit_1(void **state) {
  files_t *t = *state;
  char name[64], out[1024];
  child_t c;
  for (const ab_variant_t *v = ab_readfile.variants; v->style != NULL; v++) {
    if (v->test_only) continue; /* does not wait for its reads */
    const char *args[] = {"--variant", ab_variant_name(v, name, sizeof(name)),
                          "--iterations", "20", "--file", t->small, "--expect", "nope", NULL};
    main_in_child(&ab_readfile, &c, out, sizeof(out), args);
    if (!WIFEXITED(c.status) || WEXITSTATUS(c.status) != AB_EXIT_VERIFY || out[0] != '\0'
        || strstr(c.err, "prog: iteration ") != c.err
        || strstr(c.err, "read 12 bytes 'Hello, world', expected 4 bytes 'nope'\n") == NULL)
      fail_msg("%s: status %d: %s", name, c.status, c.err);
  }
}

int main(void) {

  const struct CMUnitTest tests[] = {
    cmocka_unit_test(defaults_are_the_contracts),
    cmocka_unit_test(its_flags_are_read),
    cmocka_unit_test(check_counts_verified_completions),
    cmocka_unit_test(check_rejects_wrong_content),
    cmocka_unit_test(check_names_the_error),
    cmocka_unit_test(failure_is_one_line),
    cmocka_unit_test(setup_refuses_what_cannot_be_read_with_exit_3),
    cmocka_unit_test(every_variant_verifies_every_read),
    cmocka_unit_test(a_wrong_read_fails_every_variant_with_exit_1),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
