/*
 * main_probe.c -- build/bin/c-readfile-probe BACKEND: exits 0 when BACKEND can
 * be prepared on a libuv loop here, else 3 with one line saying why (the
 * runner's probe: io_uring missing from the kernel or the build, refused by
 * seccomp, or AB_URING_DISABLE=1 set); 2 for an unknown backend.
 */
#include <stdio.h>

#include "harness.h"
#include "readfile.h"

int main(int argc, char **argv) {
  const ab_backend_t *b = argc == 2 ? ab_backend_find(argv[1]) : NULL;
  uv_loop_t loop;
  int rc;
  if (b == NULL) {
    fprintf(stderr, "usage: %s BACKEND (one of:", argv[0]);
    for (size_t k = 0; ab_backend_name(k) != NULL; k++) fprintf(stderr, " %s", ab_backend_name(k));
    fprintf(stderr, ")\n");
    return 2;
  }
  if (ab_loop_fds_check(argv[0]) != AB_EXIT_OK) return 3;
  if ((rc = uv_loop_init(&loop)) != 0) {
    fprintf(stderr, "%s: uv_loop_init: %s\n", argv[0], uv_strerror(rc));
    return 3;
  }
  if (b->loop_init != NULL && (rc = b->loop_init(&loop)) != 0) {
    const char *why = b->unavailable ? b->unavailable() : NULL;
    fprintf(stderr, "backend %s is not available: %s%s%s\n", b->name, why ? why : "",
            why ? ": " : "", uv_strerror(rc));
    uv_loop_close(&loop);
    return 3;
  }
  if (b->loop_close != NULL) b->loop_close(&loop);
  uv_run(&loop, UV_RUN_DEFAULT);
  return uv_loop_close(&loop) == 0 ? 0 : 3;
}
