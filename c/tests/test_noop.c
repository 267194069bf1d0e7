/*
 * test_noop.c -- the example workload noop through the workload
 * interface alone: no flags of its own, backend "none", an operation that
 * completes on a later loop turn and never inside the call that started it,
 * the check of value == i, and every variant run whole through ab_main.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "noop/workload.h"
#include "workload_tests.h"

#define parse(o, ...) parse_quiet(&ab_noop, o, "--variant", "callback-parallel", __VA_ARGS__)

static void it_has_no_flags_and_one_backend(void **state) {
  ab_opts_t o;
  (void)state;
  assert_int_equal(parse(&o, NULL), AB_EXIT_OK);
  assert_string_equal(o.backend, "none");
  assert_null(o.flags[0]);
  assert_int_equal(parse(&o, "--backend", "none", NULL), AB_EXIT_OK);
  assert_int_equal(parse(&o, "--backend", "node4", NULL), AB_EXIT_USAGE);
  assert_int_equal(parse(&o, "--file", "x", NULL), AB_EXIT_USAGE);
}

static void an_operation_completes_on_a_later_turn(void **state) {
  uv_loop_t loop;
  ab_opts_t o;
  ab_run_t run;
  (void)state;
  memset(&o, 0, sizeof(o));
  o.prog = "prog";
  memset(&run, 0, sizeof(run));
  run.loop = &loop;
  run.opts = &o;
  run.workload = &ab_noop;
  run.n = 2;
  run.failed_at = -1;
  assert_int_equal(uv_loop_init(&loop), 0);
  assert_int_equal(ab_noop.setup(&o, &loop, &run.state), AB_EXIT_OK);

  ab_ops_t *set = ab_ops_start(&run, &ab_noop_op, 2, 0, 0);
  assert_non_null(set);
  set->next = 2; /* both issued here: the completions issue nothing more */
  for (long k = 0; k < 2; k++) {
    ab_noop_op_t *r = (ab_noop_op_t *)ab_ops_at(set, k);
    r->op.i = k;
    r->value = -1;
    assert_int_equal(ab_noop_op.start(&r->op), 0);
    set->inflight++;
    assert_int_equal(r->value, -1);
  }
  assert_int_equal(run.ok, 0);
  uv_run(&loop, UV_RUN_NOWAIT); /* one turn completes what was pending */
  assert_int_equal(run.ok, 2);
  assert_false(ab_run_failed(&run));
  assert_int_equal(ab_ops_finish(set), 0);

  ab_noop.teardown(run.state);
  uv_run(&loop, UV_RUN_DEFAULT);
  assert_int_equal(uv_loop_close(&loop), 0);
}

static void check_wants_the_iteration_back(void **state) {
  ab_run_t run;
  ab_noop_op_t r;
  (void)state;
  memset(&run, 0, sizeof(run));
  run.workload = &ab_noop;
  run.n = 2;
  run.failed_at = -1;
  memset(&r, 0, sizeof(r));
  r.value = 0;
  assert_int_equal(ab_run_check(&run, 0, &r), 0);
  assert_int_equal(run.ok, 1);
  assert_int_equal(run.bytes, 0);
  r.value = 5;
  assert_int_equal(ab_run_check(&run, 1, &r), -1);
  assert_int_equal(run.failed_at, 1);
  assert_string_equal(run.error, "completed with 5, expected 1");
}

static void every_variant_verifies_every_operation(void **state) {
  char name[64], id[160], out[1024];
  child_t c;
  int n = 0;
  (void)state;
  for (const ab_variant_t *v = ab_noop.variants; v->style != NULL; v++, n++) {
    const char *args[] = {"--variant", ab_variant_name(v, name, sizeof(name)),
                          "--backend", "none", "--iterations", "300", "--warmup", "2",
                          "--concurrency", "7", NULL};
    main_in_child(&ab_noop, &c, out, sizeof(out), args);
    snprintf(id, sizeof(id), "\"variant\":\"noop/c/%s@none\",\"iterations\":300,", name);
    if (!WIFEXITED(c.status) || WEXITSTATUS(c.status) != 0 || strstr(out, id) == NULL
        || strstr(out, "\"ok\":300,\"bytes\":0,") == NULL)
      fail_msg("%s: status %d: %s%s", name, c.status, c.err, out);
  }
  assert_int_equal(n, 13); /* the catalog: sync-sequential and 4 styles x 3 modes */
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(it_has_no_flags_and_one_backend),
    cmocka_unit_test(an_operation_completes_on_a_later_turn),
    cmocka_unit_test(check_wants_the_iteration_back),
    cmocka_unit_test(every_variant_verifies_every_operation),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
