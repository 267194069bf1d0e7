/*
 * test_modes_stacks.c -- where the await skeletons (c/lib/modes_await.c) map
 * their coroutine stacks: every stack a pass needs is mapped before the
 * clock starts, so no operation of the timed section sees a new mapping,
 * with or without a warm-up; the pass leaves the pool empty, as the
 * stackless skeletons free their frames.  And a set of records finished while
 * a coroutine is still suspended fails the pass, promised or not (the fiber
 * styles finish their sets unpromised).  Behaviour, not timing: the stacks
 * are counted (ab_coro_stacks_mapped), never timed.
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
static size_t mapped_min, mapped_max;

/* Watches every start of timer_op (timer_op.h): the stacks mapped so far, and
 * whether the clock has started. */
static void watch_start(ab_op_t *op) {
  size_t mapped = ab_coro_stacks_mapped();
  if (starts++ == 0 || mapped < mapped_min) mapped_min = mapped;
  if (mapped > mapped_max) mapped_max = mapped;
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

/* One pass of `mode` over n operations with K = conc (0: all) on a fresh
 * loop and an empty pool: the stacks it mapped before its clock started,
 * checked to be all it mapped. */
static size_t pass(mode_fn mode, long n, long conc) {
  uv_loop_t loop;
  ab_opts_t o;
  ab_run_t run;
  size_t before;
  run_setup(&run, &o, &loop, n);
  run.concurrency = conc;
  starts = starts_before_clock = 0;
  mapped_min = mapped_max = 0;
  assert_int_equal(uv_loop_init(&loop), 0);
  ab_coro_pool_drain();
  before = ab_coro_stacks_mapped();

  assert_int_equal(mode(&run, &timer_op), 0);
  assert_int_equal(run.ok, n);
  assert_int_equal(starts, (size_t)n);
  assert_int_equal(starts_before_clock, 0);
  /* No operation of the timed section saw a stack mapped after the first
   * one started, and none was mapped after the pass either. */
  assert_int_equal(mapped_min, mapped_max);
  assert_int_equal(ab_coro_stacks_mapped(), mapped_max);
  assert_int_equal(ab_coro_live(), 0);

  uv_run(&loop, UV_RUN_DEFAULT);
  assert_int_equal(uv_loop_close(&loop), 0);
  return mapped_max - before;
}

static void await_tasks_maps_its_n_plus_1_stacks_before_the_clock(void **state) {
  (void)state;
  /* N + 1 coroutines, on at most AB_CORO_SHARED_STACKS stacks (coro.h) */
  assert_int_equal(pass(ab_mode_await_tasks, 300, 0), AB_CORO_SHARED_STACKS);
  /* a second pass (as after a warm-up) maps them again, before its clock */
  assert_int_equal(pass(ab_mode_await_tasks, 50, 0), 51);
}

static void await_loops_and_all_map_their_stacks_before_the_clock(void **state) {
  (void)state;
  assert_int_equal(pass(ab_mode_await_loops, 200, 1), 1);   /* sequential */
  assert_int_equal(pass(ab_mode_await_loops, 200, 7), 7);   /* bounded */
  assert_int_equal(pass(ab_mode_await_all, 200, 0), 1);     /* parallel */
}

static void stackless_maps_no_stack_at_all(void **state) {
  (void)state;
  assert_int_equal(pass(ab_mode_stackless_tasks, 300, 0), 0);
  assert_int_equal(pass(ab_mode_stackless_loops, 200, 7), 0);
}

static void a_pass_leaves_no_stack_in_the_pool(void **state) {
  (void)state;
  pass(ab_mode_await_tasks, 100, 0);
  /* The pool is empty: the next stack is a new mapping. */
  size_t before = ab_coro_stacks_mapped();
  assert_int_equal(ab_coro_reserve(1), 0);
  assert_int_equal(ab_coro_stacks_mapped(), before + 1);
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
    cmocka_unit_test(await_tasks_maps_its_n_plus_1_stacks_before_the_clock),
    cmocka_unit_test(await_loops_and_all_map_their_stacks_before_the_clock),
    cmocka_unit_test(stackless_maps_no_stack_at_all),
    cmocka_unit_test(a_pass_leaves_no_stack_in_the_pool),
    cmocka_unit_test(a_set_finished_with_a_coroutine_suspended_fails_the_pass),
  };
  timer_op_on_start = watch_start;
  return cmocka_run_group_tests(tests, NULL, NULL);
}
