/*
 * async.c -- ab_async / ab_await on stackful coroutines (see async.h).
 */
#include "async.h"

#include <stdio.h>
#include <stdlib.h>


/* An async function's coroutine: runs the function, settles the promise and
 * ends the coroutine, never returning.  ab__async_run is its C entry, which
 * boot jumps to (ab__coro_create_at). */
static inline __attribute__((always_inline)) void ab__async_main(ab_coro_t *co) {
  ab__async_t self = *(ab__async_t *)co->arg;  /* the starter's copy dies soon */
  co->data = &self;
  void *value = NULL;
  int code = self.fn(self.arg, &value);
  ab__promise_return(self.promise, code, self.message, value);
  ab__coro_end(co);
}

void ab__async_run(ab_coro_t *co) {
  ab__coro_begin(co);
  ab__async_main(co);
}

/* The coroutine's function: what identifies an async function's coroutine,
 * and what the ucontext build's generic entry calls. */
void ab__async_body(void *start) {
  (void)start;
  ab__async_main(ab_coro_current());
}

/* Whoever resumed a coroutine hands its stack back once it has finished. */
static void ab__async_step(ab_coro_t *co) {
  ab_coro_resume(co);
  if (ab_coro_done(co))
    ab_coro_destroy(co);
}

ab_promise_t *ab__async_nostack(ab_promise_t *p) {
  ab_promise_reject(p, AB_ENOMEM, "ab_async: no stack could be mapped for the coroutine");
  ab_promise_release(p); /* the body's, which never runs */
  return p;
}

static ab_coro_t *ab__async_current(const char *who) {
  ab_coro_t *co = ab_coro_current();
  if (!co || co->fn != ab__async_body) {
    fprintf(stderr, "%s: not inside an async function (start one with ab_async)\n", who);
    abort();
  }
  return co;
}

static void ab__await_wake(void *arg, ab_promise_t *settled) {
  (void)settled;
  ab__async_step(arg);
}

static void ab__await_resume(void *arg) { ab__async_step(arg); }

int ab__await_begin(ab_promise_t *p) {
  /* Resumption always comes from a microtask, one tick later, as in
   * JavaScript, even when p has settled already.  Then the job that resumes
   * is queued at once, where PerformPromiseThen would queue the reaction's,
   * without a reaction record (the caller keeps p alive meanwhile);
   * otherwise one raw reaction waits for p. */
  return ab__promise_await(p, ab__await_resume, ab__await_wake, ab__async_current("ab_await"));
}

void ab_async_fail(const char *message) {
  ab__async_t *self = ab__async_current("ab_async_fail")->data;
  self->message = message;
}
