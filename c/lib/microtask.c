/*
 * microtask.c -- the tick queue and the microtask queue, and the drain that
 * runs them in Node's order (see microtask.h).
 *
 * Both queues are rings of {function, argument} pairs (microtask_internal.h).
 * The promise core pushes its jobs onto the microtask ring itself, inlined;
 * everything else comes through the two enqueue functions below.
 */
#include "microtask_internal.h"

#include <stdlib.h>
#include <uv.h>

#if defined(__GNUC__)
#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define LIKELY(x) (x)
#define UNLIKELY(x) (x)
#endif

ab__queue_t ab__microtasks;
void (*ab__microtasks_idle)(void);

static ab__queue_t ticks;
static int draining;

int ab__queue_grow(ab__queue_t *q) {
  size_t cap = q->cap ? q->cap * 2 : 256;
  ab__task_t *buf = malloc(cap * sizeof(*buf));
  if (buf == NULL) return UV_ENOMEM;
  size_t n = q->tail - q->head;
  for (size_t i = 0; i < n; i++) buf[i] = q->buf[(q->head + i) & (q->cap - 1)];
  free(q->buf);
  q->buf = buf;
  q->cap = cap;
  q->head = 0;
  q->tail = n;
  return 0;
}

static int push(ab__queue_t *q, ab_microtask_fn fn, void *arg) {
  if (UNLIKELY(ab__queue_full(q)) && ab__queue_grow(q) != 0) return UV_ENOMEM;
  ab__queue_put(q, fn, arg);
  return 0;
}

int ab_next_tick(ab_microtask_fn fn, void *arg) { return push(&ticks, fn, arg); }

int ab_microtask_enqueue(ab_microtask_fn fn, void *arg) {
  return push(&ab__microtasks, fn, arg);
}

size_t ab_ticks_pending(void) { return ticks.tail - ticks.head; }

size_t ab_microtasks_pending(void) {
  return ticks.tail - ticks.head + ab__microtasks.tail - ab__microtasks.head;
}

/* Runs q until it is empty, tasks queued meanwhile included; returns how
 * many ran.  Inlined once per queue, so q is a constant address; the ring is
 * re-read after every task, which may have grown it. */
static inline size_t run_queue(ab__queue_t *q) {
  size_t ran = 0;
  while (q->head != q->tail) {
    ab__task_t t = q->buf[q->head & (q->cap - 1)];
    q->head++;
    t.fn(t.arg);
    ran++;
  }
  return ran;
}

/* The drain proper, out of line: an empty drain (the safety net's, twice a
 * loop turn) stays a few loads in ab_microtasks_drain, with no frame. */
static __attribute__((noinline)) size_t drain(void) {
  draining = 1;
  size_t ran = 0;
  for (;;) {
    ran += run_queue(&ticks);
    ran += run_queue(&ab__microtasks);
    if (ticks.head != ticks.tail) continue;  /* ticks queued by microtasks */
    if (LIKELY(ab__microtasks_idle == NULL)) break;
    void (*idle)(void) = ab__microtasks_idle;
    ab__microtasks_idle = NULL;
    idle();
  }
  draining = 0;
  return ran;
}

size_t ab_microtasks_drain(void) {
  if (draining) return 0;
  if (ab__microtasks.head == ab__microtasks.tail && ticks.head == ticks.tail &&
      ab__microtasks_idle == NULL)
    return 0;
  return drain();
}

static void queue_trim(ab__queue_t *q) {
  if (q->head != q->tail) return;
  free(q->buf);
  q->buf = NULL;
  q->cap = q->head = q->tail = 0;
}

void ab_microtasks_trim(void) {
  queue_trim(&ticks);
  queue_trim(&ab__microtasks);
}
