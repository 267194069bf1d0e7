/*
 * counters.c -- the process's ab_counters (counters.h).  Only the variable:
 * the promise core counts into it without needing libuv or the harness, which
 * installs libuv's counting allocator (harness.c).
 */
#include "counters.h"

ab_counters_t ab_counters;
