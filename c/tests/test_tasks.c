/*
 * test_tasks.c -- tasks through the workload interface: --sleep-ms and its
 * bounds, the two backends, the check of a task's number, a task's sleep
 * counted from its own start on either backend, and every variant
 * on both backends run whole through ab_main, with the line's extra fields
 * (start_ns, stack_bytes only for the stackful styles, page_bytes).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "tasks/workload.h"
#include "workload_tests.h"

static int setup_with(const char *sleep_ms) {
  return setup_quiet(&ab_tasks, "sleepq", (const char *const[]){sleep_ms, NULL});
}

static void sleep_is_digits_within_bounds(void **state) {
  (void)state;
  assert_int_equal(setup_with("1000"), AB_EXIT_OK);
  assert_int_equal(setup_with("0"), AB_EXIT_OK);
  assert_int_equal(setup_with("-5"), AB_EXIT_USAGE);
  assert_int_equal(setup_with("5s"), AB_EXIT_USAGE);
  assert_int_equal(setup_with(""), AB_EXIT_USAGE);
  assert_int_equal(setup_with("86400001"), AB_EXIT_USAGE);
}

static void a_task_verifies_with_its_own_number(void **state) {
  ab_run_t run;
  ab_task_t t;
  (void)state;
  memset(&run, 0, sizeof(run));
  run.workload = &ab_tasks;
  run.n = 2;
  run.failed_at = -1;
  memset(&t, 0, sizeof(t));
  t.value = 0;
  assert_int_equal(ab_run_check(&run, 0, &t), 0);
  t.value = 3;
  assert_int_equal(ab_run_check(&run, 1, &t), -1);
  assert_string_equal(run.error, "the task completed with 3, expected 1");
}

static void every_variant_on_both_backends_completes_every_task(void **state) {
  char name[64], id[160], out[2048], stack[64], page[64];
  const char *backends[] = {"sleepq", "uv_timer"};
  child_t c;
  int n = 0;
  (void)state;
  snprintf(page, sizeof(page), ",\"page_bytes\":%ld,", sysconf(_SC_PAGESIZE));
  for (int b = 0; b < 2; b++)
    for (const ab_variant_t *v = ab_tasks.variants; v->style != NULL; v++, n++) {
      const char *args[] = {"--variant", ab_variant_name(v, name, sizeof(name)), "--backend",
                            backends[b], "--iterations", "300", "--warmup", "5", "--sleep-ms",
                            "20", NULL};
      main_in_child(&ab_tasks, &c, out, sizeof(out), args);
      snprintf(id, sizeof(id), "\"variant\":\"tasks/c/%s@%s\",\"iterations\":300,", name,
               backends[b]);
      int stackful = strcmp(v->style, "await") == 0 || strcmp(v->style, "fiber") == 0;
      snprintf(stack, sizeof(stack), ",\"stack_bytes\":%s", stackful ? "" : "0,");
      if (!WIFEXITED(c.status) || WEXITSTATUS(c.status) != 0 || strstr(out, id) == NULL
          || strstr(out, "\"ok\":300,") == NULL || strstr(out, "\"start_ns\":") == NULL
          || strstr(out, stack) == NULL || (stackful && strstr(out, ",\"stack_bytes\":0,"))
          || strstr(out, page) == NULL)
        fail_msg("%s@%s: status %d: %s%s", name, backends[b], c.status, c.err, out);
      /* Every task slept its 20 ms, on libuv's millisecond clock (its now is
       * truncated, so a timer may fire up to 1 ms before 20 ms of the
       * nanosecond clock have passed): the timed section is at least 19 ms. */
      const char *e = strstr(out, "\"elapsed_ns\":");
      assert_non_null(e);
      if (strtoll(e + 13, NULL, 10) < 19000000LL)
        fail_msg("%s@%s finished before its tasks slept: %s", name, backends[b], out);
    }
  assert_int_equal(n, 10); /* 5 styles x 2 backends */
}

static uint64_t woke_ns[2];
static void task_woke(ab_task_t *t) { woke_ns[t->op.i] = uv_hrtime(); }

/* Burns real time without running the loop: its cached time goes stale, as
 * it does while a pass starts many tasks in one turn. */
static void spin_ms(uint64_t ms) {
  uint64_t until = uv_hrtime() + ms * 1000000u;
  while (uv_hrtime() < until) {
  }
}

static void a_task_started_late_in_a_turn_sleeps_its_whole_time(void **state) {
  const char *backends[] = {"sleepq", "uv_timer"};
  (void)state;
  for (int b = 0; b < 2; b++) {
    ab_opts_t o;
    ab_run_t run;
    uv_loop_t loop;
    uint64_t started_ns[2];
    memset(&o, 0, sizeof(o));
    o.prog = "prog";
    o.backend = backends[b];
    o.flags[0] = "40";
    memset(&run, 0, sizeof(run));
    assert_int_equal(uv_loop_init(&loop), 0);
    run.loop = &loop;
    run.opts = &o;
    run.workload = &ab_tasks;
    run.n = 2;
    run.failed_at = -1;
    assert_int_equal(ab_tasks.setup(&o, &loop, &run.state), AB_EXIT_OK);
    assert_int_equal(ab_tasks_begin(&run, 0), 0);
    ab_tasks_on_wake(&run, task_woke); /* records the time instead of completing */
    ab_ops_t *set = ab_ops_start(&run, ab_tasks_op(&run), 2, 0, 0);
    assert_non_null(set);
    memset(woke_ns, 0, sizeof(woke_ns));
    for (long k = 0; k < 2; k++) {
      ab_task_t *t = (ab_task_t *)ab_ops_at(set, k);
      t->op.i = k;
      if (k > 0) spin_ms(25); /* the loop's time now lags 25 ms */
      started_ns[k] = uv_hrtime();
      assert_int_equal(set->type->start(&t->op), 0);
    }
    assert_int_equal(ab_ops_finish(set), 0);
    /* Each slept 40 ms from its own start, give or take libuv's millisecond
     * clock (truncated, read from a clock of up to 1 ms resolution): at least
     * 38 ms.  Counted from the loop's stale time, the second sleeps ~15. */
    for (int k = 0; k < 2; k++) {
      if (woke_ns[k] == 0 || woke_ns[k] - started_ns[k] < 38000000u)
        fail_msg("%s: task %d slept %lld ns of 40 ms", backends[b], k,
                 woke_ns[k] == 0 ? -1LL : (long long)(woke_ns[k] - started_ns[k]));
    }
    ab_tasks.teardown(run.state);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&loop), 0);
  }
}

static void its_backends_and_flags_parse(void **state) {
  ab_opts_t o;
  (void)state;
  assert_int_equal(parse_quiet(&ab_tasks, &o, "--variant", "callback-parallel", NULL), AB_EXIT_OK);
  assert_string_equal(o.backend, "sleepq");
  assert_int_equal(parse_quiet(&ab_tasks, &o, "--variant", "callback-parallel", "--backend", "uv_timer", NULL), AB_EXIT_OK);
  assert_int_equal(parse_quiet(&ab_tasks, &o, "--variant", "callback-parallel", "--backend", "node4", NULL), AB_EXIT_USAGE);
  assert_int_equal(parse_quiet(&ab_tasks, &o, "--variant", "callback-parallel", "--file", "x", NULL), AB_EXIT_USAGE);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(its_backends_and_flags_parse),
    cmocka_unit_test(sleep_is_digits_within_bounds),
    cmocka_unit_test(a_task_verifies_with_its_own_number),
    cmocka_unit_test(every_variant_on_both_backends_completes_every_task),
    cmocka_unit_test(a_task_started_late_in_a_turn_sleeps_its_whole_time),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
