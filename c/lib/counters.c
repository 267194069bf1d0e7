/*
 * counters.c -- the process's ab_counters and libuv's counting allocator
 * (counters.h).
 */
#include "counters.h"

#include <stdlib.h>
#include <uv.h>

ab_counters_t ab_counters;


static void *count_malloc(size_t size) {
  AB_COUNT_ALLOC();
  return malloc(size);
}

static void *count_realloc(void *p, size_t size) {
  AB_COUNT_ALLOC();
  return realloc(p, size);
}

static void *count_calloc(size_t n, size_t size) {
  AB_COUNT_ALLOC();
  return calloc(n, size);
}

int ab_counters_install(void) {
  return uv_replace_allocator(count_malloc, count_realloc, count_calloc, free);
}
