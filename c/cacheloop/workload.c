/*
 * workload.c -- what the harness asks of cacheloop (workload.h): its flag and
 * its default (the catalog's must equal it), the fixture check, the check of
 * one load, the line's extra fields, the variant table, and the cache.
 */
#include "workload.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "modes.h"

enum { FLAG_FILE };

static const ab_flag_t flags[] = {
  [FLAG_FILE] = {"--file", "PATH", "fixtures/text.txt", "file every load returns (cached after the first)"},
  {NULL, NULL, NULL, NULL}
};

static const ab_variant_t variants[] = {
  /* style      shape         mode          function */
  {"sync",      NULL,         "sequential", cl_sync, NULL, 0},
  {"callback",  "nexttick",   "sequential", cl_callback_nexttick, NULL, 0},
  {"callback",  "trampoline", "sequential", cl_callback_trampoline, NULL, 0},
  {"promise",   NULL,         "sequential", cl_promise, NULL, 0},
  {"await",     NULL,         "sequential", cl_await, AB_CORO_RUNTIME, 0},
  {"fiber",     NULL,         "sequential", cl_fiber, AB_CORO_RUNTIME, 0},
  {"stackless", NULL,         "sequential", cl_stackless, NULL, 0},
  {NULL, NULL, NULL, NULL, NULL, 0}
};

/* Exit 3 before anything is timed when the file cannot serve as the cached
 * content: readfile's checks (missing, not a regular file, unreadable), and
 * not empty (an empty content would make every load look like a miss in the
 * seed's cache). */
static int check_fixture(const char *prog, const char *path, size_t *len) {
  int rc = ab_readfile_check_fixture(prog, path, len);
  if (rc == AB_EXIT_OK && *len == 0) {
    fprintf(stderr, "%s: fixture '%s' is empty; --file must name a file with content to cache\n",
            prog, path);
    rc = AB_EXIT_ENV;
  }
  return rc;
}

static cl_state_t the_state;

static int setup(const ab_opts_t *o, uv_loop_t *loop, void **state) {
  cl_state_t *st = &the_state;
  int rc = check_fixture(o->prog, o->flags[FLAG_FILE], &st->file_len);
  if (rc != AB_EXIT_OK) return rc;
  st->backend = ab_backend_find(o->backend);
  st->loop = loop;
  st->path = o->flags[FLAG_FILE];
  /* The miss of every style but sync goes through the threadpool: started
   * before the clock, as readfile does. */
  if (o->variant != NULL && strncmp(o->variant, "sync-", 5) != 0 &&
      (rc = ab_threadpool_start(loop, o->prog)) != 0)
    return rc;
  if (st->backend->loop_init != NULL && (rc = st->backend->loop_init(loop)) != 0) {
    fprintf(stderr, "%s: backend %s: %s\n", o->prog, st->backend->name, uv_strerror(rc));
    return AB_EXIT_ENV;
  }
  *state = st;
  return AB_EXIT_OK;
}

static void teardown(void *state) {
  cl_state_t *st = state;
  ab_read_cleanup(&st->req);
  if (st->backend->loop_close != NULL) st->backend->loop_close(st->loop);
}

/* A load is right when it returned the whole file. */
static int check(ab_run_t *run, long i, const void *result) {
  const cl_state_t *st = run->state;
  const cl_entry_t *e = result;
  if (e == NULL || e->len != st->file_len) {
    ab_run_fail(run, i, "load returned %zu bytes, expected the file's %zu",
                e != NULL ? e->len : 0, st->file_len);
    return -1;
  }
  ab_run_ok(run, e->len);
  return 0;
}

static void json(FILE *out, const ab_run_t *run) {
  const cl_state_t *st = run->state;
  fprintf(out, ",\"hits\":%ld,\"misses\":%ld,\"file_bytes\":%zu", st->hits, st->misses,
          st->file_len);
}

const ab_workload_t ab_cacheloop = {
  "cacheloop",
  "load a file through a cache; the first load of a pass misses and reads it",
  flags,
  ab_backend_name,
  variants,
  setup,
  check,
  teardown,
  json,
  1 /* the miss holds an fd from its open to its close */
};

/* ---- the cache ---------------------------------------------------------------- */

void cl_pass_begin(ab_run_t *run) {
  cl_state_t *st = run->state;
  free(st->cache.data);
  st->cache = (cl_entry_t){NULL, NULL, 0};
  st->hits = st->misses = 0;
  st->run = run;
  st->i = 0;
  st->cb = NULL;
  st->ready = NULL;
  st->miss = NULL;
  st->waiter = NULL;
}

int cl_pass_end(ab_run_t *run) {
  cl_state_t *st = run->state;
  if (!ab_run_failed(run) && ab_run_done(run) && (st->hits != run->n - 1 || st->misses != 1))
    ab_run_fail(run, run->n - 1, "%ld hits and %ld misses, expected %ld and 1", st->hits,
                st->misses, run->n - 1);
  free(st->cache.data);
  st->cache = (cl_entry_t){NULL, NULL, 0};
  return ab_run_failed(run) ? -1 : 0;
}

const cl_entry_t *cl_cache_put(cl_state_t *st, const char *name, const char *buf, size_t len) {
  char *copy = malloc(len ? len : 1);
  if (copy == NULL) {
    ab_run_oom(st->run, st->i, "the cached file");
    return NULL;
  }
  memcpy(copy, buf, len);
  free(st->cache.data);
  st->cache = (cl_entry_t){name, copy, len};
  st->misses++;
  return &st->cache;
}

void cl_read_failed(cl_state_t *st, int code) {
  ab_op_fail(st->run, st->i, code, code == UV_ENOMEM ? "a read buffer" : st->req.failed_op);
}
