/*
 * fiber.c -- fibers on the coroutines of coro.h (see fiber.h).
 */
#include "fiber.h"

#include <stdio.h>
#include <stdlib.h>

_Thread_local unsigned long ab__fiber_suspended;

/* What a fiber's coroutine runs: the user's function, then nothing. */
void ab__fiber_body(void *arg) {
  ab_coro_t *co = ab_coro_current();
  ((ab_fiber_fn)co->data)(arg);
}

/* Resumes f; whoever resumed a fiber last hands its stack back. */
static void step(ab_fiber_t *f) {
  ab_coro_resume(f);
  if (ab_coro_done(f))
    ab_coro_destroy(f);
}

int ab_fiber_start(ab_fiber_fn fn, void *arg) {
  ab_coro_t *co = ab_coro_create(ab__fiber_body, arg);
  if (co == NULL)
    return AB_ENOMEM;
  co->data = (void *)fn;
  step(co);
  return 0;
}

void ab__fiber_outside(const char *who) {
  fprintf(stderr, "%s: not inside a fiber (start one with ab_fiber_start)\n", who);
  abort();
}

/* The running fiber; aborts naming `who` when not inside one. */
static ab_fiber_t *inside(const char *who) {
  ab_coro_t *co = ab_coro_current();
  if (co == NULL || co->fn != ab__fiber_body)
    ab__fiber_outside(who);
  return co;
}

ab_fiber_t *ab_fiber_current(void) {
  ab_coro_t *co = ab_coro_current();
  return co != NULL && co->fn == ab__fiber_body ? co : NULL;
}

void ab_fiber_wake(ab_fiber_t *f) {
  if (f->fn != ab__fiber_body) {
    fprintf(stderr, "ab_fiber_wake: not a fiber\n");
    abort();
  }
  step(f);
}

static void wake_on_settle(void *arg, ab_promise_t *settled) {
  (void)settled;
  step(arg);
}

static void ignore(void *arg, ab_promise_t *settled) {
  (void)arg;
  (void)settled;
}

int ab_fiber_wait(ab_promise_t *p, void **value) {
  ab_fiber_t *f = inside("ab_fiber_wait");
  if (ab_promise_state(p) == AB_PENDING) {
    int rc = ab_promise_on_settle(p, wake_on_settle, f);
    if (rc != 0)
      return rc;
    ab__fiber_suspended++;
    ab_coro_yield();
  }
  if (ab_promise_state(p) == AB_REJECTED) {
    /* Seen here is handled: a no-op reaction marks it so (the rare path). */
    ab_promise_on_settle(p, ignore, NULL);
    int code = ab_promise_code(p);
    return code != 0 ? code : AB_ETHROWN;
  }
  if (value != NULL)
    *value = ab_promise_value(p);
  return 0;
}

unsigned long ab_fiber_suspensions(void) { return ab__fiber_suspended; }
