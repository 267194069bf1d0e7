/*
 * workload.c -- what the harness asks of doxbee (workload.h): flags, setup,
 * the check of an upload, the fake operations and their expected results.
 */
#include "workload.h"

#include <string.h>

static const ab_variant_t variants[] = {
  /* style      shape         mode        function */
  {"callback",  "sequential", "parallel", ab_doxbee_callback_seq, NULL, 0},
  {"callback",  "parallel",   "parallel", ab_doxbee_callback_par, NULL, 0},
  {"promise",   "sequential", "parallel", ab_doxbee_promise_seq, NULL, 0},
  {"promise",   "parallel",   "parallel", ab_doxbee_promise_par, NULL, 0},
  {"await",     "sequential", "parallel", ab_doxbee_await_seq, AB_CORO_RUNTIME, 0},
  {"await",     "parallel",   "parallel", ab_doxbee_await_par, AB_CORO_RUNTIME, 0},
  {"fiber",     "sequential", "parallel", ab_doxbee_fiber_seq, AB_CORO_RUNTIME, 0},
  {"fiber",     "parallel",   "parallel", ab_doxbee_fiber_par, AB_CORO_RUNTIME, 0},
  {"stackless", "sequential", "parallel", ab_doxbee_stackless_seq, NULL, 0},
  {"stackless", "parallel",   "parallel", ab_doxbee_stackless_par, NULL, 0},
  {NULL, NULL, NULL, NULL, NULL, 0}
};

static const ab_flag_t flags[] = {
  {"--delay-ms", "T", "1", "every fake operation completes after T ms (0: on the next loop turn)"},
  {"--queries", "P", "25", "queries at once per upload in the parallel shape"},
  {NULL, NULL, NULL, NULL}
};

/* Largest values taken: a day of delay, a million queries per upload. */
#define MAX_DELAY_MS 86400000L
#define MAX_QUERIES 1000000L

static ab_doxbee_t the_state;

static void woke(ab_sleep_t *s); /* an operation's sleep is over (below) */

static const char *backend(size_t k) { return k == 0 ? "sleepq" : NULL; }

static int setup(const ab_opts_t *o, uv_loop_t *loop, void **state) {
  ab_doxbee_t *st = &the_state;
  int rc;
  memset(st, 0, sizeof(*st));
  if ((rc = ab_flag_count(o, "--delay-ms", 0, 0, MAX_DELAY_MS, &st->delay_ms)) != AB_EXIT_OK ||
      (rc = ab_flag_count(o, "--queries", 1, 1, MAX_QUERIES, &st->queries)) != AB_EXIT_OK)
    return rc;
  if ((rc = ab_sleepq_init(loop, &st->q, (uint64_t)st->delay_ms, woke)) != 0) {
    fprintf(stderr, "%s: the timer: %s\n", o->prog, uv_strerror(rc));
    return AB_EXIT_ENV;
  }
  *state = st;
  return AB_EXIT_OK;
}

static void teardown(void *state) {
  ab_doxbee_t *st = state;
  ab_sleepq_close(&st->q);
}

/* An upload verifies when it committed once and every result was checked. */
static int check(ab_run_t *run, long i, const void *result) {
  const ab_doxbee_up_t *up = result;
  const ab_doxbee_t *st = run->state;
  if (up->commits != 1) {
    ab_run_fail(run, i, "the upload committed %ld times, expected once", up->commits);
    return -1;
  }
  if (up->checked != st->ops_per_upload) {
    ab_run_fail(run, i, "%ld results of the upload were checked, expected %ld", up->checked,
                st->ops_per_upload);
    return -1;
  }
  ab_run_ok(run, 0);
  return 0;
}

static void json(FILE *out, const ab_run_t *run) {
  const ab_doxbee_t *st = run->state;
  fprintf(out, ",\"commits\":%ld,\"checked\":%ld,\"ops_per_upload\":%ld", st->commits,
          st->checked, st->ops_per_upload);
}

const ab_workload_t ab_doxbee = {
  "doxbee",
  "an upload: a transaction of fake database operations on timers",
  flags,
  backend,
  variants,
  setup,
  check,
  teardown,
  json,
  0 /* an operation holds no fd */
};

/* ---- records ------------------------------------------------------------------ */

static int no_start(ab_op_t *op) {
  (void)op;
  return UV_ENOSYS; /* uploads are started by the styles, never by a skeleton */
}

ab_ops_t *ab_doxbee_begin(ab_run_t *run, int shape_parallel, int promised) {
  ab_doxbee_t *st = run->state;
  long slots = shape_parallel ? st->queries : 2; /* the put and the lookup at once */
  size_t size = sizeof(ab_doxbee_up_t) + (size_t)slots * sizeof(ab_doxbee_op_t);
  st->ops_per_upload = shape_parallel ? st->queries + 1 : AB_DOXBEE_STEPS;
  st->commits = st->checked = 0;
  st->most_waiting = 0;
  st->type.size = AB_OPS_ALIGNED(size);
  st->type.start = no_start;
  st->type.cleanup = NULL;
  ab_ops_t *set = ab_ops_start(run, &st->type, run->n, 0, promised);
  if (set != NULL)
    for (long k = 0; k < set->n; k++)
      ab_doxbee_up(set, k)->head.i = k;
  return set;
}

/* ---- results -------------------------------------------------------------------- */

long ab_doxbee_expected(long i, int kind, long j) {
  if (kind == AB_DOXBEE_LOOKUP) return 0; /* no such file: the create branch runs */
  return (i * 16 + kind) * (MAX_QUERIES + 1) + j + 1;
}

static const char *const kind_names[AB_DOXBEE_STEPS] = {
  "blob put", "file lookup", "version insert", "query creation", "query execution",
  "file-version insert", "file update", "commit"
};

int ab_doxbee_verify(ab_doxbee_up_t *up, int kind, long j, long got) {
  long want = ab_doxbee_expected(up->head.i, kind, j);
  ab_run_t *run = up->head.set->run;
  if (got != want) {
    ab_run_fail(run, up->head.i, "%s %ld returned %ld, expected %ld", kind_names[kind], j, got,
                want);
    return -1;
  }
  up->checked++;
  ((ab_doxbee_t *)run->state)->checked++;
  return 0;
}

int ab_doxbee_committed(ab_doxbee_up_t *up, long got) {
  if (ab_doxbee_verify(up, AB_DOXBEE_COMMIT, 0, got) != 0) return -1;
  up->commits++;
  ab_doxbee_state(up)->commits++;
  return ab_run_check(up->head.set->run, up->head.i, up);
}

long ab_doxbee_create_query(ab_doxbee_up_t *up, void (*cb)(ab_doxbee_up_t *up, long q)) {
  long q = ab_doxbee_expected(up->head.i, AB_DOXBEE_CREATE, 0);
  if (cb != NULL) cb(up, q);
  return q;
}

/* ---- the fake operations ---------------------------------------------------------- */

/* The sleep is over: the operation completes with its value. */
static void woke(ab_sleep_t *s) {
  ab_doxbee_op_t *op = (ab_doxbee_op_t *)s; /* sleep is its first member */
  op->result = ab_doxbee_expected(op->up->head.i, op->kind, op->j);
  if (op->p != NULL) {
    ab_promise_t *p = op->p;
    op->p = NULL;
    ab_promise_resolve(p, op, NULL);
    ab_promise_release(p);
  } else {
    op->done(op);
  }
}

int ab_doxbee_start(ab_doxbee_op_t *op, ab_doxbee_up_t *up, int kind, long j,
                    void (*done)(ab_doxbee_op_t *op)) {
  op->up = up;
  op->kind = kind;
  op->j = j;
  op->result = -1;
  op->done = done;
  ab_doxbee_t *st = ab_doxbee_state(up);
  int rc = ab_sleepq_start(&st->q, &op->sleep);
  if (rc != 0) {
    ab_op_fail(up->head.set->run, up->head.i, rc, kind_names[kind]);
    return -1;
  }
  if (st->q.waiting > st->most_waiting) st->most_waiting = st->q.waiting;
  return 0;
}

ab_promise_t *ab_doxbee_promise(ab_doxbee_op_t *op, ab_doxbee_up_t *up, int kind, long j) {
  ab_promise_t *p = ab_promise_new();
  if (p == NULL) {
    ab_run_oom(up->head.set->run, up->head.i, "a promise");
    return NULL;
  }
  op->p = ab_promise_retain(p);
  if (ab_doxbee_start(op, up, kind, j, NULL) != 0) {
    op->p = NULL;
    ab_promise_release(p);
    ab_promise_release(p);
    return NULL;
  }
  return p;
}

ab_promise_t *ab_doxbee_join(ab_doxbee_up_t *up) {
  ab_promise_t *ps[2];
  ps[0] = ab_doxbee_promise(&up->ops[0], up, AB_DOXBEE_PUT, 0);
  if (ps[0] == NULL) return NULL;
  ps[1] = ab_doxbee_promise(&up->ops[1], up, AB_DOXBEE_LOOKUP, 0);
  if (ps[1] == NULL) {
    ab_promise_release(ps[0]);
    return NULL;
  }
  ab_promise_t *all = ab_promise_all(ps, 2);
  if (all == NULL) ab_run_oom(up->head.set->run, up->head.i, "a promise");
  ab_promise_release(ps[0]);
  ab_promise_release(ps[1]);
  return all;
}

int ab_doxbee_joined(ab_doxbee_up_t *up, const ab_list_t *list) {
  for (size_t k = 0; k < 2; k++) {
    const ab_doxbee_op_t *op = list->items[k].ptr;
    if (ab_doxbee_verify(up, op->kind, 0, op->result) != 0) return -1;
  }
  return 0;
}
