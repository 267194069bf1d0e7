/*
 * sync.c -- the floor: the backend's blocking form, one read after another on
 * this thread.  No loop, no threadpool, no callback.
 */
#include "workload.h"

int ab_readfile_sync(ab_run_t *run) {
  const ab_readfile_t *st = run->state;
  ab_readfile_op_t r = {0};
  long i;
  int rc = 0;

  ab_run_begin(run);
  for (i = 0; i < run->n; i++) {
    st->backend->read_sync(&r.req, st->path);
    if (ab_run_check(run, i, &r) != 0) {
      rc = -1;
      break;
    }
  }
  ab_read_cleanup(&r.req);
  return rc;
}
