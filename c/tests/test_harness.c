/*
 * test_harness.c -- the program contract for any workload: flag parsing (the
 * generic flags and a workload's own) and its usage errors, the workload
 * interface (setup, check, teardown, extra fields), counting verified
 * completions, the first failure winning, exit codes and the JSON line.
 * A fake workload stands in for a real one; readfile's own part is tested in
 * test_readfile.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "harness.h"
#include "modes.h"
#include "timer_op.h"
#include "workload_tests.h"

/* ---- the fake workload ----------------------------------------------------- */

enum { FLAG_LEVEL, FLAG_COLOUR };

static const ab_flag_t fake_flags[] = {
  [FLAG_LEVEL] = {"--level", "N", "3", "how deep"},
  [FLAG_COLOUR] = {"--colour", "NAME", "blue", "which colour"},
  {NULL, NULL, NULL, NULL}
};

static const char *fake_backend(size_t k) {
  static const char *const names[] = {"alpha", "beta"};
  return k < 2 ? names[k] : NULL;
}

/* Completes every operation at once with its own iteration number. */
static int completes_all(ab_run_t *run) {
  ab_run_begin(run);
  for (long i = 0; i < run->n; i++)
    if (ab_run_check(run, i, &i) != 0) return -1;
  return 0;
}

static int fails_oom(ab_run_t *run) {
  ab_run_oom(run, 2, "the test's records");
  ab_run_fail(run, 3, "a later failure does not win");
  return -1;
}

static int fails_verify(ab_run_t *run) {
  long wrong = 7;
  ab_run_check(run, 0, &wrong);
  return -1;
}

/* Never starts its clock: the pass must fail. */
static int no_clock(ab_run_t *run) {
  for (long i = 0; i < run->n; i++)
    if (ab_run_check(run, i, &i) != 0) return -1;
  return 0;
}

/* Makes (and touches) a record per operation before its clock: what the
 * line's preclock figures must show. */
static int records_first(ab_run_t *run) {
  long *recs = malloc((size_t)run->n * 64 * sizeof(long));
  if (recs == NULL) {
    ab_run_oom(run, 0, "the records");
    return -1;
  }
  for (long i = 0; i < run->n * 64; i++) recs[i] = i / 64;
  ab_run_begin(run);
  int rc = 0;
  for (long i = 0; i < run->n && rc == 0; i++) rc = ab_run_check(run, i, &recs[i * 64]);
  free(recs);
  return rc;
}

/* Counts the timed passes of a process: pass k (from 0; the warm-up is -1
 * when there is one) of --iterations operations. */
static long pass_index(const ab_run_t *run) {
  static long timed = -1;
  return run->n == run->opts->iterations ? ++timed : -1;
}

/* Completes every operation of its first two timed passes, and gets the
 * third pass's iteration 1 wrong: every pass is verified. */
static int third_pass_wrong(ab_run_t *run) {
  long k = pass_index(run);
  ab_run_begin(run);
  for (long i = 0; i < run->n; i++) {
    long got = k == 2 && i == 1 ? 99 : i;
    if (ab_run_check(run, i, &got) != 0) return -1;
  }
  return 0;
}

/* Its second timed pass makes its records before the clock: the line's
 * preclock figures are the most of any pass. */
static int second_pass_early(ab_run_t *run) {
  return pass_index(run) == 1 ? records_first(run) : completes_all(run);
}

/* Each timed pass takes longer than the one before (k ms more), so that the
 * line's times can be told apart and put in their order. */
static int slower_each_pass(ab_run_t *run) {
  long k = pass_index(run);
  ab_run_begin(run);
  if (k > 0) uv_sleep((unsigned)(2 * k));
  for (long i = 0; i < run->n; i++)
    if (ab_run_check(run, i, &i) != 0) return -1;
  return 0;
}

/* A coroutine that returns at once: what a stackful skeleton starts per
 * operation (modes_await.c, fiber.h), here one a pass. */
static void returns_at_once(void *arg) { (void)arg; }

/* Runs a pass whose one coroutine is created (its stack mapped: the pool was
 * drained first, whatever this process inherited) before the clock when
 * `early`, after it otherwise, then completes every operation. */
static int one_stack(ab_run_t *run, int early) {
  ab_coro_t *co = NULL;
  ab_coro_pool_drain();
  if (early) co = ab_coro_create(returns_at_once, NULL);
  ab_run_begin(run);
  if (!early) co = ab_coro_create(returns_at_once, NULL);
  if (co == NULL) {
    ab_run_oom(run, 0, "a coroutine");
    return -1;
  }
  ab_coro_resume(co);
  ab_coro_destroy(co);
  for (long i = 0; i < run->n; i++)
    if (ab_run_check(run, i, &i) != 0) return -1;
  return 0;
}

static int stack_first(ab_run_t *run) { return one_stack(run, 1); }
static int stack_later(ab_run_t *run) { return one_stack(run, 0); }

static const ab_variant_t fake_variants[] = {
  {"callback", NULL, "sequential", completes_all, NULL, 0},
  {"callback", NULL, "parallel", completes_all, NULL, 0},
  {"promise", "counter", "parallel", completes_all, ", extra", 0},
  {"oom", NULL, "sequential", fails_oom, NULL, 0},
  {"verify", NULL, "sequential", fails_verify, NULL, 0},
  {"callback", "nowait", "parallel", completes_all, NULL, 1},
  {"clockless", NULL, "sequential", no_clock, NULL, 0},
  {"early", NULL, "sequential", records_first, NULL, 0},
  {"third", NULL, "sequential", third_pass_wrong, NULL, 0},
  {"second", "early", "sequential", second_pass_early, NULL, 0},
  {"slower", NULL, "sequential", slower_each_pass, NULL, 0},
  {"stack", "first", "sequential", stack_first, NULL, 0},
  {"stack", "later", "sequential", stack_later, NULL, 0},
  {NULL, NULL, NULL, NULL, NULL, 0}
};

/* The state setup makes: a handle on the loop that teardown must close. */
typedef struct {
  uv_idle_t idle;
  long level;
} fake_state_t;

static fake_state_t fake_state;

static int fake_setup(const ab_opts_t *o, uv_loop_t *loop, void **state) {
  if (strcmp(o->flags[FLAG_COLOUR], "none") == 0) {
    fprintf(stderr, "%s: no colour at all\n", o->prog);
    return AB_EXIT_ENV;
  }
  fake_state.level = atol(o->flags[FLAG_LEVEL]);
  uv_idle_init(loop, &fake_state.idle);
  *state = &fake_state;
  return AB_EXIT_OK;
}

static void fake_teardown(void *state) {
  fake_state_t *st = state;
  /* --level 0 "forgets" the handle: uv_loop_close must then fail the run. */
  if (st->level != 0) uv_close((uv_handle_t *)&st->idle, NULL);
}

/* An operation's result is a long that must equal its iteration. */
static int fake_check(ab_run_t *run, long i, const void *result) {
  long got = *(const long *)result;
  if (got != i) {
    ab_run_fail(run, i, "got %ld, expected %ld", got, i);
    return -1;
  }
  ab_run_ok(run, 2);
  return 0;
}

static void fake_json(FILE *out, const ab_run_t *run) {
  const fake_state_t *st = run->state;
  fprintf(out, ",\"level\":%ld", st->level);
}

static const ab_workload_t fake = {
  "fake", "nothing at all", fake_flags, fake_backend, fake_variants,
  fake_setup, fake_check, fake_teardown, fake_json, 0
};

/* ---- parsing ---------------------------------------------------------------- */

#define parse(o, ...) parse_quiet(&fake, o, __VA_ARGS__)

static void defaults_are_the_contracts(void **state) {
  ab_opts_t o;
  (void)state;
  assert_int_equal(parse(&o, "--variant", "callback-parallel", NULL), AB_EXIT_OK);
  assert_int_equal(o.iterations, 10000);
  assert_int_equal(o.warmup, 0);
  assert_int_equal(o.concurrency, 0);
  assert_string_equal(o.variant, "callback-parallel");
  assert_string_equal(o.backend, "alpha"); /* the workload's first */
  assert_string_equal(o.flags[FLAG_LEVEL], "3");
  assert_string_equal(o.flags[FLAG_COLOUR], "blue");
  assert_string_equal(o.prog, "prog");
}

/* What every_flag_is_read gives, whichever form the flags took. */
static void assert_every_flag(const ab_opts_t *o, const char *colour) {
  assert_int_equal(o->iterations, 7);
  assert_int_equal(o->warmup, 3);
  assert_int_equal(o->concurrency, 5);
  assert_string_equal(o->variant, "callback-sequential");
  assert_string_equal(o->backend, "beta");
  assert_string_equal(o->flags[FLAG_LEVEL], "9");
  assert_string_equal(o->flags[FLAG_COLOUR], colour);
}

static void every_flag_is_read(void **state) {
  ab_opts_t o;
  (void)state;
  assert_int_equal(parse(&o, "--variant", "callback-sequential", "--iterations", "7",
                         "--warmup", "3", "--concurrency", "5", "--colour", "red",
                         "--level", "9", "--backend", "beta", NULL),
                   AB_EXIT_OK);
  assert_every_flag(&o, "red");
}

static void every_flag_is_read_in_the_equals_form_too(void **state) {
  ab_opts_t o;
  (void)state;
  assert_int_equal(parse(&o, "--variant=callback-sequential", "--iterations=7", "--warmup", "3",
                         "--concurrency=5", "--colour=red=ish", "--level=9", "--backend=beta", NULL),
                   AB_EXIT_OK);
  assert_every_flag(&o, "red=ish"); /* the name ends at the first '=' */
  assert_int_equal(parse(&o, "--variant=callback-sequential", "--iterations=", NULL), AB_EXIT_USAGE);
  assert_int_equal(parse(&o, "--variant=callback-sequential", "--levels=2", NULL), AB_EXIT_USAGE);
  assert_int_equal(parse(&o, "--variant=callback-sequential", "--iterations=2", "--iterations", NULL),
                   AB_EXIT_USAGE);
}

static void bad_numbers_are_usage_errors(void **state) {
  ab_opts_t o;
  (void)state;
  assert_int_equal(parse(&o, "--variant", "callback-parallel", "--iterations", "0", NULL), AB_EXIT_USAGE);
  assert_int_equal(parse(&o, "--variant", "callback-parallel", "--iterations", "-5", NULL), AB_EXIT_USAGE);
  assert_int_equal(parse(&o, "--variant", "callback-parallel", "--iterations", "abc", NULL), AB_EXIT_USAGE);
  assert_int_equal(parse(&o, "--variant", "callback-parallel", "--iterations", "12x", NULL), AB_EXIT_USAGE);
  assert_int_equal(parse(&o, "--variant", "callback-parallel", "--iterations", "", NULL), AB_EXIT_USAGE);
  assert_int_equal(parse(&o, "--variant", "callback-parallel", "--iterations",
                         "99999999999999999999999", NULL), AB_EXIT_USAGE);
  assert_int_equal(parse(&o, "--variant", "callback-parallel", "--warmup", "-1", NULL), AB_EXIT_USAGE);
  assert_int_equal(parse(&o, "--variant", "callback-parallel", "--concurrency", "-2", NULL), AB_EXIT_USAGE);
  assert_int_equal(parse(&o, "--variant", "callback-parallel", "--warmup", "0", NULL), AB_EXIT_OK);
  assert_int_equal(o.passes, 1); /* the default */
  assert_int_equal(parse(&o, "--variant", "callback-parallel", "--passes", "0", NULL), AB_EXIT_USAGE);
  assert_int_equal(parse(&o, "--variant", "callback-parallel", "--passes", "-1", NULL), AB_EXIT_USAGE);
  assert_int_equal(parse(&o, "--variant", "callback-parallel", "--passes", "two", NULL), AB_EXIT_USAGE);
  assert_int_equal(parse(&o, "--variant", "callback-parallel", "--passes", "+3", NULL), AB_EXIT_USAGE);
  assert_int_equal(parse(&o, "--variant", "callback-parallel", "--passes", "10001", NULL), AB_EXIT_USAGE);
  assert_int_equal(parse(&o, "--variant", "callback-parallel", "--passes=10000", NULL), AB_EXIT_OK);
  assert_int_equal(o.passes, AB_PASSES_MAX);
}

static void unknown_names_are_usage_errors(void **state) {
  ab_opts_t o;
  (void)state;
  assert_int_equal(parse(&o, "--variant", "nope-parallel", NULL), AB_EXIT_USAGE);
  assert_int_equal(parse(&o, NULL), AB_EXIT_USAGE); /* --variant missing */
  assert_int_equal(parse(&o, "--variant", "callback-parallel", "--bogus", "1", NULL), AB_EXIT_USAGE);
  assert_int_equal(parse(&o, "--variant", "callback-parallel", "--backend", "nope", NULL), AB_EXIT_USAGE);
  assert_int_equal(parse(&o, "--variant", "callback-parallel", "stray", NULL), AB_EXIT_USAGE);
  assert_int_equal(parse(&o, "--variant", "callback-parallel", "--iterations", NULL), AB_EXIT_USAGE);
  /* another workload's flag is unknown here */
  assert_int_equal(parse(&o, "--variant", "callback-parallel", "--file", "x", NULL), AB_EXIT_USAGE);
  /* a shape is part of the name */
  assert_int_equal(parse(&o, "--variant", "promise-parallel", NULL), AB_EXIT_USAGE);
  assert_int_equal(parse(&o, "--variant", "promise-counter-parallel", NULL), AB_EXIT_OK);
}

static void help_asks_to_exit_cleanly(void **state) {
  ab_opts_t o;
  FILE *saved = stdout;
  int rc;
  (void)state;
  stdout = fopen("/dev/null", "w");
  rc = parse(&o, "--help", NULL);
  fclose(stdout);
  stdout = saved;
  assert_int_equal(rc, -1);
}

static void usage_lists_the_workloads_flags_backends_and_variants(void **state) {
  char text[4096];
  FILE *f = tmpfile();
  (void)state;
  assert_non_null(f);
  ab_usage(f, "prog", &fake);
  rewind(f);
  text[fread(text, 1, sizeof(text) - 1, f)] = '\0';
  fclose(f);
  assert_non_null(strstr(text, "usage: prog --variant NAME"));
  assert_non_null(strstr(text, "nothing at all"));
  assert_non_null(strstr(text, "--level N"));
  assert_non_null(strstr(text, "how deep (default '3')"));
  assert_non_null(strstr(text, "--colour NAME"));
  assert_non_null(strstr(text, "backend: alpha, beta (default alpha)"));
  assert_non_null(strstr(text, "0 = default 64"));
  assert_non_null(strstr(text, "variants: callback-sequential callback-parallel "
                               "promise-counter-parallel oom-sequential verify-sequential "
                               "clockless-sequential early-sequential third-sequential "
                               "second-early-sequential slower-sequential "
                               "stack-first-sequential stack-later-sequential\n"));
  assert_non_null(strstr(text, "--passes P          timed passes of N after the warm-up, 1 to 10000"));
  assert_null(strstr(text, "nowait")); /* test only: not offered */
}

static void variant_names_join_style_shape_and_mode(void **state) {
  char buf[64];
  (void)state;
  assert_string_equal(ab_variant_name(&fake_variants[0], buf, sizeof(buf)), "callback-sequential");
  assert_string_equal(ab_variant_name(&fake_variants[2], buf, sizeof(buf)), "promise-counter-parallel");
  assert_ptr_equal(ab_variant_find(&fake, "promise-counter-parallel"), &fake_variants[2]);
  assert_ptr_equal(ab_variant_find(&fake, "callback-nowait-parallel"), &fake_variants[5]);
  assert_null(ab_variant_find(&fake, "promise-counter"));
}

/* ---- counting and failures -------------------------------------------------- */

static void new_run(ab_run_t *run, long n) {
  memset(run, 0, sizeof(*run));
  run->workload = &fake;
  run->state = &fake_state;
  run->n = n;
  run->failed_at = -1;
}

static void ok_counts_verified_completions_and_their_bytes(void **state) {
  ab_run_t run;
  (void)state;
  new_run(&run, 2);
  ab_run_begin(&run);
  ab_run_ok(&run, 12);
  assert_int_equal(run.ok, 1);
  assert_false(ab_run_done(&run));
  assert_int_equal(run.t_end_ns, 0);
  ab_run_ok(&run, 0); /* a workload that moves no bytes */
  assert_true(ab_run_done(&run));
  assert_int_equal(run.bytes, 12);
  assert_true(run.t_end_ns >= run.t_start_ns);
  assert_false(ab_run_failed(&run));
}

static void check_goes_through_the_workload(void **state) {
  ab_run_t run;
  long right = 1, wrong = 5;
  (void)state;
  new_run(&run, 3);
  assert_int_equal(ab_run_check(&run, 1, &right), 0);
  assert_int_equal(run.ok, 1);
  assert_int_equal(run.bytes, 2);
  assert_int_equal(ab_run_check(&run, 2, &wrong), -1);
  assert_int_equal(run.failed_at, 2);
  assert_string_equal(run.error, "got 5, expected 2");
  assert_int_equal(run.ok, 1);
}

static void the_first_failure_wins(void **state) {
  ab_run_t run;
  (void)state;
  new_run(&run, 5);
  ab_run_fail(&run, 3, "first %s", "one");
  ab_run_oom(&run, 1, "anything");
  ab_run_fail(&run, 4, "second");
  assert_int_equal(run.failed_at, 3);
  assert_string_equal(run.error, "first one");
  assert_false(run.env_error);
  new_run(&run, 5);
  ab_run_oom(&run, 1, "the records");
  assert_string_equal(run.error, "out of memory for the records");
  assert_true(run.env_error);
}

static void slots_follow_the_mode(void **state) {
  ab_run_t run;
  (void)state;
  new_run(&run, 100);
  run.concurrency = 1;
  assert_int_equal(ab_run_slots(&run), 1);
  run.concurrency = 0;
  assert_int_equal(ab_run_slots(&run), 100);
  run.concurrency = 64;
  assert_int_equal(ab_run_slots(&run), 64);
  run.concurrency = 500;
  assert_int_equal(ab_run_slots(&run), 100);
}

static void clock_is_monotonic(void **state) {
  uint64_t a = ab_now_ns(), b = ab_now_ns();
  (void)state;
  assert_true(b >= a);
}

/* ---- ab_main: exit codes and the line --------------------------------------- */

/* ab_main of the fake workload over the arguments, in a child. */
#define run_fake(c, out, ...)                                                \
  main_in_child(&fake, c, out, sizeof(out), (const char *const[]){__VA_ARGS__, NULL})

/* The integer field `name` of a line, or -1. */
static long long line_field(const char *line, const char *name) {
  char key[64];
  snprintf(key, sizeof(key), "\"%s\":", name);
  const char *at = strstr(line, key);
  return at != NULL ? atoll(at + strlen(key)) : -1;
}

static void the_line_has_the_contracts_fields_in_order(void **state) {
  child_t c;
  char out[1024], want[512];
  (void)state;
  run_fake(&c, out, "--variant", "promise-counter-parallel", "--backend", "beta",
                "--iterations", "5", "--warmup", "2", "--level", "4");
  assert_true(WIFEXITED(c.status));
  assert_int_equal(WEXITSTATUS(c.status), AB_EXIT_OK);
  assert_string_equal(c.err, "");
  const char *head =
      "{\"workload\":\"fake\",\"lang\":\"c\",\"style\":\"promise\",\"shape\":\"counter\","
      "\"mode\":\"parallel\",\"method\":\"inprocess\",\"backend\":\"beta\","
      "\"variant\":\"fake/c/promise-counter-parallel@beta\",\"iterations\":5,"
      "\"concurrency\":0,\"ok\":5,\"bytes\":10,\"elapsed_ns\":";
  assert_memory_equal(out, head, strlen(head));
  assert_non_null(strstr(out, "\"user_us\":"));
  assert_true(strstr(out, "\"user_us\":") < strstr(out, "\"sys_us\":"));
  assert_true(strstr(out, "\"sys_us\":") < strstr(out, "\"peak_rss_kb\":"));
  assert_true(strstr(out, "\"peak_rss_kb\":") < strstr(out, "\"idle_rss_kb\":"));
  /* the runtime, then the workload's own fields, then what the pass cost
   * (counters.h; the fake workload starts no threadpool request), then the
   * end of the line */
  snprintf(want, sizeof(want), "\"runtime\":\"libuv %s, extra\",\"level\":4,"
           "\"threadpool_trips\":0,\"allocs\":", uv_version_string());
  assert_non_null(strstr(out, want));
  assert_non_null(strstr(out, ",\"pool_gets\":"));
  assert_true(strstr(out, ",\"nvcsw\":") < strstr(out, ",\"nivcsw\":"));
  /* then what the pass did before its clock (ab_run_begin) */
  assert_true(strstr(out, ",\"nivcsw\":") < strstr(out, ",\"preclock_heap_bytes\":"));
  assert_true(strstr(out, ",\"preclock_heap_bytes\":") < strstr(out, ",\"preclock_faults\":"));
  /* and how long the warm-up took */
  assert_true(strstr(out, ",\"preclock_faults\":") < strstr(out, ",\"warmup_ns\":"));
  /* and every timed pass's time, one by default, the line's elapsed_ns */
  snprintf(want, sizeof(want), ",\"passes_elapsed_ns\":[%lld]}\n",
           line_field(out, "elapsed_ns"));
  assert_true(strlen(out) > strlen(want));
  assert_string_equal(out + strlen(out) - strlen(want), want); /* the last field */
  assert_int_equal(out[strlen(out) - 2], '}');
  assert_ptr_equal(strchr(out, '\n'), out + strlen(out) - 1); /* one line */
}

static void no_shape_is_an_empty_string_and_sequential_is_one_in_flight(void **state) {
  child_t c;
  char out[1024];
  (void)state;
  run_fake(&c, out, "--variant", "callback-sequential", "--iterations", "3");
  assert_int_equal(WEXITSTATUS(c.status), AB_EXIT_OK);
  assert_non_null(strstr(out, "\"style\":\"callback\",\"shape\":\"\",\"mode\":\"sequential\""));
  assert_non_null(strstr(out, "\"variant\":\"fake/c/callback-sequential@alpha\""));
  assert_non_null(strstr(out, "\"concurrency\":1,"));
}

static void out_of_memory_exits_3_and_a_wrong_result_1(void **state) {
  child_t c;
  char out[1024];
  (void)state;
  run_fake(&c, out, "--variant", "oom-sequential");
  assert_true(WIFEXITED(c.status));
  assert_int_equal(WEXITSTATUS(c.status), AB_EXIT_ENV);
  assert_string_equal(c.err, "prog: iteration 2: out of memory for the test's records\n");
  assert_string_equal(out, "");
  run_fake(&c, out, "--variant", "verify-sequential");
  assert_true(WIFEXITED(c.status));
  assert_int_equal(WEXITSTATUS(c.status), AB_EXIT_VERIFY);
  assert_string_equal(c.err, "prog: iteration 0: got 7, expected 0\n");
  assert_string_equal(out, "");
}

static void a_variant_that_never_starts_its_clock_fails(void **state) {
  child_t c;
  char out[1024];
  (void)state;
  run_fake(&c, out, "--variant", "clockless-sequential", "--iterations", "4");
  assert_true(WIFEXITED(c.status));
  assert_int_equal(WEXITSTATUS(c.status), AB_EXIT_VERIFY);
  assert_string_equal(c.err,
                      "prog: iteration 4: the variant never started its clock (ab_run_begin)\n");
  assert_string_equal(out, "");
}

static void a_pass_that_maps_a_coroutine_stack_before_its_clock_fails(void **state) {
  child_t c;
  char out[1024];
  (void)state;
  /* DESIGN section 3: C maps no stacks before its clock, however few (the
   * pool caps at AB_CORO_SHARED_STACKS, so the preclock figures' growth
   * with N cannot show it). */
  run_fake(&c, out, "--variant", "stack-first-sequential", "--iterations", "4");
  assert_true(WIFEXITED(c.status));
  assert_int_equal(WEXITSTATUS(c.status), AB_EXIT_VERIFY);
  assert_string_equal(c.err,
                      "prog: iteration 4: 1 coroutine stack was mapped before the clock "
                      "started (ab_run_begin): a pass maps its stacks inside its clock\n");
  assert_string_equal(out, "");
  /* the warm-up is a pass like the others */
  run_fake(&c, out, "--variant", "stack-first-sequential", "--iterations", "4", "--warmup", "2");
  assert_int_equal(WEXITSTATUS(c.status), AB_EXIT_VERIFY);
  assert_non_null(strstr(c.err, "prog: warm-up iteration 2: 1 coroutine stack was mapped before"));
  /* the same stack mapped after the clock started: every pass is valid */
  run_fake(&c, out, "--variant", "stack-later-sequential", "--iterations", "4", "--warmup", "2",
           "--passes", "3");
  assert_int_equal(WEXITSTATUS(c.status), AB_EXIT_OK);
  assert_string_equal(c.err, "");
  assert_int_equal(line_field(out, "ok"), 4);
}

static void the_line_shows_what_a_pass_made_before_its_clock(void **state) {
  child_t c;
  char out[1024];
  long long heap, faults;
  (void)state;
  /* 20,000 records of 512 bytes made and touched before the clock: about
   * 10 MB and 2,500 pages, whichever way malloc gets them */
  run_fake(&c, out, "--variant", "early-sequential", "--iterations", "20000");
  assert_int_equal(WEXITSTATUS(c.status), AB_EXIT_OK);
  heap = line_field(out, "preclock_heap_bytes");
  faults = line_field(out, "preclock_faults");
  /* harness.c reads the heap on glibc, macOS and under the sanitizers */
#if defined(__GLIBC__) || defined(__APPLE__)
  assert_true(heap >= 20000LL * 512);
#endif
  assert_true(faults >= 20000LL * 512 / 4096 / 2);
  /* a variant that starts its clock first made nothing before it */
  run_fake(&c, out, "--variant", "callback-sequential", "--iterations", "20000");
  assert_int_equal(WEXITSTATUS(c.status), AB_EXIT_OK);
  assert_true(line_field(out, "preclock_heap_bytes") < 4096);
  assert_true(line_field(out, "preclock_faults") < 4);
}

/* The entries of the line's passes_elapsed_ns in t (up to max); their count,
 * or -1 when the field is missing. */
static int line_passes(const char *line, long long *t, int max) {
  const char *at = strstr(line, "\"passes_elapsed_ns\":[");
  int n = 0;
  if (at == NULL) return -1;
  at += strlen("\"passes_elapsed_ns\":[");
  while (*at != ']' && *at != '\0' && n < max) {
    char *end;
    t[n++] = strtoll(at, &end, 10);
    at = *end == ',' ? end + 1 : end;
  }
  return n;
}

static void every_timed_pass_is_run_verified_and_listed(void **state) {
  child_t c;
  char out[1024];
  long long t[8];
  (void)state;
  run_fake(&c, out, "--variant", "slower-sequential", "--iterations", "5", "--warmup", "2",
           "--passes", "4");
  assert_int_equal(WEXITSTATUS(c.status), AB_EXIT_OK);
  assert_string_equal(c.err, "");
  assert_int_equal(line_passes(out, t, 8), 4);
  /* the first pass is elapsed_ns; the k-th slept 2(k - 1) ms inside its clock */
  assert_int_equal(t[0], line_field(out, "elapsed_ns"));
  for (int k = 1; k < 4; k++) assert_true(t[k] >= 2000000LL * k);
  assert_true(t[0] < 2000000LL);
  /* the other figures are one pass's: N operations, not P * N */
  assert_int_equal(line_field(out, "ok"), 5);
  assert_int_equal(line_field(out, "bytes"), 10);
  assert_ptr_equal(strchr(out, '\n'), out + strlen(out) - 1); /* still one line */
  /* a pass that gets one result wrong fails the process, whichever pass */
  run_fake(&c, out, "--variant", "third-sequential", "--iterations", "3", "--passes", "3");
  assert_int_equal(WEXITSTATUS(c.status), AB_EXIT_VERIFY);
  assert_string_equal(c.err, "prog: timed pass 3 of 3: iteration 1: got 99, expected 1\n");
  assert_string_equal(out, "");
  run_fake(&c, out, "--variant", "third-sequential", "--iterations", "3", "--passes", "2");
  assert_int_equal(WEXITSTATUS(c.status), AB_EXIT_OK);
  assert_int_equal(line_passes(out, t, 8), 2);
}

static void the_preclock_figures_are_the_most_of_any_pass(void **state) {
  child_t c;
  char out[1024];
  (void)state;
  /* the second of three passes makes 10 MB before its clock */
  run_fake(&c, out, "--variant", "second-early-sequential", "--iterations", "20000",
           "--passes", "3");
  assert_int_equal(WEXITSTATUS(c.status), AB_EXIT_OK);
#if defined(__GLIBC__) || defined(__APPLE__)
  assert_true(line_field(out, "preclock_heap_bytes") >= 20000LL * 512);
#endif
  assert_true(line_field(out, "preclock_faults") >= 20000LL * 512 / 4096 / 2);
  /* with one pass, none did */
  run_fake(&c, out, "--variant", "second-early-sequential", "--iterations", "20000");
  assert_int_equal(WEXITSTATUS(c.status), AB_EXIT_OK);
  assert_true(line_field(out, "preclock_heap_bytes") < 4096);
  assert_true(line_field(out, "preclock_faults") < 4);
}

static void a_failed_setup_is_its_exit_code_and_prints_no_line(void **state) {
  child_t c;
  char out[1024];
  (void)state;
  run_fake(&c, out, "--variant", "callback-parallel", "--colour", "none");
  assert_int_equal(WEXITSTATUS(c.status), AB_EXIT_ENV);
  assert_string_equal(c.err, "prog: no colour at all\n");
  assert_string_equal(out, "");
}

static void a_handle_teardown_leaves_open_fails_the_run(void **state) {
  child_t c;
  char out[1024];
  (void)state;
  run_fake(&c, out, "--variant", "callback-parallel", "--level", "0");
  assert_int_equal(WEXITSTATUS(c.status), AB_EXIT_VERIFY);
  assert_non_null(strstr(c.err, "uv_loop_close"));
  assert_string_equal(out, "");
}

/* The least a workload can be: no flags, no setup, no teardown, no extra
 * fields (a throw-away workload made to try the interface needed exactly
 * this, and the harness called setup unconditionally). */
static const ab_workload_t bare = {
  "bare", "nothing but a check", NULL, fake_backend, fake_variants,
  NULL, fake_check, NULL, NULL, 0
};

static void a_workload_needs_no_flags_setup_teardown_or_extra_fields(void **state) {
  child_t c;
  char out[1024];
  (void)state;
  main_in_child(&bare, &c, out, sizeof(out),
                (const char *const[]){"--variant", "callback-sequential", "--iterations", "4", NULL});
  assert_true(WIFEXITED(c.status));
  assert_int_equal(WEXITSTATUS(c.status), AB_EXIT_OK);
  assert_string_equal(c.err, "");
  assert_non_null(strstr(out, "\"variant\":\"bare/c/callback-sequential@alpha\",\"iterations\":4,"));
  assert_non_null(strstr(out, "\"ok\":4,\"bytes\":8,"));
}

/* An operation that owns a libuv handle: a zero-delay timer embedded in its
 * record, started per operation and closed by the type's cleanup.  The mode
 * skeletons must let those closes finish before they free the records (a
 * throw-away workload of this kind crashed in uv_run when they did not). */
/* (the operation: timer_op.h) */

static int timer_check(ab_run_t *run, long i, const void *result) {
  return fake_check(run, i, &((const timer_op_t *)result)->value);
}

static int timer_slots(ab_run_t *run) { return ab_mode_slots(run, &timer_op); }
static int timer_chains(ab_run_t *run) { return ab_mode_chains(run, &timer_op); }
static int timer_all(ab_run_t *run) { return ab_mode_then_all(run, &timer_op); }

static const ab_variant_t timer_variants[] = {
  {"callback", NULL, "sequential", timer_slots, NULL, 0},
  {"callback", NULL, "parallel", timer_slots, NULL, 0},
  {"callback", NULL, "bounded", timer_slots, NULL, 0},
  {"promise", NULL, "sequential", timer_chains, NULL, 0},
  {"promise", NULL, "parallel", timer_all, NULL, 0},
  {NULL, NULL, NULL, NULL, NULL, 0}
};

static const ab_workload_t timers = {
  "timers", "a timer per operation", NULL, fake_backend, timer_variants,
  NULL, timer_check, NULL, NULL, 0
};

static void records_that_own_handles_are_freed_after_the_handles_close(void **state) {
  static const char *const names[] = {"callback-sequential", "callback-parallel",
                                      "callback-bounded", "promise-sequential",
                                      "promise-parallel"};
  (void)state;
  for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
    child_t c;
    char out[1024];
    main_in_child(&timers, &c, out, sizeof(out),
                  (const char *const[]){"--variant", names[k], "--iterations", "2000",
                                        "--warmup", "3", "--concurrency", "7", NULL});
    if (!WIFEXITED(c.status) || WEXITSTATUS(c.status) != AB_EXIT_OK)
      fail_msg("%s: status %d, stderr: %s", names[k], c.status, c.err);
    assert_non_null(strstr(out, "\"ok\":2000,"));
  }
}

/* An operation that cannot start: out of memory (UV_ENOMEM, as uv_fs_open
 * says when it cannot copy the path) or anything else (UV_EINVAL).  Out of
 * memory is the environment's (exit 3) in every style; it was exit 1. */
static int start_code;
static int nostart_start(ab_op_t *op) {
  (void)op;
  return start_code;
}
static const ab_op_type_t nostart_op = {sizeof(ab_op_t), nostart_start, NULL};
static int nostart_slots(ab_run_t *run) { return ab_mode_slots(run, &nostart_op); }
static int nostart_chains(ab_run_t *run) { return ab_mode_chains(run, &nostart_op); }
static int nostart_all(ab_run_t *run) { return ab_mode_then_all(run, &nostart_op); }
static int nostart_await(ab_run_t *run) { return ab_mode_await_all(run, &nostart_op); }
static int nostart_stackless(ab_run_t *run) { return ab_mode_stackless_all(run, &nostart_op); }

static const ab_variant_t nostart_variants[] = {
  {"callback", NULL, "parallel", nostart_slots, NULL, 0},
  {"promise", NULL, "sequential", nostart_chains, NULL, 0},
  {"promise", NULL, "parallel", nostart_all, NULL, 0},
  {"await", NULL, "parallel", nostart_await, NULL, 0},
  {"stackless", NULL, "parallel", nostart_stackless, NULL, 0},
  {NULL, NULL, NULL, NULL, NULL, 0}
};

static const ab_workload_t nostart = {
  "nostart", "an operation that cannot start", NULL, fake_backend, nostart_variants,
  NULL, fake_check, NULL, NULL, 0
};

static void an_operation_without_memory_to_start_is_exit_3(void **state) {
  static const char *const names[] = {"callback-parallel", "promise-sequential",
                                      "promise-parallel", "await-parallel",
                                      "stackless-parallel"};
  (void)state;
  for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
    child_t c;
    char out[1024];
    start_code = UV_ENOMEM;
    main_in_child(&nostart, &c, out, sizeof(out),
                  (const char *const[]){"--variant", names[k], "--iterations", "3", NULL});
    if (!WIFEXITED(c.status) || WEXITSTATUS(c.status) != AB_EXIT_ENV ||
        strcmp(c.err, "prog: iteration 0: out of memory for starting the operation\n") != 0)
      fail_msg("%s: status %d, stderr: %s", names[k], c.status, c.err);
    start_code = UV_EINVAL;
    main_in_child(&nostart, &c, out, sizeof(out),
                  (const char *const[]){"--variant", names[k], "--iterations", "3", NULL});
    if (!WIFEXITED(c.status) || WEXITSTATUS(c.status) != AB_EXIT_VERIFY ||
        strstr(c.err, "could not start the operation: invalid argument") == NULL)
      fail_msg("%s: status %d, stderr: %s", names[k], c.status, c.err);
  }
}

static void a_workload_flag_number_is_digits_within_its_bounds(void **state) {
  ab_opts_t o;
  long v = -7;
  FILE *saved = stderr;
  (void)state;
  assert_int_equal(ab_parse_count("25", 1, 100, &v), 0);
  assert_int_equal(v, 25);
  assert_int_equal(ab_parse_count("0", 0, 0, &v), 0);
  assert_int_equal(v, 0);
  v = -7;
  const char *bad[] = {"", "-1", "+3", " 3", "3 ", "3x", "0x10", "101", "99999999999999999999"};
  for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
    assert_int_equal(ab_parse_count(bad[k], 0, 100, &v), -1);
    assert_int_equal(v, -7); /* untouched */
  }
  assert_int_equal(ab_parse_count(NULL, 0, 100, &v), -1);
  memset(&o, 0, sizeof(o));
  o.prog = "prog";
  o.flags[1] = "9";
  assert_int_equal(ab_flag_count(&o, "--queries", 1, 1, 10, &v), AB_EXIT_OK);
  assert_int_equal(v, 9);
  o.flags[1] = "11";
  stderr = fopen("/dev/null", "w");
  assert_int_equal(ab_flag_count(&o, "--queries", 1, 1, 10, &v), AB_EXIT_USAGE);
  fclose(stderr);
  stderr = saved;
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(defaults_are_the_contracts),
    cmocka_unit_test(every_flag_is_read),
    cmocka_unit_test(every_flag_is_read_in_the_equals_form_too),
    cmocka_unit_test(bad_numbers_are_usage_errors),
    cmocka_unit_test(a_workload_flag_number_is_digits_within_its_bounds),
    cmocka_unit_test(unknown_names_are_usage_errors),
    cmocka_unit_test(help_asks_to_exit_cleanly),
    cmocka_unit_test(usage_lists_the_workloads_flags_backends_and_variants),
    cmocka_unit_test(variant_names_join_style_shape_and_mode),
    cmocka_unit_test(ok_counts_verified_completions_and_their_bytes),
    cmocka_unit_test(check_goes_through_the_workload),
    cmocka_unit_test(the_first_failure_wins),
    cmocka_unit_test(slots_follow_the_mode),
    cmocka_unit_test(clock_is_monotonic),
    cmocka_unit_test(the_line_has_the_contracts_fields_in_order),
    cmocka_unit_test(no_shape_is_an_empty_string_and_sequential_is_one_in_flight),
    cmocka_unit_test(out_of_memory_exits_3_and_a_wrong_result_1),
    cmocka_unit_test(a_variant_that_never_starts_its_clock_fails),
    cmocka_unit_test(a_pass_that_maps_a_coroutine_stack_before_its_clock_fails),
    cmocka_unit_test(the_line_shows_what_a_pass_made_before_its_clock),
    cmocka_unit_test(every_timed_pass_is_run_verified_and_listed),
    cmocka_unit_test(the_preclock_figures_are_the_most_of_any_pass),
    cmocka_unit_test(a_failed_setup_is_its_exit_code_and_prints_no_line),
    cmocka_unit_test(a_handle_teardown_leaves_open_fails_the_run),
    cmocka_unit_test(a_workload_needs_no_flags_setup_teardown_or_extra_fields),
    cmocka_unit_test(records_that_own_handles_are_freed_after_the_handles_close),
    cmocka_unit_test(an_operation_without_memory_to_start_is_exit_3),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
