/*
 * microtask_internal.h -- what the promise core (promise.c, and the fast paths
 * promise.h inlines) sees of the queues of microtask.c: the microtask ring
 * itself, so that queueing a reaction is a few inlined stores, and the hook
 * through which the drain asks the core to report unhandled rejections.  Not
 * part of the API.
 */
#ifndef AB_MICROTASK_INTERNAL_H
#define AB_MICROTASK_INTERNAL_H

#include <stddef.h>

#include "microtask.h"

typedef struct ab__task_s {
  ab_microtask_fn fn;
  void *arg;
} ab__task_t;

/* A FIFO ring: head and tail are free-running counters, cap a power of two
 * (or 0 before the first push), so the slot of counter i is i & (cap - 1). */
typedef struct ab__queue_s {
  ab__task_t *buf;
  size_t cap;
  size_t head;   /* next task to run */
  size_t tail;   /* next free slot */
} ab__queue_t;

/* The microtask queue (promise jobs and ab_microtask_enqueue). */
extern ab__queue_t ab__microtasks;

/* When set, the drain clears it and calls it once both queues are empty,
 * then goes round again: the promise core sets it when it has a rejection
 * to report, so an empty drain stays one test of three words. */
extern void (*ab__microtasks_idle)(void);

/* Doubles q (256 tasks the first time), keeping its order.  0 or UV_ENOMEM. */
int ab__queue_grow(ab__queue_t *q);

static inline int ab__queue_full(const ab__queue_t *q) {
  return q->tail - q->head == q->cap;
}

/* Appends fn(arg) to q, which has room (see ab__queue_full). */
static inline void ab__queue_put(ab__queue_t *q, ab_microtask_fn fn, void *arg) {
  ab__task_t *t = &q->buf[q->tail++ & (q->cap - 1)];
  t->fn = fn;
  t->arg = arg;
}

/* Queues fn(arg) on the microtask queue and drains both queues, as
 * ab_microtask_enqueue() and ab_microtasks_drain() would one after the other;
 * but when fn(arg) would be the drain's first job (nothing queued, no drain
 * running, no report pending) it runs at once, without the ring, and the
 * drain runs what it queued (fn may be AB__MICROTASK_RESUME: the coroutine
 * is resumed, and destroyed once done, as the drain does).  The order is
 * the same either way.  0, or UV_ENOMEM when the queue could not grow (then
 * nothing was queued or run).  For the end of a macrotask callback that
 * settles a promise (promise.c: ab__promise_fulfil_drain). */
int ab__microtask_run_first(ab_microtask_fn fn, void *arg);

#endif /* AB_MICROTASK_INTERNAL_H */
