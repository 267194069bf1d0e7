/*
 * harness.c -- flags, timing, rusage, the JSON result line and exit codes,
 * for any workload (harness.h).
 */
#include "harness.h"

#include "coro.h"
#include "counters.h"
#include "promise.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <dirent.h>
#include <unistd.h>

/* Under a sanitizer its allocator replaces malloc, and mallinfo2 sees none of
 * it: ask the sanitizer instead. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define AB__SANITIZER_HEAP 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define AB__SANITIZER_HEAP 1
#endif
#if defined(AB__SANITIZER_HEAP)
/* From the sanitizer's runtime (compiler-rt's allocator_interface.h, which
 * gcc does not install). */
size_t __sanitizer_get_current_allocated_bytes(void);
#elif defined(__GLIBC__)
#include <malloc.h>
#elif defined(__APPLE__)
#include <malloc/malloc.h>
#endif

/* libuv's allocator, counting its calls (counters.h). */
static void *count_malloc(size_t size) {
  AB_COUNT_ALLOC();
  return malloc(size);
}

static void *count_realloc(void *p, size_t size) {
  AB_COUNT_ALLOC();
  return realloc(p, size);
}

static void *count_calloc(size_t n, size_t size) {
  AB_COUNT_ALLOC();
  return calloc(n, size);
}

uint64_t ab_now_ns(void) {
  /* uv_hrtime() is CLOCK_MONOTONIC on Linux and mach_absolute_time() on macOS. */
  return uv_hrtime();
}

const char *ab_variant_name(const ab_variant_t *v, char *buf, size_t size) {
  snprintf(buf, size, "%s%s%s-%s", v->style, v->shape ? "-" : "", v->shape ? v->shape : "",
           v->mode);
  return buf;
}

const ab_variant_t *ab_variant_find(const ab_workload_t *w, const char *name) {
  const ab_variant_t *v;
  char buf[128];
  for (v = w->variants; v->style != NULL; v++)
    if (strcmp(ab_variant_name(v, buf, sizeof(buf)), name) == 0) return v;
  return NULL;
}

/* The number of flags a workload declares. */
static int flag_count(const ab_workload_t *w) {
  int k = 0;
  while (w->flags != NULL && w->flags[k].name != NULL) k++;
  return k;
}

void ab_usage(FILE *f, const char *prog, const ab_workload_t *w) {
  const ab_variant_t *v;
  char buf[128];
  size_t b;
  int k;
  fprintf(f,
          "usage: %s --variant NAME [options]\n"
          "Runs one %s variant (an operation: %s) and prints one JSON line with the result.\n"
          "\n"
          "  --variant NAME      which variant (below)\n"
          "  --backend NAME      backend:",
          prog, w->name, w->about);
  for (b = 0; w->backend(b) != NULL; b++) fprintf(f, "%s %s", b ? "," : "", w->backend(b));
  fprintf(f,
          " (default %s)\n"
          "  --iterations N      operations to time, N >= 1 (default 10000)\n"
          "  --concurrency K     bounded mode: at most K in flight (0 = default %d)\n"
          "  --warmup N          untimed iterations before the timed ones (default 0)\n"
          "  --passes P          timed passes of N after the warm-up, 1 to %d (default 1)\n"
          "  --lockstep 0|1      1: after the warm-up, a timed pass per 'pass' on stdin,\n"
          "                      'end' to finish (DESIGN section 3; default 0)\n",
          w->backend(0), AB_DEFAULT_BOUND, AB_PASSES_MAX);
  for (k = 0; k < flag_count(w); k++) {
    const ab_flag_t *fl = &w->flags[k];
    char lhs[64];
    snprintf(lhs, sizeof(lhs), "%s %s", fl->name, fl->meta);
    fprintf(f, "  %-19s %s (default '%s')\n", lhs, fl->help, fl->value);
  }
  fprintf(f,
          "  --help              this text\n"
          "\n"
          "exit codes: 0 valid, 1 verification failed, 2 usage error, 3 environment error\n"
          "variants:");
  for (v = w->variants; v->style != NULL; v++)
    if (!v->test_only) fprintf(f, " %s", ab_variant_name(v, buf, sizeof(buf)));
  fputc('\n', f);
}

/* Parses a whole decimal number in [min, LONG_MAX]; 0 on success.  Decimal
 * digits only, as Go and Node take them: strtol alone would also take leading
 * blanks and a sign (' 10', '+10'). */
static int parse_long(const char *s, long min, long *out) {
  const char *p;
  char *end;
  long v;
  if (s == NULL || *s == '\0') return -1;
  for (p = s; *p != '\0'; p++)
    if (*p < '0' || *p > '9') return -1;
  errno = 0;
  v = strtol(s, &end, 10);
  if (errno != 0 || *end != '\0' || v < min) return -1;
  *out = v;
  return 0;
}

int ab_parse_count(const char *s, long lo, long hi, long *out) {
  long v;
  if (parse_long(s, lo, &v) != 0 || v > hi) return -1;
  *out = v;
  return 0;
}

int ab_flag_count(const ab_opts_t *o, const char *flag, int k, long lo, long hi, long *out) {
  if (ab_parse_count(o->flags[k], lo, hi, out) == 0) return AB_EXIT_OK;
  fprintf(stderr, "%s: %s must be an integer from %ld to %ld, got '%s'\n", o->prog, flag, lo, hi,
          o->flags[k] != NULL ? o->flags[k] : "");
  return AB_EXIT_USAGE;
}

static int usage_error(const ab_opts_t *o, const ab_workload_t *w, const char *fmt,
                       const char *arg) {
  fprintf(stderr, "%s: ", o->prog);
  fprintf(stderr, fmt, arg);
  fputc('\n', stderr);
  ab_usage(stderr, o->prog, w);
  return AB_EXIT_USAGE;
}

/* True when `name` is one of the workload's backends. */
static int backend_known(const ab_workload_t *w, const char *name) {
  size_t b;
  for (b = 0; w->backend(b) != NULL; b++)
    if (strcmp(w->backend(b), name) == 0) return 1;
  return 0;
}

/* Whether the first len bytes of arg are the flag name. */
static int flag_is(const char *arg, size_t len, const char *name) {
  return strlen(name) == len && strncmp(arg, name, len) == 0;
}

int ab_parse_args(int argc, char **argv, const ab_workload_t *w, ab_opts_t *o) {
  int nflags = flag_count(w);
  int i, k;

  memset(o, 0, sizeof(*o));
  o->prog = argc > 0 ? argv[0] : w->name;
  o->iterations = 10000;
  o->passes = 1;
  o->backend = w->backend(0);
  if (nflags > AB_FLAGS_MAX)
    return usage_error(o, w, "%s declares more flags than AB_FLAGS_MAX", w->name);
  for (k = 0; k < nflags; k++) o->flags[k] = w->flags[k].value;

  for (i = 1; i < argc; i++) {
    const char *a = argv[i];
    /* --flag VALUE, or --flag=VALUE as Go's flag package and Node's
     * parseArgs also take: the name is what precedes the first '='. */
    const char *eq = strncmp(a, "--", 2) == 0 ? strchr(a, '=') : NULL;
    size_t len = eq != NULL ? (size_t)(eq - a) : strlen(a);
    const char *v = eq != NULL ? eq + 1 : i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      ab_usage(stdout, o->prog, w);
      return -1;
    }
    if (strncmp(a, "--", 2) != 0) return usage_error(o, w, "unexpected argument '%s'", a);
    if (v == NULL) return usage_error(o, w, "%s needs a value", a);
    if (flag_is(a, len, "--iterations")) {
      if (parse_long(v, 1, &o->iterations) != 0)
        return usage_error(o, w, "--iterations must be a positive integer, got '%s'", v);
    } else if (flag_is(a, len, "--warmup")) {
      if (parse_long(v, 0, &o->warmup) != 0)
        return usage_error(o, w, "--warmup must be a non-negative integer, got '%s'", v);
    } else if (flag_is(a, len, "--passes")) {
      if (ab_parse_count(v, 1, AB_PASSES_MAX, &o->passes) != 0) {
        char why[96];
        snprintf(why, sizeof(why), "--passes must be an integer from 1 to %d, got '%%s'",
                 AB_PASSES_MAX);
        return usage_error(o, w, why, v);
      }
    } else if (flag_is(a, len, "--lockstep")) {
      if (ab_parse_count(v, 0, 1, &o->lockstep) != 0)
        return usage_error(o, w, "--lockstep must be an integer from 0 to 1, got '%s'", v);
    } else if (flag_is(a, len, "--concurrency")) {
      if (parse_long(v, 0, &o->concurrency) != 0)
        return usage_error(o, w, "--concurrency must be a non-negative integer, got '%s'", v);
    } else if (flag_is(a, len, "--variant")) {
      o->variant = v;
    } else if (flag_is(a, len, "--backend")) {
      o->backend = v;
    } else {
      for (k = 0; k < nflags && !flag_is(a, len, w->flags[k].name); k++) continue;
      if (k == nflags) {
        char name[64];
        snprintf(name, sizeof(name), "%.*s", (int)len, a);
        return usage_error(o, w, "unknown flag '%s'", name);
      }
      o->flags[k] = v;
    }
    if (eq == NULL) i++;
  }
  if (o->variant == NULL) return usage_error(o, w, "%s", "--variant is required");
  if (ab_variant_find(w, o->variant) == NULL)
    return usage_error(o, w, "unknown variant '%s'", o->variant);
  if (!backend_known(w, o->backend))
    return usage_error(o, w, "unknown backend '%s'", o->backend);
  if (o->lockstep && o->passes != 1)
    return usage_error(o, w, "%s", "--lockstep runs one pass a command: --passes must be 1");
  return AB_EXIT_OK;
}

void ab_run_fail(ab_run_t *run, long i, const char *fmt, ...) {
  va_list ap;
  if (run->failed_at >= 0) return;
  run->failed_at = i;
  va_start(ap, fmt);
  vsnprintf(run->error, sizeof(run->error), fmt, ap);
  va_end(ap);
}

void ab_run_oom(ab_run_t *run, long i, const char *what) {
  if (run->failed_at >= 0) return;
  ab_run_fail(run, i, "out of memory for %s", what);
  run->env_error = 1;
}

ab_mark_t ab_mark_now(void) {
  ab_mark_t m = {0, 0, (uint64_t)ab_coro_stacks_mapped()};
  struct rusage ru;
#if defined(AB__SANITIZER_HEAP)
  m.heap_bytes = (uint64_t)__sanitizer_get_current_allocated_bytes();
#elif defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
  struct mallinfo2 mi = mallinfo2();
  m.heap_bytes = (uint64_t)mi.uordblks + (uint64_t)mi.hblkhd;
#elif defined(__APPLE__)
  malloc_statistics_t st;
  malloc_zone_statistics(NULL, &st);
  m.heap_bytes = (uint64_t)st.size_in_use;
#endif
  if (getrusage(RUSAGE_SELF, &ru) == 0) m.faults = (uint64_t)ru.ru_minflt;
  return m;
}

void ab_run_mark(ab_run_t *run) { run->mark = ab_mark_now(); }

void ab_run_begin(ab_run_t *run) {
  ab_mark_t now = ab_mark_now();
  run->preclock_heap_bytes =
      now.heap_bytes > run->mark.heap_bytes ? now.heap_bytes - run->mark.heap_bytes : 0;
  run->preclock_faults = now.faults > run->mark.faults ? now.faults - run->mark.faults : 0;
  run->preclock_stacks = now.stacks > run->mark.stacks ? now.stacks - run->mark.stacks : 0;
  run->t_start_ns = ab_now_ns();
}

static uint64_t tv_us(struct timeval tv) {
  return (uint64_t)tv.tv_sec * 1000000u + (uint64_t)tv.tv_usec;
}

/*
 * Peak resident memory of this program in KiB.  On Linux ru_maxrss survives
 * exec(): a program started by a large parent (a Python runner) would report
 * the parent's peak.  VmHWM in /proc/self/status belongs to this image alone,
 * so it is preferred; ru_maxrss is the fallback (KiB on Linux, bytes on macOS).
 */
static long peak_rss_kb(const struct rusage *ru) {
#ifdef __linux__
  char line[128];
  long kb = -1;
  FILE *f = fopen("/proc/self/status", "r");
  if (f != NULL) {
    while (fgets(line, sizeof(line), f) != NULL)
      if (sscanf(line, "VmHWM: %ld kB", &kb) == 1) break;
    fclose(f);
  }
  if (kb > 0) return kb;
#endif
#ifdef __APPLE__
  return (long)(ru->ru_maxrss / 1024);
#else
  return (long)ru->ru_maxrss;
#endif
}

/* Writes `s` as a JSON string body (no quotes). */
static void json_str(FILE *f, const char *s) {
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
    else if (c < 0x20) fprintf(f, "\\u%04x", c);
    else fputc(c, f);
  }
}

/* The effective K of a pass of v (run->concurrency): 1 sequential, the bound
 * for bounded, 0 (all) parallel. */
static long pass_concurrency(const ab_variant_t *v, const ab_opts_t *o) {
  if (strcmp(v->mode, "sequential") == 0) return 1;
  if (strcmp(v->mode, "bounded") == 0)
    return o->concurrency > 0 ? o->concurrency : AB_DEFAULT_BOUND;
  return 0;
}

int ab_fd_limit_raise(void) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0) return -1;
  if (rl.rlim_cur == rl.rlim_max) return 0;
  rl.rlim_cur = rl.rlim_max;
  if (setrlimit(RLIMIT_NOFILE, &rl) == 0) return 0;
#ifdef OPEN_MAX
  /* macOS: an unlimited hard limit, but the kernel refuses more than this. */
  if (rl.rlim_max > (rlim_t)OPEN_MAX) {
    rl.rlim_cur = (rlim_t)OPEN_MAX;
    if (setrlimit(RLIMIT_NOFILE, &rl) == 0) return 0;
  }
#endif
  return -1;
}

int ab_loop_fds_check(const char *prog) {
  int fds[AB_LOOP_FDS], n = 0, src, err = 0, k;
  struct rlimit rl;
  char hard[32];
  for (src = 0; src <= 2 && fcntl(src, F_GETFD) == -1; src++) {
  }
  if (src > 2) return AB_EXIT_OK; /* nothing to dup: libuv says what fails */
  while (n < AB_LOOP_FDS) {
    int fd = fcntl(src, F_DUPFD_CLOEXEC, 0);
    if (fd < 0) {
      err = errno;
      break;
    }
    fds[n++] = fd;
  }
  for (k = 0; k < n; k++) close(fds[k]);
  if (n == AB_LOOP_FDS || (err != EMFILE && err != ENFILE)) return AB_EXIT_OK;
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0) rl.rlim_cur = rl.rlim_max = RLIM_INFINITY;
  if (rl.rlim_max == RLIM_INFINITY) snprintf(hard, sizeof(hard), "unlimited");
  else snprintf(hard, sizeof(hard), "%llu", (unsigned long long)rl.rlim_max);
  if (err == ENFILE || rl.rlim_cur == RLIM_INFINITY)
    fprintf(stderr, "%s: too few file descriptors (%s): %d are free and libuv's loop needs %d\n",
            prog, strerror(err), n, AB_LOOP_FDS);
  else
    fprintf(stderr,
            "%s: too few file descriptors (%s): ulimit -n is %llu (hard %s) and %d are free; "
            "libuv's loop needs %d: raise it to at least %llu\n",
            prog, strerror(err), (unsigned long long)rl.rlim_cur, hard, n, AB_LOOP_FDS,
            (unsigned long long)rl.rlim_cur + (unsigned long long)(AB_LOOP_FDS - n));
  return AB_EXIT_ENV;
}

static int cmp_long(const void *a, const void *b) {
  long x = *(const long *)a, y = *(const long *)b;
  return (x > y) - (x < y);
}

/* The numbers of the file descriptors open now, sorted, in *fds (malloc'd);
 * their count, or -1 when they cannot be listed. */
static long fds_open(rlim_t limit, long **fds) {
  long n = 0, cap = 64;
  long *a = malloc((size_t)cap * sizeof(*a));
  if (a == NULL) return -1;
#if defined(__linux__) || defined(__APPLE__)
#ifdef __linux__
  DIR *d = opendir("/proc/self/fd");
#else
  DIR *d = opendir("/dev/fd");
#endif
  if (d != NULL) {
    struct dirent *e;
    int own = dirfd(d);
    while ((e = readdir(d)) != NULL) {
      long fd = atol(e->d_name);
      if (e->d_name[0] == '.' || fd == own) continue;
      if (n == cap) {
        long *b = realloc(a, (size_t)(cap *= 2) * sizeof(*a));
        if (b == NULL) {
          closedir(d);
          free(a);
          return -1;
        }
        a = b;
      }
      a[n++] = fd;
    }
    closedir(d);
  } else
#endif
  {
    long fd, top = limit == RLIM_INFINITY || limit > 65536 ? 65536 : (long)limit;
    for (fd = 0; fd < top; fd++) {
      if (fcntl((int)fd, F_GETFD) == -1) continue;
      if (n == cap) {
        long *b = realloc(a, (size_t)(cap *= 2) * sizeof(*a));
        if (b == NULL) {
          free(a);
          return -1;
        }
        a = b;
      }
      a[n++] = fd;
    }
  }
  qsort(a, (size_t)n, sizeof(*a), cmp_long);
  *fds = a;
  return n;
}

int ab_fd_limit_check(const ab_opts_t *o, const ab_workload_t *w, const ab_variant_t *v) {
  struct rlimit rl;
  long k = 0, j, nopen, conc = pass_concurrency(v, o);
  long *fds = NULL;
  unsigned long long ops, needed;
  char hard[32];
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return AB_EXIT_OK;
  /* The most operations in flight in any pass (ab_run_slots of each). */
  if (o->warmup > 0) k = conc <= 0 || conc > o->warmup ? o->warmup : conc;
  if (conc <= 0 || conc > o->iterations) {
    if (o->iterations > k) k = o->iterations;
  } else if (conc > k) {
    k = conc;
  }
  if ((nopen = fds_open(rl.rlim_cur, &fds)) < 0) return AB_EXIT_OK;
  /* New fds take the lowest free numbers: the pass's last one is the
   * (ops + margin)-th free number; needed is one past it. */
  ops = (unsigned long long)k * w->fds_per_op;
  needed = ops + AB_FD_MARGIN;
  for (j = 0; j < nopen; j++)
    if ((unsigned long long)fds[j] < needed) needed++;
  free(fds);
  if (needed <= (unsigned long long)rl.rlim_cur) return AB_EXIT_OK;
  if (rl.rlim_max == RLIM_INFINITY) snprintf(hard, sizeof(hard), "unlimited");
  else snprintf(hard, sizeof(hard), "%llu", (unsigned long long)rl.rlim_max);
  fprintf(stderr,
          "%s: open-file limit too low: %ld operations in flight need %llu open files "
          "(%llu for them, %d spare, the rest open already), the limit is %llu (hard %s); "
          "raise it (ulimit -n %llu) or lower N\n",
          o->prog, k, needed, ops, AB_FD_MARGIN, (unsigned long long)rl.rlim_cur, hard,
          needed);
  return AB_EXIT_ENV;
}

/* One pass of `n` operations; returns 0 when every one verified. */
static int run_pass(uv_loop_t *loop, const ab_opts_t *o, const ab_workload_t *w,
                    void *state, const ab_variant_t *v, long n, ab_run_t *run) {
  memset(run, 0, sizeof(*run));
  run->loop = loop;
  run->opts = o;
  run->workload = w;
  run->state = state;
  run->n = n;
  run->failed_at = -1;
  run->concurrency = pass_concurrency(v, o);
  ab_run_mark(run);
  if (v->fn(run) != 0 && run->failed_at < 0)
    ab_run_fail(run, run->ok, "the variant stopped after %ld of %ld completions",
                run->ok, run->n);
  /* Every pass starts its clock (ab_run_begin), the failed ones aside, and
   * maps no coroutine stack before it (DESIGN section 3): its stacks are
   * mapped inside the clock, or taken from the pool a warm-up filled. */
  if (run->failed_at < 0 && run->t_start_ns == 0)
    ab_run_fail(run, run->ok, "the variant never started its clock (ab_run_begin)");
  if (run->failed_at < 0 && run->preclock_stacks > 0)
    ab_run_fail(run, run->ok,
                "%" PRIu64 " coroutine stack%s mapped before the clock started (ab_run_begin): "
                "a pass maps its stacks inside its clock",
                run->preclock_stacks, run->preclock_stacks == 1 ? " was" : "s were");
  if (v->test_only) return 0;
  if (run->failed_at < 0 && run->ok != n)
    ab_run_fail(run, run->ok, "only %ld of %ld completions arrived", run->ok, n);
  return run->failed_at < 0 ? 0 : -1;
}

/* Closes the loop after a last run; AB_EXIT_VERIFY when a handle or request
 * was left open (a leak), else rc. */
static int close_loop(uv_loop_t *loop, const char *prog, int rc) {
  int close_rc;
  uv_run(loop, UV_RUN_DEFAULT);
  close_rc = uv_loop_close(loop);
  if (close_rc != 0) {
    fprintf(stderr, "%s: uv_loop_close: %s: a handle or request was left open\n", prog,
            uv_strerror(close_rc));
    if (rc == AB_EXIT_OK) rc = AB_EXIT_VERIFY;
  }
  return rc;
}

/* ---- starting libuv's threadpool before the clock -------------------------- */

/* How many threads libuv's pool will have: UV_THREADPOOL_SIZE as libuv reads
 * it (atoi; 0 is 1; more than 1024, or negative, is 1024), 4 when unset. */
static long threadpool_size(void) {
  const char *val = getenv("UV_THREADPOOL_SIZE");
  unsigned n = val != NULL ? (unsigned)atoi(val) : 4u;
  if (n == 0) n = 1;
  if (n > 1024) n = 1024;
  return (long)n;
}

static void *thread_idle(void *arg) { return arg; }

/* Creates n threads with 8 MiB stacks (libuv's pool's since 1.45; earlier
 * ones take RLIMIT_STACK's size, 8 MiB by default), all alive until the last
 * is created, then joins them: 0, or the error of the first that failed. */
static int threads_try(long n, long *made) {
  pthread_t *t = calloc((size_t)n, sizeof(*t));
  pthread_attr_t attr;
  int err = 0;
  long k;
  *made = 0;
  if (t == NULL) return ENOMEM;
  if ((err = pthread_attr_init(&attr)) != 0) {
    free(t);
    return err;
  }
  err = pthread_attr_setstacksize(&attr, (size_t)8 << 20);
  for (k = 0; err == 0 && k < n; k++)
    if ((err = pthread_create(&t[k], &attr, thread_idle, NULL)) == 0) (*made)++;
  for (k = 0; k < *made; k++) pthread_join(t[k], NULL);
  pthread_attr_destroy(&attr);
  free(t);
  return err;
}

/* The line an abort during the pool's start prints (write(2) in the handler). */
static char abort_line[512];
static size_t abort_line_len;

static void on_abort(int sig) {
  ssize_t w = write(STDERR_FILENO, abort_line, abort_line_len);
  (void)sig;
  (void)w;
  _exit(AB_EXIT_ENV);
}

static void work_noop(uv_work_t *req) { (void)req; }
static void work_done(uv_work_t *req, int status) {
  *(int *)req->data = status == 0 ? 1 : status;
}

int ab_threadpool_start(uv_loop_t *loop, const char *prog) {
  struct sigaction sa, old;
  uv_work_t req;
  long n = threadpool_size(), made;
  int done = 0, err, rc;

  if ((err = threads_try(n, &made)) != 0) {
    fprintf(stderr,
            "%s: cannot start libuv's threadpool: thread %ld of %ld (8 MiB stack): %s "
            "(ulimit -v, ulimit -u or UV_THREADPOOL_SIZE too large?)\n",
            prog, made + 1, n, strerror(err));
    return AB_EXIT_ENV;
  }
  abort_line_len = (size_t)snprintf(abort_line, sizeof(abort_line),
                                    "%s: libuv aborted while starting its threadpool of %ld "
                                    "threads (out of memory or threads?)\n", prog, n);
  if (abort_line_len >= sizeof(abort_line)) abort_line_len = sizeof(abort_line) - 1;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_abort;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGABRT, &sa, &old);
  req.data = &done;
  rc = uv_queue_work(loop, &req, work_noop, work_done);
  if (rc == 0) uv_run(loop, UV_RUN_DEFAULT);
  sigaction(SIGABRT, &old, NULL);
  if (rc != 0 || done != 1) {
    fprintf(stderr, "%s: cannot start libuv's threadpool: %s\n", prog,
            uv_strerror(rc != 0 ? rc : done));
    return AB_EXIT_ENV;
  }
  return AB_EXIT_OK;
}

/* ---- standard descriptors and the result ------------------------------------- */

/* Bit k set: fd k (0, 1 or 2) was closed when the program started. */
static int std_closed;

/*
 * libuv asserts that a descriptor it closes is above 2 (uv__close): started
 * with fd 0, 1 or 2 closed, a program would get its loop's epoll or eventfd
 * descriptor there and abort at uv_loop_close.  Each closed one is opened on
 * /dev/null before libuv starts: 0 for reading, 2 for writing (messages are
 * lost, the exit code stays right) and 1 for reading only, so that writing
 * the result fails (exit 3) instead of vanishing.  SIGPIPE is ignored: a
 * reader gone is a write error (EPIPE, exit 3), not death by a signal.
 * Returns AB_EXIT_OK, or AB_EXIT_ENV when /dev/null cannot be opened.
 */
static int std_fds_open(const char *prog) {
  int fd, got;
  for (fd = 0; fd <= 2; fd++) {
    if (fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    /* The lowest free descriptor: fd itself, as 0..fd-1 are open. */
    got = open("/dev/null", fd == 2 ? O_WRONLY : O_RDONLY);
    if (got != fd) {
      fprintf(stderr, "%s: fd %d is closed and /dev/null cannot be opened in its place: %s\n",
              prog, fd, got < 0 ? strerror(errno) : "got another descriptor");
      return AB_EXIT_ENV;
    }
    std_closed |= 1 << fd;
  }
  signal(SIGPIPE, SIG_IGN);
  return AB_EXIT_OK;
}

/* Flushes stdout after `what` (the result line, the usage) was printed:
 * AB_EXIT_OK, or AB_EXIT_ENV after one line on stderr when any of it could
 * not be written (stdout closed, a full disk, the reader gone). */
static int stdout_finish(const char *prog, const char *what) {
  int err;
  errno = 0;
  if (fflush(stdout) == 0 && !ferror(stdout)) return AB_EXIT_OK;
  err = errno != 0 ? errno : EIO;
  if (std_closed & 2)
    fprintf(stderr, "%s: writing the %s failed: stdout is closed\n", prog, what);
  else
    fprintf(stderr, "%s: writing the %s failed: %s\n", prog, what, strerror(err));
  return AB_EXIT_ENV;
}

/* What a line says of its (first) timed pass besides the time: the CPU and
 * counters around it, the idle and peak resident sets, the completions and
 * the workload's own fields (malloc'd, NULL when it has none). */
typedef struct pass_figs_s {
  struct rusage ru0, ru1;
  ab_counters_t c0, c1;
  long idle_kb, peak_kb;
  long ok, concurrency;
  uint64_t bytes;
  char *fields;
} pass_figs_t;

/* One timed pass into *run; with figs, its figures too (the line's).  The
 * exit code: AB_EXIT_OK, or AB_EXIT_VERIFY / AB_EXIT_ENV after one line on
 * stderr naming the pass (`which`, "" for the first) and the iteration. */
static int timed_pass(uv_loop_t *loop, const ab_opts_t *o, const ab_workload_t *w, void *state,
                      const ab_variant_t *v, ab_run_t *run, pass_figs_t *figs,
                      const char *which) {
  int rc = AB_EXIT_OK;
  if (figs != NULL) {
    memset(figs, 0, sizeof(*figs));
    figs->c0 = ab_counters;
    getrusage(RUSAGE_SELF, &figs->ru0);
    figs->idle_kb = peak_rss_kb(&figs->ru0);
  }
  if (run_pass(loop, o, w, state, v, o->iterations, run) != 0) {
    fprintf(stderr, "%s: %siteration %ld: %s\n", o->prog, which, run->failed_at, run->error);
    rc = run->env_error ? AB_EXIT_ENV : AB_EXIT_VERIFY;
  }
  if (figs == NULL) return rc;
  getrusage(RUSAGE_SELF, &figs->ru1);
  /* The peak now, before the teardown: a backend's teardown may unmap
   * memory (io_uring's rings) in a way that Linux's VmHWM then no longer
   * counts, which would put the peak below the idle figure. */
  figs->peak_kb = peak_rss_kb(&figs->ru1);
  if (figs->peak_kb < figs->idle_kb) figs->peak_kb = figs->idle_kb;
  figs->c1 = ab_counters;
  /* Taken now: a test-only variant may still have completions in flight. */
  figs->ok = run->ok;
  figs->bytes = run->bytes;
  figs->concurrency = run->concurrency;
  /* The workload's own fields of this pass, before the next resets its state. */
  if (w->json != NULL && rc == AB_EXIT_OK) {
    size_t len = 0;
    FILE *f = open_memstream(&figs->fields, &len);
    if (f != NULL) {
      w->json(f, run);
      if (fclose(f) != 0) f = NULL;
    }
    if (f == NULL) {
      fprintf(stderr, "%s: out of memory for the line's fields\n", o->prog);
      rc = AB_EXIT_ENV;
    }
  }
  return rc;
}

/* Prints the result line (DESIGN section 3) of figs's pass, with the np
 * passes' times, the most any did before its clock and the warm-up's time,
 * and flushes it: the exit code of the write. */
static int print_line(const ab_workload_t *w, const ab_variant_t *v, const ab_opts_t *o,
                      const pass_figs_t *f, uint64_t preclock_heap, uint64_t preclock_faults,
                      uint64_t warmup_ns, const uint64_t *passes_ns, long np) {
  char name[128];
  long p;
  ab_variant_name(v, name, sizeof(name));
  printf("{\"workload\":\"%s\",\"lang\":\"c\",\"style\":\"%s\",\"shape\":\"%s\","
         "\"mode\":\"%s\",\"method\":\"inprocess\",\"backend\":\"%s\","
         "\"variant\":\"%s/c/%s@%s\",\"iterations\":%ld,"
         "\"concurrency\":%ld,\"ok\":%ld,\"bytes\":%" PRIu64 ",\"elapsed_ns\":%" PRIu64
         ",\"user_us\":%" PRIu64 ",\"sys_us\":%" PRIu64 ",\"peak_rss_kb\":%ld,"
         "\"idle_rss_kb\":%ld,\"runtime\":\"",
         w->name, v->style, v->shape ? v->shape : "", v->mode, o->backend, w->name, name,
         o->backend, o->iterations,
         /* the most in flight (DESIGN section 3): 1, 0 for all N, or min(K, N) */
         f->concurrency < o->iterations ? f->concurrency : o->iterations, f->ok, f->bytes,
         passes_ns[0], tv_us(f->ru1.ru_utime) - tv_us(f->ru0.ru_utime),
         tv_us(f->ru1.ru_stime) - tv_us(f->ru0.ru_stime), f->peak_kb, f->idle_kb);
  fprintf(stdout, "libuv %s", uv_version_string());
  if (v->runtime_extra != NULL) json_str(stdout, v->runtime_extra);
  fputc('"', stdout);
  if (f->fields != NULL) fputs(f->fields, stdout);
  /* What the first timed pass cost beside time (optional fields at the end of the
   * line; the report divides them by N): threadpool requests started, heap
   * allocations counted, promise-pool objects taken, context switches of the process. */
  printf(",\"threadpool_trips\":%" PRIu64 ",\"allocs\":%" PRIu64 ",\"pool_gets\":%" PRIu64
         ",\"nvcsw\":%ld,\"nivcsw\":%ld",
         f->c1.threadpool - f->c0.threadpool, f->c1.allocs - f->c0.allocs,
         f->c1.pool_gets - f->c0.pool_gets, f->ru1.ru_nvcsw - f->ru0.ru_nvcsw,
         f->ru1.ru_nivcsw - f->ru0.ru_nivcsw);
  /* The most any timed pass did before its clock started (ab_run_begin), and
   * how long the warm-up pass took (outside the clock, as the runner must know). */
  printf(",\"preclock_heap_bytes\":%" PRIu64 ",\"preclock_faults\":%" PRIu64
         ",\"warmup_ns\":%" PRIu64,
         preclock_heap, preclock_faults, warmup_ns);
  /* Every timed pass's time, the first (elapsed_ns) first. */
  fputs(",\"passes_elapsed_ns\":[", stdout);
  for (p = 0; p < np; p++) printf("%s%" PRIu64, p ? "," : "", passes_ns[p]);
  fputs("]}\n", stdout);
  return stdout_finish(o->prog, "result");
}

/* The lockstep protocol (harness.h, DESIGN section 3) after the warm-up: the
 * exit code, with the loop still open. */
static int lockstep(uv_loop_t *loop, const ab_opts_t *o, const ab_workload_t *w, void *state,
                    const ab_variant_t *v, uint64_t warmup_ns, long *passes) {
  char cmd[64];
  ab_run_t run;
  pass_figs_t f;
  int rc;
  printf("{\"lockstep\":\"ready\",\"warmup_ns\":%" PRIu64 "}\n", warmup_ns);
  if ((rc = stdout_finish(o->prog, "ready line")) != AB_EXIT_OK) return rc;
  while (fgets(cmd, sizeof(cmd), stdin) != NULL) {
    size_t len = strcspn(cmd, "\r\n");
    uint64_t ns;
    if (cmd[len] == '\0' && !feof(stdin)) {
      /* Longer than any command: say its start, then drop the rest. */
      fprintf(stderr, "%s: lockstep: unknown command '%.20s...' (pass or end)\n", o->prog, cmd);
      return AB_EXIT_USAGE;
    }
    cmd[len] = '\0';
    if (strcmp(cmd, "end") == 0) return -1;
    if (strcmp(cmd, "pass") != 0) {
      fprintf(stderr, "%s: lockstep: unknown command '%s' (pass or end)\n", o->prog, cmd);
      return AB_EXIT_USAGE;
    }
    char which[48];
    snprintf(which, sizeof(which), "lockstep pass %ld: ", *passes + 1);
    rc = timed_pass(loop, o, w, state, v, &run, &f, which);
    if (rc == AB_EXIT_OK) {
      (*passes)++;
      ns = run.t_end_ns - run.t_start_ns;
      rc = print_line(w, v, o, &f, run.preclock_heap_bytes, run.preclock_faults, warmup_ns,
                      &ns, 1);
    }
    free(f.fields);
    if (rc != AB_EXIT_OK) return rc;
  }
  return AB_EXIT_OK; /* stdin closed: the end, without its line */
}

int ab_main(int argc, char **argv, const ab_workload_t *w) {
  const ab_variant_t *v;
  uv_loop_t loop;
  ab_opts_t o;
  ab_run_t run;
  pass_figs_t first;
  void *state = NULL;
  long p, lock_passes = 0;
  uint64_t warmup_ns = 0, preclock_heap = 0, preclock_faults = 0;
  uint64_t *passes_ns = NULL;
  int rc, said_end = 0;

  memset(&first, 0, sizeof(first));
  if ((rc = std_fds_open(argc > 0 ? argv[0] : w->name)) != AB_EXIT_OK) return rc;
  rc = ab_parse_args(argc, argv, w, &o);
  if (rc < 0) return stdout_finish(o.prog, "usage"); /* --help */
  if (rc != AB_EXIT_OK) return rc;
  v = ab_variant_find(w, o.variant);
  if (std_closed & 2) {
    /* Nowhere to write the result: say so before anything runs. */
    fprintf(stderr, "%s: stdout is closed: the result line cannot be written\n", o.prog);
    return AB_EXIT_ENV;
  }

  ab_fd_limit_raise(); /* what is still missing, the check below says */
  if ((rc = ab_loop_fds_check(o.prog)) != AB_EXIT_OK) return rc;
  /* Before libuv's first allocation: every one of them is counted. */
  uv_replace_allocator(count_malloc, count_realloc, count_calloc, free);
  if ((rc = uv_loop_init(&loop)) != 0) {
    fprintf(stderr, "%s: uv_loop_init: %s\n", o.prog, uv_strerror(rc));
    return AB_EXIT_ENV;
  }
  /* The workload checks its inputs (exit 3 before anything is timed). */
  if (w->setup != NULL && (rc = w->setup(&o, &loop, &state)) != AB_EXIT_OK) {
    /* A bad value of the workload's own flag: its line, then the usage, as
     * for every other usage error. */
    if (rc == AB_EXIT_USAGE) ab_usage(stderr, o.prog, w);
    return close_loop(&loop, o.prog, rc);
  }
  /* Enough file descriptors for the operations in flight, or exit 3 now. */
  if ((rc = ab_fd_limit_check(&o, w, v)) != AB_EXIT_OK) {
    if (w->teardown != NULL) w->teardown(state);
    return close_loop(&loop, o.prog, rc);
  }

  if (o.warmup > 0) {
    uint64_t t0 = ab_now_ns();
    if (run_pass(&loop, &o, w, state, v, o.warmup, &run) != 0) {
      fprintf(stderr, "%s: warm-up iteration %ld: %s\n", o.prog, run.failed_at, run.error);
      rc = run.env_error ? AB_EXIT_ENV : AB_EXIT_VERIFY;
    }
    warmup_ns = ab_now_ns() - t0;
  }
  if (rc == AB_EXIT_OK && o.lockstep) {
    rc = lockstep(&loop, &o, w, state, v, warmup_ns, &lock_passes);
    if (rc < 0) {
      said_end = 1;
      rc = AB_EXIT_OK;
    }
  }
  /* Each timed pass's time; the line's other figures are the first pass's. */
  if (rc == AB_EXIT_OK && !o.lockstep &&
      (passes_ns = calloc((size_t)o.passes, sizeof(*passes_ns))) == NULL) {
    fprintf(stderr, "%s: out of memory for the times of %ld passes\n", o.prog, o.passes);
    rc = AB_EXIT_ENV;
  }
  for (p = 0; rc == AB_EXIT_OK && !o.lockstep && p < o.passes; p++) {
    char which[64] = "";
    if (p > 0) snprintf(which, sizeof(which), "timed pass %ld of %ld: ", p + 1, o.passes);
    rc = timed_pass(&loop, &o, w, state, v, &run, p == 0 ? &first : NULL, which);
    passes_ns[p] = run.t_end_ns - run.t_start_ns;
    /* What a pass did before its clock: the most of any timed pass. */
    if (run.preclock_heap_bytes > preclock_heap) preclock_heap = run.preclock_heap_bytes;
    if (run.preclock_faults > preclock_faults) preclock_faults = run.preclock_faults;
  }

  /* Whatever happened, the loop must close: a handle left open is a bug. */
  if (w->teardown != NULL) w->teardown(state);
  rc = close_loop(&loop, o.prog, rc);
  /* The pools a pass leaves for the next (c/lib/modes.h) go after the last:
   * the promise objects and queues back to malloc; the coroutine stacks with
   * the process, as its exit unmaps them at once (one munmap each, 5,000
   * stacks took about 50 ms here, longer than the timed pass of some). */
  ab_promise_pool_trim();
  if (rc == AB_EXIT_OK && said_end) {
    /* The process's whole CPU and peak, for the runner's end of a lockstep. */
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("{\"lockstep\":\"end\",\"passes\":%ld,\"user_us\":%" PRIu64 ",\"sys_us\":%" PRIu64
           ",\"peak_rss_kb\":%ld}\n",
           lock_passes, tv_us(ru.ru_utime), tv_us(ru.ru_stime), peak_rss_kb(&ru));
    rc = stdout_finish(o.prog, "end line");
  } else if (rc == AB_EXIT_OK && !o.lockstep) {
    rc = print_line(w, v, &o, &first, preclock_heap, preclock_faults, warmup_ns, passes_ns,
                    o.passes);
  }
  free(passes_ns);
  free(first.fields);
  return rc;
}
