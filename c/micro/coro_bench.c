/*
 * coro_bench.c -- what a coroutine switch and an await cost, in nanoseconds.
 *
 *   switch (raw)        ab__coro_switch alone, between the thread and a
 *                       coroutine: the assembly and nothing else
 *   switch (resume/yield)  ab_coro_resume + ab_coro_yield, halved: one way of
 *                       the API, with its bookkeeping (current, state, ASan)
 *   await settled (stackful)  ab_await of an already fulfilled promise inside
 *                       an async function: queue the resuming microtask
 *                       (no reaction record for a settled promise), yield,
 *                       the drain runs it, resume -- everything an
 *                       await costs except the promise itself
 *   await settled (stackless) the same await with a stackless.h frame
 *   ab_async empty      start and finish an async function that returns at
 *                       once: a stack from the pool, a promise, two switches
 *                       (seed 004's "cost of async itself")
 *
 * Each figure is the median of BENCH_ROUNDS (bench.h) timed rounds of N
 * operations, after one untimed warm-up round (it fills the stack and promise
 * pools), by the wall clock and by the thread's CPU time.  Usage:
 * micro-coro_bench [N] [--tsv] (default 1,000,000; bench.h: --tsv).  Timings, so never part of `make test`.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "async.h"
#include "bench.h"
#include "stackless.h"

static long n_ops;

/* Prints one figure: median ns per operation, one call of fn being `ops`. */
static void report(const char *id, const char *name, void (*fn)(void), double ops) {
  double wall, cpu;
  if (!bench_wanted(id))
    return;
  bench_median(fn, ops, &wall, &cpu);
  bench_print(id, name, wall, cpu);
}

/* ---- raw switch --------------------------------------------------------- */

static ab_coro_t *raw_co;

static void raw_body(void *arg) {
  (void)arg;
  for (;;)
    ab__coro_switch(&raw_co->sp, raw_co->caller_sp);
}

static void bench_raw(void) {
  for (long i = 0; i < n_ops; i++)
    ab__coro_switch(&raw_co->caller_sp, raw_co->sp);
}

/* ---- resume / yield ------------------------------------------------------ */

static void yield_body(void *arg) {
  (void)arg;
  for (;;)
    ab_coro_yield();
}

static ab_coro_t *yield_co;

static void bench_resume_yield(void) {
  for (long i = 0; i < n_ops; i++)
    ab_coro_resume(yield_co);
}

/* ---- await of a settled promise ----------------------------------------- */

static ab_promise_t *settled;

static int await_loop(void *arg, void **value) {
  (void)arg;
  for (long i = 0; i < n_ops; i++)
    if (ab_await(settled, value) != 0)
      abort();
  return 0;
}

static void bench_await(void) {
  ab_promise_release(ab_async(await_loop, NULL));
  ab_microtasks_drain();
}

typedef struct sl_frame_s {
  ab_pt_t pt;
  long i;
} sl_frame_t;

static int sl_loop(ab_pt_t *pt) {
  sl_frame_t *f = AB_PT_FRAME(pt, sl_frame_t, pt);
  AB_PT_BEGIN(pt);
  for (f->i = 0; f->i < n_ops; f->i++)
    AB_PT_AWAIT(pt, settled);
  AB_PT_END(pt);
}

static void bench_stackless(void) {
  sl_frame_t f;
  ab_pt_start(&f.pt, sl_loop, NULL);
  ab_microtasks_drain();
}

/* ---- an empty async function ---------------------------------------------- */

static int empty_fn(void *arg, void **value) {
  *value = arg;
  return 0;
}

static void bench_async_empty(void) {
  for (long i = 0; i < n_ops; i++)
    ab_promise_release(ab_async(empty_fn, NULL));
}

int main(int argc, char **argv) {
  n_ops = bench_parse_n(argc, argv);
  settled = ab_promise_resolved(NULL, NULL);
  raw_co = ab_coro_create(raw_body, NULL);
  yield_co = ab_coro_create(yield_body, NULL);
  if (!settled || !raw_co || !yield_co) {
    fprintf(stderr, "coro_bench: out of memory\n");
    return 3;
  }
#if !defined(__SANITIZE_ADDRESS__)
  ab_coro_resume(raw_co); /* runs to its first raw switch back */
#endif

  bench_header("coro_bench: %ld operations per round, median of %d rounds, switch %s\n",
         n_ops, BENCH_ROUNDS, ab_coro_backend());
#if defined(__SANITIZE_ADDRESS__)
  /* raw switches skip the fiber annotations ASan insists on */
  bench_header("  switch one way, raw asm         (not under ASan)\n");
  (void)bench_raw;
#else
  report("switch.raw", "switch one way, raw asm", bench_raw, 2.0 * (double)n_ops);
#endif
  report("switch.one_way", "switch one way, resume/yield", bench_resume_yield, 2.0 * (double)n_ops);
  report("await.settled", "await settled, stackful", bench_await, (double)n_ops);
  report("await.settled_stackless", "await settled, stackless", bench_stackless, (double)n_ops);
  report("async.empty", "ab_async of an empty function", bench_async_empty, (double)n_ops);
  /* The two looping coroutines are never finished: their stacks go with the
   * process.  Everything else is back in its pool. */
  ab_promise_release(settled);
  return 0;
}
