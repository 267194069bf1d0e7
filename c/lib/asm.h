/*
 * asm.h -- what the assembly files (coro_switch_*.S) share: one source for
 * ELF (Linux) and Mach-O (macOS).
 *
 * Each macro expands to one statement: a function is written out line by line
 *
 *         .globl  SYM(f)
 *         HIDDEN(f)
 *         TYPE_FUNCTION(f)
 *         .p2align 4
 *   SYM(f):
 *         ...
 *         SIZE(f)
 *
 * and never as statements joined by `;`, which on arm64 Mach-O starts a
 * comment (its separator is `%%`): an object built that way defines none of
 * its symbols.  Mach-O names C symbols with a leading underscore, marks
 * hidden ones .private_extern and has no .type or .size.
 */
#ifndef AB_ASM_H
#define AB_ASM_H

#if defined(__APPLE__)
#define SYM(name) _##name
#define HIDDEN(name) .private_extern _##name
#define TYPE_FUNCTION(name)
#define SIZE(name)
#else
#define SYM(name) name
#define HIDDEN(name) .hidden name
#if defined(__x86_64__)
#define TYPE_FUNCTION(name) .type name, @function
#else
#define TYPE_FUNCTION(name) .type name, %function
#endif
#define SIZE(name) .size name, . - name
#endif

#endif /* AB_ASM_H */
