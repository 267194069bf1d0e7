/*
 * workload.c -- what the harness asks of readfile (workload.h): its flags and
 * their defaults (the only place they live in C; the catalog's must equal
 * them), the fixture check, the check of one read, the variant table, and the
 * read as an operation of the mode skeletons.
 */
#include "workload.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { FLAG_FILE, FLAG_EXPECT };

static const ab_flag_t flags[] = {
  [FLAG_FILE] = {"--file", "PATH", "fixtures/text.txt", "file to read"},
  [FLAG_EXPECT] = {"--expect", "TEXT", "Hello, world", "content every read must return"},
  {NULL, NULL, NULL, NULL}
};

static const ab_variant_t variants[] = {
  /* style      shape      mode          function */
  {"sync",      NULL,      "sequential", ab_readfile_sync, NULL, 0},
  {"callback",  NULL,      "sequential", ab_readfile_callback, NULL, 0},
  {"callback",  NULL,      "parallel",   ab_readfile_callback, NULL, 0},
  {"callback",  NULL,      "bounded",    ab_readfile_callback, NULL, 0},
  {"promise",   NULL,      "sequential", ab_readfile_promise_chain, NULL, 0},
  {"promise",   NULL,      "parallel",   ab_readfile_promise_all, NULL, 0},
  {"promise",   "counter", "parallel",   ab_readfile_promise_counter, NULL, 0},
  {"promise",   NULL,      "bounded",    ab_readfile_promise_chain, NULL, 0},
  {"await",     NULL,      "sequential", ab_readfile_await_loop, AB_CORO_RUNTIME, 0},
  {"await",     NULL,      "parallel",   ab_readfile_await_all, AB_CORO_RUNTIME, 0},
  {"await",     "tasks",   "parallel",   ab_readfile_await_tasks, AB_CORO_RUNTIME, 0},
  {"await",     NULL,      "bounded",    ab_readfile_await_loop, AB_CORO_RUNTIME, 0},
  {"stackless", NULL,      "sequential", ab_readfile_stackless_loop, NULL, 0},
  {"stackless", NULL,      "parallel",   ab_readfile_stackless_all, NULL, 0},
  {"stackless", "tasks",   "parallel",   ab_readfile_stackless_tasks, NULL, 0},
  {"stackless", NULL,      "bounded",    ab_readfile_stackless_loop, NULL, 0},
  {"fiber",     NULL,      "sequential", ab_readfile_fiber_loop, AB_CORO_RUNTIME, 0},
  {"fiber",     NULL,      "parallel",   ab_readfile_fiber_all, AB_CORO_RUNTIME, 0},
  {"fiber",     NULL,      "bounded",    ab_readfile_fiber_loop, AB_CORO_RUNTIME, 0},
  /* Test only: stops the clock before its reads complete (seed 000's first
   * mistake), so the runner must report it invalid. */
  {"callback",  "nowait",  "parallel",   ab_readfile_callback_nowait, NULL, 1},
  {NULL, NULL, NULL, NULL, NULL, 0}
};

/* What a file that is not a regular file is, for a message. */
static const char *node_kind(mode_t mode) {
  if (S_ISFIFO(mode)) return "FIFO";
  if (S_ISSOCK(mode)) return "socket";
  if (S_ISCHR(mode)) return "character device";
  if (S_ISBLK(mode)) return "block device";
  return "special file";
}

/* Exit 3 before anything is timed when the fixture cannot be read at all:
 * missing, not a regular file, unreadable.  *len (when len is not NULL)
 * receives its size.  cacheloop checks its file with it too. */
int ab_readfile_check_fixture(const char *prog, const char *path, size_t *len) {
  struct stat st;
  int fd;
  if (stat(path, &st) != 0) {
    fprintf(stderr, "%s: fixture '%s': %s (run from the project root, or pass --file PATH)\n",
            prog, path, strerror(errno));
    return AB_EXIT_ENV;
  }
  if (S_ISDIR(st.st_mode)) {
    fprintf(stderr, "%s: fixture '%s' is a directory; --file must name a regular file\n",
            prog, path);
    return AB_EXIT_ENV;
  }
  if (!S_ISREG(st.st_mode)) {
    /* Opening a FIFO blocks until a writer comes (the run would hang); a
     * device (/dev/null, /dev/zero) is no file to read whole. */
    fprintf(stderr, "%s: fixture '%s' is a %s; --file must name a regular file\n", prog,
            path, node_kind(st.st_mode));
    return AB_EXIT_ENV;
  }
  fd = open(path, O_RDONLY);
  if (fd < 0) {
    fprintf(stderr, "%s: fixture '%s' is not readable: %s\n", prog, path, strerror(errno));
    return AB_EXIT_ENV;
  }
  close(fd);
  if (len != NULL) *len = (size_t)st.st_size;
  return AB_EXIT_OK;
}

/* One process runs one workload: its state needs no allocation. */
static ab_readfile_t the_state;

static int setup(const ab_opts_t *o, uv_loop_t *loop, void **state) {
  ab_readfile_t *st = &the_state;
  int rc = ab_readfile_check_fixture(o->prog, o->flags[FLAG_FILE], NULL);
  if (rc != AB_EXIT_OK) return rc;
  st->backend = ab_backend_find(o->backend);
  st->loop = loop;
  st->path = o->flags[FLAG_FILE];
  st->expect = o->flags[FLAG_EXPECT];
  st->expect_len = strlen(st->expect);
  /* Every style but sync reads through libuv's threadpool on node4 and
   * fused: started here, so that its threads are not made inside the timed
   * section and a failure to make them is one line and exit 3 rather than
   * libuv's silent abort.  inline and uring never use it. */
  if (o->variant != NULL && strncmp(o->variant, "sync-", 5) != 0 && st->backend->threadpool &&
      (rc = ab_threadpool_start(loop, o->prog)) != 0)
    return rc;
  if (st->backend->loop_init != NULL && (rc = st->backend->loop_init(loop)) != 0) {
    const char *why = st->backend->unavailable ? st->backend->unavailable() : NULL;
    fprintf(stderr, "%s: backend %s is not available: %s%s%s\n", o->prog, st->backend->name,
            why ? why : "", why ? ": " : "", uv_strerror(rc));
    return AB_EXIT_ENV;
  }
  *state = st;
  return AB_EXIT_OK;
}

static void teardown(void *state) {
  const ab_readfile_t *st = state;
  if (st->backend->loop_close != NULL) st->backend->loop_close(st->loop);
}

/* Up to QUOTE_MAX bytes of `s` (n long) for a one-line message: control
 * bytes, backslash and bytes above 0x7e escaped (\n, \t, \r, \\, \xNN), "..."
 * when cut.  A fixture written with `echo` ends in a newline, which would
 * otherwise split the failure line in two. */
#define QUOTE_MAX 40
#define QUOTE_CAP (QUOTE_MAX * 4 + 4)
static const char *quote(char out[QUOTE_CAP], const char *s, size_t n) {
  size_t k, w = 0;
  for (k = 0; k < n && k < QUOTE_MAX; k++) {
    unsigned char c = (unsigned char)s[k];
    if (c == '\n') w += (size_t)sprintf(out + w, "\\n");
    else if (c == '\t') w += (size_t)sprintf(out + w, "\\t");
    else if (c == '\r') w += (size_t)sprintf(out + w, "\\r");
    else if (c == '\\') w += (size_t)sprintf(out + w, "\\\\");
    else if (c < 0x20 || c > 0x7e) w += (size_t)sprintf(out + w, "\\x%02x", c);
    else out[w++] = (char)c;
  }
  if (k < n) w += (size_t)sprintf(out + w, "...");
  out[w] = '\0';
  return out;
}

/* A read's result (an ab_readfile_op_t) is right when its bytes are --expect. */
static int check(ab_run_t *run, long i, const void *result) {
  const ab_readfile_t *st = run->state;
  const ab_read_t *req = &((const ab_readfile_op_t *)result)->req;
  ssize_t nread = req->result;
  if (nread < 0) {
    ab_run_fail(run, i, "read failed: %s (%s)", uv_strerror((int)nread),
                uv_err_name((int)nread));
    return -1;
  }
  if ((size_t)nread != st->expect_len || memcmp(req->buf, st->expect, st->expect_len) != 0) {
    char got[QUOTE_CAP], want[QUOTE_CAP];
    ab_run_fail(run, i, "read %zd bytes '%s', expected %zu bytes '%s'", nread,
                quote(got, req->buf, (size_t)nread), st->expect_len,
                quote(want, st->expect, st->expect_len));
    return -1;
  }
  ab_run_ok(run, (uint64_t)nread);
  return 0;
}

const ab_workload_t ab_readfile = {
  "readfile",
  "read a small file whole and compare it with --expect",
  flags,
  ab_backend_name,
  variants,
  setup,
  check,
  teardown,
  NULL, /* no fields of its own in the line */
  1     /* a read holds its fd from open to close */
};

/* ---- the read as an operation of the mode skeletons ------------------------- */

static void read_done(ab_read_t *req, ssize_t nread) {
  ab_readfile_op_t *r = (ab_readfile_op_t *)((char *)req - offsetof(ab_readfile_op_t, req));
  if (nread >= 0)
    ab_op_done(&r->op, 0, NULL);
  else
    ab_op_done(&r->op, (int)nread, nread == UV_ENOMEM ? "a read buffer" : req->failed_op);
}

static int read_start(ab_op_t *op) {
  ab_readfile_op_t *r = (ab_readfile_op_t *)op;
  const ab_readfile_t *st = op->set->run->state;
  return st->backend->start(op->set->run->loop, &r->req, st->path, read_done);
}

static void read_cleanup(ab_op_t *op) {
  ab_read_cleanup(&((ab_readfile_op_t *)op)->req);
}

const ab_op_type_t ab_readfile_op = {sizeof(ab_readfile_op_t), read_start, read_cleanup};
