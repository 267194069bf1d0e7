/*
 * counters.c -- the process's ab_counters and libuv's counting allocator
 * (counters.h).
 */
#include "counters.h"

#include <stdlib.h>
#include <uv.h>

ab_counters_t ab_counters;

/* libuv may allocate on a threadpool thread too (a uv_fs_* of many buffers,
 * a scandir): the allocator's count is atomic, relaxed. */
#define COUNT() __atomic_fetch_add(&ab_counters.allocs, 1, __ATOMIC_RELAXED)

static void *count_malloc(size_t size) {
  COUNT();
  return malloc(size);
}

static void *count_realloc(void *p, size_t size) {
  COUNT();
  return realloc(p, size);
}

static void *count_calloc(size_t n, size_t size) {
  COUNT();
  return calloc(n, size);
}

int ab_counters_install(void) {
  return uv_replace_allocator(count_malloc, count_realloc, count_calloc, free);
}
