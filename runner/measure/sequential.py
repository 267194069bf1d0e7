"""sequential.py -- extra rounds for the questions a run has left open, and
the rule that says when to stop adding them (DESIGN section 7).

The questions are the ones the catalog asks of a run: every target
(targets.py: a variant's ratio to another against max_ratio, its difference
per operation against max_diff_per_op_ns, its time outside the clock against
max_outside_ms plus a share, its own time or memory per operation against
max_ns_per_op or max_bytes_per_op) and every ratio claim of a seed (reproduce.py:
num over den, "A is faster than B", against 1), then the headline's comparisons
(verdicts.py: each style against the baseline of its own language, against
1), which get extra rounds only once no target or claim is open or none of
those fits in the time left.  Each is a question about the median of a
per-round figure x_r -- the log-ratio d_r = log(t_a,r / t_b,r) of two
variants measured in the same round, their difference per operation, or a
figure of one variant's process (its margin to its bound, its time or memory
per operation) -- and a bound b: is the median above b or below it?

The rule, the *sign-mixture confidence sequence*, is runner/core/confseq.py's.

What it does not give: the tables' verdicts stay the fixed-sample ones over
all the rounds.  Where the sequence decided, the interval agrees; a question still
open when the extra rounds stop (their most, or their time budget) is judged
by its fixed interval like any other, so over the whole procedure a false
verdict has probability at most alpha (the sequence) plus alpha (the fixed
interval at the end); test_sequential.py measures both.
"""
import os
import random
import sys
import time

from ..analysis import runfolder
from . import schedule
from ..core import confseq
from ..core import stats
from ..analysis import summary as sm
from ..analysis import targets
from ..analysis import verdicts

ALPHA = confseq.ALPHA
RULE = confseq.RULE
RULE_TEXT = confseq.RULE_TEXT
# Fewer paired rounds than this and a question is not open but unmeasured:
# its variants fail.  1: the default profile runs one fresh round of a variant
# whose pairs lockstep measures, and a pair it leaves to the rounds (a long
# pass) is open after it.
MIN_PAIRS = 1

# -- the questions of a run


def _short(vid):
    return vid.split("/", 1)[1] if "/" in vid else vid


def questions(cat, variant_ids, iterations=None):
    """The targets and ratio claims of the catalog whose variants are all in
    variant_ids: [{id, workload, source, kind, variant, against, bound,
    text}] (kind: targets.question's; against None for a figure of the
    variant's own), in catalog order.  iterations ({variant id: N}) leaves out
    a target of another N (at_iterations)."""
    present = set(variant_ids)
    out = []
    for w in sorted(cat.workloads):
        spec = cat.workloads[w]
        for t in spec.get("targets") or []:
            a, b = t["variant"], t.get("against")
            if a not in present or (b is not None and b not in present):
                continue
            q = targets.question(t)
            if iterations is not None and not targets.applies(q, iterations.get(a)):
                continue
            q.update(id="target %s" % t["id"], workload=w, source="target", variant=a,
                     against=None if targets.own(q["kind"]) else b)
            out.append(q)
        for c in ((spec.get("claims") or {}).get("ratios") or []):
            if c.get("num") in present and c.get("den") in present:
                out.append({"id": "claim %s" % c["id"], "workload": w, "source": "claim",
                            "kind": "ratio", "bound": 1.0, "variant": c["num"],
                            "against": c["den"]})
    for q in out:
        q["text"] = describe(q)
    return out


def same_language_baseline(cat, v):
    """The id of v's baseline of its own language, by verdicts.headline's
    rule (verdicts.same_language_prefix), None when it has none."""
    bases = cat.baselines(v)
    row = {"lang": v["lang"]}
    for key, prefix in sm.BASELINE_KEYS:
        row[prefix + "baseline"] = (bases.get(key) or [None])[0]
    prefix = verdicts.same_language_prefix(row)
    return None if prefix is None else row[prefix + "baseline"]


def headline_questions(cat, variant_ids, asked=()):
    """The headline's comparisons (the README's answer and the verdicts: each
    style against the baseline of its own language) whose two variants are in
    variant_ids, as questions against 1.00x in variant_ids' order, less any
    of asked (questions()) that asks the same: [{id, ..., source:
    "headline"}]."""
    present = set(variant_ids)
    same = {(q["variant"], q.get("against")) for q in asked
            if q["kind"] == "ratio" and q["bound"] == 1.0}
    out = []
    for vid in variant_ids:
        v = cat.find(vid)
        base = v and same_language_baseline(cat, v)
        if not base or base == vid or base not in present or (vid, base) in same:
            continue
        q = {"id": "headline %s" % vid, "workload": v["workload"], "source": "headline",
             "kind": "ratio", "bound": 1.0, "variant": vid, "against": base}
        q["text"] = describe(q)
        out.append(q)
    return out


def _fmt(kind, x):
    if kind in ("ratio", "bytes_ratio"):
        return "%.2fx" % x if x < 100 else "%.0fx" % x
    if kind == "outside_ms":
        return "%+.1f ms" % x
    return "%.1f ns" % x


def describe(q):
    """The question in a few words: "cacheloop c/await-sequential@node4 vs
    c/callback-sequential@node4 ≤ 0.50x"."""
    if q["kind"] == "outside_ms":
        return "%s %s outside the clock ≤ %g ms + %d%%" % (
            q["workload"], _short(q["variant"]), q["limit"][0], round(100 * q["limit"][1]))
    if targets.own(q["kind"]):
        return "%s %s %s ≤ %s per op" % (
            q["workload"], _short(q["variant"]),
            "memory above idle" if q["kind"] == "bytes_per_op" else "time",
            targets.fmt_figure(q["kind"], q["bound"]))
    if q["source"] in ("claim", "headline"):
        return "%s %s over %s%s against 1.00x" % (
            q["workload"], _short(q["variant"]),
            "its baseline " if q["source"] == "headline" else "", _short(q["against"]))
    bound = _fmt(q["kind"], q["bound"]) + (" per op" if q["kind"] == "diff_per_op_ns" else "")
    return "%s %s vs %s ≤ %s" % (q["workload"], _short(q["variant"]), _short(q["against"]),
                                bound)


def describe_open(q, lo, hi):
    """The question with where the sequence has it: "... , open at [1.04, 1.13]"."""
    if lo is None:
        return "%s, open (too few rounds to exclude anything)" % q["text"]
    return "%s, open at [%s, %s]" % (q["text"], _num(q["kind"], lo), _num(q["kind"], hi))


def _num(kind, x):
    return "%.2f" % x if kind in ("ratio", "bytes_ratio") else "%.1f" % x


def read_processes(rundir):
    """{variant: {round: process}} of the run folder's ok processes at the base
    point so far (runfolder.RunFolder.processes: a process's elapsed_ns the
    median of its passes, with its iterations, wall_ns and outside_ns), {}
    before samples.csv exists.  A short last line (a write under way) is
    left out."""
    folder = runfolder.RunFolder(rundir)
    if not os.path.exists(folder.file("samples.csv")):
        return {}
    groups = {}
    for p in folder.processes:
        if p["status"] == "ok" and p["elapsed_ns"] is not None:
            groups.setdefault(p["variant"], {})[p["round"]] = p
    return groups


def read_sessions(rundir):
    """The run folder's lockstep sessions' figures (runfolder.RunFolder.sessions),
    {} before lockstep.csv exists."""
    folder = runfolder.RunFolder(rundir)
    if not os.path.exists(folder.file("lockstep.csv")):
        return {}
    return folder.sessions


def figures(q, processes, sessions=None):
    """A question's per-round figures from read_processes()'s processes, in
    round order: variant over against (ratio), their difference per operation
    (diff_per_op_ns), or a figure of the variant's own processes
    (targets.process_figure), as targets.py measures them.  Where its two
    variants ran in lockstep (sessions, read_sessions'), one figure a session
    instead, as the summary and the targets then take them."""
    locked = (sessions or {}).get((q["variant"], q.get("against"))) if q.get("against") else None
    if locked and q["kind"] != "bytes_ratio":     # memory is paired by round only
        return [f[0] if q["kind"] == "ratio" else f[1] for f in locked]
    mine = processes.get(q["variant"]) or {}
    if targets.own(q["kind"]):
        xs = (targets.process_figure(q, mine[r]) for r in sorted(mine))
        return [x for x in xs if x is not None]
    other = processes.get(q["against"]) or {}
    out = []
    if q["kind"] == "bytes_ratio":
        a, b = targets.memory_by_round(mine), targets.memory_by_round(other)
        return [a[r] / b[r] for r in sorted(set(a) & set(b))]
    for r in sorted(set(mine) & set(other)):
        a, b = mine[r]["elapsed_ns"], other[r]["elapsed_ns"]
        if q["kind"] == "ratio":
            if b > 0:
                out.append(a / b)
        else:
            out.append((a - b) / max(1, mine[r]["iterations"] or 1))
    return out


def round_variants(open_qs, order_of):
    """The variant ids of an extra round: every variant of the open questions,
    each once, in order_of's order (the plan's); open_qs [(question, ...)]."""
    want = set()
    for item in open_qs:
        q = item[0]
        want.add(q["variant"])
        if q.get("against"):
            want.add(q["against"])
    return [v for v in order_of if v in want]


def fit(open_qs, room_ns, estimate_ns):
    """The questions of open_qs ([(question, ...)]), in their order, whose
    variants together take at most room_ns by estimate_ns(variant ids): a
    question whose variants would go past it is left out and the next tried,
    so the time left still goes to the questions that fit."""
    held, ids, total = [], set(), 0
    for item in open_qs:
        q = item[0]
        new = [v for v in (q["variant"], q.get("against")) if v and v not in ids]
        cost = estimate_ns(new)
        if total + cost <= room_ns:
            held.append(item)
            ids.update(new)
            total += cost
    return held


class Extra:
    """The extra rounds of a run: after its planned rounds, one round at a
    time with the variants of the questions still open (less any whose last
    extra round added no paired round: its variants failed; of the targets'
    and claims', else of the headline's, the ones whose variants fit in the
    time left, fit()), until every one is decided,
    settings["max"] extra rounds have run, or no open question's round fits
    before settings["minutes"] end (measured from the first extra round's
    start, a round's time estimated from its variants' median wall times) or
    before deadline (the run's own time budget, on clock's scale) when one is
    given.
    The rounds are ordinary rounds; run.json's "extra_rounds" says what they
    were for."""

    def __init__(self, settings, qs, rundir, variant_ids, seed, alpha=ALPHA, clock=None,
                 deadline=None, run_minutes=None, blocks=None):
        self.settings = settings
        # {variant id: its block} (schedule.block_key): an extra round's
        # order is in blocks as a planned round's; without, its workload.
        self.blocks = blocks or {}
        self.deadline = deadline
        self.run_minutes = run_minutes
        self.qs = qs
        self.rundir = rundir
        self.variant_ids = list(variant_ids)
        self.seed = seed
        self.alpha = alpha
        self.clock = clock or time.monotonic
        self.start = None
        self.done = 0
        self.labels = {}
        self.decided = {}           # question id -> the round the sequence decided it at
        self.given = {}             # question id -> its paired rounds when last given one
        self.stalled = set()        # questions whose last extra round added no pair
        self.locked = set()         # questions on lockstep sessions (no extra round for them)
        self.record = {"rule": RULE, "about": RULE_TEXT, "alpha": alpha,
                       "max": settings["max"], "minutes": settings["minutes"],
                       "run_minutes": run_minutes,
                       "planned_rounds": None, "rounds": 0, "stopped": None,
                       "questions": []}

    def state(self, processes, sessions=None):
        """[(question, lo, hi, decided, rounds)] of every question measured in
        at least MIN_PAIRS rounds (or lockstep sessions, which the extra
        rounds do not add to: such a question is never given one); a question
        once decided stays decided (the guarantee is on ever excluding the
        bound)."""
        out = []
        self.locked = set()
        for q in self.qs:
            if q.get("against") and (sessions or {}).get((q["variant"], q["against"])):
                self.locked.add(q["id"])
            xs = figures(q, processes, sessions)
            if len(xs) < MIN_PAIRS:
                continue
            lo, hi = confseq.confidence_sequence(xs, self.alpha)
            dec = q["id"] in self.decided or confseq.decided(xs, q["bound"], self.alpha)
            out.append((q, lo, hi, dec, len(xs)))
        return out

    def _estimate_ns(self, processes, ids):
        total = 0
        for vid in ids:
            walls = [p["wall_ns"] for p in (processes.get(vid) or {}).values()
                     if p["wall_ns"] is not None]
            total += stats.median(walls) if walls else 0
        return total

    def next_round(self, rnd):
        """The order of extra round rnd (a list of variant ids, shuffled in
        blocks as a planned round's), or None when the extra rounds are over
        (self.record["stopped"] says why)."""
        if self.start is None:
            self.start = self.clock()
            self.record["planned_rounds"] = rnd - 1
        processes = read_processes(self.rundir)
        st = self.state(processes, read_sessions(self.rundir))
        for q, lo, hi, dec, n in st:
            if dec and q["id"] not in self.decided:
                self.decided[q["id"]] = rnd - 1
        self._note(st)
        for q, lo, hi, dec, n in st:
            if not dec and self.given.get(q["id"], -1) >= n:
                # Its variants failed in the round it was given: no more for it.
                self.stalled.add(q["id"])
                self._entry(q)["stalled"] = True
        still = [s for s in st if not s[3] and s[0]["id"] not in self.stalled
                 and s[0]["id"] not in self.locked]
        if not still:
            if any(not s[3] and s[0]["id"] in self.locked for s in st):
                self.record["stopped"] = ("every question decided but those on lockstep "
                                          "sessions, which extra rounds do not add to")
            else:
                self.record["stopped"] = "every question decided" if st else "no question measured"
            return None
        if self.done >= self.settings["max"]:
            self.record["stopped"] = "the most extra rounds (%d)" % self.settings["max"]
            return None
        # The time left: the extra rounds' own minutes (not before the first)
        # and the run's budget, whichever ends first.
        rooms = []
        if self.done:
            rooms.append((self.settings["minutes"] * 60e9 - (self.clock() - self.start) * 1e9,
                          "the time budget (%g min)" % self.settings["minutes"]))
        if self.deadline is not None:
            rooms.append(((self.deadline - self.clock()) * 1e9,
                          "the run's time budget (%g min)" % self.run_minutes))
        room, why = min(rooms) if rooms else (float("inf"), None)
        # The headline's comparisons get rounds once no target or claim is
        # open, or none of those fits: those are what the run was asked.
        held, out = [], 0        # out: the open questions tried that did not fit
        for tier in ([s for s in still if s[0]["source"] != "headline"],
                     [s for s in still if s[0]["source"] == "headline"]):
            held = fit(tier, room, lambda ids: self._estimate_ns(processes, ids))
            out += len(tier) - len(held)
            if held:
                break
        if not held:
            self.record["stopped"] = why
            return None
        if out:
            self.record["partial_rounds"] = self.record.get("partial_rounds", 0) + 1
        still = held
        ids = round_variants(still, self.variant_ids)
        ids = schedule.block_shuffle(random.Random("%s extra %d" % (self.seed, rnd)), ids,
                                     lambda vid: self.blocks.get(vid) or vid.split("/", 1)[0])
        q, lo, hi = still[0][0], still[0][1], still[0][2]
        more = len(still) - 1
        self.labels[rnd] = "round %d (extra, for: %s%s%s)" % (
            rnd, describe_open(q, lo, hi), "; +%d more" % more if more else "",
            "; %d open left out, no time for them" % out if out else "")
        for s in still:
            self._entry(s[0])["extra_rounds"].append(rnd)
            self.given[s[0]["id"]] = s[4]
        self.done += 1
        self.record["rounds"] = self.done
        return ids

    def finish(self):
        """The record once the rounds are over (an interrupted run's too)."""
        if os.path.exists(os.path.join(self.rundir, "samples.csv")):
            self._note(self.state(read_processes(self.rundir), read_sessions(self.rundir)))
        if self.record["stopped"] is None:
            self.record["stopped"] = "interrupted"
        return self.record

    def _entry(self, q):
        for e in self.record["questions"]:
            if e["id"] == q["id"]:
                return e
        e = {"id": q["id"], "source": q["source"], "text": q["text"], "kind": q["kind"],
             "bound": q["bound"],
             "variant": q["variant"], "against": q.get("against"), "extra_rounds": []}
        self.record["questions"].append(e)
        return e

    def _note(self, st):
        for q, lo, hi, dec, n in st:
            e = self._entry(q)
            e.update(lo=lo, hi=hi, rounds=n, decided=dec,
                     decided_at=self.decided.get(q["id"]))


# -- the runner's side (runner/measure/measure.py calls these two)


def start(args, cat, plan, rundir, seed, deadline=None):
    """The Extra of a run whose profile gives extra_rounds (suite.json),
    said on stderr; None otherwise, with --no-extra-rounds or --rounds (which
    fixes the rounds, as it turns a time budget off), or when no target,
    claim or headline comparison has all its variants in the run.  deadline: when the run's own
    time budget (the profile's minutes) ends, on time.monotonic's scale."""
    settings = (cat.profile(plan.profile) or {}).get("extra_rounds")
    if not settings or getattr(args, "no_extra_rounds", False) or getattr(args, "rounds", None):
        return None
    ids = [v["id"] for v in plan.variants]
    asked = questions(cat, ids, {v["id"]: plan.settings[v["workload"]]["iterations"]
                                 for v in plan.variants})
    qs = asked + headline_questions(cat, ids, asked)
    if not qs:
        return None
    minutes = getattr(plan, "minutes", None)
    print("run.py: then up to %d extra round%s (%g min%s) for whichever of the run's %d "
          "targets and claims are still open, then of its %d headline comparisons, by the %s "
          "(--no-extra-rounds: none)" % (
              settings["max"], "" if settings["max"] == 1 else "s", settings["minutes"],
              ", ending by the run's %g-minute budget" % minutes if minutes else "",
              len(asked), len(qs) - len(asked), RULE), file=sys.stderr)
    return Extra(settings, qs, rundir, ids, seed, deadline=deadline,
                 run_minutes=getattr(plan, "minutes", None),
                 blocks={v["id"]: schedule.block_key(v) for v in plan.variants})


def add_round(extra, plan, plan_orders, run, progress=None):
    """Appends the next extra round to plan_orders (every round's order,
    warm-ups first) and records it in run (run.json's dict: the order under
    orders.extra, so that schedule.expand() gives it, the rounds, each
    variant's rounds, extra_rounds); False when the extra rounds are over.
    The caller writes run.json."""
    rnd = len(plan_orders) - run["warmup_rounds"] + 1
    ids = extra.next_round(rnd)
    run["extra_rounds"] = extra.record
    if ids is None:
        return False
    plan_orders.append(list(ids))
    run["orders"].setdefault("extra", []).append(list(ids))
    if "variant_rounds" not in run:
        run["variant_rounds"] = {v["id"]: plan.settings[v["workload"]]["rounds"]
                                 for v in plan.variants}
    for vid in ids:
        run["variant_rounds"][vid] = run["variant_rounds"].get(vid, 0) + 1
    run["rounds"] = rnd
    if progress is not None:
        progress.total += len(ids)
    return True
