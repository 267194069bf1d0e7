/*
 * run_child.h -- runs a function that is expected to abort or crash in a
 * forked child, and collects how the child ended and what it wrote to stderr.
 * For tests of misuse and overflow reports (include after cmocka.h).
 */
#ifndef AB_RUN_CHILD_H
#define AB_RUN_CHILD_H

#include <stdio.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct child_s {
  int status;      /* as from waitpid */
  char err[1024];  /* the child's stderr, NUL-terminated (truncated) */
} child_t;

static void run_in_child(void (*fn)(void), child_t *out) {
  int fds[2];
  assert_int_equal(pipe(fds), 0);
  fflush(NULL);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    dup2(fds[1], STDERR_FILENO);
    close(fds[0]);
    close(fds[1]);
    fn();
    _exit(0);
  }
  close(fds[1]);
  size_t n = 0;
  ssize_t r;
  while ((r = read(fds[0], out->err + n, sizeof(out->err) - 1 - n)) > 0)
    n += (size_t)r;
  out->err[n] = '\0';
  close(fds[0]);
  assert_int_equal(waitpid(pid, &out->status, 0), pid);
}

#endif /* AB_RUN_CHILD_H */
