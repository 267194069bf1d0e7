/*
 * await_tests.h -- what test_async.c (ab_async/ab_await on coroutines) and
 * test_stackless.c (stackless.h state machines) share: they run the same
 * ordering scenarios (c/tests/ordering/await-*.js, checked by ordering.h), so
 * they share the values awaited, the .then chain most scenarios run beside the
 * awaits, and the setup/teardown that asserts a test leaves nothing behind.
 * Include after cmocka.h.
 */
#ifndef AB_AWAIT_TESTS_H
#define AB_AWAIT_TESTS_H

#include <stdio.h>

#include "coro.h"
#include "ordering.h"
#include "promise.h"

static int one = 1, seven = 7;
static char x_value[] = "x";

/* The code of the rejection in the await-rejection scenario. */
#define E1 (-7001)

/* A then() handler that traces its arg. */
static void then_trace(void *arg, ab_promise_t *settled, ab_promise_t *out) {
  (void)settled;
  (void)out;
  trace(arg);
}

/* A then() handler that traces its arg followed by the int it got. */
static void then_trace_int(void *arg, ab_promise_t *settled, ab_promise_t *out) {
  (void)out;
  tracef("%s%d", (const char *)arg, *(int *)ab_promise_value(settled));
}

/* Promise.resolve().then(() => trace(a)).then(() => trace(b)).then(...c) */
static void then_chain(const char *a, const char *b, const char *c) {
  ab_promise_t *p0 = ab_promise_resolved(NULL, NULL);
  ab_promise_t *p1 = ab_promise_then(p0, then_trace, NULL, (void *)a);
  ab_promise_t *p2 = ab_promise_then(p1, then_trace, NULL, (void *)b);
  ab_promise_t *p3 = ab_promise_then(p2, then_trace, NULL, (void *)c);
  ab_promise_release(p0);
  ab_promise_release(p1);
  ab_promise_release(p2);
  ab_promise_release(p3);
}

static size_t live_before;

static int setup(void **state) {
  (void)state;
  trace_reset();
  live_before = ab_promise_live();
  return 0;
}

/* Every test leaves no promise behind, nothing queued and no coroutine alive
 * (stackless frames never make one; async functions give their stacks back). */
static int teardown(void **state) {
  (void)state;
  ab_microtasks_drain();
  assert_int_equal(ab_microtasks_pending(), 0);
  assert_int_equal(ab_promise_live(), live_before);
  assert_int_equal(ab_coro_live(), 0);
  return 0;
}

#endif /* AB_AWAIT_TESTS_H */
