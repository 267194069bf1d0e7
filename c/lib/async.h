/*
 * async.h -- async functions and await on promises, with stackful coroutines.
 *
 *   ab_async(fn, arg)  runs fn in a new coroutine (coro.h) at once, up to its
 *                      first await, the way a JavaScript async function starts
 *                      synchronously, and returns a promise of its result:
 *                      made settled when fn returned before its first await
 *                      (nobody, fn included, can see the promise before
 *                      ab_async returns it), pending when fn suspended.
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
 *
 * Cost (x86_64, callgrind, difference of two N; make micro for the time): a
 * call that returns at once is ~108 instructions with its promise and the
 * caller's release of it (a pooled record and stack, one call and one return
 * on that stack, a promise made settled), an await of a settled promise
 * ~112 (the resumption is queued, the drain resumes the coroutine inline:
 * microtask.h).
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
 * so that the switch is made from the awaiting function itself (coro.h);
 * call it from the async function's own body too, or from a helper that is
 * always inlined there: a helper left a call returns across the switch, and
 * each await then costs two mispredicted returns (make test-asm checks the
 * workloads). */
static inline int ab_await(ab_promise_t *p, void **value);

/* Sets the message the running async function's promise is rejected with if
 * its function returns a nonzero code (a static string; default: the code's
 * ab_promise_strerror).  Aborts outside an async function. */
void ab_async_fail(const char *message);

/* ---- private (async.c) ----------------------------------------------------
 *
 * ab_async and ab_await are inline: the start's call and the switches are
 * then made from the calling function itself, whose frame already keeps what
 * they clobber, and no call of their own returns across a switch (coro.h).
 *
 * An async function's coroutine is identified by its fn, ab__async_body; its
 * data holds the ab_async_fn until the portable start runs it, and its
 * promise once it has yielded.  The promise is made only then: a function
 * that returns before it ever awaits gets a promise made settled, after it
 * returned, before ab_async returns (nobody could have seen it earlier, the
 * body included), so such a call costs a pooled stack, one call and one
 * return, and one promise. */
void ab__async_body(void *unused);
/* The portable start's C entry (boot jumps to it). */
void ab__async_run(ab_coro_t *co);
/* A function that yielded has returned: its promise settles, it ends. */
void ab__async_late(ab_coro_t *co, int code) __attribute__((noreturn));
#if defined(AB__CORO_PAIRED) && (defined(AB__ASAN) || defined(AB__TSAN))
int ab__async_first(ab_coro_t *co, ab_async_fn fn);
#endif

/* No coroutine could be made: a promise rejected with AB_ENOMEM, or NULL. */
ab_promise_t *ab__async_nostack(void);

static inline __attribute__((always_inline)) ab_promise_t *ab_async(ab_async_fn fn, void *arg) {
  int code, at_once;
#if defined(AB__CORO_PAIRED)
  ab_coro_t *co = ab__coro_new_entered(ab__async_body, arg, ab__async_run);
  if (__builtin_expect(co == NULL, 0))
    return ab__async_nostack();
  co->result = NULL;
  co->message = NULL;
#if defined(AB__ASAN) || defined(AB__TSAN)
  at_once = ab__coro_start(co, (ab__coro_call_fn)ab__async_first, co, (void *)fn, ab__async_late,
                           &code);
#else
  at_once = ab__coro_start(co, (ab__coro_call_fn)fn, arg, &co->result, ab__async_late, &code);
#endif
#else
  ab_coro_t *co = ab__coro_create_at(ab__async_body, arg, ab__async_run);
  if (__builtin_expect(co == NULL, 0))
    return ab__async_nostack();
  co->result = NULL;
  co->message = NULL;
  co->data = (void *)fn;
  ab_coro_resume(co);
  code = co->code;
  at_once = ab_coro_done(co);
#endif
  if (__builtin_expect(at_once, 1)) {
    /* returned without awaiting: the stack goes back at once */
    ab_promise_t *p = ab__promise_settled(code, co->message, co->result);
    ab__coro_destroy_fresh(co);
    return p;
  }
  /* suspended in its first await: its promise, the caller's and its own */
  ab_promise_t *p = ab__promise_new_shared();
  co->data = p;
  return p;
}

/* ab_await outside an async function: the message, then abort. */
void ab__await_outside(void) __attribute__((noreturn, cold));

static inline int ab_await(ab_promise_t *p, void **value) {
  ab_coro_t *co = ab_coro_current();
  if (__builtin_expect(co == NULL || co->fn != ab__async_body, 0))
    ab__await_outside();
  /* Resumption always comes from a microtask, one tick after p settles, as
   * in JavaScript, even when p has settled already: the job that resumes is
   * queued where PerformPromiseThen would queue the reaction's (the caller
   * keeps p alive meanwhile). */
  int rc = ab__promise_await(p, AB__MICROTASK_RESUME, co);
  if (rc != 0)
    return rc;
  ab__coro_yield_from(co);
  return ab__promise_outcome(p, value);
}

#endif /* AB_ASYNC_H */
