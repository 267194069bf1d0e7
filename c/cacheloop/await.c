/*
 * await.c -- one async function on a stackful coroutine (c/lib/async.h):
 * for (i...) { entry = await load(name); check }, where load returns a
 * promise (promise.c).  JavaScript's semantics: awaiting the already
 * fulfilled promise of a hit still suspends the coroutine and resumes it from
 * the next microtask, so every load costs a promise and two switches.
 * Compare fiber.c, the same coroutine without that rule.
 */
#include "workload.h"

#include "async.h"
#include "modes.h"

static int body(void *arg, void **value) {
  (void)value;
  cl_state_t *st = arg;
  while (st->i < st->run->n && !ab_run_failed(st->run)) {
    ab_promise_t *p = cl_load_promise(st);
    if (p == NULL)
      break;
    void *e = NULL;
    int rc = ab_await(p, &e);
    if (rc != 0) {
      if (rc != AB_ENOMEM || ab_promise_state(p) == AB_REJECTED)
        ab_op_fail(st->run, st->i, rc, ab_promise_message(p));
      ab_promise_release(p);
      break;
    }
    ab_promise_release(p);
    if (cl_loaded(st, e) != 0)
      break;
  }
  return 0;
}

int cl_await(ab_run_t *run) {
  cl_pass_begin(run);
  ab_run_begin(run);
  ab_promise_t *p = ab_async(body, run->state);
  if (p == NULL)
    ab_run_oom(run, 0, "a promise");
  else if (ab_promise_state(p) == AB_REJECTED)
    ab_run_oom(run, 0, "a coroutine stack");
  ab_promise_release(p);
  int rc = cl_promise_finish(run);
  if (rc == 0 && ab_coro_live() != 0)
    ab_run_fail(run, run->n - 1, "%zu coroutines never finished", ab_coro_live());
  return ab_run_failed(run) ? -1 : 0;
}
