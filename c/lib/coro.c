/*
 * coro.c -- stackful coroutines on pooled stacks (see coro.h).
 */
#include "coro.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#if !defined(AB_CORO_UCONTEXT) && defined(__aarch64__)
/* The return address of a new coroutine's first switch.  Built with return
 * address signing (-mbranch-protection=pac-ret or standard), the switch
 * authenticates it with the sp it has when it returns, the stack's 16-byte
 * aligned top, so it is signed here with that modifier: pacia1716 (or
 * pacib1716 for the B key) signs x17 with x16, hint-space encodings that are
 * no-ops on a core without pointer authentication, as the switch's are. */
static uint64_t ab__coro_boot_lr(uintptr_t top) {
  uint64_t lr = (uint64_t)(uintptr_t)ab__coro_boot;
#if defined(__ARM_FEATURE_PAC_DEFAULT) && (__ARM_FEATURE_PAC_DEFAULT & 3)
  register uint64_t x17 __asm__("x17") = lr;
  register uint64_t x16 __asm__("x16") = (uint64_t)top;
#if __ARM_FEATURE_PAC_DEFAULT & 1
  __asm__("hint #8" : "+r"(x17) : "r"(x16)); /* pacia1716 */
#else
  __asm__("hint #10" : "+r"(x17) : "r"(x16)); /* pacib1716 */
#endif
  lr = x17;
#else
  (void)top;
#endif
  return lr;
}
#endif

_Thread_local ab__coro_tls_t ab__coro;
static _Thread_local ab_stack_pool_t ab__pool;
static _Thread_local int ab__pool_ready;

/* The stacks coro.c took from the pool, each at its `slot` of ab__stacks;
 * those no coroutine is bound to (users == 0) are also on the idle list,
 * linked through next_free, so that a new coroutine takes one in a few
 * instructions; the round-robin cursor picks a shared one when none is idle. */
static _Thread_local ab_stack_t **ab__stacks;
static _Thread_local size_t ab__nstacks, ab__stacks_cap, ab__cursor;

/* Coroutine records: a free list linked through `data`, refilled in slabs. */
#define AB__CORO_SLAB 64
typedef union ab__coro_slab_u {
  union ab__coro_slab_u *next;
  max_align_t align;
} ab__coro_slab_t;
static _Thread_local ab__coro_slab_t *ab__coro_slabs;
static _Thread_local size_t ab__copies;

/* Copies of stack frames.  ASan keeps the redzones of a stack's frames in
 * its shadow; frames copied out or in are not the frames the shadow then
 * describes, so both ranges are unpoisoned first (no false reports; the
 * copied frames lose their redzones).  Memcheck marks the part of a stack
 * below its pointer unaddressable, and frames copied back may reach below
 * where the last owner's stack pointer was: the range is made addressable
 * (undefined) before the copy gives it the saved frames' definedness. */
#if defined(AB__ASAN)
#include <sanitizer/asan_interface.h>
#define AB__SAVE_OPEN(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#define AB__RESTORE_OPEN(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#elif defined(__has_include)
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define AB__RESTORE_OPEN(p, n) VALGRIND_MAKE_MEM_UNDEFINED((p), (n))
#endif
#endif
#ifndef AB__SAVE_OPEN
#define AB__SAVE_OPEN(p, n) ((void)(p), (void)(n))
#endif
#ifndef AB__RESTORE_OPEN
#define AB__RESTORE_OPEN(p, n) ((void)(p), (void)(n))
#endif

void ab__coro_die(const char *what) {
  fprintf(stderr, "%s\n", what);
  abort();
}

static ab_stack_pool_t *ab__default_pool(void) {
  if (!ab__pool_ready) {
    size_t size = AB_STACK_DEFAULT;
    const char *env = getenv("AB_CORO_STACK_KIB");
    if (env && *env) {
      char *end;
      unsigned long kib = strtoul(env, &end, 10);
      if (*end == '\0' && kib > 0 && kib < (1ul << 22))
        size = (size_t)kib * 1024;
      else
        fprintf(stderr, "AB_CORO_STACK_KIB=%s is not a size in KiB; using %u\n",
                env, AB_STACK_DEFAULT / 1024);
    }
    ab_stack_pool_init(&ab__pool, size, SIZE_MAX);
    ab__pool_ready = 1;
    if (ab_stack_guard_install() != 0)
      perror("ab_coro: cannot install the stack-overflow handler");
  }
  return &ab__pool;
}

static void ab__stacks_release(void);

const char *ab_coro_backend(void) { return AB_CORO_BACKEND_NAME; }

size_t ab_coro_live(void) { return ab__coro.nlive; }

size_t ab_coro_stack_copies(void) { return ab__copies; }

size_t ab_coro_stack_size(void) { return ab__default_pool()->size; }

void ab_coro_set_stack_size(size_t size) {
  ab_stack_pool_t *pool = ab__default_pool();
  ab__stacks_release();
  size_t live = pool->nlive, mapped = pool->nmapped;
  ab_stack_pool_drain(pool);
  ab_stack_pool_init(pool, size, SIZE_MAX);
  pool->nmapped = mapped;
  /* Stacks still in use come back to the new pool; only the size differs,
   * and a stack's own header records its real extent. */
  pool->nlive = live;
}

/* Gives the idle stacks back to the pool. */
static void ab__stacks_release(void) {
  ab_stack_pool_t *pool = ab__default_pool();
  while (ab__coro.idle) {
    ab_stack_t *s = ab__coro.idle;
    ab__coro.idle = s->next_free;
    ab_stack_t *last = ab__stacks[--ab__nstacks];
    ab__stacks[s->slot] = last;
    last->slot = s->slot;
    ab_stack_put(pool, s);
  }
  ab__cursor = 0;
}

void ab_coro_pool_drain(void) {
  ab__stacks_release();
  ab_stack_pool_drain(ab__default_pool());
  if (ab__coro.nlive == 0) {
    while (ab__coro_slabs) {
      ab__coro_slab_t *s = ab__coro_slabs;
      ab__coro_slabs = s->next;
      free(s);
    }
    ab__coro.free = NULL;
    free(ab__stacks);
    ab__stacks = NULL;
    ab__stacks_cap = ab__nstacks = 0;
  }
}

/* Reads the count without making the pool (no guard handler installed): the
 * harness asks it of every pass, coroutines or not. */
size_t ab_coro_stacks_mapped(void) { return ab__pool_ready ? ab__pool.nmapped : 0; }

/* ---- records ------------------------------------------------------------- */

static inline ab_coro_t *ab__coro_alloc(void) {
  if (ab__coro.free == NULL) {
    ab__coro_slab_t *s = malloc(sizeof(*s) + AB__CORO_SLAB * sizeof(ab_coro_t));
    if (s == NULL) {
      errno = ENOMEM;
      return NULL;
    }
    s->next = ab__coro_slabs;
    ab__coro_slabs = s;
    ab_coro_t *rec = (ab_coro_t *)(s + 1);
    for (size_t i = AB__CORO_SLAB; i-- > 0;) {
      rec[i].saved = NULL;
      rec[i].saved_cap = 0;
      rec[i].data = ab__coro.free;
      ab__coro.free = &rec[i];
    }
  }
  ab_coro_t *co = ab__coro.free;
  ab__coro.free = co->data;
  ab__coro.nlive++;
  return co;
}

static inline void ab__coro_free(ab_coro_t *co) {
  if (co->saved != NULL) {
    free(co->saved);
    co->saved = NULL; /* as every free record has it */
    co->saved_cap = 0;
  }
  co->data = ab__coro.free;
  ab__coro.free = co;
  ab__coro.nlive--;
}

/* ---- binding coroutines to stacks ----------------------------------------- */

/* A stack for a new coroutine: an idle one, else a new one of the pool while
 * fewer than AB_CORO_SHARED_STACKS are taken, else the next one round-robin
 * whose owner is not running (its frames are in use), else a new one after
 * all (every stack carries a running coroutine: a deep nest).  NULL when no
 * stack could be mapped (errno set). */
static ab_stack_t *ab__stack_bind(void) {
  ab_stack_t *s = ab__coro.idle;
  if (s != NULL) {
    ab__coro.idle = s->next_free;
    s->users = 1;
    return s;
  }
#if !defined(AB_CORO_UCONTEXT)
  if (ab__nstacks >= AB_CORO_SHARED_STACKS) {
    for (size_t k = 0; k < ab__nstacks; k++) {
      s = ab__stacks[ab__cursor];
      ab__cursor = ab__cursor + 1 == ab__nstacks ? 0 : ab__cursor + 1;
      ab_coro_t *o = s->owner;
      if (o == NULL || o->state != AB__CORO_RUNNING) {
        s->users++;
        return s;
      }
    }
  }
#endif
  if (ab__nstacks == ab__stacks_cap) {
    size_t cap = ab__stacks_cap ? 2 * ab__stacks_cap : AB_CORO_SHARED_STACKS;
    ab_stack_t **b = realloc(ab__stacks, cap * sizeof(*b));
    if (b == NULL) {
      errno = ENOMEM;
      return NULL;
    }
    ab__stacks = b;
    ab__stacks_cap = cap;
  }
  if ((s = ab_stack_get(ab__default_pool())) == NULL)
    return NULL;
  s->owner = NULL;
  s->users = 1;
  s->slot = ab__nstacks;
  ab__stacks[ab__nstacks++] = s;
  return s;
}

/* One coroutine less on s; the last one leaves it idle. */
static inline void ab__stack_unbind(ab_stack_t *s) {
  if (--s->users != 0)
    return;
  s->next_free = ab__coro.idle;
  ab__coro.idle = s;
}

#if !defined(AB_CORO_UCONTEXT)
/* Copies the owner of co's stack out (unless it has finished: its frames are
 * dead), and co's saved frames back in, so co owns the stack. */
void ab__coro_take_stack(ab_coro_t *co) {
  ab_stack_t *s = co->stack;
  ab_coro_t *o = s->owner;
  if (o != NULL && o->state != AB__CORO_DONE) {
    if (o->state == AB__CORO_RUNNING)
      ab__coro_die("ab_coro_resume: its stack is in use by a running coroutine");
    size_t n = (size_t)(s->hi - (char *)o->sp);
    if (n > o->saved_cap) {
      size_t cap = (n + 15) & ~(size_t)15;
      char *buf = realloc(o->saved, cap);
      if (buf == NULL)
        ab__coro_die("ab_coro: out of memory saving a coroutine's stack");
      o->saved = buf;
      o->saved_cap = cap;
    }
    if (n != 0) { /* 0: an owner made but not started (paired: no frame yet) */
      AB__SAVE_OPEN(o->sp, n);
      memcpy(o->saved, o->sp, n);
      ab__copies++;
    }
  }
  size_t n = (size_t)(s->hi - (char *)co->sp);
  if (n != 0) {
    AB__RESTORE_OPEN(co->sp, n);
    memcpy(co->sp, co->saved, n);
    ab__copies++;
  }
  s->owner = co;
}
#else
void ab__coro_take_stack(ab_coro_t *co) { co->stack->owner = co; }
#endif

/* The first code a coroutine started at ab__coro_boot runs, on its own
 * stack.  It never returns (ab__coro_end). */
void ab__coro_entry(ab_coro_t *co) {
  ab__coro_begin(co);
  co->fn(co->arg);
  ab__coro_end(co);
}

void ab__coro_late(ab_coro_t *co, int code) {
  (void)code;
  ab__coro_end(co);
}

#if defined(AB__CORO_PAIRED)
#if defined(AB__ASAN) || defined(AB__TSAN)
/* Under a sanitizer the new stack is announced on it before fn runs. */
int ab__coro_first_plain(ab_coro_t *co) {
  ab__coro_begin(co);
  co->fn(co->arg);
  return 0;
}
#endif

void ab__coro_start_plain(ab_coro_t *co) {
  ab__coro_enter(co);
  int code;
#if defined(AB__ASAN) || defined(AB__TSAN)
  ab__coro_start(co, (ab__coro_call_fn)ab__coro_first_plain, co, NULL, ab__coro_late, &code);
#else
  ab__coro_start(co, (ab__coro_call_fn)co->fn, co->arg, NULL, ab__coro_late, &code);
#endif
}
#endif

#if defined(AB_CORO_UCONTEXT)
static void ab__coro_entry_uc(unsigned hi, unsigned lo) {
  ab__coro_entry((ab_coro_t *)(((uintptr_t)hi << 16 << 16) | (uintptr_t)lo));
}
#endif

/* The frame a new coroutine's first switch loads, at the top of its stack;
 * the stack must be co's to write (ucontext: any). */
static int ab__coro_frame(ab_coro_t *co, ab__coro_entry_fn entry) {
  ab_stack_t *stack = co->stack;
  uintptr_t top = (uintptr_t)stack->hi; /* 16-byte aligned (stack.c) */
#if defined(AB_CORO_UCONTEXT)
  (void)entry; /* ab__coro_entry always: it calls co->fn, which may not return */
  if (getcontext(&co->ctx) != 0)
    return -1;
  co->ctx.uc_stack.ss_sp = stack->lo;
  co->ctx.uc_stack.ss_size = (size_t)((char *)top - stack->lo);
  co->ctx.uc_link = NULL;
  makecontext(&co->ctx, (void (*)(void))ab__coro_entry_uc, 2,
              (unsigned)((uintptr_t)co >> 16 >> 16), (unsigned)(uintptr_t)co);
#elif defined(AB__CORO_PAIRED)
  /* The frame a raw switch resumes (coro_switch_x86_64.S; ab__coro_boot_frame
   * only: a coroutine is otherwise started by a call, coro.h): ab__coro_boot
   * with rbp = the coroutine, then the C entry, which boot jumps to with rsp
   * at the null return address above it (the 16-byte aligned top - 8). */
  uint64_t *f = (uint64_t *)top - 4;
  f[0] = (uint64_t)(uintptr_t)ab__coro_boot; /* resume address */
  f[1] = (uint64_t)(uintptr_t)co;         /* rbp */
  f[2] = (uint64_t)(uintptr_t)entry;
  f[3] = 0;
  co->sp = f;
#elif defined(__x86_64__)
  /* The frame ab__coro_switch pops (see coro_switch_x86_64.S); its return
   * address sits 8 bytes below the 16-byte aligned top. */
  uint64_t *f = (uint64_t *)top - 8;
  uint32_t mxcsr;
  uint16_t fpcw;
  __asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
  __asm__ volatile("fnstcw %0" : "=m"(fpcw));
  *f++ = (uint64_t)mxcsr | ((uint64_t)fpcw << 32);
  f[0] = 0;                               /* r15 */
  f[1] = 0;                               /* r14 */
  f[2] = (uint64_t)(uintptr_t)entry;     /* r13 */
  f[3] = (uint64_t)(uintptr_t)co;         /* r12 */
  f[4] = 0;                               /* rbx */
  f[5] = 0;                               /* rbp */
  f[6] = (uint64_t)(uintptr_t)ab__coro_boot; /* return address */
  co->sp = f - 1;
#else
  /* The frame ab__coro_switch reloads (see coro_switch_aarch64.S). */
  uint64_t *f = (uint64_t *)top - 20;
  for (int i = 0; i < 20; i++)
    f[i] = 0;
  f[0] = (uint64_t)(uintptr_t)co;         /* x19 */
  f[1] = (uint64_t)(uintptr_t)entry;     /* x20 */
  f[10] = 0;                              /* x29 */
  f[11] = ab__coro_boot_lr(top);          /* x30 */
  co->sp = f;
#endif
  return 0;
}

void ab__coro_boot_frame(ab_coro_t *co) {
#if defined(AB__CORO_PAIRED)
  ab__coro_frame(co, ab__coro_entry);
#else
  (void)co; /* written by ab__coro_create */
#endif
}

ab_coro_t *ab__coro_create(ab_coro_fn fn, void *arg, ab__coro_entry_fn entry) {
  ab_coro_t *co = ab__coro_alloc();
  if (!co)
    return NULL;
  ab_stack_t *stack = ab__stack_bind();
  if (!stack) {
    ab__coro.nlive--;
    co->data = ab__coro.free;
    ab__coro.free = co;
    return NULL;
  }
  co->data = NULL;
  co->fn = fn;
  co->arg = arg;
  co->caller = NULL;
  co->stack = stack;
  co->state = AB__CORO_READY;
  co->yielded = 0;
  co->saved = NULL;
  co->saved_cap = 0;
#if defined(AB__ASAN)
  co->asan_fake = NULL;
  co->caller_bottom = NULL;
  co->caller_size = 0;
#endif
#if defined(AB__TSAN)
  co->tsan_fiber = __tsan_create_fiber(0);
  co->tsan_caller = NULL;
#endif
  /* A shared stack's owner keeps its frames: they are saved before the new
   * frame is written over them (the owner is never running: see bind). */
  ab_coro_t *o = stack->owner;
  if (o != NULL && o->state != AB__CORO_DONE) {
    co->sp = stack->hi; /* nothing of co's to put back */
    ab__coro_take_stack(co);
  }
  stack->owner = co;
#if defined(AB__CORO_PAIRED)
  (void)entry; /* started by a call from the starter (coro.h) */
  co->sp = stack->hi;
#else
  if (ab__coro_frame(co, entry) != 0) {
    ab__coro_destroy(co);
    return NULL;
  }
#endif
  return co;
}

void ab__coro_destroy(ab_coro_t *co) {
  if (co->state != AB__CORO_DONE && co->state != AB__CORO_READY)
    ab__coro_die("ab_coro_destroy: the coroutine is suspended or running");
#if defined(AB__TSAN)
  __tsan_destroy_fiber(co->tsan_fiber);
#endif
  ab_stack_t *s = co->stack;
  if (s->owner == co)
    s->owner = NULL;
  ab__stack_unbind(s);
  ab__coro_free(co);
}
