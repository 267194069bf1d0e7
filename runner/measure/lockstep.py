"""lockstep.py -- the lockstep phase of a run (DESIGN section 6): which pairs of
variants a run compares (pair_questions), the groups they form, the pass N and
rounds of a session, and Phase, which gives each group its sessions
(sessions.py runs them) within the run's time budget, most important question
first, and records them in lockstep.csv, runs.jsonl and run.json.
"""
import csv
import os
import random
import time

from ..analysis import pairs as pairs_mod
from ..core import confseq
from ..core import stats
from .sessions import group_session, pass_n, side_of_invocation

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
    confidence sequence (confseq.decided) has not excluded its bound."""
    for kind, bound in questions:
        xs = [f[0] if kind == "ratio" else f[1] for f in figs]
        if not confseq.decided(xs, bound):
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
