/*
 * test_modes_stacks.c -- where the await skeletons (c/lib/modes_await.c) take
 * their coroutine stacks: inside the timed section, never ahead of it
 * (DESIGN section 3): when the first operation starts, only the stacks of
 * the coroutines that started it exist, and the pass's own stacks are all
 * mapped after its clock started.  A pass leaves its stacks in the pool,
 * and the next pass (the timed one after a warm-up) reuses them.  And a set
 * of records finished while a coroutine is still suspended fails the pass,
 * promised or not (the fiber styles finish their sets unpromised).
 * Behaviour, not timing: the stacks are counted (ab_coro_stacks_mapped),
 * never timed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "coro.h"
#include "harness.h"
#include "modes.h"
#include "timer_op.h"

/* An operation completing on a later loop turn (a zero-delay timer) that
 * notes, when it starts, how many stacks had been mapped and whether the
 * clock was running. */
static size_t starts, starts_before_clock;
static size_t mapped_first;

/* Watches every start of timer_op (timer_op.h): the stacks mapped when the
 * first operation starts, and whether the clock has started. */
static void watch_start(ab_op_t *op) {
  if (starts++ == 0) mapped_first = ab_coro_stacks_mapped();
  if (op->set->run->t_start_ns == 0) starts_before_clock++;
}

static int tick_check(ab_run_t *run, long i, const void *result) {
  const timer_op_t *r = result;
  if (r->value != i) {
    ab_run_fail(run, i, "value %ld, expected %ld", r->value, i);
    return -1;
  }
  ab_run_ok(run, 0);
  return 0;
}

static const char *tick_backend(size_t k) { return k == 0 ? "tick" : NULL; }

static const ab_workload_t ticks = {
  "ticks", "a zero-delay timer", NULL, tick_backend, NULL,
  NULL, tick_check, NULL, NULL, 0
};

typedef int (*mode_fn)(ab_run_t *run, const ab_op_type_t *type);

/* A run of n ticks on `loop` (not yet initialised), with options `o`. */
static void run_setup(ab_run_t *run, ab_opts_t *o, uv_loop_t *loop, long n) {
  memset(o, 0, sizeof(*o));
  o->prog = "prog";
  memset(run, 0, sizeof(*run));
  run->loop = loop;
  run->opts = o;
  run->workload = &ticks;
  run->n = n;
  run->failed_at = -1;
}

/* What one pass mapped: before the first operation started, and in all. */
typedef struct {
  size_t at_first_start, total;
} mapped_t;

/* One pass of `mode` over n operations with K = conc (0: all) on a fresh
 * loop, the pool as the previous pass left it (emptied first when `fresh`):
 * the stacks it mapped before its first operation started and in all.  Every
 * operation started once the clock ran. */
static mapped_t pass(mode_fn mode, long n, long conc, int fresh) {
  uv_loop_t loop;
  ab_opts_t o;
  ab_run_t run;
  size_t before;
  run_setup(&run, &o, &loop, n);
  run.concurrency = conc;
  starts = starts_before_clock = 0;
  assert_int_equal(uv_loop_init(&loop), 0);
  if (fresh) ab_coro_pool_drain();
  before = ab_coro_stacks_mapped();

  assert_int_equal(mode(&run, &timer_op), 0);
  assert_int_equal(run.ok, n);
  assert_int_equal(starts, (size_t)n);
  assert_int_equal(starts_before_clock, 0);
  assert_int_equal(ab_coro_live(), 0);

  uv_run(&loop, UV_RUN_DEFAULT);
  assert_int_equal(uv_loop_close(&loop), 0);
  return (mapped_t){mapped_first - before, ab_coro_stacks_mapped() - before};
}

static void await_tasks_maps_its_stacks_inside_the_clock(void **state) {
  (void)state;
  mapped_t m = pass(ab_mode_await_tasks, 300, 0, 1);
  /* the driver's and the first task's stacks, not the others' */
  assert_int_equal(m.at_first_start, 2);
  /* N + 1 coroutines, on at most AB_CORO_SHARED_STACKS stacks (coro.h) */
  assert_int_equal(m.total, AB_CORO_SHARED_STACKS);
}

static void await_loops_and_all_map_their_stacks_inside_the_clock(void **state) {
  (void)state;
  mapped_t m = pass(ab_mode_await_loops, 200, 1, 1);   /* sequential */
  assert_int_equal(m.at_first_start, 1);
  assert_int_equal(m.total, 1);
  m = pass(ab_mode_await_loops, 200, 7, 1);            /* bounded */
  assert_int_equal(m.at_first_start, 1);
  assert_int_equal(m.total, 7);
  m = pass(ab_mode_await_all, 200, 0, 1);              /* parallel */
  assert_int_equal(m.at_first_start, 1);
  assert_int_equal(m.total, 1);
}

static void stackless_maps_no_stack_at_all(void **state) {
  (void)state;
  assert_int_equal(pass(ab_mode_stackless_tasks, 300, 0, 1).total, 0);
  assert_int_equal(pass(ab_mode_stackless_loops, 200, 7, 1).total, 0);
}

static void a_pass_reuses_the_stacks_a_warm_up_left_in_the_pool(void **state) {
  (void)state;
  /* a warm-up of 100 tasks leaves 101 stacks in the pool */
  assert_int_equal(pass(ab_mode_await_tasks, 100, 0, 1).total, 101);
  /* a timed pass of 50 reuses them: nothing mapped */
  assert_int_equal(pass(ab_mode_await_tasks, 50, 0, 0).total, 0);
  /* one of 150 maps only what the pool lacks, inside its clock: 151
   * coroutines on at most AB_CORO_SHARED_STACKS stacks */
  mapped_t m = pass(ab_mode_await_tasks, 150, 0, 0);
  assert_int_equal(m.total, AB_CORO_SHARED_STACKS - 101);
  assert_int_equal(m.at_first_start, 0);
  ab_coro_pool_drain();
}

static void yields_once(void *arg) {
  (void)arg;
  ab_coro_yield();
}

static void a_set_finished_with_a_coroutine_suspended_fails_the_pass(void **state) {
  (void)state;
  for (int promised = 0; promised <= 1; promised++) {
    uv_loop_t loop;
    ab_opts_t o;
    ab_run_t run;
    run_setup(&run, &o, &loop, 3);
    assert_int_equal(uv_loop_init(&loop), 0);
    ab_ops_t *set = ab_ops_start(&run, &timer_op, run.n, 0, promised);
    assert_non_null(set);
    ab_coro_t *co = ab_coro_create(yields_once, NULL);
    assert_non_null(co);
    ab_coro_resume(co); /* suspended at its yield */
    assert_int_equal(ab_ops_finish(set), -1);
    assert_int_equal(run.failed_at, 2);
    assert_string_equal(run.error, "1 coroutines never finished");
    ab_coro_resume(co);
    assert_true(ab_coro_done(co));
    ab_coro_destroy(co);
    assert_int_equal(ab_coro_live(), 0);
    ab_coro_pool_drain();
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&loop), 0);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(await_tasks_maps_its_stacks_inside_the_clock),
    cmocka_unit_test(await_loops_and_all_map_their_stacks_inside_the_clock),
    cmocka_unit_test(stackless_maps_no_stack_at_all),
    cmocka_unit_test(a_pass_reuses_the_stacks_a_warm_up_left_in_the_pool),
    cmocka_unit_test(a_set_finished_with_a_coroutine_suspended_fails_the_pass),
  };
  timer_op_on_start = watch_start;
  return cmocka_run_group_tests(tests, NULL, NULL);
}
