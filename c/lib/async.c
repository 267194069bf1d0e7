/*
 * async.c -- ab_async / ab_await on stackful coroutines (see async.h).
 */
#include "async.h"

#include <stdio.h>
#include <stdlib.h>


/* The portable start: runs the function; one that never yielded goes back
 * to the starter (ab_async settles its promise), one that did settles its
 * own.  Never returns. */
static inline __attribute__((always_inline)) void ab__async_main(ab_coro_t *co) {
  ab_async_fn fn = (ab_async_fn)co->data;
  co->data = NULL;
  int code = fn(co->arg, &co->result);
  if (!co->yielded) {
    co->code = code;
    ab__coro_end(co);
  }
  ab__async_late(co, code);
}

void ab__async_run(ab_coro_t *co) {
  ab__coro_begin(co);
  ab__async_main(co);
}

/* The coroutine's function: what identifies an async function's coroutine,
 * and what the ucontext build's generic entry calls. */
void ab__async_body(void *unused) {
  (void)unused;
  ab__async_main(ab_coro_current());
}

void ab__async_late(ab_coro_t *co, int code) {
  ab_promise_t *p = co->data;
  if (p != NULL) /* NULL: no promise could be made when it first yielded */
    ab__promise_return(p, code, co->message, co->result);
  ab__coro_end(co);
}

#if defined(AB__CORO_PAIRED) && (defined(AB__ASAN) || defined(AB__TSAN))
/* Under a sanitizer the new stack is announced on it before fn runs. */
int ab__async_first(ab_coro_t *co, ab_async_fn fn) {
  ab__coro_begin(co);
  return fn(co->arg, &co->result);
}
#endif

ab_promise_t *ab__async_nostack(void) {
  return ab_promise_rejected(AB_ENOMEM, "ab_async: no stack could be mapped for the coroutine");
}

static ab_coro_t *ab__async_current(const char *who) {
  ab_coro_t *co = ab_coro_current();
  if (!co || co->fn != ab__async_body) {
    fprintf(stderr, "%s: not inside an async function (start one with ab_async)\n", who);
    abort();
  }
  return co;
}

void ab__await_outside(void) { ab__async_current("ab_await"); abort(); }

void ab_async_fail(const char *message) {
  ab__async_current("ab_async_fail")->message = message;
}
