/*
 * harness.c -- flags, timing, rusage, the JSON result line and exit codes,
 * for any workload (harness.h).
 */
#include "harness.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

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
          "  --warmup N          untimed iterations before the timed ones (default 0)\n",
          w->backend(0), AB_DEFAULT_BOUND);
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

/* Parses a whole decimal number in [min, LONG_MAX]; 0 on success. */
static int parse_long(const char *s, long min, long *out) {
  char *end;
  long v;
  if (s == NULL || *s == '\0') return -1;
  errno = 0;
  v = strtol(s, &end, 10);
  if (errno != 0 || *end != '\0' || v < min) return -1;
  *out = v;
  return 0;
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

int ab_parse_args(int argc, char **argv, const ab_workload_t *w, ab_opts_t *o) {
  int nflags = flag_count(w);
  int i, k;

  memset(o, 0, sizeof(*o));
  o->prog = argc > 0 ? argv[0] : w->name;
  o->iterations = 10000;
  o->backend = w->backend(0);
  if (nflags > AB_FLAGS_MAX)
    return usage_error(o, w, "%s declares more flags than AB_FLAGS_MAX", w->name);
  for (k = 0; k < nflags; k++) o->flags[k] = w->flags[k].value;

  for (i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      ab_usage(stdout, o->prog, w);
      return -1;
    }
    if (strncmp(a, "--", 2) != 0) return usage_error(o, w, "unexpected argument '%s'", a);
    if (v == NULL) return usage_error(o, w, "%s needs a value", a);
    if (strcmp(a, "--iterations") == 0) {
      if (parse_long(v, 1, &o->iterations) != 0)
        return usage_error(o, w, "--iterations must be a positive integer, got '%s'", v);
    } else if (strcmp(a, "--warmup") == 0) {
      if (parse_long(v, 0, &o->warmup) != 0)
        return usage_error(o, w, "--warmup must be a non-negative integer, got '%s'", v);
    } else if (strcmp(a, "--concurrency") == 0) {
      if (parse_long(v, 0, &o->concurrency) != 0)
        return usage_error(o, w, "--concurrency must be a non-negative integer, got '%s'", v);
    } else if (strcmp(a, "--variant") == 0) {
      o->variant = v;
    } else if (strcmp(a, "--backend") == 0) {
      o->backend = v;
    } else {
      for (k = 0; k < nflags && strcmp(a, w->flags[k].name) != 0; k++) continue;
      if (k == nflags) return usage_error(o, w, "unknown flag '%s'", a);
      o->flags[k] = v;
    }
    i++;
  }
  if (o->variant == NULL) return usage_error(o, w, "%s", "--variant is required");
  if (ab_variant_find(w, o->variant) == NULL)
    return usage_error(o, w, "unknown variant '%s'", o->variant);
  if (!backend_known(w, o->backend))
    return usage_error(o, w, "unknown backend '%s'", o->backend);
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

void ab_run_begin(ab_run_t *run) { run->t_start_ns = ab_now_ns(); }

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
  if (v->fn(run) != 0 && run->failed_at < 0)
    ab_run_fail(run, run->ok, "the variant stopped after %ld of %ld completions",
                run->ok, run->n);
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

int ab_main(int argc, char **argv, const ab_workload_t *w) {
  const ab_variant_t *v;
  struct rusage ru0, ru1;
  uv_loop_t loop;
  ab_opts_t o;
  ab_run_t run;
  void *state = NULL;
  long ok = 0;
  uint64_t bytes = 0, elapsed = 0;
  char name[128];
  int rc;

  rc = ab_parse_args(argc, argv, w, &o);
  if (rc < 0) return AB_EXIT_OK; /* --help */
  if (rc != AB_EXIT_OK) return rc;
  v = ab_variant_find(w, o.variant);

  ab_fd_limit_raise(); /* what is still missing, the check below says */
  if ((rc = uv_loop_init(&loop)) != 0) {
    fprintf(stderr, "%s: uv_loop_init: %s\n", o.prog, uv_strerror(rc));
    return AB_EXIT_ENV;
  }
  /* The workload checks its inputs (exit 3 before anything is timed). */
  if (w->setup != NULL && (rc = w->setup(&o, &loop, &state)) != AB_EXIT_OK)
    return close_loop(&loop, o.prog, rc);
  /* Enough file descriptors for the operations in flight, or exit 3 now. */
  if ((rc = ab_fd_limit_check(&o, w, v)) != AB_EXIT_OK) {
    if (w->teardown != NULL) w->teardown(state);
    return close_loop(&loop, o.prog, rc);
  }

  if (o.warmup > 0 && run_pass(&loop, &o, w, state, v, o.warmup, &run) != 0) {
    fprintf(stderr, "%s: warm-up iteration %ld: %s\n", o.prog, run.failed_at, run.error);
    rc = run.env_error ? AB_EXIT_ENV : AB_EXIT_VERIFY;
  }
  if (rc == AB_EXIT_OK) {
    getrusage(RUSAGE_SELF, &ru0);
    if (run_pass(&loop, &o, w, state, v, o.iterations, &run) != 0) {
      fprintf(stderr, "%s: iteration %ld: %s\n", o.prog, run.failed_at, run.error);
      rc = run.env_error ? AB_EXIT_ENV : AB_EXIT_VERIFY;
    }
    getrusage(RUSAGE_SELF, &ru1);
    /* Taken now: a test-only variant may still have completions in flight. */
    ok = run.ok;
    bytes = run.bytes;
    elapsed = run.t_end_ns - run.t_start_ns;
  }

  /* Whatever happened, the loop must close: a handle left open is a bug. */
  if (w->teardown != NULL) w->teardown(state);
  rc = close_loop(&loop, o.prog, rc);
  if (rc != AB_EXIT_OK) return rc;

  ab_variant_name(v, name, sizeof(name));
  printf("{\"workload\":\"%s\",\"lang\":\"c\",\"style\":\"%s\",\"shape\":\"%s\","
         "\"mode\":\"%s\",\"method\":\"inprocess\",\"backend\":\"%s\","
         "\"variant\":\"%s/c/%s@%s\",\"iterations\":%ld,"
         "\"concurrency\":%ld,\"ok\":%ld,\"bytes\":%" PRIu64 ",\"elapsed_ns\":%" PRIu64
         ",\"user_us\":%" PRIu64 ",\"sys_us\":%" PRIu64 ",\"peak_rss_kb\":%ld,"
         "\"runtime\":\"",
         w->name, v->style, v->shape ? v->shape : "", v->mode, o.backend, w->name, name,
         o.backend, o.iterations, run.concurrency, ok, bytes, elapsed,
         tv_us(ru1.ru_utime) - tv_us(ru0.ru_utime),
         tv_us(ru1.ru_stime) - tv_us(ru0.ru_stime), peak_rss_kb(&ru1));
  fprintf(stdout, "libuv %s", uv_version_string());
  if (v->runtime_extra != NULL) json_str(stdout, v->runtime_extra);
  fputc('"', stdout);
  if (w->json != NULL) w->json(stdout, &run);
  fputs("}\n", stdout);
  if (fflush(stdout) != 0) {
    fprintf(stderr, "%s: writing the result failed: %s\n", o.prog, strerror(errno));
    return AB_EXIT_ENV;
  }
  return AB_EXIT_OK;
}
