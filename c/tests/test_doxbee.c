/*
 * test_doxbee.c -- doxbee through the workload interface: its flags and
 * their bounds, the fake results (the lookup misses), the check of an
 * upload (committed once, every result checked), and every variant run
 * whole through ab_main in both shapes, on a timer and on the next turn.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "doxbee/workload.h"
#include "workload_tests.h"

static int setup_with(const char *delay, const char *queries) {
  return setup_quiet(&ab_doxbee, "sleepq", (const char *const[]){delay, queries, NULL});
}

static void flags_are_digits_within_bounds(void **state) {
  (void)state;
  assert_int_equal(setup_with("1", "25"), AB_EXIT_OK);
  assert_int_equal(setup_with("0", "1"), AB_EXIT_OK);
  assert_int_equal(setup_with("-1", "25"), AB_EXIT_USAGE);
  assert_int_equal(setup_with("1x", "25"), AB_EXIT_USAGE);
  assert_int_equal(setup_with("", "25"), AB_EXIT_USAGE);
  assert_int_equal(setup_with("86400001", "25"), AB_EXIT_USAGE);
  assert_int_equal(setup_with("1", "0"), AB_EXIT_USAGE);
  assert_int_equal(setup_with("1", "+3"), AB_EXIT_USAGE);
}

static void results_differ_and_the_lookup_misses(void **state) {
  (void)state;
  assert_int_equal(ab_doxbee_expected(7, AB_DOXBEE_LOOKUP, 0), 0);
  assert_true(ab_doxbee_expected(7, AB_DOXBEE_PUT, 0) > 0);
  assert_true(ab_doxbee_expected(7, AB_DOXBEE_PUT, 0) != ab_doxbee_expected(8, AB_DOXBEE_PUT, 0));
  assert_true(ab_doxbee_expected(7, AB_DOXBEE_FILEVERSION, 1)
              != ab_doxbee_expected(7, AB_DOXBEE_FILEVERSION, 2));
  assert_true(ab_doxbee_expected(7, AB_DOXBEE_COMMIT, 0) != ab_doxbee_expected(7, AB_DOXBEE_UPDATE, 0));
}

static void an_upload_verifies_only_committed_once_with_every_result(void **state) {
  ab_doxbee_t st;
  ab_run_t run;
  ab_doxbee_up_t up;
  (void)state;
  memset(&st, 0, sizeof(st));
  st.ops_per_upload = AB_DOXBEE_STEPS;
  memset(&run, 0, sizeof(run));
  run.workload = &ab_doxbee;
  run.state = &st;
  run.n = 3;
  run.failed_at = -1;
  memset(&up, 0, sizeof(up));
  up.commits = 1;
  up.checked = AB_DOXBEE_STEPS;
  assert_int_equal(ab_run_check(&run, 0, &up), 0);
  assert_int_equal(run.ok, 1);
  up.commits = 2;
  assert_int_equal(ab_run_check(&run, 1, &up), -1);
  assert_string_equal(run.error, "the upload committed 2 times, expected once");
  run.failed_at = -1;
  up.commits = 1;
  up.checked = AB_DOXBEE_STEPS - 1;
  assert_int_equal(ab_run_check(&run, 2, &up), -1);
  assert_string_equal(run.error, "7 results of the upload were checked, expected 8");
}

static void every_variant_verifies_every_upload(void **state) {
  char name[64], id[160], out[2048], extra[128];
  child_t c;
  int n = 0;
  (void)state;
  for (const char *delay = "0"; delay != NULL; delay = strcmp(delay, "0") == 0 ? "1" : NULL)
    for (const ab_variant_t *v = ab_doxbee.variants; v->style != NULL; v++, n++) {
      const char *args[] = {"--variant", ab_variant_name(v, name, sizeof(name)), "--iterations",
                            "150", "--warmup", "3", "--delay-ms", delay, "--queries", "4", NULL};
      main_in_child(&ab_doxbee, &c, out, sizeof(out), args);
      snprintf(id, sizeof(id), "\"variant\":\"doxbee/c/%s@sleepq\",\"iterations\":150,", name);
      int par = strcmp(v->shape, "parallel") == 0;
      snprintf(extra, sizeof(extra), "\"commits\":150,\"checked\":%d,\"ops_per_upload\":%d,",
               150 * (par ? 5 : 8), par ? 5 : 8);
      if (!WIFEXITED(c.status) || WEXITSTATUS(c.status) != 0 || strstr(out, id) == NULL
          || strstr(out, "\"ok\":150,") == NULL || strstr(out, extra) == NULL)
        fail_msg("%s (delay %s): status %d: %s%s", name, delay, c.status, c.err, out);
    }
  assert_int_equal(n, 20); /* 5 styles x 2 shapes, twice */
}

/* doxbee whose line also says the most operations in flight at once. */
static void json_with_most_waiting(FILE *out, const ab_run_t *run) {
  ab_doxbee.json(out, run);
  fprintf(out, ",\"most_waiting\":%zu", ((const ab_doxbee_t *)run->state)->most_waiting);
}

static void one_upload_joins_its_put_and_lookup_in_every_style(void **state) {
  char name[64], out[2048], want[64];
  child_t c;
  ab_workload_t w = ab_doxbee;
  (void)state;
  w.json = json_with_most_waiting;
  for (const ab_variant_t *v = ab_doxbee.variants; v->style != NULL; v++) {
    const char *args[] = {"--variant", ab_variant_name(v, name, sizeof(name)), "--iterations",
                          "1", "--delay-ms", "1", "--queries", "4", NULL};
    int par = strcmp(v->shape, "parallel") == 0;
    main_in_child(&w, &c, out, sizeof(out), args);
    /* Sequential: the put and the lookup at once, then one step at a time;
     * parallel: the 4 queries at once. */
    snprintf(want, sizeof(want), "\"most_waiting\":%d", par ? 4 : 2);
    if (!WIFEXITED(c.status) || WEXITSTATUS(c.status) != 0 || strstr(out, want) == NULL)
      fail_msg("%s: status %d, want %s: %s%s", name, c.status, want, c.err, out);
  }
}

static void its_backends_and_flags_parse(void **state) {
  ab_opts_t o;
  (void)state;
  assert_int_equal(parse_quiet(&ab_doxbee, &o, "--variant", "callback-sequential-parallel", NULL), AB_EXIT_OK);
  assert_string_equal(o.backend, "sleepq");
  assert_int_equal(parse_quiet(&ab_doxbee, &o, "--variant", "callback-sequential-parallel", "--backend", "sleepq", NULL), AB_EXIT_OK);
  assert_int_equal(parse_quiet(&ab_doxbee, &o, "--variant", "callback-sequential-parallel", "--backend", "node4", NULL), AB_EXIT_USAGE);
  assert_int_equal(parse_quiet(&ab_doxbee, &o, "--variant", "callback-sequential-parallel", "--file", "x", NULL), AB_EXIT_USAGE);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(its_backends_and_flags_parse),
    cmocka_unit_test(flags_are_digits_within_bounds),
    cmocka_unit_test(results_differ_and_the_lookup_misses),
    cmocka_unit_test(an_upload_verifies_only_committed_once_with_every_result),
    cmocka_unit_test(every_variant_verifies_every_upload),
    cmocka_unit_test(one_upload_joins_its_put_and_lookup_in_every_style),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
