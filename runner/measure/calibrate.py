"""calibrate.py -- how many timed passes each process runs, chosen from the
warm-up round so that a short pass does not leave a process's value to chance
(DESIGN section 7).

A process's value is the median of its passes.  A pass of a few milliseconds
is within reach of everything else the host does: on a shared VM one pass in
five of C's plain recursive fibonacci (2 ms at the default N) takes twice as
long, and a median of three such passes is then as often the slow one as the
typical one.  pyperf answers with a minimum time per value and
BenchmarkDotNet with a pilot stage that picks the invocation count; the
suite keeps N (every variant of a workload does the same N operations a
pass, in every language) and picks the number of passes instead:

    P = min(max, max(P0, ceil(min_ms / t)))

where P0 is the catalog's passes for the variant (catalog.py: passes), t the
variant's pass time in ms estimated from its warm-up round (the median of
that process's passes, scaled from the warm-up's N to the rounds' N), and
min_ms and max the profile's `calibrate_passes`.  A variant whose catalog
gives one pass (a whole-process method, the seed profile) keeps one: its
method times a process, not passes.  A variant with no valid warm-up run
keeps P0.  The choice is made once, before the first measured round, so
every measured process of a variant runs the same P; run.json records it
(`passes`: {variant: P} for each variant it raised, `passes_rule`).
"""
import math

from . import plan as plan_mod
from ..core import stats


def rule_text(spec):
    """The rule in words, for run.json and the report's Method."""
    return ("each process of a variant runs P = min(%d, max(P0, ceil(%g ms / t))) timed "
            "passes: P0 the catalog's passes, t the variant's pass time estimated from its "
            "warm-up round at the rounds' N; a variant of one pass keeps one"
            % (spec["max"], spec["min_ms"]))


def choose(p0, pass_ms, spec):
    """The passes of a variant whose catalog gives p0 and whose pass takes
    pass_ms (None: unknown) under the profile's spec {min_ms, max}."""
    if p0 <= 1 or pass_ms is None or pass_ms <= 0:
        return p0
    want = int(math.ceil(spec["min_ms"] / pass_ms))
    return max(p0, min(spec["max"], want))


def warm_pass_ms(times, warm_n, n):
    """A warm-up process's pass time in ms, scaled to the rounds' N = n (the
    median of its passes' times in ns at warm_n operations), or None."""
    times = [t for t in times if isinstance(t, int) and t > 0]
    if not times or warm_n <= 0:
        return None
    return stats.median(times) / 1e6 * n / float(warm_n)


def with_passes(argv, p):
    """argv with its --passes set to p (added before the workload's own flags'
    place, after --warmup, when it had none: 1, the programs' default)."""
    argv = list(argv)
    if "--passes" in argv:
        i = argv.index("--passes")
        argv[i + 1] = str(p)
    elif p > 1:
        i = argv.index("--warmup") + 2
        argv[i:i] = ["--passes", str(p)]
    return argv


class Calibration:
    """The passes of a run's variants: nothing until apply() has the warm-up's
    pass times; passes_of() is what the runner gives and checks a run by."""

    def __init__(self, plan):
        self.plan = plan
        self.spec = getattr(plan, "calibrate", None)
        self.chosen = {}          # variant id -> P, where it differs from P0
        self.seen = {}            # variant id -> warm-up pass ms at the rounds' N

    def note_warmup(self, v, times, warm_n):
        """Keeps the pass times (ns) of a valid warm-up run of v at warm_n operations."""
        if not self.spec:
            return
        n = self.plan.settings[v["workload"]]["iterations"]
        ms = warm_pass_ms(times, warm_n, n)
        if ms is not None:
            self.seen.setdefault(v["id"], []).append(ms)

    def base(self, v, n):
        return plan_mod.passes_of(v, self.plan.settings[v["workload"]].get("passes", "1"), n)

    def apply(self, run):
        """Chooses every variant's passes from its warm-up runs, rewrites the
        plan's commands and run.json's (run: its commands are what the
        measured rounds ran) and records the choice in run."""
        if not self.spec or self.chosen:
            return
        for v in self.plan.variants:
            n = self.plan.settings[v["workload"]]["iterations"]
            p0 = self.base(v, n)
            ms = stats.median(self.seen[v["id"]]) if self.seen.get(v["id"]) else None
            p = choose(p0, ms, self.spec)
            if p != p0:
                self.chosen[v["id"]] = p
                # A new invocation derived from the plan's, never its text edited.
                inv = self.plan.invocations.get(v["id"])
                if inv is None:          # a plan made by hand (a test's): its command only
                    self.plan.commands[v["id"]] = with_passes(self.plan.commands[v["id"]], p)
                    continue
                inv = inv.replace(passes=p)
                self.plan.invocations[v["id"]] = inv
                self.plan.commands[v["id"]] = inv.argv()
                base = (getattr(self.plan, "points", None) or {}).get(v["id"], {}).get("")
                if base is not None:                    # a run without a sweep: its one point
                    base["argv"] = inv.argv()
                if v["id"] in (run.get("commands") or {}):        # what the rounds ran
                    run["commands"][v["id"]] = inv.record()["argv"]
                if v["id"] in (run.get("invocations") or {}):
                    run["invocations"][v["id"]] = inv.record()
        run["passes_rule"] = rule_text(self.spec)
        run["passes"] = dict(sorted(self.chosen.items()))

    def passes_of(self, v, n, point=None):
        """The --passes a run of v at N = n (at a point: a sweep's are never
        calibrated, the one point of a run without a sweep is) was given."""
        if (point is None or point.get("point") == "") and v["id"] in self.chosen:
            return self.chosen[v["id"]]
        return self.base(v, n)
