/*
 * coro_switch_aarch64.S -- the coroutine context switch for AArch64 (AAPCS64;
 * Linux ELF and macOS Mach-O).  Assembled on every host; empty elsewhere.
 *
 * void ab__coro_switch(void **save_sp, void *load_sp)
 *   Stores the callee-saved registers below the current sp, saves sp in
 *   *save_sp, loads load_sp, reloads the registers saved there and returns
 *   through the reloaded x30.  Frame (160 bytes, 16-byte aligned), low to high:
 *
 *     sp+0    x19 x20 x21 x22 x23 x24 x25 x26 x27 x28
 *     sp+80   x29 (fp), x30 (lr)
 *     sp+96   d8 d9 d10 d11 d12 d13 d14 d15
 *
 *   x18 is deliberately never read or written: Apple reserves it for the
 *   platform.  FPCR is not switched (see coro.h).
 *
 * ab__coro_boot
 *   The first "return" of a new coroutine lands here: coro.c builds the frame
 *   with x19 = the coroutine, x20 = its C entry, x29 = 0 (end of the frame
 *   chain) and x30 = this label.  The entry never returns.
 *
 * One statement per line, and no `;` anywhere (asm.h says why): a macro that
 * joined statements with `;` left the arm64 Mach-O object with no symbols at
 * all.  `make test` assembles this file for arm64-apple-macos and lists the
 * symbols (scripts/check-asm.sh).
 *
 * Branch protection (-mbranch-protection=bti, pac-ret or standard):
 *   BTI: each function begins with `bti c`, the landing pad of a call
 *   through a pointer (the boot label is reached by the switch's `ret`,
 *   which needs none, but is a function all the same), and the object
 *   carries the GNU property note that says so.  Without the note the
 *   linker drops BTI for the whole program, silently.
 *   PAC: the return address the switch keeps on a coroutine stack is signed
 *   (paciasp, or pacibsp for the B key) with the stack pointer of the switch's
 *   entry as modifier, and authenticated after the reload.  Both sides of a
 *   switch have the same frame, so the reloaded x30 was signed by the same
 *   rule; coro.c signs a new coroutine's first return address (ab__coro_boot)
 *   with the sp the switch will have when it authenticates it.  The hint-space
 *   encodings are used (no-ops on cores without pointer authentication).
 *
 * CFI: the switch describes its frame so that a debugger or a profiler can
 * unwind through it.  The frame has the same layout on both sides of the
 * switch, so one description holds before and after sp moves (after it, the
 * unwinder walks the stack of the context being resumed).  ab__coro_boot
 * marks the end of a coroutine's stack: its return address is undefined.
 *
 * Why `ret` and not an indirect branch, as the x86_64 switch does: `ret` is
 * predicted from the return stack, which holds the caller in the context
 * just left, so it mispredicts on most switches; an indirect branch would be
 * predicted from history instead.  On AArch64 a `br` to a return address is
 * not allowed with BTI (the return address is no landing pad), and the only
 * measurement possible on the development host is under qemu, which counts
 * instructions and models no branch predictor: with -singlestep, a resume
 * and yield round trip executes 72 guest instructions in either form.  So
 * `ret` stays: it is correct under every branch-protection setting.
 * -DAB_CORO_AARCH64_BR builds the `br` form for a native measurement
 * (`make micro`; make test-aarch64 runs test_coro on it); it refuses BTI.
 */
#include "asm.h"

#if defined(__aarch64__)

#if defined(__ARM_FEATURE_BTI_DEFAULT) && __ARM_FEATURE_BTI_DEFAULT
#define AB_BTI 1
#define LANDING_PAD hint #34 /* bti c */
#else
#define AB_BTI 0
#define LANDING_PAD
#endif

/* __ARM_FEATURE_PAC_DEFAULT: bit 0 = A key, bit 1 = B key, bit 2 = leaf functions too. */
#if defined(__ARM_FEATURE_PAC_DEFAULT) && (__ARM_FEATURE_PAC_DEFAULT & 3)
#define AB_PAC 1
#if __ARM_FEATURE_PAC_DEFAULT & 1
#define SIGN_LR hint #25     /* paciasp */
#define AUTH_LR hint #29     /* autiasp */
#else
#define SIGN_LR hint #27     /* pacibsp */
#define AUTH_LR hint #31     /* autibsp */
#endif
#else
#define AB_PAC 0
#endif

#if defined(AB_CORO_AARCH64_BR) && AB_BTI
#error "AB_CORO_AARCH64_BR: a br to a return address faults with BTI; build without it"
#endif

        .text

        FUNCTION ab__coro_switch
        LANDING_PAD
#if AB_PAC
        SIGN_LR
        .cfi_negate_ra_state
#endif
        sub     sp, sp, #160
        .cfi_def_cfa_offset 160
        stp     x19, x20, [sp, #0]
        stp     x21, x22, [sp, #16]
        stp     x23, x24, [sp, #32]
        stp     x25, x26, [sp, #48]
        stp     x27, x28, [sp, #64]
        stp     x29, x30, [sp, #80]
        stp     d8, d9, [sp, #96]
        stp     d10, d11, [sp, #112]
        stp     d12, d13, [sp, #128]
        stp     d14, d15, [sp, #144]
        .cfi_offset x19, -160
        .cfi_offset x20, -152
        .cfi_offset x21, -144
        .cfi_offset x22, -136
        .cfi_offset x23, -128
        .cfi_offset x24, -120
        .cfi_offset x25, -112
        .cfi_offset x26, -104
        .cfi_offset x27, -96
        .cfi_offset x28, -88
        .cfi_offset x29, -80
        .cfi_offset x30, -72
        .cfi_offset d8, -64
        .cfi_offset d9, -56
        .cfi_offset d10, -48
        .cfi_offset d11, -40
        .cfi_offset d12, -32
        .cfi_offset d13, -24
        .cfi_offset d14, -16
        .cfi_offset d15, -8
        mov     x9, sp
        str     x9, [x0]
        /* From here on sp is the other context's, with the same frame. */
        mov     sp, x1
        ldp     x19, x20, [sp, #0]
        ldp     x21, x22, [sp, #16]
        ldp     x23, x24, [sp, #32]
        ldp     x25, x26, [sp, #48]
        ldp     x27, x28, [sp, #64]
        ldp     x29, x30, [sp, #80]
        ldp     d8, d9, [sp, #96]
        ldp     d10, d11, [sp, #112]
        ldp     d12, d13, [sp, #128]
        ldp     d14, d15, [sp, #144]
        add     sp, sp, #160
        .cfi_def_cfa_offset 0
        .cfi_restore x19
        .cfi_restore x20
        .cfi_restore x21
        .cfi_restore x22
        .cfi_restore x23
        .cfi_restore x24
        .cfi_restore x25
        .cfi_restore x26
        .cfi_restore x27
        .cfi_restore x28
        .cfi_restore x29
        .cfi_restore x30
        .cfi_restore d8
        .cfi_restore d9
        .cfi_restore d10
        .cfi_restore d11
        .cfi_restore d12
        .cfi_restore d13
        .cfi_restore d14
        .cfi_restore d15
#if AB_PAC
        AUTH_LR
        .cfi_negate_ra_state
#endif
#if defined(AB_CORO_AARCH64_BR)
        br      x30
#else
        ret
#endif
        END_FUNCTION ab__coro_switch

        FUNCTION ab__coro_boot
        /* The outermost frame of a coroutine: nothing to unwind to. */
        .cfi_undefined x30
        LANDING_PAD
        mov     x0, x19
        blr     x20
        brk     #0
        END_FUNCTION ab__coro_boot

/* ELF: the branch-protection features this object supports, ANDed by the
 * linker over every object of a program (GNU_PROPERTY_AARCH64_FEATURE_1_AND:
 * bit 0 BTI, bit 1 PAC).  Only when the build asks for them, as the compiler
 * does for C files. */
#if defined(__ELF__) && (AB_BTI || AB_PAC)
        .pushsection .note.gnu.property, "a"
        .p2align 3
        .word   4                       /* name size: "GNU\0" */
        .word   16                      /* descriptor size */
        .word   5                       /* NT_GNU_PROPERTY_TYPE_0 */
        .asciz  "GNU"
        .word   0xc0000000              /* GNU_PROPERTY_AARCH64_FEATURE_1_AND */
        .word   4                       /* its data size */
        .word   (AB_BTI * 1) | (AB_PAC * 2)
        .word   0                       /* padding to 8 bytes */
        .popsection
#endif

#endif /* __aarch64__ */

        NO_EXEC_STACK
