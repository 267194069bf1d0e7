/*
 * coro.c -- stackful coroutines on pooled stacks (see coro.h).
 */
#include "coro.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#if !defined(AB_CORO_UCONTEXT)
void ab__coro_boot(void);
#endif

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

_Thread_local ab_coro_t *ab__coro_current;
static _Thread_local ab_stack_pool_t ab__pool;
static _Thread_local int ab__pool_ready;

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

const char *ab_coro_backend(void) { return AB_CORO_BACKEND_NAME; }

size_t ab_coro_live(void) { return ab__default_pool()->nlive; }

size_t ab_coro_stack_size(void) { return ab__default_pool()->size; }

void ab_coro_set_stack_size(size_t size) {
  ab_stack_pool_t *pool = ab__default_pool();
  size_t live = pool->nlive, mapped = pool->nmapped;
  ab_stack_pool_drain(pool);
  ab_stack_pool_init(pool, size, SIZE_MAX);
  pool->nmapped = mapped;
  /* Stacks still in use come back to the new pool; only the size differs,
   * and a stack's own header records its real extent. */
  pool->nlive = live;
}

void ab_coro_pool_drain(void) { ab_stack_pool_drain(ab__default_pool()); }

int ab_coro_reserve(size_t n) { return ab_stack_pool_reserve(ab__default_pool(), n); }

size_t ab_coro_stacks_mapped(void) { return ab__default_pool()->nmapped; }

/* The first code a coroutine runs, on its own stack. */
static void ab__coro_entry(ab_coro_t *co) {
  AB__ASAN_FINISH(NULL, &co->caller_bottom, &co->caller_size);
  co->fn(co->arg);
  co->state = AB__CORO_DONE;
  /* A null fake-stack pointer tells ASan this stack is finished. */
  AB__ASAN_START(NULL, co->caller_bottom, co->caller_size);
  AB__TSAN_SWITCH(co->tsan_caller);
#if defined(AB_CORO_UCONTEXT)
  setcontext(&co->caller_ctx);
#else
  ab__coro_switch(&co->sp, co->caller_sp);
#endif
  ab__coro_die("ab_coro: a finished coroutine was resumed");
}

#if defined(AB_CORO_UCONTEXT)
static void ab__coro_entry_uc(unsigned hi, unsigned lo) {
  ab__coro_entry((ab_coro_t *)(((uintptr_t)hi << 16 << 16) | (uintptr_t)lo));
}
#endif

ab_coro_t *ab_coro_create(ab_coro_fn fn, void *arg) {
  ab_stack_pool_t *pool = ab__default_pool();
  ab_stack_t *stack = ab_stack_get(pool);
  if (!stack)
    return NULL;
  /* The record sits at the top of its own stack, 16-byte aligned. */
  uintptr_t top = ((uintptr_t)stack->hi - sizeof(ab_coro_t)) & ~(uintptr_t)15;
  ab_coro_t *co = (ab_coro_t *)top;
  co->data = NULL;
  co->fn = fn;
  co->arg = arg;
  co->caller = NULL;
  co->stack = stack;
  co->pool = pool;
  co->state = AB__CORO_READY;
  co->asan_fake = NULL;
  co->caller_bottom = NULL;
  co->caller_size = 0;
#if defined(AB__TSAN)
  co->tsan_fiber = __tsan_create_fiber(0);
  co->tsan_caller = NULL;
#endif
#if defined(AB_CORO_UCONTEXT)
  if (getcontext(&co->ctx) != 0) {
    ab_stack_put(pool, stack);
    return NULL;
  }
  co->ctx.uc_stack.ss_sp = stack->lo;
  co->ctx.uc_stack.ss_size = (size_t)((char *)top - stack->lo);
  co->ctx.uc_link = NULL;
  makecontext(&co->ctx, (void (*)(void))ab__coro_entry_uc, 2,
              (unsigned)((uintptr_t)co >> 16 >> 16), (unsigned)(uintptr_t)co);
#elif defined(__x86_64__)
  /* The frame ab__coro_switch pops (see coro_switch_x86_64.S); its return
   * address sits 8 bytes below the 16-byte aligned top. */
#if defined(AB_CORO_SAVE_FPENV)
  uint64_t *f = (uint64_t *)top - 8;
  uint32_t mxcsr;
  uint16_t fpcw;
  __asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
  __asm__ volatile("fnstcw %0" : "=m"(fpcw));
  *f++ = (uint64_t)mxcsr | ((uint64_t)fpcw << 32);
#else
  uint64_t *f = (uint64_t *)top - 7;
#endif
  f[0] = 0;                               /* r15 */
  f[1] = 0;                               /* r14 */
  f[2] = (uint64_t)(uintptr_t)ab__coro_entry; /* r13 */
  f[3] = (uint64_t)(uintptr_t)co;         /* r12 */
  f[4] = 0;                               /* rbx */
  f[5] = 0;                               /* rbp */
  f[6] = (uint64_t)(uintptr_t)ab__coro_boot; /* return address */
#if defined(AB_CORO_SAVE_FPENV)
  co->sp = f - 1;
#else
  co->sp = f;
#endif
#else
  /* The frame ab__coro_switch reloads (see coro_switch_aarch64.S). */
  uint64_t *f = (uint64_t *)top - 20;
  for (int i = 0; i < 20; i++)
    f[i] = 0;
  f[0] = (uint64_t)(uintptr_t)co;         /* x19 */
  f[1] = (uint64_t)(uintptr_t)ab__coro_entry; /* x20 */
  f[10] = 0;                              /* x29 */
  f[11] = ab__coro_boot_lr(top);          /* x30 */
  co->sp = f;
#endif
  return co;
}

void ab_coro_destroy(ab_coro_t *co) {
  if (co->state != AB__CORO_DONE && co->state != AB__CORO_READY)
    ab__coro_die("ab_coro_destroy: the coroutine is suspended or running");
#if defined(AB__TSAN)
  __tsan_destroy_fiber(co->tsan_fiber);
#endif
  ab_stack_put(co->pool, co->stack);
}
