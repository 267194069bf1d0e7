/*
 * sleepq.h -- many sleeps of one duration on one libuv timer.
 *
 * A sleep queue holds waiters that all sleep the same `delay_ms`, so they
 * wake in the order they started: a FIFO with one uv_timer armed for its
 * head is all it takes, where a uv_timer_t per waiter would put each of them
 * in libuv's timer heap (O(log n) per start, a handle of ~150 bytes each).
 * Node does the same: its timers of one duration share a list and one
 * native timer (lib/internal/timers.js).  A waiter is an ab_sleep_t embedded
 * in the caller's record (no allocation per sleep): 16 bytes, its link and
 * its time; the callback is the queue's, one for all its waiters (the
 * caller recovers its record from the waiter with container_of).
 *
 *   delay_ms > 0  a waiter started at time t wakes once the loop time
 *                 reaches t + delay_ms, t read afresh by the start
 *                 (uv_update_time: libuv's millisecond clock, otherwise
 *                 cached at the start of each loop turn), as Node's
 *                 setTimeout reads it and Go's time.Sleep counts from its
 *                 call: a start late in a long turn still sleeps delay_ms
 *   delay_ms = 0  a waiter wakes on the next turn of the loop (an idle
 *                 handle, as setImmediate), never inside the call that
 *                 started it: what a wake-up starts waits for the turn after
 *
 * Every wake-up callback is followed by ab_microtasks_drain() (microtask.h),
 * as Node drains ticks and microtasks after each timer callback, so promise
 * reactions a wake-up settles run before the next waiter wakes.
 *
 * The queue's two handles are closed by ab_sleepq_close(); run the loop once
 * more before uv_loop_close().  Not thread-safe: one loop, one thread.
 */
#ifndef AB_SLEEPQ_H
#define AB_SLEEPQ_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

typedef struct ab_sleep_s ab_sleep_t;
typedef struct ab_sleepq_s ab_sleepq_t;

/* Called once when the sleep is over; it may start another sleep on s. */
typedef void (*ab_sleep_cb)(ab_sleep_t *s);

/* One waiter, embedded in the caller's record (container_of recovers it). */
struct ab_sleep_s {
  ab_sleep_t *next;        /* private: the queue's link */
  uint64_t due;            /* private: loop time (ms) it wakes at (delay > 0) */
};

struct ab_sleepq_s {
  uv_timer_t timer;        /* delay_ms > 0 */
  uv_idle_t idle;          /* delay_ms = 0 */
  uint64_t delay_ms;
  ab_sleep_cb cb;          /* every waiter's wake-up */
  ab_sleep_t *head, *tail; /* waiters in wake-up order */
  size_t waiting;          /* how many are queued */
};

/* Initialises q on loop for sleeps of delay_ms whose wake-up is cb: 0, or a
 * libuv error code. */
int ab_sleepq_init(uv_loop_t *loop, ab_sleepq_t *q, uint64_t delay_ms, ab_sleep_cb cb);

/* Starts a sleep: the queue's cb(s) runs once it is over (never from inside
 * this call).  0, or a libuv error code when the timer could not be armed
 * (nothing is queued then). */
int ab_sleepq_start(ab_sleepq_t *q, ab_sleep_t *s);

/* Closes the queue's handles (waiters still queued never wake). */
void ab_sleepq_close(ab_sleepq_t *q);

#endif /* AB_SLEEPQ_H */
