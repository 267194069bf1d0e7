/*
 * promise_bench.c -- what one promise step costs, in nanoseconds.
 *
 * DESIGN section 10 compares with V8's `Promise.resolve(x).then(step)` step
 * (28 ns on the development host); the target is <= 15 ns for the C core.
 *
 *   create+then+settle+reaction   ab_promise_new, ab_promise_then with a
 *                       handler, ab_promise_resolve, the drain that runs the
 *                       reaction (which settles the derived promise), and
 *                       both releases: one whole step, one at a time
 *   ... batched         the same steps in bursts of BURST: all created and
 *                       settled first and the queue drained once, as a burst
 *                       of completions within one libuv callback would be
 *   resolved().then     ab_promise_resolved + then + drain, the literal
 *                       Promise.resolve(x).then(step) of the V8 figure
 *   then chain link     one more .then on a chain of N, the reaction of each
 *                       link settling the next: ns per link
 *   microtask           ab_microtask_enqueue + its run: the queue alone
 *   nextTick            ab_next_tick + its run: the tick queue alone
 *
 * Each figure is the median of BENCH_ROUNDS (bench.h) timed rounds of N
 * operations, after one untimed warm-up round (it fills the pools and the
 * queue), by the wall clock and by the thread's CPU time.  Usage:
 * micro-promise_bench [N] [--tsv] (default 1,000,000; bench.h: --tsv).  Timings, so never part of
 * `make test`.
 */
#include <stdint.h>
#include <stdio.h>

#include "bench.h"
#include "promise.h"

#define BURST 256           /* steps settled together in the batched form */

static long n_ops;
static long reactions;      /* the handlers' side effect, checked at the end */
static uintptr_t values;   /* what the handlers read, so that they do */
static ab_promise_t *batch[BURST];

/* The step: reads the value, counts, returns nothing (fulfils with undefined). */
static void step(void *arg, ab_promise_t *settled, ab_promise_t *out) {
  (void)arg, (void)out;
  reactions++;
  values += (uintptr_t)ab_promise_value(settled);
}

static void bench_step(void) {
  for (long i = 0; i < n_ops; i++) {
    ab_promise_t *p = ab_promise_new();
    ab_promise_t *d = ab_promise_then(p, step, NULL, NULL);
    ab_promise_resolve(p, (void *)1, NULL);
    ab_microtasks_drain();
    ab_promise_release(d);
    ab_promise_release(p);
  }
}

static void bench_step_batched(void) {
  for (long done = 0; done < n_ops; done += BURST) {
    long n = n_ops - done < BURST ? n_ops - done : BURST;
    for (long i = 0; i < n; i++) {
      ab_promise_t *p = ab_promise_new();
      batch[i] = ab_promise_then(p, step, NULL, NULL);
      ab_promise_resolve(p, (void *)1, NULL);
      ab_promise_release(p);
    }
    ab_microtasks_drain();
    for (long i = 0; i < n; i++) ab_promise_release(batch[i]);
  }
}

static void bench_resolved_then(void) {
  for (long i = 0; i < n_ops; i++) {
    ab_promise_t *p = ab_promise_resolved((void *)1, NULL);
    ab_promise_release(ab_promise_then(p, step, NULL, NULL));
    ab_promise_release(p);
    ab_microtasks_drain();
  }
}

static void bench_chain(void) {
  ab_promise_t *head = ab_promise_new(), *p = ab_promise_retain(head);
  for (long i = 0; i < n_ops; i++) {
    ab_promise_t *d = ab_promise_then(p, step, NULL, NULL);
    ab_promise_release(p);
    p = d;
  }
  ab_promise_resolve(head, (void *)1, NULL);
  ab_microtasks_drain();
  ab_promise_release(head);
  ab_promise_release(p);
}

static void count_task(void *arg) {
  reactions++;
  values += (uintptr_t)arg;
}

static void bench_microtask(void) {
  for (long i = 0; i < n_ops; i++) ab_microtask_enqueue(count_task, (void *)1);
  ab_microtasks_drain();
}

static void bench_tick(void) {
  for (long i = 0; i < n_ops; i++) ab_next_tick(count_task, (void *)1);
  ab_microtasks_drain();
}

int main(int argc, char **argv) {
  n_ops = bench_parse_n(argc, argv);
  static const struct {
    const char *id, *name;
    void (*fn)(void);
  } benches[] = {
    {"promise.step", "create+then+settle+reaction", bench_step},
    {"promise.step_batched", "create+then+settle+reaction, batched", bench_step_batched},
    {"promise.resolved_then", "resolved().then", bench_resolved_then},
    {"promise.chain_link", "then chain link", bench_chain},
    {"microtask", "microtask enqueue+run", bench_microtask},
    {"nexttick", "nextTick enqueue+run", bench_tick},
  };
  bench_header("promise micro-benchmark: N = %ld, median of %d rounds (target: step <= 15 ns, V8 28 ns)\n",
         n_ops, BENCH_ROUNDS);
  for (size_t b = 0; b < sizeof(benches) / sizeof(benches[0]); b++) {
    long before = reactions;
    double wall, cpu;
    if (!bench_wanted(benches[b].id))
      continue;
    bench_median(benches[b].fn, (double)n_ops, &wall, &cpu);
    if (reactions - before != (long)(BENCH_ROUNDS + 1) * n_ops) {
      fprintf(stderr, "%s: %s ran %ld reactions, expected %ld\n", argv[0], benches[b].name,
              reactions - before, (long)(BENCH_ROUNDS + 1) * n_ops);
      return 1;
    }
    bench_print(benches[b].id, benches[b].name, wall, cpu);
  }
  ab_promise_pool_trim();
  if (ab_promise_live() != 0) {
    fprintf(stderr, "%s: %zu promises leaked\n", argv[0], ab_promise_live());
    return 1;
  }
  return 0;
}
