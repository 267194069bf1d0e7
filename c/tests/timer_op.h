/*
 * timer_op.h -- an operation for the tests of the mode skeletons: a
 * zero-delay libuv timer embedded in its record, started per operation,
 * completing with the operation's own iteration number, and closed by the
 * type's cleanup (so the skeletons must let the close finish before they free
 * the records).  A test may set timer_op_on_start to watch every start.
 */
#ifndef AB_TIMER_OP_H
#define AB_TIMER_OP_H

#include "modes.h"

typedef struct {
  ab_op_t op;
  uv_timer_t timer;
  long value;
} timer_op_t;

/* Called first by every start (NULL: nothing). */
static void (*timer_op_on_start)(ab_op_t *op);

static void timer_op_fired(uv_timer_t *t) {
  timer_op_t *r = t->data;
  r->value = r->op.i;
  ab_op_done(&r->op, 0, NULL);
}

static int timer_op_start(ab_op_t *op) {
  timer_op_t *r = (timer_op_t *)op;
  if (timer_op_on_start != NULL) timer_op_on_start(op);
  if (r->timer.data == NULL) {
    int rc = uv_timer_init(op->set->run->loop, &r->timer);
    if (rc != 0) return rc;
    r->timer.data = r;
  }
  return uv_timer_start(&r->timer, timer_op_fired, 0, 0);
}

static void timer_op_cleanup(ab_op_t *op) {
  timer_op_t *r = (timer_op_t *)op;
  if (r->timer.data != NULL) uv_close((uv_handle_t *)&r->timer, NULL);
}

static const ab_op_type_t timer_op = {sizeof(timer_op_t), timer_op_start, timer_op_cleanup};

#endif /* AB_TIMER_OP_H */
