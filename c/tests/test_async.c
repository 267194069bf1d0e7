/*
 * test_async.c -- ab_async / ab_await: ordering against Node for the
 * scenarios in c/tests/ordering/await-*.js, errors becoming rejections,
 * awaiting a settled promise yielding once, 10,000 async functions suspended
 * at once, and await outside an async function aborting.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <signal.h>
#include <string.h>

#include "async.h"
#include "await_tests.h"
#include "run_child.h"

/* `await null` */
static void await_null(void) {
  ab_promise_t *p = ab_promise_resolved(NULL, NULL);
  void *v = &one;
  assert_int_equal(ab_await(p, &v), 0);
  assert_null(v);
  ab_promise_release(p);
}

/* ---- ordering scenarios (snippets in c/tests/ordering/) --------------- */

static int f_vs_then(void *arg, void **value) {
  (void)arg;
  (void)value;
  trace("f1");
  await_null();
  trace("f2");
  await_null();
  trace("f3");
  return 0;
}

static void test_await_vs_then(void **state) {
  (void)state;
  ab_promise_release(ab_async(f_vs_then, NULL));
  then_chain("t1", "t2", "t3");
  trace("sync");
  ab_microtasks_drain();
  ordering_check("await-vs-then");
}

static int f_pending(void *arg, void **value) {
  (void)value;
  trace("f-start");
  void *v = NULL;
  assert_int_equal(ab_await(arg, &v), 0);
  tracef("f-got-%d", *(int *)v);
  return 0;
}

static void test_await_pending(void **state) {
  (void)state;
  ab_promise_t *p = ab_promise_new();
  ab_promise_release(ab_async(f_pending, p));
  ab_promise_release(ab_promise_then(p, then_trace_int, NULL, "then-"));
  ab_promise_resolve(p, &seven, NULL);
  trace("resolved");
  ab_microtasks_drain();
  ab_promise_release(p);
  ordering_check("await-pending");
}

static int inner_plain(void *arg, void **value) {
  (void)arg;
  trace("inner");
  *value = &one;
  return 0;
}

static int outer_plain(void *arg, void **value) {
  (void)arg;
  (void)value;
  ab_promise_t *q = ab_async(inner_plain, NULL);
  void *v = NULL;
  assert_int_equal(ab_await(q, &v), 0);
  ab_promise_release(q);
  tracef("outer-%d", *(int *)v);
  return 0;
}

static void test_await_async_result(void **state) {
  (void)state;
  ab_promise_release(ab_async(outer_plain, NULL));
  then_chain("a", "b", "c");
  ab_microtasks_drain();
  ordering_check("await-async-result");
}

static int f_rethrow(void *arg, void **value) {
  (void)arg;
  (void)value;
  ab_promise_t *r = ab_promise_rejected(E1, "E1");
  int rc = ab_await(r, value);
  assert_int_equal(rc, E1);
  assert_string_equal(ab_promise_message(r), "E1");
  ab_promise_release(r);
  trace("caught");
  ab_async_fail("E1 again");
  return rc;
}

static void test_await_rejection(void **state) {
  (void)state;
  ab_promise_t *fp = ab_async(f_rethrow, NULL);
  ab_promise_release(ab_promise_catch(fp, then_trace, "outer-catch"));
  then_chain("t1", "t2", "t3");
  ab_microtasks_drain();
  ordering_check("await-rejection");
  /* the error became the async function's rejection, code and message */
  assert_int_equal(ab_promise_state(fp), AB_REJECTED);
  assert_int_equal(ab_promise_code(fp), E1);
  assert_string_equal(ab_promise_message(fp), "E1 again");
  ab_promise_release(fp);
}

static int f_loop(void *arg, void **value) {
  (void)value;
  for (int i = 0; i < 3; i++) {
    tracef("%s%d", (const char *)arg, i);
    await_null();
  }
  return 0;
}

static void test_await_interleave(void **state) {
  (void)state;
  ab_promise_release(ab_async(f_loop, "a"));
  ab_promise_release(ab_async(f_loop, "b"));
  trace("sync");
  ab_microtasks_drain();
  ordering_check("await-interleave");
}

static int f_adopt(void *arg, void **value) {
  assert_int_equal(ab_await(arg, value), 0);
  assert_ptr_equal(*value, &one);
  trace("f");
  return 0;
}

static void test_await_adopted(void **state) {
  (void)state;
  ab_promise_t *p = ab_promise_new();
  ab_promise_release(ab_async(f_adopt, p));
  ab_promise_t *x = ab_promise_resolved(&one, NULL);
  ab_promise_resolve_promise(p, x);
  ab_promise_release(x);
  then_chain("t1", "t2", "t3");
  ab_microtasks_drain();
  ab_promise_release(p);
  ordering_check("await-adopted");
}

static int inner_awaits(void *arg, void **value) {
  (void)arg;
  trace("i1");
  await_null();
  trace("i2");
  *value = x_value;
  return 0;
}

static int outer_awaits(void *arg, void **value) {
  (void)arg;
  (void)value;
  trace("o1");
  ab_coro_t *self = ab_coro_current();
  ab_promise_t *q = ab_async(inner_awaits, NULL); /* a coroutine inside one */
  assert_ptr_equal(ab_coro_current(), self);
  void *v = NULL;
  assert_int_equal(ab_await(q, &v), 0);
  ab_promise_release(q);
  tracef("o2-%s", (const char *)v);
  return 0;
}

static void test_await_nested(void **state) {
  (void)state;
  ab_promise_release(ab_async(outer_awaits, NULL));
  trace("sync");
  then_chain("t1", "t2", "t3");
  ab_microtasks_drain();
  ordering_check("await-nested");
}

/* ---- semantics -------------------------------------------------------- */

static int step;

static int f_settled(void *arg, void **value) {
  (void)value;
  step = 1;
  assert_int_equal(ab_await(arg, value), 0);
  step = 2;
  return 0;
}

static void test_settled_promise_still_yields(void **state) {
  (void)state;
  ab_promise_t *p = ab_promise_resolved(&seven, NULL);
  ab_promise_t *fp = ab_async(f_settled, p);
  assert_int_equal(step, 1); /* suspended although p had settled */
  assert_int_equal(ab_promise_state(fp), AB_PENDING);
  assert_int_equal(ab_microtasks_drain(), 1); /* exactly one tick */
  assert_int_equal(step, 2);
  assert_int_equal(ab_promise_state(fp), AB_FULFILLED);
  assert_ptr_equal(ab_promise_value(fp), &seven);
  ab_promise_release(fp);
  ab_promise_release(p);
}

static int f_sync_return(void *arg, void **value) {
  *value = arg;
  return 0;
}

static int f_sync_fail(void *arg, void **value) {
  (void)arg;
  (void)value;
  return AB_ETYPE;
}

static void test_return_values_and_codes(void **state) {
  (void)state;
  ab_promise_t *ok = ab_async(f_sync_return, &seven);
  assert_int_equal(ab_promise_state(ok), AB_FULFILLED);
  assert_ptr_equal(ab_promise_value(ok), &seven);
  ab_promise_t *bad = ab_async(f_sync_fail, NULL);
  assert_int_equal(ab_promise_state(bad), AB_REJECTED);
  assert_int_equal(ab_promise_code(bad), AB_ETYPE);
  assert_string_equal(ab_promise_message(bad), ab_promise_strerror(AB_ETYPE));
  ab_promise_release(ab_promise_catch(bad, then_trace, "handled"));
  ab_promise_release(ok);
  ab_promise_release(bad);
  ab_microtasks_drain();
  assert_string_equal(trace_buf, "handled");
}

/* 10,000 alive at once; ThreadSanitizer counts each coroutine as one of its
 * at most 8,128 threads (coro.c makes them TSan fibers), so fewer there. */
#if defined(__SANITIZE_THREAD__)
#define MANY 4000
#else
#define MANY 10000
#endif
static long resumed;

static int f_wait_gate(void *arg, void **value) {
  ab_promise_t *gate = arg;
  long mine = (long)(intptr_t)ab_coro_current(); /* lives on this stack */
  assert_int_equal(ab_await(gate, value), 0);
  assert_int_equal(mine, (long)(intptr_t)ab_coro_current());
  resumed++;
  return 0;
}

static void test_ten_thousand_suspended(void **state) {
  (void)state;
  ab_promise_t *gate = ab_promise_new();
  ab_promise_t **ps = calloc(MANY, sizeof(*ps));
  assert_non_null(ps);
  resumed = 0;
  for (int i = 0; i < MANY; i++)
    ps[i] = ab_async(f_wait_gate, gate);
  ab_microtasks_drain();
  assert_int_equal(resumed, 0);
  ab_promise_resolve(gate, &seven, NULL);
  ab_microtasks_drain();
  assert_int_equal(resumed, MANY);
  for (int i = 0; i < MANY; i++) {
    assert_int_equal(ab_promise_state(ps[i]), AB_FULFILLED);
    assert_ptr_equal(ab_promise_value(ps[i]), &seven);
    ab_promise_release(ps[i]);
  }
  free(ps);
  ab_promise_release(gate);
  ab_coro_pool_drain();
}

static void child_await_outside(void) {
  ab_promise_t *p = ab_promise_resolved(NULL, NULL);
  void *v;
  ab_await(p, &v);
}

static void test_await_outside_aborts(void **state) {
  (void)state;
  child_t c;
  run_in_child(child_await_outside, &c);
  assert_true(WIFSIGNALED(c.status));
  assert_int_equal(WTERMSIG(c.status), SIGABRT);
  assert_non_null(strstr(c.err, "ab_await: not inside an async function"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_await_vs_then, setup, teardown),
      cmocka_unit_test_setup_teardown(test_await_pending, setup, teardown),
      cmocka_unit_test_setup_teardown(test_await_async_result, setup, teardown),
      cmocka_unit_test_setup_teardown(test_await_rejection, setup, teardown),
      cmocka_unit_test_setup_teardown(test_await_interleave, setup, teardown),
      cmocka_unit_test_setup_teardown(test_await_adopted, setup, teardown),
      cmocka_unit_test_setup_teardown(test_await_nested, setup, teardown),
      cmocka_unit_test_setup_teardown(test_settled_promise_still_yields, setup, teardown),
      cmocka_unit_test_setup_teardown(test_return_values_and_codes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_ten_thousand_suspended, setup, teardown),
      cmocka_unit_test(test_await_outside_aborts),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
