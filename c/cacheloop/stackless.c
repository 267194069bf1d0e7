/*
 * stackless.c -- the await loop as a switch-based state machine
 * (c/lib/stackless.h) with one frame: for (i...) { entry = await load(name);
 * check }, awaiting the promises of promise.c.  JavaScript's semantics, as
 * streamline's transform kept them: a hit's fulfilled promise still takes a
 * microtask turn.  No stack to switch: the frame is re-entered instead.
 */
#include "workload.h"

#include "modes.h"
#include "stackless.h"

typedef struct frame_s {
  ab_pt_t pt;
  cl_state_t *st;
  ab_promise_t *p;
} frame_t;

static int step(ab_pt_t *pt) {
  frame_t *f = AB_PT_FRAME(pt, frame_t, pt);
  cl_state_t *st = f->st;
  AB_PT_BEGIN(pt);
  while (st->i < st->run->n && !ab_run_failed(st->run)) {
    if ((f->p = cl_load_promise(st)) == NULL)
      AB_PT_RETURN(pt, -1);
    AB_PT_AWAIT(pt, f->p);
    if (pt->code != 0) {
      if (pt->code != AB_ENOMEM || ab_promise_state(f->p) == AB_REJECTED)
        ab_op_fail(st->run, st->i, pt->code, ab_promise_message(f->p));
      ab_promise_release(f->p);
      AB_PT_RETURN(pt, -1);
    }
    ab_promise_release(f->p);
    if (cl_loaded(st, pt->value) != 0)
      AB_PT_RETURN(pt, -1);
  }
  AB_PT_END(pt);
}

int cl_stackless(ab_run_t *run) {
  frame_t f = {.st = run->state};
  cl_pass_begin(run);
  ab_run_begin(run);
  ab_pt_start(&f.pt, step, NULL);
  return cl_promise_finish(run);
}
