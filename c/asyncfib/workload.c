/*
 * workload.c -- what the harness asks of asyncfib (workload.h): its flags
 * and their defaults (the catalog's must equal them), the check of one
 * top-level call, the line's extra fields and the variant table.
 */
#include "workload.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "modes.h"
#include "promise.h"

_Static_assert(sizeof(void *) >= sizeof(uint64_t), "results travel as promise values");

enum { FLAG_MAX_RECURSIVE, FLAG_MAX_ITERATIVE };

static const ab_flag_t flags[] = {
  [FLAG_MAX_RECURSIVE] = {"--max-recursive", "M", "10", "recursive shape: top-level calls are fib(0..M-1), 1 <= M <= 40"},
  [FLAG_MAX_ITERATIVE] = {"--max-iterative", "M", "10", "iterative shape: top-level calls are fib(0..M-1), 1 <= M <= 78"},
  {NULL, NULL, NULL, NULL}
};

static const ab_variant_t variants[] = {
  /* style      shape        mode          function */
  {"sync",      "recursive", "sequential", af_sync_recursive, NULL, 0},
  {"sync",      "iterative", "sequential", af_sync_iterative, NULL, 0},
  {"promise",   "recursive", "sequential", af_promise_recursive, NULL, 0},
  {"promise",   "iterative", "sequential", af_promise_iterative, NULL, 0},
  {"await",     "recursive", "sequential", af_await_recursive, AB_CORO_RUNTIME, 0},
  {"await",     "iterative", "sequential", af_await_iterative, AB_CORO_RUNTIME, 0},
  {"fiber",     "recursive", "sequential", af_fiber_recursive, AB_CORO_RUNTIME, 0},
  {"fiber",     "iterative", "sequential", af_fiber_iterative, AB_CORO_RUNTIME, 0},
  {"stackless", "recursive", "sequential", af_stackless_recursive, NULL, 0},
  {"stackless", "iterative", "sequential", af_stackless_iterative, NULL, 0},
  {NULL, NULL, NULL, NULL, NULL, 0}
};

static const char *backend(size_t k) { return k == 0 ? "none" : NULL; }

/* M from a flag: decimal digits only, 1..max; AB_EXIT_USAGE after one line. */
static int parse_m(const char *prog, const char *flag, const char *text, long max, long *m) {
  char *end = NULL;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (text[0] < '0' || text[0] > '9' || *end != '\0' || errno != 0 || v < 1 || v > max) {
    fprintf(stderr, "%s: %s must be an integer from 1 to %ld, got '%s'\n", prog, flag, max, text);
    return AB_EXIT_USAGE;
  }
  *m = v;
  return AB_EXIT_OK;
}

static af_state_t the_state;

static int setup(const ab_opts_t *o, uv_loop_t *loop, void **state) {
  (void)loop;
  af_state_t *st = &the_state;
  int rc = parse_m(o->prog, "--max-recursive", o->flags[FLAG_MAX_RECURSIVE], AF_MAX_RECURSIVE,
                   &st->m[AF_RECURSIVE]);
  if (rc == AB_EXIT_OK)
    rc = parse_m(o->prog, "--max-iterative", o->flags[FLAG_MAX_ITERATIVE], AF_MAX_ITERATIVE,
                 &st->m[AF_ITERATIVE]);
  if (rc != AB_EXIT_OK)
    return rc;
  st->fib[0] = st->fib[1] = 1;
  for (int n = 2; n < AF_MAX_ITERATIVE; n++)
    st->fib[n] = st->fib[n - 1] + st->fib[n - 2];
  *state = st;
  return AB_EXIT_OK;
}

static void teardown(void *state) {
  (void)state;
  af_stackless_teardown();
}

/* An iteration is right once all its M calls were (af_done checks each). */
static int check(ab_run_t *run, long i, const void *result) {
  (void)i;
  (void)result;
  ab_run_ok(run, 0);
  return 0;
}

static void json(FILE *out, const ab_run_t *run) {
  const af_state_t *st = run->state;
  fprintf(out, ",\"calls\":%llu,\"checksum\":%llu", (unsigned long long)st->calls,
          (unsigned long long)st->checksum);
}

const ab_workload_t ab_asyncfib = {
  "asyncfib",
  "one repetition of top-level calls fib(0), ..., fib(M-1), recursive or iterative",
  flags,
  backend,
  variants,
  setup,
  check,
  teardown,
  json,
  0 /* no file descriptors */
};

af_state_t *af_pass_begin(ab_run_t *run, af_shape_t shape) {
  af_state_t *st = run->state;
  st->calls = 0;
  st->checksum = 0;
  st->shape = shape;
  st->run = run;
  st->i = 0;
  st->total = run->n * st->m[shape];
  return st;
}

int af_done(af_state_t *st, uint64_t result) {
  int n = af_arg(st, st->i);
  if (result != st->fib[n]) {
    ab_run_fail(st->run, af_rep(st), "fib(%d) returned %llu, expected %llu", n,
                (unsigned long long)result, (unsigned long long)st->fib[n]);
    return -1;
  }
  st->checksum += result;
  st->i++;
  return n == st->m[st->shape] - 1 ? ab_run_check(st->run, af_rep(st) - 1, NULL) : 0;
}

int af_pass_end(ab_run_t *run) {
  const af_state_t *st = run->state;
  if (ab_run_failed(run) || !ab_run_done(run))
    return ab_run_failed(run) ? -1 : 0;
  uint64_t calls = 0, sum = 0;
  for (long i = 0; i < st->total; i++) {
    uint64_t f = st->fib[af_arg(st, i)];
    sum += f;
    calls += st->shape == AF_RECURSIVE ? 2 * f - 1 : 1;
  }
  if (st->calls != calls)
    ab_run_fail(run, run->n - 1, "made %llu calls, the plain computation makes %llu",
                (unsigned long long)st->calls, (unsigned long long)calls);
  else if (st->checksum != sum)
    ab_run_fail(run, run->n - 1, "results sum to %llu, the plain computation's to %llu",
                (unsigned long long)st->checksum, (unsigned long long)sum);
  return ab_run_failed(run) ? -1 : 0;
}

int af_promise_finish(ab_run_t *run) {
  ab_microtasks_drain();
  uv_run(run->loop, UV_RUN_DEFAULT);
  if (!ab_run_failed(run) && ab_promise_live() != 0)
    ab_run_fail(run, run->n - 1, "%zu promises were never freed", ab_promise_live());
  return af_pass_end(run);
}
