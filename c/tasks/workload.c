/*
 * workload.c -- what the harness asks of tasks (workload.h), and the sleep
 * each task waits on, on either backend.
 */
#include "workload.h"

#include <string.h>
#include <unistd.h>

static const ab_variant_t variants[] = {
  /* style      shape mode        function */
  {"callback",  NULL, "parallel", ab_tasks_callback, NULL, 0},
  {"promise",   NULL, "parallel", ab_tasks_promise, NULL, 0},
  {"await",     NULL, "parallel", ab_tasks_await, AB_CORO_RUNTIME, 0},
  {"stackless", NULL, "parallel", ab_tasks_stackless, NULL, 0},
  {"fiber",     NULL, "parallel", ab_tasks_fiber, AB_CORO_RUNTIME, 0},
  {NULL, NULL, NULL, NULL, NULL, 0}
};

static const ab_flag_t flags[] = {
  {"--sleep-ms", "T", "1000", "every task sleeps T ms (0: until the next loop turn)"},
  {NULL, NULL, NULL, NULL}
};

#define MAX_SLEEP_MS 86400000L

typedef struct tasks_state_s {
  ab_sleepq_t q;
  long sleep_ms;
  int use_timers;          /* backend uv_timer */
  long started;            /* tasks started in this pass */
  uint64_t started_ns;     /* when the last one started */
  int stackful;            /* the pass gives each task a stack */
  void (*wake)(ab_task_t *t); /* instead of ab_op_done (ab_tasks_on_wake) */
} tasks_state_t;

static tasks_state_t the_state;

static void sleep_woke(ab_sleep_t *s); /* a task's sleep is over (below) */

static const char *backend(size_t k) {
  static const char *const names[] = {"sleepq", "uv_timer"};
  return k < 2 ? names[k] : NULL;
}

static int setup(const ab_opts_t *o, uv_loop_t *loop, void **state) {
  tasks_state_t *st = &the_state;
  int rc;
  memset(st, 0, sizeof(*st));
  if ((rc = ab_flag_count(o, "--sleep-ms", 0, 0, MAX_SLEEP_MS, &st->sleep_ms)) != AB_EXIT_OK)
    return rc;
  st->use_timers = strcmp(o->backend, "uv_timer") == 0;
  if ((rc = ab_sleepq_init(loop, &st->q, (uint64_t)st->sleep_ms, sleep_woke)) != 0) {
    fprintf(stderr, "%s: the timer: %s\n", o->prog, uv_strerror(rc));
    return AB_EXIT_ENV;
  }
  *state = st;
  return AB_EXIT_OK;
}

static void teardown(void *state) { ab_sleepq_close(&((tasks_state_t *)state)->q); }

static int check(ab_run_t *run, long i, const void *result) {
  const ab_task_t *t = result;
  if (t->value != i) {
    ab_run_fail(run, i, "the task completed with %ld, expected %ld", t->value, i);
    return -1;
  }
  ab_run_ok(run, 0);
  return 0;
}

static void json(FILE *out, const ab_run_t *run) {
  const tasks_state_t *st = run->state;
  uint64_t start = st->started == run->n && st->started_ns > run->t_start_ns
                       ? st->started_ns - run->t_start_ns : 0;
  fprintf(out, ",\"start_ns\":%llu,\"stack_bytes\":%zu,\"page_bytes\":%ld",
          (unsigned long long)start, st->stackful ? ab_coro_stack_size() : (size_t)0,
          sysconf(_SC_PAGESIZE));
}

const ab_workload_t ab_tasks = {
  "tasks",
  "a task: suspended on a sleep, then completing with its own number",
  flags,
  backend,
  variants,
  setup,
  check,
  teardown,
  json,
  0 /* a task holds no fd */
};

int ab_tasks_begin(ab_run_t *run, int stackful) {
  tasks_state_t *st = run->state;
  st->started = 0;
  st->started_ns = 0;
  st->stackful = stackful;
  st->wake = NULL;
  return 0;
}

void ab_tasks_on_wake(ab_run_t *run, void (*wake)(ab_task_t *t)) {
  ((tasks_state_t *)run->state)->wake = wake;
}

/* ---- the sleep ------------------------------------------------------------------ */

/* Each sleep counts from the moment its task starts it (sleepq reads the
 * clock itself; a uv_timer counts from the loop's cached time, refreshed
 * first): the loop's time dates from the start of its turn, and starting N
 * tasks takes a while, so a task started late would otherwise sleep less. */

static void started(ab_task_t *t) {
  tasks_state_t *st = t->op.set->run->state;
  if (++st->started == t->op.set->run->n) st->started_ns = ab_now_ns();
}

static void complete(ab_task_t *t) {
  const tasks_state_t *st = t->op.set->run->state;
  t->value = t->op.i;
  if (st->wake != NULL) st->wake(t);
  else ab_op_done(&t->op, 0, NULL);
}

static void sleep_woke(ab_sleep_t *s) {
  complete((ab_task_t *)((char *)s - offsetof(ab_task_t, on.sleep)));
}

static int sleep_start(ab_op_t *op) {
  ab_task_t *t = (ab_task_t *)op;
  tasks_state_t *st = op->set->run->state;
  int rc = ab_sleepq_start(&st->q, &t->on.sleep);
  if (rc == 0) started(t);
  return rc;
}

/* uv_timer: the record is followed by its timer, whose data points back. */
static void timer_woke(uv_timer_t *timer) {
  complete(timer->data);
  ab_microtasks_drain();
}

static int timer_start(ab_op_t *op) {
  ab_task_t *t = (ab_task_t *)op;
  tasks_state_t *st = op->set->run->state;
  int rc;
  if (t->on.timer == NULL) {
    t->on.timer = (uv_timer_t *)(t + 1);
    if ((rc = uv_timer_init(op->set->run->loop, t->on.timer)) != 0) {
      t->on.timer = NULL;
      return rc;
    }
    t->on.timer->data = t;
  }
  uv_update_time(op->set->run->loop);
  rc = uv_timer_start(t->on.timer, timer_woke, (uint64_t)st->sleep_ms, 0);
  if (rc == 0) started(t);
  return rc;
}

static void timer_cleanup(ab_op_t *op) {
  ab_task_t *t = (ab_task_t *)op;
  if (t->on.timer != NULL) uv_close((uv_handle_t *)t->on.timer, NULL);
}

static const ab_op_type_t sleep_op = {sizeof(ab_task_t), sleep_start, NULL};
static const ab_op_type_t timer_op = {
  AB_OPS_ALIGNED(sizeof(ab_task_t) + sizeof(uv_timer_t)), timer_start, timer_cleanup};

const ab_op_type_t *ab_tasks_op(const ab_run_t *run) {
  return ((const tasks_state_t *)run->state)->use_timers ? &timer_op : &sleep_op;
}
