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
import csv
import json
import os
import random
import select
import subprocess
import tempfile
import time

from ..catalog import contract
from . import launch
from ..analysis import pairs as pairs_mod
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


# -- the lockstep phase of a run (DESIGN section 6) ----------------------------

RULE = ("after the fresh-process rounds, the variants that a ratio, target or claim "
        "compares run in lockstep sessions: each group of variants joined by compared pairs "
        "starts one warm process a variant, all pinned to the programs' CPU, and alternates "
        "them, one pass each a round in a random order; a pass's N is the one that takes about "
        "pass_ms at the variant's time per operation in the fresh rounds, from 1 to the "
        "workload's N (bounded: at least 4 K), except where N is part of what is measured "
        "(parallel mode, a seed's whole-process method), which keep the workload's N; every "
        "pair gets `sessions` sessions, and one whose questions its sessions have not "
        "decided by the confidence sequence gets more, up to `max_sessions`, within the "
        "run's time budget")


# The order in which pairs keep their process pairs when the time left cannot
# give every pair its `sessions`: what the run was asked (targets, claims),
# then the headline's comparisons (each style against its own language's
# baseline), then the other baseline ratios of the tables.
PRIORITY = {"target": 0, "claim": 0, "headline": 1, "baseline": 2}
# What fit() reckons a process pair takes over the last one's seconds: the
# lockstep round's own costs (a server's start, the files) and the host's drift.
FIT_MARGIN = 1.3


def pair_questions(cat, run, variant_ids, iterations):
    """{(a, b): [(kind, bound)]} of every pair of variants the run compares as a
    ratio or a difference: each variant against its baselines (the tables'
    ratios: against 1.00x), the targets on two variants and the seeds' ratio
    claims (sequential.questions), targets and claims first, then the
    headline's comparisons, then the other baseline ratios (PRIORITY); within
    each, the variants' order."""
    from . import sequential     # sequential reads run folders: imported where needed
    out, rank = {}, {}

    def add(pair, kind, bound, source):
        qs = out.setdefault(pair, [])
        if (kind, bound) not in qs:
            qs.append((kind, bound))
        rank[pair] = min(rank.get(pair, 9), PRIORITY[source])
    present = set(variant_ids)
    asked = sequential.questions(cat, variant_ids, iterations)
    for q in asked:
        if q.get("against") and q["kind"] in ("ratio", "diff_per_op_ns"):
            add((q["variant"], q["against"]), q["kind"], q["bound"], q["source"])
    for q in sequential.headline_questions(cat, variant_ids, asked):
        add((q["variant"], q["against"]), "ratio", 1.0, "headline")
    for vid in variant_ids:
        for key in ("c", "lang"):
            rule = ((run.get("baselines") or {}).get(vid) or {}).get(key)
            if rule and rule[0] != vid and rule[0] in present:
                add((vid, rule[0]), "ratio", 1.0, "baseline")
    order = sorted(out, key=lambda p: rank[p])      # stable: the order of adding within a rank
    return {p: out[p] for p in order}


def open_pair(figs, questions):
    """Whether a pair's sessions leave any of its questions open: the
    confidence sequence (sequential.decided) has not excluded its bound."""
    from . import sequential
    for kind, bound in questions:
        xs = [f[0] if kind == "ratio" else f[1] for f in figs]
        if not sequential.decided(xs, bound):
            return True
    return False


def session_rounds(spec, pass_ms):
    """The rounds of a session whose variants' passes take pass_ms each: the
    profile's `pairs`, or more, up to 4 times, where a round is so short that
    `pairs` of them take under `session_ms` (the passes' own noise, which more
    rounds average, is most of a short-pass session's spread, and its
    processes' start-up most of its cost)."""
    rounds = spec["pairs"]
    each = sum(pass_ms)
    if spec.get("session_ms") and each > 0:
        rounds = max(rounds, min(4 * rounds, int(spec["session_ms"] // each)))
    return rounds


def wide(figs, p, spec):
    """Whether pair p's ratio from its sessions' figures (stats.clustered) has
    no interval or one whose half-width, as a share of the ratio, is over the
    profile's `half_width` for it: the language's own where both sides are of
    one language, "across" where they are not; False where the profile asks
    none."""
    goal = spec.get("half_width") or {}
    la, lb = p[0].split("/")[1], p[1].split("/")[1]
    g = goal.get(la) if la == lb else goal.get("across")
    if g is None:
        return False
    r = stats.clustered(figs)
    if r["ratio_ci_low"] is None:
        return True
    return (r["ratio_ci_high"] - r["ratio_ci_low"]) / 2 / r["ratio"] > g


def keeps_n(v):
    """Whether a pass of v keeps the workload's N: N is part of what is measured."""
    return v["mode"] == "parallel" or v.get("method", "inprocess") != "inprocess"


class Phase:
    """The lockstep phase of a run: group sessions of every compared pair,
    written to lockstep.csv (pairs.py) and runs.jsonl, recorded in run.json's
    lockstep.

    The pairs of a workload that share variants form groups (the connected
    parts of the graph whose edges are the compared pairs: a baseline and the
    styles compared with it, a Node variant and the C and Node baselines it is
    compared with): a group session starts one warm process of each of its
    variants and alternates them all, a pass of each a round in a random order
    (group_session), so every compared pair of it gets its pairs of passes
    moments apart from one start-up a variant, where a session a pair would
    start each baseline once for every variant compared with it."""

    def __init__(self, spec, plan, cat, run, rundir, launch_path, cpu, servers, log, seed,
                 progress, deadline=None):
        self.spec, self.plan, self.cat, self.run = spec, plan, cat, run
        self.rundir, self.launch_path, self.cpu = rundir, launch_path, cpu
        self.servers, self.log, self.progress = servers, log, progress
        self.rng = random.Random("lockstep %d" % seed)
        self.deadline = deadline
        if spec.get("minutes"):
            end = time.monotonic() + spec["minutes"] * 60
            self.deadline = end if deadline is None else min(deadline, end)
        self.sessions = 0
        self.figs = {}          # (a, b) -> [(ratio, diff)]
        self.failures = {}      # (a, b) -> count
        self.cost = {}          # group index -> seconds its last session took
        self.dropped = set()    # pairs fit() left out for the time, for now
        self.reinstated = False     # the dropped pairs were given the time left
        self.base_left = True   # a pair in play is short of `sessions`

    def per_op(self):
        """{variant: time per operation in ns} from the fresh rounds so far."""
        from . import sequential
        out = {}
        for vid, rounds in sequential.read_processes(self.rundir).items():
            xs = [p["elapsed_ns"] / float(p["iterations"]) for p in rounds.values()
                  if p.get("iterations")]
            if xs:
                out[vid] = stats.median(xs)
        return out

    def pass_n_of(self, vid, per_op):
        """vid's lockstep pass N (pass_n: about pass_ms at its own time per
        operation; bounded at least 4 K; parallel and a seed's method keep N),
        and the pass's time in ms, or None when it has no fresh figure."""
        v = self.cat.find(vid)
        n = self.plan.settings[v["workload"]]["iterations"]
        if not per_op.get(vid):
            return None
        pn = pass_n(per_op[vid], n, self.spec["pass_ms"], keeps_n(v))
        if v["mode"] == "bounded":
            pn = max(pn, min(n, 4 * v["concurrency"]))
        return pn, per_op[vid] * pn / 1e6

    def side_of(self, vid, pn):
        """The side of vid at pass N pn, with its server's port (a str: why
        its server is not up)."""
        v = self.cat.find(vid)
        sd = side_of_invocation(self.cat, v, plan_invocation(self.plan, v, pn))
        spec = self.plan.servers.get(vid)
        if spec:
            port, why = self.servers.port(spec)
            if why:
                return why
            sd["argv"] = sd["argv"] + [spec["port_flag"], str(port)]
        return sd

    def go(self, variant_ids):
        """Runs the phase; returns run.json's lockstep record."""
        iterations = {v: self.plan.settings[self.cat.find(v)["workload"]]["iterations"]
                      for v in variant_ids}
        only = self.spec.get("workloads")
        ids = [v for v in variant_ids if not only or v.split("/", 1)[0] in only]
        qs = pair_questions(self.cat, self.run, ids, iterations)
        per_op = self.per_op()
        rec = {"rule": RULE, "pass_ms": self.spec["pass_ms"],
               "max_pass_ms": self.spec.get("max_pass_ms"), "pairs": self.spec["pairs"],
               "session_ms": self.spec.get("session_ms"),
               "half_width": self.spec.get("half_width"),
               "sessions": self.spec["sessions"], "max_sessions": self.spec["max_sessions"],
               "compared": len(qs), "pass_n": {}, "invocations": {}, "sessions_run": 0,
               "groups": 0, "stopped": None}
        self.run["lockstep"] = rec
        # Each variant's pass; a pair with a variant lacking a fresh figure, or
        # whose pass would be too long, stays on the rounds.
        self.n, self.pass_ms = {}, {}
        for vid in sorted({v for p in qs for v in p}):
            got = self.pass_n_of(vid, per_op)
            if got and got[1] <= self.spec.get("max_pass_ms", float("inf")):
                self.n[vid] = got[0]
                self.pass_ms[vid] = got[1]
                rec["pass_n"][vid] = got[0]
        for p in list(qs):
            if p[0] not in self.n or p[1] not in self.n:
                rec.setdefault("left_to_rounds", []).append(list(p))
                del qs[p]
        self.qs = qs
        self.groups = groups(qs)
        rec["groups"] = len(self.groups)
        stop = None
        rnd = 0
        with open(os.path.join(self.rundir, "lockstep.csv"), "w", newline="",
                  encoding="utf-8") as out:
            w = csv.writer(out, lineterminator="\n")
            w.writerow(pairs_mod.PAIR_COLUMNS)
            out.flush()
            while stop is None:
                rnd += 1
                if rnd >= 2:
                    self.fit(rec)
                self.plan_round()
                todo = [k for k, g in enumerate(self.groups) if self.wanted(g)]
                if not todo:
                    stop = "every compared pair decided, as precise as asked, or at its most sessions"
                    break
                self.rng.shuffle(todo)
                t_round = time.monotonic()
                for k, gi in enumerate(todo, start=1):
                    if self.deadline is not None and time.monotonic() > self.deadline:
                        stop = "the time budget ended"
                        break
                    self.one(w, out, rnd, gi, k, len(todo), rec)
                self.servers.stop_all()
                rec.setdefault("round_seconds", []).append(round(time.monotonic() - t_round, 1))
        # A pair with fewer sessions than an interval needs is the rounds'
        # (runfolder.RunFolder.sessions): the time budget cut it.
        short = [list(p) for p in self.qs if len(self.figs.get(p, [])) < stats.MIN_SESSIONS
                 and self.failures.get(p, 0) < 2]
        if short:
            rec.setdefault("left_to_rounds", []).extend(short)
            rec["dropped_for_time"] = len(short)
        rec["stopped"] = stop
        rec["rounds"] = rnd
        rec["sessions_run"] = self.sessions
        return rec

    def short(self, p):
        """Whether pair p, in play, is short of its `sessions`."""
        return (self.failures.get(p, 0) < 2 and p not in self.dropped
                and len(self.figs.get(p, [])) < self.spec["sessions"])

    def plan_round(self):
        """Before each lockstep round: once every pair in play has its
        `sessions`, the pairs fit() left out get the time left (and are left
        out no more); extra sessions for open questions come only after
        both."""
        short = any(self.short(p) for p in self.qs)
        if not short and self.dropped and not self.reinstated:
            self.dropped.clear()
            self.reinstated = True
            short = any(self.short(p) for p in self.qs)
        self.base_left = short or bool(self.dropped)

    def needs(self, p):
        """Whether pair p wants another process pair: under `sessions`, or,
        once no pair is short of its `sessions` and none is left out, under
        `max_sessions` with a question its sessions leave open or an interval
        wider than asked (unsettled)."""
        if self.failures.get(p, 0) >= 2 or p in self.dropped:
            return False
        have = len(self.figs.get(p, []))
        return have < self.spec["sessions"] or (not self.base_left and self.more(p))

    def more(self, p):
        """Whether pair p, in play with its `sessions`, may take another:
        under `max_sessions` and unsettled."""
        return (self.failures.get(p, 0) < 2 and p not in self.dropped
                and len(self.figs.get(p, [])) < self.spec["max_sessions"] and self.unsettled(p))

    def unsettled(self, p):
        """Whether pair p's sessions leave a question open (open_pair) or its
        ratio's interval wider than the profile's `half_width` asks (wide)."""
        return open_pair(self.figs[p], self.qs[p]) or wide(self.figs[p], p, self.spec)

    def wanted(self, g):
        """The pairs of group g that want another session, and with them
        (their processes start anyway) those of its open pairs whose two
        variants the session starts."""
        base = [p for p in g if self.needs(p)]
        if not base or not self.base_left:
            return base
        vids = {v for p in base for v in p}
        return [p for p in g if p in base or (p[0] in vids and p[1] in vids and self.more(p))]

    def fit(self, rec):
        """Before each lockstep round after the first, at the pace so far: when
        the time left cannot give every group still short of its `sessions`
        the sessions it lacks, the groups of lowest priority (the best of their
        pairs', pair_questions' order) are left out for now (dropped), so that
        the others get theirs first rather than every pair too few for an
        interval; once they have, the left-out get the time left (plan_round),
        and a pair that ends with fewer than stats.MIN_SESSIONS is the rounds'.
        A group's session is reckoned at FIT_MARGIN times its last one's
        seconds."""
        if self.deadline is None or self.reinstated:
            return
        left = self.deadline - time.monotonic()
        rank = {p: i for i, p in enumerate(self.qs)}
        short = []
        for gi, g in enumerate(self.groups):
            lack = max([self.spec["sessions"] - len(self.figs.get(p, [])) for p in g
                        if self.failures.get(p, 0) < 2 and p not in self.dropped] or [0])
            if lack > 0 and gi in self.cost:
                short.append((min(rank[p] for p in g), gi, lack))
        total = 0.0
        for _, gi, lack in sorted(short):
            need = FIT_MARGIN * self.cost[gi] * lack
            if total + need <= left:
                total += need
                continue
            for p in self.groups[gi]:
                if self.failures.get(p, 0) < 2:
                    self.dropped.add(p)

    def one(self, w, out, rnd, gi, k, of, rec):
        """One session of group gi: its variants that a wanting pair needs."""
        pairs = self.wanted(self.groups[gi])
        vids = sorted({v for p in pairs for v in p})
        self.progress.show("lockstep %d, group %d of %d (%d variants), for: %s" % (
            rnd, k, of, len(vids), _pairs_words(pairs, self.qs)))
        sides = []
        for vid in vids:
            sd = self.side_of(vid, self.n[vid])
            if isinstance(sd, str):
                for p in pairs:
                    self.failures[p] = self.failures.get(p, 0) + 1
                self.note(rnd, vids, "server: %s" % sd)
                return
            sides.append(sd)
            rec["invocations"].setdefault("%s@%d" % (vid, sd["n"]), sd["invocation"].record())
        t0 = time.monotonic()
        rounds = session_rounds(self.spec, [self.pass_ms[v] for v in vids])
        rec.setdefault("session_rounds", {})[_group_name(vids)] = rounds
        g = group_session(sides, rounds, self.rng, self.launch_path, self.cpu,
                          max(self.plan.settings[self.cat.find(v)["workload"]]["timeout_s"]
                              for v in vids))
        self.cost[gi] = time.monotonic() - t0
        self.sessions += 1
        at = {vid: i for i, vid in enumerate(vids)}
        entry = {"round": "lockstep %d" % rnd, "session": self.sessions, "variants": vids,
                 "status": "failed" if g.failure or any(g.failures) else "ok",
                 "reason": g.failure, "failures": {vids[i]: f for i, f in enumerate(g.failures) if f},
                 "procs": {vids[i]: pr for i, pr in enumerate(g.procs)}}
        self.log.run(entry)
        for vid, why in entry["failures"].items():
            self.run.setdefault("failures", []).append(
                {"round": entry["round"], "variant": vid, "status": "failed",
                 "reason": "lockstep: %s" % why})
            self.progress.note("run.py: lockstep %s: %s" % (vid, why))
        if g.failure:
            self.progress.note("run.py: lockstep: %s" % g.failure)
        for a, b in pairs:
            i, j = at[a], at[b]
            if g.failure or g.failures[i] or g.failures[j]:
                self.failures[(a, b)] = self.failures.get((a, b), 0) + 1
                continue
            rows = g.pairs(i, j)
            for r, (x, y, first) in enumerate(rows):
                w.writerow([self.sessions, rnd, a, b, r, int(first), sides[i]["n"],
                            sides[j]["n"], x, y])
            f = stats.cluster_figure([(x / float(sides[i]["n"]), y / float(sides[j]["n"]))
                                      for x, y, _ in rows], 1)
            if f is not None:
                self.figs.setdefault((a, b), []).append(f)
        out.flush()

    def note(self, rnd, vids, why):
        self.log.run({"round": "lockstep %d" % rnd, "session": None, "variants": vids,
                      "status": "failed", "reason": why})
        self.run.setdefault("failures", []).append(
            {"round": "lockstep %d" % rnd, "variant": vids[0], "status": "failed",
             "reason": "lockstep: %s" % why})


def groups(qs):
    """The pairs of qs in groups: the connected parts of the graph whose edges
    are the pairs, each a list of pairs in qs's order, the groups in the order
    of their first pair."""
    parent = {}

    def root(x):
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x
    for a, b in qs:
        parent[root(a)] = root(b)
    out, where = [], {}
    for p in qs:
        r = root(p[0])
        if r not in where:
            where[r] = len(out)
            out.append([])
        out[where[r]].append(p)
    return out


def _pairs_words(pairs, qs):
    """The question a session pairs, for the live line: its first pair (the
    highest priority, pair_questions' order) with its first question, and how
    many more: "readfile c/await-sequential@uring vs c/callback-sequential@uring,
    Δ per op against 50 ns; +12 more pairs"."""
    first = min(pairs, key=list(qs).index)
    w = first[0].split("/", 1)[0]

    def short(v):
        return v.split("/", 1)[1] if v.startswith(w + "/") else v
    kind, bound = qs[first][0]
    what = "ratio against %.2fx" % bound if kind == "ratio" else (
        "Δ per op against %g ns" % bound if kind == "diff_per_op_ns" else "%s %g" % (kind, bound))
    more = len(pairs) - 1
    return "%s %s vs %s, %s%s" % (w, short(first[0]), short(first[1]), what,
                                  "; +%d more pair%s" % (more, "" if more == 1 else "s") if more else "")


def _group_name(vids):
    """A group's variants in a few words for the live line."""
    first = vids[0]
    return first if len(vids) == 1 else "%s and %d more" % (first, len(vids) - 1)


def plan_invocation(plan, v, pn):
    """v's lockstep Invocation at pass N pn, derived from the plan's (at the
    workload's N, its warm-up as the profile gives it)."""
    return plan.invocations[v["id"]].replace(iterations=pn, lockstep=True, passes=1)
