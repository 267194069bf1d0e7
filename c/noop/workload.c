/*
 * workload.c -- what the harness asks of noop (workload.h), and the
 * operation: a queue of pending operations drained by an idle handle.
 */
#include "workload.h"

static const ab_variant_t variants[] = {
  /* style      shape  mode          function */
  {"sync",      NULL,  "sequential", ab_noop_sync, NULL, 0},
  {"callback",  NULL,  "sequential", ab_noop_callback, NULL, 0},
  {"callback",  NULL,  "parallel",   ab_noop_callback, NULL, 0},
  {"callback",  NULL,  "bounded",    ab_noop_callback, NULL, 0},
  {"promise",   NULL,  "sequential", ab_noop_promise_chain, NULL, 0},
  {"promise",   NULL,  "parallel",   ab_noop_promise_all, NULL, 0},
  {"promise",   NULL,  "bounded",    ab_noop_promise_chain, NULL, 0},
  {"await",     NULL,  "sequential", ab_noop_await_loop, AB_CORO_RUNTIME, 0},
  {"await",     NULL,  "parallel",   ab_noop_await_all, AB_CORO_RUNTIME, 0},
  {"await",     NULL,  "bounded",    ab_noop_await_loop, AB_CORO_RUNTIME, 0},
  {"stackless", NULL,  "sequential", ab_noop_stackless_loop, NULL, 0},
  {"stackless", NULL,  "parallel",   ab_noop_stackless_all, NULL, 0},
  {"stackless", NULL,  "bounded",    ab_noop_stackless_loop, NULL, 0},
  {NULL, NULL, NULL, NULL, NULL, 0}
};

/* The pending operations, in start order, and the handle that completes them. */
typedef struct noop_state_s {
  uv_idle_t idle;
  ab_noop_op_t *head;
  ab_noop_op_t *tail;
} noop_state_t;

static noop_state_t the_state;

static const char *backend(size_t k) {
  return k == 0 ? "none" : NULL;
}

static int setup(const ab_opts_t *o, uv_loop_t *loop, void **state) {
  int rc = uv_idle_init(loop, &the_state.idle);
  if (rc != 0) {
    fprintf(stderr, "%s: uv_idle_init: %s\n", o->prog, uv_strerror(rc));
    return AB_EXIT_ENV;
  }
  *state = &the_state;
  return AB_EXIT_OK;
}

static void teardown(void *state) {
  noop_state_t *st = state;
  uv_close((uv_handle_t *)&st->idle, NULL);
}

static int check(ab_run_t *run, long i, const void *result) {
  const ab_noop_op_t *r = result;
  if (r->value != i) {
    ab_run_fail(run, i, "completed with %ld, expected %ld", r->value, i);
    return -1;
  }
  ab_run_ok(run, 0);
  return 0;
}

const ab_workload_t ab_noop = {
  "noop",
  "nothing: complete with its own iteration number",
  NULL, /* no flags of its own */
  backend,
  variants,
  setup,
  check,
  teardown,
  NULL,
  0 /* an operation holds no fd */
};

/* ---- the operation ---------------------------------------------------------- */

/* Completes what was pending when this turn began; what those completions
 * start waits for the next turn. */
static void drain(uv_idle_t *idle) {
  noop_state_t *st = (noop_state_t *)idle; /* idle is its first member */
  ab_noop_op_t *r = st->head;
  st->head = st->tail = NULL;
  while (r != NULL) {
    ab_noop_op_t *next = r->next; /* r may be started again by its completion */
    r->value = r->op.i;
    ab_op_done(&r->op, 0, NULL);
    r = next;
  }
  if (st->head == NULL)
    uv_idle_stop(idle);
}

static int start(ab_op_t *op) {
  noop_state_t *st = op->set->run->state;
  ab_noop_op_t *r = (ab_noop_op_t *)op;
  r->next = NULL;
  if (st->tail != NULL)
    st->tail->next = r;
  else
    st->head = r;
  st->tail = r;
  return uv_is_active((uv_handle_t *)&st->idle) ? 0 : uv_idle_start(&st->idle, drain);
}

const ab_op_type_t ab_noop_op = {sizeof(ab_noop_op_t), start, NULL};
