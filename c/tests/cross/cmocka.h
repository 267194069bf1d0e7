/*
 * cross/cmocka.h -- the part of cmocka's API the coroutine tests use, for
 * cross builds (make test-aarch64) where no cmocka library exists for the
 * target.  Native builds never see this folder and use the real cmocka.
 *
 * Same shape as cmocka: a table of cmocka_unit_test(fn), each run once; a
 * failed assertion prints where and why and jumps back to the runner, which
 * goes on with the next test.  Output lines match cmocka's ("[       OK ]",
 * "[  FAILED  ]", "[  PASSED  ] N test(s).") so scripts/run-ctests.sh counts
 * them the same way; the exit status is the number of failed tests.
 */
#ifndef AB_CROSS_CMOCKA_H
#define AB_CROSS_CMOCKA_H

#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct CMUnitTest {
  const char *name;
  void (*fn)(void **state);
};

#define cmocka_unit_test(f) { #f, f }

static jmp_buf cm__jump;

static void cm__fail(const char *file, int line, const char *what) {
  printf("[  ERROR   ] --- %s\n[   LINE   ] --- %s:%d: error: Failure!\n", what, file, line);
  longjmp(cm__jump, 1);
}

#define cm__check(cond, what) \
  do { if (!(cond)) cm__fail(__FILE__, __LINE__, what); } while (0)

#define assert_true(c) cm__check((c), #c)
#define assert_false(c) cm__check(!(c), "!(" #c ")")
#define assert_null(p) cm__check((p) == NULL, #p " == NULL")
#define assert_non_null(p) cm__check((p) != NULL, #p " != NULL")
#define assert_ptr_equal(a, b) cm__check((const void *)(a) == (const void *)(b), #a " == " #b)
#define assert_ptr_not_equal(a, b) cm__check((const void *)(a) != (const void *)(b), #a " != " #b)
#define assert_int_equal(a, b) do { \
    intmax_t cm__a = (intmax_t)(a), cm__b = (intmax_t)(b); \
    if (cm__a != cm__b) { char cm__m[128]; \
      snprintf(cm__m, sizeof(cm__m), "%jd != %jd (%s)", cm__a, cm__b, #a); \
      cm__fail(__FILE__, __LINE__, cm__m); } } while (0)
#define assert_string_equal(a, b) do { \
    if (strcmp((a), (b)) != 0) { char cm__m[256]; \
      snprintf(cm__m, sizeof(cm__m), "\"%s\" != \"%s\"", (a), (b)); \
      cm__fail(__FILE__, __LINE__, cm__m); } } while (0)
#define fail_msg(...) do { char cm__m[256]; \
    snprintf(cm__m, sizeof(cm__m), __VA_ARGS__); cm__fail(__FILE__, __LINE__, cm__m); } while (0)

static int cm__run(const struct CMUnitTest *tests, size_t n) {
  volatile size_t failed = 0; /* kept across the longjmp of a failure */
  printf("[==========] Running %zu test(s).\n", n);
  for (size_t i = 0; i < n; i++) {
    printf("[ RUN      ] %s\n", tests[i].name);
    fflush(stdout);
    if (setjmp(cm__jump) == 0) {
      tests[i].fn(NULL);
      printf("[       OK ] %s\n", tests[i].name);
    } else {
      printf("[  FAILED  ] %s\n", tests[i].name);
      failed++;
    }
    fflush(stdout);
  }
  printf("[==========] %zu test(s) run.\n[  PASSED  ] %zu test(s).\n", n, n - (size_t)failed);
  if (failed)
    printf("[  FAILED  ] %zu test(s)\n", (size_t)failed);
  return (int)failed;
}

#define cmocka_run_group_tests(tests, setup, teardown) \
  ((void)(setup), (void)(teardown), cm__run((tests), sizeof(tests) / sizeof((tests)[0])))

#endif /* AB_CROSS_CMOCKA_H */
