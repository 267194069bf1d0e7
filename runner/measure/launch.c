/*
 * launch.c -- starts one benchmark program for the runner (runner/measure/launch.py) and
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
 *   status=<wait status> wall_ns=<n> user_us=<n> sys_us=<n> maxrss=<n> nvcsw=<n> nivcsw=<n> cpu=<n>
 * (maxrss as the kernel gives it: KiB on Linux, bytes on macOS; nvcsw and
 * nivcsw the voluntary and involuntary context switches; cpu the one CPU the
 * program was pinned to, -1 when it was not), or
 *   error=<what failed>
 * when the program could not be started (exit status 127).  On Linux the
 * status line ends with leftovers=<n> (below); a reader takes the fields by
 * name, so fields are only ever added.  The program keeps the launcher's
 * stdin, stdout and stderr, but not its process group: it runs in a group of
 * its own, so that whatever it signals as its group (a shell's `kill 0`, as
 * in `trap 'kill 0' EXIT`) reaches only itself and what it started, never
 * the launcher, which then reports the program's death as any other.
 *
 * SIGTERM to the launcher (the runner's timeout, or the runner's death below)
 * kills the program's whole group with SIGKILL; the launcher then reaps it,
 * kills its leftovers and reports as usual (the status is the SIGKILL).  The
 * other signals that would end it (SIGHUP, SIGINT, SIGQUIT, SIGUSR1, SIGUSR2,
 * SIGALRM, SIGPIPE) are ignored: in its own session only a program sends them
 * (kill $PPID); the program gets them back at their defaults.  SIGKILL cannot
 * be: the runner then charges the run to the program (runner/measure/launch.py).
 *
 * Leftovers: on Linux the launcher is a child subreaper (prctl
 * PR_SET_CHILD_SUBREAPER), so every process the program leaves behind, in its
 * group or not (setsid, a double fork), becomes the launcher's child when its
 * own parent ends.  Once the program is reaped (its wall time taken), the
 * launcher kills its group, then kills and reaps each of its own children,
 * again until none is left (their children come to it in turn), and reports
 * how many it killed (leftovers=<n>); the runner warns and records it.  Where
 * there is no subreaper (macOS, the BSDs), the program's group is killed and
 * nothing is counted: a process that left the group (setsid, setpgid) escapes
 * and is neither killed nor reported, as nothing but a PID namespace or a
 * cgroup (Linux) could find it there.
 *
 * When the runner dies without cleaning up (SIGKILL, an out-of-memory kill),
 * the program must not keep running.  On Linux the launcher asks for a
 * parent-death signal (prctl PR_SET_PDEATHSIG, SIGTERM) and answers it as the
 * SIGTERM above; the program itself gets SIGKILL as its own parent-death
 * signal, in case the launcher is killed first.  Both check getppid() after
 * asking, for a parent that died before the request.  The runner passes its
 * pid in LAUNCH_PARENT_PID (removed before the program starts).  Elsewhere
 * the launcher watches the runner while it waits (below) and kills the
 * program's group when its parent has gone.
 *
 * How it waits: the end time is read as soon as wait4 has reaped the program,
 * never after a sleep (a 50 ms poll once added 0-50 ms to every wall_ns on
 * macOS, and so to wall_ms and the time-budget planner).
 *   Linux             wait4 blocks; the parent-death signal covers the runner.
 *   macOS, the BSDs   kqueue: EVFILT_PROC NOTE_EXIT on the program and on the
 *                     runner, so that kevent returns when either ends (with a
 *                     1 s timeout to look at getppid() too, should the runner's
 *                     watch be refused); then wait4 reaps the program.
 *   elsewhere         SIGCHLD blocked and taken with sigtimedwait: it returns
 *                     when the program ends, or after 50 ms to look at getppid().
 * LAUNCH_WAIT_SIGNAL (-D) forces the last where there is sigtimedwait (not
 * on macOS).  The runner's tests build the launcher on Linux with
 * -U__linux__ as well (runner/tests/test_launch.py), which takes the last path there
 * (no prctl), the kqueue one on macOS.
 *
 * Pinning (DESIGN section 6): with LAUNCH_CPU=<n> in its environment (removed
 * before the program starts) the launcher pins itself to CPU n with
 * sched_setaffinity before it forks, so that the program and every thread it
 * starts run on that CPU alone; a CPU it cannot pin to is an error= line.
 * Where there is no sched_setaffinity (macOS) it pins nothing and says cpu=-1.
 */
/* wait4 is BSD, not POSIX: glibc shows it with _DEFAULT_SOURCE, macOS by
 * default; sched_setaffinity and CPU_SET are GNU. */
#define _DEFAULT_SOURCE
#ifdef __linux__
#define _GNU_SOURCE
#include <sched.h>
#endif
#include <dirent.h>
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

#if defined(LAUNCH_WAIT_SIGNAL)
#elif defined(__linux__)
#define LAUNCH_WAIT_BLOCK 1
#elif defined(__APPLE__) || defined(__FreeBSD__) || defined(__NetBSD__) || defined(__OpenBSD__) || \
    defined(__DragonFly__)
#define LAUNCH_WAIT_KQUEUE 1
#include <sys/event.h>
#else
#define LAUNCH_WAIT_SIGNAL 1
#endif

/* The program's process group (its pid) once it is forked; 0 before. */
static volatile sig_atomic_t program_group;

/* SIGTERM (the runner's timeout or death): kill the program's group; the
 * launcher goes on to reap it and its leftovers.  Before the fork there is
 * nothing to kill and the launcher ends.  kill() is async-signal-safe. */
static void stop_program(int sig) {
  pid_t group = (pid_t)program_group;
  if (group <= 0) _exit(128 + sig);
  kill(-group, SIGKILL);
}

#if !defined(LAUNCH_WAIT_BLOCK)
/* The runner is gone (seen by a wait below, not by a signal). */
static void parent_died(void) { stop_program(SIGTERM); }
#endif

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

#if !defined(LAUNCH_WAIT_SIGNAL)
/* wait4 that blocks, again after a signal. */
static pid_t reap(pid_t pid, int *status, struct rusage *ru) {
  pid_t got;
  do {
    got = wait4(pid, status, 0, ru);
  } while (got < 0 && errno == EINTR);
  return got;
}
#endif

#if defined(LAUNCH_WAIT_KQUEUE)
/* Adds a one-shot NOTE_EXIT watch of pid to kq; 0, or -1 with errno (ESRCH:
 * pid has already ended). */
static int watch_exit(int kq, pid_t pid) {
  struct kevent ev;
  EV_SET(&ev, (uintptr_t)pid, EVFILT_PROC, EV_ADD | EV_ONESHOT, NOTE_EXIT, 0, NULL);
  return kevent(kq, &ev, 1, NULL, 0, NULL) == 0 ? 0 : -1;
}

/* Waits for the program pid while watching the runner parent; then reaps it.
 * Without a kqueue, or a watch of the program, it blocks in wait4 (the
 * runner's death is then seen only by its own cleanup). */
static pid_t wait_program(pid_t pid, pid_t parent, int *status, struct rusage *ru) {
  int kq = kqueue();
  if (kq < 0) return reap(pid, status, ru);
  /* ESRCH: the program has ended already; it is a zombie until reaped. */
  if (watch_exit(kq, pid) == 0) {
    if (watch_exit(kq, parent) != 0 && errno == ESRCH) parent_died();
    for (;;) {
      /* A program that ended before its watch was added might send no
       * NOTE_EXIT: look before each wait (it costs one system call). */
      pid_t got = wait4(pid, status, WNOHANG, ru);
      if (got != 0 && !(got < 0 && errno == EINTR)) {
        close(kq);
        return got;
      }
      struct kevent ev;
      struct timespec tick = {1, 0};
      int n = kevent(kq, NULL, 0, &ev, 1, &tick);
      if (n < 0 && errno != EINTR) break; /* the blocking wait4 below still ends it */
      if (n > 0 && ev.ident == (uintptr_t)pid) break;
      if ((n > 0 && ev.ident == (uintptr_t)parent) || getppid() != parent) parent_died();
    }
  }
  close(kq);
  /* NOTE_EXIT may come a moment before the program can be reaped: block. */
  return reap(pid, status, ru);
}
#elif defined(LAUNCH_WAIT_SIGNAL)
static sigset_t chld_set, saved_mask;

static void on_chld(int sig) { (void)sig; }

/* Before fork: SIGCHLD caught (a signal ignored might be discarded, not left
 * pending) and blocked, so that the program's end cannot come before the wait. */
static void prepare_wait(void) {
  sigemptyset(&chld_set);
  sigaddset(&chld_set, SIGCHLD);
  signal(SIGCHLD, on_chld);
  sigprocmask(SIG_BLOCK, &chld_set, &saved_mask);
}

/* In the program, before exec: the mask is inherited across exec. */
static void unprepare_wait(void) { sigprocmask(SIG_SETMASK, &saved_mask, NULL); }

static pid_t wait_program(pid_t pid, pid_t parent, int *status, struct rusage *ru) {
  for (;;) {
    pid_t got = wait4(pid, status, WNOHANG, ru);
    if (got != 0 && !(got < 0 && errno == EINTR)) return got;
    if (getppid() != parent) parent_died();
    struct timespec tick = {0, 50 * 1000000L};
    sigtimedwait(&chld_set, NULL, &tick); /* at SIGCHLD, or after the tick */
  }
}
#endif

#ifdef __linux__
/* Kills and reaps, once, every living child of the launcher; returns how
 * many, or -1 when /proc cannot be read. */
static int kill_children(void) {
  DIR *proc = opendir("/proc");
  if (proc == NULL) return -1;
  pid_t self = getpid();
  int killed = 0;
  struct dirent *e;
  while ((e = readdir(proc)) != NULL) {
    char *end;
    long pid = strtol(e->d_name, &end, 10);
    if (*end != '\0' || pid <= 0) continue;
    char path[64], line[512];
    snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (f == NULL) continue; /* ended meanwhile */
    size_t got = fread(line, 1, sizeof(line) - 1, f);
    fclose(f);
    line[got] = '\0';
    /* pid (comm) state ppid ...: comm may hold spaces and parentheses. */
    char *close_paren = strrchr(line, ')');
    char state;
    long ppid;
    if (close_paren == NULL || sscanf(close_paren + 1, " %c %ld", &state, &ppid) != 2) continue;
    if ((pid_t)ppid != self || state == 'Z') continue;
    if (kill((pid_t)pid, SIGKILL) == 0) {
      killed++;
      while (waitpid((pid_t)pid, NULL, 0) < 0 && errno == EINTR) {
      }
    }
  }
  closedir(proc);
  return killed;
}
#endif

/* After the program (group `group`) has been reaped: kills whatever it left
 * running, reaps it, and returns how many processes that was; -1 where they
 * cannot be counted (no subreaper, no /proc), after killing the group.  On
 * Linux every leftover is a descendant, so killing the launcher's children
 * until none is left reaches them all, each counted once. */
static int kill_leftovers(pid_t group) {
  int total = -1;
#ifdef __linux__
  for (total = 0;;) {
    int killed = kill_children();
    if (killed < 0) {
      total = -1;
      break;
    }
    total += killed;
    if (killed == 0) break;
  }
#endif
  kill(-group, SIGKILL);
  /* Zombies: leftovers that had ended by themselves. */
  while (waitpid(-1, NULL, WNOHANG) > 0) {
  }
  return total;
}

/* Pins the launcher (and so the program it forks) to the CPU LAUNCH_CPU names,
 * and takes the variable out of the program's environment.  Returns the CPU,
 * -1 when none was asked for or the platform cannot pin, -2 on failure (why
 * in `why`). */
static int pin_to_asked_cpu(char *why, size_t len) {
  const char *text = getenv("LAUNCH_CPU");
  if (text == NULL || *text == '\0') return -1;
  char *end;
  long cpu = strtol(text, &end, 10);
  if (*end != '\0' || cpu < 0 || cpu > 4095) {
    snprintf(why, len, "LAUNCH_CPU=%s is not a CPU number", text);
    return -2;
  }
  unsetenv("LAUNCH_CPU");
#ifdef __linux__
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET((int)cpu, &set);
  if (sched_setaffinity(0, sizeof(set), &set) != 0) {
    snprintf(why, len, "sched_setaffinity to CPU %ld: %s", cpu, strerror(errno));
    return -2;
  }
  return (int)cpu;
#else
  return -1;
#endif
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
  /* No SA_RESTART: the handler only kills the program, and the waits below
   * then return with it. */
  struct sigaction term;
  memset(&term, 0, sizeof(term));
  term.sa_handler = stop_program;
  sigemptyset(&term.sa_mask);
  sigaction(SIGTERM, &term, NULL);
  /* The signals that would end it by default, but for SIGTERM's above: only
   * a program can send them here (the launcher has no terminal), and the
   * launcher must outlive the program to report it.  Put back before exec. */
  static const int held_signals[] = {SIGHUP, SIGINT, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE};
  for (size_t i = 0; i < sizeof(held_signals) / sizeof(held_signals[0]); i++)
    signal(held_signals[i], SIG_IGN);
#if defined(__linux__) && defined(PR_SET_CHILD_SUBREAPER)
  /* The program's orphans, detached or not, become the launcher's children. */
  prctl(PR_SET_CHILD_SUBREAPER, 1);
#endif
  if (die_with_parent(SIGTERM, parent) != 0) {
    fprintf(stderr, "launch: the runner (pid %ld) is gone; not starting %s\n", (long)parent,
            argv[2]);
    return 127;
  }
  char why[160];
  int cpu = pin_to_asked_cpu(why, sizeof(why));
  if (cpu == -2) {
    fprintf(report, "error=%s\n", why);
    return 127;
  }
  pid_t self = getpid();
#if defined(LAUNCH_WAIT_SIGNAL)
  prepare_wait();
#endif
  /* SIGTERM is held from the fork until the program's group is known, so
   * that a timeout in between kills the program rather than orphaning it. */
  sigset_t term_set, before_fork;
  sigemptyset(&term_set);
  sigaddset(&term_set, SIGTERM);
  sigprocmask(SIG_BLOCK, &term_set, &before_fork);
  long long t0 = now_ns();
  pid_t pid = fork();
  if (pid < 0) {
    fprintf(report, "error=fork: %s\n", strerror(errno));
    return 127;
  }
  if (pid == 0) {
    close(fd);
    /* Its own process group (both sides set it: whichever runs first). */
    setpgid(0, 0);
    signal(SIGTERM, SIG_DFL);
    for (size_t i = 0; i < sizeof(held_signals) / sizeof(held_signals[0]); i++)
      signal(held_signals[i], SIG_DFL);
    /* No core file: a crash is recorded by its signal, and under `ulimit -c
     * unlimited` a core dump (hundreds of MB for Node or Go) landed in the
     * project's root, the programs' folder, at every crash. */
    struct rlimit no_core;
    if (getrlimit(RLIMIT_CORE, &no_core) == 0) {
      no_core.rlim_cur = 0;
      setrlimit(RLIMIT_CORE, &no_core);
    }
    sigprocmask(SIG_SETMASK, &before_fork, NULL);
#if defined(LAUNCH_WAIT_SIGNAL)
    unprepare_wait();
#endif
    if (die_with_parent(SIGKILL, self) != 0) _exit(127);
    execvp(argv[2], argv + 2);
    /* The parent reports this through the exit status 127 and stderr. */
    fprintf(stderr, "launch: cannot run %s: %s\n", argv[2], strerror(errno));
    _exit(127);
  }
  setpgid(pid, pid); /* EACCES once it has exec'd: it set it itself then */
  program_group = pid;
  sigprocmask(SIG_SETMASK, &before_fork, NULL);
  int status;
  struct rusage ru;
#if defined(LAUNCH_WAIT_BLOCK)
  (void)parent;
  pid_t got = reap(pid, &status, &ru);
#else
  pid_t got = wait_program(pid, parent, &status, &ru);
#endif
  long long t1 = now_ns();
  if (got < 0) {
    fprintf(report, "error=wait4: %s\n", strerror(errno));
    return 127;
  }
  int leftovers = kill_leftovers(pid);
  fprintf(report,
          "status=%d wall_ns=%lld user_us=%lld sys_us=%lld maxrss=%ld nvcsw=%ld nivcsw=%ld cpu=%d",
          status, t1 - t0, tv_us(ru.ru_utime), tv_us(ru.ru_stime), (long)ru.ru_maxrss,
          (long)ru.ru_nvcsw, (long)ru.ru_nivcsw, cpu);
  if (leftovers >= 0) fprintf(report, " leftovers=%d", leftovers);
  fprintf(report, "\n");
  fclose(report);
  return 0;
}
