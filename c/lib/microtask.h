/*
 * microtask.h -- the two queues Node runs after every macrotask callback: the
 * tick queue (process.nextTick) and the microtask queue (promise jobs and
 * queueMicrotask), for one libuv loop thread.
 *
 * Features
 *   - ab_next_tick(fn, arg) queues a tick, ab_microtask_enqueue(fn, arg) a
 *     microtask; both are FIFO and never run anything synchronously.
 *   - The promise core (promise.h) queues its jobs (reactions, adoptions,
 *     thenable calls, await's resumptions) on the microtask queue, so a
 *     queueMicrotask-style job and a promise reaction queued after it run in
 *     that order, as in JavaScript.
 *   - ab_microtasks_drain() runs both queues until both are empty, in Node's
 *     order (below), then reports unhandled promise rejections.
 *   - Cheap: each queue is a ring of {function, argument} pairs that doubles
 *     when full and never shrinks while in use; the drain checks the tick
 *     queue once per round, never per job, and resumes an awaiting
 *     coroutine itself (a job of AB__MICROTASK_RESUME, below: no call per
 *     resumption).
 *
 * Ordering (Node's processTicksAndRejections, lib/internal/process/task_queues.js)
 *   One drain repeats, until both queues are empty:
 *     1. every tick, including ticks queued by the ticks of this pass;
 *     2. every microtask, including microtasks queued by microtasks;
 *        a tick queued by a microtask waits until the queue is empty, and
 *        then step 1 runs again (and microtasks those ticks queue after it).
 *   Once both are empty, unhandled rejections are reported (a reporter may
 *   queue more work: the drain goes round again).  So after a callback that
 *   queues tick t and promise reaction p, t runs first; a tick queued by p
 *   runs after every microtask p's round queued.  c/tests/ordering/tick-*.js
 *   are the scenarios, checked against node.
 *
 * Running with libuv
 *   Node drains both queues after every macrotask callback.  Code that owns
 *   a libuv callback which may queue ticks or settle promises calls
 *   ab_microtasks_drain() at its end (cheap when nothing is queued).  The
 *   safety net that catches the callbacks which do not, and the loop runner,
 *   are ab_promise_loop_attach() / ab_promise_loop_run() (promise.h,
 *   promise_uv.c); they drain through this same function.
 *
 * Caveats
 *   - One thread: the queues are per process and unlocked; queue and drain
 *     only from the loop thread.
 *   - ab_microtasks_drain() is not reentrant: called from inside a tick or a
 *     microtask it returns 0 at once (the outer drain runs what was queued).
 *   - A queue that cannot grow makes ab_next_tick() / ab_microtask_enqueue()
 *     return UV_ENOMEM and queue nothing; the promise core's own jobs cannot
 *     report it to anyone, so for them the process ends ("ab_promise: out
 *     of memory", exit 3).
 */
#ifndef AB_MICROTASK_H
#define AB_MICROTASK_H

#include <stddef.h>

/* A tick or a microtask: called once, from ab_microtasks_drain(). */
typedef void (*ab_microtask_fn)(void *arg);

/* process.nextTick(fn, arg): queues fn(arg) on the tick queue, after the
 * ticks queued already.  Returns 0, or UV_ENOMEM (nothing queued). */
int ab_next_tick(ab_microtask_fn fn, void *arg);

/* queueMicrotask: queues fn(arg) on the microtask queue, after the jobs
 * queued already.  Returns 0, or UV_ENOMEM (nothing queued). */
int ab_microtask_enqueue(ab_microtask_fn fn, void *arg);

/* Runs ticks and microtasks in Node's order until both queues are empty,
 * then reports unhandled rejections.  Returns how many ticks and microtasks
 * ran (0 when called from inside a drain). */
size_t ab_microtasks_drain(void);

/* How many ticks and microtasks are queued: what a drain would run now. */
size_t ab_microtasks_pending(void);

/* How many ticks are queued. */
size_t ab_ticks_pending(void);

/* Gives the memory of empty queues back to the allocator (at teardown;
 * ab_promise_pool_trim() calls it). */
void ab_microtasks_trim(void);

/* ---- private ---------------------------------------------------------------
 * A microtask whose function is AB__MICROTASK_RESUME (null) resumes a
 * coroutine (its argument, an ab_coro_t) and destroys it once it has
 * finished: what an await queues (async.h).  The drain runs it inline, so
 * that the switch into the coroutine is made from the drain's own loop (no
 * call, and no frame that saves the callee-saved registers around each
 * resumption), and tells it from a function by a test against zero. */
#define AB__MICROTASK_RESUME ((ab_microtask_fn)0)

#endif /* AB_MICROTASK_H */
