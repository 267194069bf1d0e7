"""claimrun.py -- one run's figures as the seed claims are read against them
(reproduce.py): the summary's rows, the valid elapsed times and memory of each
variant round by round from samples.csv (runfolder.RunFolder.by_round), and
from them round-paired ratios, memory differences and shares of a gap with
their 95% CIs (runner/core/stats.py), and the family of sign tests every verdict
of a report rests on (their Benjamini-Hochberg q-values).  Without samples.csv a figure falls back to the
summary's medians and has no CI.
"""
import math

from . import runfolder
from ..core import stats
from ..core.errors import EnvError


class Run:
    """What the sections need from one run: the summary rows, the catalog, and
    the valid elapsed times per variant and round when its run folder is at
    hand (folder: a runfolder.RunFolder, or the folder's path)."""

    def __init__(self, summary, folder=None, catalog=None):
        self.info = summary.get("run") or {}
        self.host = summary.get("host") or {}
        self.rows = {r["variant"]: r for r in summary.get("variants", [])}
        self.catalog = catalog
        # The family of tests the sections' verdicts rest on: {key: p}, and once
        # every section has been drawn, their Benjamini-Hochberg q-values.
        self.tests = {}
        self.q = None
        self.times = None  # {variant: {round: elapsed_ns}} of valid runs
        self.mem = None    # {variant: {round: KB above the idle process}}
        self.sampled = None  # {variant: {round: a harness's own figure, KB}}
        self.sessions = {}   # {(a, b): lockstep sessions' figures} (pairs.figures)
        self.samples_note = "no run folder was given"
        if folder is not None:
            try:
                rf = runfolder.of(folder)
                self.times, self.mem, self.sampled = rf.by_round()
                self.sessions = rf.sessions
            except EnvError as e:
                self.samples_note = "samples.csv unreadable (%s)" % e

    def why_missing(self, vid):
        """None when vid has valid samples in this run, else the reason in words."""
        row = self.rows.get(vid)
        if row is not None and row.get("n"):
            return None
        if row is not None:
            st = row.get("statuses") or {}
            bad = ", ".join("%d %s" % (v, k) for k, v in sorted(st.items()) if v and k != "ok")
            return "`%s` had no valid run%s" % (vid, " (%s)" % bad if bad else "")
        for skip in self.info.get("skipped") or []:
            # {"variant", "reason"} per skipped variant; older runs kept one
            # line per group of skipped variants, with the reason before a colon.
            if isinstance(skip, dict):
                if skip.get("variant") == vid:
                    return "`%s` was skipped: %s" % (vid, skip.get("reason"))
            elif vid in str(skip):
                return "`%s` was skipped: %s" % (vid, str(skip).split(":")[0])
        v = self.catalog.find(vid)
        if v is None:
            return "`%s` is not in the catalog yet" % vid
        if vid in (self.info.get("variants") or []):
            if self.info.get("complete") is False:
                return "the run ended before `%s` ran (%s)" % (
                    vid, self.info.get("ending") or "it did not finish")
            return "`%s` has no samples in this run" % vid
        if v["requires"].get("node") and not self.host.get("node"):
            return "node was not found on this host"
        return "`%s` is not in this run (profile %s%s)" % (
            vid, self.info.get("profile", "?"), ", filtered" if self.info.get("filters") else "")

    def iterations(self, workload):
        """The N this run gave the workload (from its rows), or None."""
        ns = [r.get("iterations") for r in self.rows.values() if r.get("workload") == workload]
        ns = [n for n in ns if isinstance(n, int)]
        return max(set(ns), key=ns.count) if ns else None

    def median_ms(self, vid):
        return self.rows[vid]["median_ms"]

    def ratio(self, num, den):
        """A product-ratio prod(num) / prod(den) of elapsed times, as a dict with
        value, low, high (None when no CI), rounds and how it was computed, or
        {"missing": reason}."""
        for vid in list(num) + list(den):
            why = self.why_missing(vid)
            if why:
                return {"missing": why}
        locked = self.sessions.get((num[0], den[0])) if len(num) == len(den) == 1 else None
        if locked:
            # A ratio of two variants that ran in lockstep: one figure a
            # process pair (stats.clustered), as the summary's ratios.
            p = stats.clustered([(f[0], f[1]) for f in locked])
            return {"value": p["ratio"], "low": p["ratio_ci_low"], "high": p["ratio_ci_high"],
                    "rounds": p["rounds"], "paired": True, "pairing": "lockstep",
                    "key": ("ratio", tuple(num), tuple(den)),
                    "p": p["p_value"] if p["ratio_ci_low"] is not None else None}
        if self.times is not None:
            rounds = set.intersection(*(set(self.times.get(v, {})) for v in list(num) + list(den)))
            per_round = []
            for r in sorted(rounds):
                top = math.prod(self.times[v][r] for v in num)
                bottom = math.prod(self.times[v][r] for v in den)
                if bottom > 0:
                    per_round.append(top / bottom)
            if per_round:
                m, lo, hi = stats.ratio_ci(per_round)
                return {"value": m, "low": lo, "high": hi, "rounds": len(per_round), "paired": True,
                        "key": ("ratio", tuple(num), tuple(den)),
                        "p": stats.sign_test(per_round) if lo is not None else None}
        top = math.prod(self.median_ms(v) for v in num)
        bottom = math.prod(self.median_ms(v) for v in den)
        if not bottom:
            return {"missing": "a median of 0 ms"}
        return {"value": top / bottom, "low": None, "high": None, "rounds": 0, "paired": False}


    def memory(self, num, den=None, figure="kernel"):
        """Memory of num, minus den's when given, in KB: a dict like ratio()'s
        (value, low, high, rounds, paired) or {"missing": why}.  figure "kernel"
        is the memory above the idle process (the kernel's peak less the RSS
        before the timed pass), "sampled" a harness's own figure (the line's
        sampled_rss_kb: perfjs's largest RSS sampled less the RSS at its start)."""
        for vid in [num] + ([den] if den else []):
            why = self.why_missing(vid)
            if why:
                return {"missing": why}
        per_round = self.sampled if figure == "sampled" else self.mem
        if per_round is not None:
            rounds = set(per_round.get(num, {}))
            if den:
                rounds &= set(per_round.get(den, {}))
            diffs = [per_round[num][r] - (per_round[den][r] if den else 0) for r in sorted(rounds)]
            if diffs:
                m, lo, hi = stats.ratio_ci(diffs)
                return {"value": m, "low": lo, "high": hi, "rounds": len(diffs), "paired": True,
                        "key": ("memory", num, den) if figure == "kernel" else (figure, num, den),
                        "p": stats.sign_test_around(diffs, 0) if lo is not None else None}
        field = "sampled_rss_kb" if figure == "sampled" else "mem_above_idle_kb"
        vals = [self.rows[v].get(field) for v in [num] + ([den] if den else [])]
        if any(v is None for v in vals):
            if figure == "sampled":
                return {"missing": "no harness memory figure in this run (no sampled_rss_kb)"}
            return {"missing": "no memory above the idle process in this run (no idle_rss_kb)"}
        return {"value": vals[0] - (vals[1] if den else 0), "low": None, "high": None,
                "rounds": 0, "paired": False}


    def share(self, node, c):
        """The share of Node's gap node = [num, den] that the same styles keep in C
        (c = [num, den]), on a log scale: ln(C ratio) / ln(Node ratio) in percent,
        round by round over the rounds all four ran, as (median, low, high) with
        its order-statistic interval (low, high None with too few rounds), or
        None without paired samples."""
        if self.times is None:
            return None
        vids = list(node) + list(c)
        rounds = set.intersection(*(set(self.times.get(v, {})) for v in vids))
        shares = []
        for r in sorted(rounds):
            t = [self.times[v][r] for v in vids]
            if min(t) <= 0 or t[0] == t[1]:
                continue
            shares.append(100.0 * math.log(t[2] / t[3]) / math.log(t[0] / t[1]))
        return stats.ratio_ci(shares) if shares else None

    def q_of(self, r):
        """The q-value of a measured figure's test (registering the test in the
        family), or None: no test, or the family is still being gathered."""
        if r.get("p") is None:
            return None
        self.tests[r["key"]] = r["p"]
        return None if self.q is None else self.q.get(r["key"])

    def close_family(self):
        """Every verdict's test is registered: their q-values from now on."""
        keys = sorted(self.tests, key=repr)
        self.q = dict(zip(keys, stats.bh_adjust([self.tests[k] for k in keys])))
