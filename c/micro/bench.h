/*
 * bench.h -- the timing harness the micro-benchmarks of c/micro/ share.
 *
 * Each program is one file (the Makefile builds each .c file of c/micro/ into a
 * binary of its own), so the harness is a header of static functions:
 *
 *   bench_parse_n(argc, argv)   the optional N (operations per round) of
 *                       `micro-<name> [N] [--tsv] [--only ID]`; exits 2 with
 *                       a usage line if bad; --tsv sets bench_tsv
 *   bench_wanted(id)    false when --only names another figure: one figure
 *                       alone, for counting its instructions (valgrind
 *                       --tool=callgrind at two N: the difference over
 *                       8 x the difference of N is one operation's)
 *   bench_print(id, name, wall, cpu)   one figure: a line for people, or with
 *                       --tsv the line runner/tools/micro.py reads:
 *                       id TAB wall ns TAB cpu ns TAB clock   (clock "thread":
 *                       CLOCK_THREAD_CPUTIME_ID); nothing else goes to stdout
 *   bench_median(fn, ops, &wall, &cpu)   runs fn once untimed (it fills the
 *                       pools), then BENCH_ROUNDS timed times, and gives the
 *                       median ns per operation by the wall clock and by the
 *                       thread's CPU time, one call of fn being `ops`
 *                       operations
 *
 * The thread CPU time leaves out time spent waiting for a core, so on a
 * shared host it is the steadier of the two figures.
 */
#ifndef AB_MICRO_BENCH_H
#define AB_MICRO_BENCH_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"

#define BENCH_ROUNDS 7

static int bench_cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static uint64_t bench_cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void bench_median(void (*fn)(void), double ops, double *wall, double *cpu) {
  uint64_t w[BENCH_ROUNDS], c[BENCH_ROUNDS];
  fn();
  for (int r = 0; r < BENCH_ROUNDS; r++) {
    uint64_t w0 = ab_now_ns(), c0 = bench_cpu_ns();
    fn();
    c[r] = bench_cpu_ns() - c0;
    w[r] = ab_now_ns() - w0;
  }
  qsort(w, BENCH_ROUNDS, sizeof(w[0]), bench_cmp_u64);
  qsort(c, BENCH_ROUNDS, sizeof(c[0]), bench_cmp_u64);
  *wall = (double)w[BENCH_ROUNDS / 2] / ops;
  *cpu = (double)c[BENCH_ROUNDS / 2] / ops;
}

static int bench_tsv; /* --tsv: machine lines only (runner/tools/micro.py) */
static const char *bench_only; /* --only ID: that figure alone */

static int bench_wanted(const char *id) {
  return bench_only == NULL || strcmp(bench_only, id) == 0;
}

static long bench_parse_n(int argc, char **argv) {
  long n = 1000000;
  int have_n = 0;
  for (int i = 1; i < argc; i++) {
    char *end;
    if (strcmp(argv[i], "--tsv") == 0) {
      bench_tsv = 1;
      continue;
    }
    if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
      bench_only = argv[++i];
      continue;
    }
    if (have_n || argv[i][0] < '0' || argv[i][0] > '9') goto usage;
    errno = 0;
    n = strtol(argv[i], &end, 10);
    if (*end != '\0' || n < 1 || errno == ERANGE) goto usage;
    have_n = 1;
  }
  return n;
usage:
  fprintf(stderr, "usage: %s [N] [--tsv] [--only ID]   (N >= 1 operations per round)\n",
          argv[0]);
  exit(2);
}

/* Prints one figure (ns per operation by the wall clock and the thread's CPU clock). */
static void bench_print(const char *id, const char *name, double wall, double cpu) {
  if (bench_tsv)
    printf("%s\t%.3f\t%.3f\tthread\n", id, wall, cpu);
  else
    printf("  %-40s %7.2f ns  (thread CPU time: %.2f ns)\n", name, wall, cpu);
}

/* A header line for people (nothing with --tsv). */
#define bench_header(...) \
  do {                     \
    if (!bench_tsv) printf(__VA_ARGS__); \
  } while (0)

#endif /* AB_MICRO_BENCH_H */
