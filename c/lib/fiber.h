/*
 * fiber.h -- fibers: stackful coroutines (coro.h) that suspend only on
 * pending work, as node-fibers did.
 *
 * Where an async function (async.h) keeps JavaScript's semantics -- every
 * await takes one microtask turn, even of a settled promise -- a fiber runs
 * plain code on its own stack and leaves it only when it must wait:
 *
 *   - a result that is already there is returned directly: a cache hit is
 *     a plain function call, ab_fiber_wait() of a settled promise returns at
 *     once, and nothing is queued;
 *   - pending work suspends the fiber: it calls ab_fiber_suspend(), and the
 *     completion callback of that work (a libuv callback, say) calls
 *     ab_fiber_wake(), which resumes the fiber at once, on the callback's
 *     stack, up to its next suspension or its end.  No microtask, no promise.
 *
 * Both run on the same coroutines, so fiber against await is the cost of
 * JavaScript's await semantics alone.
 *
 *   static void body(void *arg) {           // runs on the fiber's stack
 *     for (...) {
 *       const item_t *it = cache_get(key);  // a hit: no suspension
 *       if (it == NULL) {
 *         start_io(on_io_done, ab_fiber_current());
 *         ab_fiber_suspend();               // back here from on_io_done
 *       }
 *     }
 *   }
 *   static void on_io_done(void *fiber) { ab_fiber_wake(fiber); }
 *
 *   ab_fiber_start(body, arg);              // runs body up to its first suspend
 *   uv_run(loop, UV_RUN_DEFAULT);           // the I/O wakes it
 *
 * Ownership: a fiber's stack comes from the coroutine pool (coro.h) and goes
 * back to it as soon as its function returns, whoever resumed it last
 * (ab_fiber_start or ab_fiber_wake).  The ab_fiber_t pointer is invalid from
 * then on.
 *
 * Misuse aborts with a message: ab_fiber_suspend() or ab_fiber_wait() outside
 * a fiber (on the thread's stack, or inside an async function of async.h),
 * ab_fiber_wake() of a fiber that is running or finished.
 *
 * One thread, like the loop: fibers belong to the thread that made them.
 */
#ifndef AB_FIBER_H
#define AB_FIBER_H

#include "coro.h"
#include "promise.h"

typedef ab_coro_t ab_fiber_t;

/* A fiber's function. */
typedef void (*ab_fiber_fn)(void *arg);

/* Runs fn(arg) on a new fiber at once, up to its first suspension or its
 * end.  Returns 0, or AB_ENOMEM when no stack could be mapped (fn never
 * runs). */
int ab_fiber_start(ab_fiber_fn fn, void *arg);

/* The running fiber, or NULL when not inside one. */
ab_fiber_t *ab_fiber_current(void);

/* Suspends the running fiber until someone calls ab_fiber_wake() on it.
 * Inline (below), so that the fiber is resumed in its caller's own frame: a
 * suspension from inside a called function would make that function's
 * return cross the switch, mispredicted (coro.h). */
static inline void ab_fiber_suspend(void);

/* Resumes suspended fiber f at once, on the caller's stack; returns when f
 * suspends again or finishes (its stack is then back in the pool). */
void ab_fiber_wake(ab_fiber_t *f);

/* Waits for p (the caller keeps its reference): when p has settled, returns
 * at once without suspending; otherwise suspends until p settles (woken from
 * the reaction's microtask).  Returns 0 with *value set to p's value
 * (borrowed; value may be NULL), or p's nonzero rejection code; AB_ENOMEM
 * when no reaction could be registered. */
int ab_fiber_wait(ab_promise_t *p, void **value);

/* How many times fibers of this thread have suspended since it started: a
 * test checks that a hit never did. */
unsigned long ab_fiber_suspensions(void);

/* ---- private: ab_fiber_suspend's inline part (fiber.c has the rest) ---- */

/* The function every fiber's coroutine runs (a coroutine that runs it is a
 * fiber). */
void ab__fiber_body(void *arg);

/* Suspensions so far on this thread (ab_fiber_suspensions). */
extern _Thread_local unsigned long ab__fiber_suspended;

/* Aborts: `who` was called outside a fiber. */
void ab__fiber_outside(const char *who) __attribute__((noreturn, cold));

static inline __attribute__((always_inline)) void ab_fiber_suspend(void) {
  ab_coro_t *co = ab_coro_current();
  if (__builtin_expect(co == NULL || co->fn != ab__fiber_body, 0))
    ab__fiber_outside("ab_fiber_suspend");
  ab__fiber_suspended++;
  ab__coro_yield_from(co);
}

#endif /* AB_FIBER_H */
