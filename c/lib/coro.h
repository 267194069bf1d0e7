/*
 * coro.h -- stackful asymmetric coroutines with a small assembly switch.
 *
 * A coroutine runs a function on a stack of its own.  ab_coro_resume() switches
 * from the running context (the thread, or another coroutine: they nest) into
 * a coroutine; ab_coro_yield() switches back to whoever resumed it; when the
 * function returns the coroutine is done and control returns to the resumer.
 *
 * The switch (coro_switch_<arch>.S) saves only what the ABI makes
 * callee-saved, on the stack being left, and keeps one pointer per context:
 *
 *   x86_64 SysV  rbx, rbp, r12-r15, rsp.  No xmm register is callee-saved.
 *                The ABI also calls the MXCSR control bits and the x87 control
 *                word callee-saved; by default they are NOT switched but are
 *                thread-wide state: a coroutine that changes the rounding mode
 *                or exception masks (fesetround, feenableexcept) changes them
 *                for every context of the thread, as if it had called a
 *                function that did so.  Nothing in this suite touches them,
 *                and saving them (stmxcsr + fnstcw) costs ~4 ns a switch on
 *                AMD EPYC, nearly three times the ~2.3 ns of the switch
 *                without them.  The switch ends with an indirect jump, not a
 *                ret, which the CPU would mispredict every time (see the
 *                .S file).  resume and yield inline it (AB__CORO_JUMP below):
 *                the context left is two words [resume address, rbp] below
 *                the 128-byte red zone, the compiler keeps the rest itself,
 *                and no call is made whose return would happen in the other
 *                context.  Resume/yield fell from ~2.9 to ~1.1 ns one way,
 *                an await of a settled promise from ~25 to ~8 ns (thread CPU
 *                time, AMD EPYC, make micro).  Build with
 *                -DAB_CORO_SAVE_FPENV (in CFLAGS) to switch them per
 *                coroutine, ABI-strict; a new coroutine then starts with its
 *                creator's values.
 *   AArch64      x19-x29, x30 (lr), sp, d8-d15 (the low halves of v8-v15, all
 *                AAPCS64 requires).  x18 is never touched (the platform
 *                register on Apple).  FPCR is left as thread-wide state,
 *                the same choice Boost.Context makes: writing it can serialise.
 *                The switch ends with `ret` (BTI forbids the x86_64 trick
 *                there; -DAB_CORO_AARCH64_BR builds it for a measurement), and
 *                honours -mbranch-protection: landing pads, the return
 *                addresses it keeps on coroutine stacks signed (see the .S file).
 *
 * Elsewhere the build falls back to ucontext (glibc's swapcontext makes a
 * sigprocmask system call per switch: far slower); define AB_CORO_UCONTEXT
 * to force it.
 * ab_coro_backend() names the one compiled in, for the result's runtime field.
 *
 * Stacks: copied stacks, shared once there are many coroutines (as libaco's
 * share stacks).  A coroutine is bound for life to one stack from a
 * per-thread pool (stack.h: mmap'd, lazily committed, with a guard page
 * whose hit is reported as "coroutine stack overflow" and aborts).  While
 * the pool has fewer than AB_CORO_SHARED_STACKS stacks in use, every new
 * coroutine gets a stack of its own, and a switch copies nothing.  Beyond
 * that, new coroutines are bound round-robin to the stacks in use; the
 * frames on a stack are those of its current owner, and resuming another
 * coroutine bound to it first copies the owner's used part (from its saved
 * stack pointer to the top: a few hundred bytes for a coroutine suspended
 * in an await) to a heap buffer of the owner's, then copies the resumed
 * one's back.  So a million suspended coroutines cost a million saved
 * stacks of a few hundred bytes each (on x86_64 the red zone below the
 * saved stack pointer, 128 bytes, is part of it), plus at most
 * AB_CORO_SHARED_STACKS stacks, and two mappings per stack (the stack and its
 * guard), far below Linux's vm.max_map_count (tasks at N = 1,000,000: about
 * 710 bytes per suspended async function, 410 per fiber, records
 * included).  The coroutine's record comes from a free list of its own
 * (slabs), so creating one allocates nothing in steady state.
 * Default usable stack size 16 KiB; the environment variable
 * AB_CORO_STACK_KIB or ab_coro_set_stack_size() changes it.
 *
 * Caveats of the shared stacks:
 *   - A pointer into a suspended coroutine's stack (the address of one of
 *     its locals) is valid only while that coroutine owns its stack, that
 *     is, for sure only while it runs: memory that other code reads or
 *     writes while the coroutine is suspended (a libuv request, a buffer
 *     an I/O completion fills) belongs on the heap or in a record, never on
 *     the coroutine's stack.  Everything in this suite is written so.
 *   - A running coroutine cannot resume one bound to its own stack (its
 *     frames are in use there): that aborts with "ab_coro_resume: its stack
 *     is in use by a running coroutine".  A new coroutine is never bound to
 *     a running coroutine's stack, and every resumption from the thread's
 *     own stack (a libuv callback, the microtask queue) is safe, so this
 *     needs a coroutine that resumes another one which is not new while
 *     more than AB_CORO_SHARED_STACKS coroutines are alive.
 *
 * AddressSanitizer: every switch is announced with
 * __sanitizer_start_switch_fiber / __sanitizer_finish_switch_fiber when built
 * with -fsanitize=address, so ASan knows which stack is current (no false
 * stack-buffer-overflow reports, and fake stacks of detect_stack_use_after_return
 * follow the fiber).  Under ThreadSanitizer each coroutine is a TSan fiber
 * (__tsan_create_fiber / __tsan_switch_to_fiber), so its shadow call stack
 * follows the switches (TSan then allows at most ~8,000 live coroutines: it
 * counts each fiber as a thread).  Valgrind needs nothing: it copes with the switches.
 *
 * Not thread-safe: coroutines, like a libuv loop, belong to one thread.
 */
#ifndef AB_CORO_H
#define AB_CORO_H

#include <stddef.h>

#include "stack.h"

#if !defined(AB_CORO_UCONTEXT) && !defined(__x86_64__) && !defined(__aarch64__)
#define AB_CORO_UCONTEXT 1
#endif
#if defined(AB_CORO_UCONTEXT)
#include <ucontext.h>
#endif

/* Stacks in use before new coroutines share them (a compile-time setting:
 * -DAB_CORO_SHARED_STACKS=N).  128 covers the suite's default bound of 64
 * coroutines in flight with room to spare, so only passes with many more
 * suspended at once ever copy; resident, the stacks cost what their
 * coroutines touched, one or two pages each.  The ucontext fallback never
 * shares (it cannot tell where a saved context's frames begin). */
#ifndef AB_CORO_SHARED_STACKS
#define AB_CORO_SHARED_STACKS 128
#endif

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define AB__ASAN 1
#endif
#if __has_feature(thread_sanitizer)
#define AB__TSAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define AB__ASAN 1
#endif
#if defined(__SANITIZE_THREAD__)
#define AB__TSAN 1
#endif

typedef void (*ab_coro_fn)(void *arg);

typedef struct ab_coro_s ab_coro_t;

struct ab_coro_s {
  void *data;                  /* the user's; untouched by coro.c */
  /* private */
  ab_coro_fn fn;
  void *arg;
  ab_coro_t *caller;           /* who resumed it last; NULL = the thread */
  ab_stack_t *stack;           /* the stack it is bound to for life */
  int state;                   /* AB__CORO_READY, _RUNNING, _SUSPENDED, _DONE */
#if defined(AB_CORO_UCONTEXT)
  ucontext_t ctx;
  ucontext_t caller_ctx;
#else
  void *sp;                    /* saved stack pointer while not running */
  void *caller_sp;             /* the resumer's, while running */
#endif
  char *saved;                 /* its frames, while another owns the stack */
  size_t saved_cap;            /* bytes `saved` holds at most */
#if defined(AB__ASAN)
  void *asan_fake;             /* ASan bookkeeping */
  const void *caller_bottom;
  size_t caller_size;
#endif
#if defined(AB__TSAN)
  void *tsan_fiber;            /* TSan bookkeeping */
  void *tsan_caller;
#endif
};

enum { AB__CORO_READY, AB__CORO_RUNNING, AB__CORO_SUSPENDED, AB__CORO_DONE };

/* Creates a coroutine that will run fn(arg), bound to a stack of the pool
 * (its own while fewer than AB_CORO_SHARED_STACKS are in use, a shared one
 * beyond).  It does not start until resumed.  Returns NULL when no record or
 * stack could be had (errno set). */
static inline ab_coro_t *ab_coro_create(ab_coro_fn fn, void *arg);

/* Switches into `co` (new or suspended) and returns when it yields or its
 * function returns.  Resuming a running or done coroutine aborts with a
 * message, and so does resuming from a running coroutine one bound to the
 * same stack (see the caveats above). */
static inline void ab_coro_resume(ab_coro_t *co);

/* Suspends the running coroutine and switches back to its resumer.  Called
 * outside any coroutine it prints "ab_coro_yield: not inside a coroutine"
 * and aborts. */
static inline void ab_coro_yield(void);

/* The running coroutine, or NULL on the thread's own stack. */
static inline ab_coro_t *ab_coro_current(void);

/* True once the coroutine's function has returned. */
static inline int ab_coro_done(const ab_coro_t *co) { return co->state == AB__CORO_DONE; }

/* Frees a done or never-started coroutine; its stack goes back to the pool
 * once no coroutine is bound to it.  `co` is invalid afterwards. */
static inline void ab_coro_destroy(ab_coro_t *co);

/* Stack bytes of stacks mapped from now on (rounded up to pages, at least
 * AB_STACK_MIN; a guard page comes on top).  Pooled stacks of the old size
 * are unmapped. */
void ab_coro_set_stack_size(size_t size);
size_t ab_coro_stack_size(void);

/* Unmaps this thread's pooled (free) stacks and frees its free coroutine
 * records, e.g. before exit or after a pass. */
void ab_coro_pool_drain(void);

/* Stacks this thread's pool has mapped so far (each an mmap + mprotect):
 * a test checks how many were made. */
size_t ab_coro_stacks_mapped(void);

/* Stack copies made so far on this thread (saves plus restores): a test
 * checks that coroutines with stacks of their own never copy. */
size_t ab_coro_stack_copies(void);

/* Coroutines created and not yet destroyed on this thread. */
size_t ab_coro_live(void);

/* The switch compiled in, as a string literal for result lines. */
#if defined(AB_CORO_UCONTEXT)
#define AB_CORO_BACKEND_NAME "ucontext"
#elif defined(__x86_64__)
#define AB_CORO_BACKEND_NAME "asm-x86_64"
#else
#define AB_CORO_BACKEND_NAME "asm-aarch64"
#endif

/* AB_CORO_BACKEND_NAME: "asm-x86_64", "asm-aarch64" or "ucontext". */
const char *ab_coro_backend(void);

/* ---- private: the switch, inlined where it is used ----------------------
 *
 * resume and yield are inline so that a switch is called straight from the
 * code that drives it (ab_await, the microtask that resumes an awaiting
 * coroutine).  That matters more than the call itself: after a switch, each
 * return into a frame made before it is mispredicted, since the CPU's
 * return-address stack was filled by the context just left, so every frame
 * fewer between the switch and the loop around it saves a misprediction. */

#if defined(AB__ASAN)
#include <sanitizer/common_interface_defs.h>
#endif
#if defined(AB__TSAN)
#include <sanitizer/tsan_interface.h>
#define AB__TSAN_SWITCH(fiber) __tsan_switch_to_fiber((fiber), 0)
#else
#define AB__TSAN_SWITCH(fiber) ((void)0)
#endif

#if !defined(AB_CORO_UCONTEXT)
void ab__coro_switch(void **save_sp, void *load_sp);  /* coro_switch_<arch>.S */
#endif

/* AB__CORO_JUMP(save_sp, load_sp): the switch of resume and yield.  On
 * x86_64 (without AB_CORO_SAVE_FPENV) it is inline assembly leaving the
 * frame ab__coro_switch leaves, [resume address, rbp], below the red zone:
 * every other register is a clobber, so the compiler keeps what it needs
 * across it (in a loop, once, in the prologue), and no `call` is made.  A
 * call whose return happens in the other context would leave the CPU's
 * return-address stack one entry off: each switch would then mispredict the
 * next return on both sides.  Elsewhere it calls ab__coro_switch. */
#if defined(__x86_64__) && !defined(AB_CORO_UCONTEXT) && !defined(AB_CORO_SAVE_FPENV)
#define AB__CORO_JUMP(save_sp, load_sp)                                        \
  do {                                                                         \
    void **ab__save = (save_sp);                                               \
    void *ab__load = (load_sp);                                                \
    __asm__ volatile("leaq -128(%%rsp), %%rsp\n\t"                             \
                     "leaq 1f(%%rip), %%rax\n\t"                               \
                     "pushq %%rbp\n\t"                                         \
                     "pushq %%rax\n\t"                                         \
                     "movq %%rsp, (%0)\n\t"                                    \
                     "movq %1, %%rsp\n\t"                                      \
                     "popq %%rax\n\t"                                          \
                     "popq %%rbp\n\t"                                          \
                     "jmpq *%%rax\n"                                            \
                     "1:\n\t"                                                  \
                     "leaq 128(%%rsp), %%rsp"                                  \
                     : "+D"(ab__save), "+S"(ab__load)                          \
                     :                                                         \
                     : "rax", "rbx", "rcx", "rdx", "r8", "r9", "r10", "r11",   \
                       "r12", "r13", "r14", "r15", "xmm0", "xmm1", "xmm2",     \
                       "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", \
                       "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15",   \
                       "st", "st(1)", "st(2)", "st(3)", "st(4)", "st(5)",      \
                       "st(6)", "st(7)", "memory", "cc");                      \
  } while (0)
#elif !defined(AB_CORO_UCONTEXT)
#define AB__CORO_JUMP(save_sp, load_sp) ab__coro_switch((save_sp), (load_sp))
#endif

/* The running coroutine of this thread (coro.c); NULL on the thread's stack. */
extern _Thread_local ab_coro_t *ab__coro_current;

/* Prints what and aborts. */
void ab__coro_die(const char *what) __attribute__((noreturn, cold));

/* Makes co the owner of its stack: saves the frames of the owner it had,
 * puts co's own back (coro.c). */
void ab__coro_take_stack(ab_coro_t *co);

static inline ab_coro_t *ab_coro_current(void) { return ab__coro_current; }

/* Finishes the running coroutine co from inside its function, as if that
 * function had returned: the C entry's ending (a coroutine function that
 * never returns saves the return into the entry, mispredicted after a
 * switch).  Never returns. */
static inline __attribute__((noreturn)) void ab__coro_end(ab_coro_t *co) {
  co->state = AB__CORO_DONE;
#if defined(AB__ASAN)
  /* A null fake-stack pointer tells ASan this stack is finished. */
  __sanitizer_start_switch_fiber(NULL, co->caller_bottom, co->caller_size);
#endif
  AB__TSAN_SWITCH(co->tsan_caller);
#if defined(AB_CORO_UCONTEXT)
  setcontext(&co->caller_ctx);
#elif defined(__x86_64__) && !defined(AB_CORO_SAVE_FPENV)
  /* Leaves for good: nothing is saved, only the resumer's frame loaded. */
  __asm__ volatile("movq %0, %%rsp\n\t"
                   "popq %%rax\n\t"
                   "popq %%rbp\n\t"
                   "jmpq *%%rax"
                   :
                   : "r"(co->caller_sp)
                   : "memory");
#else
  AB__CORO_JUMP(&co->sp, co->caller_sp);
#endif
  ab__coro_die("ab_coro: a finished coroutine was resumed");
}

/* A coroutine's C entry: runs on its stack, never returns (ab__coro_end). */
typedef void (*ab__coro_entry_fn)(ab_coro_t *co);

/* ab_coro_create and ab_coro_destroy in general (coro.c); `entry` is the C
 * entry of the new coroutine (ab__coro_entry, or ab__coro_create_at's). */
ab_coro_t *ab__coro_create(ab_coro_fn fn, void *arg, ab__coro_entry_fn entry);
void ab__coro_destroy(ab_coro_t *co);

/* Where a new coroutine starts: the switch's boot label (coro_switch_*.S),
 * which jumps to the C entry: by default ab__coro_entry (coro.c), which
 * calls fn(arg) and ends the coroutine when it returns. */
void ab__coro_boot(void);
void ab__coro_entry(ab_coro_t *co);

/* What a C entry does first (ASan learns the stack it came from). */
static inline void ab__coro_begin(ab_coro_t *co) {
#if defined(AB__ASAN)
  __sanitizer_finish_switch_fiber(NULL, &co->caller_bottom, &co->caller_size);
#else
  (void)co;
#endif
}

/* The steady state of a coroutine that runs and finishes, inlined on x86_64
 * without sanitizers: a record from the free list, an idle stack, the first
 * frame at its top (the one coro.c's ab__coro_frame writes), and back. */
#if defined(__x86_64__) && !defined(AB_CORO_UCONTEXT) && !defined(AB_CORO_SAVE_FPENV) && \
    !defined(AB__ASAN) && !defined(AB__TSAN)
#define AB__CORO_FAST 1
extern _Thread_local ab_coro_t *ab__free_coros;  /* linked through data */
extern _Thread_local ab_stack_t *ab__idle;       /* linked through next_free */
extern _Thread_local size_t ab__nlive;
#endif

/* ab_coro_create with its own C entry, which boot jumps to directly: a
 * coroutine whose function never returns (it ends with ab__coro_end) then
 * makes no call that never returns, which would leave the CPU's
 * return-address stack one entry off for the resumer's next return.  fn
 * still identifies the coroutine (and is what the ucontext build calls). */
static inline ab_coro_t *ab__coro_create_at(ab_coro_fn fn, void *arg, ab__coro_entry_fn entry) {
#if defined(AB__CORO_FAST)
  ab_coro_t *co = ab__free_coros;
  ab_stack_t *s = ab__idle;
  if (__builtin_expect(co != NULL && s != NULL, 1)) {
    ab__free_coros = (ab_coro_t *)co->data;
    ab__idle = s->next_free;
    ab__nlive++;
    s->users = 1;
    s->owner = co;
    co->data = NULL;
    co->fn = fn;
    co->arg = arg;
    co->caller = NULL;
    co->stack = s;
    co->state = AB__CORO_READY;
    co->saved = NULL;
    co->saved_cap = 0;
    void **f = (void **)s->hi - 4;
    f[0] = (void *)ab__coro_boot;  /* resume address */
    f[1] = co;                     /* rbp */
    f[2] = (void *)entry;
    f[3] = NULL;
    co->sp = f;
    return co;
  }
#endif
  return ab__coro_create(fn, arg, entry);
}

static inline ab_coro_t *ab_coro_create(ab_coro_fn fn, void *arg) {
  return ab__coro_create_at(fn, arg, ab__coro_entry);
}

static inline void ab_coro_destroy(ab_coro_t *co) {
#if defined(AB__CORO_FAST)
  ab_stack_t *s = co->stack;
  if (__builtin_expect(co->state == AB__CORO_DONE && s->users == 1 && co->saved == NULL, 1)) {
    s->owner = NULL;
    s->users = 0;
    s->next_free = ab__idle;
    ab__idle = s;
    co->data = ab__free_coros;
    ab__free_coros = co;
    ab__nlive--;
    return;
  }
#endif
  ab__coro_destroy(co);
}

static inline void ab_coro_resume(ab_coro_t *co) {
  if (__builtin_expect(co->state != AB__CORO_READY && co->state != AB__CORO_SUSPENDED, 0))
    ab__coro_die(co->state == AB__CORO_DONE
                     ? "ab_coro_resume: the coroutine has finished"
                     : "ab_coro_resume: the coroutine is already running");
  if (__builtin_expect(co->stack->owner != co, 0))
    ab__coro_take_stack(co);
  co->caller = ab__coro_current;
  co->state = AB__CORO_RUNNING;
  ab__coro_current = co;
#if defined(AB__ASAN)
  void *fake = NULL;
  __sanitizer_start_switch_fiber(&fake, co->stack->lo, (size_t)(co->stack->hi - co->stack->lo));
#endif
#if defined(AB__TSAN)
  co->tsan_caller = __tsan_get_current_fiber();
#endif
  AB__TSAN_SWITCH(co->tsan_fiber);
#if defined(AB_CORO_UCONTEXT)
  swapcontext(&co->caller_ctx, &co->ctx);
#else
  AB__CORO_JUMP(&co->caller_sp, co->sp);
#endif
#if defined(AB__ASAN)
  __sanitizer_finish_switch_fiber(fake, NULL, NULL);
#endif
  ab__coro_current = co->caller;
}

static inline void ab_coro_yield(void) {
  ab_coro_t *co = ab__coro_current;
  if (__builtin_expect(!co, 0))
    ab__coro_die("ab_coro_yield: not inside a coroutine");
  co->state = AB__CORO_SUSPENDED;
#if defined(AB__ASAN)
  __sanitizer_start_switch_fiber(&co->asan_fake, co->caller_bottom, co->caller_size);
#endif
  AB__TSAN_SWITCH(co->tsan_caller);
#if defined(AB_CORO_UCONTEXT)
  swapcontext(&co->ctx, &co->caller_ctx);
#else
  AB__CORO_JUMP(&co->sp, co->caller_sp);
#endif
#if defined(AB__ASAN)
  __sanitizer_finish_switch_fiber(co->asan_fake, &co->caller_bottom, &co->caller_size);
#endif
}

#endif /* AB_CORO_H */
