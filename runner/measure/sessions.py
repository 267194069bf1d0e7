"""sessions.py -- two or more warm programs alternated pass by pass (DESIGN
section 6); the phase of a run that uses them is lockstep.py.

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
(runner/measure/launch.c: its wall time and rusage, a parent-death kill, pinning), waits
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

from ..catalog import contract
from . import launch
from ..core import stats

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
        """Stops the program: SIGTERM to its launcher, which kills the
        program's group and what it left (launch.py), and the launcher's group
        killed if it is still there launch.KILL_GRACE_S later."""
        if self.p.poll() is None:
            launch._terminate(self.p.pid)
            try:
                self.p.wait(launch.KILL_GRACE_S)
            except subprocess.TimeoutExpired:
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


class Group:
    """One group session: k warm processes alternated (group_session).  times[i]
    and first... are per side i: times[i][r] the elapsed_ns of side i's pass of
    round r (None once it failed), pos[r][i] its place in round r's order,
    lines[i] its pass lines, procs[i] its end figures (None when it failed),
    failures[i] why side i failed (one line) or None."""
    __slots__ = ("sides", "times", "pos", "lines", "procs", "failures", "failure")

    def __init__(self, sides):
        k = len(sides)
        self.sides = sides
        self.times, self.lines = [[] for _ in range(k)], [[] for _ in range(k)]
        self.pos, self.procs, self.failures = [], [None] * k, [None] * k
        self.failure = None     # the launcher could not start at all

    def pairs(self, i, j):
        """[(i's ns, j's ns, i ran first)] of the rounds both passed."""
        out = []
        for r, order in enumerate(self.pos):
            a = self.times[i][r] if r < len(self.times[i]) else None
            b = self.times[j][r] if r < len(self.times[j]) else None
            if a is not None and b is not None:
                out.append((a, b, order[i] < order[j]))
        return out


def group_session(sides, rounds, rng, launch_path, cpu=None, timeout_s=60.0):
    """One session of k warm programs (sides: dicts {"entry": its catalog entry,
    "argv": its lockstep command, "n": its pass's N, "env", "workload_values",
    "concurrency"}), all pinned to cpu: each starts and warms up, then `rounds`
    rounds of passes, each side one timed pass a round in an order drawn from
    rng, so that every two sides' passes of a round run moments apart.  A side
    that fails (its exit, a signal, a line that breaks the contract, a
    timeout) is stopped with one line in failures and the others go on.
    Returns the Group."""
    g = Group(sides)
    progs = [None] * len(sides)
    # The sides start in an order drawn at random too: the first to start
    # warms up with the CPU to itself for a moment, which must fall on no side
    # more than another (a variant against itself came out different 4 times
    # in 24 on Node when A always started first).
    start = list(range(len(sides)))
    rng.shuffle(start)
    try:
        try:
            for i in start:
                sd = sides[i]
                progs[i] = Warm(sd["argv"], launch_path, sd.get("env"), cpu,
                                sd.get("name") or sd["entry"]["id"])
        except OSError as e:
            g.failure = "cannot start the launcher: %s" % (e.strerror or e)
            return g
        # Every side warms up before any pass: no first pass shares its CPU
        # with another's warm-up.
        warm = [None] * len(sides)
        for i in start:
            p = progs[i]
            try:
                warm[i] = p.ready(timeout_s)
            except Failure as f:
                g.failures[i] = str(f)
        alive = [i for i in range(len(sides)) if g.failures[i] is None]
        for r in range(rounds):
            if len(alive) < 2:
                break               # no pair left to time
            order = list(alive)
            rng.shuffle(order)
            g.pos.append({i: k for k, i in enumerate(order)})
            for i in range(len(sides)):
                g.times[i].append(None)
            for i in order:
                sd = sides[i]
                try:
                    text = progs[i].run_pass(timeout_s)
                    why = contract.problem(sd["entry"], sd["n"], text, sd.get("workload_values"),
                                           sd.get("concurrency"), 1)
                    if why:
                        progs[i].kill()
                        raise Failure("%s: pass %d: %s" % (progs[i].name, r + 1, why))
                except Failure as f:
                    g.failures[i] = str(f)
                    alive.remove(i)
                    continue
                g.lines[i].append(text)
                g.times[i][r] = json.loads(text)["elapsed_ns"]
        for i in alive:
            try:
                g.procs[i] = progs[i].end(timeout_s)
                g.procs[i]["warmup_ns"] = warm[i]
            except Failure as f:
                g.failures[i] = str(f)
                g.times[i] = [None] * len(g.times[i])     # a program that did not end cleanly
    finally:
        for p in progs:
            if p is not None:
                if not p.done:
                    p.kill()
                p.close()
    return g


def session(a, b, pairs, rng, launch_path, cpu=None, timeout_s=60.0):
    """One process pair of sides a and b (group_session's sides), `pairs` pairs
    of passes, each pair's order drawn from rng: the Cluster, its failure set
    (the first program's line) when a program failed."""
    cl = Cluster(a["entry"]["id"], b["entry"]["id"], a["n"])
    g = group_session([dict(a, name="A " + a["entry"]["id"]),
                       dict(b, name="B " + b["entry"]["id"])], pairs, rng, launch_path, cpu,
                      timeout_s)
    if g.failure or g.failures[0] or g.failures[1]:
        cl.failure = g.failure or g.failures[0] or g.failures[1]
        return cl
    cl.pairs = g.pairs(0, 1)
    cl.a_lines, cl.b_lines = g.lines
    cl.a_proc, cl.b_proc = g.procs
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
    return side_of_invocation(cat, v, inv.replace(iterations=pass_n or n, lockstep=True),
                              concurrency)


def side_of_invocation(cat, v, inv, concurrency=None):
    """A session's side: variant v run as the lockstep Invocation inv, and what
    its lines are checked against (its workload's flag values, its K)."""
    return {"entry": v, "invocation": inv, "argv": inv.argv(), "n": inv.iterations,
            "env": v.get("env"), "workload_values": cat.flag_values(v["workload"]),
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
