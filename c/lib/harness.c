/*
 * harness.c -- flags, timing, rusage, the JSON result line and exit codes.
 * See harness.h for the contract.
 */
#include "harness.h"
#include "readfile.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

uint64_t ab_now_ns(void) {
  /* uv_hrtime() is CLOCK_MONOTONIC on Linux and mach_absolute_time() on macOS. */
  return uv_hrtime();
}

const ab_variant_t *ab_variant_find(const ab_variant_t *variants,
                                    const char *name) {
  for (; variants->name != NULL; variants++)
    if (strcmp(variants->name, name) == 0) return variants;
  return NULL;
}

void ab_usage(void *out, const char *prog, const char *workload,
              const ab_variant_t *variants) {
  FILE *f = out;
  fprintf(f,
          "usage: %s --variant STYLE-MODE [options]\n"
          "Runs one %s variant and prints one JSON line with the result.\n"
          "\n"
          "  --variant NAME      which variant (below)\n"
          "  --backend NAME      readfile backend: %s (default node4)\n"
          "  --iterations N      operations to time, N >= 1 (default 10000)\n"
          "  --file PATH         file to read (default fixtures/text.txt)\n"
          "  --expect TEXT       content every read must return (default 'Hello, world')\n"
          "  --concurrency K     bounded mode: at most K in flight (0 = default %d)\n"
          "  --warmup N          untimed iterations before the timed ones (default 0)\n"
          "  --help              this text\n"
          "\n"
          "exit codes: 0 valid, 1 verification failed, 2 usage error, 3 environment error\n"
          "variants:",
          prog, workload, ab_backend_names(), AB_DEFAULT_BOUND);
  for (; variants->name != NULL; variants++)
    if (!variants->test_only) fprintf(f, " %s", variants->name);
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

static int usage_error(const char *prog, const char *workload,
                       const ab_variant_t *variants, const char *fmt,
                       const char *arg) {
  fprintf(stderr, "%s: ", prog);
  fprintf(stderr, fmt, arg);
  fputc('\n', stderr);
  ab_usage(stderr, prog, workload, variants);
  return AB_EXIT_USAGE;
}

int ab_parse_args(int argc, char **argv, const char *workload,
                  const ab_variant_t *variants, ab_opts_t *o) {
  const char *prog = argc > 0 ? argv[0] : workload;
  int i;

  memset(o, 0, sizeof(*o));
  o->iterations = 10000;
  o->file = "fixtures/text.txt";
  o->expect = "Hello, world";
  o->backend = "node4";

  for (i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      ab_usage(stdout, prog, workload, variants);
      return -1;
    }
    if (strncmp(a, "--", 2) != 0)
      return usage_error(prog, workload, variants, "unexpected argument '%s'", a);
    if (v == NULL)
      return usage_error(prog, workload, variants, "%s needs a value", a);
    if (strcmp(a, "--iterations") == 0) {
      if (parse_long(v, 1, &o->iterations) != 0)
        return usage_error(prog, workload, variants,
                           "--iterations must be a positive integer, got '%s'", v);
    } else if (strcmp(a, "--warmup") == 0) {
      if (parse_long(v, 0, &o->warmup) != 0)
        return usage_error(prog, workload, variants,
                           "--warmup must be a non-negative integer, got '%s'", v);
    } else if (strcmp(a, "--concurrency") == 0) {
      if (parse_long(v, 0, &o->concurrency) != 0)
        return usage_error(prog, workload, variants,
                           "--concurrency must be a non-negative integer, got '%s'", v);
    } else if (strcmp(a, "--file") == 0) {
      o->file = v;
    } else if (strcmp(a, "--expect") == 0) {
      o->expect = v;
    } else if (strcmp(a, "--variant") == 0) {
      o->variant = v;
    } else if (strcmp(a, "--backend") == 0) {
      o->backend = v;
    } else {
      return usage_error(prog, workload, variants, "unknown flag '%s'", a);
    }
    i++;
  }
  o->expect_len = strlen(o->expect);
  if (o->variant == NULL)
    return usage_error(prog, workload, variants, "%s", "--variant is required");
  if (ab_variant_find(variants, o->variant) == NULL)
    return usage_error(prog, workload, variants, "unknown variant '%s'", o->variant);
  if (ab_backend_find(o->backend) == NULL)
    return usage_error(prog, workload, variants, "unknown backend '%s'", o->backend);
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

/* Up to AB_QUOTE_MAX bytes of `s` (n long) for a one-line message: control
 * bytes, backslash and bytes above 0x7e escaped (\n, \t, \r, \\, \xNN), "..." when
 * cut.  A fixture written with `echo` ends in a newline, which would otherwise
 * split the failure line in two. */
#define AB_QUOTE_MAX 40
#define AB_QUOTE_CAP (AB_QUOTE_MAX * 4 + 4)
static const char *quote(char out[AB_QUOTE_CAP], const char *s, size_t n) {
  size_t k, w = 0;
  for (k = 0; k < n && k < AB_QUOTE_MAX; k++) {
    unsigned char c = (unsigned char)s[k];
    if (c == '\n') w += (size_t)sprintf(out + w, "\\n");
    else if (c == '\t') w += (size_t)sprintf(out + w, "\\t");
    else if (c == '\r') w += (size_t)sprintf(out + w, "\\r");
    else if (c == '\\') w += (size_t)sprintf(out + w, "\\\\");
    else if (c < 0x20 || c > 0x7e) w += (size_t)sprintf(out + w, "\\x%02x", c);
    else out[w++] = (char)c;
  }
  if (k < n) w += (size_t)sprintf(out + w, "...");
  out[w] = '\0';
  return out;
}

void ab_run_oom(ab_run_t *run, long i, const char *what) {
  if (run->failed_at >= 0) return;
  ab_run_fail(run, i, "out of memory for %s", what);
  run->env_error = 1;
}

void ab_run_begin(ab_run_t *run) { run->t_start_ns = ab_now_ns(); }

int ab_run_check(ab_run_t *run, long i, const char *buf, ssize_t nread) {
  const ab_opts_t *o = run->opts;
  if (nread < 0) {
    ab_run_fail(run, i, "read failed: %s (%s)", uv_strerror((int)nread),
                uv_err_name((int)nread));
    return -1;
  }
  if ((size_t)nread != o->expect_len || memcmp(buf, o->expect, o->expect_len) != 0) {
    char got[AB_QUOTE_CAP], want[AB_QUOTE_CAP];
    ab_run_fail(run, i, "read %zd bytes '%s', expected %zu bytes '%s'", nread,
                quote(got, buf, (size_t)nread), o->expect_len,
                quote(want, o->expect, o->expect_len));
    return -1;
  }
  run->bytes += (uint64_t)nread;
  if (++run->ok == run->n) run->t_end_ns = ab_now_ns();
  return 0;
}

/* Exit 3 before anything is timed when the fixture cannot be read at all. */
static int check_fixture(const char *prog, const char *path) {
  struct stat st;
  int fd;
  if (stat(path, &st) != 0) {
    fprintf(stderr, "%s: fixture '%s': %s (run from the project root, or pass --file PATH)\n",
            prog, path, strerror(errno));
    return AB_EXIT_ENV;
  }
  if (S_ISDIR(st.st_mode)) {
    fprintf(stderr, "%s: fixture '%s' is a directory; --file must name a regular file\n",
            prog, path);
    return AB_EXIT_ENV;
  }
  if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) {
    /* Opening a FIFO blocks until a writer comes: the run would hang. */
    fprintf(stderr, "%s: fixture '%s' is a %s; --file must name a regular file\n", prog,
            path, S_ISFIFO(st.st_mode) ? "FIFO" : "socket");
    return AB_EXIT_ENV;
  }
  fd = open(path, O_RDONLY);
  if (fd < 0) {
    fprintf(stderr, "%s: fixture '%s' is not readable: %s\n", prog, path, strerror(errno));
    return AB_EXIT_ENV;
  }
  close(fd);
  return AB_EXIT_OK;
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

/* One pass of `n` operations; returns 0 when every one verified. */
static int run_pass(uv_loop_t *loop, const ab_opts_t *o, const ab_backend_t *be,
                    const ab_variant_t *v, long n, ab_run_t *run) {
  memset(run, 0, sizeof(*run));
  run->loop = loop;
  run->opts = o;
  run->backend = be;
  run->n = n;
  run->failed_at = -1;
  if (strcmp(v->mode, "sequential") == 0) run->concurrency = 1;
  else if (strcmp(v->mode, "bounded") == 0)
    run->concurrency = o->concurrency > 0 ? o->concurrency : AB_DEFAULT_BOUND;
  else run->concurrency = 0;
  if (v->fn(run) != 0 && run->failed_at < 0)
    ab_run_fail(run, run->ok, "the variant stopped after %ld of %ld completions",
                run->ok, run->n);
  if (v->test_only) return 0;
  if (run->failed_at < 0 && run->ok != n)
    ab_run_fail(run, run->ok, "only %ld of %ld completions arrived", run->ok, n);
  return run->failed_at < 0 ? 0 : -1;
}

int ab_main(int argc, char **argv, const char *workload,
            const ab_variant_t *variants) {
  const char *prog = argc > 0 ? argv[0] : workload;
  const ab_variant_t *v;
  const ab_backend_t *be;
  struct rusage ru0, ru1;
  uv_loop_t loop;
  ab_opts_t o;
  ab_run_t run;
  long ok = 0;
  uint64_t bytes = 0, elapsed = 0;
  int rc, close_rc;

  rc = ab_parse_args(argc, argv, workload, variants, &o);
  if (rc < 0) return AB_EXIT_OK; /* --help */
  if (rc != AB_EXIT_OK) return rc;
  v = ab_variant_find(variants, o.variant);
  be = ab_backend_find(o.backend);
  if ((rc = check_fixture(prog, o.file)) != AB_EXIT_OK) return rc;

  if ((rc = uv_loop_init(&loop)) != 0) {
    fprintf(stderr, "%s: uv_loop_init: %s\n", prog, uv_strerror(rc));
    return AB_EXIT_ENV;
  }

  rc = AB_EXIT_OK;
  if (o.warmup > 0 && run_pass(&loop, &o, be, v, o.warmup, &run) != 0) {
    fprintf(stderr, "%s: warm-up iteration %ld: %s\n", prog, run.failed_at, run.error);
    rc = run.env_error ? AB_EXIT_ENV : AB_EXIT_VERIFY;
  }
  if (rc == AB_EXIT_OK) {
    getrusage(RUSAGE_SELF, &ru0);
    if (run_pass(&loop, &o, be, v, o.iterations, &run) != 0) {
      fprintf(stderr, "%s: iteration %ld: %s\n", prog, run.failed_at, run.error);
      rc = run.env_error ? AB_EXIT_ENV : AB_EXIT_VERIFY;
    }
    getrusage(RUSAGE_SELF, &ru1);
    /* Taken now: a test-only variant may still have completions in flight. */
    ok = run.ok;
    bytes = run.bytes;
    elapsed = run.t_end_ns - run.t_start_ns;
  }

  /* Whatever happened, the loop must close: a handle left open is a bug. */
  uv_run(&loop, UV_RUN_DEFAULT);
  close_rc = uv_loop_close(&loop);
  if (close_rc != 0) {
    fprintf(stderr, "%s: uv_loop_close: %s: a handle or request was left open\n", prog,
            uv_strerror(close_rc));
    if (rc == AB_EXIT_OK) rc = AB_EXIT_VERIFY;
  }
  if (rc != AB_EXIT_OK) return rc;

  printf("{\"workload\":\"%s\",\"lang\":\"c\",\"style\":\"%s\",\"mode\":\"%s\","
         "\"backend\":\"%s\",\"variant\":\"c/%s\",\"iterations\":%ld,"
         "\"concurrency\":%ld,\"ok\":%ld,\"bytes\":%" PRIu64 ",\"elapsed_ns\":%" PRIu64
         ",\"user_us\":%" PRIu64 ",\"sys_us\":%" PRIu64 ",\"peak_rss_kb\":%ld,"
         "\"runtime\":\"",
         workload, v->style, v->mode, be->name, v->name, o.iterations, run.concurrency,
         ok, bytes, elapsed,
         tv_us(ru1.ru_utime) - tv_us(ru0.ru_utime),
         tv_us(ru1.ru_stime) - tv_us(ru0.ru_stime), peak_rss_kb(&ru1));
  fprintf(stdout, "libuv %s", uv_version_string());
  if (v->runtime_extra != NULL) json_str(stdout, v->runtime_extra);
  fputs("\"}\n", stdout);
  if (fflush(stdout) != 0) {
    fprintf(stderr, "%s: writing the result failed: %s\n", prog, strerror(errno));
    return AB_EXIT_ENV;
  }
  return AB_EXIT_OK;
}
