/*
 * coro_switch_x86_64.S -- the coroutine context switch for x86_64 System V
 * (Linux ELF and macOS Mach-O).  Assembled on every host; empty elsewhere.
 *
 * void ab__coro_switch(void **save_sp, void *load_sp)
 *   Pushes the callee-saved state onto the current stack, stores the stack
 *   pointer in *save_sp, loads load_sp and pops the state saved there, then
 *   returns into whatever that context was doing.  Frame, low to high:
 *
 *     sp+0   MXCSR (4 bytes), x87 control word (2 bytes), 2 bytes padding
 *     sp+8   r15, r14, r13, r12, rbx, rbp
 *     sp+56  return address
 *
 *   Only callee-saved state is kept: the caller of a C function already
 *   assumes every other register is clobbered.
 *
 * ab__coro_boot
 *   Where a new coroutine's first switch "returns" to: coro.c builds the frame
 *   above with r12 = the coroutine, r13 = its C entry, rbp = 0 (the end of the
 *   frame-pointer chain for debuggers) and the return address = this label,
 *   16-byte aligned after the return so the call below sees the ABI alignment.
 *   The entry never returns: it switches away for good when the body is done.
 */
#if defined(__x86_64__)

#if defined(__APPLE__)
#define SYM(name) _##name
#define FUNC_BEGIN(name) .globl SYM(name); .p2align 4; SYM(name):
#define FUNC_END(name)
#else
#define SYM(name) name
#define FUNC_BEGIN(name) .globl name; .hidden name; .type name, @function; .p2align 4; name:
#define FUNC_END(name) .size name, . - name
#endif

        .text

FUNC_BEGIN(ab__coro_switch)
        pushq   %rbp
        pushq   %rbx
        pushq   %r12
        pushq   %r13
        pushq   %r14
        pushq   %r15
        subq    $8, %rsp
        stmxcsr (%rsp)
        fnstcw  4(%rsp)
        movq    %rsp, (%rdi)
        movq    %rsi, %rsp
        ldmxcsr (%rsp)
        fldcw   4(%rsp)
        addq    $8, %rsp
        popq    %r15
        popq    %r14
        popq    %r13
        popq    %r12
        popq    %rbx
        popq    %rbp
        ret
FUNC_END(ab__coro_switch)

FUNC_BEGIN(ab__coro_boot)
        movq    %r12, %rdi
        callq   *%r13
        ud2
FUNC_END(ab__coro_boot)

#endif /* __x86_64__ */

#if defined(__linux__) && defined(__ELF__)
        .section .note.GNU-stack, "", %progbits
#endif
