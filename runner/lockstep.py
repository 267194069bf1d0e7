"""lockstep.py -- two warm programs alternated pass by pass (DESIGN section 6).

A ratio of two variants measured in separate processes, seconds apart, carries
every change of the host's speed in between; on a VM whose CPU changes speed
within a fraction of a second that is most of a ratio's spread.  Here the two
run at once, each warm, pinned to the same CPU, and take turns: one timed pass
of one, then one of the other, in a random order for each pair, so that the
two passes of a pair are milliseconds apart and the host's speed is nearly the
same for both.  The programs speak the lockstep protocol (DESIGN section 3):
after their warm-up a ready line, then a pass and its line per "pass", their
whole-process figures for "end".

One `session` is one process pair: it starts both through the launcher
(runner/launch.c: its wall time and rusage, a parent-death kill, pinning), waits
for both ready lines, runs `pairs` pairs of passes, ends both and returns a
Cluster: every pair's two times and the order they ran in, and each process's
own figures (its pass lines, its end line, the launcher's report).  Passes of
one process pair share their processes (layout, JIT, heap), so a session's pairs
are not independent: the statistics take one figure a session (stats.py's
clustered: the median of its pairs' ratios), and a comparison takes several
sessions, each of fresh processes.

A program that fails (an exit, a signal, a line that breaks the contract, a
timeout) ends its session: both processes are killed, and the Cluster says why
in one line, with what ran before; the caller records it and goes on.  A signal
to the runner (Ctrl-C) kills both process groups before it propagates: nothing
is left behind.
"""
import json
import os
import select
import subprocess
import tempfile
import time

from . import contract
from . import launch
from . import stats

ROOT = launch.ROOT
# The longest line a program may print (a pass line is under 1 KiB).
LINE_MAX = 1 << 20
READY = "ready"
END = "end"


class Failure(Exception):
    """A program of a session failed: why, in one line."""


class Cluster:
    """One process pair's session: its pairs [(a_ns, b_ns, a_first)], the
    variants' pass lines (a_lines, b_lines), their end lines and launcher
    figures (a_proc, b_proc: {"wall_ns", "proc_user_us", "proc_sys_us",
    "proc_peak_rss_kb", "cpu", "warmup_ns", "end"}), n (each pass's N), and
    failure (one line) when it ended early."""
    __slots__ = ("a", "b", "n", "pairs", "a_lines", "b_lines", "a_proc", "b_proc", "failure")

    def __init__(self, a, b, n):
        self.a, self.b, self.n = a, b, n
        self.pairs, self.a_lines, self.b_lines = [], [], []
        self.a_proc = self.b_proc = None
        self.failure = None

    def figure(self):
        """The session's ratio a/b (stats.cluster_figure) or None without a pair."""
        return stats.cluster_figure([(a, b) for a, b, _ in self.pairs], self.n)


class Warm:
    """One program in lockstep, started through the launcher `launch` with
    argv (which must include --lockstep 1), env added, pinned to cpu."""

    def __init__(self, argv, launch_path, env=None, cpu=None, name="program"):
        self.name = name
        self.argv = list(argv)
        self.rep = tempfile.TemporaryFile()
        self.err = tempfile.TemporaryFile()
        self.buf = b""
        self.done = False
        self.p = subprocess.Popen([launch_path, str(self.rep.fileno())] + self.argv,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.err,
                                  cwd=ROOT, start_new_session=True, pass_fds=(self.rep.fileno(),),
                                  env=launch._environment(env, cpu))

    def _why(self, what):
        """Why the program stopped answering: its exit or signal and its first
        stderr line, or that it is still running (a timeout)."""
        code = self.p.poll()
        if code is None:
            return "%s: no %s within the timeout; process group killed" % (self.name, what)
        self.err.seek(0)
        first = launch.first_line(self.err.read(1 << 16))
        status = self._status()
        if status is not None and os.WIFSIGNALED(status):
            how = "killed by signal %d" % os.WTERMSIG(status)
        elif status is not None:
            how = "exit %d" % os.WEXITSTATUS(status)
        else:
            how = "launcher exit %d" % code
        return "%s: %s before its %s%s" % (self.name, how, what, ": " + first if first else "")

    def _status(self):
        """The program's wait status from the launcher's report, or None."""
        self.rep.seek(0)
        text = self.rep.read().decode("utf-8", "replace")
        fields = dict(kv.split("=", 1) for kv in text.split() if "=" in kv)
        try:
            return int(fields["status"])
        except (KeyError, ValueError):
            return None

    def line(self, what, timeout_s):
        """The next line the program prints (str), or Failure after the
        timeout, at its end of output, or past LINE_MAX."""
        deadline = time.monotonic() + timeout_s
        fd = self.p.stdout.fileno()
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                self.kill()
                raise Failure(self._why(what))
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                self.p.wait()
                raise Failure(self._why(what))
            self.buf += chunk
            if len(self.buf) > LINE_MAX:
                self.kill()
                raise Failure("%s: a line longer than %d bytes before its %s" % (
                    self.name, LINE_MAX, what))
        text, _, self.buf = self.buf.partition(b"\n")
        return text.decode("utf-8", "replace")

    def send(self, command, what):
        try:
            self.p.stdin.write(command.encode() + b"\n")
            self.p.stdin.flush()
        except (BrokenPipeError, OSError):
            self.p.wait()
            raise Failure(self._why(what))

    def ready(self, timeout_s):
        """Waits for the ready line: its warmup_ns."""
        text = self.line("ready line", timeout_s)
        obj = _protocol_line(text, READY)
        if obj is None:
            self.kill()
            raise Failure("%s: not a ready line: %s" % (self.name, text[:200]))
        return obj["warmup_ns"]

    def run_pass(self, timeout_s):
        """One timed pass: its line (str)."""
        self.send("pass", "pass line")
        return self.line("pass line", timeout_s)

    def end(self, timeout_s):
        """Ends the program: {"end": its end line, "wall_ns", "proc_user_us",
        "proc_sys_us", "proc_peak_rss_kb", "cpu"} from the launcher's report."""
        self.send(END, "end line")
        text = self.line("end line", timeout_s)
        obj = _protocol_line(text, END)
        if obj is None:
            self.kill()
            raise Failure("%s: not an end line: %s" % (self.name, text[:200]))
        try:
            self.p.stdin.close()
        except OSError:
            pass
        try:
            self.p.wait(timeout_s)
        except subprocess.TimeoutExpired:
            self.kill()
            raise Failure("%s: did not exit within %g s of its end line" % (self.name, timeout_s))
        self.done = True
        self.rep.seek(0)
        fields = dict(kv.split("=", 1) for kv in
                      self.rep.read().decode("utf-8", "replace").split() if "=" in kv)
        out = {"end": obj}
        for key, name in (("wall_ns", "wall_ns"), ("user_us", "proc_user_us"),
                          ("sys_us", "proc_sys_us"), ("cpu", "cpu")):
            out[name] = int(fields[key]) if fields.get(key, "").lstrip("-").isdigit() else None
        maxrss = fields.get("maxrss", "")
        out["proc_peak_rss_kb"] = launch._maxrss_kb(int(maxrss)) if maxrss.isdigit() else None
        status = self._status()
        if status is None or not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
            raise Failure("%s: ended with wait status %s after its end line" % (self.name, status))
        return out

    def kill(self):
        """Kills the program's process group (the launcher and the program)."""
        if self.p.poll() is None or not self.done:
            launch._killpg(self.p.pid)
        try:
            self.p.wait(10)
        except subprocess.TimeoutExpired:
            pass

    def close(self):
        for f in (self.p.stdin, self.p.stdout, self.rep, self.err):
            try:
                f.close()
            except (OSError, AttributeError):
                pass


def _protocol_line(text, kind):
    """The protocol line of `kind` (ready, end) as a dict, or None."""
    try:
        obj = json.loads(text)
    except ValueError:
        return None
    if not isinstance(obj, dict) or obj.get("lockstep") != kind:
        return None
    fields = ("warmup_ns",) if kind == READY else ("passes", "user_us", "sys_us", "peak_rss_kb")
    if not all(contract._is_int(obj.get(f)) and obj[f] >= 0 for f in fields):
        return None
    return obj


def lockstep_argv(argv):
    """argv with --lockstep 1 (and no --passes: one pass a command)."""
    out, i = [], 0
    while i < len(argv):
        if argv[i] in ("--passes", "--lockstep"):
            i += 2
            continue
        out.append(argv[i])
        i += 1
    return out + ["--lockstep", "1"]


def session(a, b, pairs, rng, launch_path, cpu=None, timeout_s=60.0):
    """One process pair of variants a and b, each a dict {"entry": its catalog
    entry, "argv": its command at the pass's N (lockstep_argv's), "n": that N,
    "env": its environment, "workload_values": its workload's flag values,
    "concurrency": its K}; `pairs` pairs of passes, each pair's order drawn from
    rng.  Returns the Cluster (its failure set when a program failed)."""
    cl = Cluster(a["entry"]["id"], b["entry"]["id"], a["n"])
    progs = []
    try:
        try:
            for side, name in ((a, "A"), (b, "B")):
                progs.append(Warm(side["argv"], launch_path, side.get("env"), cpu,
                                  "%s %s" % (name, side["entry"]["id"])))
        except OSError as e:
            cl.failure = "cannot start the launcher: %s" % (e.strerror or e)
            return cl
        # Both warm up before any pass: the first pass of either never shares
        # its CPU with the other's warm-up.
        warm = [p.ready(timeout_s) for p in progs]
        for k in range(pairs):
            a_first = rng.random() < 0.5
            order = (0, 1) if a_first else (1, 0)
            times = [None, None]
            for i in order:
                side = (a, b)[i]
                text = progs[i].run_pass(timeout_s)
                why = contract.problem(side["entry"], side["n"], text, side.get("workload_values"),
                                       side.get("concurrency"), 1)
                if why:
                    progs[i].kill()
                    raise Failure("%s: pass %d: %s" % (progs[i].name, k + 1, why))
                (cl.a_lines, cl.b_lines)[i].append(text)
                times[i] = json.loads(text)["elapsed_ns"]
            cl.pairs.append((times[0], times[1], a_first))
        ends = [p.end(timeout_s) for p in progs]
        for e, w in zip(ends, warm):
            e["warmup_ns"] = w
        cl.a_proc, cl.b_proc = ends
    except Failure as f:
        cl.failure = str(f)
    finally:
        for p in progs:
            if not p.done:
                p.kill()
            p.close()
    return cl


def side(cat, v, node, n, pass_n=None, profile="default", rt=None, concurrency=None):
    """A session's side for variant v: its lockstep command (plan.Invocation
    at the workload's flags, its warm-up at N = n as the profile gives it, each
    pass of pass_n operations, n when None) and what its lines are checked
    against."""
    from . import plan as plan_mod     # plan imports the catalog and the runtimes: used here only
    w = v["workload"]
    inv = plan_mod.invocation(v, node, n, cat.workload_args(w), concurrency,
                              cat.warmup(w, profile), "1", rt)
    inv = inv.replace(iterations=pass_n or n, lockstep=True)
    return {"entry": v, "invocation": inv, "argv": inv.argv(), "n": inv.iterations,
            "env": v.get("env"), "workload_values": cat.flag_values(w),
            "concurrency": v["concurrency"] if concurrency is None else concurrency}


def probe_per_op_ns(sd, launch_path, cpu=None, passes=3, timeout_s=60.0):
    """One process of side sd alone: the median of `passes` passes' time per
    operation in ns, or Failure."""
    w = Warm(sd["argv"], launch_path, sd.get("env"), cpu, sd["entry"]["id"])
    try:
        w.ready(timeout_s)
        times = []
        for k in range(passes):
            text = w.run_pass(timeout_s)
            why = contract.problem(sd["entry"], sd["n"], text, sd.get("workload_values"),
                                   sd.get("concurrency"), 1)
            if why:
                raise Failure("%s: pass %d: %s" % (w.name, k + 1, why))
            times.append(json.loads(text)["elapsed_ns"])
        w.end(timeout_s)
        return stats.median(times) / float(sd["n"])
    finally:
        if not w.done:
            w.kill()
        w.close()


def pass_n(per_op_ns, n, target_ms, keeps_n=False):
    """A lockstep pass's N (DESIGN section 6): n itself where N is part of what
    is measured (keeps_n: all N at once in parallel mode, N tasks asleep
    together, a seed's own N), else the N whose pass takes about target_ms at
    per_op_ns, from 1 to n."""
    if keeps_n or not per_op_ns or per_op_ns <= 0:
        return n
    return max(1, min(n, int(round(target_ms * 1e6 / per_op_ns))))
