/*
 * fiber.c -- the fiber style: a coroutine per task (coro.h directly, no
 * promise) that starts its sleep and suspends; the wake-up resumes it from
 * the timer's callback, and it verifies itself.  N coroutines on at most
 * 128 stacks, shared and copied as for await (c/lib/coro.h), taken from the
 * coroutine pool once the clock has started (c/lib/modes.h).
 */
#include "workload.h"

/* A task's coroutine, in the set's head before its record. */
#define CO_HEAD AB_OPS_ALIGNED(sizeof(ab_coro_t *))

static ab_coro_t **co_of(ab_task_t *t) { return (ab_coro_t **)((char *)t - CO_HEAD); }

static void resume(ab_task_t *t) {
  ab_coro_t **co = co_of(t);
  ab_coro_resume(*co);
  if (ab_coro_done(*co)) {
    ab_coro_destroy(*co);
    *co = NULL;
  }
}

static void body(void *arg) {
  ab_task_t *t = arg;
  ab_ops_t *set = t->op.set;
  int rc = set->type->start(&t->op);
  if (rc != 0) {
    ab_op_fail(set->run, t->op.i, rc, "the sleep");
    return;
  }
  ab_coro_yield();
  ab_run_check(set->run, t->op.i, t);
}

int ab_tasks_fiber(ab_run_t *run) {
  if (ab_tasks_begin(run, 1) != 0) return -1;
  ab_tasks_on_wake(run, resume);
  ab_run_begin(run);
  ab_ops_t *set = ab_ops_start(run, ab_tasks_op(run), run->n, CO_HEAD, 0);
  if (set == NULL) return -1;
  for (long k = 0; k < set->n && !ab_run_failed(run); k++) {
    ab_task_t *t = (ab_task_t *)ab_ops_at(set, k);
    t->op.i = k;
    if ((*co_of(t) = ab_coro_create(body, t)) == NULL) {
      ab_run_oom(run, k, "a coroutine stack");
      break;
    }
    resume(t); /* runs to its sleep */
  }
  return ab_ops_finish(set); /* fails the pass if a coroutine is left */
}
