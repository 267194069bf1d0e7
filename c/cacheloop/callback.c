/*
 * callback.c -- load(name, cb) in the callback style, two ways of answering
 * a hit (seed 002's two callback programs):
 *
 *   callback-nexttick-sequential    a hit defers its callback through the
 *       tick queue (process.nextTick), so every load answers on a later
 *       turn; the loop is loop(i) called again from the callback.  Each tick
 *       runs from the one drain after the miss's libuv callback: no
 *       recursion, one tick queued and run per hit.
 *   callback-trampoline-sequential  a hit calls back at once, inside load;
 *       the loop absorbs such synchronous answers without recursing: it
 *       marks the turn, and a callback that finds the turn still open only
 *       advances the counter and lets the loop go round (seed 002's
 *       trampoline); an answer that comes later (the miss) restarts the loop.
 *
 * The miss reads the file through the backend; its callback fills the cache,
 * answers, then drains the queues as Node does after every callback.  The
 * one load in flight lives in the pass's state: nothing is allocated per
 * load.
 */
#include "workload.h"

/* The miss's completion: cache, answer, drain. */
static void read_done(ab_read_t *req, ssize_t nread) {
  cl_state_t *st = req->data;
  const cl_entry_t *e = NULL;
  if (nread < 0)
    cl_read_failed(st, (int)nread); /* the pass stops here */
  else if ((e = cl_cache_put(st, st->path, req->buf, (size_t)nread)) != NULL)
    st->cb(st, e);
  ab_microtasks_drain();
}

/* Starts the miss; 0, or -1 with the failure recorded. */
static int read_start(cl_state_t *st, const char *name) {
  st->req.data = st;
  int rc = st->backend->start(st->loop, &st->req, name, read_done);
  if (rc != 0) {
    cl_read_failed(st, rc);
    return -1;
  }
  return 0;
}

/* After the pass: the miss's callback and the ticks are done. */
static int finish(ab_run_t *run) {
  cl_state_t *st = run->state;
  ab_microtasks_drain();
  uv_run(st->loop, UV_RUN_DEFAULT);
  return cl_pass_end(run);
}

/* ---- nextTick -------------------------------------------------------------- */

static void deliver(void *arg) {
  cl_state_t *st = arg;
  st->cb(st, st->ready);
}

static void load_nexttick(cl_state_t *st, const char *name,
                          void (*cb)(cl_state_t *, const cl_entry_t *)) {
  st->cb = cb;
  const cl_entry_t *e = cl_cache_get(st, name);
  if (e == NULL) {
    read_start(st, name);
    return;
  }
  st->ready = e;
  if (ab_next_tick(deliver, st) != 0)
    ab_run_oom(st->run, st->i, "a tick");
}

static void nt_loop(cl_state_t *st);

static void nt_loaded(cl_state_t *st, const cl_entry_t *e) {
  if (cl_loaded(st, e) != 0)
    return;
  nt_loop(st);
}

static void nt_loop(cl_state_t *st) {
  if (st->i < st->run->n && !ab_run_failed(st->run))
    load_nexttick(st, st->path, nt_loaded);
}

int cl_callback_nexttick(ab_run_t *run) {
  cl_state_t *st = run->state;
  cl_pass_begin(run);
  ab_run_begin(run);
  nt_loop(st);
  return finish(run);
}

/* ---- trampoline ------------------------------------------------------------ */

/* The state of a turn of the loop (seed 002's `async` variable). */
enum { TURN_OPEN, TURN_ANSWERED, TURN_LEFT };

static void load_trampoline(cl_state_t *st, const char *name,
                            void (*cb)(cl_state_t *, const cl_entry_t *)) {
  const cl_entry_t *e = cl_cache_get(st, name);
  if (e != NULL) {
    cb(st, e);
    return;
  }
  st->cb = cb;
  read_start(st, name);
}

static void tr_loop(cl_state_t *st);

static void tr_loaded(cl_state_t *st, const cl_entry_t *e) {
  if (cl_loaded(st, e) != 0)
    return;
  if (st->tramp == TURN_LEFT)
    tr_loop(st);               /* answered later: the loop had returned */
  else
    st->tramp = TURN_ANSWERED; /* answered inside load: the loop goes round */
}

static void tr_loop(cl_state_t *st) {
  while (st->i < st->run->n && !ab_run_failed(st->run)) {
    st->tramp = TURN_OPEN;
    load_trampoline(st, st->path, tr_loaded);
    if (st->tramp != TURN_ANSWERED) {
      st->tramp = TURN_LEFT;
      return;
    }
  }
}

int cl_callback_trampoline(ab_run_t *run) {
  cl_state_t *st = run->state;
  cl_pass_begin(run);
  ab_run_begin(run);
  tr_loop(st);
  return finish(run);
}
