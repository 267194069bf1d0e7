/*
 * styles.h -- the readfile variants, one style a file (sync.c, callback.c, ...).
 * Each function runs one pass of run->n reads (see ab_variant_fn in harness.h);
 * main.c lists them in the registry the driver looks names up in.
 */
#ifndef AB_READFILE_STYLES_H
#define AB_READFILE_STYLES_H

#include "harness.h"
#include "readfile.h"

/* sync.c: blocking system calls on the loop thread, no loop at all. */
int ab_readfile_sync(ab_run_t *run);

/* callback.c: completion callbacks; the mode only sets how many are in flight. */
int ab_readfile_callback(ab_run_t *run);
int ab_readfile_callback_nowait(ab_run_t *run);

/* promise.c: c/lib/promise.h; sequential and bounded are chains of .then. */
int ab_readfile_promise_chain(ab_run_t *run);
int ab_readfile_promise_all(ab_run_t *run);
int ab_readfile_promise_counter(ab_run_t *run);

/* await.c: async functions on stackful coroutines (async.h); sequential and
 * bounded are K looping async functions, parallel one async function awaiting
 * Promise.all of N reads, tasks-parallel one async function per read.
 * stackless.c: the same with switch-based state machines (stackless.h). */
int ab_readfile_await_loop(ab_run_t *run);
int ab_readfile_await_all(ab_run_t *run);
int ab_readfile_await_tasks(ab_run_t *run);
int ab_readfile_stackless_loop(ab_run_t *run);
int ab_readfile_stackless_all(ab_run_t *run);
int ab_readfile_stackless_tasks(ab_run_t *run);

/* microtasks.c: a pass on the microtask queue (await.c, stackless.c).
 * attach: 0, or -1 with the failure recorded.  finish: runs loop and queue
 * dry, detaches, records promises or coroutines never freed; 0 or -1. */
int ab_readfile_queue_attach(ab_run_t *run);
int ab_readfile_queue_finish(ab_run_t *run);

/* microtasks.c: read i as a promise.  start returns the promise (a new
 * reference; fulfilled with r once r->nread and the bytes at r->req.buf are
 * there, rejected with the libuv error) or NULL with the failure recorded;
 * check verifies the read once the promise settled (`code` is what the await
 * returned): 0, or -1 with the failure recorded. */
#include "promise.h"
typedef struct ab_readp_s {
  ab_read_t req;           /* first: the completion finds r from it */
  ab_promise_t *pending;   /* the completion's reference, while in flight */
  long i;
  ssize_t nread;
} ab_readp_t;
ab_promise_t *ab_readp_start(ab_run_t *run, ab_readp_t *r, long i);
int ab_readp_check(ab_run_t *run, ab_readp_t *r, ab_promise_t *p, int code);
/* Records why an await of p returned `code`: a read's rejection (also through
 * Promise.all) names that read's iteration, anything else iteration i. */
void ab_readp_failed(ab_run_t *run, const ab_promise_t *p, int code, long i);
/* Verifies every read of a Promise.all's list of read records, in order, up
 * to the first failure: 0, or -1 with the failure recorded. */
int ab_readp_verify_all(ab_run_t *run, const ab_list_t *reads);

/* The runtime note of the await variants: which coroutine switch was built. */
#include "coro.h"
#define AB_READFILE_CORO_RUNTIME ", coro " AB_CORO_BACKEND_NAME

#endif /* AB_READFILE_STYLES_H */
