/*
 * sync.c -- the floor: the backend's blocking form, one read after another on
 * this thread.  No loop, no threadpool, no callback.
 */
#include "styles.h"

int ab_readfile_sync(ab_run_t *run) {
  ab_read_t req = {0};
  long i;
  int rc = 0;

  ab_run_begin(run);
  for (i = 0; i < run->n; i++) {
    ssize_t n = run->backend->read_sync(&req, run->opts->file);
    if (ab_run_check(run, i, req.buf, n) != 0) {
      rc = -1;
      break;
    }
  }
  ab_read_cleanup(&req);
  return rc;
}
