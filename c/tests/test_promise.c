/*
 * test_promise.c -- the promise core: state machine, asynchronous reactions,
 * chaining, adoption (promises and thenables, self-resolution), combinators
 * with empty input, finally, ownership of typed values, unhandled rejections
 * and the libuv safety net (the queues themselves are test_microtask.c's).
 * Every test ends with no promise alive (ab_promise_live() == 0).
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
#include <uv.h>

#include "promise.h"

/* ---- helpers ------------------------------------------------------------- */

static size_t unhandled_seen;
static int last_unhandled_code;

static void on_unhandled(void *arg, ab_promise_t *p) {
  (void)arg;
  unhandled_seen++;
  last_unhandled_code = ab_promise_code(p);
}

static int setup(void **state) {
  (void)state;
  unhandled_seen = 0;
  last_unhandled_code = 0;
  ab_promise_on_unhandled(on_unhandled, NULL);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  ab_microtasks_drain();
  assert_int_equal(ab_microtasks_pending(), 0);
  assert_int_equal(ab_promise_live(), 0);
  return 0;
}

/* A handler that records that it ran and what it saw. */
typedef struct seen_s {
  int calls;
  ab_promise_state_t state;
  intptr_t value;
  int code;
} seen_t;

static void record(void *arg, ab_promise_t *s, ab_promise_t *out) {
  (void)out;
  seen_t *seen = arg;
  seen->calls++;
  seen->state = ab_promise_state(s);
  seen->value = (intptr_t)ab_promise_value(s);
  seen->code = ab_promise_code(s);
}

/* v => v + 1 */
static void add_one(void *arg, ab_promise_t *s, ab_promise_t *out) {
  (void)arg;
  ab_promise_resolve(out, (void *)((intptr_t)ab_promise_value(s) + 1), NULL);
}

/* () => {}: handles a rejection */
static void ignore(void *arg, ab_promise_t *s, ab_promise_t *out) {
  (void)arg, (void)s, (void)out;
}

/* () => { throw code 42 } */
static void throw_42(void *arg, ab_promise_t *s, ab_promise_t *out) {
  (void)arg, (void)s;
  ab_promise_reject(out, 42, "forty-two");
}

/* A reference-counted value whose count the tests watch. */
typedef struct counted_s {
  int refs;
  int freed;
} counted_t;

static void counted_retain(void *p) { ((counted_t *)p)->refs++; }
static void counted_release(void *p) {
  counted_t *c = p;
  if (--c->refs == 0) c->freed = 1;
}
static const ab_type_t counted_type = {"counted", counted_retain, counted_release, NULL, NULL};

/* ---- state machine ------------------------------------------------------- */

static void settles_once(void **state) {
  (void)state;
  ab_promise_t *p = ab_promise_new();
  assert_int_equal(ab_promise_state(p), AB_PENDING);
  assert_false(ab_promise_is_resolved(p));
  assert_null(ab_promise_value(p));
  assert_int_equal(ab_promise_resolve(p, (void *)7, NULL), 0);
  assert_int_equal(ab_promise_state(p), AB_FULFILLED);
  assert_int_equal((intptr_t)ab_promise_value(p), 7);
  assert_int_equal(ab_promise_resolve(p, (void *)8, NULL), AB_EALREADY);
  assert_int_equal(ab_promise_reject(p, 1, "late"), AB_EALREADY);
  assert_int_equal((intptr_t)ab_promise_value(p), 7);
  assert_int_equal(ab_promise_code(p), 0);
  assert_null(ab_promise_message(p));
  ab_promise_release(p);

  ab_promise_t *r = ab_promise_new();
  seen_t seen = {0};
  ab_promise_release(ab_promise_catch(r, record, &seen));
  assert_int_equal(ab_promise_reject(r, UV_ENOENT, NULL), 0);
  assert_int_equal(ab_promise_state(r), AB_REJECTED);
  assert_int_equal(ab_promise_code(r), UV_ENOENT);
  assert_string_equal(ab_promise_message(r), uv_strerror(UV_ENOENT));
  assert_null(ab_promise_value(r));
  assert_int_equal(ab_promise_resolve(r, NULL, NULL), AB_EALREADY);
  ab_microtasks_drain();
  assert_int_equal(seen.calls, 1);
  assert_int_equal(seen.code, UV_ENOENT);
  ab_promise_release(r);
}

static void reactions_run_asynchronously(void **state) {
  (void)state;
  seen_t seen = {0};
  ab_promise_t *p = ab_promise_resolved((void *)5, NULL);
  /* Promise.resolve(5): fulfilled and resolved at once, untyped */
  assert_int_equal(ab_promise_state(p), AB_FULFILLED);
  assert_true(ab_promise_is_resolved(p));
  assert_null(ab_promise_value_type(p));
  assert_int_equal(ab_promise_resolve(p, (void *)6, NULL), AB_EALREADY);
  ab_promise_t *d = ab_promise_then(p, record, record, &seen);
  assert_int_equal(seen.calls, 0);  /* not during then, though p is settled */
  assert_int_equal(ab_microtasks_pending(), 1);
  assert_int_equal(ab_microtasks_drain(), 1);
  assert_int_equal(seen.calls, 1);
  assert_int_equal(seen.state, AB_FULFILLED);
  assert_int_equal(seen.value, 5);
  /* The handler settled nothing: the derived promise holds undefined. */
  assert_int_equal(ab_promise_state(d), AB_FULFILLED);
  assert_null(ab_promise_value(d));
  ab_promise_release(d);
  ab_promise_release(p);
}

static void chain_passes_values_and_rejections(void **state) {
  (void)state;
  seen_t ok = {0}, bad = {0};
  ab_promise_t *p = ab_promise_new();
  ab_promise_t *a = ab_promise_then(p, add_one, NULL, NULL);
  ab_promise_t *b = ab_promise_then(a, add_one, NULL, NULL);
  ab_promise_t *c = ab_promise_then(b, record, NULL, &ok);
  ab_promise_resolve(p, (void *)40, NULL);
  ab_microtasks_drain();
  assert_int_equal(ok.calls, 1);
  assert_int_equal(ok.value, 42);

  /* A reaction that returns a rejection; the rejection skips on_fulfilled
   * handlers and reaches the next on_rejected; catch recovers. */
  ab_promise_t *t = ab_promise_then(c, throw_42, NULL, NULL);
  ab_promise_t *skip = ab_promise_then(t, add_one, NULL, NULL);
  ab_promise_t *caught = ab_promise_catch(skip, record, &bad);
  ab_promise_t *after = ab_promise_then(caught, add_one, NULL, NULL);
  ab_microtasks_drain();
  assert_int_equal(ab_promise_state(t), AB_REJECTED);
  assert_int_equal(ab_promise_code(skip), 42);
  assert_string_equal(ab_promise_message(skip), "forty-two");
  assert_int_equal(bad.calls, 1);
  assert_int_equal(bad.code, 42);
  assert_int_equal(ab_promise_state(caught), AB_FULFILLED);
  assert_int_equal((intptr_t)ab_promise_value(after), 1);  /* undefined + 1 */
  ab_promise_t *all[] = {p, a, b, c, t, skip, caught, after};
  for (size_t i = 0; i < 8; i++) ab_promise_release(all[i]);
  assert_int_equal(unhandled_seen, 0);
}

/* ---- adoption ------------------------------------------------------------ */

static void adopts_a_pending_promise(void **state) {
  (void)state;
  seen_t seen = {0};
  ab_promise_t *inner = ab_promise_new();
  ab_promise_t *outer = ab_promise_new();
  assert_int_equal(ab_promise_resolve_promise(outer, inner), 0);
  assert_true(ab_promise_is_resolved(outer));
  assert_int_equal(ab_promise_reject(outer, 1, NULL), AB_EALREADY);  /* locked in */
  ab_promise_release(ab_promise_then(outer, record, record, &seen));
  ab_microtasks_drain();
  assert_int_equal(ab_promise_state(outer), AB_PENDING);
  ab_promise_resolve(inner, (void *)9, NULL);
  ab_microtasks_drain();
  assert_int_equal(ab_promise_state(outer), AB_FULFILLED);
  assert_int_equal((intptr_t)ab_promise_value(outer), 9);
  assert_int_equal(seen.value, 9);

  /* ...and a rejected one: the reason is the inner one. */
  ab_promise_t *r = ab_promise_rejected(UV_EIO, NULL);
  ab_promise_t *o2 = ab_promise_new();
  ab_promise_resolve_promise(o2, r);
  ab_promise_release(ab_promise_catch(o2, record, &seen));
  ab_microtasks_drain();
  assert_int_equal(ab_promise_code(o2), UV_EIO);
  assert_int_equal(seen.code, UV_EIO);
  ab_promise_release(r);
  ab_promise_release(o2);
  ab_promise_release(inner);
  ab_promise_release(outer);
  assert_int_equal(unhandled_seen, 0);
}

static void return_self(void *arg, ab_promise_t *s, ab_promise_t *out) {
  (void)arg, (void)s;
  ab_promise_resolve_promise(out, out);
}

static void self_resolution_is_a_type_error(void **state) {
  (void)state;
  ab_promise_t *p = ab_promise_new();
  ab_promise_resolve_promise(p, p);
  assert_int_equal(ab_promise_state(p), AB_REJECTED);
  assert_int_equal(ab_promise_code(p), AB_ETYPE);
  ab_microtasks_drain();
  assert_int_equal(unhandled_seen, 1);  /* nobody handled it */
  assert_int_equal(last_unhandled_code, AB_ETYPE);
  ab_promise_release(p);

  /* The A+ 2.3.1 case: a then handler returning its own derived promise. */
  seen_t seen = {0};
  ab_promise_t *q = ab_promise_resolved(NULL, NULL);
  ab_promise_t *d = ab_promise_then(q, return_self, NULL, NULL);
  ab_promise_release(ab_promise_catch(d, record, &seen));
  ab_microtasks_drain();
  assert_int_equal(seen.code, AB_ETYPE);
  ab_promise_release(d);
  ab_promise_release(q);
}

/* A thenable that misbehaves as A+ 2.3.3 allows: calls back twice, throws
 * after resolving, or fails when its then is looked up. */
typedef struct thenable_s {
  int mode;        /* 0: resolve twice then throw; 1: lookup throws; 2: reject */
  int get_calls;
  int call_calls;
} thenable_t;

static int thenable_get(void *ptr, void **then, ab_reason_t *thrown) {
  thenable_t *t = ptr;
  t->get_calls++;
  if (t->mode == 1) {
    thrown->code = 77;
    thrown->message = "getter threw";
    return -1;
  }
  *then = t;
  return 1;
}

static void thenable_call(void *ptr, void *then, ab_resolver_t *r) {
  thenable_t *t = ptr;
  assert_ptr_equal(then, t);
  t->call_calls++;
  if (t->mode == 2) {
    ab_resolver_reject(r, (ab_reason_t){78, "thenable rejected", NULL, NULL});
  } else {
    assert_int_equal(ab_resolver_resolve(r, (void *)11, NULL), 0);
    assert_int_equal(ab_resolver_resolve(r, (void *)12, NULL), AB_EALREADY);
    assert_int_equal(ab_resolver_reject(r, (ab_reason_t){1, "throw after", NULL, NULL}),
                     AB_EALREADY);
  }
  ab_resolver_release(r);
}

static const ab_type_t thenable_type = {"thenable", NULL, NULL, thenable_get, thenable_call};

static void adopts_thenables(void **state) {
  (void)state;
  thenable_t t0 = {0, 0, 0}, t1 = {1, 0, 0}, t2 = {2, 0, 0};
  ab_promise_t *p0 = ab_promise_resolved(&t0, &thenable_type);
  ab_promise_t *p1 = ab_promise_resolved(&t1, &thenable_type);
  ab_promise_t *p2 = ab_promise_resolved(&t2, &thenable_type);
  assert_int_equal(t0.get_calls, 1);  /* then is looked up once, at once */
  assert_int_equal(t0.call_calls, 0);  /* and called from a microtask */
  assert_int_equal(ab_promise_state(p1), AB_REJECTED);
  assert_int_equal(ab_promise_code(p1), 77);
  seen_t s0 = {0}, s1 = {0}, s2 = {0};
  ab_promise_release(ab_promise_then(p0, record, record, &s0));
  ab_promise_release(ab_promise_then(p1, record, record, &s1));
  ab_promise_release(ab_promise_then(p2, record, record, &s2));
  ab_microtasks_drain();
  assert_int_equal(t0.call_calls, 1);
  assert_int_equal(s0.state, AB_FULFILLED);
  assert_int_equal(s0.value, 11);
  assert_int_equal(s1.code, 77);
  assert_int_equal(t1.call_calls, 0);
  assert_int_equal(s2.code, 78);
  ab_promise_release(p0);
  ab_promise_release(p1);
  ab_promise_release(p2);
  assert_int_equal(unhandled_seen, 0);
}

/* ---- ownership ----------------------------------------------------------- */

static void typed_values_are_released(void **state) {
  (void)state;
  counted_t v = {1, 0};
  ab_promise_t *p = ab_promise_new();
  ab_promise_resolve(p, &v, &counted_type);  /* moves our one reference */
  ab_promise_t *pass = ab_promise_then(p, NULL, NULL, NULL);  /* copies it on */
  ab_promise_t *in[] = {p, pass};
  ab_promise_t *all = ab_promise_all(in, 2);
  ab_microtasks_drain();
  assert_ptr_equal(ab_promise_value(pass), &v);
  const ab_list_t *l = ab_promise_value(all);
  assert_int_equal(l->n, 2);
  assert_ptr_equal(l->items[0].ptr, &v);
  assert_ptr_equal(l->items[1].type, &counted_type);
  assert_int_equal(v.refs, 4);  /* p, pass, and the list's two items */
  ab_promise_release(all);
  ab_promise_release(pass);
  assert_false(v.freed);
  ab_promise_release(p);
  assert_int_equal(v.refs, 0);
  assert_true(v.freed);

  /* A value given to an already resolved promise is released at once. */
  counted_t w = {1, 0};
  ab_promise_t *q = ab_promise_resolved(NULL, NULL);
  assert_int_equal(ab_promise_resolve(q, &w, &counted_type), AB_EALREADY);
  assert_true(w.freed);
  ab_promise_release(q);

  /* A pending promise nobody can settle is freed with its reactions, which
   * are dropped (their derived promises too). */
  seen_t seen = {0};
  ab_promise_t *orphan = ab_promise_new();
  ab_promise_t *d = ab_promise_then(orphan, record, record, &seen);
  ab_promise_release(orphan);
  ab_promise_release(d);
  assert_int_equal(seen.calls, 0);
}

/* ---- combinators --------------------------------------------------------- */

static void all_keeps_order_and_first_rejection_wins(void **state) {
  (void)state;
  ab_promise_t *a = ab_promise_new(), *b = ab_promise_new(), *c = ab_promise_new();
  ab_promise_t *in[] = {a, b, c};
  ab_promise_t *all = ab_promise_all(in, 3);
  ab_promise_resolve(c, (void *)3, NULL);
  ab_promise_resolve(a, (void *)1, NULL);
  ab_microtasks_drain();
  assert_int_equal(ab_promise_state(all), AB_PENDING);
  ab_promise_resolve(b, (void *)2, NULL);
  ab_microtasks_drain();
  assert_int_equal(ab_promise_state(all), AB_FULFILLED);
  const ab_list_t *l = ab_promise_value(all);
  assert_int_equal(l->n, 3);
  for (size_t i = 0; i < 3; i++) {
    assert_int_equal(l->items[i].state, AB_FULFILLED);
    assert_int_equal((intptr_t)l->items[i].ptr, (intptr_t)i + 1);
  }
  ab_promise_release(all);

  ab_promise_t *x = ab_promise_new(), *y = ab_promise_new(), *z = ab_promise_new();
  ab_promise_t *in2[] = {x, y, z};
  all = ab_promise_all(in2, 3);
  ab_promise_release(ab_promise_catch(all, ignore, NULL));
  ab_promise_reject(z, 30, "z");
  ab_promise_reject(y, 20, "y");
  ab_promise_resolve(x, NULL, NULL);
  ab_microtasks_drain();
  assert_int_equal(ab_promise_code(all), 30);
  ab_promise_t *free_me[] = {a, b, c, x, y, z, all};
  for (size_t i = 0; i < 7; i++) ab_promise_release(free_me[i]);
  ab_microtasks_drain();
  assert_int_equal(unhandled_seen, 0);
}

static void combinators_on_empty_input(void **state) {
  (void)state;
  ab_promise_t *all = ab_promise_all(NULL, 0);
  ab_promise_t *settled = ab_promise_all_settled(NULL, 0);
  ab_promise_t *race = ab_promise_race(NULL, 0);
  ab_promise_t *any = ab_promise_any(NULL, 0);
  assert_int_equal(ab_promise_state(all), AB_FULFILLED);
  assert_int_equal(((ab_list_t *)ab_promise_value(all))->n, 0);
  assert_int_equal(ab_promise_state(settled), AB_FULFILLED);
  assert_int_equal(((ab_list_t *)ab_promise_value(settled))->n, 0);
  assert_int_equal(ab_promise_state(race), AB_PENDING);
  assert_int_equal(ab_promise_state(any), AB_REJECTED);
  assert_int_equal(ab_promise_code(any), AB_EAGGREGATE);
  ab_reason_t why = ab_promise_reason(any);
  assert_ptr_equal(why.type, &ab_list_type);
  assert_int_equal(((ab_list_t *)why.ptr)->n, 0);
  ab_microtasks_drain();
  assert_int_equal(unhandled_seen, 1);  /* any([]) with no catch, as in Node */
  ab_promise_release(all);
  ab_promise_release(settled);
  ab_promise_release(race);
  ab_promise_release(any);
}

static void all_settled_race_any(void **state) {
  (void)state;
  ab_promise_t *a = ab_promise_new(), *b = ab_promise_new();
  ab_promise_t *in[] = {a, b};
  ab_promise_t *settled = ab_promise_all_settled(in, 2);
  ab_promise_t *race = ab_promise_race(in, 2);
  ab_promise_t *any = ab_promise_any(in, 2);
  ab_promise_release(ab_promise_catch(race, ignore, NULL));
  ab_promise_reject(b, 5, "b failed");
  ab_microtasks_drain();
  assert_int_equal(ab_promise_code(race), 5);  /* first to settle, a rejection */
  assert_int_equal(ab_promise_state(any), AB_PENDING);
  ab_promise_resolve(a, (void *)1, NULL);
  ab_microtasks_drain();
  assert_int_equal((intptr_t)ab_promise_value(any), 1);
  const ab_list_t *l = ab_promise_value(settled);
  assert_int_equal(l->items[0].state, AB_FULFILLED);
  assert_int_equal((intptr_t)l->items[0].ptr, 1);
  assert_int_equal(l->items[1].state, AB_REJECTED);
  assert_int_equal(l->items[1].code, 5);
  assert_string_equal(l->items[1].message, "b failed");

  /* any: every input rejects -> an aggregate with the reasons in order. */
  ab_promise_t *c = ab_promise_new(), *d = ab_promise_new();
  ab_promise_t *in2[] = {c, d};
  ab_promise_t *none = ab_promise_any(in2, 2);
  ab_promise_reject(d, 2, "d");
  ab_promise_reject(c, 1, "c");
  ab_promise_release(ab_promise_catch(none, ignore, NULL));
  ab_microtasks_drain();
  assert_int_equal(ab_promise_code(none), AB_EAGGREGATE);
  assert_string_equal(ab_promise_message(none), "All promises were rejected");
  const ab_list_t *errs = ab_promise_reason(none).ptr;
  assert_int_equal(errs->n, 2);
  assert_int_equal(errs->items[0].code, 1);
  assert_int_equal(errs->items[1].code, 2);
  ab_promise_t *free_me[] = {a, b, c, d, settled, race, any, none};
  for (size_t i = 0; i < 8; i++) ab_promise_release(free_me[i]);
  ab_microtasks_drain();
  assert_int_equal(unhandled_seen, 0);
}

/* ---- finally ------------------------------------------------------------- */

static int finally_calls;

static ab_promise_t *count_finally(void *arg) {
  (void)arg;
  finally_calls++;
  return NULL;
}

static ab_promise_t *reject_finally(void *arg) {
  (void)arg;
  finally_calls++;
  return ab_promise_rejected(99, "finally failed");
}

static void finally_passes_through_or_overrides(void **state) {
  (void)state;
  finally_calls = 0;
  ab_promise_t *ok = ab_promise_resolved((void *)3, NULL);
  ab_promise_t *bad = ab_promise_rejected(4, "bad");
  ab_promise_t *f1 = ab_promise_finally(ok, count_finally, NULL);
  ab_promise_t *f2 = ab_promise_finally(bad, count_finally, NULL);
  ab_promise_t *f3 = ab_promise_finally(ok, reject_finally, NULL);
  ab_promise_release(ab_promise_catch(f2, ignore, NULL));
  ab_promise_release(ab_promise_catch(f3, ignore, NULL));
  ab_microtasks_drain();
  assert_int_equal(finally_calls, 3);
  assert_int_equal((intptr_t)ab_promise_value(f1), 3);
  assert_int_equal(ab_promise_code(f2), 4);
  assert_int_equal(ab_promise_code(f3), 99);
  ab_promise_t *free_me[] = {ok, bad, f1, f2, f3};
  for (size_t i = 0; i < 5; i++) ab_promise_release(free_me[i]);
  ab_microtasks_drain();
  assert_int_equal(unhandled_seen, 0);
}

/* ---- raw reactions, unhandled ------------------------------------------- */

static void raw(void *arg, ab_promise_t *s) {
  seen_t *seen = arg;
  seen->calls++;
  seen->value = (intptr_t)ab_promise_value(s);
}

static void raw_reactions_in_order(void **state) {
  (void)state;
  seen_t s[3] = {{0}, {0}, {0}};
  ab_promise_t *p = ab_promise_new();
  for (int i = 0; i < 3; i++) assert_int_equal(ab_promise_on_settle(p, raw, &s[i]), 0);
  ab_promise_resolve(p, (void *)6, NULL);
  assert_int_equal(s[0].calls, 0);
  assert_int_equal(ab_microtasks_drain(), 3);
  for (int i = 0; i < 3; i++) {
    assert_int_equal(s[i].calls, 1);
    assert_int_equal(s[i].value, 6);
  }
  /* on an already settled promise: still from the queue */
  ab_promise_on_settle(p, raw, &s[0]);
  assert_int_equal(s[0].calls, 1);
  ab_microtasks_drain();
  assert_int_equal(s[0].calls, 2);
  ab_promise_release(p);
}

/* A log of which handler ran, in order (then_release's tests). */
static int order_log[8];
static int order_n;

static void log_value(void *arg, ab_promise_t *s, ab_promise_t *out) {
  (void)out;
  (void)s;
  order_log[order_n++] = (int)(intptr_t)arg;
}

/* Keeps `out` (a fresh pending promise) and makes it adopt the arg. */
static ab_promise_t *kept_out;

static void keep_out(void *arg, ab_promise_t *s, ab_promise_t *out) {
  (void)s;
  assert_int_equal(ab_promise_state(out), AB_PENDING);
  assert_false(ab_promise_is_resolved(out));
  kept_out = ab_promise_retain(out);
  ab_promise_resolve_promise(out, arg);
}

static void then_release_is_then_without_a_pending_promise(void **state) {
  (void)state;
  seen_t seen = {0};
  ab_promise_t *p = ab_promise_new();
  assert_int_equal(ab_promise_then_release(p, record, NULL, &seen), 0);
  /* the derived promise is made when the reaction runs: only p is alive */
  assert_int_equal(ab_promise_live(), 1);
  ab_promise_resolve(p, (void *)7, NULL);
  assert_int_equal(seen.calls, 0);
  assert_int_equal(ab_microtasks_drain(), 1);
  assert_int_equal(seen.calls, 1);
  assert_int_equal(seen.state, AB_FULFILLED);
  assert_int_equal(seen.value, 7);
  assert_int_equal(ab_promise_live(), 1); /* the derived one is gone */
  /* on a settled promise: still from the queue */
  assert_int_equal(ab_promise_then_release(p, record, NULL, &seen), 0);
  assert_int_equal(seen.calls, 1);
  ab_microtasks_drain();
  assert_int_equal(seen.calls, 2);
  ab_promise_release(p);
}

static void then_release_keeps_registration_order(void **state) {
  (void)state;
  order_n = 0;
  ab_promise_t *p = ab_promise_new();
  /* the first in p's slot, the third from the pool; then() between them */
  assert_int_equal(ab_promise_then_release(p, log_value, NULL, (void *)1), 0);
  ab_promise_release(ab_promise_then(p, log_value, NULL, (void *)2));
  assert_int_equal(ab_promise_then_release(p, log_value, NULL, (void *)3), 0);
  ab_promise_release(ab_promise_then(p, log_value, NULL, (void *)4));
  ab_promise_resolve(p, NULL, NULL);
  assert_int_equal(ab_microtasks_drain(), 4);
  assert_int_equal(order_n, 4);
  for (int i = 0; i < 4; i++) assert_int_equal(order_log[i], i + 1);
  ab_promise_release(p);
}

static void then_release_settles_its_derived_promise_as_then(void **state) {
  (void)state;
  /* the handler's `out` is a pending promise it may keep and resolve with
   * another promise: adoption takes its usual two ticks */
  ab_promise_t *p = ab_promise_new();
  ab_promise_t *q = ab_promise_new();
  seen_t seen = {0};
  kept_out = NULL;
  assert_int_equal(ab_promise_then_release(p, keep_out, NULL, q), 0);
  ab_promise_resolve(p, NULL, NULL);
  ab_microtasks_drain();
  assert_non_null(kept_out);
  ab_promise_on_settle(kept_out, raw, &seen);
  ab_promise_resolve(q, (void *)9, NULL);
  ab_microtasks_drain();
  assert_int_equal(seen.calls, 1);
  assert_int_equal(seen.value, 9);
  ab_promise_release(kept_out);
  ab_promise_release(q);
  ab_promise_release(p);
  /* a rejection passed through (no handler) or thrown, unhandled: reported */
  ab_promise_t *r = ab_promise_rejected(5, "passed through");
  assert_int_equal(ab_promise_then_release(r, record, NULL, &seen), 0);
  ab_microtasks_drain();
  assert_int_equal(unhandled_seen, 1);
  assert_int_equal(last_unhandled_code, 5);
  ab_promise_release(r);
  ab_promise_t *f = ab_promise_resolved(NULL, NULL);
  assert_int_equal(ab_promise_then_release(f, throw_42, NULL, NULL), 0);
  ab_microtasks_drain();
  assert_int_equal(unhandled_seen, 2);
  assert_int_equal(last_unhandled_code, 42);
  /* handled by on_rejected: nothing more reported */
  ab_promise_t *h = ab_promise_rejected(6, "handled");
  assert_int_equal(ab_promise_then_release(h, NULL, ignore, NULL), 0);
  ab_microtasks_drain();
  assert_int_equal(unhandled_seen, 2);
  ab_promise_release(h);
  ab_promise_release(f);
}

static void then_release_dropped_with_a_pending_promise(void **state) {
  (void)state;
  seen_t seen = {0};
  ab_promise_t *p = ab_promise_new();
  assert_int_equal(ab_promise_then_release(p, record, record, &seen), 0); /* slot */
  assert_int_equal(ab_promise_then_release(p, record, record, &seen), 0); /* pool */
  ab_promise_release(p); /* never settles: both records go with it */
  ab_microtasks_drain();
  assert_int_equal(seen.calls, 0);
  /* the slot is free again for the next promise taken from the pool */
  p = ab_promise_new();
  assert_int_equal(ab_promise_then_release(p, record, NULL, &seen), 0);
  ab_promise_resolve(p, (void *)1, NULL);
  ab_microtasks_drain();
  assert_int_equal(seen.calls, 1);
  ab_promise_release(p);
}

/* N promises each with one then_release reaction pending: N promises alive,
 * the records inside them (a promise's size is the whole cost). */
static void then_release_costs_one_promise_per_reaction(void **state) {
  (void)state;
  enum { N = 300 };
  ab_promise_t *ps[N];
  seen_t seen = {0};
  size_t gets = ab_counters.pool_gets;
  for (int i = 0; i < N; i++) {
    ps[i] = ab_promise_new();
    assert_int_equal(ab_promise_then_release(ps[i], record, NULL, &seen), 0);
  }
  assert_int_equal(ab_promise_live(), N);
  assert_int_equal(ab_counters.pool_gets - gets, N); /* no reaction records */
  for (int i = 0; i < N; i++) ab_promise_resolve(ps[i], NULL, NULL);
  ab_microtasks_drain();
  assert_int_equal(seen.calls, N);
  for (int i = 0; i < N; i++) ab_promise_release(ps[i]);
}

static void unhandled_reported_once_after_drain(void **state) {
  (void)state;
  ab_promise_t *p = ab_promise_rejected(3, "nobody listens");
  ab_promise_t *q = ab_promise_rejected(4, "caught in time");
  ab_promise_release(ab_promise_catch(q, ignore, NULL));  /* same tick: handled */
  assert_int_equal(unhandled_seen, 0);
  ab_microtasks_drain();
  assert_int_equal(unhandled_seen, 1);
  assert_int_equal(last_unhandled_code, 3);
  ab_microtasks_drain();
  assert_int_equal(unhandled_seen, 1);  /* once */
  ab_promise_release(p);
  ab_promise_release(q);
  /* A derived promise that rejects with nothing attached is reported too. */
  ab_promise_t *r = ab_promise_resolved(NULL, NULL);
  ab_promise_release(ab_promise_then(r, throw_42, NULL, NULL));
  ab_microtasks_drain();
  assert_int_equal(unhandled_seen, 2);
  assert_int_equal(last_unhandled_code, 42);
  ab_promise_release(r);
}

static void default_reporter_writes_stderr(void **state) {
  (void)state;
  char path[] = "/tmp/ab_promise_stderrXXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  fflush(stderr);
  int saved = dup(2);
  dup2(fd, 2);
  ab_promise_on_unhandled(NULL, NULL);
  ab_promise_t *p = ab_promise_rejected(UV_ENOENT, "open failed");
  ab_microtasks_drain();
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  char buf[256] = "";
  lseek(fd, 0, SEEK_SET);
  ssize_t n = read(fd, buf, sizeof(buf) - 1);
  close(fd);
  unlink(path);
  assert_true(n > 0);
  assert_string_equal(buf, "ab_promise: unhandled rejection: ENOENT: open failed\n");
  ab_promise_release(p);
  ab_promise_on_unhandled(on_unhandled, NULL);
}

/* ---- libuv --------------------------------------------------------------- */

static ab_promise_t *timer_promise;

/* A callback that settles a promise and does NOT drain: the safety net must. */
static void settle_later(uv_timer_t *t) {
  ab_promise_resolve(timer_promise, (void *)21, NULL);
  uv_close((uv_handle_t *)t, NULL);
}

static void double_it(void *arg, ab_promise_t *s, ab_promise_t *out) {
  seen_t *seen = arg;
  seen->calls++;
  seen->value = 2 * (intptr_t)ab_promise_value(s);
  (void)out;
}

static void safety_net_drains_and_loop_closes(void **state) {
  (void)state;
  uv_loop_t loop;
  uv_timer_t timer;
  seen_t seen = {0};
  assert_int_equal(uv_loop_init(&loop), 0);
  assert_int_equal(ab_promise_loop_attach(&loop), 0);
  assert_int_equal(ab_promise_loop_attach(&loop), UV_EBUSY);
  timer_promise = ab_promise_new();
  ab_promise_release(ab_promise_then(timer_promise, double_it, NULL, &seen));
  uv_timer_init(&loop, &timer);
  uv_timer_start(&timer, settle_later, 1, 0);
  /* plain uv_run: only the prepare/check handles can run the reaction */
  uv_run(&loop, UV_RUN_DEFAULT);
  ab_promise_loop_run(&loop);
  assert_int_equal(seen.calls, 1);
  assert_int_equal(seen.value, 42);
  ab_promise_loop_detach();
  ab_promise_loop_run(&loop);
  assert_int_equal(uv_loop_close(&loop), 0);
  ab_promise_release(timer_promise);
}

/* ---- a completion's fulfil-and-drain (promise.h: ab__promise_fulfil_drain) */

/* What ran, in order: a letter per reaction or task. */
static char ran[16];
static size_t nran;

static void ran_letter(const char *c) {
  assert_true(nran + 1 < sizeof(ran));
  ran[nran++] = *c;
  ran[nran] = '\0';
}

static void then_letter(void *arg, ab_promise_t *s, ab_promise_t *out) {
  (void)out;
  assert_int_equal((intptr_t)ab_promise_value(s), 5);
  ran_letter(arg);
}

static void task_letter(void *arg) { ran_letter(arg); }

/* Settles, drops the caller's reference and runs the reactions with the
 * drain, as resolve, release and drain do, whatever is queued. */
static void fulfil_drain_is_resolve_release_drain(void **state) {
  (void)state;
  nran = 0;
  ab_promise_t *p = ab_promise_retain(ab_promise_new()); /* ours, the completion's */
  ab_promise_release(ab_promise_then(p, then_letter, NULL, "a"));
  ab__promise_fulfil_drain(p, (void *)5);
  assert_string_equal(ran, "a");  /* its one reaction ran, in the drain */
  assert_int_equal(ab_promise_state(p), AB_FULFILLED);
  assert_int_equal((intptr_t)ab_promise_value(p), 5);
  ab_promise_release(p);
  assert_int_equal(ab_promise_live(), 0);

  /* behind a task queued earlier, and after a tick */
  p = ab_promise_new();
  ab_promise_release(ab_promise_then(p, then_letter, NULL, "b"));
  ab_microtask_enqueue(task_letter, "m");
  ab_next_tick(task_letter, "t");
  ab__promise_fulfil_drain(p, (void *)5);  /* the last reference: freed */
  assert_string_equal(ran, "atmb");
  assert_int_equal(ab_promise_live(), 0);

  /* two reactions, in the order they were registered */
  p = ab_promise_new();
  ab_promise_release(ab_promise_then(p, then_letter, NULL, "c"));
  ab_promise_release(ab_promise_then(p, then_letter, NULL, "d"));
  ab__promise_fulfil_drain(p, (void *)5);
  assert_string_equal(ran, "atmbcd");

  /* none: settled all the same */
  p = ab_promise_retain(ab_promise_new());
  ab__promise_fulfil_drain(p, (void *)5);
  assert_int_equal((intptr_t)ab_promise_value(p), 5);
  ab_promise_release(p);

  /* resolved already: the value is ignored */
  p = ab_promise_retain(ab_promise_new());
  ab_promise_resolve(p, (void *)5, NULL);
  ab__promise_fulfil_drain(p, (void *)6);
  assert_int_equal((intptr_t)ab_promise_value(p), 5);
  ab_promise_release(p);
  assert_int_equal(ab_microtasks_pending(), 0);
}

/* An await's wake-up: queued where the reaction's job would be, run by the
 * drain (at once when nothing else is queued), the awaiter's p intact. */
static void fulfil_drain_wakes_an_awaiter(void **state) {
  (void)state;
  nran = 0;
  ab_promise_t *p = ab_promise_retain(ab_promise_new());
  assert_int_equal(ab__promise_await(p, task_letter, "w"), 0);
  ab__promise_fulfil_drain(p, (void *)5);
  assert_string_equal(ran, "w");
  void *v = NULL;
  assert_int_equal(ab__promise_outcome(p, &v), 0);
  assert_int_equal((intptr_t)v, 5);
  ab_promise_release(p);

  p = ab_promise_retain(ab_promise_new());
  assert_int_equal(ab__promise_await(p, task_letter, "x"), 0);
  ab_microtask_enqueue(task_letter, "m");
  ab__promise_fulfil_drain(p, (void *)5);
  assert_string_equal(ran, "wmx");
  ab_promise_release(p);
}

/* A raw reaction that records the reason or value it saw. */
static void raw_seen(void *arg, ab_promise_t *s) {
  seen_t *seen = arg;
  seen->calls++;
  seen->state = ab_promise_state(s);
  seen->value = (intptr_t)ab_promise_value(s);
  seen->code = ab_promise_code(s);
}

/* A promise's inline record shares its space with the value: whatever sits
 * there when it settles (then_release's, a raw reaction, a combinator's
 * element, an await's wake-up, alone or among others) is moved out first,
 * runs in its turn and sees the value or reason, not its own fields. */
static void the_slot_moves_out_as_its_promise_settles(void **state) {
  (void)state;
  static const char why[] = "the slot's reason";
  /* each kind alone in the slot, the promise rejected with a payload */
  counted_t c = {1, 0};
  seen_t raw = {0}, later = {0};
  ab_promise_t *a = ab_promise_new(), *b = ab_promise_new(), *e = ab_promise_new();
  assert_int_equal(ab_promise_on_settle(a, raw_seen, &raw), 0);
  assert_int_equal(ab_promise_then_release(b, record, record, &later), 0);
  ab_promise_t *in[] = {e};
  ab_promise_t *all = ab_promise_all(in, 1);
  seen_t all_seen = {0};
  ab_promise_release(ab_promise_then(all, record, record, &all_seen));
  ab_promise_reject_reason(a, (ab_reason_t){7, why, &c, &counted_type});
  ab_promise_reject(b, 8, why);
  ab_promise_resolve(e, (void *)9, NULL);
  assert_int_equal(raw.calls + later.calls + all_seen.calls, 0); /* not yet */
  ab_microtasks_drain();
  assert_int_equal(raw.calls, 1);
  assert_int_equal(raw.state, AB_REJECTED);
  assert_int_equal(raw.code, 7);
  assert_string_equal(ab_promise_message(a), why);
  assert_ptr_equal(ab_promise_reason(a).ptr, &c);
  assert_int_equal(later.calls, 1);
  assert_int_equal(later.code, 8);
  assert_int_equal(all_seen.calls, 1);
  assert_int_equal(all_seen.state, AB_FULFILLED);
  assert_int_equal(unhandled_seen, 0);
  ab_promise_release(a);
  assert_true(c.freed);
  ab_promise_release(b);
  ab_promise_release(e);
  ab_promise_release(all);

  /* in the slot among others: registration order is kept */
  order_n = 0;
  ab_promise_t *p = ab_promise_new();
  ab_promise_release(ab_promise_then(p, log_value, NULL, (void *)1));
  assert_int_equal(ab_promise_then_release(p, log_value, NULL, (void *)2), 0); /* the slot */
  ab_promise_release(ab_promise_then(p, log_value, NULL, (void *)3));
  ab__promise_fulfil_drain(ab_promise_retain(p), (void *)4);
  assert_int_equal(order_n, 3);
  for (int i = 0; i < 3; i++) assert_int_equal(order_log[i], i + 1);
  assert_int_equal((intptr_t)ab_promise_value(p), 4);
  ab_promise_release(p);

  /* an await's wake-up in the slot, then a raw reaction from the pool */
  nran = 0;
  seen_t after = {0};
  p = ab_promise_retain(ab_promise_new());
  assert_int_equal(ab__promise_await(p, task_letter, "w"), 0);
  assert_int_equal(ab_promise_on_settle(p, raw_seen, &after), 0);
  ab_promise_resolve(p, (void *)5, NULL);
  ab_microtasks_drain();
  assert_string_equal(ran, "w");
  assert_int_equal(after.calls, 1);
  assert_int_equal(after.value, 5);
  ab_promise_release(p);
  ab_promise_release(p);
}

/* then()'s and finally()'s promises are settled by their reaction only, as
 * nothing else holds their resolving functions in JavaScript; the handler's
 * `out` is settled as usual. */
static void a_derived_promise_is_settled_by_its_reaction_only(void **state) {
  (void)state;
  ab_promise_t *p = ab_promise_new();
  ab_promise_t *d = ab_promise_then(p, add_one, NULL, NULL);
  ab_promise_t *f = ab_promise_finally(p, NULL, NULL);
  assert_int_equal(ab_promise_resolve(d, (void *)100, NULL), AB_EALREADY);
  assert_int_equal(ab_promise_reject(d, 1, "outside"), AB_EALREADY);
  assert_int_equal(ab_promise_reject(f, 1, "outside"), AB_EALREADY);
  assert_int_equal(ab_promise_state(d), AB_PENDING);
  ab_promise_resolve(p, (void *)1, NULL);
  ab_microtasks_drain();
  assert_int_equal(ab_promise_state(d), AB_FULFILLED);
  assert_int_equal((intptr_t)ab_promise_value(d), 2);
  assert_int_equal(ab_promise_state(f), AB_FULFILLED);
  assert_int_equal((intptr_t)ab_promise_value(f), 1);
  ab_promise_release(d);
  ab_promise_release(f);
  ab_promise_release(p);
}

/* ---- random registrations against a model ---------------------------------
 * Reactions of every kind that can sit in a promise's slot (raw, then_release,
 * an await's wake-up, a combinator's element), registered in random order on
 * promises that are pending or already settled, the promises then settled in
 * random order with random outcomes.  A model of the queue (each promise's
 * reactions queued in registration order when it settles, at once when it had
 * settled; an element's job settling its Promise.all, whose one reaction goes
 * to the back) gives the order and outcome every reaction must see.  Whatever
 * the slot held when its promise settled, the order and the values hold, and
 * nothing is left alive (under AddressSanitizer too: make test-sanitize). */

enum { FZ_PROMISES = 6, FZ_REGS = 14, FZ_EVENTS = FZ_PROMISES + FZ_REGS, FZ_QUEUE = 64 };

typedef struct fz_reaction_s {
  int id;                  /* its place in registration order */
  int promise;             /* what it waits on (for an element: its input) */
  int kind;                /* 0 raw, 1 then_release, 2 await, 3 element */
} fz_reaction_t;

static int fz_trace[FZ_QUEUE], fz_traced;
static ab_promise_t *fz_ps[FZ_PROMISES];
static int fz_outcome[FZ_PROMISES];     /* > 0 fulfilled with it, < 0 rejected with it */
static fz_reaction_t fz_rx[FZ_REGS];

static uint32_t fz_next(uint32_t *s) {
  *s = *s * 1103515245u + 12345u;
  return (*s >> 8) & 0xffffff;
}

/* What a reaction saw: its id, and whether the outcome matched its promise's. */
static void fz_saw(const fz_reaction_t *r, ab_promise_t *settled) {
  int want = fz_outcome[r->promise];
  ab_promise_state_t st = ab_promise_state(settled);
  if (r->kind == 3) { /* Promise.all of one input: its list, or the input's reason */
    if (want > 0) {
      const ab_list_t *l = ab_promise_value(settled);
      assert_int_equal(st, AB_FULFILLED);
      assert_int_equal(l->n, 1);
      assert_int_equal((intptr_t)l->items[0].ptr, want);
    } else {
      assert_int_equal(st, AB_REJECTED);
      assert_int_equal(ab_promise_code(settled), want);
    }
  } else if (want > 0) {
    assert_int_equal(st, AB_FULFILLED);
    assert_int_equal((intptr_t)ab_promise_value(settled), want);
  } else {
    assert_int_equal(st, AB_REJECTED);
    assert_int_equal(ab_promise_code(settled), want);
  }
  assert_true(fz_traced < FZ_QUEUE);
  fz_trace[fz_traced++] = r->id;
}

static void fz_raw(void *arg, ab_promise_t *settled) { fz_saw(arg, settled); }

static void fz_then(void *arg, ab_promise_t *settled, ab_promise_t *out) {
  (void)out;
  fz_saw(arg, settled);
}

static void fz_woke(void *arg) {
  fz_reaction_t *r = arg;
  fz_saw(r, fz_ps[r->promise]);
}

static void random_reactions_keep_their_order_and_values(void **state) {
  (void)state;
  for (uint32_t seed = 1; seed <= 300; seed++) {
    uint32_t s = seed;
    int settled[FZ_PROMISES] = {0}, regs = 0, settles = 0;
    /* the model: per promise its pending reactions in order; a FIFO of ids
     * (an element's entry is -1 - its id: it queues its all's reaction) */
    int pending[FZ_PROMISES][FZ_REGS], npending[FZ_PROMISES] = {0};
    int queue[FZ_QUEUE], qhead = 0, qtail = 0;
    ab_promise_t *alls[FZ_REGS] = {NULL};
    fz_traced = 0;
    for (int i = 0; i < FZ_PROMISES; i++) {
      fz_ps[i] = ab_promise_new();
      fz_outcome[i] = (fz_next(&s) % 3 == 0) ? -(100 + i) : (10 + i);
    }
    for (int e = 0; e < FZ_EVENTS; e++) {
      int settle_now = settles < FZ_PROMISES && (regs == FZ_REGS || fz_next(&s) % 3 == 0);
      if (settle_now) {
        int i = (int)(fz_next(&s) % FZ_PROMISES);
        while (settled[i]) i = (i + 1) % FZ_PROMISES;
        settled[i] = 1;
        settles++;
        if (fz_outcome[i] > 0)
          ab_promise_resolve(fz_ps[i], (void *)(intptr_t)fz_outcome[i], NULL);
        else
          ab_promise_reject(fz_ps[i], fz_outcome[i], "a random rejection");
        for (int k = 0; k < npending[i]; k++) queue[qtail++] = pending[i][k];
        npending[i] = 0;
        continue;
      }
      fz_reaction_t *r = &fz_rx[regs];
      r->id = regs;
      r->promise = (int)(fz_next(&s) % FZ_PROMISES);
      r->kind = (int)(fz_next(&s) % 4);
      ab_promise_t *p = fz_ps[r->promise];
      switch (r->kind) {
      case 0: assert_int_equal(ab_promise_on_settle(p, fz_raw, r), 0); break;
      case 1: assert_int_equal(ab_promise_then_release(p, fz_then, fz_then, r), 0); break;
      case 2: assert_int_equal(ab__promise_await(p, fz_woke, r), 0); break;
      default: {
        ab_promise_t *in[] = {p};
        alls[regs] = ab_promise_all(in, 1);
        assert_int_equal(ab_promise_on_settle(alls[regs], fz_raw, r), 0);
      }
      }
      int entry = r->kind == 3 ? -1 - r->id : r->id;
      if (settled[r->promise]) queue[qtail++] = entry;
      else pending[r->promise][npending[r->promise]++] = entry;
      regs++;
    }
    ab_microtasks_drain();
    /* the model's order: an element's job puts its all's reaction at the back */
    int expect[FZ_QUEUE], nexpect = 0;
    while (qhead < qtail) {
      int entry = queue[qhead++];
      if (entry < 0) queue[qtail++] = -1 - entry;
      else expect[nexpect++] = entry;
    }
    assert_int_equal(fz_traced, nexpect);
    for (int k = 0; k < nexpect; k++) {
      if (fz_trace[k] != expect[k])
        fail_msg("seed %u: reaction %d ran where the model has %d (position %d)", seed,
                 fz_trace[k], expect[k], k);
    }
    for (int i = 0; i < FZ_REGS; i++) ab_promise_release(alls[i]);
    for (int i = 0; i < FZ_PROMISES; i++) ab_promise_release(fz_ps[i]);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(settles_once, setup, teardown),
    cmocka_unit_test_setup_teardown(fulfil_drain_is_resolve_release_drain, setup, teardown),
    cmocka_unit_test_setup_teardown(fulfil_drain_wakes_an_awaiter, setup, teardown),
    cmocka_unit_test_setup_teardown(reactions_run_asynchronously, setup, teardown),
    cmocka_unit_test_setup_teardown(chain_passes_values_and_rejections, setup, teardown),
    cmocka_unit_test_setup_teardown(adopts_a_pending_promise, setup, teardown),
    cmocka_unit_test_setup_teardown(self_resolution_is_a_type_error, setup, teardown),
    cmocka_unit_test_setup_teardown(adopts_thenables, setup, teardown),
    cmocka_unit_test_setup_teardown(typed_values_are_released, setup, teardown),
    cmocka_unit_test_setup_teardown(all_keeps_order_and_first_rejection_wins, setup, teardown),
    cmocka_unit_test_setup_teardown(combinators_on_empty_input, setup, teardown),
    cmocka_unit_test_setup_teardown(all_settled_race_any, setup, teardown),
    cmocka_unit_test_setup_teardown(finally_passes_through_or_overrides, setup, teardown),
    cmocka_unit_test_setup_teardown(raw_reactions_in_order, setup, teardown),
    cmocka_unit_test_setup_teardown(unhandled_reported_once_after_drain, setup, teardown),
    cmocka_unit_test_setup_teardown(then_release_is_then_without_a_pending_promise, setup, teardown),
    cmocka_unit_test_setup_teardown(then_release_keeps_registration_order, setup, teardown),
    cmocka_unit_test_setup_teardown(then_release_settles_its_derived_promise_as_then, setup, teardown),
    cmocka_unit_test_setup_teardown(then_release_dropped_with_a_pending_promise, setup, teardown),
    cmocka_unit_test_setup_teardown(then_release_costs_one_promise_per_reaction, setup, teardown),
    cmocka_unit_test_setup_teardown(the_slot_moves_out_as_its_promise_settles, setup, teardown),
    cmocka_unit_test_setup_teardown(a_derived_promise_is_settled_by_its_reaction_only, setup, teardown),
    cmocka_unit_test_setup_teardown(random_reactions_keep_their_order_and_values, setup, teardown),
    cmocka_unit_test_setup_teardown(default_reporter_writes_stderr, setup, teardown),
    cmocka_unit_test_setup_teardown(safety_net_drains_and_loop_closes, setup, teardown),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  ab_promise_pool_trim();
  return rc;
}
