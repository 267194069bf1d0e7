"""targets.py -- a run judged against the catalog's targets (upper bounds).

A workload's catalog file may list targets: a variant against another of the
same workload, bounded by a ratio (variant / against) or by a difference per
operation in ns (variant minus against), measured from the rounds both ran in
(stats.paired); or one variant's time outside its clock, bounded by a fixed
time plus a share of its timed time, measured process by process as the
margin to that bound (stats.median_ci; DESIGN section 6).  Each is judged by
stats.bound_verdict: met only when
the whole interval is within the bound, missed when the whole interval is
beyond it, otherwise not resolvable on this host, with the smallest
difference this run could resolve.  No target is ever called met because a
difference was not significant.
"""
from . import fmt
from . import stats
from . import summary as sm


def evaluate(samples, targets_by_workload):
    """[{id, workload, what, variant, against, bound, kind, value, low, high,
    verdict, resolution, rounds, missing}] for every target whose variants
    took part in the run (an outside-the-clock target has no against; its
    kind is outside_ms and it carries limit, (ms, share)); missing says why a target could not be
    measured (else None)."""
    processes, iterations = {}, {}
    for s in sm.per_process(samples):       # a process's value: its passes' median
        if s["status"] == "ok" and s["elapsed_ns"] is not None:
            processes.setdefault(s["variant"], {})[s["round"]] = s
            iterations[s["variant"]] = s["iterations"]
    times = {v: {r: s["elapsed_ns"] for r, s in rs.items()} for v, rs in processes.items()}
    ran = {s["workload"] for s in samples}
    present = {s["variant"] for s in samples}
    out = []
    for workload in sorted(ran):
        for t in targets_by_workload.get(workload) or []:
            if t["variant"] not in present or t.get("against", t["variant"]) not in present:
                continue            # not selected in this run (profile, filter, skipped)
            if "max_outside_ms" in t:
                out.append(_outside(t, workload, processes.get(t["variant"], {})))
                continue
            kind = "ratio" if "max_ratio" in t else "diff_per_op_ns"
            e = _entry(t, workload, kind, t.get("max_ratio", t.get("max_diff_per_op_ns")))
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


def _entry(t, workload, kind, bound):
    return {"id": t["id"], "workload": workload, "what": t["what"], "variant": t["variant"],
            "against": t.get("against"), "kind": kind, "bound": bound,
            "value": None, "low": None, "high": None, "rounds": 0,
            "verdict": stats.UNTESTED, "resolution": None, "missing": None}


def _outside(t, workload, processes):
    """An outside-the-clock target: per process, the time outside the clock
    (outside_ns: the wall time less every timed pass) less the bound,
    max_outside_ms plus max_outside_share of the process's timed time (its
    passes together); the value is the median margin in ms with its
    order-statistic interval, and the bound is 0 (at or under the bound)."""
    e = _entry(t, workload, "outside_ms", 0.0)
    e["limit"] = (t["max_outside_ms"], t["max_outside_share"])
    xs = []
    for s in processes.values():
        if s.get("outside_ns") is None or s.get("wall_ns") is None:
            continue
        timed_ms = (s["wall_ns"] - s["outside_ns"]) / 1e6
        limit_ms = t["max_outside_ms"] + t["max_outside_share"] * timed_ms
        xs.append(s["outside_ns"] / 1e6 - limit_ms)
    e["rounds"] = len(xs)
    if not xs:
        e["missing"] = "no valid run of %s with its time outside the clock" % t["variant"]
        return e
    e["value"] = stats.median(xs)
    ci = stats.median_ci(xs)
    if ci is None:
        e["missing"] = "%d rounds: too few for an interval (%d needed)" % (
            len(xs), stats.min_samples_for_ci())
        return e
    e["low"], e["high"] = ci[0], ci[1]
    e["verdict"], e["resolution"] = stats.bound_verdict(e["low"], e["high"], e["bound"])
    return e


def _fmt(kind, v):
    if kind == "ratio":
        return fmt.ratio(v)
    if kind == "outside_ms":
        return "%+.1f ms" % v
    return "%+.1f ns" % v


def _what(e):
    if e["kind"] == "outside_ms":
        return "%s (`%s`; measured: the time outside less the bound)" % (
            e["what"], e["variant"].split("/", 1)[1])
    return "%s (`%s` against `%s`)" % (e["what"], e["variant"].split("/", 1)[1],
                                       e["against"].split("/", 1)[1])


def _bound(e):
    if e["kind"] == "outside_ms":
        return "≤ %s ms + %d%% of timed" % (format(e["limit"][0], "g"),
                                           round(100 * e["limit"][1]))
    return "≤ " + _fmt(e["kind"], e["bound"]) + ("" if e["kind"] == "ratio" else " per op")


def _unit(e):
    return {"ratio": "%.2f", "outside_ms": "%.1f ms"}.get(e["kind"], "%.1f ns") % e["resolution"]


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
        what, bound = _what(e), _bound(e)
        if e["value"] is None:
            out.append("| %s | not measured | %s | %s |" % (what, bound, e["missing"]))
            continue
        measured = _fmt(e["kind"], e["value"])
        if e["low"] is not None:
            measured += " [%s, %s]" % (_fmt(e["kind"], e["low"]), _fmt(e["kind"], e["high"]))
        verdict = e["verdict"]
        if verdict == stats.UNRESOLVED:
            verdict += ": this run resolves about ±%s" % _unit(e)
        elif verdict == stats.UNTESTED:
            verdict = "untested: %s" % e["missing"]
        out.append("| %s | %s | %s | **%s** |" % (what, measured, bound, verdict))
    return out + [""]
