/*
 * coro.h -- stackful asymmetric coroutines with a small assembly switch.
 *
 * A coroutine runs a function on a stack of its own.  ab_coro_resume() switches
 * from the running context (the thread, or another coroutine: they nest) into
 * a coroutine; ab_coro_yield() switches back to whoever resumed it; when the
 * function returns the coroutine is done and control returns to the resumer.
 *
 * A switch saves only what the ABI makes callee-saved, on the stack being
 * left, and keeps one pointer per context:
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
 *                without them.  The switch is inline assembly in C (below,
 *                AB__CORO_PAIRED): the context left is two words [resume
 *                address, rbp] below the 128-byte red zone, every other
 *                register is a clobber, so the compiler keeps what it needs
 *                itself, and calls and returns are paired across switches
 *                so that the CPU's return-address stack predicts them: a
 *                new coroutine's function is called from the starter's own
 *                code on the new stack, a resume is a call, a yield a
 *                return into it.  An async function that returns before its
 *                first await then costs a call and a return on a pooled
 *                stack, and the switch of one that suspends is predicted
 *                but for the return that crosses its last resumption.
 *                Resume/yield ~1.1 ns one way, an await of a settled promise
 *                ~8 ns (thread CPU time, AMD EPYC, make micro).  Build with
 *                -DAB_CORO_SAVE_FPENV (in CFLAGS) to switch them per
 *                coroutine, ABI-strict, through coro_switch_x86_64.S (no
 *                pairing); a new coroutine then starts with its creator's
 *                values.
 *   AArch64      x19-x29, x30 (lr), sp, d8-d15 (the low halves of v8-v15, all
 *                AAPCS64 requires).  x18 is never touched (the platform
 *                register on Apple).  FPCR is left as thread-wide state,
 *                the same choice Boost.Context makes: writing it can serialise.
 *                The switch is coro_switch_aarch64.S, a call that ends
 *                with `ret` (BTI forbids an indirect jump to an unmarked
 *                address; -DAB_CORO_AARCH64_BR builds it for a measurement),
 *                and honours -mbranch-protection: landing pads, the return
 *                addresses it keeps on coroutine stacks signed (see the .S
 *                file).  A new coroutine starts at ab__coro_boot, which jumps
 *                to its C entry.
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
  /* Not char-sized: a char may alias anything, so every store would make the
   * compiler read them again.  The start reads both as one word (coro.h). */
  unsigned short state;        /* AB__CORO_READY, _RUNNING, _SUSPENDED, _DONE */
  unsigned short yielded;      /* it has yielded at least once */
  int code;                    /* an async function's code, returned before it
                                * ever yielded (async.c, the portable start) */
#if defined(AB_CORO_UCONTEXT)
  ucontext_t ctx;
  ucontext_t caller_ctx;
#else
  void *sp;                    /* saved stack pointer while not running */
  void *caller_sp;             /* the resumer's, while running */
#endif
  char *saved;                 /* its frames, while another owns the stack */
  size_t saved_cap;            /* bytes `saved` holds at most */
  void *result;                /* an async function's *value (async.c) */
  const char *message;         /* an async function's ab_async_fail (async.c) */
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
 * a test checks how many were made, and the harness fails a pass that mapped
 * one before its clock (harness.h: ab_run_begin).  Asking makes no pool. */
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
 * resume and yield are inline so that a switch is made straight from the
 * code that drives it (ab_await, the microtask that resumes an awaiting
 * coroutine), and so is an async function's start (async.h).  What matters
 * more than the calls saved is the CPU's return-address stack, which
 * predicts every `ret` from the calls made before it: a return into a frame
 * made before a switch is predicted from the other context's calls, and
 * mispredicted.  On x86_64 (AB__CORO_PAIRED) the switch is therefore paired
 * as calls and returns are:
 *
 *   start    a new coroutine's function is CALLED from the starter's own
 *            code, with the stack pointer moved to the top of the
 *            coroutine's stack; the starter's frame [resume address,
 *            rbp] is left below its red zone, the resume address being
 *            the instruction after that call
 *   resume   CALLS into the switch (the return address is the resumer's
 *            resume address, its frame [that address, rbp]), which loads
 *            the coroutine's frame and jumps to its resume address
 *   yield    leaves its own frame and RETURNS into the resumer's frame
 *            (`ret $8`): the return the start's or the resume's call
 *            predicted, whenever the coroutine yields from the frame it was
 *            resumed in (an await inlined in the async function: the common
 *            case)
 *   end      a function that returns after it yielded returns into the
 *            starter's code (its return address), which sees that and jumps
 *            on to the coroutine's `late` ending (async.c: settle the
 *            promise); that ending loads its resumer's frame with a jump
 *            (the function's return consumed the resume's prediction)
 *
 * So an async function that never suspends costs one call and one return
 * on a pooled stack, and one that suspends mispredicts only the return that
 * crosses its last resumption.  Every other register is a clobber of the
 * inline assembly: the compiler keeps what it needs across a switch itself.
 * Elsewhere (AArch64, AB_CORO_SAVE_FPENV, ucontext) every switch is
 * ab__coro_switch (coro_switch_<arch>.S) and a new coroutine starts at
 * ab__coro_boot, which jumps to its C entry. */

#if defined(AB__ASAN)
#include <sanitizer/common_interface_defs.h>
#endif
#if defined(AB__TSAN)
#include <sanitizer/tsan_interface.h>
#define AB__TSAN_SWITCH(fiber) __tsan_switch_to_fiber((fiber), 0)
#else
#define AB__TSAN_SWITCH(fiber) ((void)0)
#endif

#if defined(__x86_64__) && !defined(AB_CORO_UCONTEXT) && !defined(AB_CORO_SAVE_FPENV)
#define AB__CORO_PAIRED 1
#endif

#if !defined(AB_CORO_UCONTEXT)
void ab__coro_switch(void **save_sp, void *load_sp);  /* coro_switch_<arch>.S */
#endif

/* What a switch and the steady state of a start touch, per thread (coro.c):
 * one place, so that the code reaching it computes its address once. */
typedef struct ab__coro_tls_s {
  ab_coro_t *current;   /* the running coroutine; NULL on the thread's stack */
  ab_coro_t *free;      /* free records, linked through data */
  ab_stack_t *idle;     /* stacks no coroutine is bound to, through next_free */
  size_t nlive;         /* records in use */
} ab__coro_tls_t;
extern _Thread_local ab__coro_tls_t ab__coro;

/* Prints what and aborts. */
void ab__coro_die(const char *what) __attribute__((noreturn, cold));

/* Makes co the owner of its stack: saves the frames of the owner it had,
 * puts co's own back (coro.c). */
void ab__coro_take_stack(ab_coro_t *co);

static inline ab_coro_t *ab_coro_current(void) { return ab__coro.current; }

/* The clobbers of a switch made from C: every register the ABI lets a call
 * change, and every callee-saved one but rbp (kept in the frame). */
#define AB__CORO_CLOBBERS                                                     \
  "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "xmm0", "xmm1", "xmm2", \
      "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", \
      "xmm12", "xmm13", "xmm14", "xmm15", "st", "st(1)", "st(2)", "st(3)",      \
      "st(4)", "st(5)", "st(6)", "st(7)", "memory", "cc"

/* Finishes the running coroutine co from inside it: control goes to its
 * resumer, as if its function had returned there.  Never returns. */
static inline __attribute__((noreturn)) void ab__coro_end(ab_coro_t *co) {
  co->state = AB__CORO_DONE;
#if defined(AB__ASAN)
  /* A null fake-stack pointer tells ASan this stack is finished. */
  __sanitizer_start_switch_fiber(NULL, co->caller_bottom, co->caller_size);
#endif
  AB__TSAN_SWITCH(co->tsan_caller);
#if defined(AB_CORO_UCONTEXT)
  setcontext(&co->caller_ctx);
#elif defined(AB__CORO_PAIRED)
  /* Leaves for good: nothing is saved, only the resumer's frame loaded. */
  __asm__ volatile("movq %0, %%rsp\n\t"
                   "popq %%rax\n\t"
                   "popq %%rbp\n\t"
                   "jmpq *%%rax"
                   :
                   : "r"(co->caller_sp)
                   : "memory");
#else
  ab__coro_switch(&co->sp, co->caller_sp);
#endif
  ab__coro_die("ab_coro: a finished coroutine was resumed");
}

/* A coroutine's C entry (the portable start): runs on its stack, never
 * returns (ab__coro_end). */
typedef void (*ab__coro_entry_fn)(ab_coro_t *co);

/* Where a function that yielded and then returned goes on (AB__CORO_PAIRED):
 * on the coroutine's stack, with what the function returned; ends the
 * coroutine.  ab__coro_late for ab_coro_create's coroutines (coro.c). */
typedef void (*ab__coro_late_fn)(ab_coro_t *co, int code);
void ab__coro_late(ab_coro_t *co, int code) __attribute__((noreturn));

/* ab_coro_create and ab_coro_destroy in general (coro.c); `entry` is the C
 * entry of the new coroutine where it starts at ab__coro_boot
 * (ab__coro_entry, or ab__coro_create_at's). */
ab_coro_t *ab__coro_create(ab_coro_fn fn, void *arg, ab__coro_entry_fn entry);
void ab__coro_destroy(ab_coro_t *co);

/* Where a new coroutine starts without AB__CORO_PAIRED: the switch's boot
 * label (coro_switch_*.S), which jumps to the C entry: by default
 * ab__coro_entry (coro.c), which calls fn(arg) and ends the coroutine when
 * it returns. */
void ab__coro_boot(void);
void ab__coro_entry(ab_coro_t *co);

/* Writes the frame a raw ab__coro_switch into co starts it from: boot, then
 * ab__coro_entry (for a test or a benchmark of the bare switch; co READY). */
void ab__coro_boot_frame(ab_coro_t *co);

/* What a C entry does first (ASan learns the stack it came from). */
static inline void ab__coro_begin(ab_coro_t *co) {
#if defined(AB__ASAN)
  __sanitizer_finish_switch_fiber(NULL, &co->caller_bottom, &co->caller_size);
#else
  (void)co;
#endif
}

/* The steady state of a coroutine that runs and finishes, inlined on x86_64
 * without sanitizers: a record from the free list, an idle stack, and back. */
#if defined(AB__CORO_PAIRED) && !defined(AB__ASAN) && !defined(AB__TSAN)
#define AB__CORO_FAST 1

/* A free record and an idle stack, bound (users 1, owner the record), or
 * NULL when either list is empty (the general path then takes over). */
static inline ab_coro_t *ab__coro_take_idle(ab_coro_fn fn) {
  ab_coro_t *co = ab__coro.free;
  ab_stack_t *s = ab__coro.idle;
  if (__builtin_expect(co == NULL || s == NULL, 0))
    return NULL;
  ab__coro.free = (ab_coro_t *)co->data;
  ab__coro.idle = s->next_free;
  ab__coro.nlive++;
  s->users = 1;
  s->owner = co;
  co->fn = fn;
  co->stack = s;
  co->yielded = 0;
  return co; /* saved is NULL in a free record (coro.c) */
}

/* Puts a done record, alone on its stack and never copied out, back with
 * its stack. */
static inline void ab__coro_put_idle(ab_coro_t *co) {
  ab_stack_t *s = co->stack;
  s->owner = NULL;
  s->users = 0;
  s->next_free = ab__coro.idle;
  ab__coro.idle = s;
  co->data = ab__coro.free;
  ab__coro.free = co;
  ab__coro.nlive--;
}
#endif

/* ab_coro_create with its own C entry for the portable start (boot jumps to
 * it directly, so that a function that ends its coroutine itself makes no
 * call that never returns); AB__CORO_PAIRED ignores it.  fn still
 * identifies the coroutine. */
static inline ab_coro_t *ab__coro_create_at(ab_coro_fn fn, void *arg, ab__coro_entry_fn entry) {
#if defined(AB__CORO_FAST)
  ab_coro_t *co = ab__coro_take_idle(fn);
  if (__builtin_expect(co != NULL, 1)) {
    co->data = NULL;
    co->arg = arg;
    co->state = AB__CORO_READY;
    co->sp = co->stack->hi;  /* nothing of its own on the stack yet */
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
  if (__builtin_expect(co->state == AB__CORO_DONE && co->stack->users == 1 && co->saved == NULL,
                       1)) {
    ab__coro_put_idle(co);
    return;
  }
#endif
  ab__coro_destroy(co);
}

/* ab_coro_destroy of a coroutine that ran to its end without ever yielding
 * (so never copied out: no saved frames). */
static inline void ab__coro_destroy_fresh(ab_coro_t *co) {
#if defined(AB__CORO_FAST)
  if (__builtin_expect(co->stack->users == 1, 1)) {
    ab__coro_put_idle(co);
    return;
  }
#endif
  ab__coro_destroy(co);
}

/* What a switch into co tells the sanitizers before it (the value for
 * ab__coro_san_back after it: ASan's fake stack of the context left). */
static inline void *ab__coro_san_in(ab_coro_t *co) {
  void *fake = NULL;
#if defined(AB__ASAN)
  __sanitizer_start_switch_fiber(&fake, co->stack->lo, (size_t)(co->stack->hi - co->stack->lo));
#endif
#if defined(AB__TSAN)
  co->tsan_caller = __tsan_get_current_fiber();
#endif
  AB__TSAN_SWITCH(co->tsan_fiber);
  (void)co;
  return fake;
}

/* What the context that switched into a coroutine tells ASan once it runs
 * again. */
static inline void ab__coro_san_back(void *fake) {
#if defined(AB__ASAN)
  __sanitizer_finish_switch_fiber(fake, NULL, NULL);
#else
  (void)fake;
#endif
}

/* The checks of a resume, and what it records before the switch. */
static inline void ab__coro_enter(ab_coro_t *co) {
  if (__builtin_expect(co->state != AB__CORO_READY && co->state != AB__CORO_SUSPENDED, 0))
    ab__coro_die(co->state == AB__CORO_DONE
                     ? "ab_coro_resume: the coroutine has finished"
                     : "ab_coro_resume: the coroutine is already running");
  if (__builtin_expect(co->stack->owner != co, 0))
    ab__coro_take_stack(co);
  co->caller = ab__coro.current;
  co->state = AB__CORO_RUNNING;
  ab__coro.current = co;
}

/* ab__coro_enter for a coroutine ab__coro_create_at just made: it is READY
 * and owns its stack. */
static inline void ab__coro_enter_new(ab_coro_t *co) {
  co->caller = ab__coro.current;
  co->state = AB__CORO_RUNNING;
  ab__coro.current = co;
}

#if defined(AB__CORO_PAIRED)
/* The start compares state and yielded as one little-endian 32-bit word. */
_Static_assert(offsetof(ab_coro_t, yielded) == offsetof(ab_coro_t, state) + 2,
               "ab_coro_t: yielded must follow state");

/* A function a new coroutine starts with: called with two arguments (a
 * coroutine's ab_coro_fn ignores the second), its int result read only when
 * it is an async function's. */
typedef void (*ab__coro_call_fn)(void);

/* Starts the READY coroutine co, entered (ab__coro_enter, or what it does
 * for a new coroutine, which owns its stack: ab__coro_enter_new): calls
 * entry(a0, a1) with the stack pointer at the top of co's stack.  When entry
 * returns before it ever yielded, co is DONE, entry's int is in *code and
 * 1 is returned; when it yields, co is SUSPENDED and 0 is returned; when it
 * returns after that, `late` is jumped to on co's stack (see above).  rbx
 * holds co wherever the code after the call runs: a return restores it (the
 * function must), and a yield loads it (ab_coro_yield). */
static inline __attribute__((always_inline)) int ab__coro_start(ab_coro_t *co,
                                                                ab__coro_call_fn entry,
                                                                void *a0, void *a1,
                                                                ab__coro_late_fn late,
                                                                int *code) {
  int at_once;
  void *top = co->stack->hi; /* 16-byte aligned (stack.c) */
  register ab__coro_late_fn r12 __asm__("r12") = late;
  void *fake = ab__coro_san_in(co);
  __asm__ volatile("leaq -128(%%rsp), %%rsp\n\t"
                   "leaq 2f(%%rip), %%r8\n\t"
                   "pushq %%rbp\n\t"
                   "pushq %%r8\n\t"
                   "movq %%rsp, %c[csp](%%rbx)\n\t"
                   "movq %%rsp, %%r13\n\t"
                   "movq %%rdx, %%rsp\n\t"
                   "callq *%%rcx\n"
                   "2:\n\t"
                   /* state RUNNING and never yielded: returned at once, rbp
                    * and r13 as they were (callee-saved) */
                   "cmpl %[running], %c[state](%%rbx)\n\t"
                   "jne 3f\n\t"
                   "movw %[done], %c[state](%%rbx)\n\t"
                   "leaq 144(%%r13), %%rsp\n\t"
                   "jmp 5f\n"
                   /* a first yield returns here, its frame popped */
                   "3:\n\t"
                   "cmpw %[susp], %c[state](%%rbx)\n\t"
                   "jne 4f\n\t"
                   "leaq 128(%%rsp), %%rsp\n\t"
                   "jmp 5f\n"
                   /* returned after it yielded: end it on its own stack */
                   "4:\n\t"
                   "pushq $0\n\t"
                   "movq %%rbx, %%rdi\n\t"
                   "movl %%eax, %%esi\n\t"
                   "jmpq *%%r12\n"
                   "5:"
                   : "=a"(*code), "+b"(co), "+c"(entry), "+D"(a0), "+S"(a1), "+d"(top),
                     "+r"(r12)
                   : [csp] "i"(offsetof(ab_coro_t, caller_sp)),
                     [state] "i"(offsetof(ab_coro_t, state)),
                     [running] "i"(AB__CORO_RUNNING), [susp] "i"(AB__CORO_SUSPENDED),
                     [done] "i"(AB__CORO_DONE)
                   : "r8", "r9", "r10", "r11", "r13", "r14", "r15", "xmm0", "xmm1", "xmm2",
                     "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11",
                     "xmm12", "xmm13", "xmm14", "xmm15", "st", "st(1)", "st(2)", "st(3)",
                     "st(4)", "st(5)", "st(6)", "st(7)", "memory", "cc");
  /* Read back rather than taken from the flags ("=@ccz"): a flag output
   * costs clang a register, and the operands and clobbers above take all
   * fourteen that are left when rbp is the frame pointer (macOS's default,
   * and -fno-omit-frame-pointer's), where clang refused the asm ("inline
   * assembly requires more registers than available"). */
  at_once = co->state == AB__CORO_DONE;
#if defined(AB__ASAN) || defined(AB__TSAN)
  if (at_once) {
#if defined(AB__ASAN)
    __sanitizer_start_switch_fiber(NULL, co->caller_bottom, co->caller_size);
#endif
    AB__TSAN_SWITCH(co->tsan_caller);
  }
#endif
  ab__coro_san_back(fake);
  ab__coro.current = co->caller;
  return at_once;
}

/* A coroutine made to be started at once (ab__coro_start), entered: what
 * ab__coro_create_at and ab__coro_enter_new do, less what the start does
 * not read (arg, data: set them if the coroutine's code will). */
static inline __attribute__((always_inline)) ab_coro_t *ab__coro_new_entered(
    ab_coro_fn fn, void *arg, ab__coro_entry_fn entry) {
#if defined(AB__CORO_FAST)
  ab_coro_t *co = ab__coro_take_idle(fn);
  if (__builtin_expect(co != NULL, 1)) {
    co->state = AB__CORO_RUNNING;
    co->caller = ab__coro.current;
    ab__coro.current = co;
    return co;
  }
#endif
  ab_coro_t *made = ab__coro_create(fn, arg, entry);
  if (made != NULL)
    ab__coro_enter_new(made);
  return made;
}

/* The start of ab_coro_create's coroutines: fn(arg) (under a sanitizer
 * through a C trampoline that tells it about the new stack first). */
void ab__coro_start_plain(ab_coro_t *co);
#if defined(AB__ASAN) || defined(AB__TSAN)
int ab__coro_first_plain(ab_coro_t *co);
#endif
#endif /* AB__CORO_PAIRED */

static inline void ab_coro_resume(ab_coro_t *co) {
#if defined(AB__CORO_PAIRED)
  if (__builtin_expect(co->state != AB__CORO_SUSPENDED, 0)) {
    ab__coro_start_plain(co); /* READY; aborts on a running or done one */
    return;
  }
#endif
  ab__coro_enter(co);
  void *fake = ab__coro_san_in(co);
#if defined(AB_CORO_UCONTEXT)
  swapcontext(&co->caller_ctx, &co->ctx);
#elif defined(AB__CORO_PAIRED)
  {
    void *ab__co = co;
    __asm__ volatile("leaq -128(%%rsp), %%rsp\n\t"
                     "pushq %%rbp\n\t"
                     "callq 1f\n\t"
                     /* the yield's return, or a jump after the frame's pops */
                     "leaq 128(%%rsp), %%rsp\n\t"
                     "jmp 2f\n"
                     "1:\n\t"
                     "movq %%rsp, %c[csp](%%rdi)\n\t"
                     "movq %c[sp](%%rdi), %%rsp\n\t"
                     "popq %%rax\n\t"
                     "popq %%rbp\n\t"
                     "jmpq *%%rax\n"
                     "2:"
                     : "+D"(ab__co)
                     : [csp] "i"(offsetof(ab_coro_t, caller_sp)), [sp] "i"(offsetof(ab_coro_t, sp))
                     : "rax", "rbx", "rcx", "rdx", "rsi", AB__CORO_CLOBBERS);
  }
#else
  ab__coro_switch(&co->caller_sp, co->sp);
#endif
  ab__coro_san_back(fake);
  ab__coro.current = co->caller;
}

/* ab_coro_yield from co, the running coroutine. */
static inline void ab__coro_yield_from(ab_coro_t *co) {
  co->state = AB__CORO_SUSPENDED;
  co->yielded = 1;
#if defined(AB__ASAN)
  __sanitizer_start_switch_fiber(&co->asan_fake, co->caller_bottom, co->caller_size);
#endif
  AB__TSAN_SWITCH(co->tsan_caller);
#if defined(AB_CORO_UCONTEXT)
  swapcontext(&co->ctx, &co->caller_ctx);
#elif defined(AB__CORO_PAIRED)
  {
    /* rbx = co when the resumer's frame is returned into: a start's code
     * after its call reads the coroutine from there. */
    void *ab__co = co;
    __asm__ volatile("leaq -128(%%rsp), %%rsp\n\t"
                     "leaq 1f(%%rip), %%rax\n\t"
                     "pushq %%rbp\n\t"
                     "pushq %%rax\n\t"
                     "movq %%rsp, %c[sp](%%rbx)\n\t"
                     "movq %c[csp](%%rbx), %%rsp\n\t"
                     "movq 8(%%rsp), %%rbp\n\t"
                     "ret $8\n"
                     "1:\n\t"
                     "leaq 128(%%rsp), %%rsp"
                     : "+b"(ab__co)
                     : [csp] "i"(offsetof(ab_coro_t, caller_sp)), [sp] "i"(offsetof(ab_coro_t, sp))
                     : "rax", "rcx", "rdx", "rsi", "rdi", AB__CORO_CLOBBERS);
  }
#else
  ab__coro_switch(&co->sp, co->caller_sp);
#endif
#if defined(AB__ASAN)
  __sanitizer_finish_switch_fiber(co->asan_fake, &co->caller_bottom, &co->caller_size);
#endif
}

static inline void ab_coro_yield(void) {
  ab_coro_t *co = ab__coro.current;
  if (__builtin_expect(!co, 0))
    ab__coro_die("ab_coro_yield: not inside a coroutine");
  ab__coro_yield_from(co);
}

#endif /* AB_CORO_H */
