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
import csv
import json
import os
import random
import select
import subprocess
import tempfile
import time

from . import contract
from . import launch
from . import pairs as pairs_mod
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


# -- the lockstep phase of a run (DESIGN section 6) ----------------------------

RULE = ("after the fresh-process rounds, each pair of variants a ratio, target or claim "
        "compares runs as process pairs in lockstep: both warm, pinned to the programs' CPU, "
        "alternated pass by pass in a random order a pair; a pass's N is the one that takes "
        "about pass_ms at the slower variant's time per operation in the fresh rounds, from 1 "
        "to the workload's N (bounded: at least 4 K), except where N is part of what is "
        "measured (parallel mode, a seed's whole-process method), which keep the workload's "
        "N; every pair gets `sessions` process pairs, and one whose questions its sessions "
        "have not decided by the confidence sequence gets more, up to `max_sessions`, "
        "within the run's time budget")


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


def keeps_n(v):
    """Whether a pass of v keeps the workload's N: N is part of what is measured."""
    return v["mode"] == "parallel" or v.get("method", "inprocess") != "inprocess"


class Phase:
    """The lockstep phase of a run: sessions of every compared pair, written to
    lockstep.csv (pairs.py) and runs.jsonl, recorded in run.json's lockstep."""

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
        self.cost = {}          # (a, b) -> seconds its last process pair took
        self.failures = {}      # (a, b) -> count

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

    def sides(self, a, b, per_op):
        """The two sides of a session of a and b, at their pass's N."""
        va, vb = self.cat.find(a), self.cat.find(b)
        n = self.plan.settings[va["workload"]]["iterations"]
        nb = self.plan.settings[vb["workload"]]["iterations"]
        if nb != n:
            return None
        slower = max(per_op.get(a) or 0, per_op.get(b) or 0)
        if not slower:
            return None             # no fresh process of one of them: left to the rounds
        pn = pass_n(slower, n, self.spec["pass_ms"], keeps_n(va) or keeps_n(vb))
        for v in (va, vb):
            if v["mode"] == "bounded":
                pn = max(pn, min(n, 4 * v["concurrency"]))
        if slower * pn / 1e6 > self.spec.get("max_pass_ms", float("inf")):
            return None             # a pass too long for lockstep: left to the rounds
        out = []
        for v in (va, vb):
            inv = plan_invocation(self.plan, v, pn)
            sd = {"entry": v, "invocation": inv, "argv": inv.argv(), "n": pn,
                  "env": v.get("env"), "workload_values": self.cat.flag_values(v["workload"]),
                  "concurrency": v["concurrency"]}
            spec = self.plan.servers.get(v["id"])
            if spec:
                port, why = self.servers.port(spec)
                if why:
                    return why
                sd["argv"] = sd["argv"] + [spec["port_flag"], str(port)]
            out.append(sd)
        return out

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
               "sessions": self.spec["sessions"], "max_sessions": self.spec["max_sessions"],
               "compared": len(qs), "pass_n": {}, "invocations": {}, "sessions_run": 0,
               "stopped": None}
        self.run["lockstep"] = rec
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
                    self.fit(qs, rec)
                todo = [p for p in qs if self.failures.get(p, 0) < 2 and (
                    len(self.figs.get(p, [])) < self.spec["sessions"] or (
                        len(self.figs.get(p, [])) < self.spec["max_sessions"]
                        and open_pair(self.figs[p], qs[p])))]
                if not todo:
                    stop = "every compared pair decided or at its most sessions"
                    break
                self.rng.shuffle(todo)
                t_round = time.monotonic()
                for k, (a, b) in enumerate(todo, start=1):
                    if self.deadline is not None and time.monotonic() > self.deadline:
                        stop = "the time budget ended"
                        break
                    self.progress.show("lockstep %d: %s vs %s (%d of %d)" % (
                        rnd, a, b.split("/", 1)[1], k, len(todo)))
                    self.one(w, out, rnd, a, b, per_op, rec)
                self.servers.stop_all()
                rec.setdefault("round_seconds", []).append(round(time.monotonic() - t_round, 1))
        rec["stopped"] = stop
        rec["rounds"] = rnd
        rec["sessions_run"] = self.sessions
        return rec

    def fit(self, qs, rec):
        """Before each lockstep round after the first, at the pace so far: when
        the time left cannot give every pair still short of its `sessions`
        the process pairs it lacks, the pairs of lowest priority
        (pair_questions' order) are left to the rounds, so that the others
        get theirs rather than every pair too few for an interval.  A pair's
        process pair is reckoned at FIT_MARGIN times its last one's seconds."""
        if self.deadline is None:
            return
        left = self.deadline - time.monotonic()
        short = [p for p in qs if p in self.cost and self.failures.get(p, 0) < 2
                 and len(self.figs.get(p, [])) < self.spec["sessions"]]
        keep, total = [], 0.0
        for p in short:
            need = FIT_MARGIN * self.cost[p] * (self.spec["sessions"] - len(self.figs.get(p, [])))
            if total + need <= left:
                keep.append(p)
                total += need
        dropped = [p for p in short if p not in keep]
        for p in dropped:
            self.failures[p] = 2
            rec.setdefault("left_to_rounds", []).append(list(p))
        if dropped:
            rec["dropped_for_time"] = rec.get("dropped_for_time", 0) + len(dropped)

    def one(self, w, out, rnd, a, b, per_op, rec):
        sides = self.sides(a, b, per_op)
        if sides is None:
            self.failures[(a, b)] = 2
            rec.setdefault("left_to_rounds", []).append([a, b])
            return
        if isinstance(sides, str):
            cl = Cluster(a, b, 0)
            cl.failure = sides
        else:
            sa, sb = sides
            rec["pass_n"]["%s %s" % (a, b)] = sa["n"]
            for sd in sides:
                rec["invocations"].setdefault(
                    "%s@%d" % (sd["entry"]["id"], sd["n"]), sd["invocation"].record())
            t0 = time.monotonic()
            cl = session(sa, sb, self.spec["pairs"], self.rng, self.launch_path, self.cpu,
                         self.plan.settings[sa["entry"]["workload"]]["timeout_s"])
            self.cost[(a, b)] = time.monotonic() - t0
        self.sessions += 1
        entry = {"round": "lockstep %d" % rnd, "session": self.sessions, "variant": a,
                 "partner": b, "status": "failed" if cl.failure else "ok",
                 "reason": cl.failure, "pairs": len(cl.pairs),
                 "a_proc": cl.a_proc, "b_proc": cl.b_proc}
        self.log.run(entry)
        if cl.failure:
            self.failures[(a, b)] = self.failures.get((a, b), 0) + 1
            self.run.setdefault("failures", []).append(
                {"round": entry["round"], "variant": a, "status": "failed",
                 "reason": "lockstep with %s: %s" % (b, cl.failure)})
            self.progress.note("run.py: lockstep %s vs %s: %s" % (a, b, cl.failure))
            return
        for k, (x, y, first) in enumerate(cl.pairs):
            w.writerow([self.sessions, rnd, a, b, k, int(first), cl.n, x, y])
        out.flush()
        self.figs.setdefault((a, b), []).append(cl.figure())


def plan_invocation(plan, v, pn):
    """v's lockstep Invocation at pass N pn, derived from the plan's (at the
    workload's N, its warm-up as the profile gives it)."""
    return plan.invocations[v["id"]].replace(iterations=pn, lockstep=True, passes=1)
