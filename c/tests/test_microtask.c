/*
 * test_microtask.c -- the tick and microtask queues themselves: FIFO order
 * as they grow, ticks before microtasks at every turn, what the drain
 * returns, re-entrancy, the counts, trimming, running out of memory, and
 * the libuv safety net running ticks.  The order against Node's is
 * test_promise_order.c's (c/tests/ordering/tick-*.js).  Every test ends
 * with both queues empty.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <cmocka.h>
#include <uv.h>

#include "promise.h"
#include "run_child.h"

/* ---- helpers ------------------------------------------------------------- */

/* What ran, one character per task. */
static char order[64];
static size_t norder;

static void push(const char *c) {
  assert_true(norder + 1 < sizeof(order));
  order[norder++] = *c;
  order[norder] = '\0';
}

static int setup(void **state) {
  (void)state;
  norder = 0;
  order[0] = '\0';
  return 0;
}

static int teardown(void **state) {
  (void)state;
  assert_int_equal(ab_microtasks_drain(), 0);
  assert_int_equal(ab_microtasks_pending(), 0);
  assert_int_equal(ab_promise_live(), 0);
  return 0;
}

/* A task that records its letter. */
static void letter(void *arg) { push(arg); }

static void nothing(void *arg) { (void)arg; }

/* ---- tests --------------------------------------------------------------- */

static void draining_empty_queues_runs_nothing(void **state) {
  (void)state;
  assert_int_equal(ab_microtasks_pending(), 0);
  assert_int_equal(ab_ticks_pending(), 0);
  assert_int_equal(ab_microtasks_drain(), 0);
  assert_string_equal(order, "");
}

static void pending_counts_ticks_and_microtasks(void **state) {
  (void)state;
  assert_int_equal(ab_microtask_enqueue(letter, "a"), 0);
  assert_int_equal(ab_next_tick(letter, "b"), 0);
  assert_int_equal(ab_microtask_enqueue(letter, "c"), 0);
  assert_int_equal(ab_microtasks_pending(), 3);
  assert_int_equal(ab_ticks_pending(), 1);
  assert_string_equal(order, "");  /* nothing runs synchronously */
  assert_int_equal(ab_microtasks_drain(), 3);
  assert_string_equal(order, "bac");
  assert_int_equal(ab_microtasks_pending(), 0);
}

/* t: queues tick u and microtask m; u: queues tick v. */
static void tick_t(void *arg) {
  (void)arg;
  push("t");
  ab_next_tick(letter, "u");
  ab_microtask_enqueue(letter, "m");
  assert_int_equal(ab_ticks_pending(), 1);
}

static void ticks_queued_by_ticks_run_before_any_microtask(void **state) {
  (void)state;
  ab_microtask_enqueue(letter, "a");
  ab_next_tick(tick_t, NULL);
  assert_int_equal(ab_microtasks_drain(), 4);
  assert_string_equal(order, "tuam");
}

/* a microtask that queues tick x and microtask b; x queues microtask y */
static void tick_x(void *arg) {
  (void)arg;
  push("x");
  ab_microtask_enqueue(letter, "y");
}

static void micro_a(void *arg) {
  (void)arg;
  push("a");
  ab_next_tick(tick_x, NULL);
  ab_microtask_enqueue(letter, "b");
}

static void a_tick_queued_by_a_microtask_waits_for_the_queue_to_empty(void **state) {
  (void)state;
  ab_microtask_enqueue(micro_a, NULL);
  ab_microtask_enqueue(letter, "c");
  assert_int_equal(ab_microtasks_drain(), 5);
  assert_string_equal(order, "acbxy");
}

/* A task that drains from inside a drain: a no-op that runs nothing. */
static void nested_drain(void *arg) {
  push(arg);
  assert_int_equal(ab_microtasks_drain(), 0);
}

static void a_drain_inside_a_tick_or_microtask_does_nothing(void **state) {
  (void)state;
  ab_microtask_enqueue(nested_drain, "m");
  ab_microtask_enqueue(letter, "n");
  ab_next_tick(nested_drain, "t");
  ab_next_tick(letter, "u");
  assert_int_equal(ab_microtasks_drain(), 4);
  assert_string_equal(order, "tumn");
}

static int seq[1000];
static int nseq;

static void push_index(void *arg) { seq[nseq++] = (int)(intptr_t)arg; }

static void queues_stay_fifo_as_they_grow_and_wrap(void **state) {
  (void)state;
  /* move both rings' heads first, so that growing copies a wrapped ring */
  for (int i = 0; i < 100; i++) {
    ab_next_tick(nothing, NULL);
    ab_microtask_enqueue(nothing, NULL);
    ab_microtasks_drain();
  }
  nseq = 0;
  for (intptr_t i = 0; i < 500; i++) {
    assert_int_equal(ab_microtask_enqueue(push_index, (void *)(500 + i)), 0);
    assert_int_equal(ab_next_tick(push_index, (void *)i), 0);
  }
  assert_int_equal(ab_microtasks_drain(), 1000);
  assert_int_equal(nseq, 1000);
  for (int i = 0; i < 1000; i++) assert_int_equal(seq[i], i);
}

static void trimming_keeps_what_is_queued(void **state) {
  (void)state;
  ab_next_tick(letter, "t");
  ab_microtask_enqueue(letter, "m");
  ab_microtasks_trim();
  assert_int_equal(ab_microtasks_pending(), 2);
  assert_int_equal(ab_microtasks_drain(), 2);
  assert_string_equal(order, "tm");
  ab_microtasks_trim();  /* now empty: the memory goes back */
  assert_int_equal(ab_next_tick(letter, "u"), 0);  /* and the queue grows again */
  assert_int_equal(ab_microtasks_drain(), 1);
  assert_string_equal(order, "tmu");
}

/* catch attached from a tick: the rejection is handled before the report. */
static ab_promise_t *rejected;

static void ignore(void *arg, ab_promise_t *s, ab_promise_t *out) { (void)arg, (void)s, (void)out; }

static void catch_it(void *arg) {
  (void)arg;
  ab_promise_release(ab_promise_catch(rejected, ignore, NULL));
}

static size_t unhandled_seen;

static void count_unhandled(void *arg, ab_promise_t *p) {
  (void)arg, (void)p;
  unhandled_seen++;
  ab_next_tick(letter, "r");  /* the reporter's own tick runs in this drain */
}

static void rejections_are_reported_after_both_queues_are_empty(void **state) {
  (void)state;
  unhandled_seen = 0;
  ab_promise_on_unhandled(count_unhandled, NULL);
  rejected = ab_promise_rejected(1, "handled by a tick");
  ab_next_tick(catch_it, NULL);
  ab_microtasks_drain();
  assert_int_equal(unhandled_seen, 0);
  ab_promise_t *p = ab_promise_rejected(2, "nobody listens");
  ab_microtasks_drain();
  assert_int_equal(unhandled_seen, 1);
  assert_string_equal(order, "r");
  assert_int_equal(ab_microtasks_pending(), 0);
  ab_promise_release(p);
  ab_promise_release(rejected);
  ab_promise_on_unhandled(NULL, NULL);
}

/* In a child: with the address space capped just above what is in use,
 * queue ticks until the ring cannot double; the failed call queues nothing
 * and what was queued still runs, in order.  Exits 0 when all held. */
static long ticks_run;

static void count_tick(void *arg) {
  if ((intptr_t)arg != ticks_run++) _exit(3);
}

static void fill_until_enomem(void) {
  long pages = 0;
  FILE *f = fopen("/proc/self/statm", "r");
  if (f == NULL || fscanf(f, "%ld", &pages) != 1) _exit(4);
  fclose(f);
  rlim_t cap = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + ((rlim_t)64 << 20);
  struct rlimit lim = {cap, cap};
  if (setrlimit(RLIMIT_AS, &lim) != 0) _exit(5);
  /* A cap nobody enforces (qemu-user keeps RLIMIT_AS for itself) would let
   * the loop below fill all memory: a mapping four times the headroom must
   * fail, or the test is skipped (exit 9). */
  if (mmap(NULL, (size_t)256 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
      != MAP_FAILED)
    _exit(9);
  intptr_t queued = 0;
  int rc;
  while ((rc = ab_next_tick(count_tick, (void *)queued)) == 0) queued++;
  if (rc != UV_ENOMEM || ab_ticks_pending() != (size_t)queued) _exit(6);
  if (ab_microtask_enqueue(letter, "x") != 0) _exit(7);  /* the other ring is fine */
  if (ab_microtasks_drain() != (size_t)queued + 1 || ticks_run != queued) _exit(8);
  _exit(0);
}

static void a_queue_that_cannot_grow_says_enomem_and_keeps_its_tasks(void **state) {
  (void)state;
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  skip();  /* the sanitizers reserve far more address space than any cap */
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
  skip();
#endif
#endif
#ifndef __linux__
  skip();  /* RLIMIT_AS and /proc/self/statm are Linux's */
#endif
  child_t child;
  run_in_child(fill_until_enomem, &child);
  assert_true(WIFEXITED(child.status));
  if (WEXITSTATUS(child.status) == 9)
    skip();  /* the address-space cap is not enforced here (an emulator) */
  assert_int_equal(WEXITSTATUS(child.status), 0);
}

/* ab__microtask_run_first (microtask_internal.h): a job that would be the
 * drain's first runs at once, and everything after it in the drain's order
 * (the microtasks it queued before its ticks); otherwise it is queued
 * behind what is there and the queues drained. */
static void a_first_job_runs_as_the_drain_would_run_it(void **state) {
  (void)state;
  ab_microtask_enqueue(micro_a, NULL);
  assert_int_equal(ab_microtasks_drain(), 4);
  assert_string_equal(order, "abxy");
  norder = 0;
  assert_int_equal(ab__microtask_run_first(micro_a, NULL), 0);
  assert_string_equal(order, "abxy");
  assert_int_equal(ab_microtasks_pending(), 0);
}

static void a_job_behind_others_is_queued_then_drained(void **state) {
  (void)state;
  ab_microtask_enqueue(letter, "c");
  assert_int_equal(ab__microtask_run_first(letter, "d"), 0);
  assert_string_equal(order, "cd");
  ab_next_tick(letter, "t");
  assert_int_equal(ab__microtask_run_first(letter, "m"), 0);
  assert_string_equal(order, "cdtm");
  assert_int_equal(ab_microtasks_pending(), 0);
}

/* Inside a drain it only queues: "z" runs after "n", queued before it. */
static void run_first_inside(void *arg) {
  (void)arg;
  push("p");
  assert_int_equal(ab__microtask_run_first(letter, "z"), 0);
  push("q");
}

static void a_job_given_inside_a_drain_waits_its_turn(void **state) {
  (void)state;
  ab_microtask_enqueue(run_first_inside, NULL);
  ab_microtask_enqueue(letter, "n");
  assert_int_equal(ab_microtasks_drain(), 3);
  assert_string_equal(order, "pqnz");
}

/* A timer callback that queues a tick and does NOT drain: the net must. */
static void tick_later(uv_timer_t *t) {
  ab_next_tick(letter, "t");
  ab_microtask_enqueue(letter, "m");
  uv_close((uv_handle_t *)t, NULL);
}

static void the_libuv_safety_net_runs_ticks_first(void **state) {
  (void)state;
  uv_loop_t loop;
  uv_timer_t timer;
  assert_int_equal(uv_loop_init(&loop), 0);
  assert_int_equal(ab_promise_loop_attach(&loop), 0);
  uv_timer_init(&loop, &timer);
  uv_timer_start(&timer, tick_later, 1, 0);
  uv_run(&loop, UV_RUN_DEFAULT);  /* only the prepare/check handles drain */
  assert_string_equal(order, "tm");
  ab_promise_loop_detach();
  ab_promise_loop_run(&loop);
  assert_int_equal(uv_loop_close(&loop), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(draining_empty_queues_runs_nothing, setup, teardown),
    cmocka_unit_test_setup_teardown(pending_counts_ticks_and_microtasks, setup, teardown),
    cmocka_unit_test_setup_teardown(ticks_queued_by_ticks_run_before_any_microtask, setup, teardown),
    cmocka_unit_test_setup_teardown(a_tick_queued_by_a_microtask_waits_for_the_queue_to_empty,
                                    setup, teardown),
    cmocka_unit_test_setup_teardown(a_drain_inside_a_tick_or_microtask_does_nothing, setup,
                                    teardown),
    cmocka_unit_test_setup_teardown(queues_stay_fifo_as_they_grow_and_wrap, setup, teardown),
    cmocka_unit_test_setup_teardown(trimming_keeps_what_is_queued, setup, teardown),
    cmocka_unit_test_setup_teardown(rejections_are_reported_after_both_queues_are_empty, setup,
                                    teardown),
    cmocka_unit_test_setup_teardown(a_queue_that_cannot_grow_says_enomem_and_keeps_its_tasks,
                                    setup, teardown),
    cmocka_unit_test_setup_teardown(a_first_job_runs_as_the_drain_would_run_it, setup, teardown),
    cmocka_unit_test_setup_teardown(a_job_behind_others_is_queued_then_drained, setup, teardown),
    cmocka_unit_test_setup_teardown(a_job_given_inside_a_drain_waits_its_turn, setup, teardown),
    cmocka_unit_test_setup_teardown(the_libuv_safety_net_runs_ticks_first, setup, teardown),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  ab_promise_pool_trim();
  return rc;
}
