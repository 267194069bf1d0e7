/*
 * harness.h -- the program contract every C variant runs under, for any
 * workload.
 *
 * One process runs one variant: it parses the flags of DESIGN section 3 (the
 * generic ones and the workload's own), runs optional untimed warm-up
 * iterations, then the timed section, and prints exactly one JSON line on
 * stdout (DESIGN section 3).  Exit codes:
 *
 *   AB_EXIT_OK     0  every completion verified (ok == iterations)
 *   AB_EXIT_VERIFY 1  wrong result, wrong count, an operation failed, or
 *                     the loop did not close (a leaked handle)
 *   AB_EXIT_USAGE  2  bad or unknown flag, bad number, unknown variant or
 *                     backend
 *   AB_EXIT_ENV    3  the environment: a fixture missing or unreadable (the
 *                     workload's setup says so), out of memory (recorded with
 *                     ab_run_oom()), an open-file limit too low for the
 *                     operations in flight (ab_fd_limit_check)
 *
 * With --passes P the timed pass runs P times in the one process, each over
 * all N operations, each verified and timed by the same clock rule; the line
 * lists every pass's time (passes_elapsed_ns), and its other figures are the
 * first timed pass's (DESIGN section 3).
 *
 * A workload plugs in through one ab_workload_t: its name, its own flags
 * (with defaults and help), its backends, its variants, a setup that checks
 * its inputs and prepares the loop, the check of one completed operation, a
 * teardown, and optional extra fields for the line.  The harness knows
 * nothing else of it.
 *
 * A variant counts its completions through ab_run_check(), which hands the
 * operation's result to the workload's check; the check calls ab_run_ok()
 * when the result is right (the harness counts it and stamps the end of the
 * timed section at the last one) or ab_run_fail() when not (the first
 * failure wins).  Everything else a variant needs (the loop, N, K, the
 * workload's state) is in ab_run_t.  c/lib/modes.h issues the operations of
 * the usual styles and modes for a workload.
 */
#ifndef AB_HARNESS_H
#define AB_HARNESS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <uv.h>

enum {
  AB_EXIT_OK = 0,
  AB_EXIT_VERIFY = 1,
  AB_EXIT_USAGE = 2,
  AB_EXIT_ENV = 3
};

/* Default concurrency of a bounded variant when --concurrency is 0. */
#define AB_DEFAULT_BOUND 64

/* The most timed passes one process runs (--passes P, 1 <= P <= this): the
 * line lists each pass's time, so P bounds its length. */
#define AB_PASSES_MAX 10000

/* How many flags of its own a workload may declare. */
#define AB_FLAGS_MAX 8

typedef struct ab_run_s ab_run_t;

/* The process's heap in use (bytes malloc holds: mallinfo2 on glibc, the
 * malloc zones' statistics on macOS, the sanitizer's allocator under ASan or
 * TSan, 0 where none exists) and its minor page faults so far (getrusage), at
 * one moment. */
typedef struct ab_mark_s {
  uint64_t heap_bytes;
  uint64_t faults;
  uint64_t stacks;       /* coroutine stacks mapped so far (coro.h) */
} ab_mark_t;
typedef struct ab_opts_s ab_opts_t;

/* One flag of a workload, e.g. {"--file", "PATH", "fixtures/text.txt",
 * "file to read"}: its value is a string (the workload's setup parses it). */
typedef struct ab_flag_s {
  const char *name;      /* "--file" */
  const char *meta;      /* what the value is, for --help: "PATH" */
  const char *value;     /* the default; must equal the catalog's */
  const char *help;      /* one line for --help */
} ab_flag_t;

/* What a variant does: issue run->n operations on run->loop, drive the loop
 * until all have completed or one failed, and return 0 (or -1 on failure,
 * with ab_run_fail() called).  It must leave no handle open. */
typedef int (*ab_variant_fn)(ab_run_t *run);

/* A variant; its name (what --variant takes) is style[-shape]-mode. */
typedef struct ab_variant_s {
  const char *style;     /* "promise" */
  const char *shape;     /* "counter", or NULL for none */
  const char *mode;      /* "sequential" | "parallel" | "bounded" */
  ab_variant_fn fn;
  const char *runtime_extra; /* appended to the runtime field, e.g. ", coro asm" */
  int test_only;         /* a deliberately broken variant for the runner's
                            self-test: the harness does not enforce ok == n,
                            and --help does not list it */
} ab_variant_t;

/* A workload: everything the harness asks of it. */
typedef struct ab_workload_s {
  const char *name;             /* "readfile": the line's workload, the id's first part */
  const char *about;            /* what one operation is, for --help */
  const ab_flag_t *flags;       /* its own flags, up to AB_FLAGS_MAX, ended by
                                   {NULL}; NULL when it has none */
  /* The name of backend k (0, 1, ...), NULL past the last; the first is the
   * default of --backend. */
  const char *(*backend)(size_t k);
  const ab_variant_t *variants; /* ended by {NULL} */
  /* Before any pass, once the loop exists: checks the inputs and prepares
   * what the passes share (opts->backend is one of the backends).  Returns
   * AB_EXIT_OK with *state set (it becomes run->state), or an exit code
   * after one line on stderr (a missing fixture: AB_EXIT_ENV).  May be NULL
   * (nothing to check; run->state is NULL). */
  int (*setup)(const ab_opts_t *opts, uv_loop_t *loop, void **state);
  /* Verifies one completed operation of iteration i: `result` is what the
   * variant hands ab_run_check (the workload's own record of it).  Calls
   * ab_run_ok() and returns 0, or ab_run_fail() and returns -1. */
  int (*check)(ab_run_t *run, long i, const void *result);
  /* After the last pass: undoes setup (handles it closes finish in the
   * harness's last loop run, before uv_loop_close).  May be NULL. */
  void (*teardown)(void *state);
  /* Writes extra fields after "runtime", each as ,"name":value.  May be NULL. */
  void (*json)(FILE *out, const ab_run_t *run);
  /* File descriptors one operation holds while in flight (a read: 1, from
   * its open to its close); 0 when it holds none.  The harness checks the
   * open-file limit against it before anything is timed (ab_fd_limit_check). */
  unsigned fds_per_op;
} ab_workload_t;

struct ab_opts_s {
  const char *prog;      /* argv[0], for messages */
  long iterations;       /* --iterations N, N >= 1 */
  long warmup;           /* --warmup N, N >= 0, untimed */
  long passes;           /* --passes P, 1 <= P <= AB_PASSES_MAX: timed passes */
  long concurrency;      /* --concurrency K, K >= 0, 0 = unbounded */
  long lockstep;         /* --lockstep 1: passes on command (below), 0 = off */
  const char *variant;   /* --variant NAME */
  const char *backend;   /* --backend NAME */
  const char *flags[AB_FLAGS_MAX]; /* the workload's flag values, in the order
                                      of its flags (defaults when not given) */
};

/* One pass (the warm-up or one of the timed ones) of a variant over `n`
 * operations. */
struct ab_run_s {
  uv_loop_t *loop;
  const ab_opts_t *opts;
  const ab_workload_t *workload;
  void *state;           /* the workload's, from its setup */
  long n;                /* operations in this pass */
  long concurrency;      /* effective K for this pass: 1, 0 (all) or the bound */
  long ok;               /* verified completions */
  uint64_t bytes;        /* sum of what the completions counted (ab_run_ok) */
  uint64_t t_start_ns;   /* stamped by ab_run_begin() */
  uint64_t t_end_ns;     /* stamped when the n-th completion verifies */
  /* What the pass did between its start (the harness calling the variant)
   * and ab_run_begin: heap bytes malloc holds more, minor page faults (memory
   * first touched).  Written by ab_run_begin; the line's preclock_heap_bytes
   * and preclock_faults (DESIGN section 3). */
  ab_mark_t mark;        /* at the pass's start (ab_run_mark) */
  uint64_t preclock_heap_bytes;
  uint64_t preclock_faults;
  /* Coroutine stacks mapped between the pass's start and ab_run_begin: the
   * harness fails a pass that mapped any (DESIGN section 3: C maps no stacks
   * before its clock; a stack the warm-up left in the pool may be reused). */
  uint64_t preclock_stacks;
  long failed_at;        /* iteration of the first failure, -1 if none */
  int env_error;         /* that failure was out of memory: exit 3, not 1 */
  char error[256];       /* what went wrong there */
};

/* Monotonic clock in nanoseconds. */
uint64_t ab_now_ns(void);

/* Parses argv into opts.  Returns AB_EXIT_OK, or AB_EXIT_USAGE after printing
 * the reason and the usage to stderr.  --help prints usage to stdout and
 * returns -1 (the caller exits 0). */
int ab_parse_args(int argc, char **argv, const ab_workload_t *w, ab_opts_t *opts);

/* Parses a workload flag's value as a whole decimal number from lo to hi
 * (digits only, as every flag's N: no sign or blank): 0 with *out set, or -1. */
int ab_parse_count(const char *s, long lo, long hi, long *out);

/* A workload's setup reading its flag number k (named `flag`, "--delay-ms")
 * with ab_parse_count: AB_EXIT_OK with *out set, or AB_EXIT_USAGE after one
 * line on stderr ("--delay-ms must be an integer from 0 to 9, got 'x'"). */
int ab_flag_count(const ab_opts_t *o, const char *flag, int k, long lo, long hi, long *out);

/* Prints the usage text of a workload's driver to `out`. */
void ab_usage(FILE *out, const char *prog, const ab_workload_t *w);

/* Writes v's name, style[-shape]-mode, into buf (size bytes); returns buf. */
const char *ab_variant_name(const ab_variant_t *v, char *buf, size_t size);

/* Looks a variant up by name; NULL when unknown. */
const ab_variant_t *ab_variant_find(const ab_workload_t *w, const char *name);

/*
 * The clock (DESIGN section 3).  ab_run_begin starts the timed section: a
 * variant calls it once per pass, right before its first per-operation
 * allocation (records, promises, closures, coroutines and their stacks,
 * timers, connections); what it prepares before that is only what no
 * operation owns (the pass's own handles, a table of expected values).  The
 * clock stops at the n-th verification (ab_run_ok).  ab_run_begin first
 * records what the pass did since ab_run_mark (preclock_heap_bytes,
 * preclock_faults: a test runs every variant at two N and requires them not
 * to grow with N; preclock_stacks, the coroutine stacks mapped), then stamps
 * t_start_ns.  A pass that never called it fails, and so does one that mapped
 * a coroutine stack before it.
 */
void ab_run_begin(ab_run_t *run);

/* Takes the mark (the heap, page faults and stacks now) that ab_run_begin measures
 * from: the harness calls it right before a pass's variant runs. */
void ab_run_mark(ab_run_t *run);

/* The heap in use, the minor page faults and the coroutine stacks mapped now. */
ab_mark_t ab_mark_now(void);

/* Verifies the completed operation of iteration i through the workload's
 * check: 0, or -1 with the failure recorded. */
static inline int ab_run_check(ab_run_t *run, long i, const void *result) {
  return run->workload->check(run, i, result);
}

/* Counts one verified completion that accounts for `bytes` (0 when the
 * workload moves none); the n-th stamps the end of the timed section. */
static inline void ab_run_ok(ab_run_t *run, uint64_t bytes) {
  run->bytes += bytes;
  if (++run->ok == run->n) run->t_end_ns = ab_now_ns();
}

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
 * The open-file limit (RLIMIT_NOFILE).  ab_main first raises the soft limit
 * to the hard one, as Go's runtime and the Node programs do (on macOS, where
 * the hard limit may be unlimited, to OPEN_MAX when the kernel refuses more).
 * Then, once the loop and the workload's setup exist, it checks that the
 * limit covers the fds a pass can need at once:
 *
 *   needed = open + K * fds_per_op + AB_FD_MARGIN
 *
 *   open          the descriptors open at that point, counted: stdin, stdout
 *                 and stderr, libuv's own (epoll and its eventfd on Linux, a
 *                 kqueue and a pipe pair on macOS), and what the workload's
 *                 setup opened (a backend's ring)
 *   K             operations in flight at most, over the warm-up and the
 *                 timed pass: 1 sequential, N parallel, min(K, N) bounded
 *                 (ab_run_slots)
 *   AB_FD_MARGIN  what may still open later: libuv's lazily made fds (its
 *                 signal pipe pair, an io_uring ring in newer versions), the
 *                 /proc/self/status read for the result line, a spare
 *
 * A new fd always takes the lowest free number, so `needed` is the highest
 * fd number a pass can reach, plus one, which is what the limit bounds.
 * Too low: one line on stderr and exit 3, before the first pass.
 */
#define AB_FD_MARGIN 8

/* The descriptors uv_loop_init() opens: on Linux epoll, the process-wide
 * signal pipe pair, the loop's signal pipe pair and the threadpool's eventfd;
 * elsewhere a kqueue and three pipe pairs.  libuv calls abort() when it
 * cannot make the process-wide pair, so too few free ones end the program
 * with SIGABRT and nothing on stderr unless they are checked first. */
#ifdef __linux__
#define AB_LOOP_FDS 6
#else
#define AB_LOOP_FDS 7
#endif

/* Before uv_loop_init(): AB_EXIT_OK when AB_LOOP_FDS descriptors are free
 * (probed with dup, closed again), else AB_EXIT_ENV after one line on stderr
 * naming the limit and what to raise it to.  `prog` starts the line. */
int ab_loop_fds_check(const char *prog);

/* Raises the soft RLIMIT_NOFILE to the hard limit; 0, or -1 when it could
 * not (the limit stays as it was: the check says what is missing). */
int ab_fd_limit_raise(void);

/* The open-file check above for a variant `v` of w under `o`: AB_EXIT_OK, or
 * AB_EXIT_ENV after one line on stderr naming the number needed. */
int ab_fd_limit_check(const ab_opts_t *o, const ab_workload_t *w, const ab_variant_t *v);

/*
 * Starts libuv's threadpool on `loop` before anything is timed, for a workload
 * whose operations run there (libuv starts it at the first such request,
 * inside the timed section).  libuv aborts without a word when it cannot
 * create a thread of its pool (a small `ulimit -v` or `ulimit -u`), so this
 * first creates as many threads as libuv will (UV_THREADPOOL_SIZE, read as
 * libuv reads it) with 8 MiB stacks, all alive at once, which names the
 * reason; then queues a no-op work request and runs the loop until it is
 * done, with SIGABRT caught meanwhile, so that an abort there (libuv's pool
 * start failing in a way the first step did not foresee) is one line and
 * exit 3 too.  An abort later, or in a thread libuv starts for something
 * else, is not caught.  Returns AB_EXIT_OK, or AB_EXIT_ENV after one line on
 * stderr.
 */
int ab_threadpool_start(uv_loop_t *loop, const char *prog);

/*
 * The whole life of a driver: parse flags, make the loop, the workload's
 * setup (its exit code, e.g. 3 for a missing fixture), warm-up then the
 * --passes timed passes, teardown, close the loop, print the JSON line.
 * Returns the process exit code.
 *
 * With --lockstep 1 (DESIGN section 3, the lockstep protocol) the timed
 * passes come on command instead: after the warm-up the program prints
 * {"lockstep":"ready","warmup_ns":W} and reads standard input a line at a
 * time.  "pass" runs one timed pass of N and prints its line (the line of a
 * process of one pass: that pass's time, CPU, idle and peak resident sets and
 * counts); "end" closes the loop and prints {"lockstep":"end","passes":P,
 * "user_us":U,"sys_us":S,"peak_rss_kb":K} (the process's whole CPU and peak)
 * and exits 0; a closed stdin ends it the same way without that line; any
 * other command is one line on stderr and exit 2.  A pass that fails to
 * verify is exit 1, as without --lockstep.
 */
int ab_main(int argc, char **argv, const ab_workload_t *w);

#endif /* AB_HARNESS_H */
