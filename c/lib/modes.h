/*
 * modes.h -- the mode skeletons: how a pass's N operations are issued, kept
 * in flight and awaited in each async style, written once for every workload
 * whose operations are independent of each other (noop, readfile, tasks).
 *
 * A workload says how to start ONE operation, in callback form (an
 * ab_op_type_t), and verifies a completed one with its check (harness.h);
 * its style file c/<workload>/<style>.c then binds a skeleton, which lives in
 * that style's own file, c/lib/modes_<style>.c (docs/adding.md):
 *
 *   callback    ab_mode_slots           K slots, each completion verifies its
 *                                       operation and issues the next unissued
 *                                       one on the same slot: 1 slot is the
 *                                       sequential chain, N slots parallel, K
 *                                       bounded (ab_run_slots)
 *               ab_mode_slots_nowait    TEST ONLY: issues all and stops the
 *                                       clock without waiting
 *   promise     ab_mode_chains          K recursive .then chains
 *               ab_mode_then_all        all N issued, Promise.all, every one
 *                                       verified in the one final reaction
 *               ab_mode_then_counter    all N issued, each .then verifies and
 *                                       counts
 *   await       ab_mode_await_loops     K async functions (stackful
 *                                       coroutines) looping over a shared
 *                                       counter: for (...) { await op(i); check }
 *               ab_mode_await_all       one async function issues all N,
 *                                       awaits Promise.all, verifies each
 *               ab_mode_await_tasks     one async function per operation, all
 *                                       awaited by a driver through Promise.all
 *   stackless   ab_mode_stackless_loops / _all / _tasks: the same three with
 *                                       switch-based frames (stackless.h)
 *
 * Every skeleton runs one pass (an ab_variant_fn given the op type) and
 * returns 0, or -1 with the failure recorded in the run.
 *
 * The clock.  Every skeleton starts the clock (ab_run_begin) first, before
 * it allocates anything: the records, the promises, the coroutines and their
 * stacks are all made inside the timed section, as Go and Node make theirs
 * (DESIGN section 3).  Nothing is sized or mapped ahead for the pass's sake;
 * stacks a warm-up pass left in the coroutine pool are reused, as Go reuses
 * its stack cache and V8 its heap.
 *
 * Records.  A pass's per-operation records (the workload's struct of
 * type->size bytes, an ab_op_t first) are allocated, zeroed; after the pass
 * the loop and the queue run dry, promises or coroutines never freed are
 * failures, and type->cleanup frees what each record holds.  No safety net
 * of libuv handles drains the microtask queue for the promise styles (it
 * would cost a prepare and a check callback every loop turn): every
 * completion drains it itself (below), and a pass that finds jobs left
 * queued once the loop has run dry fails.
 *
 * Completion.  type->start(op) starts iteration op->i; when the operation
 * completes the workload records its outcome in its record and calls
 * ab_op_done(op, code, what) exactly once (never from inside start).  In
 * callback form that verifies (ab_run_check with the record) and issues the
 * next; in promise form (ab_op_promise) it fulfils the operation's promise
 * with the record, or rejects it with {code, what, record}, then drains the
 * microtask queue as Node does after every macrotask.
 */
#ifndef AB_MODES_H
#define AB_MODES_H

#include <stddef.h>

#include "harness.h"
#include "promise.h"

typedef struct ab_op_s ab_op_t;
typedef struct ab_ops_s ab_ops_t;

/* The head of every per-operation record. */
struct ab_op_s {
  ab_ops_t *set;           /* the pass's records; set->run is the run */
  long i;                  /* the iteration this record is working on */
  ab_promise_t *pending;   /* promise form: the completion's reference */
};

/* One operation of a workload. */
typedef struct ab_op_type_s {
  size_t size;             /* bytes of the workload's record, ab_op_t first */
  /* Starts iteration op->i; returns 0, or a libuv error code when it could
   * not start (then ab_op_done is never called for it). */
  int (*start)(ab_op_t *op);
  /* Frees what a record holds after the pass (NULL: nothing).  It may close
   * a handle embedded in the record: the skeleton runs the loop again before
   * it frees the records, so the close callbacks are done by then (all but
   * the test-only ab_mode_slots_nowait, which frees them from a callback). */
  void (*cleanup)(ab_op_t *op);
} ab_op_type_t;

/* A pass's records (allocated by the skeletons). */
struct ab_ops_s {
  ab_run_t *run;
  const ab_op_type_t *type;
  long n;                  /* records */
  long next;               /* next iteration to issue (loops, slots, chains) */
  long inflight;           /* callback form: operations started, not completed */
  int promised;            /* promise form: the queue is drained at the end */
  int nowait;              /* ab_mode_slots_nowait: the last completion frees */
  size_t head;             /* bytes of the skeleton's own part before a record */
  size_t stride;           /* bytes from one record to the next */
  char *recs;
  ab_promise_t **ps;       /* n slots for promises (ab_ops_slots), or NULL */
};

/* `bytes` rounded up to the alignment malloc gives: a set's head, so that the
 * record after it stays aligned. */
#define AB_OPS_ALIGNED(bytes) \
  (((bytes) + _Alignof(max_align_t) - 1) / _Alignof(max_align_t) * _Alignof(max_align_t))

/* Record k of the set. */
static inline ab_op_t *ab_ops_at(const ab_ops_t *set, long k) {
  return (ab_op_t *)(set->recs + (size_t)k * set->stride + set->head);
}

/* The operation completed: `code` 0, or the error it failed with and `what`
 * names the failed step ("open"; for out of memory what ran out: "a read
 * buffer").  Call once per started operation, after recording its outcome. */
static inline void ab_op_done(ab_op_t *op, int code, const char *what);

/* Records the failure of iteration i with `code` at `what`: out of memory
 * (UV_ENOMEM, AB_ENOMEM) as an environment error, anything else as "<what>
 * failed: <message>". */
void ab_op_fail(ab_run_t *run, long i, int code, const char *what);

/* ---- the building blocks the skeletons share (a workload's own style may use
 * them too) ----------------------------------------------------------------- */

/* n zeroed records of type->size bytes, each after `head` bytes of the
 * skeleton's own (rounded up by AB_OPS_ALIGNED), in promise form when
 * `promised`; NULL with the failure recorded.  Per-operation state: called
 * after ab_run_begin. */
ab_ops_t *ab_ops_start(ab_run_t *run, const ab_op_type_t *type, long n, size_t head,
                       int promised);

/* The set's n promise slots (Promise.all's input), made zeroed on first use;
 * NULL with the failure recorded. */
ab_promise_t **ab_ops_slots(ab_ops_t *set);

/* Runs the loop (and the queue) dry, frees the set, checks that no promise or
 * coroutine outlived the pass: 0, or -1 when the pass failed. */
int ab_ops_finish(ab_ops_t *set);

/* Starts iteration i on op and returns its promise (a new reference),
 * fulfilled with op or rejected with {code, what, op}; NULL with the failure
 * recorded when it could not start. */
static inline ab_promise_t *ab_op_promise(ab_op_t *op, long i);

/* After awaiting op's promise p (`code` is what the await returned): verifies
 * the operation, or records why it failed: 0, or -1. */
static inline int ab_op_check(ab_op_t *op, const ab_promise_t *p, int code);

/* Records why an await of p returned `code`: an operation's rejection (also
 * one passed on by Promise.all) names its iteration, anything else (out of
 * memory) is charged to iteration i. */
void ab_ops_failed(ab_ops_t *set, const ab_promise_t *p, int code, long i);

/* Issues every record's operation as a promise (iteration k on record k) and
 * returns Promise.all of them (a new reference; it fulfils with an ab_list_t
 * of the records in order), or NULL with the failure recorded. */
ab_promise_t *ab_ops_all(ab_ops_t *set);

/* Verifies every record of a Promise.all list, in order, up to the first
 * failure: 0, or -1 with the failure recorded. */
int ab_ops_verify(const ab_list_t *ops);

/* ---- the skeletons (one pass each) ---------------------------------------- */

int ab_mode_slots(ab_run_t *run, const ab_op_type_t *type);
int ab_mode_slots_nowait(ab_run_t *run, const ab_op_type_t *type);
int ab_mode_chains(ab_run_t *run, const ab_op_type_t *type);
int ab_mode_then_all(ab_run_t *run, const ab_op_type_t *type);
int ab_mode_then_counter(ab_run_t *run, const ab_op_type_t *type);
int ab_mode_await_loops(ab_run_t *run, const ab_op_type_t *type);
int ab_mode_await_all(ab_run_t *run, const ab_op_type_t *type);
int ab_mode_await_tasks(ab_run_t *run, const ab_op_type_t *type);
int ab_mode_stackless_loops(ab_run_t *run, const ab_op_type_t *type);
int ab_mode_stackless_all(ab_run_t *run, const ab_op_type_t *type);
int ab_mode_stackless_tasks(ab_run_t *run, const ab_op_type_t *type);

/* ---- private: the per-operation paths above, inlined into the skeletons;
 * their uncommon ends are modes.c's and modes_callback.c's --------------------- */

#if defined(__GNUC__)
#define AB__OP_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define AB__OP_UNLIKELY(x) (x)
#endif

/* Frees a pass's records after type->cleanup of each; in_callback when called
 * from a loop callback, where the loop must not run again (modes.c). */
void ab__ops_free(ab_ops_t *set, int in_callback);

/* Records that iteration i could not start (libuv code rc) (modes.c). */
void ab__op_start_failed(ab_run_t *run, long i, int rc);

/* ab_op_done in callback form (op->pending NULL; modes_callback.c), and of a
 * failed operation in promise form (modes.c). */
void ab__op_slot_done(ab_op_t *op, int code, const char *what);
void ab__op_rejected(ab_op_t *op, int code, const char *what);

/* ab_op_promise when the promise could not be made (p NULL) or the
 * operation not started (libuv code rc): records why, returns NULL. */
ab_promise_t *ab__op_promise_failed(ab_op_t *op, long i, ab_promise_t *p, int rc);

/* ab_op_check of an await that returned code != 0: records why, -1. */
int ab__op_check_failed(ab_op_t *op, const ab_promise_t *p, int code);

static inline void ab_op_done(ab_op_t *op, int code, const char *what) {
  ab_promise_t *p = op->pending;
  if (p == NULL) {
    ab__op_slot_done(op, code, what);
  } else if (code == 0) {
    /* promise form: fulfil with the record, release, drain (promise.h) */
    op->pending = NULL;
    ab__promise_fulfil_drain(p, op);
  } else {
    ab__op_rejected(op, code, what);
  }
}

static inline ab_promise_t *ab_op_promise(ab_op_t *op, long i) {
  ab_promise_t *p = ab__promise_new_shared(); /* the caller's and the completion's */
  if (AB__OP_UNLIKELY(p == NULL))
    return ab__op_promise_failed(op, i, NULL, 0);
  op->i = i;
  op->pending = p;
  int rc = op->set->type->start(op);
  if (AB__OP_UNLIKELY(rc != 0))
    return ab__op_promise_failed(op, i, p, rc);
  return p;
}

static inline int ab_op_check(ab_op_t *op, const ab_promise_t *p, int code) {
  if (AB__OP_UNLIKELY(code != 0))
    return ab__op_check_failed(op, p, code);
  return ab_run_check(op->set->run, op->i, op);
}

/* The runtime note of the await variants: which coroutine switch was built. */
#include "coro.h"
#define AB_CORO_RUNTIME ", coro " AB_CORO_BACKEND_NAME

#endif /* AB_MODES_H */
