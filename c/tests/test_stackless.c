/*
 * test_stackless.c -- switch-based state machines (stackless.h) awaiting
 * promises: the same Node ordering scenarios as test_async.c, rejections,
 * early return, and 10,000 frames suspended at once.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <string.h>

#include "await_tests.h"
#include "stackless.h"

/* A stackless async function with a result promise, like an async function:
 * fulfilled with `value` when it ends with 0, rejected with the code. */
typedef struct frame_s {
  ab_pt_t pt;
  ab_promise_t *result;  /* owned */
  ab_promise_t *p;       /* the promise being awaited */
  void *arg;
  void *value;
  int i;
} frame_t;

static void frame_done(ab_pt_t *pt) {
  frame_t *f = AB_PT_FRAME(pt, frame_t, pt);
  if (pt->result == 0)
    ab_promise_resolve(f->result, f->value, NULL);
  else
    ab_promise_reject(f->result, pt->result, NULL);
}

/* Starts step on frame f and returns a new reference to its result. */
static ab_promise_t *frame_start(frame_t *f, ab_pt_step_fn step, void *arg) {
  memset(f, 0, sizeof(*f));
  f->result = ab_promise_new();
  f->arg = arg;
  ab_promise_t *r = ab_promise_retain(f->result);
  ab_pt_start(&f->pt, step, frame_done);
  return r;
}

static void frame_free(frame_t *f) { ab_promise_release(f->result); }

/* `await null` in a frame: f->p keeps the promise across the suspension. */
#define AWAIT_NULL(pt, f)                     \
  do {                                        \
    (f)->p = ab_promise_resolved(NULL, NULL); \
    AB_PT_AWAIT((pt), (f)->p);                \
    ab_promise_release((f)->p);               \
  } while (0)

/* ---- ordering scenarios (snippets in c/tests/ordering/) --------------- */

static int f_vs_then(ab_pt_t *pt) {
  frame_t *f = AB_PT_FRAME(pt, frame_t, pt);
  AB_PT_BEGIN(pt);
  trace("f1");
  AWAIT_NULL(pt, f);
  trace("f2");
  AWAIT_NULL(pt, f);
  trace("f3");
  AB_PT_END(pt);
}

static void test_await_vs_then(void **state) {
  (void)state;
  frame_t f;
  ab_promise_release(frame_start(&f, f_vs_then, NULL));
  then_chain("t1", "t2", "t3");
  trace("sync");
  ab_microtasks_drain();
  frame_free(&f);
  ordering_check("await-vs-then");
}

static int f_pending(ab_pt_t *pt) {
  frame_t *f = AB_PT_FRAME(pt, frame_t, pt);
  AB_PT_BEGIN(pt);
  trace("f-start");
  AB_PT_AWAIT(pt, (ab_promise_t *)f->arg);
  assert_int_equal(pt->code, 0);
  tracef("f-got-%d", *(int *)pt->value);
  AB_PT_END(pt);
}

static void test_await_pending(void **state) {
  (void)state;
  frame_t f;
  ab_promise_t *p = ab_promise_new();
  ab_promise_release(frame_start(&f, f_pending, p));
  ab_promise_release(ab_promise_then(p, then_trace_int, NULL, "then-"));
  ab_promise_resolve(p, &seven, NULL);
  trace("resolved");
  ab_microtasks_drain();
  ab_promise_release(p);
  frame_free(&f);
  ordering_check("await-pending");
}

static int f_rethrow(ab_pt_t *pt) {
  frame_t *f = AB_PT_FRAME(pt, frame_t, pt);
  AB_PT_BEGIN(pt);
  f->p = ab_promise_rejected(E1, "E1");
  AB_PT_AWAIT(pt, f->p);
  ab_promise_release(f->p);
  if (pt->code != 0) {
    trace("caught");
    AB_PT_RETURN(pt, pt->code);
  }
  trace("not reached");
  AB_PT_END(pt);
}

static void test_await_rejection(void **state) {
  (void)state;
  frame_t f;
  ab_promise_t *fp = frame_start(&f, f_rethrow, NULL);
  ab_promise_release(ab_promise_catch(fp, then_trace, "outer-catch"));
  then_chain("t1", "t2", "t3");
  ab_microtasks_drain();
  ordering_check("await-rejection");
  assert_int_equal(ab_promise_state(fp), AB_REJECTED);
  assert_int_equal(ab_promise_code(fp), E1);
  ab_promise_release(fp);
  frame_free(&f);
}

static int f_loop(ab_pt_t *pt) {
  frame_t *f = AB_PT_FRAME(pt, frame_t, pt);
  AB_PT_BEGIN(pt);
  for (f->i = 0; f->i < 3; f->i++) {
    tracef("%s%d", (const char *)f->arg, f->i);
    AWAIT_NULL(pt, f);
  }
  AB_PT_END(pt);
}

static void test_await_interleave(void **state) {
  (void)state;
  frame_t a, b;
  ab_promise_release(frame_start(&a, f_loop, "a"));
  ab_promise_release(frame_start(&b, f_loop, "b"));
  trace("sync");
  ab_microtasks_drain();
  frame_free(&a);
  frame_free(&b);
  ordering_check("await-interleave");
}

static int f_adopt(ab_pt_t *pt) {
  frame_t *f = AB_PT_FRAME(pt, frame_t, pt);
  AB_PT_BEGIN(pt);
  AB_PT_AWAIT(pt, (ab_promise_t *)f->arg);
  assert_ptr_equal(pt->value, &one);
  trace("f");
  AB_PT_END(pt);
}

static void test_await_adopted(void **state) {
  (void)state;
  frame_t f;
  ab_promise_t *p = ab_promise_new();
  ab_promise_release(frame_start(&f, f_adopt, p));
  ab_promise_t *x = ab_promise_resolved(&one, NULL);
  ab_promise_resolve_promise(p, x);
  ab_promise_release(x);
  then_chain("t1", "t2", "t3");
  ab_microtasks_drain();
  ab_promise_release(p);
  frame_free(&f);
  ordering_check("await-adopted");
}

static int inner_awaits(ab_pt_t *pt) {
  frame_t *f = AB_PT_FRAME(pt, frame_t, pt);
  AB_PT_BEGIN(pt);
  trace("i1");
  AWAIT_NULL(pt, f);
  trace("i2");
  f->value = x_value;
  AB_PT_END(pt);
}

/* The outer frame keeps the inner frame inside itself. */
typedef struct outer_s {
  frame_t self;
  frame_t inner;
} outer_t;

static int outer_awaits(ab_pt_t *pt) {
  outer_t *o = AB_PT_FRAME(pt, outer_t, self.pt);
  AB_PT_BEGIN(pt);
  trace("o1");
  o->self.p = frame_start(&o->inner, inner_awaits, NULL);
  AB_PT_AWAIT(pt, o->self.p);
  ab_promise_release(o->self.p);
  frame_free(&o->inner);
  tracef("o2-%s", (const char *)pt->value);
  AB_PT_END(pt);
}

static void test_await_nested(void **state) {
  (void)state;
  outer_t o;
  ab_promise_release(frame_start(&o.self, outer_awaits, NULL));
  trace("sync");
  then_chain("t1", "t2", "t3");
  ab_microtasks_drain();
  frame_free(&o.self);
  ordering_check("await-nested");
}

/* ---- semantics -------------------------------------------------------- */

static void test_settled_promise_still_yields(void **state) {
  (void)state;
  frame_t f;
  ab_promise_t *p = ab_promise_resolved(&one, NULL);
  ab_promise_t *fp = frame_start(&f, f_adopt, p);
  assert_true(f.pt.line > 0); /* suspended at its await although p settled */
  assert_int_equal(ab_promise_state(fp), AB_PENDING);
  assert_string_equal(trace_buf, "");
  assert_int_equal(ab_microtasks_drain(), 1); /* exactly one tick */
  assert_string_equal(trace_buf, "f");
  assert_int_equal(ab_promise_state(fp), AB_FULFILLED);
  assert_int_equal(f.pt.line, -1);
  /* stepping a finished frame does nothing */
  assert_int_equal(f.pt.step(&f.pt), AB_PT_DONE);
  assert_string_equal(trace_buf, "f");
  ab_promise_release(p);
  ab_promise_release(fp);
  frame_free(&f);
}

#define MANY 10000
static long resumed;

static int f_gate(ab_pt_t *pt) {
  frame_t *f = AB_PT_FRAME(pt, frame_t, pt);
  AB_PT_BEGIN(pt);
  AB_PT_AWAIT(pt, (ab_promise_t *)f->arg);
  resumed++;
  f->value = pt->value;
  AB_PT_END(pt);
}

static void test_ten_thousand_suspended(void **state) {
  (void)state;
  ab_promise_t *gate = ab_promise_new();
  frame_t *fs = calloc(MANY, sizeof(*fs));
  assert_non_null(fs);
  resumed = 0;
  for (int i = 0; i < MANY; i++)
    ab_promise_release(frame_start(&fs[i], f_gate, gate));
  ab_microtasks_drain();
  assert_int_equal(resumed, 0);
  ab_promise_resolve(gate, &seven, NULL);
  ab_microtasks_drain();
  assert_int_equal(resumed, MANY);
  for (int i = 0; i < MANY; i++) {
    assert_int_equal(ab_promise_state(fs[i].result), AB_FULFILLED);
    assert_ptr_equal(ab_promise_value(fs[i].result), &seven);
    frame_free(&fs[i]);
  }
  free(fs);
  ab_promise_release(gate);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_await_vs_then, setup, teardown),
      cmocka_unit_test_setup_teardown(test_await_pending, setup, teardown),
      cmocka_unit_test_setup_teardown(test_await_rejection, setup, teardown),
      cmocka_unit_test_setup_teardown(test_await_interleave, setup, teardown),
      cmocka_unit_test_setup_teardown(test_await_adopted, setup, teardown),
      cmocka_unit_test_setup_teardown(test_await_nested, setup, teardown),
      cmocka_unit_test_setup_teardown(test_settled_promise_still_yields, setup, teardown),
      cmocka_unit_test_setup_teardown(test_ten_thousand_suspended, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
