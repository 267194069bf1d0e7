/*
 * workload.h -- the asyncfib workload (seed 004): fibonacci computed plainly
 * and as async functions, recursively and iteratively, to see what a style
 * costs per call and in memory when there is no I/O at all.
 *
 * One iteration is one repetition of the seed's loop: top-level calls of
 * fib(n) for n = 0..M-1, where M is --max-recursive for the `recursive`
 * shape (fib(n) = fib(n-1) + fib(n-2), fib(0) = fib(1) = 1, so 2 fib(n) - 1
 * calls: 276 calls a repetition at M = 10) and --max-iterative for the
 * `iterative` one (one call running a loop: 10 calls at M = 10, the seed's
 * fibonacci_20(i) for i < 10); the seed ran 5 repetitions after a dropped
 * JIT-cold one: N = 5, warm-up 1.  Every top-level result is checked against a
 * table made by the plain computation, and the pass's total of calls and the
 * sum of its results (the line's `calls` and `checksum`) against the plain
 * computation's.
 *
 * Each style is a file: sync.c (plain calls), fiber.c (the same plain calls
 * on a fiber's stack), promise.c (every call returns a promise; a recursive
 * call combines its children's with Promise.all and then), await.c (every
 * call an async function on its own coroutine, awaiting its children one
 * after the other, as the seed's), stackless.c (every call a state-machine
 * frame with a result promise).  All are sequential: one top-level call at a
 * time.
 */
#ifndef AB_ASYNCFIB_WORKLOAD_H
#define AB_ASYNCFIB_WORKLOAD_H

#include <stdint.h>

#include "harness.h"

extern const ab_workload_t ab_asyncfib;

/* Bounds of M: fib(77) is exact in a JavaScript number (below 2^53), so
 * every language takes the same M; a recursive fib(40) is 331
 * million calls, already far beyond any profile. */
#define AF_MAX_ITERATIVE 78
#define AF_MAX_RECURSIVE 40

typedef enum { AF_RECURSIVE, AF_ITERATIVE } af_shape_t;

/* The pass's state (a static of workload.c). */
typedef struct af_state_s {
  long m[2];               /* M of each shape, by af_shape_t */
  uint64_t fib[AF_MAX_ITERATIVE]; /* fib(n), by the plain computation */
  uint64_t calls;          /* calls the pass made (every style counts its own) */
  uint64_t checksum;       /* sum of the pass's top-level results */
  af_shape_t shape;        /* of the running variant */
  ab_run_t *run;
  long i;                  /* the top-level call the pass is at */
  long total;              /* top-level calls of the pass: N x M */
} af_state_t;

/* The state of run, reset for a pass of `shape`. */
af_state_t *af_pass_begin(ab_run_t *run, af_shape_t shape);

/* The n of top-level call i. */
static inline int af_arg(const af_state_t *st, long i) { return (int)(i % st->m[st->shape]); }

/* The iteration (repetition) the pass is at. */
static inline long af_rep(const af_state_t *st) { return st->i / st->m[st->shape]; }

/* Verifies top-level call st->i's result and moves to the next; the last
 * call of a repetition completes its iteration.  0, or -1 with the failure
 * recorded. */
int af_done(af_state_t *st, uint64_t result);

/* Ends a pass: checks the calls and the checksum against the plain
 * computation's when every call verified.  0, or -1 (recorded). */
int af_pass_end(ab_run_t *run);

/* Plain fibonacci, counting calls in st->calls (sync.c; fiber.c uses them). */
uint64_t af_fib_recursive(af_state_t *st, int n);
uint64_t af_fib_iterative(af_state_t *st, int n);

/* The variants: one per style and shape. */
int af_sync_recursive(ab_run_t *run);
int af_sync_iterative(ab_run_t *run);
int af_fiber_recursive(ab_run_t *run);
int af_fiber_iterative(ab_run_t *run);
int af_promise_recursive(ab_run_t *run);
int af_promise_iterative(ab_run_t *run);
int af_await_recursive(ab_run_t *run);
int af_await_iterative(ab_run_t *run);
int af_stackless_recursive(ab_run_t *run);
int af_stackless_iterative(ab_run_t *run);
/* Frees the stackless frames kept between passes (the workload's teardown). */
void af_stackless_teardown(void);

/* A promise value that is an integer, and back. */
#define AF_VALUE(u) ((void *)(uintptr_t)(u))
#define AF_UINT(p) ((uint64_t)(uintptr_t)(p))

/* After a promise style's pass: runs the queue dry and checks that no
 * promise outlived it.  0, or -1 (recorded). */
int af_promise_finish(ab_run_t *run);

#endif /* AB_ASYNCFIB_WORKLOAD_H */
