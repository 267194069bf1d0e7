/*
 * test_backends.c -- every readfile backend (node4, fused, inline, uring)
 * through the same table: content on both sides of the inline buffer, an
 * empty file, a missing file (open), a directory (read), the open-file limit
 * (EMFILE), many reads in flight at once, a callback never run inside the
 * call that started it (Zalgo), a request reused for one read after another,
 * the threadpool round trips each counts, the blocking form, and uring
 * unavailable (AB_URING_DISABLE=1) or without direct descriptors
 * (AB_URING_NODIRECT=1).  Every test leaves its loop closable.  Where this
 * kernel refuses io_uring, the uring rows are skipped with the reason (the
 * disabled case still runs).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <cmocka.h>

#include "counters.h"
#include "readfile/readfile.h"
#include "read_files.h"
#include "run_child.h"

static files_t files;

static int group_setup(void **state) {
  (void)state;
  return files_make(&files, "backends");
}

static int group_teardown(void **state) {
  (void)state;
  files_remove(&files);
  return 0;
}

/* ---- a loop with a backend prepared on it ----------------------------------- */

static uv_loop_t loop;
static int in_start;        /* set around start(): a callback must not see it */
static int zalgo;           /* callbacks that ran inside start() */

typedef struct {
  int calls;
  ssize_t nread;
  char got[1024];
  const char *failed_op;
} outcome_t;

static void on_read(ab_read_t *req, ssize_t nread) {
  outcome_t *out = req->data;
  if (in_start) zalgo++;
  out->calls++;
  out->nread = nread;
  out->failed_op = req->failed_op;
  if (nread > 0 && (size_t)nread <= sizeof(out->got)) memcpy(out->got, req->buf, (size_t)nread);
}

/* Prepares b on the test's loop; skips the test (after closing the loop) when
 * the backend is unavailable here, saying why. */
static void open_loop(const ab_backend_t *b) {
  int rc;
  assert_int_equal(uv_loop_init(&loop), 0);
  if (b->loop_init != NULL && (rc = b->loop_init(&loop)) != 0) {
    const char *why = b->unavailable ? b->unavailable() : NULL;
    assert_int_equal(uv_loop_close(&loop), 0);
    print_message("      backend %s unavailable here: %s (%s)\n", b->name, why ? why : "?",
                  uv_strerror(rc));
    skip();
  }
}

static void close_loop(const ab_backend_t *b) {
  if (b->loop_close != NULL) b->loop_close(&loop);
  assert_int_equal(uv_run(&loop, UV_RUN_DEFAULT), 0);
  assert_int_equal(uv_loop_close(&loop), 0);
}

static int start(const ab_backend_t *b, ab_read_t *req, const char *path) {
  int rc;
  in_start = 1;
  rc = b->start(&loop, req, path, on_read);
  in_start = 0;
  return rc;
}

/* Reads `path` once through b's async form. */
static outcome_t read_async(const ab_backend_t *b, const char *path) {
  outcome_t out;
  ab_read_t req;
  memset(&out, 0, sizeof(out));
  memset(&req, 0, sizeof(req));
  req.data = &out;
  open_loop(b);
  assert_int_equal(start(b, &req, path), 0);
  assert_int_equal(out.calls, 0); /* never inside start() */
  uv_run(&loop, UV_RUN_DEFAULT);
  close_loop(b);
  ab_read_cleanup(&req);
  assert_int_equal(out.calls, 1);
  return out;
}

/* ---- the tests, each run for every backend ------------------------------------ */

static void reads_the_content(void **state) {
  const ab_backend_t *b = *state;
  outcome_t out = read_async(b, files.small);
  assert_int_equal(out.nread, 12);
  assert_memory_equal(out.got, "Hello, world", 12);
  assert_null(out.failed_op);
}

static void reads_beyond_and_exactly_the_inline_buffer(void **state) {
  const ab_backend_t *b = *state;
  outcome_t out = read_async(b, files.large);
  assert_int_equal(out.nread, 1000);
  assert_memory_equal(out.got, files.large_content, 1000);
  out = read_async(b, files.exact);
  assert_int_equal(out.nread, AB_READ_INLINE);
  assert_memory_equal(out.got, files.large_content, AB_READ_INLINE);
}

static void reads_an_empty_file(void **state) {
  outcome_t out = read_async(*state, files.empty);
  assert_int_equal(out.nread, 0);
  assert_null(out.failed_op);
}

static void reports_a_missing_file_at_open(void **state) {
  outcome_t out = read_async(*state, files.missing);
  assert_int_equal(out.nread, UV_ENOENT);
  assert_string_equal(out.failed_op, "open");
}

static void reports_a_directory_at_read(void **state) {
  outcome_t out = read_async(*state, files.dir);
  assert_int_equal(out.nread, UV_EISDIR);
  assert_string_equal(out.failed_op, "read");
}

/* 1000 reads started at once (more than uring keeps in the kernel), each
 * request its own: all complete, none inside start(), in any order. */
static void many_reads_in_flight_all_complete(void **state) {
  const ab_backend_t *b = *state;
  enum { N = 1000 };
  static ab_read_t reqs[N];
  static outcome_t outs[N];
  int i;
  memset(reqs, 0, sizeof(reqs));
  memset(outs, 0, sizeof(outs));
  zalgo = 0;
  open_loop(b);
  for (i = 0; i < N; i++) {
    reqs[i].data = &outs[i];
    assert_int_equal(start(b, &reqs[i], i % 3 ? files.small : files.large), 0);
  }
  uv_run(&loop, UV_RUN_DEFAULT);
  for (i = 0; i < N; i++) {
    assert_int_equal(outs[i].calls, 1);
    assert_int_equal(outs[i].nread, i % 3 ? 12 : 1000);
    ab_read_cleanup(&reqs[i]);
  }
  assert_int_equal(zalgo, 0);
  close_loop(b);
}

/* A request reused from its own callback: the next read starts inside the
 * callback of the last and still completes on a later turn. */
static ab_read_t chain_req;
static int chain_left, chain_done;
static const ab_backend_t *chain_backend;

static void on_chain(ab_read_t *req, ssize_t nread) {
  assert_int_equal(nread, 12);
  assert_memory_equal(req->buf, "Hello, world", 12);
  if (in_start) zalgo++;
  chain_done++;
  if (--chain_left > 0) {
    in_start = 1;
    assert_int_equal(chain_backend->start(&loop, req, files.small, on_chain), 0);
    in_start = 0;
  }
}

static void a_request_restarted_from_its_callback_completes_later(void **state) {
  chain_backend = *state;
  memset(&chain_req, 0, sizeof(chain_req));
  chain_left = 50;
  chain_done = 0;
  zalgo = 0;
  open_loop(chain_backend);
  in_start = 1;
  assert_int_equal(chain_backend->start(&loop, &chain_req, files.small, on_chain), 0);
  in_start = 0;
  uv_run(&loop, UV_RUN_DEFAULT);
  assert_int_equal(chain_done, 50);
  assert_int_equal(zalgo, 0);
  ab_read_cleanup(&chain_req);
  close_loop(chain_backend);
}

/* One request for one read after another, small and large (its buffer grows
 * and shrinks back), then cleaned up twice: the second cleanup does nothing. */
static void a_request_can_be_reused(void **state) {
  const ab_backend_t *b = *state;
  outcome_t out;
  ab_read_t req;
  int i;
  memset(&req, 0, sizeof(req));
  req.data = &out;
  open_loop(b);
  for (i = 0; i < 4; i++) {
    const char *path = i % 2 ? files.small : files.large;
    memset(&out, 0, sizeof(out));
    assert_int_equal(start(b, &req, path), 0);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(out.calls, 1);
    assert_int_equal(out.nread, i % 2 ? 12 : 1000);
    assert_memory_equal(out.got, i % 2 ? "Hello, world" : files.large_content, (size_t)out.nread);
  }
  ab_read_cleanup(&req);
  ab_read_cleanup(&req);
  close_loop(b);
}

/* The threadpool round trips a read costs, as the JSON line reports them. */
static void counts_its_threadpool_round_trips(void **state) {
  const ab_backend_t *b = *state;
  uint64_t before = ab_counters.threadpool, want;
  want = strcmp(b->name, "node4") == 0 ? 4 : strcmp(b->name, "fused") == 0 ? 1 : 0;
  read_async(b, files.small);
  assert_int_equal(ab_counters.threadpool - before, want);
  assert_int_equal(b->threadpool, want > 0);
}

static void the_blocking_form_reads_like_the_async_one(void **state) {
  const ab_backend_t *b = *state;
  ab_read_t req;
  memset(&req, 0, sizeof(req));
  open_loop(b);
  assert_int_equal(b->read_sync(&req, files.small), 12);
  assert_int_equal(req.result, 12); /* what the check reads */
  assert_memory_equal(req.buf, "Hello, world", 12);
  assert_int_equal(b->read_sync(&req, files.large), 1000);
  assert_memory_equal(req.buf, files.large_content, 1000);
  assert_int_equal(b->read_sync(&req, files.empty), 0);
  assert_int_equal(b->read_sync(&req, files.missing), UV_ENOENT);
  assert_int_equal(req.result, UV_ENOENT); /* what the check reads */
  assert_string_equal(req.failed_op, "open");
  assert_int_equal(b->read_sync(&req, files.dir), UV_EISDIR);
  assert_string_equal(req.failed_op, "read");
  ab_read_cleanup(&req);
  close_loop(b);
}

/* With no file descriptor left (RLIMIT_NOFILE at the fds open now), a read
 * fails at open with EMFILE, cleanly; in a child, as the limit stays.
 * uring's direct descriptors are not process fds: its read succeeds. */
static const ab_backend_t *emfile_backend;
static void emfile_child(void) {
  const ab_backend_t *b = emfile_backend;
  struct rlimit rl;
  outcome_t out;
  ab_read_t req;
  int fd;
  memset(&out, 0, sizeof(out));
  memset(&req, 0, sizeof(req));
  req.data = &out;
  if (uv_loop_init(&loop) != 0 || (b->loop_init && b->loop_init(&loop) != 0)) _exit(77);
  /* Warm the threadpool first: its threads need no fds, but make it before
   * the limit so that nothing else fails. */
  if (b->threadpool) {
    outcome_t w;
    ab_read_t wr;
    memset(&w, 0, sizeof(w));
    memset(&wr, 0, sizeof(wr));
    wr.data = &w;
    b->start(&loop, &wr, files.small, on_read);
    uv_run(&loop, UV_RUN_DEFAULT);
    ab_read_cleanup(&wr);
  }
  fd = dup(0);
  getrlimit(RLIMIT_NOFILE, &rl);
  rl.rlim_cur = (rlim_t)fd; /* fd was the lowest free one: none is left */
  close(fd);
  if (setrlimit(RLIMIT_NOFILE, &rl) != 0) _exit(78);
  if (b->start(&loop, &req, files.small, on_read) != 0) _exit(79);
  uv_run(&loop, UV_RUN_DEFAULT);
  fprintf(stderr, "%d %zd %s\n", out.calls, out.nread, out.failed_op ? out.failed_op : "-");
  if (b->loop_close) b->loop_close(&loop);
  uv_run(&loop, UV_RUN_DEFAULT);
  ab_read_cleanup(&req);
  _exit(uv_loop_close(&loop) == 0 ? 0 : 80);
}

static void runs_out_of_file_descriptors_cleanly(void **state) {
  child_t c;
  char want[64];
  emfile_backend = *state;
  run_in_child(emfile_child, &c);
  if (WIFEXITED(c.status) && WEXITSTATUS(c.status) == 77) skip(); /* uring unavailable */
  assert_true(WIFEXITED(c.status));
  assert_int_equal(WEXITSTATUS(c.status), 0);
  if (strcmp(emfile_backend->name, "uring") == 0 && getenv("AB_URING_NODIRECT") == NULL)
    snprintf(want, sizeof(want), "1 12 -\n");
  else
    snprintf(want, sizeof(want), "1 %d open\n", UV_EMFILE);
  assert_string_equal(c.err, want);
}

/* ---- uring's own cases ---------------------------------------------------------- */

#ifdef __linux__
static void uring_disabled_says_why_and_starts_nothing(void **state) {
  ab_read_t req;
  (void)state;
  setenv("AB_URING_DISABLE", "1", 1);
  assert_int_equal(uv_loop_init(&loop), 0);
  assert_int_equal(ab_backend_uring.loop_init(&loop), UV_ENOSYS);
  assert_non_null(strstr(ab_backend_uring.unavailable(), "AB_URING_DISABLE"));
  memset(&req, 0, sizeof(req));
  assert_int_not_equal(ab_backend_uring.start(&loop, &req, files.small, on_read), 0);
  assert_int_equal(uv_run(&loop, UV_RUN_DEFAULT), 0);
  assert_int_equal(uv_loop_close(&loop), 0);
  unsetenv("AB_URING_DISABLE");
}

/* The fallback without direct descriptors: open alone, then read + close. */
static void uring_without_direct_descriptors_reads_alike(void **state) {
  outcome_t out;
  (void)state;
  setenv("AB_URING_NODIRECT", "1", 1);
  out = read_async(&ab_backend_uring, files.small);
  assert_int_equal(out.nread, 12);
  assert_memory_equal(out.got, "Hello, world", 12);
  out = read_async(&ab_backend_uring, files.large);
  assert_int_equal(out.nread, 1000);
  out = read_async(&ab_backend_uring, files.missing);
  assert_int_equal(out.nread, UV_ENOENT);
  assert_string_equal(out.failed_op, "open");
  out = read_async(&ab_backend_uring, files.dir);
  assert_int_equal(out.nread, UV_EISDIR);
  assert_string_equal(out.failed_op, "read");
  many_reads_in_flight_all_complete(state);
  runs_out_of_file_descriptors_cleanly(state);
  unsetenv("AB_URING_NODIRECT");
}
#endif

static void every_backend_is_in_the_table(void **state) {
  size_t k;
  (void)state;
  assert_ptr_equal(ab_backend_find("node4"), &ab_backend_node4);
  assert_string_equal(ab_backend_name(0), "node4"); /* the default */
  assert_null(ab_backend_find("nope"));
  assert_ptr_equal(ab_backend_find("fused"), &ab_backend_fused);
  assert_ptr_equal(ab_backend_find("inline"), &ab_backend_inline);
#ifdef __linux__
  assert_ptr_equal(ab_backend_find("uring"), &ab_backend_uring);
#else
  assert_null(ab_backend_find("uring"));
#endif
  for (k = 0; ab_backend_name(k) != NULL; k++) assert_non_null(ab_backend_find(ab_backend_name(k)));
}

#define FOR_BACKEND(b)                                                                \
  cmocka_unit_test_prestate(reads_the_content, (void *)&b),                          \
  cmocka_unit_test_prestate(reads_beyond_and_exactly_the_inline_buffer, (void *)&b), \
  cmocka_unit_test_prestate(reads_an_empty_file, (void *)&b),                        \
  cmocka_unit_test_prestate(reports_a_missing_file_at_open, (void *)&b),             \
  cmocka_unit_test_prestate(reports_a_directory_at_read, (void *)&b),                \
  cmocka_unit_test_prestate(many_reads_in_flight_all_complete, (void *)&b),          \
  cmocka_unit_test_prestate(a_request_restarted_from_its_callback_completes_later,   \
                            (void *)&b),                                             \
  cmocka_unit_test_prestate(a_request_can_be_reused, (void *)&b),                    \
  cmocka_unit_test_prestate(counts_its_threadpool_round_trips, (void *)&b),          \
  cmocka_unit_test_prestate(the_blocking_form_reads_like_the_async_one, (void *)&b), \
  cmocka_unit_test_prestate(runs_out_of_file_descriptors_cleanly, (void *)&b)

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(every_backend_is_in_the_table),
    FOR_BACKEND(ab_backend_node4),
    FOR_BACKEND(ab_backend_fused),
    FOR_BACKEND(ab_backend_inline),
#ifdef __linux__
    FOR_BACKEND(ab_backend_uring),
    cmocka_unit_test_prestate(uring_disabled_says_why_and_starts_nothing, (void *)&ab_backend_uring),
    cmocka_unit_test_prestate(uring_without_direct_descriptors_reads_alike,
                              (void *)&ab_backend_uring),
#endif
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
