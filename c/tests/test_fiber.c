/*
 * test_fiber.c -- fibers (c/lib/fiber.h): a settled result returns without
 * suspending and without a microtask, pending work suspends until its
 * callback wakes the fiber (on the callback's stack, no microtask), waiting
 * on a pending promise resumes from its reaction, rejections come back as
 * codes, stacks go back to the pool, a libuv timer wakes a fiber, and misuse
 * aborts with a message.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <signal.h>
#include <string.h>
#include <uv.h>

#include "fiber.h"
#include "run_child.h"

static int order[16];
static int norder;

static void mark(int what) { order[norder++] = what; }

static int setup(void **state) {
  (void)state;
  norder = 0;
  return 0;
}

static int teardown(void **state) {
  (void)state;
  ab_microtasks_drain();
  assert_int_equal(ab_promise_live(), 0);
  assert_int_equal(ab_coro_live(), 0);
  ab_coro_pool_drain();
  return 0;
}

/* ---- a settled promise: no suspension, no microtask -------------------- */

static int forty_two = 42;

static void wait_settled(void *arg) {
  ab_promise_t *p = arg;
  unsigned long before = ab_fiber_suspensions();
  void *v = NULL;
  mark(1);
  assert_int_equal(ab_fiber_wait(p, &v), 0);
  assert_ptr_equal(v, &forty_two);
  assert_int_equal(ab_fiber_suspensions(), before);
  mark(2);
}

static void test_a_settled_promise_returns_at_once(void **state) {
  (void)state;
  ab_promise_t *p = ab_promise_resolved(&forty_two, NULL);
  assert_int_equal(ab_fiber_start(wait_settled, p), 0);
  /* The whole fiber ran inside ab_fiber_start: nothing was queued. */
  assert_int_equal(norder, 2);
  assert_int_equal(ab_microtasks_pending(), 0);
  assert_int_equal(ab_coro_live(), 0);
  ab_promise_release(p);
}

/* ---- a pending promise: suspends, resumes from the reaction ----------- */

static void wait_pending(void *arg) {
  void *v = NULL;
  mark(1);
  assert_int_equal(ab_fiber_wait(arg, &v), 0);
  assert_ptr_equal(v, &forty_two);
  mark(3);
}

static void test_a_pending_promise_suspends_until_it_settles(void **state) {
  (void)state;
  ab_promise_t *p = ab_promise_new();
  unsigned long before = ab_fiber_suspensions();
  assert_int_equal(ab_fiber_start(wait_pending, p), 0);
  mark(2);
  assert_int_equal(ab_coro_live(), 1);
  ab_promise_resolve(p, &forty_two, NULL);
  assert_int_equal(norder, 2); /* not synchronously */
  ab_microtasks_drain();
  assert_int_equal(norder, 3);
  assert_int_equal(order[0], 1);
  assert_int_equal(order[1], 2);
  assert_int_equal(order[2], 3);
  assert_int_equal(ab_fiber_suspensions(), before + 1);
  assert_int_equal(ab_coro_live(), 0);
  ab_promise_release(p);
}

/* ---- rejections come back as codes, settled or not ------------------- */

static void wait_rejected(void *arg) {
  void *v = &forty_two;
  assert_int_equal(ab_fiber_wait(arg, &v), -7);
  assert_ptr_equal(v, &forty_two); /* untouched */
  mark(1);
}

static void test_a_rejection_is_its_code(void **state) {
  (void)state;
  ab_promise_t *settled = ab_promise_rejected(-7, "seven");
  assert_int_equal(ab_fiber_start(wait_rejected, settled), 0);
  assert_int_equal(norder, 1);
  ab_promise_t *later = ab_promise_new();
  assert_int_equal(ab_fiber_start(wait_rejected, later), 0);
  ab_promise_reject(later, -7, "seven");
  ab_microtasks_drain();
  assert_int_equal(norder, 2);
  assert_int_equal(ab_promise_unhandled_count(), 0);
  ab_promise_release(settled);
  ab_promise_release(later);
}

/* ---- suspend and wake: the waker's stack, no microtask ---------------- */

static ab_fiber_t *parked;

static void park_twice(void *arg) {
  (void)arg;
  for (int k = 0; k < 2; k++) {
    parked = ab_fiber_current();
    mark(10 + k);
    ab_fiber_suspend();
    mark(20 + k);
  }
  parked = NULL;
}

static void test_wake_resumes_the_fiber_inside_the_call(void **state) {
  (void)state;
  assert_null(ab_fiber_current());
  assert_int_equal(ab_fiber_start(park_twice, NULL), 0);
  assert_non_null(parked);
  assert_int_equal(norder, 1);
  ab_fiber_wake(parked);
  assert_int_equal(norder, 3); /* ran up to its next suspension */
  ab_fiber_wake(parked);
  assert_int_equal(norder, 4);
  assert_null(parked);
  assert_int_equal(ab_microtasks_pending(), 0);
  int want[] = {10, 20, 11, 21};
  assert_memory_equal(order, want, sizeof(want));
  assert_int_equal(ab_coro_live(), 0);
}

/* ---- a libuv callback wakes a fiber ------------------------------------ */

static void timer_fired(uv_timer_t *t) { ab_fiber_wake(t->data); }

static void sleep_on_timer(void *arg) {
  uv_timer_t *t = arg;
  t->data = ab_fiber_current();
  assert_int_equal(uv_timer_start(t, timer_fired, 1, 0), 0);
  ab_fiber_suspend();
  mark(1);
  uv_close((uv_handle_t *)t, NULL);
}

static void test_a_libuv_callback_wakes_a_fiber(void **state) {
  (void)state;
  uv_loop_t loop;
  uv_timer_t t;
  assert_int_equal(uv_loop_init(&loop), 0);
  assert_int_equal(uv_timer_init(&loop, &t), 0);
  assert_int_equal(ab_fiber_start(sleep_on_timer, &t), 0);
  assert_int_equal(norder, 0);
  assert_int_equal(uv_run(&loop, UV_RUN_DEFAULT), 0);
  assert_int_equal(norder, 1);
  assert_int_equal(uv_loop_close(&loop), 0);
}

/* ---- many fibers suspended at once, stacks returned ------------------- */

#define MANY 1000
static ab_fiber_t *many[MANY];
static int finished;

static void park_once(void *arg) {
  many[(intptr_t)arg] = ab_fiber_current();
  ab_fiber_suspend();
  finished++;
}

static void test_a_thousand_fibers_suspend_and_finish(void **state) {
  (void)state;
  finished = 0;
  for (intptr_t k = 0; k < MANY; k++)
    assert_int_equal(ab_fiber_start(park_once, (void *)k), 0);
  assert_int_equal(ab_coro_live(), MANY);
  for (int k = MANY - 1; k >= 0; k--)
    ab_fiber_wake(many[k]);
  assert_int_equal(finished, MANY);
  assert_int_equal(ab_coro_live(), 0);
}

/* ---- misuse ------------------------------------------------------------ */

static void child_suspend_outside(void) { ab_fiber_suspend(); }

static void child_wait_outside(void) {
  ab_promise_t *p = ab_promise_new();
  ab_fiber_wait(p, NULL);
}

static void test_suspend_or_wait_outside_a_fiber_aborts(void **state) {
  (void)state;
  child_t c;
  run_in_child(child_suspend_outside, &c);
  assert_true(WIFSIGNALED(c.status));
  assert_int_equal(WTERMSIG(c.status), SIGABRT);
  assert_non_null(strstr(c.err, "ab_fiber_suspend: not inside a fiber"));
  run_in_child(child_wait_outside, &c);
  assert_true(WIFSIGNALED(c.status));
  assert_non_null(strstr(c.err, "ab_fiber_wait: not inside a fiber"));
}

static void wake_itself(void *arg) {
  (void)arg;
  ab_fiber_wake(ab_fiber_current());
}

static void child_wake_running(void) { ab_fiber_start(wake_itself, NULL); }

static void test_waking_a_running_fiber_aborts(void **state) {
  (void)state;
  child_t c;
  run_in_child(child_wake_running, &c);
  assert_true(WIFSIGNALED(c.status));
  assert_int_equal(WTERMSIG(c.status), SIGABRT);
  assert_non_null(strstr(c.err, "already running"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_a_settled_promise_returns_at_once, setup, teardown),
      cmocka_unit_test_setup_teardown(test_a_pending_promise_suspends_until_it_settles, setup, teardown),
      cmocka_unit_test_setup_teardown(test_a_rejection_is_its_code, setup, teardown),
      cmocka_unit_test_setup_teardown(test_wake_resumes_the_fiber_inside_the_call, setup, teardown),
      cmocka_unit_test_setup_teardown(test_a_libuv_callback_wakes_a_fiber, setup, teardown),
      cmocka_unit_test_setup_teardown(test_a_thousand_fibers_suspend_and_finish, setup, teardown),
      cmocka_unit_test(test_suspend_or_wait_outside_a_fiber_aborts),
      cmocka_unit_test(test_waking_a_running_fiber_aborts),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
