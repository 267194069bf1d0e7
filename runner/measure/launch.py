"""launch.py -- one program run: a fresh process, its timeout, its exit and rusage.

Every measured program is started through the launcher build/bin/launch
(runner/measure/launch.c, built by `make all` like every other program): a small
process that forks the program, waits for it with wait4 and reports the
program's own wall time and rusage.  Forking straight from Python would carry
the runner's own resident size into the program's peak RSS on Linux.  The
launcher runs in a session of its own and the program in a process group of
its own (what it signals as its group reaches neither the launcher nor the
runner); stdout and stderr go to temporary files (no pipe can fill up).  When
the timeout passes, the runner sends the launcher SIGTERM, and the launcher
kills the program's group and its leftovers and reports; a launcher still
there KILL_GRACE_S later is killed.  On Linux the launcher also kills every
process the program left running at its end, detached or not, and reports how
many (Result.leftovers; runner/measure/launch.c).  When the runner itself dies (even
of SIGKILL), the launcher kills the program (a parent-death signal on Linux);
it learns the runner's pid from LAUNCH_PARENT_PID, which the program does not
see.

Pinning (DESIGN section 6): where the runner may run on two CPUs or more and
the platform has sched_setaffinity (Linux), every measured program runs on one
CPU, the highest of the runner's own (pin_rule; the launcher pins it, from
LAUNCH_CPU, and reports the CPU), and a workload's server on another, the
lowest; elsewhere nothing is pinned and the report says so.
"""
import errno
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time

from ..catalog import catalog as catalog_mod
from ..core.errors import EnvError
from ..core import paths

ROOT = paths.ROOT


class Result:
    """What one run left behind.  exit_code is negative (-signal) when a signal
    ended it; spawn_error says why it never started."""
    __slots__ = ("exit_code", "signal", "timed_out", "stdout", "stderr", "wall_ns",
                 "proc_user_us", "proc_sys_us", "proc_peak_rss_kb", "spawn_error", "proc_nvcsw", "proc_nivcsw",
                 "server_died", "cpu", "leftovers", "stdout_bytes")

    def __init__(self):
        self.exit_code = self.signal = self.wall_ns = None
        self.proc_user_us = self.proc_sys_us = self.proc_peak_rss_kb = None
        self.proc_nvcsw = self.proc_nivcsw = None     # context switches (wait4), when reported
        self.timed_out = False
        self.spawn_error = None
        self.server_died = None     # its server's death during the run (measure.py)
        self.cpu = None             # the CPU the launcher pinned it to, None when not pinned
        self.leftovers = None       # processes it left running, killed at its end (Linux)
        self.stdout = self.stderr = b""
        self.stdout_bytes = None    # how much the program wrote to stdout (kept: STDOUT_KEPT)


def launcher():
    """The path of build/bin/launch (under $BUILD); EnvError when it is not built,
    as for any other program, so that concurrent runners never race to build it."""
    path = os.path.join(catalog_mod.build_dir(), "bin", "launch")
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        raise EnvError("not built or not executable: %s (run `make all` first)"
                       % os.path.relpath(path, ROOT))
    return path


def _maxrss_kb(maxrss):
    # ru_maxrss is KiB on Linux, bytes on macOS.
    return maxrss // 1024 if sys.platform == "darwin" else maxrss


# Seconds a launcher told to stop (SIGTERM) has before its group is killed.
KILL_GRACE_S = 5


def _killpg(pid):
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _terminate(pid):
    """SIGTERM to the launcher pid: it kills the program's group and leftovers."""
    try:
        os.kill(pid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        pass


def _stop_and_reap(pid):
    """The launcher pid stopped (SIGTERM, then SIGKILL to its group after
    KILL_GRACE_S) and reaped, for a run given up (Ctrl-C)."""
    _terminate(pid)
    deadline = time.monotonic() + KILL_GRACE_S
    while time.monotonic() < deadline:
        try:
            if os.waitpid(pid, os.WNOHANG)[0] == pid:
                return
        except ChildProcessError:
            return
        time.sleep(0.01)
    _killpg(pid)
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


def _await_exit(pid):
    """Blocks until the child pid has ended.  Where the platform can, it leaves
    the zombie, so that its pid (its process group's id) cannot be reused while
    the group is cleaned up, and returns None: os.waitid (Linux; macOS from
    Python 3.13), else a kqueue NOTE_EXIT watch (macOS with Python 3.12 or
    older).  Elsewhere it reaps the child and returns os.wait4's answer."""
    if hasattr(os, "waitid"):
        os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
        return None
    if hasattr(select, "kqueue"):
        kq = select.kqueue()
        try:
            watch = select.kevent(pid, select.KQ_FILTER_PROC,
                                  select.KQ_EV_ADD | select.KQ_EV_ONESHOT, select.KQ_NOTE_EXIT)
            try:
                events = kq.control([watch], 1, None)
            except ProcessLookupError:
                events = []         # ended before the watch: a zombie already
            for ev in events:
                # A refused watch comes back as an event; ESRCH: ended already.
                if ev.flags & select.KQ_EV_ERROR and ev.data != errno.ESRCH:
                    raise OSError(ev.data, os.strerror(ev.data))
        finally:
            kq.close()
        return None
    return os.wait4(pid, 0)


# What the runner keeps of a program's stdout and stderr.  The contract's line
# is a few hundred bytes; more stdout than this breaks the contract anyway, and
# output_problem says that it was cut and at what size.
STDOUT_KEPT = 1 << 20
STDERR_KEPT = 1 << 16


def output_problem(res):
    """Why a run's stdout cannot be the contract's line because the runner kept
    only its first STDOUT_KEPT bytes (the program wrote more), or None."""
    if res.stdout_bytes is None or res.stdout_bytes <= len(res.stdout):
        return None
    return ("the output was cut at %d bytes (1 MiB, what the runner keeps): the program "
            "wrote %d bytes to stdout, where the contract's line is one short line"
            % (len(res.stdout), res.stdout_bytes))


def first_line(data):
    """The first line of a program's output (bytes), at most 300 characters, its
    control characters shown as \\xNN: the line reaches the terminal and
    REPORT.md, where a program's ESC [2J cleared the screen."""
    text = data.decode("utf-8", "replace").strip()
    line = text.splitlines()[0][:300] if text else ""
    return "".join("\\x%02x" % ord(c) if (ord(c) < 32 and c != "\t") or 127 <= ord(c) < 160
                   else c for c in line)


def harness_failure(launch, status, text, fields, err):
    """EnvError when the launcher, not the program, failed: it reported an error
    (fork, wait4), it ended without its report line, or the program could not be
    executed (launch.c exits 127 with "launch: cannot run ...").  A failure of the
    harness is never charged to the program measured."""
    who = os.path.relpath(launch, ROOT)
    if text.startswith("error="):
        raise EnvError("launcher %s failed: %s" % (who, text[len("error="):]))
    try:
        ints = {k: int(fields[k]) for k in ("status", "wall_ns", "user_us", "sys_us", "maxrss")}
    except (KeyError, ValueError):
        err.seek(0)
        why = first_line(err.read(1 << 16))
        raise EnvError("launcher %s ended (%s) without its report%s" % (
            who, "signal %d" % os.WTERMSIG(status) if os.WIFSIGNALED(status)
            else "exit %d" % os.WEXITSTATUS(status), ": " + why if why else ""))
    st = ints["status"]
    if os.WIFEXITED(st) and os.WEXITSTATUS(st) == 127:
        err.seek(0)
        why = first_line(err.read(1 << 16))
        if why.startswith("launch: cannot run "):
            raise EnvError(why)


def allowed_cpus():
    """The CPUs this process may run on, sorted, or None where the platform
    cannot tell or pin (no sched_getaffinity: macOS)."""
    if not hasattr(os, "sched_getaffinity") or not hasattr(os, "sched_setaffinity"):
        return None
    return sorted(os.sched_getaffinity(0))


# The rule, in words, as run.json records it.
PIN_RULE = ("each measured program (and each language's empty program) runs on one CPU, "
            "the highest the runner may use, and a workload's server on the same CPU: a "
            "request's round trip never wakes another CPU, whose cost here switched "
            "between two levels for tens of seconds at a time; nothing is pinned on a "
            "host with fewer than 2 CPUs or without sched_setaffinity")


def pin_rule(cpus=None):
    """run.json's pinning: {"rule", "program_cpu", "server_cpu"}, the CPUs None
    when nothing is pinned (and "why")."""
    cpus = allowed_cpus() if cpus is None else cpus
    if cpus is None:
        return {"rule": PIN_RULE, "program_cpu": None, "server_cpu": None,
                "why": "no sched_setaffinity on this platform"}
    if len(cpus) < 2:
        return {"rule": PIN_RULE, "program_cpu": None, "server_cpu": None,
                "why": "the runner may use %d CPU" % len(cpus)}
    return {"rule": PIN_RULE, "program_cpu": cpus[-1], "server_cpu": cpus[-1]}


def pin_process(pid, cpu):
    """Pins every thread of a running process (Linux: /proc/PID/task) to cpu;
    threads it starts later inherit it.  A thread that ended meanwhile is skipped."""
    tasks = os.listdir("/proc/%d/task" % pid) if os.path.isdir("/proc/%d/task" % pid) else [pid]
    for tid in tasks:
        try:
            os.sched_setaffinity(int(tid), {cpu})
        except ProcessLookupError:
            pass


def _environment(env, cpu):
    """The launcher's environment: ours, env's variables, the runner's pid and
    the CPU to pin to (none unless cpu is given)."""
    out = dict(os.environ, **dict(env or {}), LAUNCH_PARENT_PID=str(os.getpid()))
    out.pop("LAUNCH_CPU", None)
    if cpu is not None:
        out["LAUNCH_CPU"] = str(cpu)
    return out


def _out_of_files(e):
    """EnvError naming the open-file limit when e is EMFILE or ENFILE, else None."""
    if e.errno not in (errno.EMFILE, errno.ENFILE):
        return None
    try:
        import resource
        limit = " (ulimit -n is %d)" % resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    except (ImportError, OSError, ValueError):
        limit = ""
    return EnvError("the runner has run out of file descriptors%s, which each program run "
                    "needs a few of: raise the limit (ulimit -n 1024) and run again" % limit)


def run_once(argv, timeout_s, launch, env=None, cpu=None):
    """Runs argv through the launcher `launch` and returns its Result; env
    ({name: value}) is added to the program's environment; cpu (a number)
    pins it to that CPU (the launcher's LAUNCH_CPU)."""
    res = Result()
    try:
        files = [tempfile.TemporaryFile() for _ in range(3)]
    except OSError as e:
        raise _out_of_files(e) or e
    with files[0] as out, files[1] as err, files[2] as rep:
        lock = threading.Lock()
        state = {"exited": False}
        t0 = time.monotonic_ns()
        try:
            p = subprocess.Popen([launch, str(rep.fileno())] + list(argv),
                                 stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                 cwd=ROOT, start_new_session=True, pass_fds=(rep.fileno(),),
                                 env=_environment(env, cpu))
        except OSError as e:
            # The harness, not the program measured: an environment error of the run.
            raise _out_of_files(e) or EnvError("cannot start the launcher %s: %s (run `make all`)"
                           % (os.path.relpath(launch, ROOT), e.strerror or e))

        def on_timeout():
            with lock:
                if not state["exited"]:
                    res.timed_out = True
                    _terminate(p.pid)
                    # A launcher that does not end (stopped, say) is killed.
                    state["kill"] = threading.Timer(KILL_GRACE_S, on_grace)
                    state["kill"].daemon = True
                    state["kill"].start()

        def on_grace():
            with lock:
                if not state["exited"]:
                    _killpg(p.pid)
        timer = threading.Timer(timeout_s, on_timeout)
        timer.daemon = True
        timer.start()
        try:
            reaped = _await_exit(p.pid)
            with lock:
                state["exited"] = True
                if "kill" in state:
                    state["kill"].cancel()
            timer.cancel()
            # Whatever is left in the launcher's group.  Once the launcher is
            # reaped (a platform with neither waitid nor kqueue), its group id
            # stays reserved only while something keeps the group alive.
            _killpg(p.pid)
            _, status, _ = reaped or os.wait4(p.pid, 0)
            t1 = time.monotonic_ns()
        except BaseException:
            timer.cancel()
            with lock:
                state["exited"] = True
                if "kill" in state:
                    state["kill"].cancel()
            _stop_and_reap(p.pid)
            p.returncode = -9
            raise
        # Popen must not wait for a pid that is gone; os.waitstatus_to_exitcode is 3.9+.
        p.returncode = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
        res.wall_ns = t1 - t0       # the launcher's; replaced by the program's below
        rep.seek(0)
        text = rep.read().decode("utf-8", "replace").strip()
        fields = dict(kv.split("=", 1) for kv in text.split() if "=" in kv)
        if res.timed_out:
            # Stopped at the timeout: the program's status (SIGKILL) when the
            # launcher reported it, else the launcher's own (killed).
            try:
                harness_failure(launch, status, text, fields, err)
            except EnvError:
                fields = None
        elif (os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
              and "status" not in fields):
            # SIGKILL, which the launcher cannot ignore, sent neither by it nor
            # by the runner: the program (kill -9 $PPID) or the kernel's
            # out-of-memory killer.  The program's run, not the harness's.
            fields = None
            err.seek(0, os.SEEK_END)
            err.write(b"\nlaunch: the launcher was killed by SIGKILL while the program ran\n")
        else:
            harness_failure(launch, status, text, fields, err)
        if fields is not None:
            status = int(fields["status"])
            res.wall_ns = int(fields["wall_ns"])
            res.proc_user_us, res.proc_sys_us = int(fields["user_us"]), int(fields["sys_us"])
            res.proc_peak_rss_kb = _maxrss_kb(int(fields["maxrss"]))
            if fields.get("nvcsw", "").isdigit() and fields.get("nivcsw", "").isdigit():
                res.proc_nvcsw, res.proc_nivcsw = int(fields["nvcsw"]), int(fields["nivcsw"])
            if fields.get("cpu", "").isdigit():
                res.cpu = int(fields["cpu"])
            if fields.get("leftovers", "").isdigit():
                res.leftovers = int(fields["leftovers"])
        if os.WIFSIGNALED(status):
            res.signal = os.WTERMSIG(status)
            res.exit_code = -res.signal
        else:
            res.exit_code = os.WEXITSTATUS(status)
        out.seek(0)
        err.seek(0)
        res.stdout = out.read(STDOUT_KEPT)
        res.stdout_bytes = os.fstat(out.fileno()).st_size
        res.stderr = err.read(STDERR_KEPT)
    return res
