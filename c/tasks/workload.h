/*
 * workload.h -- tasks: N tasks started at once, each suspended on a sleep of
 * --sleep-ms T, then completing with its own number; a pass is valid when
 * all N completed.  What it measures is memory per suspended task (peak
 * resident memory above the idle process, divided by N) and the time to
 * start all N (the line's start_ns), beside the total time.
 *
 * Backends (what a task sleeps on):
 *   sleepq    one shared libuv timer for all waiters (c/lib/sleepq.h): a
 *             waiter is 16 bytes inside the task's record
 *   uv_timer  a uv_timer_t per task, each in libuv's timer heap
 *
 * Styles, all in mode parallel (every task in flight at once), on the mode
 * skeletons of c/lib/modes.h where one exists:
 *   callback   the task's record and its sleep (48 bytes): the completion callback
 *              verifies it (ab_mode_slots, N slots)
 *   promise    a promise per task with one .then that verifies and counts
 *              (ab_mode_then_counter): one promise per suspended task with
 *              the .then's record inside it (96 bytes a task with the
 *              record); the derived promise is made when the promise settles
 *              and the record moves into it (ab_promise_then_release)
 *   await      an async function per task on a stackful coroutine, awaiting
 *              its sleep's promise, all joined by Promise.all
 *              (ab_mode_await_tasks): a coroutine per task, on stacks
 *              shared and copied beyond 128 (c/lib/coro.h)
 *   stackless  a state-machine frame per task awaiting the promise
 *              (ab_mode_stackless_tasks)
 *   fiber      a coroutine per task that suspends on its sleep and is
 *              resumed by the wake-up itself (coro.h, no promise)
 * The stackful styles' line adds stack_bytes (usable bytes of one
 * coroutine stack, a guard page on top) and page_bytes; every C line has
 * them (0 stack bytes where a task has no stack of its own).
 */
#ifndef AB_TASKS_WORKLOAD_H
#define AB_TASKS_WORKLOAD_H

#include "coro.h"
#include "harness.h"
#include "modes.h"
#include "sleepq.h"

extern const ab_workload_t ab_tasks;

/* One task's record. */
typedef struct ab_task_s ab_task_t;
struct ab_task_s {
  ab_op_t op;               /* first: the mode skeletons' part */
  union {
    ab_sleep_t sleep;       /* sleepq */
    uv_timer_t *timer;      /* uv_timer: allocated with the record (below) */
  } on;
  long value;               /* what it completed with */
};

/* The op type of the backend chosen with --backend. */
const ab_op_type_t *ab_tasks_op(const ab_run_t *run);

/* Starts a pass: resets what the line reports about it (`stackful`: each
 * task is a coroutine); every woken task completes with ab_op_done.  0. */
int ab_tasks_begin(ab_run_t *run, int stackful);

/* From now on a woken task calls wake(t) instead of ab_op_done (fiber.c: the
 * wake-up resumes the task's coroutine; a test records the time). */
void ab_tasks_on_wake(ab_run_t *run, void (*wake)(ab_task_t *t));

/* callback.c, promise.c, await.c, stackless.c, fiber.c */
int ab_tasks_callback(ab_run_t *run);
int ab_tasks_promise(ab_run_t *run);
int ab_tasks_await(ab_run_t *run);
int ab_tasks_stackless(ab_run_t *run);
int ab_tasks_fiber(ab_run_t *run);

#endif /* AB_TASKS_WORKLOAD_H */
