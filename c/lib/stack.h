/*
 * stack.h -- coroutine stacks: mmap'd, guarded, pooled.
 *
 * A stack is one anonymous mapping laid out, from low to high addresses, as
 *
 *   [ guard page, PROT_NONE ][ usable stack ... ][ ab_stack_t header ]
 *
 * The stack grows down from just below the header towards the guard page.
 * Pages are committed lazily by the kernel on first touch, so a 16 KiB stack
 * whose coroutine only ever uses a few hundred bytes costs one resident page.
 *
 * Overflow: running off the low end touches the guard page and faults.  Once
 * ab_stack_guard_install() has run, a SIGSEGV/SIGBUS handler on an alternate
 * signal stack recognises a fault inside any live stack's guard page, prints
 *
 *   asyncstyles: coroutine stack overflow: fault at 0x... in the guard page
 *   of a 16384-byte stack; raise the size (AB_CORO_STACK_KIB) ...
 *
 * with write(2) and calls abort().  Faults anywhere else are passed on to the
 * handler that was installed before (or the default action), so real bugs and
 * sanitizers still report as usual.  A single frame larger than the guard
 * page could jump over it: the Makefile compiles with -fstack-clash-protection
 * (and a 4 KiB probe interval on AArch64) where the compiler has it, so such
 * frames are probed page by page and hit the guard (test_coro checks a 64 KiB
 * frame).  Code compiled without it (a library a coroutine calls into, a
 * compiler without the flag) is not covered.
 *
 * Stacks are kept on a pool's free list when returned, so the steady state of
 * a benchmark makes no system calls.  Not thread-safe: a pool, like a libuv
 * loop, belongs to one thread; the list of live stacks the signal handler
 * searches is per thread as well.
 */
#ifndef AB_STACK_H
#define AB_STACK_H

#include <stddef.h>

typedef struct ab_stack_s {
  char *lo;                     /* lowest usable byte (just above the guard) */
  char *hi;                     /* one past the highest usable byte */
  char *map;                    /* start of the mapping (the guard page) */
  size_t map_size;              /* size of the whole mapping */
  struct ab_stack_s *next_free; /* pool free list */
  struct ab_stack_s *prev_live; /* every mapped stack of this thread */
  struct ab_stack_s *next_live;
  unsigned valgrind_id;         /* its registration with valgrind, if built in */
  /* For the coroutines (coro.c), which share a stack once there are more of
   * them than stacks: whose frames are on the stack now, how many live
   * coroutines are bound to it, and its place in coro.c's list of them. */
  void *owner;
  size_t users;
  size_t slot;
} ab_stack_t;

typedef struct ab_stack_pool_s {
  size_t size;                  /* bytes per stack, guard page excluded (a page
                                   multiple; the header takes ~64 of them) */
  size_t max_free;              /* stacks kept on the free list at most */
  size_t nfree;
  size_t nlive;                 /* stacks handed out and not yet returned */
  size_t nmapped;               /* stacks mapped so far (mmap + mprotect each) */
  ab_stack_t *free;
} ab_stack_pool_t;

/* Smallest and default stack sizes (guard page excluded). */
#define AB_STACK_MIN (8u * 1024u)
#define AB_STACK_DEFAULT (16u * 1024u)

/* Initialises a pool of stacks of `size` bytes each (rounded up to whole pages,
 * at least AB_STACK_MIN, the header included) that keeps up to `max_free`
 * returned stacks for reuse. */
void ab_stack_pool_init(ab_stack_pool_t *pool, size_t size, size_t max_free);

/* Takes a stack from the free list or maps a new one.  Returns NULL when the
 * mapping fails (errno says why: ENOMEM, or the map count limit). */
ab_stack_t *ab_stack_get(ab_stack_pool_t *pool);

/* Returns a stack to the pool (unmapped when the free list is full). */
void ab_stack_put(ab_stack_pool_t *pool, ab_stack_t *stack);

/* Unmaps every stack on the free list.  Stacks still handed out stay valid. */
void ab_stack_pool_drain(ab_stack_pool_t *pool);

/* Installs, once per thread, the alternate signal stack and the SIGSEGV/SIGBUS
 * handler that reports guard-page hits; the first coroutine of a thread calls
 * it.  Call it again if other code replaced the handler since (it then chains
 * to that code's handler).  Returns 0 or -1 (errno set). */
int ab_stack_guard_install(void);

/* The live stack of this thread whose guard page contains `addr`, or NULL. */
const ab_stack_t *ab_stack_guard_owner(const void *addr);

#endif /* AB_STACK_H */
