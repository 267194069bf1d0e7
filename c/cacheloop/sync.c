/*
 * sync.c -- the floor: load() is a plain function.  A hit returns the cached
 * entry; the miss reads the file with the backend's blocking form.  No loop,
 * no queue, no allocation per load.
 */
#include "workload.h"

static const cl_entry_t *load(cl_state_t *st, const char *name) {
  const cl_entry_t *e = cl_cache_get(st, name);
  if (e != NULL)
    return e;
  ssize_t n = st->backend->read_sync(&st->req, name);
  if (n < 0) {
    cl_read_failed(st, (int)n);
    return NULL;
  }
  return cl_cache_put(st, name, st->req.buf, (size_t)n);
}

int cl_sync(ab_run_t *run) {
  cl_state_t *st = run->state;
  cl_pass_begin(run);
  ab_run_begin(run);
  while (st->i < run->n) {
    const cl_entry_t *e = load(st, st->path);
    if (e == NULL || cl_loaded(st, e) != 0)
      break;
  }
  return cl_pass_end(run);
}
