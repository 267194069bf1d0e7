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
 */
#if defined(__aarch64__)

#if defined(__APPLE__)
#define SYM(name) _##name
#define FUNC_BEGIN(name) .globl SYM(name); .p2align 4; SYM(name):
#define FUNC_END(name)
#else
#define SYM(name) name
#define FUNC_BEGIN(name) .globl name; .hidden name; .type name, %function; .p2align 4; name:
#define FUNC_END(name) .size name, . - name
#endif

        .text

FUNC_BEGIN(ab__coro_switch)
        sub     sp, sp, #160
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
        mov     x9, sp
        str     x9, [x0]
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
        ret
FUNC_END(ab__coro_switch)

FUNC_BEGIN(ab__coro_boot)
        mov     x0, x19
        blr     x20
        brk     #0
FUNC_END(ab__coro_boot)

#endif /* __aarch64__ */

#if defined(__linux__) && defined(__ELF__)
        .section .note.GNU-stack, "", %progbits
#endif
