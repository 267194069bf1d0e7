/*
 * async.h -- async functions and await on promises, with stackful coroutines.
 *
 *   ab_async(fn, arg)  runs fn in a new coroutine (coro.h) at once, up to its
 *                      first await, the way a JavaScript async function starts
 *                      synchronously, and returns a promise of its result.
 *   ab_await(p, &v)    suspends the running coroutine until p settles, then
 *                      resumes it from a microtask (promise.h) and returns
 *                      0 with p's value, or p's rejection code.
 *
 * Timing follows ECMAScript: awaiting a promise registers one reaction on it
 * (PerformPromiseThen), so the coroutine resumes one microtask tick after p
 * settles; awaiting an already-settled promise still suspends and resumes on
 * the next tick, never synchronously: the microtask that resumes it is queued
 * at the await, behind what is queued already, as PerformPromiseThen queues
 * the reaction job of a settled promise (no reaction record is made for it,
 * see ab_promise_settled_enqueue).  When fn returns, its promise is
 * resolved then (its reactions run on later ticks, as for `return v` in JS).
 *
 * Errors become rejections: fn returns 0 to fulfil its promise with *value,
 * or a nonzero code to reject it with that code (the message is
 * ab_promise_strerror's, or the one given to ab_async_fail()).  Propagating
 * an awaited rejection is `if ((rc = ab_await(p, &v)) != 0) return rc;`.
 *
 * Misuse: ab_await() outside an async function (on the thread's own stack,
 * where there is nothing to suspend) is a programming error, like `await`
 * outside an async function in JavaScript: it prints "ab_await: not inside an
 * async function (start one with ab_async)" and aborts.
 *
 * A coroutine's stack is returned to the pool as soon as its function has
 * returned.  Values are borrowed pointers (promises of untyped values): the
 * caller keeps them alive as long as promises may hand them out.
 */
#ifndef AB_ASYNC_H
#define AB_ASYNC_H

#include "coro.h"
#include "promise.h"

/* An async function: returns 0 and sets *value to fulfil, or a nonzero code
 * to reject.  *value is NULL on entry. */
typedef int (*ab_async_fn)(void *arg, void **value);

/* Runs fn(arg, &value) as an async function and returns its promise (a new
 * reference).  When no stack can be mapped the promise is already rejected
 * with AB_ENOMEM; NULL only when not even a promise could be allocated. */
static inline ab_promise_t *ab_async(ab_async_fn fn, void *arg);

/* Awaits p (the caller keeps its reference): returns 0 with *value set to
 * p's value (borrowed, valid while p is; value may be NULL), or p's nonzero
 * rejection code (read the rest with ab_promise_reason(p)); AB_ENOMEM if no
 * reaction could be registered.  Aborts outside an async function.  Inline,
 * so that the switch is made from the awaiting function itself (coro.h). */
static inline int ab_await(ab_promise_t *p, void **value);

/* Sets the message the running async function's promise is rejected with if
 * its function returns a nonzero code (a static string; default: the code's
 * ab_promise_strerror).  Aborts outside an async function. */
void ab_async_fail(const char *message);

/* True when called from inside an async function (or any coroutine). */
static inline int ab_in_async(void) { return ab_coro_current() != NULL; }

/* ---- private (async.c) ----------------------------------------------------
 *
 * ab_async and ab_await are inline, so that neither makes a call whose return
 * happens after a switch (a child that suspends, a resumption): each such
 * return would be mispredicted (coro.h). */

/* What an async function's coroutine keeps: on its own stack, in the body. */
typedef struct ab__async_s {
  ab_async_fn fn;
  void *arg;
  ab_promise_t *promise;   /* the coroutine's own reference */
  const char *message;     /* set by ab_async_fail() */
} ab__async_t;

/* An async function's coroutine: its function (what identifies it) and its
 * C entry (which ab__coro_create_at makes boot jump to). */
void ab__async_body(void *start);
void ab__async_run(ab_coro_t *co);

/* No coroutine could be made: p rejected with AB_ENOMEM, the body's
 * reference dropped; returns p. */
ab_promise_t *ab__async_nostack(ab_promise_t *p);

static inline ab_promise_t *ab_async(ab_async_fn fn, void *arg) {
  ab_promise_t *p = ab__promise_new_shared(); /* the caller's and the body's */
  if (p == NULL)
    return NULL;
  ab_coro_t *co = ab__coro_create_at(ab__async_body, NULL, ab__async_run);
  if (co == NULL)
    return ab__async_nostack(p);
  ab__async_t start = {fn, arg, p, NULL}; /* read before the first switch back */
  co->arg = &start;
  ab_coro_resume(co);
  if (ab_coro_done(co)) /* returned without suspending: the stack goes back */
    ab_coro_destroy(co);
  return p;
}

/* ab_await's two halves. */

/* Queues or registers what resumes the running async function once p has
 * settled: 0, or the code ab_await returns at once. */
int ab__await_begin(ab_promise_t *p);

static inline int ab_await(ab_promise_t *p, void **value) {
  int rc = ab__await_begin(p);
  if (rc != 0)
    return rc;
  ab_coro_yield();
  return ab__promise_outcome(p, value);
}

#endif /* AB_ASYNC_H */
