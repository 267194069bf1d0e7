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

/* promised.c: reads as promises (promise.c, await.c, stackless.c). */
#include "promise.h"

typedef struct ab_reads_s ab_reads_t;

/* One read as a promise.  A style's own per-read record starts with one. */
typedef struct ab_readp_s {
  ab_read_t req;           /* first: the completion finds r from it */
  ab_reads_t *set;         /* the set the record belongs to */
  ab_promise_t *pending;   /* the completion's reference, while in flight */
  long i;                  /* the iteration being read */
  ssize_t nread;           /* its result */
} ab_readp_t;

/* A pass's read records: n records of `size` bytes, each starting with an
 * ab_readp_t, and n slots for promises. */
struct ab_reads_s {
  ab_run_t *run;
  long n;
  long next;               /* next iteration to issue (sequential, bounded) */
  size_t size;
  char *recs;
  ab_promise_t **ps;
};

/* Record k of the set (the style's record, as its leading ab_readp_t). */
static inline ab_readp_t *ab_reads_at(const ab_reads_t *set, long k) {
  return (ab_readp_t *)(set->recs + (size_t)k * set->size);
}

/* Allocates n zeroed records of `size` bytes and attaches the microtask queue
 * to the loop; NULL with the failure recorded. */
ab_reads_t *ab_reads_start(ab_run_t *run, long n, size_t size);

/* Runs loop and queue dry, detaches the queue, records promises or coroutines
 * never freed, frees the set: 0, or -1 when the pass failed. */
int ab_reads_finish(ab_reads_t *set);

/* Starts iteration i on r and returns its promise (a new reference), fulfilled
 * with r once r->nread and the bytes at r->req.buf are there, or rejected with
 * the libuv error, the failed step as message and r as payload; NULL with the
 * failure recorded when it could not start. */
ab_promise_t *ab_readp_start(ab_readp_t *r, long i);

/* Verifies a completed read: 0, or -1 with the failure recorded. */
int ab_readp_verify(const ab_readp_t *r);

/* After awaiting r's promise p (`code` is what the await returned): verifies
 * the read, or records why it failed: 0, or -1. */
int ab_readp_check(ab_readp_t *r, const ab_promise_t *p, int code);

/* Records why an await of p returned `code`: a read's rejection (also one
 * passed on by Promise.all) names that read's iteration, anything else
 * (out of memory) is charged to iteration i. */
void ab_reads_failed(ab_reads_t *set, const ab_promise_t *p, int code, long i);

/* Issues every read of the set as a promise (iteration k on record k) and
 * returns Promise.all of them (a new reference; it fulfils with an ab_list_t
 * of the records in order), or NULL with the failure recorded. */
ab_promise_t *ab_reads_all(ab_reads_t *set);

/* Verifies every record of a Promise.all list, in order, up to the first
 * failure: 0, or -1 with the failure recorded. */
int ab_reads_verify(const ab_list_t *reads);

/* The runtime note of the await variants: which coroutine switch was built. */
#include "coro.h"
#define AB_READFILE_CORO_RUNTIME ", coro " AB_CORO_BACKEND_NAME

#endif /* AB_READFILE_STYLES_H */
