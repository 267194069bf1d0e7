/*
 * coro_switch_x86_64.S -- the coroutine context switch for x86_64 System V
 * (Linux ELF and macOS Mach-O).  Assembled on every host; empty elsewhere.
 *
 * void ab__coro_switch(void **save_sp, void *load_sp)
 *   Saves the current context on its own stack, stores the stack pointer in
 *   *save_sp, loads load_sp and resumes the context saved there.  By default
 *   a saved context is two words at its stack pointer, low to high
 *
 *     sp+0   resume address, rbp
 *
 *   the frame the switch coro.h inlines into C leaves too (AB__CORO_JUMP:
 *   there the compiler keeps rbx and r12-r15 itself, as for any clobber, so
 *   a switch needs no call and leaves the return-address stack alone); this
 *   function keeps them for its caller below the frame.  Built with
 *   AB_CORO_SAVE_FPENV, the older frame of the whole callee-saved state
 *   (no inline switch):
 *
 *     sp+0   r15, r14, r13, r12, rbx, rbp
 *     sp+48  return address
 *
 *   Built with AB_CORO_SAVE_FPENV, an extra first word holds the MXCSR (4
 *   bytes) and the x87 control word (2 bytes), so each context keeps its own
 *   rounding mode and exception masks (see coro.h for why that is off by
 *   default: stmxcsr+fnstcw alone cost ~4 ns a switch on AMD EPYC).
 *
 *   Only callee-saved state is kept: the caller of a C function already
 *   assumes every other register is clobbered.
 *
 * ab__coro_boot
 *   Where a new coroutine's first switch resumes: coro.c builds the frame
 *   above with the resume address = this label and rbp = the coroutine,
 *   followed by its C entry's address, at the stack's top (the FPENV frame:
 *   r12 = the coroutine, r13 = its C entry, rbp = 0), so that the call to the
 *   C entry sees the ABI alignment.
 *   The entry never returns: it switches away for good when the body is done.
 */
/* FUNCTION and END_FUNCTION (asm.h): the same source for ELF and Mach-O. */
#include "asm.h"

#if defined(__x86_64__)

        .text

#if !defined(AB_CORO_SAVE_FPENV)
/* The default: the frame every context leaves at its saved stack pointer is
 * two words, [resume address, rbp], the same frame the switch coro.h inlines
 * into C (AB__CORO_JUMP) leaves: there the compiler itself keeps whatever
 * else it needs across the switch, so that a switch is no call.  As a
 * function, ab__coro_switch must keep rbx and r12-r15 for its caller, so it
 * pushes them below its return address before leaving that frame, and pops
 * them when it is resumed at 1:. */
        FUNCTION ab__coro_switch
        pushq   %rbx
        .cfi_adjust_cfa_offset 8
        .cfi_rel_offset %rbx, 0
        pushq   %r12
        .cfi_adjust_cfa_offset 8
        .cfi_rel_offset %r12, 0
        pushq   %r13
        .cfi_adjust_cfa_offset 8
        .cfi_rel_offset %r13, 0
        pushq   %r14
        .cfi_adjust_cfa_offset 8
        .cfi_rel_offset %r14, 0
        pushq   %r15
        .cfi_adjust_cfa_offset 8
        .cfi_rel_offset %r15, 0
        leaq    1f(%rip), %rax
        pushq   %rbp
        .cfi_adjust_cfa_offset 8
        .cfi_rel_offset %rbp, 0
        pushq   %rax
        .cfi_adjust_cfa_offset 8
        movq    %rsp, (%rdi)
        movq    %rsi, %rsp
        popq    %rax
        popq    %rbp
        /* Not `ret`: that return would be mispredicted on every switch (the
         * CPU predicts a return from its return-address stack, which holds
         * the caller in the context just left).  An indirect jump is
         * predicted from the branch history instead, and a switch site
         * mostly goes to one place: a switch one way fell from ~8 to ~2.3 ns
         * on AMD EPYC. */
        jmpq    *%rax
1:      .cfi_adjust_cfa_offset -16
        .cfi_restore %rbp
        popq    %r15
        .cfi_adjust_cfa_offset -8
        .cfi_restore %r15
        popq    %r14
        .cfi_adjust_cfa_offset -8
        .cfi_restore %r14
        popq    %r13
        .cfi_adjust_cfa_offset -8
        .cfi_restore %r13
        popq    %r12
        .cfi_adjust_cfa_offset -8
        .cfi_restore %r12
        popq    %rbx
        .cfi_adjust_cfa_offset -8
        .cfi_restore %rbx
        popq    %rcx
        .cfi_adjust_cfa_offset -8
        .cfi_register %rip, %rcx
        jmpq    *%rcx
        END_FUNCTION ab__coro_switch

        FUNCTION ab__coro_boot
        /* The outermost frame of a coroutine: nothing to unwind to.  Reached
         * with rbp = the coroutine and rsp at the C entry's address, above
         * it a null return address (coro.c's first frame).  A jump, not a
         * call (the entry never returns, and a call would leave the
         * return-address stack one entry off): the entry finds the ABI's
         * alignment and a return address that ends the chain; rbp is
         * cleared, the end of the frame-pointer chain. */
        .cfi_undefined %rip
        movq    %rbp, %rdi
        popq    %rax
        xorl    %ebp, %ebp
        jmpq    *%rax
        END_FUNCTION ab__coro_boot

#else /* AB_CORO_SAVE_FPENV: the whole callee-saved state in the .S frame */

/* CFI: each push is described, so that a debugger or a profiler unwinds
 * through the switch; the frame is the same on both sides of it, so the
 * description holds after rsp moves (the unwinder then walks the stack of
 * the context being resumed). */
        FUNCTION ab__coro_switch
        pushq   %rbp
        .cfi_adjust_cfa_offset 8
        .cfi_rel_offset %rbp, 0
        pushq   %rbx
        .cfi_adjust_cfa_offset 8
        .cfi_rel_offset %rbx, 0
        pushq   %r12
        .cfi_adjust_cfa_offset 8
        .cfi_rel_offset %r12, 0
        pushq   %r13
        .cfi_adjust_cfa_offset 8
        .cfi_rel_offset %r13, 0
        pushq   %r14
        .cfi_adjust_cfa_offset 8
        .cfi_rel_offset %r14, 0
        pushq   %r15
        .cfi_adjust_cfa_offset 8
        .cfi_rel_offset %r15, 0
#if defined(AB_CORO_SAVE_FPENV)
        subq    $8, %rsp
        .cfi_adjust_cfa_offset 8
        stmxcsr (%rsp)
        fnstcw  4(%rsp)
        movl    (%rsp), %eax
        movzwl  4(%rsp), %ecx
#endif
        movq    %rsp, (%rdi)
        movq    %rsi, %rsp
#if defined(AB_CORO_SAVE_FPENV)
        /* Reload the control words only when they differ (MXCSR status bits
         * 0-5 are caller-saved and ignored): ldmxcsr and fldcw are slow. */
        movl    (%rsp), %edx
        xorl    %eax, %edx
        testl   $0xFFC0, %edx
        jnz     2f
        cmpw    4(%rsp), %cx
        jne     2f
        .cfi_remember_state
1:      addq    $8, %rsp
        .cfi_adjust_cfa_offset -8
#endif
        popq    %r15
        .cfi_adjust_cfa_offset -8
        .cfi_restore %r15
        popq    %r14
        .cfi_adjust_cfa_offset -8
        .cfi_restore %r14
        popq    %r13
        .cfi_adjust_cfa_offset -8
        .cfi_restore %r13
        popq    %r12
        .cfi_adjust_cfa_offset -8
        .cfi_restore %r12
        popq    %rbx
        .cfi_adjust_cfa_offset -8
        .cfi_restore %rbx
        popq    %rbp
        .cfi_adjust_cfa_offset -8
        .cfi_restore %rbp
        /* Not `ret`: that return would be mispredicted on every switch (the
         * CPU predicts a return from its return-address stack, which holds
         * the caller in the context just left).  An indirect jump is
         * predicted from the branch history instead, and a switch site
         * mostly goes to one place: a switch one way fell from ~8 to ~2.3 ns
         * on AMD EPYC.  rcx is caller-saved, free to use here. */
        popq    %rcx
        .cfi_adjust_cfa_offset -8
        .cfi_register %rip, %rcx
        jmpq    *%rcx
#if defined(AB_CORO_SAVE_FPENV)
        /* Reached with the control words' slot still on the stack. */
        .cfi_restore_state
2:      ldmxcsr (%rsp)
        fldcw   4(%rsp)
        jmp     1b
#endif
        END_FUNCTION ab__coro_switch

        FUNCTION ab__coro_boot
        /* The outermost frame of a coroutine: nothing to unwind to. */
        .cfi_undefined %rip
        movq    %r12, %rdi
        callq   *%r13
        ud2
        END_FUNCTION ab__coro_boot

#endif /* AB_CORO_SAVE_FPENV */

#endif /* __x86_64__ */

        NO_EXEC_STACK
