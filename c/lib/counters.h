/*
 * counters.h -- what a pass costs beside time, counted where it happens: the
 * threadpool round trips a backend starts, the heap allocations libuv and the
 * runtime make, and the objects taken from the promise pools.
 *
 * The harness (harness.c) takes a copy before and after the timed pass and
 * writes the differences into the JSON line (threadpool_trips, allocs,
 * pool_gets), so the report can divide them by N.  Heap allocations are
 * counted through libuv's allocator hook, which ab_main installs before the
 * loop exists (uv_replace_allocator: every
 * malloc, calloc and realloc libuv makes, e.g. the path copy of a uv_fs_open)
 * and by the callers that allocate per operation in this code base (a pool's
 * new slab, a read buffer); a plain malloc elsewhere is not seen.
 *
 * The loop's thread increments them; only the allocator hook, which libuv
 * may call from a threadpool thread, counts atomically, and its counter has a
 * cache line of its own: the loop thread's plain increments (a pool_get per
 * promise) never share a line with a threadpool thread's atomic add.
 */
#ifndef AB_COUNTERS_H
#define AB_COUNTERS_H

#include <stdint.h>

typedef struct ab_counters_s {
  uint64_t threadpool;   /* threadpool requests started (uv_fs_*, uv_queue_work) */
  uint64_t pool_gets;    /* objects taken from the promise core's pools */
  _Alignas(64) uint64_t allocs; /* heap allocations (malloc, calloc, realloc) counted */
} ab_counters_t;

extern ab_counters_t ab_counters;

/* Counts one heap allocation: atomic (relaxed), as libuv may allocate on a
 * threadpool thread and fused's read buffers are made there. */
#define AB_COUNT_ALLOC() __atomic_fetch_add(&ab_counters.allocs, 1, __ATOMIC_RELAXED)


#endif /* AB_COUNTERS_H */
