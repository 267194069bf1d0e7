/*
 * stack.c -- guarded, lazily committed, pooled coroutine stacks (see stack.h).
 */
#include "stack.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Valgrind tells a stack switch from a large frame by how far the stack
 * pointer jumps (more than 2 MB by default).  Coroutine stacks are mapped
 * next to each other, closer than that, so a coroutine resumed from another
 * coroutine's stack (an async function awaiting another) would look to it
 * like a huge frame and every access an error.  A stack registered with it
 * is known as one.  Outside valgrind the requests are a few no-op
 * instructions; without its header they are left out. */
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define AB__VG_REGISTER(s) ((s)->valgrind_id = VALGRIND_STACK_REGISTER((s)->lo, (s)->hi))
#define AB__VG_DEREGISTER(s) VALGRIND_STACK_DEREGISTER((s)->valgrind_id)
#endif
#endif
#ifndef AB__VG_REGISTER
#define AB__VG_REGISTER(s) ((s)->valgrind_id = 0)
#define AB__VG_DEREGISTER(s) ((void)(s))
#endif

#ifndef MAP_ANONYMOUS
#define MAP_ANONYMOUS MAP_ANON
#endif
#ifndef MAP_NORESERVE
#define MAP_NORESERVE 0
#endif

/* Every mapped stack of this thread (handed out or pooled), for the handler. */
static _Thread_local ab_stack_t *ab__live;
static _Thread_local int ab__altstack_done;

static struct sigaction ab__old_segv;
static struct sigaction ab__old_bus;

static size_t ab__page_size(void) {
  static size_t page;
  if (page == 0) {
    long p = sysconf(_SC_PAGESIZE);
    page = p > 0 ? (size_t)p : 4096;
  }
  return page;
}

static size_t ab__round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

void ab_stack_pool_init(ab_stack_pool_t *pool, size_t size, size_t max_free) {
  if (size < AB_STACK_MIN)
    size = AB_STACK_MIN;
  memset(pool, 0, sizeof(*pool));
  pool->size = ab__round_up(size, ab__page_size());
  pool->max_free = max_free;
}

/* The guard page and the stack (a page multiple; its header at the top). */
static size_t ab__map_size(size_t size) { return ab__page_size() + size; }

static ab_stack_t *ab__stack_map(size_t usable) {
  size_t page = ab__page_size();
  size_t map_size = ab__map_size(usable);
  char *map = mmap(NULL, map_size, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (map == MAP_FAILED)
    return NULL;
  if (mprotect(map, page, PROT_NONE) != 0) {
    int e = errno;
    munmap(map, map_size);
    errno = e;
    return NULL;
  }
  ab_stack_t *s = (ab_stack_t *)(map + map_size - sizeof(ab_stack_t));
  s->map = map;
  s->map_size = map_size;
  s->lo = map + page;
  /* keep the top 16-byte aligned, as both ABIs want */
  s->hi = (char *)((uintptr_t)s & ~(uintptr_t)15);
  AB__VG_REGISTER(s);
  s->next_free = NULL;
  s->owner = NULL;
  s->users = 0;
  s->slot = 0;
  s->prev_live = NULL;
  s->next_live = ab__live;
  if (ab__live)
    ab__live->prev_live = s;
  ab__live = s;
  return s;
}

static void ab__stack_unmap(ab_stack_t *s) {
  if (s->prev_live)
    s->prev_live->next_live = s->next_live;
  else
    ab__live = s->next_live;
  if (s->next_live)
    s->next_live->prev_live = s->prev_live;
  AB__VG_DEREGISTER(s);
  munmap(s->map, s->map_size);
}

ab_stack_t *ab_stack_get(ab_stack_pool_t *pool) {
  ab_stack_t *s = pool->free;
  if (s) {
    pool->free = s->next_free;
    pool->nfree--;
  } else {
    s = ab__stack_map(pool->size);
    if (!s)
      return NULL;
    pool->nmapped++;
  }
  pool->nlive++;
  return s;
}

void ab_stack_put(ab_stack_pool_t *pool, ab_stack_t *s) {
  pool->nlive--;
  /* A stack of another size (the pool was resized) is not reused. */
  if (pool->nfree >= pool->max_free || s->map_size != ab__map_size(pool->size)) {
    ab__stack_unmap(s);
    return;
  }
  s->next_free = pool->free;
  pool->free = s;
  pool->nfree++;
}

void ab_stack_pool_drain(ab_stack_pool_t *pool) {
  while (pool->free) {
    ab_stack_t *s = pool->free;
    pool->free = s->next_free;
    ab__stack_unmap(s);
  }
  pool->nfree = 0;
}

const ab_stack_t *ab_stack_guard_owner(const void *addr) {
  const char *a = addr;
  for (const ab_stack_t *s = ab__live; s; s = s->next_live)
    if (a >= s->map && a < s->lo)
      return s;
  return NULL;
}

/* Async-signal-safe formatting: only write(2) and our own digits. */
static size_t ab__fmt_hex(char *out, uintptr_t v) {
  char tmp[2 * sizeof(v)];
  size_t n = 0;
  do {
    tmp[n++] = "0123456789abcdef"[v & 15];
    v >>= 4;
  } while (v);
  out[0] = '0';
  out[1] = 'x';
  for (size_t i = 0; i < n; i++)
    out[2 + i] = tmp[n - 1 - i];
  return n + 2;
}

static size_t ab__fmt_dec(char *out, size_t v) {
  char tmp[24];
  size_t n = 0;
  do {
    tmp[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  for (size_t i = 0; i < n; i++)
    out[i] = tmp[n - 1 - i];
  return n;
}

static size_t ab__put(char *out, const char *s) {
  size_t n = strlen(s);
  memcpy(out, s, n);
  return n;
}

static void ab__guard_handler(int sig, siginfo_t *info, void *uctx) {
  const ab_stack_t *s = ab_stack_guard_owner(info->si_addr);
  if (s) {
    char msg[256];
    size_t n = 0;
    n += ab__put(msg + n, "asyncstyles: coroutine stack overflow: fault at ");
    n += ab__fmt_hex(msg + n, (uintptr_t)info->si_addr);
    n += ab__put(msg + n, " in the guard page of a ");
    n += ab__fmt_dec(msg + n, s->map_size - (size_t)(s->lo - s->map));
    n += ab__put(msg + n, "-byte stack; raise the size (AB_CORO_STACK_KIB or "
                          "ab_coro_set_stack_size) or recurse less\n");
    ssize_t w = write(STDERR_FILENO, msg, n);
    (void)w;
    abort();
  }
  /* Not ours: hand the fault to whoever handled it before us. */
  struct sigaction *old = sig == SIGSEGV ? &ab__old_segv : &ab__old_bus;
  if (old->sa_flags & SA_SIGINFO) {
    old->sa_sigaction(sig, info, uctx);
  } else if (old->sa_handler == SIG_DFL || old->sa_handler == SIG_IGN) {
    /* Restore the default; returning re-executes the faulting access. */
    signal(sig, SIG_DFL);
  } else {
    old->sa_handler(sig);
  }
}

int ab_stack_guard_install(void) {
  if (!ab__altstack_done) {
    stack_t cur;
    if (sigaltstack(NULL, &cur) != 0)
      return -1;
    if (cur.ss_flags & SS_DISABLE) {
      /* The handler needs a stack of its own: the faulting one is full. */
      size_t size = 64 * 1024;
      void *mem = mmap(NULL, size, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (mem == MAP_FAILED)
        return -1;
      stack_t alt;
      memset(&alt, 0, sizeof(alt));
      alt.ss_sp = mem;
      alt.ss_size = size;
      if (sigaltstack(&alt, NULL) != 0) {
        int e = errno;
        munmap(mem, size);
        errno = e;
        return -1;
      }
    }
    ab__altstack_done = 1;
  }
  /* (Re)install when the handler in place is not ours: a test framework or
   * a sanitizer may have replaced it since; theirs becomes the one we chain to. */
  struct sigaction cur;
  if (sigaction(SIGSEGV, NULL, &cur) != 0)
    return -1;
  if (!(cur.sa_flags & SA_SIGINFO) || cur.sa_sigaction != ab__guard_handler) {
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = ab__guard_handler;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSEGV, &sa, &ab__old_segv) != 0 ||
        sigaction(SIGBUS, &sa, &ab__old_bus) != 0)
      return -1;
  }
  return 0;
}
