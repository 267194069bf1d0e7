/*
 * stackless.c -- the stackless await style (stackless.h): one state-machine
 * frame per connection loops over the chains, awaiting each GET's promise:
 * the shape of await.c without a stack.
 */
#include <stdlib.h>

#include "httpchain.h"
#include "stackless.h"

typedef struct {
  ab_pt_t pt;
  hc_conn_t *conn;
  ab_promise_t *p;
} frame_t;

static int chains(ab_pt_t *pt) {
  frame_t *f = AB_PT_FRAME(pt, frame_t, pt);
  hc_conn_t *c = f->conn;
  AB_PT_BEGIN(pt);
  while (hc_next_chain(c)) {
    for (c->step = 0;; c->step++) {
      if (c->step == 0)
        f->p = hc_get_promise(c, HC_FIRST_PATH, sizeof(HC_FIRST_PATH) - 1);
      else
        f->p = hc_get_promise(c, c->body, c->body_len);
      if (f->p == NULL) AB_PT_RETURN(pt, 0);
      AB_PT_AWAIT(pt, f->p);
      ab_promise_release(f->p);
      f->p = NULL;
      if (pt->code != 0) AB_PT_RETURN(pt, 0); /* recorded in the run */
      if (c->step == HC_CHAIN_LEN - 1) break;
    }
    if (hc_chain_done(c) != 0) AB_PT_RETURN(pt, 0);
  }
  AB_PT_END(pt);
}

int hc_stackless(ab_run_t *run) {
  long slots = ab_run_slots(run);
  ab_run_begin(run);
  frame_t *frames = calloc((size_t)slots, sizeof(*frames));
  if (frames == NULL) {
    ab_run_oom(run, 0, "the frames");
    return -1;
  }
  hc_pass_t *pass = hc_pass_new(run, slots, 1);
  if (pass == NULL) {
    free(frames);
    return -1;
  }
  if (hc_pass_connect(pass) == 0) {
    for (long k = 0; k < pass->n && !ab_run_failed(run); k++) {
      frames[k].conn = &pass->conns[k];
      ab_pt_start(&frames[k].pt, chains, NULL);
    }
    ab_microtasks_drain();
    hc_pass_run(pass);
  }
  int rc = hc_pass_close(pass);
  free(frames);
  return rc;
}
