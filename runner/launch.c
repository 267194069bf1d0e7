/*
 * launch.c -- starts one benchmark program for the runner (runner/launch.py) and
 * reports the program's own wall time and rusage.  `make all` builds it as
 * build/bin/launch.
 *
 * Usage: launch FD PROGRAM [ARG...]
 *
 * Why it exists: Linux carries a process's peak RSS across exec (the kernel
 * keeps the old image's high-water mark in ru_maxrss), so a program forked
 * straight from the Python runner inherits the runner's ~15 MB and every C
 * program would show the same peak memory.  This launcher is a small process:
 * the program is forked from it and inherits almost nothing, and its wait4
 * rusage is the program's alone.
 *
 * On the file descriptor FD it writes one line when the program has ended:
 *   status=<wait status> wall_ns=<n> user_us=<n> sys_us=<n> maxrss=<n>
 * (maxrss as the kernel gives it: KiB on Linux, bytes on macOS), or
 *   error=<what failed>
 * when the program could not be started (exit status 127).  The program keeps
 * the launcher's stdin, stdout, stderr and process group, so the runner's
 * timeout kills both with one killpg.
 */
/* wait4 is BSD, not POSIX: glibc shows it with _DEFAULT_SOURCE, macOS by default. */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long long tv_us(struct timeval tv) {
  return (long long)tv.tv_sec * 1000000LL + tv.tv_usec;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: launch FD PROGRAM [ARG...]\n");
    return 2;
  }
  int fd = atoi(argv[1]);
  FILE *report = fdopen(fd, "w");
  if (report == NULL) {
    fprintf(stderr, "launch: fd %s: %s\n", argv[1], strerror(errno));
    return 2;
  }
  long long t0 = now_ns();
  pid_t pid = fork();
  if (pid < 0) {
    fprintf(report, "error=fork: %s\n", strerror(errno));
    return 127;
  }
  if (pid == 0) {
    close(fd);
    execvp(argv[2], argv + 2);
    /* The parent reports this through the exit status 127 and stderr. */
    fprintf(stderr, "launch: cannot run %s: %s\n", argv[2], strerror(errno));
    _exit(127);
  }
  int status;
  struct rusage ru;
  pid_t got;
  do {
    got = wait4(pid, &status, 0, &ru);
  } while (got < 0 && errno == EINTR);
  long long t1 = now_ns();
  if (got < 0) {
    fprintf(report, "error=wait4: %s\n", strerror(errno));
    return 127;
  }
  fprintf(report, "status=%d wall_ns=%lld user_us=%lld sys_us=%lld maxrss=%ld\n", status,
          t1 - t0, tv_us(ru.ru_utime), tv_us(ru.ru_stime), (long)ru.ru_maxrss);
  fclose(report);
  return 0;
}
