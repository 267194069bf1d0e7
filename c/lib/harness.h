/*
 * harness.h -- the program contract every C variant runs under.
 *
 * One process runs one variant: it parses the flags of DESIGN section 3, runs
 * optional untimed warm-up iterations, then the timed section, and prints
 * exactly one JSON line on stdout.  Exit codes:
 *
 *   AB_EXIT_OK     0  every completion verified (ok == iterations)
 *   AB_EXIT_VERIFY 1  wrong content, wrong count, an operation failed, or
 *                     the loop did not close (a leaked handle)
 *   AB_EXIT_USAGE  2  bad or unknown flag, bad number, unknown variant
 *   AB_EXIT_ENV    3  fixture missing or unreadable (or a FIFO), out of
 *                     memory (recorded with ab_run_oom())
 *
 * A variant counts its completions through ab_run_check(), which compares the
 * bytes read with --expect, records the first failure (iteration and reason)
 * and stamps the end of the timed section when the last completion verifies.
 * Everything else a variant needs (the loop, N, K, the path) is in ab_run_t.
 */
#ifndef AB_HARNESS_H
#define AB_HARNESS_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

enum {
  AB_EXIT_OK = 0,
  AB_EXIT_VERIFY = 1,
  AB_EXIT_USAGE = 2,
  AB_EXIT_ENV = 3
};

/* Default concurrency of a bounded variant when --concurrency is 0. */
#define AB_DEFAULT_BOUND 64

typedef struct ab_opts_s {
  long iterations;       /* --iterations N, N >= 1 */
  long warmup;           /* --warmup N, N >= 0, untimed */
  long concurrency;      /* --concurrency K, K >= 0, 0 = unbounded */
  const char *file;      /* --file PATH */
  const char *expect;    /* --expect TEXT */
  size_t expect_len;
  const char *variant;   /* --variant STYLE-MODE */
  const char *backend;   /* --backend NAME */
} ab_opts_t;

/* One pass (warm-up or timed) of a variant over `n` operations. */
typedef struct ab_run_s {
  uv_loop_t *loop;
  const ab_opts_t *opts;
  const struct ab_backend_s *backend;
  long n;                /* operations in this pass */
  long concurrency;      /* effective K for this pass: 1, n or the bound */
  long ok;               /* verified completions */
  uint64_t bytes;        /* sum of bytes read */
  uint64_t t_start_ns;   /* stamped by ab_run_begin() */
  uint64_t t_end_ns;     /* stamped when the n-th completion verifies */
  long failed_at;        /* iteration of the first failure, -1 if none */
  int env_error;         /* that failure was out of memory: exit 3, not 1 */
  char error[256];       /* what went wrong there */
  void *data;            /* the variant's own state */
} ab_run_t;

/* What a variant does: issue run->n operations on run->loop, drive the loop
 * until all have completed or one failed, and return 0 (or -1 on failure,
 * with ab_run_fail() called).  It must leave no handle open. */
typedef int (*ab_variant_fn)(ab_run_t *run);

typedef struct ab_variant_s {
  const char *name;      /* "callback-sequential" */
  const char *style;     /* "callback" */
  const char *mode;      /* "sequential" | "parallel" | "bounded" */
  ab_variant_fn fn;
  const char *runtime_extra; /* appended to the runtime field, e.g. ", coro asm" */
  int test_only;         /* a deliberately broken variant for the runner's
                            self-test: the harness does not enforce ok == n */
} ab_variant_t;

/* Monotonic clock in nanoseconds. */
uint64_t ab_now_ns(void);

/* Parses argv into opts.  Returns AB_EXIT_OK, or AB_EXIT_USAGE after printing
 * the reason and the usage to stderr.  --help prints usage to stdout and
 * exits 0 (returns -1 so the caller exits cleanly). */
int ab_parse_args(int argc, char **argv, const char *workload,
                  const ab_variant_t *variants, ab_opts_t *opts);

/* Prints the usage text for a workload's driver to `out`. */
void ab_usage(void *out, const char *prog, const char *workload,
              const ab_variant_t *variants);

/* Looks a variant up by name; NULL when unknown. */
const ab_variant_t *ab_variant_find(const ab_variant_t *variants,
                                    const char *name);

/* Starts the timed section: stamps t_start_ns. */
void ab_run_begin(ab_run_t *run);

/* Verifies one completion of iteration `i` that read `nread` bytes into `buf`
 * (nread < 0 is a libuv error code).  Returns 0 when the content matches
 * --expect, -1 otherwise (the first failure is recorded). */
int ab_run_check(ab_run_t *run, long i, const char *buf, ssize_t nread);

/* Records a failure of iteration `i` (first one wins) in printf style. */
void ab_run_fail(ab_run_t *run, long i, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Records running out of memory for `what` at iteration `i` ("out of memory
 * for <what>"; first failure wins): an environment error, so exit 3. */
void ab_run_oom(ab_run_t *run, long i, const char *what);

/* True once every operation of the pass has verified. */
static inline int ab_run_done(const ab_run_t *run) { return run->ok == run->n; }

/* How many operations a variant keeps in flight: 1 (sequential), n (parallel)
 * or min(K, n) (bounded). */
static inline long ab_run_slots(const ab_run_t *run) {
  return run->concurrency <= 0 || run->concurrency > run->n ? run->n : run->concurrency;
}

/* True once a failure was recorded: variants stop issuing new work. */
static inline int ab_run_failed(const ab_run_t *run) { return run->failed_at >= 0; }

/*
 * The whole life of a driver: parse flags, pre-check the fixture (exit 3),
 * make the loop, run warm-up then the timed pass, close the loop, print the
 * JSON line.  Returns the process exit code.
 */
int ab_main(int argc, char **argv, const char *workload,
            const ab_variant_t *variants);

#endif /* AB_HARNESS_H */
