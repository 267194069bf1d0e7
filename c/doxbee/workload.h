/*
 * workload.h -- doxbee, bluebird's benchmark of fake database transactions
 * (petkaantonov/bluebird, benchmark/; seed 003).
 *
 * An *upload* is a transaction of fake asynchronous database operations;
 * each completes after --delay-ms T on a timer (T = 0: on the next turn of
 * the loop), through one shared sleep queue (c/lib/sleepq.h: one uv_timer
 * for all, as Node's timers of one duration share one list).  A pass starts
 * all N uploads at once (mode parallel).  Two shapes:
 *
 *   sequential  blob put and file lookup at once, joined (as bluebird's
 *               promise version joins them; the lookup misses, so the create
 *               branch runs), then version insert, query creation
 *               (synchronous: its callback runs inside the call), query
 *               execution, file-version insert, file update, commit: one
 *               after another, 8 results per upload
 *   parallel    --queries P file-version inserts at once, joined, then
 *               commit: P + 1 results per upload
 *
 * Every operation completes with a value that depends on its upload, its
 * kind and (parallel) its index; the style checks each one against
 * ab_doxbee_expected() before it goes on (ab_doxbee_verify), and the upload
 * is verified when its commit comes back: committed exactly once and every
 * result of it checked.  The line adds commits, checked and ops_per_upload.
 * Every style, and every language (node/doxbee, go/internal/doxbee), does
 * the same work: the put and the lookup joined, the commit waited for and
 * checked.
 *
 * Records: an upload is an ab_op_t (modes.h) followed by the workload's
 * fields and one operation record per operation in flight at once (2: the
 * put in ops[0], the lookup in ops[1], then ops[0] for each later step; or
 * P), all allocated by ab_doxbee_begin, which a style calls once its clock
 * has started (ab_run_begin).
 */
#ifndef AB_DOXBEE_WORKLOAD_H
#define AB_DOXBEE_WORKLOAD_H

#include "async.h"
#include "coro.h"
#include "harness.h"
#include "modes.h"
#include "sleepq.h"
#include "stackless.h"

extern const ab_workload_t ab_doxbee;

/* The kinds of fake operation, in the sequential shape's order. */
enum {
  AB_DOXBEE_PUT,        /* blob put: the blob's id */
  AB_DOXBEE_LOOKUP,     /* file by uuid or path: 0, not found */
  AB_DOXBEE_VERSION,    /* version insert */
  AB_DOXBEE_CREATE,     /* query creation: synchronous */
  AB_DOXBEE_EXEC,       /* the created query, executed */
  AB_DOXBEE_FILEVERSION,/* file-version insert (the parallel shape's queries) */
  AB_DOXBEE_UPDATE,     /* file update */
  AB_DOXBEE_COMMIT,     /* commit of the transaction */
  AB_DOXBEE_STEPS       /* results per sequential upload */
};

typedef struct ab_doxbee_up_s ab_doxbee_up_t;
typedef struct ab_doxbee_op_s ab_doxbee_op_t;

/* One fake operation in flight. */
struct ab_doxbee_op_s {
  ab_sleep_t sleep;       /* its wait on the shared timer */
  ab_doxbee_up_t *up;
  int kind;
  long j;                 /* index among the parallel queries, else 0 */
  long result;            /* what it completed with */
  void (*done)(ab_doxbee_op_t *op); /* callback form */
  ab_promise_t *p;        /* promise form: settled with the op record */
};

/* One upload: the pass's record k is upload k. */
struct ab_doxbee_up_s {
  ab_op_t head;           /* first: the records of modes.h */
  ab_pt_t pt;             /* stackless: the frame's state */
  ab_promise_t *p;        /* stackless / promise: what is awaited */
  ab_coro_t *co;          /* fiber: its coroutine */
  int step;               /* where the upload is */
  long pending;           /* parallel: queries not back yet */
  long checked;           /* results checked */
  long commits;           /* commits that came back */
  ab_doxbee_op_t ops[];   /* 2 (sequential) or P (parallel) */
};

/* The workload's state (run->state). */
typedef struct ab_doxbee_s {
  ab_sleepq_t q;
  long queries;           /* P */
  long delay_ms;          /* T */
  long ops_per_upload;    /* of the pass's shape */
  long commits;           /* over the pass */
  long checked;           /* over the pass */
  size_t most_waiting;    /* the most operations in flight at once over the pass */
  ab_op_type_t type;      /* the records' size */
} ab_doxbee_t;

/* The records of a pass of `shape_parallel` (0 or 1), stamped and ready:
 * the set, or NULL with the failure recorded.  `promised` attaches the
 * microtask safety net (promise, await, stackless).  Per-operation state:
 * called after ab_run_begin. */
ab_ops_t *ab_doxbee_begin(ab_run_t *run, int shape_parallel, int promised);

static inline ab_doxbee_up_t *ab_doxbee_up(const ab_ops_t *set, long k) {
  return (ab_doxbee_up_t *)ab_ops_at(set, k);
}

static inline ab_doxbee_t *ab_doxbee_state(const ab_doxbee_up_t *up) {
  return up->head.set->run->state;
}

/* The value operation `kind` (index j) of upload i completes with. */
long ab_doxbee_expected(long i, int kind, long j);

/* Checks a result: counts it and returns 0, or records the failure, -1. */
int ab_doxbee_verify(ab_doxbee_up_t *up, int kind, long j, long got);

/* Callback form: starts operation kind (index j) on op; op->done(op) runs
 * when it completes, op->result set.  0, or -1 with the failure recorded. */
int ab_doxbee_start(ab_doxbee_op_t *op, ab_doxbee_up_t *up, int kind, long j,
                    void (*done)(ab_doxbee_op_t *op));

/* Promise form: the operation's promise (a new reference), fulfilled with
 * op (read op->result); NULL with the failure recorded. */
ab_promise_t *ab_doxbee_promise(ab_doxbee_op_t *op, ab_doxbee_up_t *up, int kind, long j);

/* The sequential shape's first step, promised: Promise.all of the put
 * (ops[0]) and the lookup (ops[1]), a new reference, or NULL with the
 * failure recorded. */
ab_promise_t *ab_doxbee_join(ab_doxbee_up_t *up);

/* Checks the put's and the lookup's results from the list a fulfilled
 * ab_doxbee_join gave: 0, or -1 with the failure recorded. */
int ab_doxbee_joined(ab_doxbee_up_t *up, const ab_list_t *list);

/* The synchronous query creation: its callback runs inside the call with
 * the query's value (the callback style); others use its return value. */
long ab_doxbee_create_query(ab_doxbee_up_t *up, void (*cb)(ab_doxbee_up_t *up, long q));

/* The commit came back with `got`: verifies it and then the upload
 * (ab_run_check).  0, or -1. */
int ab_doxbee_committed(ab_doxbee_up_t *up, long got);

/* callback.c */
int ab_doxbee_callback_seq(ab_run_t *run);
int ab_doxbee_callback_par(ab_run_t *run);
/* promise.c */
int ab_doxbee_promise_seq(ab_run_t *run);
int ab_doxbee_promise_par(ab_run_t *run);
/* await.c */
int ab_doxbee_await_seq(ab_run_t *run);
int ab_doxbee_await_par(ab_run_t *run);
/* fiber.c */
int ab_doxbee_fiber_seq(ab_run_t *run);
int ab_doxbee_fiber_par(ab_run_t *run);
/* stackless.c */
int ab_doxbee_stackless_seq(ab_run_t *run);
int ab_doxbee_stackless_par(ab_run_t *run);

#endif /* AB_DOXBEE_WORKLOAD_H */
