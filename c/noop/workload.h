/*
 * workload.h -- the noop workload, the example workload of docs/adding.md: an
 * operation does no work, it completes with its own iteration number i and
 * the check is value == i (no bytes, no flags of its own, backend "none").
 *
 * It shows what a workload is made of: workload.c (what the harness asks:
 * the check, setup and teardown, the variant table) with the operation for
 * the mode skeletons (c/lib/modes.h), a file per style, and main.c, the
 * driver build/bin/c-noop.  Nothing in c/lib knows it.
 *
 * The async styles complete an operation on a later turn of the loop, never
 * inside the call that started it, as I/O would: started operations wait in a
 * queue that an idle handle drains once per loop iteration (the handle runs
 * only while the queue has work).
 */
#ifndef AB_NOOP_WORKLOAD_H
#define AB_NOOP_WORKLOAD_H

#include "harness.h"
#include "modes.h"

extern const ab_workload_t ab_noop;

/* One operation: the record the check receives. */
typedef struct ab_noop_op_s {
  ab_op_t op;               /* first: the mode skeletons' part */
  long value;               /* what it completed with */
  struct ab_noop_op_s *next; /* in the queue, while pending */
} ab_noop_op_t;

/* The operation for the mode skeletons. */
extern const ab_op_type_t ab_noop_op;

/* sync.c */
int ab_noop_sync(ab_run_t *run);
/* callback.c */
int ab_noop_callback(ab_run_t *run);
/* promise.c */
int ab_noop_promise_chain(ab_run_t *run);
int ab_noop_promise_all(ab_run_t *run);
/* await.c */
int ab_noop_await_loop(ab_run_t *run);
int ab_noop_await_all(ab_run_t *run);
/* stackless.c */
int ab_noop_stackless_loop(ab_run_t *run);
int ab_noop_stackless_all(ab_run_t *run);

#endif /* AB_NOOP_WORKLOAD_H */
