/*
 * workload.h -- the readfile workload: read a small file N times and verify
 * every read (seed 000's workload), on any backend of readfile.h.
 *
 * workload.c is what the harness asks of it (ab_readfile: flags and their
 * defaults, the fixture check, the check of one read, the variant table)
 * and the read as an operation of the mode skeletons (c/lib/modes.h);
 * each style is a file (sync.c, callback.c, ...) and main.c the driver.
 *
 * Adding a variant: a function in its style's file, its declaration here, a
 * line in workload.c's table, and an entry in the catalog.
 */
#ifndef AB_READFILE_WORKLOAD_H
#define AB_READFILE_WORKLOAD_H

#include "harness.h"
#include "modes.h"
#include "readfile.h"

extern const ab_workload_t ab_readfile;

/* A pass's shared state (from the workload's setup). */
typedef struct ab_readfile_s {
  const ab_backend_t *backend;
  uv_loop_t *loop;         /* the one the backend was prepared on */
  const char *path;        /* --file */
  const char *expect;      /* --expect */
  size_t expect_len;
} ab_readfile_t;

/* One read as an operation: the record every style's checks receive. */
typedef struct ab_readfile_op_s {
  ab_op_t op;              /* first: the mode skeletons' part */
  ab_read_t req;
} ab_readfile_op_t;

/* The read as an operation of the mode skeletons. */
extern const ab_op_type_t ab_readfile_op;

/* sync.c: blocking system calls on the loop thread, no loop at all. */
int ab_readfile_sync(ab_run_t *run);

/* callback.c: completion callbacks; the mode only sets how many are in flight. */
int ab_readfile_callback(ab_run_t *run);
int ab_readfile_callback_nowait(ab_run_t *run);

/* promise.c: c/lib/promise.h; sequential and bounded are chains of .then. */
int ab_readfile_promise_chain(ab_run_t *run);
int ab_readfile_promise_all(ab_run_t *run);
int ab_readfile_promise_counter(ab_run_t *run);

/* await.c: async functions on stackful coroutines (async.h); stackless.c:
 * the same with switch-based state machines (stackless.h). */
int ab_readfile_await_loop(ab_run_t *run);
int ab_readfile_await_all(ab_run_t *run);
int ab_readfile_await_tasks(ab_run_t *run);
int ab_readfile_stackless_loop(ab_run_t *run);
int ab_readfile_stackless_all(ab_run_t *run);
int ab_readfile_stackless_tasks(ab_run_t *run);

/* fiber.c: plain loops on fibers (c/lib/fiber.h) that suspend only while a
 * read is pending; the read's callback wakes them. */
int ab_readfile_fiber_loop(ab_run_t *run);
int ab_readfile_fiber_all(ab_run_t *run);

#endif /* AB_READFILE_WORKLOAD_H */
