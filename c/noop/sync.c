/*
 * sync.c -- the floor: each operation completes in the call that makes it.
 */
#include "workload.h"

int ab_noop_sync(ab_run_t *run) {
  ab_noop_op_t r = {{NULL, 0, NULL}, 0, NULL};
  ab_run_begin(run);
  for (long i = 0; i < run->n; i++) {
    r.value = i;
    if (ab_run_check(run, i, &r) != 0)
      return -1;
  }
  return 0;
}
