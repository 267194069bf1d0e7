/*
 * test_coro.c -- stackful coroutines: the switch keeps every callee-saved
 * register, coroutines nest, 10,000 live at once, 40,000 beyond what the
 * mapping limit allows share stacks (copied, never when few), stacks are pooled and
 * resizable, and misuse (a running coroutine resuming one bound to its own
 * stack among them) or overflow is reported (in forked children).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <errno.h>
#include <fenv.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "coro.h"
#include "run_child.h"

/* ---- basic resume / yield ------------------------------------------- */

static void counter_body(void *arg) {
  int *n = arg;
  for (int i = 0; i < 3; i++) {
    assert_non_null(ab_coro_current());
    (*n)++;
    ab_coro_yield();
  }
  *n += 100;
}

static void test_resume_yield_done(void **state) {
  (void)state;
  int n = 0;
  ab_coro_t *co = ab_coro_create(counter_body, &n);
  assert_non_null(co);
  assert_null(ab_coro_current());
  assert_int_equal(n, 0); /* created, not started */
  for (int i = 1; i <= 3; i++) {
    ab_coro_resume(co);
    assert_int_equal(n, i);
    assert_false(ab_coro_done(co));
    assert_null(ab_coro_current());
  }
  ab_coro_resume(co);
  assert_int_equal(n, 103);
  assert_true(ab_coro_done(co));
  ab_coro_destroy(co);
}

/* ---- nesting: A resumes B; each yield returns to its own resumer ----- */

static char trace[64];
static size_t ntrace;
static void mark(char c) { trace[ntrace++] = c; trace[ntrace] = '\0'; }

static void inner_body(void *arg) {
  ab_coro_t *outer = arg;
  assert_ptr_equal(ab_coro_current()->caller, outer);
  mark('b');
  ab_coro_yield(); /* back to A, not to the thread */
  mark('d');
}

static void outer_body(void *arg) {
  (void)arg;
  ab_coro_t *self = ab_coro_current();
  mark('a');
  ab_coro_t *inner = ab_coro_create(inner_body, self);
  assert_non_null(inner);
  ab_coro_resume(inner);
  assert_ptr_equal(ab_coro_current(), self);
  mark('c');
  ab_coro_yield(); /* back to the thread; inner stays suspended */
  ab_coro_resume(inner);
  assert_true(ab_coro_done(inner));
  ab_coro_destroy(inner);
  mark('e');
}

static void test_nested(void **state) {
  (void)state;
  ntrace = 0;
  ab_coro_t *outer = ab_coro_create(outer_body, NULL);
  assert_non_null(outer);
  ab_coro_resume(outer);
  assert_string_equal(trace, "abc");
  mark('|');
  ab_coro_resume(outer);
  assert_string_equal(trace, "abc|de");
  assert_true(ab_coro_done(outer));
  ab_coro_destroy(outer);
}

/* ---- 10,000 alive at once, each with its own stack contents ---------- */

/* 10,000 alive at once; ThreadSanitizer counts each coroutine as one of its
 * at most 8,128 threads (coro.c makes them TSan fibers), so fewer there. */
#if defined(__SANITIZE_THREAD__)
#define MANY 4000
#else
#define MANY 10000
#endif

static void many_body(void *arg) {
  long id = (long)(intptr_t)arg;
  volatile long local[8]; /* lives on this coroutine's stack across yields */
  for (int i = 0; i < 8; i++)
    local[i] = id * 8 + i;
  ab_coro_yield();
  for (int i = 0; i < 8; i++)
    if (local[i] != id * 8 + i)
      fail_msg("coroutine %ld lost its stack contents", id);
  ab_coro_current()->data = (void *)(intptr_t)(id + 1);
}

static void test_ten_thousand_alive(void **state) {
  (void)state;
  ab_coro_t **all = calloc(MANY, sizeof(*all));
  assert_non_null(all);
  for (long i = 0; i < MANY; i++) {
    all[i] = ab_coro_create(many_body, (void *)(intptr_t)i);
    if (!all[i])
      fail_msg("create %ld: %s", i, strerror(errno));
    ab_coro_resume(all[i]);
  }
  for (long i = MANY - 1; i >= 0; i--) {
    ab_coro_resume(all[i]);
    assert_true(ab_coro_done(all[i]));
    assert_int_equal((intptr_t)all[i]->data, i + 1);
  }
  /* distinct stacks */
  assert_ptr_not_equal(all[0]->stack, all[1]->stack);
  for (long i = 0; i < MANY; i++)
    ab_coro_destroy(all[i]);
  free(all);
  /* the pool hands a returned stack out again */
  ab_coro_t *a = ab_coro_create(many_body, NULL);
  ab_stack_t *sa = a->stack;
  ab_coro_destroy(a);
  ab_coro_t *b = ab_coro_create(many_body, NULL);
  assert_ptr_equal(b->stack, sa);
  ab_coro_destroy(b);
  ab_coro_pool_drain();
}

/* ---- more alive than the system would map stacks for ------------------
 *
 * Linux allows a process vm.max_map_count mappings (65,530 by default) and a
 * stack of its own takes two (the stack, its guard page): 40,000 coroutines
 * suspended at once are past that, so they must share stacks, each keeping
 * its own frames (copied out while another owns the stack).  Up to
 * AB_CORO_SHARED_STACKS alive, nothing is ever copied. */
#if defined(__SANITIZE_THREAD__)
#define BEYOND_MAPS 4000 /* TSan's fiber limit: sharing is tested all the same */
#else
#define BEYOND_MAPS 40000
#endif

static void test_more_alive_than_mappings_allow(void **state) {
  (void)state;
  size_t copies = ab_coro_stack_copies();
  ab_coro_t *few[AB_CORO_SHARED_STACKS];
  for (long i = 0; i < AB_CORO_SHARED_STACKS; i++) {
    few[i] = ab_coro_create(many_body, (void *)(intptr_t)i);
    assert_non_null(few[i]);
    ab_coro_resume(few[i]);
  }
  for (long i = 0; i < AB_CORO_SHARED_STACKS; i++) {
    ab_coro_resume(few[i]);
    assert_true(ab_coro_done(few[i]));
    ab_coro_destroy(few[i]);
  }
  assert_int_equal(ab_coro_stack_copies(), copies); /* a stack each: no copy */

  size_t mapped = ab_coro_stacks_mapped();
  ab_coro_t **all = calloc(BEYOND_MAPS, sizeof(*all));
  assert_non_null(all);
  for (long i = 0; i < BEYOND_MAPS; i++) {
    all[i] = ab_coro_create(many_body, (void *)(intptr_t)i);
    if (!all[i])
      fail_msg("create %ld: %s", i, strerror(errno));
    ab_coro_resume(all[i]);
  }
  assert_true(ab_coro_stacks_mapped() - mapped <= AB_CORO_SHARED_STACKS);
  for (long i = 0; i < BEYOND_MAPS; i++) { /* in creation order, as timers wake */
    ab_coro_resume(all[i]);
    assert_true(ab_coro_done(all[i]));
    assert_int_equal((intptr_t)all[i]->data, i + 1);
    ab_coro_destroy(all[i]);
  }
  assert_true(ab_coro_stack_copies() > copies);
  assert_int_equal(ab_coro_live(), 0);
  free(all);
  ab_coro_pool_drain();
}

/* ---- callee-saved registers survive a raw switch ---------------------
 *
 * clobber_call(fn, a0, a1, seed) loads every callee-saved register (on
 * AArch64 d8-d15 included; on x86_64 the MXCSR and x87 rounding controls
 * too, checked when built with AB_CORO_SAVE_FPENV) with
 * values derived from seed, calls fn(a0, a1) -- here the raw switch itself,
 * so no compiler-generated save/restore can hide a bug -- and returns a bit
 * mask of the registers that came back different (0 = all survived).  Both
 * sides of the switch use it with different seeds, so a register the switch
 * forgot to restore would carry the other side's value. */
uint64_t clobber_call(void (*fn)(void **, void *), void *a0, void *a1, uint64_t seed);
void ab__coro_switch(void **save_sp, void *load_sp);

#if defined(__APPLE__)
#define ASM_NAME(n) "_" n
#else
#define ASM_NAME(n) n
#endif

/* The AArch64 functions below are reached through a pointer (evil_clobber by
 * clobber_call's `blr`) or, in a shared object, through a PLT's `br`: built
 * with BTI (-mbranch-protection=bti or standard) the compiler marks this
 * object as BTI-clean for the whole translation unit, inline assembly
 * included, so each begins with `bti c` (hint #34, a no-op elsewhere) or a
 * BTI-enforcing host stops it with SIGILL.  scripts/test-aarch64.sh runs this
 * file linked with -z force-bti under qemu, which enforces it. */
#if defined(__ARM_FEATURE_BTI_DEFAULT) && __ARM_FEATURE_BTI_DEFAULT
#define BTI_C "hint #34\n"
#else
#define BTI_C ""
#endif

#if defined(__x86_64__) && !defined(AB_CORO_UCONTEXT)
#define HAVE_CLOBBER 1
#if defined(AB_CORO_SAVE_FPENV)
/* the rounding controls are switched too: check they came back */
#define FPENV_CHECK \
  "stmxcsr 16(%rsp)\n movl 16(%rsp), %edx\n andl $0x6000, %edx\n" \
  "movl %ecx, %esi\n andl $3, %esi\n shll $13, %esi\n cmpl %esi, %edx\n je 1f\n orq $64, %rax\n1:\n" \
  "fnstcw 20(%rsp)\n movzwl 20(%rsp), %edx\n andl $0xC00, %edx\n" \
  "movl %ecx, %esi\n andl $3, %esi\n shll $10, %esi\n cmpl %esi, %edx\n je 1f\n orq $128, %rax\n1:\n"
#else
#define FPENV_CHECK ""
#endif
#define CLOBBER_CHECK(reg, magic, bit) \
  "movabsq $" magic ", %rdx\n xorq %rcx, %rdx\n cmpq %rdx, " reg "\n je 1f\n orq $" bit ", %rax\n1:\n"
#define CLOBBER_LOAD(reg, magic) "movabsq $" magic ", " reg "\n xorq %rcx, " reg "\n"
__asm__(".text\n .globl " ASM_NAME("clobber_call") "\n" ASM_NAME("clobber_call") ":\n"
        "pushq %rbp\n pushq %rbx\n pushq %r12\n pushq %r13\n pushq %r14\n pushq %r15\n"
        "subq $24, %rsp\n"
        "stmxcsr 8(%rsp)\n fnstcw 12(%rsp)\n movq %rcx, 0(%rsp)\n"
        "movq %rdi, %rax\n movq %rsi, %rdi\n movq %rdx, %rsi\n"
        /* rounding control from the seed's low two bits */
        "movl %ecx, %edx\n andl $3, %edx\n shll $13, %edx\n orl $0x1F80, %edx\n"
        "movl %edx, 16(%rsp)\n ldmxcsr 16(%rsp)\n"
        "movl %ecx, %edx\n andl $3, %edx\n shll $10, %edx\n orl $0x037F, %edx\n"
        "movw %dx, 20(%rsp)\n fldcw 20(%rsp)\n"
        CLOBBER_LOAD("%rbx", "0x0101010101010101")
        CLOBBER_LOAD("%rbp", "0x0202020202020202")
        CLOBBER_LOAD("%r12", "0x0303030303030303")
        CLOBBER_LOAD("%r13", "0x0404040404040404")
        CLOBBER_LOAD("%r14", "0x0505050505050505")
        CLOBBER_LOAD("%r15", "0x0606060606060606")
        "callq *%rax\n"
        "movq 0(%rsp), %rcx\n xorl %eax, %eax\n"
        CLOBBER_CHECK("%rbx", "0x0101010101010101", "1")
        CLOBBER_CHECK("%rbp", "0x0202020202020202", "2")
        CLOBBER_CHECK("%r12", "0x0303030303030303", "4")
        CLOBBER_CHECK("%r13", "0x0404040404040404", "8")
        CLOBBER_CHECK("%r14", "0x0505050505050505", "16")
        CLOBBER_CHECK("%r15", "0x0606060606060606", "32")
        FPENV_CHECK
        "ldmxcsr 8(%rsp)\n fldcw 12(%rsp)\n"
        "addq $24, %rsp\n"
        "popq %r15\n popq %r14\n popq %r13\n popq %r12\n popq %rbx\n popq %rbp\n ret\n");
#elif defined(__aarch64__) && !defined(AB_CORO_UCONTEXT)
#define HAVE_CLOBBER 1
/* x19..x29 get seed+19..seed+29 (bits 0-10), d8..d15 get the bit patterns
 * seed*3+8..seed*3+15 (bits 11-18). */
#define CL_X(n) "add x" #n ", x3, #" #n "\n"
#define CK_X(n, bit) "add x10, x3, #" #n "\n cmp x" #n ", x10\n b.eq 1f\n orr x0, x0, #" bit "\n1:\n"
#define CL_D(n) "add x10, x11, #" #n "\n fmov d" #n ", x10\n"
#define CK_D(n, bit) "add x10, x11, #" #n "\n fmov x12, d" #n "\n cmp x12, x10\n b.eq 1f\n orr x0, x0, #" bit "\n1:\n"
__asm__(".text\n .globl " ASM_NAME("clobber_call") "\n .p2align 2\n" ASM_NAME("clobber_call") ":\n"
        BTI_C
        "sub sp, sp, #176\n"
        "stp x19, x20, [sp, #0]\n stp x21, x22, [sp, #16]\n stp x23, x24, [sp, #32]\n"
        "stp x25, x26, [sp, #48]\n stp x27, x28, [sp, #64]\n stp x29, x30, [sp, #80]\n"
        "stp d8, d9, [sp, #96]\n stp d10, d11, [sp, #112]\n stp d12, d13, [sp, #128]\n"
        "stp d14, d15, [sp, #144]\n str x3, [sp, #160]\n"
        "mov x9, x0\n mov x0, x1\n mov x1, x2\n"
        "add x11, x3, x3, lsl #1\n"
        CL_X(19) CL_X(20) CL_X(21) CL_X(22) CL_X(23) CL_X(24) CL_X(25) CL_X(26)
        CL_X(27) CL_X(28) CL_X(29)
        CL_D(8) CL_D(9) CL_D(10) CL_D(11) CL_D(12) CL_D(13) CL_D(14) CL_D(15)
        "blr x9\n"
        "ldr x3, [sp, #160]\n add x11, x3, x3, lsl #1\n mov x0, #0\n"
        CK_X(19, "0x1") CK_X(20, "0x2") CK_X(21, "0x4") CK_X(22, "0x8")
        CK_X(23, "0x10") CK_X(24, "0x20") CK_X(25, "0x40") CK_X(26, "0x80")
        CK_X(27, "0x100") CK_X(28, "0x200") CK_X(29, "0x400")
        CK_D(8, "0x800") CK_D(9, "0x1000") CK_D(10, "0x2000") CK_D(11, "0x4000")
        CK_D(12, "0x8000") CK_D(13, "0x10000") CK_D(14, "0x20000") CK_D(15, "0x40000")
        "ldp x19, x20, [sp, #0]\n ldp x21, x22, [sp, #16]\n ldp x23, x24, [sp, #32]\n"
        "ldp x25, x26, [sp, #48]\n ldp x27, x28, [sp, #64]\n ldp x29, x30, [sp, #80]\n"
        "ldp d8, d9, [sp, #96]\n ldp d10, d11, [sp, #112]\n ldp d12, d13, [sp, #128]\n"
        "ldp d14, d15, [sp, #144]\n add sp, sp, #176\n ret\n");
#endif

/* The raw switches below bypass the ASan fiber annotations of ab_coro_resume
 * and ab_coro_yield, which ASan rejects; the assembly under test is the same
 * in sanitizer builds, so those run the rest. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#undef HAVE_CLOBBER
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#undef HAVE_CLOBBER
#endif

#if defined(HAVE_CLOBBER)
#define ROUNDS 50

static uint64_t coro_side_bad;

static void clobber_body(void *arg) {
  ab_coro_t *co = arg;
  /* Each round: load seed A, switch to the thread, check A came back. */
  for (uint64_t k = 0; k < ROUNDS; k++)
    coro_side_bad |= clobber_call(ab__coro_switch, &co->sp, co->caller_sp,
                                  0xC0C0000000000000ull + k * 0x10001ull + 1);
}

static void test_callee_saved_survive(void **state) {
  (void)state;
  coro_side_bad = 0;
  ab_coro_t *co = ab_coro_create(NULL, NULL);
  assert_non_null(co);
  co->fn = clobber_body;
  co->arg = co;
  ab_coro_resume(co); /* runs to its first raw switch back here */
  uint64_t thread_side_bad = 0;
  for (uint64_t k = 0; k < ROUNDS; k++)
    thread_side_bad |= clobber_call(ab__coro_switch, &co->caller_sp, co->sp,
                                    0x7E7E000000000000ull + k * 0x3003ull + 2);
  /* The last switch in let the body leave its loop and return, and the
   * finished coroutine switched back into that last call. */
  assert_true(ab_coro_done(co));
  ab_coro_destroy(co);
  assert_int_equal(thread_side_bad, 0);
  assert_int_equal(coro_side_bad, 0);
}

/* A switch that forgot a register would be caught: prove the checker sees a
 * clobber, by calling a function that changes r12/x19 behind its back. */
#if defined(__x86_64__)
void evil_clobber(void **a, void *b);
__asm__(".text\n .globl " ASM_NAME("evil_clobber") "\n" ASM_NAME("evil_clobber") ":\n"
        "xorq %r12, %r12\n ret\n");
#define EVIL_BIT 4
#else
void evil_clobber(void **a, void *b);
__asm__(".text\n .globl " ASM_NAME("evil_clobber") "\n .p2align 2\n" ASM_NAME("evil_clobber") ":\n"
        BTI_C "mov x19, #0\n ret\n");
#define EVIL_BIT 1
#endif

static void test_checker_catches_a_clobber(void **state) {
  (void)state;
  assert_int_equal(clobber_call(evil_clobber, NULL, NULL, 42), EVIL_BIT);
}
#endif

/* ---- the floating-point environment ---------------------------------- */

static void rounding_body(void *arg) {
  int *seen = arg;
  fesetround(FE_UPWARD);
  ab_coro_yield();
  *seen = fegetround();
}

static void test_rounding_mode(void **state) {
  (void)state;
  int seen = -1;
  fesetround(FE_TONEAREST);
  ab_coro_t *co = ab_coro_create(rounding_body, &seen);
  ab_coro_resume(co);
#if (defined(__x86_64__) && defined(AB_CORO_SAVE_FPENV)) || defined(AB_CORO_UCONTEXT)
  /* Built ABI-strict (or on glibc's swapcontext, which switches the whole
   * FP environment): each context keeps its own rounding mode. */
  assert_int_equal(fegetround(), FE_TONEAREST);
  ab_coro_resume(co);
  assert_int_equal(seen, FE_UPWARD);
#else
  /* By default (on AArch64: FPCR) the rounding mode is thread-wide state,
   * as coro.h documents: the coroutine's change is seen here. */
  assert_int_equal(fegetround(), FE_UPWARD);
  fesetround(FE_TONEAREST);
  ab_coro_resume(co);
  assert_int_equal(seen, FE_TONEAREST);
#endif
  fesetround(FE_TONEAREST);
  ab_coro_destroy(co);
}

/* ---- stack size ------------------------------------------------------ */

static void deep_body(void *arg) {
  volatile char big[40 * 1024];
  memset((char *)big, 7, sizeof(big));
  *(int *)arg = big[sizeof(big) - 1] + big[0];
}

/* The kernel's page size: 4 KiB on most x86_64 and Linux aarch64 hosts, 16 KiB
 * on Apple silicon, 64 KiB on some aarch64 kernels (qemu-aarch64 -p 65536). */
static size_t page_size(void) {
  long p = sysconf(_SC_PAGESIZE);
  assert_true(p > 0);
  return (size_t)p;
}

static void test_stack_size(void **state) {
  (void)state;
  size_t old = ab_coro_stack_size();
  assert_int_equal(old % page_size(), 0);
  ab_coro_set_stack_size(64 * 1024);
  assert_true(ab_coro_stack_size() >= 64 * 1024);
  int out = 0;
  ab_coro_t *co = ab_coro_create(deep_body, &out);
  assert_true((size_t)(co->stack->hi - co->stack->lo) >= 64 * 1024 - 512);
  ab_coro_resume(co);
  assert_int_equal(out, 14);
  ab_coro_destroy(co);
  ab_coro_set_stack_size(old);
  assert_int_equal(ab_coro_stack_size(), old);
}

/* ---- misuse and overflow, each in a forked child --------------------- */

static int recurse(int n) {
  volatile char pad[256];
  pad[0] = (char)n;
  return n > 0 ? recurse(n - 1) + pad[0] : 0;
}

static void overflow_body(void *arg) {
  (void)arg;
  recurse(1 << 20); /* ~256 MB of frames: far past any coroutine stack */
}

static void child_overflow(void) {
  /* cmocka installed its own SIGSEGV handler around each test */
  assert_int_equal(ab_stack_guard_install(), 0);
  ab_coro_t *co = ab_coro_create(overflow_body, NULL);
  ab_coro_resume(co);
}

static void test_guard_page_hit_reported(void **state) {
  (void)state;
  child_t c;
  run_in_child(child_overflow, &c);
  assert_true(WIFSIGNALED(c.status));
  assert_int_equal(WTERMSIG(c.status), SIGABRT);
  assert_non_null(strstr(c.err, "coroutine stack overflow"));
  /* The default 16 KiB, rounded up to whole pages: one 64 KiB page where
   * pages are that large. */
  size_t page = page_size();
  size_t size = (AB_STACK_DEFAULT + page - 1) / page * page;
  char want[64];
  snprintf(want, sizeof(want), "guard page of a %zu-byte stack", size);
  assert_non_null(strstr(c.err, want));
}

/* One frame larger than the guard page: its lowest byte lies 64 KiB below the
 * stack pointer, far under the 4 KiB guard of a 16 KiB stack (with 64 KiB
 * pages, stack and guard are one page each, and the frame still reaches
 * past the guard).  Unprobed, the
 * write lands past the guard (another mapping: silent corruption, or a fault
 * that is not reported as an overflow); built with -fstack-clash-protection
 * (the Makefile's default where the compiler has it) the frame is touched
 * page by page, so the guard page is hit first and the overflow reported. */
/* The index is read from a volatile so that the compiler keeps the whole
 * array: with big[0] alone clang keeps one byte of it, and no large frame. */
static volatile int frame_index;

static __attribute__((noinline)) int big_frame(int n) {
  volatile char big[64 * 1024];
  big[frame_index] = (char)n;
  return big[0];
}

static void big_frame_body(void *arg) {
  (void)arg;
  big_frame(1);
}

static void child_big_frame(void) {
  assert_int_equal(ab_stack_guard_install(), 0);
  ab_coro_t *co = ab_coro_create(big_frame_body, NULL);
  ab_coro_resume(co);
}

/* Whether large frames are probed is the compiler's doing, not the
 * runtime's: gcc and clang 17+ with -fstack-clash-protection (the Makefile
 * passes it where the compiler takes it), Apple clang on arm64 by default,
 * but neither upstream LLVM clang on macOS (Homebrew's llvm) nor clang
 * before 17 on aarch64 Linux.  So it is asked, in a child: a frame of 1 MiB
 * (more than any page) is entered on a coroutine stack that has one
 * inaccessible page 128 KiB below the frame's top.  Probed, the frame
 * touches every page on its way down and faults there; unprobed, it writes
 * only near its bottom, far below the page, and returns. */
#define PROBE_FRAME (1024 * 1024)
static __attribute__((noinline)) int probe_frame(int n) {
  volatile char big[PROBE_FRAME];
  big[frame_index] = (char)n;
  return big[0];
}

static void probe_body(void *arg) {
  (void)arg;
  size_t page = page_size();
  volatile char top = 1;
  uintptr_t hole = ((uintptr_t)&top - 128 * 1024) / page * page - page;
  if (mprotect((void *)hole, page, PROT_NONE) != 0) _exit(3);
  probe_frame(top);
}

static void child_probe(void) {
  signal(SIGSEGV, SIG_DFL); /* no handler of cmocka's or the runtime's */
  signal(SIGBUS, SIG_DFL);  /* macOS: a protection fault is SIGBUS */
  ab_coro_set_stack_size(PROBE_FRAME + 512 * 1024);
  ab_coro_t *co = ab_coro_create(probe_body, NULL);
  ab_coro_resume(co);
}

/* 1 when this build probes large frames page by page, 0 when it does not. */
static int frames_are_probed(void) {
  child_t c;
  run_in_child(child_probe, &c);
  if (WIFSIGNALED(c.status) && (WTERMSIG(c.status) == SIGSEGV || WTERMSIG(c.status) == SIGBUS))
    return 1;
  /* The probe ran to its end: anything else is a broken probe. */
  assert_true(WIFEXITED(c.status));
  assert_int_equal(WEXITSTATUS(c.status), 0);
  return 0;
}

static void test_frame_larger_than_the_guard_reported(void **state) {
  (void)state;
  if (!frames_are_probed()) {
#if defined(AB_STACK_CLASH_FLAGS) && defined(__GNUC__) && !defined(__clang__)
    /* gcc acts on the flag on every target it takes it for: a broken build. */
    fail_msg("built with %s, yet a 1 MiB frame is not probed page by page", AB_STACK_CLASH_FLAGS);
#elif defined(AB_STACK_CLASH_FLAGS)
    fprintf(stderr, "this compiler (%s) takes %s but does not probe frames larger than a page "
                    "(clang before 17 on AArch64): a frame larger than a coroutine's guard "
                    "page is not reported\n", __VERSION__, AB_STACK_CLASH_FLAGS);
    skip();
#else
    fprintf(stderr, "this compiler (%s) does not probe frames larger than a page, and no "
                    "-fstack-clash-protection was found for it: a frame larger than a "
                    "coroutine's guard page is not reported\n", __VERSION__);
    skip();
#endif
  }
  child_t c;
  run_in_child(child_big_frame, &c);
  assert_true(WIFSIGNALED(c.status));
  assert_int_equal(WTERMSIG(c.status), SIGABRT);
  assert_non_null(strstr(c.err, "coroutine stack overflow"));
}

static void child_segv_elsewhere(void) {
  signal(SIGSEGV, SIG_DFL); /* replace cmocka's handler: ours chains to this */
  assert_int_equal(ab_stack_guard_install(), 0);
  volatile uintptr_t addr = 16;
  *(volatile int *)addr = 1;
}

static void test_other_faults_pass_through(void **state) {
  (void)state;
  child_t c;
  run_in_child(child_segv_elsewhere, &c);
  assert_true(WIFSIGNALED(c.status));
  assert_int_equal(WTERMSIG(c.status), SIGSEGV);
  assert_null(strstr(c.err, "coroutine stack overflow"));
}

static void child_yield_outside(void) { ab_coro_yield(); }

static void test_yield_outside_aborts(void **state) {
  (void)state;
  child_t c;
  run_in_child(child_yield_outside, &c);
  assert_true(WIFSIGNALED(c.status));
  assert_int_equal(WTERMSIG(c.status), SIGABRT);
  assert_non_null(strstr(c.err, "ab_coro_yield: not inside a coroutine"));
}

static void noop_body(void *arg) { (void)arg; }

static void child_resume_done(void) {
  ab_coro_t *co = ab_coro_create(noop_body, NULL);
  ab_coro_resume(co);
  ab_coro_resume(co);
}

static void test_resume_done_aborts(void **state) {
  (void)state;
  child_t c;
  run_in_child(child_resume_done, &c);
  assert_true(WIFSIGNALED(c.status));
  assert_non_null(strstr(c.err, "the coroutine has finished"));
}

/* A running coroutine that resumes one bound to its own stack: the frames
 * of both would be in the same place.  Every stack in use carries a
 * suspended coroutine, the next one shares one of their stacks, and the
 * coroutine it shares with, resumed, resumes it. */
static ab_coro_t *same_stack;

static void resumes_same_stack(void *arg) {
  (void)arg;
  ab_coro_yield();
  ab_coro_resume(same_stack);
}

static void child_resume_same_stack(void) {
  static ab_coro_t *all[AB_CORO_SHARED_STACKS];
  for (int i = 0; i < AB_CORO_SHARED_STACKS; i++) {
    all[i] = ab_coro_create(resumes_same_stack, NULL);
    ab_coro_resume(all[i]);
  }
  same_stack = ab_coro_create(noop_body, NULL);
  for (int i = 0; i < AB_CORO_SHARED_STACKS; i++)
    if (all[i]->stack == same_stack->stack)
      ab_coro_resume(all[i]); /* aborts */
  fprintf(stderr, "no coroutine shares the new one's stack\n");
  exit(1);
}

static void test_resume_onto_a_running_stack_aborts(void **state) {
  (void)state;
  child_t c;
  run_in_child(child_resume_same_stack, &c);
  assert_true(WIFSIGNALED(c.status));
  assert_int_equal(WTERMSIG(c.status), SIGABRT);
  assert_non_null(strstr(c.err, "its stack is in use by a running coroutine"));
}

static void test_backend_named(void **state) {
  (void)state;
#if defined(AB_CORO_UCONTEXT)
  assert_string_equal(ab_coro_backend(), "ucontext");
#elif defined(__x86_64__)
  assert_string_equal(ab_coro_backend(), "asm-x86_64");
#elif defined(__aarch64__)
  assert_string_equal(ab_coro_backend(), "asm-aarch64");
#endif
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_resume_yield_done),
      cmocka_unit_test(test_nested),
      cmocka_unit_test(test_ten_thousand_alive),
#if defined(HAVE_CLOBBER)
      cmocka_unit_test(test_callee_saved_survive),
      cmocka_unit_test(test_checker_catches_a_clobber),
#endif
      cmocka_unit_test(test_rounding_mode),
      cmocka_unit_test(test_more_alive_than_mappings_allow),
      cmocka_unit_test(test_stack_size),
      cmocka_unit_test(test_guard_page_hit_reported),
      cmocka_unit_test(test_frame_larger_than_the_guard_reported),
      cmocka_unit_test(test_other_faults_pass_through),
      cmocka_unit_test(test_yield_outside_aborts),
      cmocka_unit_test(test_resume_done_aborts),
      cmocka_unit_test(test_resume_onto_a_running_stack_aborts),
      cmocka_unit_test(test_backend_named),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
