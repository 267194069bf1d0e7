/*
 * stackless.h -- await without a stack: a function written as a switch-based
 * state machine (protothread style) over an explicit frame struct.
 *
 * A stackless async function is a step function `int step(ab_pt_t *pt)` whose
 * frame -- every variable that must live across an await -- is a struct the
 * caller allocates, with an ab_pt_t as its member.  Each call of the step
 * function runs from where the last await left off to the next await (it
 * returns AB_PT_WAITING) or to the end (AB_PT_DONE):
 *
 *   typedef struct { ab_pt_t pt; long i; ab_promise_t *p; } frame_t;
 *
 *   static int step(ab_pt_t *pt) {
 *     frame_t *f = AB_PT_FRAME(pt, frame_t, pt);
 *     AB_PT_BEGIN(pt);
 *     for (f->i = 0; f->i < 3; f->i++) {
 *       f->p = start_something();
 *       AB_PT_AWAIT(pt, f->p);          // suspends; resumes from a microtask
 *       ab_promise_release(f->p);
 *       if (pt->code != 0) AB_PT_RETURN(pt, pt->code);
 *     }
 *     AB_PT_END(pt);
 *   }
 *
 *   ab_pt_start(&f.pt, step, on_done);  // runs to the first await, like ab_async
 *
 * AB_PT_AWAIT registers one raw reaction on a pending promise
 * (ab_promise_on_settle), and for a settled one queues the job that continues
 * the function at once (ab_promise_settled_enqueue), exactly as ab_await
 * does, so timing is the same: one microtask tick after the promise settles,
 * and an already-settled promise still suspends once.
 * After it, pt->code is 0 and pt->value the promise's value, or pt->code is
 * the rejection code.  AB_PT_RETURN(pt, code) finishes early with a code.
 * When the function finishes, the frame's `done` callback (may be NULL) runs
 * with pt->result; it may free the frame.
 *
 * Rules of the switch trick: locals of the step function do not survive an
 * await (keep them in the frame); the promise expression given to
 * AB_PT_AWAIT is evaluated again on resumption (use a frame member); no AB_PT_AWAIT inside a switch statement of
 * your own; one await per source line.  Misuse of the state (stepping a
 * finished frame) returns AB_PT_DONE again without running anything.
 *
 * Header only.  No allocation: the frame is the caller's.
 */
#ifndef AB_STACKLESS_H
#define AB_STACKLESS_H

#include <stddef.h>

#include "promise.h"

enum { AB_PT_WAITING = 0, AB_PT_DONE = 1 };

typedef struct ab_pt_s ab_pt_t;
typedef int (*ab_pt_step_fn)(ab_pt_t *pt);
typedef void (*ab_pt_done_fn)(ab_pt_t *pt);

struct ab_pt_s {
  int line;              /* where to continue: 0 = start, -1 = finished */
  int code;              /* after an await: 0 or the rejection code */
  void *value;           /* after an await: the value when code == 0 */
  int result;            /* the code given to AB_PT_RETURN (0 from AB_PT_END) */
  ab_pt_step_fn step;
  ab_pt_done_fn done;
};

/* The frame that contains `pt` as its member `member`. */
#define AB_PT_FRAME(pt, type, member) ((type *)((char *)(pt) - offsetof(type, member)))

#define AB_PT_BEGIN(pt) \
  switch ((pt)->line) {  \
  case -1:               \
    return AB_PT_DONE;   \
  case 0:

/* Awaits promise `p` (the caller keeps its reference). */
#define AB_PT_AWAIT(pt, p)                                       \
  do {                                                           \
    (pt)->line = __LINE__;                                       \
    if (ab__pt_suspend((pt), (p)) == 0)                          \
      return AB_PT_WAITING;                                      \
    (pt)->code = AB_ENOMEM;                                      \
    (pt)->value = NULL;                                          \
    break;                                                       \
  case __LINE__:                                                 \
    ab__pt_collect((pt), (p));                                   \
  } while (0)

/* Finishes the function now with `code` (0 = success). */
#define AB_PT_RETURN(pt, c) \
  do {                      \
    (pt)->result = (c);     \
    (pt)->line = -1;        \
    return AB_PT_DONE;      \
  } while (0)

#define AB_PT_END(pt) \
  }                   \
  (pt)->result = 0;   \
  (pt)->line = -1;    \
  return AB_PT_DONE

/* Reads the outcome of an awaited promise into pt->code / pt->value. */
static inline void ab__pt_collect(ab_pt_t *pt, ab_promise_t *p) {
  pt->value = NULL;
  pt->code = ab__promise_outcome(p, &pt->value);
}

/* Runs one step; calls `done` when the function has finished. */
static inline int ab_pt_run(ab_pt_t *pt) {
  int r = pt->step(pt);
  if (r == AB_PT_DONE && pt->done)
    pt->done(pt);
  return r;
}

/* The reaction AB_PT_AWAIT registers: continue the function. */
static inline void ab__pt_wake(void *arg, ab_promise_t *settled) {
  (void)settled;
  ab_pt_run(arg);
}

/* The job AB_PT_AWAIT queues for a settled promise: continue the function. */
static inline void ab__pt_resume(void *arg) { ab_pt_run(arg); }

/* What AB_PT_AWAIT does before it returns AB_PT_WAITING: for a settled p,
 * queues the job that continues the function where a reaction registered now
 * would be queued (ab_promise_settled_enqueue, as ab_await does: no reaction
 * record, the frame keeps p); for a pending one, registers a raw reaction.
 * 0, or AB_ENOMEM. */
static inline int ab__pt_suspend(ab_pt_t *pt, ab_promise_t *p) {
  return ab__promise_await(p, ab__pt_resume, ab__pt_wake, pt);
}

/* A stackless async function's own promise, as an async function has one:
 * pending, with two references (the frame's and the caller's); NULL when out
 * of memory. */
static inline ab_promise_t *ab_pt_promise_new(void) { return ab__promise_new_shared(); }

/* Settles a frame's own promise as returning from an async function does:
 * fulfilled with the untyped `value` (code 0) or rejected with code and
 * message (NULL: ab_promise_strerror's), then drops the frame's reference. */
static inline void ab_pt_promise_return(ab_promise_t *p, int code, const char *message,
                                        void *value) {
  ab__promise_return(p, code, message, value);
}

/* Initialises the state and runs the function up to its first await.
 * Returns AB_PT_WAITING or AB_PT_DONE (done has then run already). */
static inline int ab_pt_start(ab_pt_t *pt, ab_pt_step_fn step, ab_pt_done_fn done) {
  pt->line = 0;
  pt->code = 0;
  pt->value = NULL;
  pt->result = 0;
  pt->step = step;
  pt->done = done;
  return ab_pt_run(pt);
}

#endif /* AB_STACKLESS_H */
