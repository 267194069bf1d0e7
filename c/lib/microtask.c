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

#include "coro.h"

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
  /* Every task keeps its counter (the drain counts what ran by head). */
  for (size_t i = q->head; i != q->tail; i++) buf[i & (cap - 1)] = q->buf[i & (q->cap - 1)];
  free(q->buf);
  q->buf = buf;
  q->cap = cap;
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

/* Resumes coroutine co; whoever resumes a coroutine last hands its stack
 * back once it has finished. */
static inline __attribute__((always_inline)) void resume(ab_coro_t *co) {
  ab_coro_resume(co);
  if (ab_coro_done(co))
    ab_coro_destroy(co);
}

/* Runs q until it is empty, tasks queued meanwhile included.  Inlined once
 * per queue, so q is a constant address; the ring is re-read after every
 * task, which may have grown it.  Nothing stays in a register across a task
 * (what ran is counted from the heads, which only grow).  `coros`: whether
 * the queue may hold coroutines to resume (AB__MICROTASK_RESUME), and
 * whether they are resumed inline (each resumption clobbers every register)
 * or the first hands the rest of the queue to run_coros, which does, so that
 * a drain that meets none saves no more registers than it uses. */
static void run_coros(void);

enum { NO_COROS, HAND_COROS, RUN_COROS };

static inline __attribute__((always_inline)) void run_queue(ab__queue_t *q, int coros) {
  while (q->head != q->tail) {
    ab__task_t t = q->buf[q->head & (q->cap - 1)];
    if (coros != NO_COROS && t.fn == AB__MICROTASK_RESUME) {
      if (coros == HAND_COROS) {
        run_coros();
        return;
      }
      q->head++;
      resume(t.arg);
      continue;
    }
    q->head++;
    t.fn(t.arg);
  }
}

/* The microtask queue from a coroutine to resume on, until it is empty. */
static __attribute__((noinline)) void run_coros(void) { run_queue(&ab__microtasks, RUN_COROS); }

/* The microtask queue until it is empty (ab__microtask_run_first's rest). */
static __attribute__((noinline)) void run_microtasks(void) {
  run_queue(&ab__microtasks, HAND_COROS);
}

/* The drain proper, out of line: an empty drain (the safety net's, twice a
 * loop turn) stays a few loads in ab_microtasks_drain, with no frame.  The
 * tick queue never holds a coroutine. */
static __attribute__((noinline)) size_t drain(void) {
  draining = 1;
  size_t first = ticks.head + ab__microtasks.head;
  for (;;) {
    run_queue(&ticks, NO_COROS);
    run_queue(&ab__microtasks, HAND_COROS);
    if (ticks.head != ticks.tail) continue;  /* ticks queued by microtasks */
    if (LIKELY(ab__microtasks_idle == NULL)) break;
    void (*idle)(void) = ab__microtasks_idle;
    ab__microtasks_idle = NULL;
    idle();
  }
  draining = 0;
  return ticks.head + ab__microtasks.head - first;
}

size_t ab_microtasks_drain(void) {
  if (draining) return 0;
  if (ab__microtasks.head == ab__microtasks.tail && ticks.head == ticks.tail &&
      ab__microtasks_idle == NULL)
    return 0;
  return drain();
}

/* A coroutine to resume as ab__microtask_run_first's job: out of line, so
 * that the registers its switch clobbers are saved only on this path. */
static __attribute__((noinline)) void resume_first(ab_coro_t *co) { resume(co); }

int ab__microtask_run_first(ab_microtask_fn fn, void *arg) {
  if (UNLIKELY(draining || ab__microtasks.head != ab__microtasks.tail ||
               ticks.head != ticks.tail || ab__microtasks_idle != NULL)) {
    if (push(&ab__microtasks, fn, arg) != 0) return UV_ENOMEM;
    ab_microtasks_drain();
    return 0;
  }
  /* The drain's first job: the tick queue is empty, so the drain would
   * have come to it at once. */
  draining = 1;
  if (fn == AB__MICROTASK_RESUME)
    resume_first(arg);
  else
    fn(arg);
  /* Then, as the drain goes on: the microtasks fn queued, before any tick
   * it queued; the drain's further rounds after them. */
  if (UNLIKELY(ab__microtasks.head != ab__microtasks.tail))
    run_microtasks();
  draining = 0;
  if (UNLIKELY(ticks.head != ticks.tail || ab__microtasks_idle != NULL))
    drain();
  return 0;
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
