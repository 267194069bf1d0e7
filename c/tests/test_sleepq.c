/*
 * test_sleepq.c -- the shared-timer sleep queue (c/lib/sleepq.h): waiters
 * wake in the order they slept and never before their delay, counted from
 * when each started even late in a loop turn, a delay of 0
 * wakes on the next loop turn (what a wake-up starts waits for the turn
 * after), ticks and microtasks queued by a wake-up run before the next
 * waiter wakes, and the queue closes cleanly.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "microtask.h"
#include "sleepq.h"

typedef struct waiter_s {
  ab_sleep_t sleep;        /* first: the callback casts back */
  int id;
  uint64_t started, woke;  /* loop time, ms */
  int again;               /* sleeps left to start from the wake-up */
} waiter_t;

static int order[64];
static int n_order;
static ab_sleepq_t *the_q;
static int micro_seen[64];

static void note_micro(void *arg) { micro_seen[(intptr_t)arg] = n_order; }

static void woke(ab_sleep_t *s) {
  waiter_t *w = (waiter_t *)s;
  w->woke = uv_now(the_q->timer.loop);
  order[n_order++] = w->id;
  /* A microtask queued here must run before the next waiter wakes. */
  ab_microtask_enqueue(note_micro, (void *)(intptr_t)w->id);
  if (w->again-- > 0) assert_int_equal(ab_sleepq_start(the_q, s), 0);
}

static void close_and_check(uv_loop_t *loop, ab_sleepq_t *q) {
  ab_sleepq_close(q);
  uv_run(loop, UV_RUN_DEFAULT);
  assert_int_equal(uv_loop_close(loop), 0);
}

static void waiters_wake_in_order_after_their_delay(void **state) {
  uv_loop_t loop;
  ab_sleepq_t q;
  waiter_t w[5];
  (void)state;
  n_order = 0;
  assert_int_equal(uv_loop_init(&loop), 0);
  assert_int_equal(ab_sleepq_init(&loop, &q, 20, woke), 0);
  the_q = &q;
  for (int k = 0; k < 5; k++) {
    memset(&w[k], 0, sizeof(w[k]));
    w[k].id = k;
    w[k].started = uv_now(&loop);
    assert_int_equal(ab_sleepq_start(&q, &w[k].sleep), 0);
  }
  assert_int_equal(q.waiting, 5);
  assert_int_equal(n_order, 0); /* never inside the call that started it */
  uv_run(&loop, UV_RUN_DEFAULT);
  assert_int_equal(n_order, 5);
  for (int k = 0; k < 5; k++) {
    assert_int_equal(order[k], k);
    assert_true(w[k].woke >= w[k].started + 20);
    assert_int_equal(micro_seen[k], k + 1); /* drained right after its wake-up */
  }
  assert_int_equal(q.waiting, 0);
  close_and_check(&loop, &q);
}

static void a_sleep_started_by_a_wake_up_waits_its_own_delay(void **state) {
  uv_loop_t loop;
  ab_sleepq_t q;
  waiter_t w;
  (void)state;
  n_order = 0;
  assert_int_equal(uv_loop_init(&loop), 0);
  assert_int_equal(ab_sleepq_init(&loop, &q, 10, woke), 0);
  the_q = &q;
  memset(&w, 0, sizeof(w));
  w.again = 2; /* three sleeps in a row */
  uint64_t t0 = uv_now(&loop);
  assert_int_equal(ab_sleepq_start(&q, &w.sleep), 0);
  uv_run(&loop, UV_RUN_DEFAULT);
  assert_int_equal(n_order, 3);
  assert_true(w.woke >= t0 + 30);
  close_and_check(&loop, &q);
}

/* Burns real time without running the loop, so its cached time goes stale,
 * as it does while a pass starts many tasks in one turn. */
static void spin_ms(uint64_t ms) {
  uint64_t until = uv_hrtime() + ms * 1000000u;
  while (uv_hrtime() < until) {
  }
}

static uint64_t woke_ns[2];
static void woke_at(ab_sleep_t *s) { woke_ns[((waiter_t *)s)->id] = uv_hrtime(); }

static void a_sleep_started_late_in_a_turn_still_sleeps_its_whole_delay(void **state) {
  uv_loop_t loop;
  ab_sleepq_t q;
  waiter_t w[2];
  uint64_t started_ns[2];
  (void)state;
  assert_int_equal(uv_loop_init(&loop), 0);
  assert_int_equal(ab_sleepq_init(&loop, &q, 40, woke_at), 0);
  memset(w, 0, sizeof(w));
  memset(woke_ns, 0, sizeof(woke_ns));
  for (int k = 0; k < 2; k++) {
    if (k > 0) spin_ms(25); /* the loop's time now lags 25 ms */
    w[k].id = k;
    started_ns[k] = uv_hrtime();
    assert_int_equal(ab_sleepq_start(&q, &w[k].sleep), 0);
  }
  uv_run(&loop, UV_RUN_DEFAULT);
  /* Each slept 40 ms from its own start, give or take libuv's millisecond
   * clock (truncated, read from a clock of up to 1 ms resolution): at least
   * 38 ms.  Counted from the loop's stale time, the second would sleep ~15. */
  for (int k = 0; k < 2; k++) {
    assert_true(woke_ns[k] != 0);
    if (woke_ns[k] - started_ns[k] < 38000000u)
      fail_msg("waiter %d slept %llu ns of 40 ms", k,
               (unsigned long long)(woke_ns[k] - started_ns[k]));
  }
  close_and_check(&loop, &q);
}

static int turns;
static void count_turn(uv_check_t *h) { (void)h; turns++; }

static void delay_zero_wakes_on_the_next_turn_only(void **state) {
  uv_loop_t loop;
  ab_sleepq_t q;
  uv_check_t check;
  waiter_t w[2];
  (void)state;
  n_order = 0;
  turns = 0;
  assert_int_equal(uv_loop_init(&loop), 0);
  assert_int_equal(ab_sleepq_init(&loop, &q, 0, woke), 0);
  assert_int_equal(uv_check_init(&loop, &check), 0);
  assert_int_equal(uv_check_start(&check, count_turn), 0);
  the_q = &q;
  memset(w, 0, sizeof(w));
  w[0].id = 0;
  w[0].again = 1; /* sleeps again from its wake-up: that one waits a turn */
  w[1].id = 1;
  assert_int_equal(ab_sleepq_start(&q, &w[0].sleep), 0);
  assert_int_equal(ab_sleepq_start(&q, &w[1].sleep), 0);
  assert_int_equal(n_order, 0);
  uv_run(&loop, UV_RUN_NOWAIT);
  assert_int_equal(n_order, 2); /* both in the first turn, not the re-started one */
  assert_int_equal(order[0], 0);
  assert_int_equal(order[1], 1);
  uv_run(&loop, UV_RUN_NOWAIT);
  assert_int_equal(n_order, 3);
  assert_int_equal(order[2], 0);
  assert_false(uv_is_active((uv_handle_t *)&q.idle)); /* idle stops when empty */
  uv_close((uv_handle_t *)&check, NULL);
  close_and_check(&loop, &q);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(waiters_wake_in_order_after_their_delay),
    cmocka_unit_test(a_sleep_started_by_a_wake_up_waits_its_own_delay),
    cmocka_unit_test(a_sleep_started_late_in_a_turn_still_sleeps_its_whole_delay),
    cmocka_unit_test(delay_zero_wakes_on_the_next_turn_only),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
