"""targets.py -- a run judged against the catalog's targets (upper bounds).

A workload's catalog file may list targets: a variant against another of the
same workload, bounded by a ratio (variant / against) or by a difference per
operation in ns (variant minus against).  Each is measured from the rounds
both ran in (stats.paired) and judged by stats.bound_verdict: met only when
the whole interval is within the bound, missed when the whole interval is
beyond it, otherwise not resolvable on this host, with the smallest
difference this run could resolve.  No target is ever called met because a
difference was not significant.
"""
import stats
import summary as sm


def evaluate(samples, targets_by_workload):
    """[{id, workload, what, variant, against, bound, kind, value, low, high,
    verdict, resolution, rounds, missing}] for every target both of whose
    variants took part in the run; missing says why a target could not be
    measured (else None)."""
    times, iterations = {}, {}
    for s in sm.per_process(samples):       # a process's value: its passes' median
        if s["status"] == "ok" and s["elapsed_ns"] is not None:
            times.setdefault(s["variant"], {})[s["round"]] = s["elapsed_ns"]
            iterations[s["variant"]] = s["iterations"]
    ran = {s["workload"] for s in samples}
    present = {s["variant"] for s in samples}
    out = []
    for workload in sorted(ran):
        for t in targets_by_workload.get(workload) or []:
            if t["variant"] not in present or t["against"] not in present:
                continue            # not selected in this run (profile, filter, skipped)
            kind = "ratio" if "max_ratio" in t else "diff_per_op_ns"
            e = {"id": t["id"], "workload": workload, "what": t["what"], "variant": t["variant"],
                 "against": t["against"], "kind": kind,
                 "bound": t.get("max_ratio", t.get("max_diff_per_op_ns")),
                 "value": None, "low": None, "high": None, "rounds": 0,
                 "verdict": stats.UNTESTED, "resolution": None, "missing": None}
            gone = [v for v in (t["variant"], t["against"]) if not times.get(v)]
            if gone:
                e["missing"] = "no valid run of %s in this run" % " and ".join(gone)
                out.append(e)
                continue
            p = stats.paired(times[t["variant"]], times[t["against"]], iterations[t["variant"]])
            e["rounds"] = p["rounds"]
            key = "ratio" if kind == "ratio" else "diff_per_op_ns"
            e["value"], e["low"], e["high"] = p[key], p[key + "_ci_low"], p[key + "_ci_high"]
            e["verdict"], e["resolution"] = stats.bound_verdict(e["low"], e["high"], e["bound"])
            if e["verdict"] == stats.UNTESTED:
                e["missing"] = "%d paired rounds: too few for an interval (%d needed)" % (
                    p["rounds"], stats.min_samples_for_ci())
            out.append(e)
    return out


def _fmt(kind, v):
    return "%.2fx" % v if kind == "ratio" else "%+.1f ns" % v


def markdown(results):
    """The Targets section of REPORT.md (nothing when no target applies)."""
    if not results:
        return []
    out = ["## Targets", "",
           "Upper bounds from the catalog. *Met* only when the whole 95% interval is within "
           "the bound, *missed* when it is entirely beyond it, otherwise *not resolvable on "
           "this host*, with the smallest difference this run could resolve (half the "
           "interval's width).", "",
           "| target | measured | bound | verdict |", "|---|---|---|---|"]
    for e in results:
        what = "%s (`%s` against `%s`)" % (e["what"], e["variant"].split("/", 1)[1],
                                           e["against"].split("/", 1)[1])
        bound = "≤ " + _fmt(e["kind"], e["bound"]) + ("" if e["kind"] == "ratio" else " per op")
        if e["value"] is None:
            out.append("| %s | not measured | %s | %s |" % (what, bound, e["missing"]))
            continue
        measured = _fmt(e["kind"], e["value"])
        if e["low"] is not None:
            measured += " [%s, %s]" % (_fmt(e["kind"], e["low"]), _fmt(e["kind"], e["high"]))
        verdict = e["verdict"]
        if verdict == stats.UNRESOLVED:
            verdict += ": this run resolves about ±%s" % (
                "%.2f" % e["resolution"] if e["kind"] == "ratio" else "%.1f ns" % e["resolution"])
        elif verdict == stats.UNTESTED:
            verdict = "untested: %s" % e["missing"]
        out.append("| %s | %s | %s | **%s** |" % (what, measured, bound, verdict))
    return out + [""]
