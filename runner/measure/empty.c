/*
 * empty.c -- the empty C program: the runner runs it once per round, and its
 * wall time is what starting and ending a C process costs on this host
 * (exec, the dynamic loader with libuv, which every C program loads, exit),
 * which every C variant's time outside its clock is compared with less it
 * (DESIGN section 6).  It asks libuv its version, so that a linker that drops
 * unused libraries still loads libuv.  Built by `make all` as build/bin/c-empty.
 */
#include <uv.h>

int main(void) { return uv_version() == 0; }
