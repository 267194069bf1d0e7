/*
 * test_promise_order.c -- the order in which reactions, microtasks and ticks
 * run matches Node's.
 *
 * Each scenario is written twice: as JavaScript in c/tests/ordering/NAME.js
 * and here as C on the promise core and the queues of microtask.h
 * (process.nextTick is ab_next_tick, queueMicrotask ab_microtask_enqueue),
 * each printing one line per step; the check against the recorded NAME.out
 * and against node is ordering.h's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <uv.h>

#include "ordering.h"
#include "promise.h"

/* ---- the promises a scenario keeps --------------------------------------- */

static ab_promise_t *kept[256];
static size_t nkept;

/* Keeps a reference until the scenario has run (JavaScript's GC stand-in). */
static ab_promise_t *K(ab_promise_t *p) {
  assert_non_null(p);
  assert_true(nkept < sizeof(kept) / sizeof(kept[0]));
  kept[nkept++] = p;
  return p;
}

static ab_promise_t *then(ab_promise_t *p, ab_then_fn f, ab_then_fn r, void *arg) {
  return K(ab_promise_then(p, f, r, arg));
}

static ab_promise_t *resolved(const char *v) {
  return K(ab_promise_resolved((void *)v, NULL));
}

/* ---- handlers ------------------------------------------------------------ */

/* log('x'): prints its label. */
static void log_h(void *arg, ab_promise_t *s, ab_promise_t *out) {
  (void)s, (void)out;
  say("%s", (const char *)arg);
}

/* (v) => console.log('x ' + v), or e.message for a rejection. */
static void log_v(void *arg, ab_promise_t *s, ab_promise_t *out) {
  (void)out;
  if (ab_promise_state(s) == AB_REJECTED)
    say("%s %s", (const char *)arg, ab_promise_message(s));
  else
    say("%s %s", (const char *)arg, (const char *)ab_promise_value(s));
}

/* (vs) => console.log('x ' + vs.join(',')) */
static void log_join(void *arg, ab_promise_t *s, ab_promise_t *out) {
  (void)out;
  const ab_list_t *l = ab_promise_value(s);
  char buf[128] = "";
  for (size_t i = 0; i < l->n; i++) {
    if (i) strcat(buf, ",");
    strcat(buf, l->items[i].ptr);
  }
  say("%s %s", (const char *)arg, buf);
}

/* (vs) => console.log('x ' + vs.length), or e.errors.length for any(). */
static void log_count(void *arg, ab_promise_t *s, ab_promise_t *out) {
  (void)out;
  const ab_list_t *l = ab_promise_state(s) == AB_REJECTED ? ab_promise_reason(s).ptr
                                                          : ab_promise_value(s);
  say("%s %zu", (const char *)arg, l->n);
}

/* (rs) => console.log('x ' + rs.map((r) => r.status).join(',')) */
static void log_status(void *arg, ab_promise_t *s, ab_promise_t *out) {
  (void)out;
  const ab_list_t *l = ab_promise_value(s);
  char buf[128] = "";
  for (size_t i = 0; i < l->n; i++) {
    if (i) strcat(buf, ",");
    strcat(buf, l->items[i].state == AB_FULFILLED ? "fulfilled" : "rejected");
  }
  say("%s %s", (const char *)arg, buf);
}

/* () => { log; return Promise.resolve('x'); } */
static void return_promise(void *arg, ab_promise_t *s, ab_promise_t *out) {
  (void)s;
  say("%s", (const char *)arg);
  ab_promise_resolve(out, ab_promise_resolved("x", NULL), &ab_promise_type);
}

/* () => { log; throw new Error('bad'); } */
static void throw_bad(void *arg, ab_promise_t *s, ab_promise_t *out) {
  (void)s;
  say("%s", (const char *)arg);
  ab_promise_reject(out, 1, "bad");
}

/* (e) => console.log('a2 ' + e.message) */
static void log_a2(void *arg, ab_promise_t *s, ab_promise_t *out) {
  (void)arg, (void)out;
  say("a2 %s", ab_promise_message(s));
}

static ab_promise_t *fin_log(void *arg) {
  say("%s", (const char *)arg);
  return NULL;
}

static ab_promise_t *fin_reject(void *arg) {
  say("%s", (const char *)arg);
  return ab_promise_rejected(1, "override");
}

/* Promise.resolve().then(log('b1')).then(log('b2'))... up to bn. */
static void b_chain(int n) {
  static const char *labels[] = {"b1", "b2", "b3", "b4", "b5", "b6", "b7", "b8"};
  ab_promise_t *p = resolved(NULL);
  for (int i = 0; i < n; i++) p = then(p, log_h, NULL, (void *)labels[i]);
}

/* ---- scenarios (see the .js file of the same name) ----------------------- */

static void s01_basic(void) {
  say("sync 1");
  then(then(resolved(NULL), log_h, NULL, "a1"), log_h, NULL, "a2");
  then(then(resolved(NULL), log_h, NULL, "b1"), log_h, NULL, "b2");
  say("sync 2");
}

static void s02_return_promise(void) {
  then(then(resolved(NULL), return_promise, NULL, "a1"), log_v, NULL, "a2");
  b_chain(5);
}

static void s03_resolve_with_promise(void) {
  ab_promise_t *p = K(ab_promise_new());
  ab_promise_resolve(p, ab_promise_resolved("y", NULL), &ab_promise_type);
  then(p, log_v, NULL, "p");
  b_chain(4);
}

static void s04_rejection_passthrough(void) {
  ab_promise_t *r = K(ab_promise_rejected(1, "boom"));
  then(then(then(r, log_h, NULL, "never"), NULL, log_v, "caught"), log_h, NULL, "after");
  b_chain(4);
}

static void s05_throw_in_then(void) {
  ab_promise_t *p = then(resolved(NULL), throw_bad, NULL, "a1");
  p = then(p, log_h, log_a2, "skipped");
  then(K(ab_promise_finally(p, fin_log, "fin")), log_h, NULL, "a3");
  b_chain(6);
}

static void s06_finally(void) {
  then(K(ab_promise_finally(resolved("v"), fin_log, "f1")), log_v, NULL, "after finally");
  then(K(ab_promise_finally(resolved("w"), fin_reject, "f2")), NULL, log_v, "f2 caught");
  b_chain(6);
}

static ab_promise_t *s07_c;

static void resolve_c(void *arg, ab_promise_t *s, ab_promise_t *out) {
  (void)s, (void)out;
  say("%s", (const char *)arg);
  ab_promise_resolve(s07_c, "c", NULL);
}

static void s07_all(void) {
  ab_promise_t *a = resolved("a");
  s07_c = K(ab_promise_new());
  ab_promise_t *ca[] = {s07_c, a};
  then(K(ab_promise_all(ca, 2)), log_join, NULL, "all");
  then(K(ab_promise_all(NULL, 0)), log_count, NULL, "all empty");
  ab_promise_t *arr[] = {a, K(ab_promise_rejected(1, "first")), K(ab_promise_rejected(1, "second"))};
  then(K(ab_promise_all(arr, 3)), NULL, log_v, "all rejected");
  then(then(then(resolved(NULL), resolve_c, NULL, "resolve c"), log_h, NULL, "b2"), log_h, NULL, "b3");
}

static ab_promise_t *s08_a;

static void resolve_a(void *arg, ab_promise_t *s, ab_promise_t *out) {
  (void)s, (void)out;
  say("%s", (const char *)arg);
  ab_promise_resolve(s08_a, "A", NULL);
}

static void s08_race_any_settled(void) {
  ab_promise_t *a = s08_a = K(ab_promise_new());
  ab_promise_t *b = K(ab_promise_rejected(1, "nope"));
  ab_promise_t *race[] = {a, resolved("r")}, *ba[] = {b, a}, *bb[] = {b}, *ab[] = {a, b};
  then(K(ab_promise_race(race, 2)), log_v, NULL, "race");
  then(K(ab_promise_any(ba, 2)), log_v, NULL, "any");
  then(K(ab_promise_any(bb, 1)), NULL, log_count, "any rejected");
  then(K(ab_promise_any(NULL, 0)), NULL, log_count, "any empty");
  then(K(ab_promise_all_settled(ab, 2)), log_status, NULL, "settled");
  then(resolved(NULL), resolve_a, NULL, "resolve a");
}

static ab_promise_t *s09_p;

static void resolving(void *arg, ab_promise_t *s, ab_promise_t *out) {
  (void)arg, (void)s, (void)out;
  say("resolving");
  ab_promise_resolve(s09_p, "v", NULL);
  then(s09_p, log_h, NULL, "t4");
}

static void s09_multiple_thens(void) {
  ab_promise_t *p = s09_p = K(ab_promise_new());
  then(p, log_h, NULL, "t1");
  then(p, log_h, NULL, "t2");
  then(resolved(NULL), resolving, NULL, NULL);
  then(p, log_h, NULL, "t3");
  b_chain(3);
}

/* { then(onFulfilled) { console.log('then called'); onFulfilled('t'); } } */
static int thenable_get(void *ptr, void **then_fn, ab_reason_t *thrown) {
  (void)thrown;
  *then_fn = ptr;
  return 1;
}

static void thenable_call(void *ptr, void *then_fn, ab_resolver_t *r) {
  (void)ptr, (void)then_fn;
  say("then called");
  ab_resolver_resolve(r, "t", NULL);
  ab_resolver_release(r);
}

static const ab_type_t thenable_type = {"thenable", NULL, NULL, thenable_get, thenable_call};
static int thenable_object;

static void return_thenable(void *arg, ab_promise_t *s, ab_promise_t *out) {
  (void)arg, (void)s;
  ab_promise_resolve(out, &thenable_object, &thenable_type);
}

static void s10_thenable(void) {
  then(then(resolved(NULL), return_thenable, NULL, NULL), log_v, NULL, "got");
  then(K(ab_promise_resolved(&thenable_object, &thenable_type)), log_v, NULL, "direct");
  b_chain(4);
}

static void micro_log(void *arg) { say("%s", (const char *)arg); }

static void micro_m2(void *arg) {
  (void)arg;
  say("m2");
  ab_microtask_enqueue(micro_log, "m3");
}

static void s11_queue_microtask(void) {
  ab_microtask_enqueue(micro_log, "m1");
  then(then(resolved(NULL), log_h, NULL, "a1"), log_h, NULL, "a2");
  ab_microtask_enqueue(micro_m2, NULL);
}

static ab_promise_t *s12_r;

static void nested(void *arg, ab_promise_t *s, ab_promise_t *out) {
  (void)arg, (void)s, (void)out;
  say("a1");
  then(s12_r, log_h, NULL, "nested");
}

static void s12_nested_then(void) {
  ab_promise_t *r = s12_r = resolved("r");
  then(then(r, nested, NULL, NULL), log_h, NULL, "a2");
  then(r, log_h, NULL, "b1");
}

/* Two setTimeout(cb, 0) in a row, then the rest of the main script, then
 * the loop.  Timer callbacks drain the queues at their end, as the style
 * code does (and Node between two timers of one list). */
static void two_timers(uv_timer_cb first, uv_timer_cb second, void (*script)(void)) {
  uv_loop_t loop;
  uv_timer_t t1, t2;
  assert_int_equal(uv_loop_init(&loop), 0);
  uv_timer_init(&loop, &t1);
  uv_timer_init(&loop, &t2);
  uv_timer_start(&t1, first, 0, 0);
  uv_timer_start(&t2, second, 0, 0);
  script();
  ab_microtasks_drain();  /* the end of the main script */
  assert_int_equal(ab_promise_loop_attach(&loop), 0);
  ab_promise_loop_run(&loop);
  uv_close((uv_handle_t *)&t1, NULL);
  uv_close((uv_handle_t *)&t2, NULL);
  ab_promise_loop_detach();
  ab_promise_loop_run(&loop);
  assert_int_equal(uv_loop_close(&loop), 0);
}

static void timeout_1(uv_timer_t *t) {
  (void)t;
  say("timeout 1");
  then(then(resolved(NULL), log_h, NULL, "micro 1"), log_h, NULL, "micro 2");
  ab_microtasks_drain();
}

static void timeout_2(uv_timer_t *t) {
  (void)t;
  say("timeout 2");
  ab_microtasks_drain();
}

static void s13_script(void) {
  then(resolved(NULL), log_h, NULL, "sync micro");
  say("sync");
}

static void s13_timers(void) { two_timers(timeout_1, timeout_2, s13_script); }

/* ---- ticks (process.nextTick) -------------------------------------------- */

/* process.nextTick(fn): ab_next_tick, which must not fail here. */
static void tick(ab_microtask_fn fn, void *arg) { assert_int_equal(ab_next_tick(fn, arg), 0); }

static void tick_before_promises(void) {
  say("sync");
  then(then(resolved(NULL), log_h, NULL, "a1"), log_h, NULL, "a2");
  tick(micro_log, "t1");
  ab_microtask_enqueue(micro_log, "m1");
  tick(micro_log, "t2");
}

static void nested_t3(void *arg) {
  (void)arg;
  say("t3");
  tick(micro_log, "t4");
}

static void nested_t1(void *arg) {
  (void)arg;
  say("t1");
  then(resolved(NULL), log_h, NULL, "a2");
  tick(nested_t3, NULL);
}

static void tick_nested(void) {
  then(resolved(NULL), log_h, NULL, "a1");
  tick(nested_t1, NULL);
  tick(micro_log, "t2");
}

static void from_promise_p1(void *arg, ab_promise_t *s, ab_promise_t *out) {
  (void)arg, (void)s, (void)out;
  say("p1");
  tick(micro_log, "t3");
}

static void from_promise_t1(void *arg) {
  (void)arg;
  say("t1");
  then(resolved(NULL), from_promise_p1, NULL, NULL);
  tick(micro_log, "t2");
}

static void from_promise_a1(void *arg, ab_promise_t *s, ab_promise_t *out) {
  (void)arg, (void)s, (void)out;
  say("a1");
  tick(from_promise_t1, NULL);
}

static void tick_from_promise(void) {
  ab_promise_t *p = then(resolved(NULL), from_promise_a1, NULL, NULL);
  then(then(p, log_h, NULL, "a2"), log_h, NULL, "a3");
  ab_microtask_enqueue(micro_log, "m1");
}

static void queue_m1(void *arg) {
  (void)arg;
  say("m1");
  tick(micro_log, "t2");
  ab_microtask_enqueue(micro_log, "m2");
}

static void queue_t1(void *arg) {
  (void)arg;
  say("t1");
  ab_microtask_enqueue(micro_log, "m3");
}

static void tick_queue_microtask(void) {
  ab_microtask_enqueue(queue_m1, NULL);
  tick(queue_t1, NULL);
}

static void timers_micro_1(void *arg, ab_promise_t *s, ab_promise_t *out) {
  (void)arg, (void)s, (void)out;
  say("micro 1");
  tick(micro_log, "tick from micro 1");
}

static void timers_tick_1(void *arg) {
  (void)arg;
  say("tick 1");
  then(resolved(NULL), log_h, NULL, "micro from tick 1");
}

static void tick_timeout_1(uv_timer_t *t) {
  (void)t;
  say("timeout 1");
  then(resolved(NULL), timers_micro_1, NULL, NULL);
  tick(timers_tick_1, NULL);
  ab_microtasks_drain();
}

static void tick_timeout_2(uv_timer_t *t) {
  (void)t;
  say("timeout 2");
  then(resolved(NULL), log_h, NULL, "micro 2");
  tick(micro_log, "tick 2");
  ab_microtasks_drain();
}

static void tick_timers_script(void) {
  tick(micro_log, "sync tick");
  say("sync");
}

static void tick_timers(void) { two_timers(tick_timeout_1, tick_timeout_2, tick_timers_script); }

/* ---- the runner ---------------------------------------------------------- */

typedef struct scenario_s {
  const char *name;
  void (*fn)(void);
} scenario_t;

static size_t unhandled;

static void count_unhandled(void *arg, ab_promise_t *p) {
  (void)arg, (void)p;
  unhandled++;
}

static void run_scenario(void **state) {
  const scenario_t *sc = *state;

  trace_reset();
  nkept = 0;
  unhandled = 0;
  ab_promise_on_unhandled(count_unhandled, NULL);
  sc->fn();
  ab_microtasks_drain();
  for (size_t i = 0; i < nkept; i++) ab_promise_release(kept[i]);
  ab_microtasks_drain();
  assert_int_equal(ab_promise_live(), 0);
  assert_int_equal(unhandled, 0);
  ordering_check(sc->name);
}

static const scenario_t scenarios[] = {
  {"01_basic", s01_basic},
  {"02_return_promise", s02_return_promise},
  {"03_resolve_with_promise", s03_resolve_with_promise},
  {"04_rejection_passthrough", s04_rejection_passthrough},
  {"05_throw_in_then", s05_throw_in_then},
  {"06_finally", s06_finally},
  {"07_all", s07_all},
  {"08_race_any_settled", s08_race_any_settled},
  {"09_multiple_thens", s09_multiple_thens},
  {"10_thenable", s10_thenable},
  {"11_queue_microtask", s11_queue_microtask},
  {"12_nested_then", s12_nested_then},
  {"13_timers", s13_timers},
  {"tick-before-promises", tick_before_promises},
  {"tick-nested", tick_nested},
  {"tick-from-promise", tick_from_promise},
  {"tick-queue-microtask", tick_queue_microtask},
  {"tick-timers", tick_timers},
};

#define T(i, name) {"ordering " name, run_scenario, NULL, NULL, (void *)&scenarios[i]}

int main(void) {
  const struct CMUnitTest tests[] = {
    T(0, "01_basic"), T(1, "02_return_promise"), T(2, "03_resolve_with_promise"),
    T(3, "04_rejection_passthrough"), T(4, "05_throw_in_then"), T(5, "06_finally"),
    T(6, "07_all"), T(7, "08_race_any_settled"), T(8, "09_multiple_thens"),
    T(9, "10_thenable"), T(10, "11_queue_microtask"), T(11, "12_nested_then"),
    T(12, "13_timers"), T(13, "tick-before-promises"), T(14, "tick-nested"),
    T(15, "tick-from-promise"), T(16, "tick-queue-microtask"), T(17, "tick-timers"),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  ab_promise_pool_trim();
  return rc;
}
