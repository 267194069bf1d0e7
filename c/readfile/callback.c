/*
 * callback.c -- the callback style.  One mechanism serves all three modes: a
 * set of slots, each holding one read in flight; a slot's completion callback
 * verifies the read and starts the next unissued iteration on the same slot.
 * With 1 slot that is the sequential chain, with N slots every read is issued
 * at once (parallel), with K slots at most K are in flight (bounded).
 *
 * The slots are allocated before the clock starts: per-operation state that
 * every C style needs is not the style's cost.
 */
#include "styles.h"

#include <stdlib.h>

typedef struct cb_slot_s {
  ab_read_t req;
  long i;                 /* the iteration this slot is reading */
  struct cb_state_s *st;
} cb_slot_t;

typedef struct cb_state_s {
  ab_run_t *run;
  cb_slot_t *slots;
  long nslots;
  long next;              /* next iteration to issue */
  long inflight;
} cb_state_t;

static void on_read(ab_read_t *req, ssize_t nread);

/* Starts iteration st->next on `slot`; 0, or -1 with the failure recorded. */
static int issue(cb_state_t *st, cb_slot_t *slot) {
  ab_run_t *run = st->run;
  int rc;
  slot->i = st->next++;
  rc = run->backend->start(run->loop, &slot->req, run->opts->file, on_read);
  if (rc != 0) {
    ab_run_fail(run, slot->i, "could not start the read: %s", uv_strerror(rc));
    return -1;
  }
  st->inflight++;
  return 0;
}

static void on_read(ab_read_t *req, ssize_t nread) {
  cb_slot_t *slot = req->data;
  cb_state_t *st = slot->st;
  ab_run_t *run = st->run;

  st->inflight--;
  if (nread == UV_ENOMEM)
    ab_run_oom(run, slot->i, "a read buffer");
  else if (nread < 0 && req->failed_op != NULL)
    ab_run_fail(run, slot->i, "%s failed: %s", req->failed_op, uv_strerror((int)nread));
  else
    ab_run_check(run, slot->i, req->buf, nread);
  if (!ab_run_failed(run) && st->next < run->n) issue(st, slot);
}

/* The slots of a pass; NULL with the failure recorded. */
static cb_state_t *state_new(ab_run_t *run) {
  cb_state_t *st = calloc(1, sizeof(*st));
  long s;
  if (st != NULL) st->slots = calloc((size_t)ab_run_slots(run), sizeof(*st->slots));
  if (st == NULL || st->slots == NULL) {
    free(st);
    ab_run_oom(run, 0, "the read slots");
    return NULL;
  }
  st->run = run;
  st->nslots = ab_run_slots(run);
  for (s = 0; s < st->nslots; s++) {
    st->slots[s].st = st;
    st->slots[s].req.data = &st->slots[s];
  }
  return st;
}

static void state_free(cb_state_t *st) {
  long s;
  for (s = 0; s < st->nslots; s++) ab_read_cleanup(&st->slots[s].req);
  free(st->slots);
  free(st);
}

int ab_readfile_callback(ab_run_t *run) {
  cb_state_t *st = state_new(run);
  long s;
  if (st == NULL) return -1;
  ab_run_begin(run);
  for (s = 0; s < st->nslots && !ab_run_failed(run); s++) issue(st, &st->slots[s]);
  uv_run(run->loop, UV_RUN_DEFAULT);
  state_free(st);
  return ab_run_failed(run) ? -1 : 0;
}

/*
 * The test-only mistake: issue everything, stop the clock, report.  The reads
 * still complete later (the harness drains the loop before closing it); the
 * last completion frees the state, so nothing leaks.
 */
static void on_read_nowait(ab_read_t *req, ssize_t nread) {
  cb_slot_t *slot = req->data;
  cb_state_t *st = slot->st;
  ab_run_check(st->run, slot->i, req->buf, nread);
  if (--st->inflight == 0) state_free(st);
}

int ab_readfile_callback_nowait(ab_run_t *run) {
  cb_state_t *st = state_new(run);
  long s;
  if (st == NULL) return -1;
  ab_run_begin(run);
  for (s = 0; s < st->nslots; s++) {
    cb_slot_t *slot = &st->slots[s];
    slot->i = s;
    if (run->backend->start(run->loop, &slot->req, run->opts->file, on_read_nowait) == 0)
      st->inflight++;
  }
  run->t_end_ns = ab_now_ns();
  if (st->inflight == 0) state_free(st);
  return 0;
}
