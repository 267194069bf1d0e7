/*
 * asm.h -- what the assembly files (coro_switch_*.S) share: one source for
 * ELF (Linux) and Mach-O (macOS).
 *
 * A function is written between two assembler macros,
 *
 *         FUNCTION f
 *         ...
 *         END_FUNCTION f
 *
 * FUNCTION makes f a global, hidden symbol (.hidden on ELF, .private_extern
 * on Mach-O, whose C symbols have a leading underscore), marks it a function
 * (ELF's .type), aligns it to 16 bytes, places its label and opens its CFI
 * (.cfi_startproc).  END_FUNCTION closes the CFI and gives f its size (ELF's
 * .size; Mach-O has neither .type nor .size).  What belongs to the function
 * itself, a landing pad included, comes after FUNCTION.
 *
 * They are assembler macros (.macro), one statement a line, and not
 * preprocessor macros: those can only join statements with `;`, which on
 * arm64 Mach-O starts a comment (its separator is `%%`): an object built that
 * way defines none of its symbols.
 *
 * NO_EXEC_STACK, last in a file: on Linux, the note that says the object
 * needs no executable stack (without it the linker makes the stack
 * executable, or warns).
 */
#ifndef AB_ASM_H
#define AB_ASM_H

#if defined(__APPLE__)
        .macro FUNCTION name
        .globl  _\name
        .private_extern _\name
        .p2align 4
_\name:
        .cfi_startproc
        .endm

        .macro END_FUNCTION name
        .cfi_endproc
        .endm
#else
        .macro FUNCTION name
        .globl  \name
        .hidden \name
        .type   \name, %function
        .p2align 4
\name:
        .cfi_startproc
        .endm

        .macro END_FUNCTION name
        .cfi_endproc
        .size   \name, . - \name
        .endm
#endif

#if defined(__linux__) && defined(__ELF__)
#define NO_EXEC_STACK .section .note.GNU-stack, "", %progbits
#else
#define NO_EXEC_STACK
#endif

#endif /* AB_ASM_H */
