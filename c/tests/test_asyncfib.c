/*
 * test_asyncfib.c -- the asyncfib workload: every variant run whole through
 * ab_main makes the plain computation's calls and results at the seed's
 * sizes and at others; an M out of its bounds is a usage error; and the
 * fiber variants never suspend (nothing is pending).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "asyncfib/workload.h"
#include "fiber.h"
#include "workload_tests.h"

/* Runs every variant with args after --variant NAME; each line must end in
 * the calls and checksum of its shape. */
static void every_variant_ends(const char *const *extra, const char *recursive,
                               const char *iterative) {
  char name[64], out[1024];
  child_t c;
  int seen = 0;
  for (const ab_variant_t *v = ab_asyncfib.variants; v->style != NULL; v++, seen++) {
    const char *args[16] = {"--variant", ab_variant_name(v, name, sizeof(name))};
    int k = 2;
    for (; *extra != NULL && k < 15; extra++) args[k++] = *extra;
    args[k] = NULL;
    extra -= k - 2;
    main_in_child(&ab_asyncfib, &c, out, sizeof(out), args);
    const char *want = strcmp(v->shape, "recursive") == 0 ? recursive : iterative;
    char *end = strstr(out, want);
    /* The workload's fields come right after runtime; the harness's per-operation
     * counts (threadpool_trips, ...) follow them. */
    if (!WIFEXITED(c.status) || WEXITSTATUS(c.status) != 0 || end == NULL ||
        strncmp(end + strlen(want), "\"threadpool_trips\":", 19) != 0)
      fail_msg("%s: status %d: %s%s", name, c.status, c.err, out);
  }
  assert_int_equal(seen, 10);
}

static void its_flags_default_to_the_seeds_sizes(void **state) {
  ab_opts_t o;
  (void)state;
  assert_int_equal(parse_quiet(&ab_asyncfib, &o, "--variant", "await-recursive-sequential", NULL), AB_EXIT_OK);
  assert_string_equal(o.flags[0], "10");
  assert_string_equal(o.flags[1], "10"); /* the seed's fibonacci_20(i) for i < 10 */
  assert_string_equal(o.backend, "none");
  assert_int_equal(parse_quiet(&ab_asyncfib, &o, "--variant", "await-sequential", NULL), AB_EXIT_USAGE);
}

static void at_the_seeds_sizes_every_variant_makes_the_plain_calls(void **state) {
  (void)state;
  const char *args[] = {"--iterations", "5", "--warmup", "1", NULL};
  every_variant_ends(args, "\"calls\":1380,\"checksum\":715,", "\"calls\":50,\"checksum\":715,");
}

static void other_sizes_change_calls_and_checksum_alike(void **state) {
  (void)state;
  const char *args[] = {"--iterations", "2", "--max-recursive", "15", "--max-iterative", "78", NULL};
  every_variant_ends(args, "\"calls\":6354,\"checksum\":3192,",
                     "\"calls\":156,\"checksum\":46833456696935368,");
}

static void an_m_out_of_bounds_is_a_usage_error(void **state) {
  (void)state;
  char out[1024];
  child_t c;
  const char *bad[][2] = {{"--max-recursive", "0"}, {"--max-recursive", "41"},
                          {"--max-iterative", "79"}, {"--max-iterative", "x"},
                          {"--max-recursive", "-1"}, {"--max-iterative", "7e1"}};
  for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
    const char *args[] = {"--variant", "sync-recursive-sequential", bad[k][0], bad[k][1], NULL};
    main_in_child(&ab_asyncfib, &c, out, sizeof(out), args);
    assert_true(WIFEXITED(c.status));
    assert_int_equal(WEXITSTATUS(c.status), AB_EXIT_USAGE);
    assert_string_equal(out, "");
    if (strstr(c.err, "must be an integer from 1 to") == NULL)
      fail_msg("%s %s: %s", bad[k][0], bad[k][1], c.err);
  }
}

static void the_fiber_variants_never_suspend(void **state) {
  (void)state;
  uv_loop_t loop;
  ab_opts_t o;
  ab_run_t run;
  void *st = NULL;
  ab_variant_fn fns[] = {af_fiber_recursive, af_fiber_iterative};
  memset(&o, 0, sizeof(o));
  o.prog = "prog";
  o.backend = "none";
  o.flags[0] = "10";
  o.flags[1] = "20";
  assert_int_equal(uv_loop_init(&loop), 0);
  assert_int_equal(ab_asyncfib.setup(&o, &loop, &st), AB_EXIT_OK);
  unsigned long before = ab_fiber_suspensions();
  for (int k = 0; k < 2; k++) {
    memset(&run, 0, sizeof(run));
    run.loop = &loop;
    run.opts = &o;
    run.workload = &ab_asyncfib;
    run.state = st;
    run.n = 50;
    run.concurrency = 1;
    run.failed_at = -1;
    assert_int_equal(fns[k](&run), 0);
    assert_int_equal(run.ok, 50);
  }
  assert_int_equal(ab_fiber_suspensions(), before);
  assert_int_equal(uv_loop_close(&loop), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(its_flags_default_to_the_seeds_sizes),
    cmocka_unit_test(at_the_seeds_sizes_every_variant_makes_the_plain_calls),
    cmocka_unit_test(other_sizes_change_calls_and_checksum_alike),
    cmocka_unit_test(an_m_out_of_bounds_is_a_usage_error),
    cmocka_unit_test(the_fiber_variants_never_suspend),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
