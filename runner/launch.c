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
 *   status=<wait status> wall_ns=<n> user_us=<n> sys_us=<n> maxrss=<n> nvcsw=<n> nivcsw=<n>
 * (maxrss as the kernel gives it: KiB on Linux, bytes on macOS; nvcsw and
 * nivcsw the voluntary and involuntary context switches), or
 *   error=<what failed>
 * when the program could not be started (exit status 127).  The program keeps
 * the launcher's stdin, stdout, stderr and process group, so the runner's
 * timeout kills both with one killpg.
 *
 * When the runner dies without cleaning up (SIGKILL, an out-of-memory kill),
 * the program must not keep running.  On Linux the launcher asks for a
 * parent-death signal (prctl PR_SET_PDEATHSIG, SIGTERM) and answers it by
 * killing its whole process group (the program and whatever it forked that
 * stayed in the group); the program itself gets SIGKILL as its own
 * parent-death signal, in case the launcher is killed first.  Both check
 * getppid() after asking, for a parent that died before the request.  The
 * runner passes its pid in LAUNCH_PARENT_PID (removed before the program
 * starts).  Elsewhere the launcher polls getppid() every 50 ms while the
 * program runs, and kills the group when its parent has gone.
 * A process that leaves the group (setsid, setpgid) escapes both: only the
 * program's own process is killed then; its detached children are leaked,
 * as nothing but a cgroup or a PID namespace could find them.
 */
/* wait4 is BSD, not POSIX: glibc shows it with _DEFAULT_SOURCE, macOS by default. */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

/* The runner's (or the launcher's) death: kill the whole process group, the
 * launcher included.  kill() is async-signal-safe. */
static void parent_died(int sig) {
  (void)sig;
  kill(0, SIGKILL);
  _exit(128 + SIGKILL);
}

/* The pid of the runner: LAUNCH_PARENT_PID when the runner set it, else the
 * parent now (the race of a parent dying before this call stays open then). */
static pid_t runner_pid(void) {
  const char *s = getenv("LAUNCH_PARENT_PID");
  pid_t pid = s ? (pid_t)atol(s) : 0;
  unsetenv("LAUNCH_PARENT_PID");
  return pid > 0 ? pid : getppid();
}

/* Asks for sig when the parent (expected: pid parent) dies; returns 0, or -1
 * when the parent is already gone. */
static int die_with_parent(int sig, pid_t parent) {
#ifdef __linux__
  if (prctl(PR_SET_PDEATHSIG, sig) != 0) return 0; /* not fatal: the poll is not used here */
#else
  (void)sig;
#endif
  return getppid() == parent ? 0 : -1;
}

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
  pid_t parent = runner_pid();
  signal(SIGTERM, parent_died);
  if (die_with_parent(SIGTERM, parent) != 0) {
    fprintf(stderr, "launch: the runner (pid %ld) is gone; not starting %s\n", (long)parent,
            argv[2]);
    return 127;
  }
  pid_t self = getpid();
  long long t0 = now_ns();
  pid_t pid = fork();
  if (pid < 0) {
    fprintf(report, "error=fork: %s\n", strerror(errno));
    return 127;
  }
  if (pid == 0) {
    close(fd);
    signal(SIGTERM, SIG_DFL);
    if (die_with_parent(SIGKILL, self) != 0) _exit(127);
    execvp(argv[2], argv + 2);
    /* The parent reports this through the exit status 127 and stderr. */
    fprintf(stderr, "launch: cannot run %s: %s\n", argv[2], strerror(errno));
    _exit(127);
  }
  int status;
  struct rusage ru;
  pid_t got;
#ifdef __linux__
  (void)parent;
  do {
    got = wait4(pid, &status, 0, &ru);
  } while (got < 0 && errno == EINTR);
#else
  /* No parent-death signal: look at the parent every 50 ms. */
  for (;;) {
    got = wait4(pid, &status, WNOHANG, &ru);
    if (got != 0 && !(got < 0 && errno == EINTR)) break;
    if (getppid() != parent) parent_died(SIGTERM);
    struct timespec nap = {0, 50 * 1000000L};
    nanosleep(&nap, NULL);
  }
#endif
  long long t1 = now_ns();
  if (got < 0) {
    fprintf(report, "error=wait4: %s\n", strerror(errno));
    return 127;
  }
  fprintf(report, "status=%d wall_ns=%lld user_us=%lld sys_us=%lld maxrss=%ld nvcsw=%ld nivcsw=%ld\n",
          status, t1 - t0, tv_us(ru.ru_utime), tv_us(ru.ru_stime), (long)ru.ru_maxrss,
          (long)ru.ru_nvcsw, (long)ru.ru_nivcsw);
  fclose(report);
  return 0;
}
