/*
 * test_readfile.c -- the readfile backends, async and blocking forms: content,
 * sizes on both sides of the inline buffer, empty files, and the error paths
 * (missing file, a directory), each leaving the loop closable.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "readfile/readfile.h"

typedef struct {
  char dir[64];
  char small[128];   /* "Hello, world" */
  char large[128];   /* 1000 bytes, larger than the inline buffer */
  char empty[128];
  char missing[128];
  char large_content[1000];
} files_t;

static void write_file(const char *path, const char *buf, size_t len) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(buf, 1, len, f), len);
  assert_int_equal(fclose(f), 0);
}

static int setup(void **state) {
  files_t *t = calloc(1, sizeof(*t));
  size_t i;
  if (t == NULL) return -1;
  strcpy(t->dir, "/tmp/ab-test-readfile-XXXXXX");
  if (mkdtemp(t->dir) == NULL) return -1;
  snprintf(t->small, sizeof(t->small), "%s/small.txt", t->dir);
  snprintf(t->large, sizeof(t->large), "%s/large.txt", t->dir);
  snprintf(t->empty, sizeof(t->empty), "%s/empty.txt", t->dir);
  snprintf(t->missing, sizeof(t->missing), "%s/missing.txt", t->dir);
  for (i = 0; i < sizeof(t->large_content); i++) t->large_content[i] = (char)('a' + i % 26);
  write_file(t->small, "Hello, world", 12);
  write_file(t->large, t->large_content, sizeof(t->large_content));
  write_file(t->empty, "", 0);
  *state = t;
  return 0;
}

static int teardown(void **state) {
  files_t *t = *state;
  unlink(t->small);
  unlink(t->large);
  unlink(t->empty);
  rmdir(t->dir);
  free(t);
  return 0;
}

typedef struct {
  int calls;
  ssize_t nread;
  char got[1024];
  const char *failed_op;
} outcome_t;

static void on_read(ab_read_t *req, ssize_t nread) {
  outcome_t *out = req->data;
  out->calls++;
  out->nread = nread;
  out->failed_op = req->failed_op;
  if (nread > 0) memcpy(out->got, req->buf, (size_t)nread);
}

/* Reads `path` once through the backend's async form on a fresh loop. */
static outcome_t read_async(const char *path) {
  outcome_t out;
  uv_loop_t loop;
  ab_read_t req;
  memset(&out, 0, sizeof(out));
  memset(&req, 0, sizeof(req));
  req.data = &out;
  assert_int_equal(uv_loop_init(&loop), 0);
  assert_int_equal(ab_backend_node4.start(&loop, &req, path, on_read), 0);
  assert_int_equal(uv_run(&loop, UV_RUN_DEFAULT), 0);
  assert_int_equal(uv_loop_close(&loop), 0);
  ab_read_cleanup(&req);
  assert_int_equal(out.calls, 1);
  return out;
}

static void backends_are_found_by_name(void **state) {
  (void)state;
  assert_ptr_equal(ab_backend_find("node4"), &ab_backend_node4);
  assert_null(ab_backend_find("nope"));
  assert_non_null(strstr(ab_backend_names(), "node4"));
}

static void async_reads_the_content(void **state) {
  files_t *t = *state;
  outcome_t out = read_async(t->small);
  assert_int_equal(out.nread, 12);
  assert_memory_equal(out.got, "Hello, world", 12);
  assert_null(out.failed_op);
}

static void async_reads_beyond_the_inline_buffer(void **state) {
  files_t *t = *state;
  outcome_t out = read_async(t->large);
  assert_int_equal(out.nread, 1000);
  assert_memory_equal(out.got, t->large_content, 1000);
}

static void async_reads_an_empty_file(void **state) {
  files_t *t = *state;
  outcome_t out = read_async(t->empty);
  assert_int_equal(out.nread, 0);
}

static void async_reports_a_missing_file_at_open(void **state) {
  files_t *t = *state;
  outcome_t out = read_async(t->missing);
  assert_int_equal(out.nread, UV_ENOENT);
  assert_string_equal(out.failed_op, "open");
}

static void async_reports_a_directory_at_read(void **state) {
  files_t *t = *state;
  outcome_t out = read_async(t->dir);
  assert_int_equal(out.nread, UV_EISDIR);
  assert_string_equal(out.failed_op, "read");
}

static void a_request_can_be_reused(void **state) {
  files_t *t = *state;
  outcome_t out;
  uv_loop_t loop;
  ab_read_t req;
  int i;
  memset(&req, 0, sizeof(req));
  req.data = &out;
  assert_int_equal(uv_loop_init(&loop), 0);
  for (i = 0; i < 4; i++) {
    const char *path = i % 2 ? t->small : t->large;
    memset(&out, 0, sizeof(out));
    assert_int_equal(ab_backend_node4.start(&loop, &req, path, on_read), 0);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(out.nread, i % 2 ? 12 : 1000);
  }
  ab_read_cleanup(&req);
  ab_read_cleanup(&req); /* twice is safe */
  assert_int_equal(uv_loop_close(&loop), 0);
}

static void sync_reads_like_async(void **state) {
  files_t *t = *state;
  ab_read_t req;
  memset(&req, 0, sizeof(req));
  assert_int_equal(ab_backend_node4.read_sync(&req, t->small), 12);
  assert_memory_equal(req.buf, "Hello, world", 12);
  assert_int_equal(ab_backend_node4.read_sync(&req, t->large), 1000);
  assert_memory_equal(req.buf, t->large_content, 1000);
  assert_int_equal(ab_backend_node4.read_sync(&req, t->empty), 0);
  assert_int_equal(ab_backend_node4.read_sync(&req, t->missing), UV_ENOENT);
  assert_string_equal(req.failed_op, "open");
  assert_int_equal(ab_backend_node4.read_sync(&req, t->dir), UV_EISDIR);
  assert_string_equal(req.failed_op, "read");
  ab_read_cleanup(&req);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(backends_are_found_by_name),
    cmocka_unit_test(async_reads_the_content),
    cmocka_unit_test(async_reads_beyond_the_inline_buffer),
    cmocka_unit_test(async_reads_an_empty_file),
    cmocka_unit_test(async_reports_a_missing_file_at_open),
    cmocka_unit_test(async_reports_a_directory_at_read),
    cmocka_unit_test(a_request_can_be_reused),
    cmocka_unit_test(sync_reads_like_async),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
