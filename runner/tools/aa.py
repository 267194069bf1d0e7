"""aa.py -- `make aa`: how often lockstep pairing finds a difference where there
is none (DESIGN section 7).

Each case pairs a variant with itself: two processes of the same program,
alternated pass by pass in lockstep (runner/measure/lockstep.py), several process
pairs a comparison, and the comparison's 95% interval from one figure a process
pair (stats.clustered).  Both sides are the same, so an interval that excludes
1 is a false positive; over many comparisons their share must be at most 5%.
The same passes are also judged as if every pair were its own sample (the
order-statistic interval over all the pairs, "pooled"): that is the mistake the
clustering avoids, and its share shows what it would cost on this host.

Usage: python3 -m runner.tools.aa [--case ID[:MS]]... [--comparisons M] [--sessions S]
                [--pairs P] [--noise] [--seed S] [--out DIR] [--host SLUG]
                [--catalog DIR] [--node PATH|none] [--check]

A case is a variant id and the pass time to aim at in ms (its pass's N is
chosen from one probe process: sessions.pass_n); a session runs --pairs rounds,
or as many as a run's lockstep session of the two would (lockstep.session_rounds);
the default cases are a C variant with a short pass and a long one, a Go and a
Node variant (CASES).
Writes OUT/<host>/aa-<UTC stamp>/aa.json and aa.md (the table), prints the
table.  The share's verdict is by its exact 95% interval (Clopper-Pearson), as
every target: within 5% only when the interval's top is at or under 5%, above
when its bottom is over, else not resolvable with this many comparisons.
--check (for the tests, where few comparisons fit) exits 1 only when the false
positives are more than a 5% rate gives with probability 0.001.
Exit codes: 0 done, 1 --check failed or a program failed, 2 usage,
3 environment.
"""
import argparse
import json
import math
import os
import random
import sys
import time

from ..catalog import catalog as catalog_mod
from ..measure import host as host_mod
from ..measure import launch
from ..measure import load as load_mod
from ..measure import lockstep
from ..measure import sessions
from ..measure import plan as plan_mod
from ..analysis import rundir as rd
from ..core import stats
from ..core.errors import EnvError, UsageError
from ..core.files import write_atomic

# The default cases: (variant id, pass ms): a C variant with a short pass and a
# long one, a Go one and a Node one.
CASES = [("readfile/c/callback-sequential@inline", 1.0),
         ("readfile/c/callback-sequential@inline", 20.0),
         ("cacheloop/go/sync-sequential@os.ReadFile", 2.0),
         ("readfile/node/callback-sequential@fs.readFile", 5.0)]
RATE_MAX = 0.05
CHECK_P = 0.001


def binom_tail(k, n, p):
    """P(X >= k) for X ~ Binomial(n, p)."""
    return sum(math.comb(n, i) * p ** i * (1 - p) ** (n - i) for i in range(k, n + 1))


def clopper_pearson(k, n, confidence=0.95):
    """The exact interval of a binomial share k/n (bisection on the tails)."""
    a = (1 - confidence) / 2

    def solve(f, want):
        lo, hi = 0.0, 1.0
        for _ in range(60):
            mid = (lo + hi) / 2
            if f(mid) < want:
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2
    low = 0.0 if k == 0 else solve(lambda p: binom_tail(k, n, p), a)
    high = 1.0 if k == n else solve(lambda p: binom_tail(k + 1, n, p), 1 - a)
    return low, high


def verdict(k, n):
    """(verdict, low, high) of k false positives in n comparisons against RATE_MAX."""
    low, high = clopper_pearson(k, n)
    v = stats.bound_verdict(low, high, RATE_MAX)[0]
    return v, low, high


def check_fails(k, n):
    """True when k false positives of n are beyond what a RATE_MAX rate gives
    with probability CHECK_P: the tests' check, which few comparisons can make."""
    return binom_tail(k, n, RATE_MAX) < CHECK_P


def pooled_excludes_one(clusters):
    """Whether the order-statistic interval over every pair's ratio, as if each
    were independent, excludes 1 (the mistake clustering avoids)."""
    ratios = [a / float(b) for cl in clusters for a, b, _ in cl.pairs if b]
    _, lo, hi = stats.ratio_ci(ratios)
    return lo is not None and (lo > 1 or hi < 1)


def run_case(cat, node, vid, ms, args, rng, launch_path, cpu, say):
    """One case's comparisons: its row for the table."""
    v = cat.find(vid)
    if v is None:
        raise UsageError("no variant %s in the catalog" % vid)
    w = v["workload"]
    profile = next((p for p in ["default"] + sorted(cat.suite["profiles"])
                    if cat.settings(w, p) is not None), None)
    if profile is None:
        raise UsageError("workload %s has no settings in any profile" % w)
    n = cat.settings(w, profile)["iterations"]
    probe = sessions.side(cat, v, node, n, min(n, 200), profile)
    per_op = sessions.probe_per_op_ns(probe, launch_path, cpu)
    pn = sessions.pass_n(per_op, max(n, 1000000), ms, keeps_n=v["mode"] == "parallel")
    sd = sessions.side(cat, v, node, n, pn, profile)
    # The rounds a session: --pairs, else as a run's lockstep phase gives a
    # group of these two (lockstep.session_rounds, the default profile's rule).
    rounds = args.pairs or lockstep.session_rounds(
        cat.suite["profiles"]["default"]["lockstep"], [per_op * pn / 1e6] * 2)
    fp = pooled_fp = 0
    halves, t0 = [], time.monotonic()
    for c in range(args.comparisons):
        clusters = []
        for _ in range(args.sessions):
            cl = sessions.session(sd, sd, rounds, rng, launch_path, cpu)
            if cl.failure:
                raise sessions.Failure(cl.failure)
            clusters.append(cl)
        r = stats.clustered([cl.figure() for cl in clusters])
        if r["ratio_ci_low"] is not None:
            fp += r["ratio_ci_low"] > 1 or r["ratio_ci_high"] < 1
            halves.append((r["ratio_ci_high"] - r["ratio_ci_low"]) / 2 / r["ratio"])
        pooled_fp += pooled_excludes_one(clusters)
        say("%s at %g ms: comparison %d of %d, %d false positive%s"
            % (vid, ms, c + 1, args.comparisons, fp, "" if fp == 1 else "s"))
    v_, low, high = verdict(fp, args.comparisons)
    return {"variant": vid, "pass_ms": ms, "pass_n": pn, "per_op_ns": per_op,
            "comparisons": args.comparisons, "sessions": args.sessions, "pairs": rounds,
            "false_positives": fp, "rate": fp / float(args.comparisons),
            "rate_ci_low": low, "rate_ci_high": high, "verdict": v_,
            "pooled_false_positives": pooled_fp,
            "median_half_width": stats.median(halves) if halves else None,
            "check_failed": check_fails(fp, args.comparisons),
            "seconds": round(time.monotonic() - t0, 1)}


def markdown(rows, meta):
    out = ["# A/A: a variant against itself in lockstep", "",
           "%s, %s comparisons a case of %s process pairs x %s; %s; seed %s." % (
               meta["host"], meta["comparisons"], meta["sessions"],
               "%s pairs of passes" % meta["pairs"] if meta["pairs"] else
               "the rounds a run's session of the two would have (the table's)",
               "with --noise (%s)" % meta["noise"] if meta["noise"] else "no added noise",
               meta["seed"]), "",
           "A false positive is a 95% interval that excludes 1.00x. `pooled` judges the same "
           "passes as if every pair were independent (the mistake the process-pair figures "
           "avoid).", "",
           "| variant | pass | false positives | share [95% CI] | vs 5% | pooled | median half-width |",
           "|---|---:|---:|---|---|---:|---:|"]
    for r in rows:
        out.append("| `%s` | %g ms (N = %d, %d rounds) | %d of %d | %.1f%% [%.1f, %.1f] | %s | %d of %d | %s |" % (
            r["variant"], r["pass_ms"], r["pass_n"], r["pairs"], r["false_positives"],
            r["comparisons"],
            100 * r["rate"], 100 * r["rate_ci_low"], 100 * r["rate_ci_high"],
            "within" if r["verdict"] == stats.MET else "above" if r["verdict"] == stats.MISSED
            else "not resolvable with %d comparisons" % r["comparisons"],
            r["pooled_false_positives"], r["comparisons"],
            "%.2f%%" % (100 * r["median_half_width"]) if r["median_half_width"] is not None
            else "-"))
    return "\n".join(out) + "\n"


def parse_case(text):
    vid, _, ms = text.partition(":")
    try:
        ms = float(ms) if ms else 5.0
    except ValueError:
        raise UsageError("--case %s: the pass time after ':' must be a number of ms" % text)
    if not (0 < ms <= 10000):
        raise UsageError("--case %s: the pass time must be from 0 to 10000 ms" % text)
    return vid, ms


def positive(text):
    try:
        x = int(text)
    except ValueError:
        x = 0
    if x < 1:
        raise argparse.ArgumentTypeError("must be a positive integer, got %r" % text)
    return x


def main(argv):
    ap = argparse.ArgumentParser(prog="python3 -m runner.tools.aa", description=__doc__.split("\n")[0])
    ap.add_argument("--case", action="append", default=[])
    ap.add_argument("--comparisons", type=positive, default=40)
    ap.add_argument("--sessions", type=positive, default=8)
    ap.add_argument("--pairs", type=positive)
    ap.add_argument("--noise", action="store_true")
    ap.add_argument("--seed", type=int)
    ap.add_argument("--out", default=os.path.join(catalog_mod.ROOT, "results"))
    ap.add_argument("--host")
    ap.add_argument("--catalog", default=catalog_mod.DIR)
    ap.add_argument("--node")
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args(argv)

    def say(s):
        print("aa: " + s, file=sys.stderr)
    try:
        cases = [parse_case(c) for c in args.case] or CASES
        cat = plan_mod.load_catalog(args.catalog)
        node = plan_mod.find_node(args.node)
        if node is None and any(c[0].split("/")[1].startswith("node") for c in cases):
            cases = [c for c in cases if not c[0].split("/")[1].startswith("node")]
            say("no node: the Node cases are left out")
        launch_path = launch.launcher()
        hinfo = host_mod.info(args.host)
        folder, stamp = rd.make_run_folder(os.path.abspath(args.out), hinfo["slug"], "aa-",
                                           charts=False)
    except UsageError as e:
        say(str(e))
        return 2
    except (EnvError, OSError) as e:
        say(str(e))
        return 3
    seed = args.seed if args.seed is not None else time.time_ns() % (2 ** 32)
    rng = random.Random(seed)
    cpu = launch.pin_rule()["program_cpu"]
    noise = load_mod.Load(cpu, seed).start() if args.noise else None
    rows = []
    try:
        for vid, ms in cases:
            rows.append(run_case(cat, node, vid, ms, args, rng, launch_path, cpu, say))
    except UsageError as e:
        say(str(e))
        return 2
    except sessions.Failure as e:
        say("a program failed: %s" % e)
        return 1
    finally:
        if noise:
            noise.stop()
    meta = {"host": hinfo["slug"], "stamp": stamp, "seed": seed,
            "comparisons": args.comparisons, "sessions": args.sessions, "pairs": args.pairs,
            "noise": load_mod.describe(cpu) if args.noise else None}
    md = markdown(rows, meta)
    write_atomic(os.path.join(folder, "aa.json"), json.dumps(dict(meta, cases=rows), indent=1) + "\n")
    write_atomic(os.path.join(folder, "aa.md"), md)
    write_atomic(os.path.join(folder, "host.json"), json.dumps(hinfo, indent=2) + "\n")
    print(md, end="")
    say("written to %s" % rd.shown(folder))
    if args.check and any(r["check_failed"] for r in rows):
        say("more false positives than a 5%% rate gives with probability %g" % CHECK_P)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
