"""ladder.py -- each seed claim's ladder: the seed's published figure to the
suite's own, one change at a time, every rung measured (DESIGN section 7).

A claim's rungs (the catalog's claims.ladder, checked by ladder_check.check_ladder):

  1. the seed's published figure, on the seed's host and runtime (the
     claims' host; a figure with no interval);
  2. the seed's shape (the ladder's "shape" variants: the seed's own program
     and measurement) on the seed's runtime, the version claims.runtimes pins
     for it, on this host;
  3. the same on this host's runtime;
  4. the suite's program in the seed's measurement (the ladder's "method"
     variants);
  5. the suite's in-process method at the seed's N and warm-up (the claim's
     own variants in a run of the seed profile);
  6. the suite's default (the claim's own variants in a run of the default
     profile).

Rungs 2 to 5 come from one run of the seed profile, which runs rung 2's
versioned variants beside the others (ladder_check.add_variants), so a
step between two of them is round-paired: the ratio of the two rungs' figures
round by round, its median and 95% CI (stats.ratio_ci through
claimrun.Run.ratio).  Rung 6 comes from a run of the default profile on the
same host: the step to it pairs nothing, and its interval is the two
intervals' bounds divided (the widest the two allow).  The step from rung 1
to 2 is the host and whatever the seed did not publish; it is not attributed
to any cause.  A rung that is not measured (the ladder gives a reason, or the
run has no valid sample of a variant) is one line saying why, and the step
across it names every change it spans.

Each step's factor is the rung's figure over the next measured rung's (so
the factors multiply to the whole gap), with the step's own interval: the
rounds' paired ratios between two rungs of one run; where the two rungs'
medians fall outside it, the step says so.  The product is checked against
the whole gap, rung 1 (or the first measured) over the last measured rung,
and its interval.  For an absolute claim the
figures are times in ms of the N each run gave, so the last step includes
the change of N.  Memory claims have no ladder: a difference of KB does not
split into factors.

Usage: python3 -m runner.analysis.ladder SEED_RUNDIR [DEFAULT_RUNDIR]   prints the ladders.
       python3 -m runner.analysis.ladder --pins [LANG]    the pinned runtimes rung 2 runs on
                                                 (what `make compare PROFILE=seed` installs)
"""
import math
import os
import sys

from ..catalog import catalog as catalog_mod
from . import claimrun
from ..core import fmt
from . import runfolder
from ..core.errors import EnvError

RUNGS = {1: "the seed's published figure",
         2: "the seed's shape on the seed's runtime, this host",
         3: "the seed's shape on this host's runtime",
         4: "the suite's program in the seed's measurement",
         5: "the suite's in-process method at the seed's N and warm-up",
         6: "the suite's default"}
# The step that leaves each rung: the ladder's steps.<key>, the first the host.
STEP_KEY = {1: "host", 2: "runtime", 3: "program", 4: "method", 5: "n"}
HOST_STEP = "the host and whatever the seed did not publish (attributed to no cause)"
SHORT = {"host": "the host and what the seed did not publish", "runtime": "the runtime",
         "program": "the program", "method": "the measurement", "n": "N and warm-up"}
WORD = {"host": "host", "runtime": "runtime", "program": "program", "method": "measurement",
        "n": "N"}


def _kind(claims, cid):
    if any(c["id"] == cid for c in claims.get("ratios") or []):
        return "ratio"
    return "absolute"


def claim_of(claims, cid):
    for c in (claims.get("ratios") or []) + (claims.get("absolute") or []):
        if c["id"] == cid:
            return c
    return None


def pinned(cat, claims, ids):
    """(ids on the seed's runtime, None) or (None, why not): every variant of
    a versioned language on the version claims.runtimes pins for it."""
    pins = {k: v for k, v in (claims.get("runtimes") or {}).items() if k != "about"}
    versioned = set((cat.suite.get("runtimes") or {})) - {"about"}
    out = []
    for vid in ids:
        v = cat.find(vid)
        if v is None:
            return None, "`%s` is not in the run's catalog" % vid
        if v["lang"] in versioned:
            if v["lang"] not in pins:
                return None, "no pinned %s stands for the seed's: %s" % (
                    {"node": "Node", "go": "Go"}.get(v["lang"], v["lang"]),
                    (claims.get("runtimes") or {}).get("about") or "the claims pin none")
            vid = catalog_mod.variant_id(dict(v, runtime=pins[v["lang"]]))
        out.append(vid)
    return out, None


def specs(cat, claims, cid):
    """The six rungs of claim cid: [{"rung", "what", and either "published"
    (the seed's figure), or "run" ("seed" or "default") and "ids" (num, den
    for a ratio; the variant for an absolute claim), or "why"}]."""
    lad = claims["ladder"]
    spec = lad["rungs"][cid]
    c = claim_of(claims, cid)
    kind = _kind(claims, cid)
    own = [c["num"], c["den"]] if kind == "ratio" else [c["variant"]]
    published = c.get("seed") if kind == "ratio" else c.get("seed_ms")
    out = [{"rung": 1, "what": RUNGS[1], "published": published} if published is not None
           else {"rung": 1, "what": RUNGS[1],
                 "why": "the seed published no figure, only which side is faster"}]
    shape = spec["shape"]
    if isinstance(shape, str):
        out.append({"rung": 2, "what": RUNGS[2], "why": shape})
        out.append({"rung": 3, "what": RUNGS[3], "why": shape})
    else:
        ids, why = pinned(cat, claims, shape)
        out.append({"rung": 2, "what": RUNGS[2], "why": why} if why
                   else {"rung": 2, "what": RUNGS[2], "run": "seed", "ids": ids})
        out.append({"rung": 3, "what": RUNGS[3], "run": "seed", "ids": list(shape)})
    m = spec["method"]
    out.append({"rung": 4, "what": RUNGS[4], "why": m} if isinstance(m, str)
               else {"rung": 4, "what": RUNGS[4], "run": "seed", "ids": list(m)})
    out.append({"rung": 5, "what": RUNGS[5], "run": "seed", "ids": own})
    out.append({"rung": 6, "what": RUNGS[6], "run": "default", "ids": own})
    return out


def figure(run, kind, ids):
    """A rung's figure from run (a claimrun.Run): a ratio (Run.ratio), or for
    an absolute claim a time in ms; {"missing": why} when it has none."""
    if kind == "ratio":
        return run.ratio([ids[0]], [ids[1]])
    r = run.ratio([ids[0]], [])
    if "missing" in r or not r.get("paired"):
        return r            # of the summary's median: ms already
    scale = 1e-6            # round-paired elapsed_ns to ms
    return dict(r, value=r["value"] * scale,
                low=None if r["low"] is None else r["low"] * scale,
                high=None if r["high"] is None else r["high"] * scale)


def step(a, b, runs, kind):
    """The factor from rung a to rung b (both measured): rung a's figure over
    b's, {"value", "low", "high", "how"}."""
    fa, fb = a["figure"], b["figure"]
    if "published" in a:
        v = a["published"]
        lo = v / fb["high"] if fb["high"] else None
        hi = v / fb["low"] if fb["low"] else None
        return {"value": v / fb["value"], "low": lo, "high": hi,
                "how": "the published figure over the measured one's interval"}
    if a["run"] == b["run"]:
        ia, ib = a["ids"], b["ids"]
        num, den = (([ia[0], ib[1]], [ia[1], ib[0]]) if kind == "ratio"
                    else ([ia[0]], [ib[0]]))
        r = runs[a["run"]].ratio(num, den)
        if "missing" not in r and r.get("paired"):
            # The factor is the rungs' figures divided, so that the factors
            # multiply to the gap; its interval is the step's own, of the
            # rungs' ratio round by round.
            v = fa["value"] / fb["value"]
            apart = (r["low"] is not None and not r["low"] <= v <= r["high"])
            return {"value": v, "low": r["low"], "high": r["high"],
                    "how": "interval round-paired, %d rounds%s" % (
                        r["rounds"], "; the rungs' medians fall outside it (median of the "
                        "rounds' ratios %.2fx)" % r["value"] if apart else "")}
    both = fa["low"] is not None and fb["low"] is not None and fb["low"] > 0
    return {"value": fa["value"] / fb["value"],
            "low": fa["low"] / fb["high"] if both else None,
            "high": fa["high"] / fb["low"] if both else None,
            "how": "not paired: %s" % ("two runs, the intervals' bounds divided"
                                       if a["run"] != b["run"] else "no round had both")}


def changed(lad, a, b):
    """What changes from rung a to rung b, the steps between them in order."""
    parts = [HOST_STEP if STEP_KEY[k] == "host" else lad["steps"][STEP_KEY[k]]
             for k in range(a, b)]
    if len(parts) == 1:
        return parts[0]
    return "across rung%s %s, not measured: %s" % (
        "s" if b - a > 2 else "", "-".join(str(k) for k in sorted({a + 1, b - 1})),
        "; ".join(parts))


def build(cat, claims, cid, runs):
    """The ladder of claim cid: {"claim", "kind", "rungs": [rung with its
    "figure" or "why"], "steps": [{"from", "to", "what", "keys", "value",
    "low", "high", "how"}], "gap", "product", "exact", "within", "most"}.  runs:
    {"seed": claimrun.Run or None, "default": claimrun.Run or None, and
    "why_seed", "why_default": why a run is not there}."""
    kind = _kind(claims, cid)
    rungs = []
    for r in specs(cat, claims, cid):
        r = dict(r)
        if "run" in r:
            run = runs.get(r["run"])
            if run is None:
                r["why"] = runs.get("why_" + r["run"]) or "no %s run given" % r["run"]
            else:
                f = figure(run, kind, r["ids"])
                if "missing" in f:
                    r["why"] = f["missing"]
                else:
                    r["figure"] = f
        elif "published" in r:
            r["figure"] = {"value": r["published"], "low": None, "high": None}
        rungs.append(r)
    measured = [r for r in rungs if "figure" in r]
    steps = []
    for a, b in zip(measured, measured[1:]):
        s = step(a, b, runs, kind)
        s.update({"from": a["rung"], "to": b["rung"], "what": changed(claims["ladder"], a["rung"], b["rung"]),
                  "keys": [STEP_KEY[k] for k in range(a["rung"], b["rung"])]})
        steps.append(s)
    out = {"claim": claim_of(claims, cid), "kind": kind, "rungs": rungs, "steps": steps,
           "gap": None, "product": None, "exact": None, "within": None, "most": None}
    if len(measured) >= 2:
        first, last = measured[0], measured[-1]
        fa, fb = first["figure"], last["figure"]
        gap = {"from": first["rung"], "to": last["rung"], "value": fa["value"] / fb["value"],
               "low": None, "high": None}
        if fb["low"] and fb["high"]:
            if "published" in first:
                gap["low"], gap["high"] = fa["value"] / fb["high"], fa["value"] / fb["low"]
            elif fa["low"] is not None:
                gap["low"], gap["high"] = fa["low"] / fb["high"], fa["high"] / fb["low"]
        out["gap"] = gap
        out["product"] = math.prod(s["value"] for s in steps)
        # The factors telescope: their product is the gap's figure unless a
        # step is missing or miscounted, which this check catches.
        out["exact"] = abs(out["product"] / gap["value"] - 1) < 1e-9
        if gap["low"] is not None:
            out["within"] = out["exact"] and gap["low"] <= out["product"] <= gap["high"]
        out["most"] = max(steps, key=lambda s: abs(math.log(s["value"])))
    return out


def _x(v, kind):
    return fmt.ms(v) if kind == "absolute" else "%.2fx" % v


def fig_cell(r, kind):
    if "figure" not in r:
        return "not measured: %s" % r["why"]
    f = r["figure"]
    if "published" in r:
        return "%s (published, no interval)" % (fmt.ms(f["value"]) if kind == "absolute"
                                                else fmt.seed_ratio(f["value"]))
    if f["low"] is None:
        return "%s (no CI)" % _x(f["value"], kind)
    if kind == "absolute":
        return "%s [%s, %s]" % (fmt.ms(f["value"]), fmt.num(f["low"]), fmt.num(f["high"]))
    return "%.2fx [%.2f, %.2f]" % (f["value"], f["low"], f["high"])


def factor_text(s):
    if s["low"] is None:
        return "%.2fx (no CI; %s)" % (s["value"], s["how"])
    return "%.2fx [%.2f, %.2f] (%s)" % (s["value"], s["low"], s["high"], s["how"])


def where(r, claims):
    """How a rung was measured, in words."""
    if r["rung"] == 1:
        return claims["host"]
    if "ids" in r:
        return " / ".join("`%s`" % v for v in r["ids"])
    return ""


def table(lad, claims):
    """The Markdown lines of one claim's ladder."""
    c, kind = lad["claim"], lad["kind"]
    out = ["| rung | figure [95% CI] | measured as | step to the next measured rung: what "
           "changed | factor [95% CI] |", "|---|---|---|---|---|"]
    by_from = {s["from"]: s for s in lad["steps"]}
    for r in lad["rungs"]:
        s = by_from.get(r["rung"])
        out.append("| %d. %s | %s | %s | %s | %s |" % (
            r["rung"], r["what"], fig_cell(r, kind), where(r, claims),
            ("to rung %d: %s" % (s["to"], s["what"])) if s else "",
            factor_text(s) if s else ""))
    return out


def summary_line(lad):
    """The product check and the step that moved the figure most, in words."""
    g = lad["gap"]
    if g is None:
        return "Fewer than two rungs are measured: no step to give."
    gap = "%.2fx" % g["value"] + (" [%.2f, %.2f]" % (g["low"], g["high"])
                                  if g["low"] is not None else " (no interval)")
    check = ("inside its interval" if lad["within"] else
             "**they do not make the gap**" if lad["within"] is False
             else "no interval to check it against")
    m = lad["most"]
    return ("The factors multiply to %.2fx; the whole gap, rung %d over rung %d, is %s: %s. "
            "The step that moved the figure most is rung %d to %d, a factor of %.2fx. "
            "It changed %s."
            % (lad["product"], g["from"], g["to"], gap, check, m["from"], m["to"], m["value"],
               _and([SHORT[k] for k in m["keys"]])))


def _and(items):
    """'a', 'a and b', 'a, b and c'."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def runs_for(seed_folder, default_folder=None):
    """{"seed": Run, "default": Run or None, "why_default": ...} of two run
    folders (runfolder.RunFolder or paths); the seed run's catalog is the
    ladders' (EnvError when a folder does not read)."""
    seed_folder = runfolder.of(seed_folder)
    cat, older = seed_folder.catalog(), None
    if not any((w.get("claims") or {}).get("ladder") for w in cat.workloads.values()):
        # A run from before the ladders: today's catalog defines its rungs,
        # and a rung the run has no variant of says so.
        cat, older = catalog_mod.load(), seed_folder.run.get("stamp") or os.path.basename(seed_folder.path)
    runs = {"catalog": cat, "seed": claimrun.Run(seed_folder.summary, seed_folder, cat),
            "default": None, "why_default": "no run of the default profile was given",
            "older": older}
    if seed_folder.run.get("profile") != catalog_mod.SEED_PROFILE:
        runs["seed"] = None
        runs["why_seed"] = "the run is of the %s profile, not the seed profile" % (
            seed_folder.run.get("profile") or "unknown")
    default_folder = runfolder.of(default_folder)
    if default_folder is not None:
        if default_folder.host.get("slug") != seed_folder.host.get("slug"):
            runs["why_default"] = ("the default-profile run is of another host (%s, the seed "
                                   "run's %s)" % (default_folder.host.get("slug"),
                                                  seed_folder.host.get("slug")))
        elif default_folder.run.get("profile") != "default":
            runs["why_default"] = "the run given for rung 6 is of the %s profile" % (
                default_folder.run.get("profile"))
        else:
            runs["default"] = claimrun.Run(default_folder.summary, default_folder,
                                           default_folder.catalog())
            runs["default_stamp"] = os.path.basename(default_folder.path)
    return runs


def default_beside(seed_folder):
    """The newest complete default-profile run beside the seed run (the same
    host folder) with a summary, or None."""
    seed_folder = runfolder.of(seed_folder)
    parent = os.path.dirname(seed_folder.path)
    try:
        names = sorted(os.listdir(parent), reverse=True)
    except OSError:
        return None
    for n in names:
        path = os.path.join(parent, n)
        if path == seed_folder.path or not os.path.isfile(os.path.join(path, "summary.json")):
            continue
        try:
            f = runfolder.RunFolder(path)
            if f.run.get("profile") == "default" and f.run.get("complete") is not False:
                return f
        except (EnvError, catalog_mod.CatalogError):
            continue
    return None


def ladders(runs):
    """[(workload, claims, [ladder])] of every workload whose claims have a ladder."""
    cat = runs["catalog"]
    out = []
    for name in sorted(cat.workloads):
        claims = cat.workloads[name].get("claims") or {}
        if not claims.get("ladder"):
            continue
        seed = runs.get("seed")
        if seed is not None and not any(r.get("workload") == name for r in seed.rows.values()):
            continue        # a filtered seed run without this workload
        ids = [c["id"] for c in (claims.get("ratios") or []) + (claims.get("absolute") or [])]
        out.append((name, claims, [build(cat, claims, cid, runs) for cid in ids]))
    return sorted(out, key=lambda x: str(x[1].get("seed")))


def markdown(runs, level=2):
    """The ladders' section: one table per claim, [] without ladders."""
    found = ladders(runs)
    if not found:
        return []
    h = "#" * level
    rung6 = ("the default-profile run %s" % runs["default_stamp"] if runs.get("default")
             else "not measured here: %s" % runs["why_default"])
    out = ["%s Each claim's ladder: the seed's figure to the suite's, one change at a time" % h, "",
           "Each rung is a figure of one claim measured one way:", "",
           "1. The seed's published figure.",
           "2. The seed's shape (its program and measurement) on its runtime, on this host.",
           "3. The same on this host's runtime.",
           "4. The suite's program in the seed's measurement.",
           "5. The suite's in-process method at the seed's N and warm-up.",
           "6. The suite's default (%s)." % rung6, "",
           "Rungs 2 to 5 come from this seed-profile run. A step between two of them is the two "
           "rungs' figures divided. Its 95%% CI is that of their ratio, paired round by round. "
           "The step to rung 6 pairs nothing. Each factor is a rung's figure over the next "
           "measured one's, and names what changed. The first step is the host and whatever "
           "the seed did not publish, attributed to no cause. A rung not measured says why, and "
           "the step across it spans its changes. Memory claims have no ladder (a difference "
           "of KB does not split into factors).%s" % (
               " The seed run %s is older than the ladders. Today's catalog defines "
               "its rungs, and a rung of a variant it did not run says so." % runs["older"]
               if runs.get("older") else ""), ""]
    for name, claims, lads in found:
        out += ["%s# Seed %s (%s)" % (h, claims["seed"], name), "", claims["ladder"]["about"], ""]
        for i, lad in enumerate(lads, 1):
            c = lad["claim"]
            out += ["**%s, %s**: %s (`%s`)" % (c["whose"], c["id"], c["claim"], c["id"]), ""]
            out += table(lad, claims)
            out += ["", summary_line(lad), ""]
    return out


def most_moved(runs):
    """[(seed, sentence)]: for each seed, the step that moved its headline
    claim's figure most (its first claim with a published figure and a step)."""
    out = []
    for name, claims, lads in ladders(runs):
        for lad in lads:
            if lad["most"] is None or lad["rungs"][0].get("figure") is None:
                continue
            m, c = lad["most"], lad["claim"]
            published = lad["rungs"][0]["figure"]["value"]
            last = next(r for r in reversed(lad["rungs"]) if "figure" in r)
            out.append((claims["seed"], "Seed %s, `%s`: %s published, %s at rung %d; the "
                        "largest step, %.2fx, is rung %d to %d (%s)." % (
                            claims["seed"], c["id"],
                            fig_cell(lad["rungs"][0], lad["kind"]).split(" (")[0],
                            fig_cell(last, lad["kind"]).split(" [")[0], last["rung"],
                            m["value"], m["from"], m["to"],
                            ", ".join(WORD[k] for k in m["keys"]))))
            break
        else:
            out.append((claims["seed"], "Seed %s: no claim has a published figure and a measured "
                        "rung in these runs." % claims["seed"]))
    return out


def report_section(folder):
    """REPORT.md's ladders of a seed-profile run (folder: a runfolder.RunFolder),
    rung 6 from the newest default-profile run beside it; [] for another
    profile's run.  A ladder that cannot be drawn is one line, not a traceback."""
    try:
        if folder.run.get("profile") != catalog_mod.SEED_PROFILE:
            return []
        return markdown(runs_for(folder, default_beside(folder)))
    except (EnvError, catalog_mod.CatalogError) as e:
        return ["## Each claim's ladder", "", "Not drawn: %s" % e, ""]
    except Exception as e:  # a broken ladder must not lose the report
        return ["## Each claim's ladder", "", "runner/analysis/ladder.py failed: %s: %s"
                % (type(e).__name__, e), ""]


def seed_pins(cat, lang=None):
    """["node@20.8.0", ...] (or ["20.8.0", ...] of lang alone): the pinned
    versions the seed profile's rung-2 variants run on, those of a version
    that lacks what every one of its variants needs left out (Node 8: the
    wrapper is an ES module), for `make compare PROFILE=seed` to install."""
    from ..catalog import catalog_check
    out = []
    for v in cat.select(catalog_mod.SEED_PROFILE):
        if not v.get("runtime") or (lang and v["lang"] != lang):
            continue
        if catalog_check.runtime_unmet(cat.suite, v, v["runtime"]):
            continue
        spec = v["runtime"] if lang else "%s@%s" % (v["lang"], v["runtime"])
        if spec not in out:
            out.append(spec)
    return sorted(out)


def main(args):
    if args[:1] == ["--pins"] and len(args) <= 2:
        print(" ".join(seed_pins(catalog_mod.load(), args[1] if len(args) > 1 else None)))
        return 0
    if len(args) not in (1, 2) or args[0] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        runs = runs_for(args[0], args[1] if len(args) > 1 else None)
        print("\n".join(markdown(runs)))
    except (EnvError, catalog_mod.CatalogError) as e:
        print("ladder.py: %s" % e, file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
