/*
 * stackless.c -- every call is a stackless async function (c/lib/
 * stackless.h): a state-machine frame with its own result promise, as a
 * transform to state machines makes of an async function.
 *
 *   recursive  await fib(n-1), then await fib(n-2), then fulfil the result
 *              with their sum: the same awaits, one microtask turn each, as
 *              await.c, with no stack to switch
 *   iterative  the loop in a frame that finishes at once
 *
 * A driver frame awaits the top-level calls one after another.  Frames come
 * from a free list, filled by the first call chain once the clock has
 * started (a chain holds at most M + 1) and kept for the next pass as the
 * coroutine pool keeps its stacks (c/lib/modes.h); afterwards a call
 * allocates only its result promise, from the pool.  The workload's teardown
 * frees the list.
 */
#include "workload.h"

#include <stdlib.h>

#include "stackless.h"

typedef struct frame_s {
  ab_pt_t pt;
  af_state_t *st;
  int n;
  uint64_t value;          /* the result, once finished */
  ab_promise_t *child;     /* the awaited call's promise */
  ab_promise_t *result;    /* this call's promise, the frame's reference */
  struct frame_s *next;    /* on the free list */
} frame_t;

static frame_t *free_frames;

static frame_t *frame_get(void) {
  frame_t *f = free_frames;
  if (f != NULL)
    free_frames = f->next;
  else
    f = malloc(sizeof(*f));
  return f;
}

static void frame_put(frame_t *f) {
  f->next = free_frames;
  free_frames = f;
}

static void frames_free(void) {
  while (free_frames != NULL) {
    frame_t *f = free_frames;
    free_frames = f->next;
    free(f);
  }
}

/* The frame has finished: settle its promise, give the frame back. */
static void finished(ab_pt_t *pt) {
  frame_t *f = AB_PT_FRAME(pt, frame_t, pt);
  ab_pt_promise_return(f->result, pt->result, NULL, AF_VALUE(f->value));
  frame_put(f);
}

/* Starts the call step(n) and returns its promise (a new reference), or NULL
 * when out of memory. */
static ab_promise_t *call(af_state_t *st, int n, ab_pt_step_fn step) {
  frame_t *f = frame_get();
  if (f == NULL)
    return NULL;
  f->st = st;
  f->n = n;
  f->value = 0;
  f->child = NULL;
  ab_promise_t *r = f->result = ab_pt_promise_new(); /* the frame's and ours */
  if (r == NULL) {
    frame_put(f);
    return NULL;
  }
  ab_pt_start(&f->pt, step, finished);
  return r;
}

static int fib_recursive(ab_pt_t *pt) {
  frame_t *f = AB_PT_FRAME(pt, frame_t, pt);
  AB_PT_BEGIN(pt);
  f->st->calls++;
  if (f->n <= 1) {
    f->value = 1;
    AB_PT_RETURN(pt, 0);
  }
  if ((f->child = call(f->st, f->n - 1, fib_recursive)) == NULL)
    AB_PT_RETURN(pt, AB_ENOMEM);
  AB_PT_AWAIT(pt, f->child);
  ab_promise_release(f->child);
  if (pt->code != 0)
    AB_PT_RETURN(pt, pt->code);
  f->value = AF_UINT(pt->value);
  if ((f->child = call(f->st, f->n - 2, fib_recursive)) == NULL)
    AB_PT_RETURN(pt, AB_ENOMEM);
  AB_PT_AWAIT(pt, f->child);
  ab_promise_release(f->child);
  if (pt->code != 0)
    AB_PT_RETURN(pt, pt->code);
  f->value += AF_UINT(pt->value);
  AB_PT_END(pt);
}

static int fib_iterative(ab_pt_t *pt) {
  frame_t *f = AB_PT_FRAME(pt, frame_t, pt);
  AB_PT_BEGIN(pt);
  f->value = af_fib_iterative(f->st, f->n);
  AB_PT_END(pt);
}

typedef struct driver_s {
  ab_pt_t pt;
  af_state_t *st;
  ab_pt_step_fn step;
  ab_promise_t *p;
} driver_t;

static int drive(ab_pt_t *pt) {
  driver_t *d = AB_PT_FRAME(pt, driver_t, pt);
  af_state_t *st = d->st;
  AB_PT_BEGIN(pt);
  while (st->i < st->total && !ab_run_failed(st->run)) {
    if ((d->p = call(st, af_arg(st, st->i), d->step)) == NULL) {
      ab_run_oom(st->run, af_rep(st), "a frame or a promise");
      AB_PT_RETURN(pt, -1);
    }
    AB_PT_AWAIT(pt, d->p);
    ab_promise_release(d->p);
    if (pt->code != 0) {
      if (pt->code == AB_ENOMEM)
        ab_run_oom(st->run, af_rep(st), "a frame or a promise");
      else
        ab_run_fail(st->run, af_rep(st), "the call failed: %s", ab_promise_strerror(pt->code));
      AB_PT_RETURN(pt, -1);
    }
    if (af_done(st, AF_UINT(pt->value)) != 0)
      AB_PT_RETURN(pt, -1);
  }
  AB_PT_END(pt);
}

static int run_driver(ab_run_t *run, af_shape_t shape) {
  af_state_t *st = af_pass_begin(run, shape);
  driver_t d = {.st = st, .step = shape == AF_RECURSIVE ? fib_recursive : fib_iterative};
  ab_run_begin(run);
  ab_pt_start(&d.pt, drive, NULL);
  return af_promise_finish(run);
}

void af_stackless_teardown(void) { frames_free(); }

int af_stackless_recursive(ab_run_t *run) { return run_driver(run, AF_RECURSIVE); }
int af_stackless_iterative(ab_run_t *run) { return run_driver(run, AF_ITERATIVE); }
