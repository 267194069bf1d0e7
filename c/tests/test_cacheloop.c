/*
 * test_cacheloop.c -- the cacheloop workload: every variant run whole through
 * ab_main counts N - 1 hits, one miss and N times the file's bytes; a file
 * that cannot be cached (missing, a directory, empty) is an environment
 * error before anything runs; and the fiber variant suspends for the miss
 * alone, every hit being a plain return.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cacheloop/workload.h"
#include "fiber.h"
#include "workload_tests.h"

typedef struct files_s {
  char dir[64];
  char file[96];    /* 7 bytes */
  char empty[96];
} files_t;

static int make_files(void **state) {
  files_t *t = calloc(1, sizeof(*t));
  strcpy(t->dir, "/tmp/ab_cacheloop_XXXXXX");
  assert_non_null(mkdtemp(t->dir));
  snprintf(t->file, sizeof(t->file), "%s/seven.txt", t->dir);
  snprintf(t->empty, sizeof(t->empty), "%s/empty.txt", t->dir);
  FILE *f = fopen(t->file, "w");
  fputs("seven!!", f);
  fclose(f);
  fclose(fopen(t->empty, "w"));
  *state = t;
  return 0;
}

static int remove_files(void **state) {
  files_t *t = *state;
  unlink(t->file);
  unlink(t->empty);
  rmdir(t->dir);
  free(t);
  return 0;
}

static void its_flag_and_backend_default_to_the_catalogs(void **state) {
  ab_opts_t o;
  (void)state;
  assert_int_equal(parse_quiet(&ab_cacheloop, &o, "--variant", "fiber-sequential", NULL), AB_EXIT_OK);
  assert_string_equal(o.flags[0], "fixtures/text.txt");
  assert_string_equal(o.backend, "node4");
  assert_int_equal(parse_quiet(&ab_cacheloop, &o, "--variant", "fiber-parallel", NULL), AB_EXIT_USAGE);
}

static void every_variant_hits_n_minus_one_times_and_misses_once(void **state) {
  files_t *t = *state;
  char name[64], out[1024];
  child_t c;
  int seen = 0;
  for (const ab_variant_t *v = ab_cacheloop.variants; v->style != NULL; v++, seen++) {
    const char *args[] = {"--variant", ab_variant_name(v, name, sizeof(name)),
                          "--iterations", "50", "--warmup", "3", "--file", t->file, NULL};
    main_in_child(&ab_cacheloop, &c, out, sizeof(out), args);
    if (!WIFEXITED(c.status) || WEXITSTATUS(c.status) != 0 ||
        strstr(out, "\"ok\":50,\"bytes\":350,") == NULL ||
        strstr(out, "\"hits\":49,\"misses\":1,\"file_bytes\":7,") == NULL)
      fail_msg("%s: status %d: %s%s", name, c.status, c.err, out);
  }
  assert_int_equal(seen, 7);
}

static void a_file_that_cannot_be_cached_is_an_environment_error(void **state) {
  files_t *t = *state;
  char out[1024], missing[128];
  child_t c;
  snprintf(missing, sizeof(missing), "%s/missing.txt", t->dir);
  const char *paths[] = {missing, t->dir, t->empty};
  const char *words[] = {"No such file", "is a directory", "is empty"};
  for (int k = 0; k < 3; k++) {
    const char *args[] = {"--variant", "fiber-sequential", "--file", paths[k], NULL};
    main_in_child(&ab_cacheloop, &c, out, sizeof(out), args);
    assert_true(WIFEXITED(c.status));
    assert_int_equal(WEXITSTATUS(c.status), AB_EXIT_ENV);
    assert_string_equal(out, "");
    if (strstr(c.err, words[k]) == NULL)
      fail_msg("%s: %s", paths[k], c.err);
  }
}

/* One pass of `fn` over n loads in this process; the loop closes clean. */
static void one_pass(files_t *t, const char *variant, ab_variant_fn fn, long n) {
  uv_loop_t loop;
  ab_opts_t o;
  ab_run_t run;
  void *st = NULL;
  memset(&o, 0, sizeof(o));
  o.prog = "prog";
  o.backend = "node4";
  o.variant = variant;
  o.iterations = n;
  o.flags[0] = t->file;
  assert_int_equal(uv_loop_init(&loop), 0);
  assert_int_equal(ab_cacheloop.setup(&o, &loop, &st), AB_EXIT_OK);
  memset(&run, 0, sizeof(run));
  run.loop = &loop;
  run.opts = &o;
  run.workload = &ab_cacheloop;
  run.state = st;
  run.n = n;
  run.concurrency = 1;
  run.failed_at = -1;
  assert_int_equal(fn(&run), 0);
  assert_int_equal(run.ok, n);
  assert_int_equal(((cl_state_t *)st)->hits, n - 1);
  assert_int_equal(((cl_state_t *)st)->misses, 1);
  ab_cacheloop.teardown(st);
  uv_run(&loop, UV_RUN_DEFAULT);
  assert_int_equal(uv_loop_close(&loop), 0);
}

static void the_fiber_suspends_for_the_miss_alone(void **state) {
  unsigned long before = ab_fiber_suspensions();
  one_pass(*state, "fiber-sequential", cl_fiber, 1000);
  assert_int_equal(ab_fiber_suspensions() - before, 1);
}

static void await_is_no_fiber_and_every_style_counts_alike(void **state) {
  unsigned long before = ab_fiber_suspensions();
  one_pass(*state, "await-sequential", cl_await, 300);
  one_pass(*state, "callback-trampoline-sequential", cl_callback_trampoline, 300);
  one_pass(*state, "callback-nexttick-sequential", cl_callback_nexttick, 300);
  assert_int_equal(ab_fiber_suspensions(), before);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(its_flag_and_backend_default_to_the_catalogs),
    cmocka_unit_test_setup_teardown(every_variant_hits_n_minus_one_times_and_misses_once, make_files, remove_files),
    cmocka_unit_test_setup_teardown(a_file_that_cannot_be_cached_is_an_environment_error, make_files, remove_files),
    cmocka_unit_test_setup_teardown(the_fiber_suspends_for_the_miss_alone, make_files, remove_files),
    cmocka_unit_test_setup_teardown(await_is_no_fiber_and_every_style_counts_alike, make_files, remove_files),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
