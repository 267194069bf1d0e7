/*
 * test_harness.c -- the program contract: flag parsing and its usage errors,
 * verification of completions, the first failure winning.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "harness.h"
#include "run_child.h"

static int dummy(ab_run_t *run) { (void)run; return 0; }

static const ab_variant_t variants[] = {
  {"callback-sequential", "callback", "sequential", dummy, NULL, 0},
  {"callback-parallel", "callback", "parallel", dummy, NULL, 0},
  {NULL, NULL, NULL, NULL, NULL, 0}
};

/* Parses a NULL-terminated list of arguments after the program name. */
static int parse(ab_opts_t *o, ...) {
  char *argv[32];
  int argc = 0;
  va_list ap;
  char *a;
  int rc;
  FILE *saved = stderr;
  argv[argc++] = "prog";
  va_start(ap, o);
  while ((a = va_arg(ap, char *)) != NULL && argc < 31) argv[argc++] = a;
  va_end(ap);
  argv[argc] = NULL;
  /* Usage errors print to stderr; keep the test output readable. */
  stderr = fopen("/dev/null", "w");
  rc = ab_parse_args(argc, argv, "readfile", variants, o);
  fclose(stderr);
  stderr = saved;
  return rc;
}

/* Every field of the parsed options equals `want`'s. */
static void assert_opts(const ab_opts_t *got, ab_opts_t want) {
  assert_int_equal(got->iterations, want.iterations);
  assert_int_equal(got->warmup, want.warmup);
  assert_int_equal(got->concurrency, want.concurrency);
  assert_string_equal(got->file, want.file);
  assert_string_equal(got->expect, want.expect);
  assert_int_equal(got->expect_len, want.expect_len);
  assert_string_equal(got->variant, want.variant);
  assert_string_equal(got->backend, want.backend);
}

static void defaults_are_the_contracts(void **state) {
  ab_opts_t o;
  (void)state;
  assert_int_equal(parse(&o, "--variant", "callback-parallel", NULL), AB_EXIT_OK);
  assert_opts(&o, (ab_opts_t){.iterations = 10000, .warmup = 0, .concurrency = 0,
                              .file = "fixtures/text.txt", .expect = "Hello, world",
                              .expect_len = 12, .variant = "callback-parallel",
                              .backend = "node4"});
}

static void every_flag_is_read(void **state) {
  ab_opts_t o;
  (void)state;
  assert_int_equal(parse(&o, "--variant", "callback-sequential", "--iterations", "7",
                         "--warmup", "3", "--concurrency", "5", "--file", "/tmp/x",
                         "--expect", "abc", "--backend", "node4", NULL),
                   AB_EXIT_OK);
  assert_opts(&o, (ab_opts_t){.iterations = 7, .warmup = 3, .concurrency = 5,
                              .file = "/tmp/x", .expect = "abc", .expect_len = 3,
                              .variant = "callback-sequential", .backend = "node4"});
}

static void bad_numbers_are_usage_errors(void **state) {
  ab_opts_t o;
  (void)state;
  assert_int_equal(parse(&o, "--variant", "callback-parallel", "--iterations", "0", NULL), AB_EXIT_USAGE);
  assert_int_equal(parse(&o, "--variant", "callback-parallel", "--iterations", "-5", NULL), AB_EXIT_USAGE);
  assert_int_equal(parse(&o, "--variant", "callback-parallel", "--iterations", "abc", NULL), AB_EXIT_USAGE);
  assert_int_equal(parse(&o, "--variant", "callback-parallel", "--iterations", "12x", NULL), AB_EXIT_USAGE);
  assert_int_equal(parse(&o, "--variant", "callback-parallel", "--iterations", "", NULL), AB_EXIT_USAGE);
  assert_int_equal(parse(&o, "--variant", "callback-parallel", "--iterations",
                         "99999999999999999999999", NULL), AB_EXIT_USAGE);
  assert_int_equal(parse(&o, "--variant", "callback-parallel", "--warmup", "-1", NULL), AB_EXIT_USAGE);
  assert_int_equal(parse(&o, "--variant", "callback-parallel", "--concurrency", "-2", NULL), AB_EXIT_USAGE);
  assert_int_equal(parse(&o, "--variant", "callback-parallel", "--warmup", "0", NULL), AB_EXIT_OK);
}

static void unknown_names_are_usage_errors(void **state) {
  ab_opts_t o;
  (void)state;
  assert_int_equal(parse(&o, "--variant", "nope-parallel", NULL), AB_EXIT_USAGE);
  assert_int_equal(parse(&o, NULL), AB_EXIT_USAGE); /* --variant missing */
  assert_int_equal(parse(&o, "--variant", "callback-parallel", "--bogus", "1", NULL), AB_EXIT_USAGE);
  assert_int_equal(parse(&o, "--variant", "callback-parallel", "--backend", "nope", NULL), AB_EXIT_USAGE);
  assert_int_equal(parse(&o, "--variant", "callback-parallel", "stray", NULL), AB_EXIT_USAGE);
  assert_int_equal(parse(&o, "--variant", "callback-parallel", "--iterations", NULL), AB_EXIT_USAGE);
}

static void help_asks_to_exit_cleanly(void **state) {
  ab_opts_t o;
  FILE *saved = stdout;
  int rc;
  (void)state;
  stdout = fopen("/dev/null", "w");
  rc = parse(&o, "--help", NULL);
  fclose(stdout);
  stdout = saved;
  assert_int_equal(rc, -1);
}

static void new_run(ab_run_t *run, ab_opts_t *o, long n) {
  memset(o, 0, sizeof(*o));
  o->expect = "Hello, world";
  o->expect_len = 12;
  memset(run, 0, sizeof(*run));
  run->opts = o;
  run->n = n;
  run->failed_at = -1;
}

static void check_counts_verified_completions(void **state) {
  ab_opts_t o;
  ab_run_t run;
  (void)state;
  new_run(&run, &o, 2);
  ab_run_begin(&run);
  assert_int_equal(ab_run_check(&run, 0, "Hello, world", 12), 0);
  assert_int_equal(run.ok, 1);
  assert_false(ab_run_done(&run));
  assert_int_equal(run.t_end_ns, 0);
  assert_int_equal(ab_run_check(&run, 1, "Hello, world", 12), 0);
  assert_true(ab_run_done(&run));
  assert_int_equal(run.bytes, 24);
  assert_true(run.t_end_ns >= run.t_start_ns);
  assert_false(ab_run_failed(&run));
}

static void check_rejects_wrong_content(void **state) {
  ab_opts_t o;
  ab_run_t run;
  (void)state;
  new_run(&run, &o, 5);
  assert_int_equal(ab_run_check(&run, 3, "Hello, World", 12), -1);
  assert_int_equal(run.failed_at, 3);
  assert_non_null(strstr(run.error, "expected 12 bytes 'Hello, world'"));
  assert_int_equal(run.ok, 0);
  /* a short read, an empty read and an error are failures too, but the first wins */
  assert_int_equal(ab_run_check(&run, 4, "Hello", 5), -1);
  assert_int_equal(ab_run_check(&run, 4, "", 0), -1);
  assert_int_equal(ab_run_check(&run, 4, NULL, UV_ENOENT), -1);
  assert_int_equal(run.failed_at, 3);
  assert_int_equal(run.bytes, 0);
}

static void check_names_the_error(void **state) {
  ab_opts_t o;
  ab_run_t run;
  (void)state;
  new_run(&run, &o, 1);
  assert_int_equal(ab_run_check(&run, 0, NULL, UV_EISDIR), -1);
  assert_non_null(strstr(run.error, "EISDIR"));
}

static void failure_is_one_line(void **state) {
  ab_opts_t o;
  ab_run_t run;
  (void)state;
  new_run(&run, &o, 1);
  /* a fixture written with echo: the newline is escaped, not printed */
  assert_int_equal(ab_run_check(&run, 0, "Hello, world\n", 13), -1);
  assert_null(strchr(run.error, '\n'));
  assert_non_null(strstr(run.error, "read 13 bytes 'Hello, world\\n'"));
  new_run(&run, &o, 1);
  assert_int_equal(ab_run_check(&run, 0, "\0\0\r\t\\x", 6), -1);
  assert_non_null(strstr(run.error, "'\\x00\\x00\\r\\t\\\\x'"));
  new_run(&run, &o, 1);
  char big[100];
  memset(big, 'a', sizeof(big));
  assert_int_equal(ab_run_check(&run, 0, big, (ssize_t)sizeof(big)), -1);
  assert_non_null(strstr(run.error, "read 100 bytes 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...'"));
}

/* ab_main's exit code for a pass that ran out of memory (3) and for one whose
 * read was wrong (1), each with the one line on stderr. */
static int fails_oom(ab_run_t *run) {
  ab_run_oom(run, 2, "the test's records");
  ab_run_fail(run, 3, "a later failure does not win");
  return -1;
}

static int fails_verify(ab_run_t *run) {
  ab_run_check(run, 0, "nope", 4);
  return -1;
}

static const ab_variant_t failing[] = {
  {"oom-sequential", "oom", "sequential", fails_oom, NULL, 0},
  {"verify-sequential", "verify", "sequential", fails_verify, NULL, 0},
  {NULL, NULL, NULL, NULL, NULL, 0}
};

static char fixture[] = "/tmp/ab_test_harness_XXXXXX";
static const char *main_variant;

static void run_main(void) {
  char *argv[] = {"prog", "--variant", (char *)main_variant, "--file", fixture, NULL};
  /* stdout stays an open fd (libuv asserts its own fds are above 2) */
  if (freopen("/dev/null", "w", stdout) == NULL) _exit(99);
  _exit(ab_main(5, argv, "readfile", failing));
}

static void out_of_memory_exits_3(void **state) {
  child_t c;
  (void)state;
  int fd = mkstemp(fixture);
  assert_true(fd >= 0);
  close(fd);
  main_variant = "oom-sequential";
  run_in_child(run_main, &c);
  assert_true(WIFEXITED(c.status));
  assert_int_equal(WEXITSTATUS(c.status), AB_EXIT_ENV);
  assert_string_equal(c.err, "prog: iteration 2: out of memory for the test's records\n");
  main_variant = "verify-sequential";
  run_in_child(run_main, &c);
  assert_true(WIFEXITED(c.status));
  assert_int_equal(WEXITSTATUS(c.status), AB_EXIT_VERIFY);
  assert_non_null(strstr(c.err, "prog: iteration 0: read 4 bytes 'nope'"));
  unlink(fixture);
}

static void slots_follow_the_mode(void **state) {
  ab_opts_t o;
  ab_run_t run;
  (void)state;
  new_run(&run, &o, 100);
  run.concurrency = 1;
  assert_int_equal(ab_run_slots(&run), 1);
  run.concurrency = 0;
  assert_int_equal(ab_run_slots(&run), 100);
  run.concurrency = 64;
  assert_int_equal(ab_run_slots(&run), 64);
  run.concurrency = 500;
  assert_int_equal(ab_run_slots(&run), 100);
}

static void clock_is_monotonic(void **state) {
  uint64_t a = ab_now_ns(), b = ab_now_ns();
  (void)state;
  assert_true(b >= a);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(defaults_are_the_contracts),
    cmocka_unit_test(every_flag_is_read),
    cmocka_unit_test(bad_numbers_are_usage_errors),
    cmocka_unit_test(unknown_names_are_usage_errors),
    cmocka_unit_test(help_asks_to_exit_cleanly),
    cmocka_unit_test(check_counts_verified_completions),
    cmocka_unit_test(check_rejects_wrong_content),
    cmocka_unit_test(check_names_the_error),
    cmocka_unit_test(failure_is_one_line),
    cmocka_unit_test(out_of_memory_exits_3),
    cmocka_unit_test(slots_follow_the_mode),
    cmocka_unit_test(clock_is_monotonic),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
