/*
 * workload.h -- the cacheloop workload (seed 002): N sequential loads of one
 * file through a cache.  The first load of a pass misses and reads the file
 * through a readfile backend (../readfile/readfile.h); every other load hits
 * and returns the cached bytes.  A pass sums the lengths of what it loaded;
 * it is valid when hits = N - 1, misses = 1 and the sum = N x the file's
 * length.  What dominates is the style itself: how a load whose result is
 * already there gets back to the loop.
 *
 * workload.c is what the harness asks of it (flags, the fixture check, the
 * check of one load, the line's extra fields, the variant table) and the
 * cache; each style is a file (sync.c, callback.c, promise.c, await.c,
 * fiber.c, stackless.c) and main.c the driver.  A pass's loads run one after
 * another: every variant is sequential.
 */
#ifndef AB_CACHELOOP_WORKLOAD_H
#define AB_CACHELOOP_WORKLOAD_H

#include <string.h>

#include "harness.h"
#include "promise.h"
#include "../readfile/readfile.h"

extern const ab_workload_t ab_cacheloop;

/* One cached file. */
typedef struct cl_entry_s {
  const char *key;         /* its path; NULL while the cache is empty */
  char *data;              /* its bytes (the cache's own copy) */
  size_t len;
} cl_entry_t;

/* A pass's state (one process runs one variant: a static of workload.c). */
typedef struct cl_state_s {
  const ab_backend_t *backend;
  uv_loop_t *loop;
  const char *path;        /* --file */
  size_t file_len;         /* its size when setup looked */
  cl_entry_t cache;        /* a one-entry cache, emptied at each pass */
  long hits, misses;       /* of the last pass */
  ab_run_t *run;
  long i;                  /* the load the pass is at */
  ab_read_t req;           /* the miss's read */
  int read_code;           /* the miss's outcome: 0 or a libuv error */
  /* callback styles: the one load in flight and where it answers */
  void (*cb)(struct cl_state_s *st, const cl_entry_t *e);
  const cl_entry_t *ready;
  int tramp;               /* trampoline: the state of the current turn */
  ab_promise_t *miss;      /* promise styles: the miss's promise */
  void *waiter;            /* fiber: the fiber waiting on the miss */
} cl_state_t;

/* Empties the cache and the counters and stamps nothing: call first. */
void cl_pass_begin(ab_run_t *run);

/* Ends a pass: checks hits = N - 1 and misses = 1 when every load verified,
 * frees the cached copy.  Returns 0, or -1 with the failure recorded. */
int cl_pass_end(ab_run_t *run);

/* The cache lookup every style makes first: the entry on a hit (counted),
 * NULL on a miss. */
static inline const cl_entry_t *cl_cache_get(cl_state_t *st, const char *name) {
  const cl_entry_t *e = &st->cache;
  if (e->key != NULL && (e->key == name || strcmp(e->key, name) == 0)) {
    st->hits++;
    return e;
  }
  return NULL;
}

/* Stores the bytes a miss read (len bytes at buf), counted as the miss: the
 * entry, or NULL with out of memory recorded. */
const cl_entry_t *cl_cache_put(cl_state_t *st, const char *name, const char *buf, size_t len);

/* Records the miss's failed read (code: a libuv error) at the current load. */
void cl_read_failed(cl_state_t *st, int code);

/* Verifies load st->i (the entry it returned) and moves to the next: 0, or -1
 * with the failure recorded. */
static inline int cl_loaded(cl_state_t *st, const cl_entry_t *e) {
  return ab_run_check(st->run, st->i++, e);
}

/* The styles. */
int cl_sync(ab_run_t *run);
int cl_callback_nexttick(ab_run_t *run);
int cl_callback_trampoline(ab_run_t *run);
int cl_promise(ab_run_t *run);
int cl_await(ab_run_t *run);
int cl_fiber(ab_run_t *run);
int cl_stackless(ab_run_t *run);

/* The promise styles' load: a promise of the entry, already fulfilled on a
 * hit; on the miss, pending until the read's callback settles it (then the
 * queues are drained, as Node does after a callback).  NULL with the failure
 * recorded. */
ab_promise_t *cl_load_promise(cl_state_t *st);

/* Runs the loop and the queues until the pass has nothing left, then checks
 * that no promise outlived it: 0, or -1 (recorded). */
int cl_promise_finish(ab_run_t *run);

#endif /* AB_CACHELOOP_WORKLOAD_H */
