"""targets.py -- a run judged against the catalog's targets (upper bounds).

A workload's catalog file may list targets: a variant against another of the
same workload, bounded by a ratio (variant / against) or by a difference per
operation in ns (variant minus against), measured from the rounds both ran in
(stats.paired), or by the ratio of their memory above the idle process per
operation (max_bytes_ratio: tasks' C against tokio, round by round); or a figure of one variant's own processes, measured process
by process with its order-statistic interval (stats.median_ci; DESIGN
section 6): its time outside its clock, as the margin to a fixed time plus a
share of its timed time (max_outside_ms, max_outside_share), its time per
operation (max_ns_per_op; ops_per_iteration operations to an iteration, as
asyncfib's 276 calls a repetition), or its memory above the idle process per
operation (max_bytes_per_op).  A target with at_iterations is judged only
where its variant ran at that N (tasks' bytes at N = 1,000,000: the full
profile).  Each is judged by stats.bound_verdict: met only when
the whole interval is within the bound, missed when the whole interval is
beyond it, otherwise not resolvable on this host, with the smallest
difference this run could resolve.  No target is ever called met because a
difference was not significant.
"""
from ..core import fmt
from ..core import stats
from . import summary as sm


# A target's bound key and the kind of figure it bounds: a pair's, from the
# rounds both variants ran in, or the variant's own, process by process.
PAIR_BOUNDS = {"max_ratio": "ratio", "max_diff_per_op_ns": "diff_per_op_ns",
               "max_bytes_ratio": "bytes_ratio"}
OWN_BOUNDS = {"max_outside_ms": "outside_ms", "max_ns_per_op": "ns_per_op",
              "max_bytes_per_op": "bytes_per_op"}


def question(t):
    """A catalog target as what is measured: {kind, bound, ops, at_iterations,
    limit}; an outside-the-clock target's figure is the margin to its limit
    (ms, share), so its bound is 0."""
    for key, kind in list(PAIR_BOUNDS.items()) + list(OWN_BOUNDS.items()):
        if key in t:
            break
    q = {"kind": kind, "bound": float(t[key]), "ops": t.get("ops_per_iteration", 1),
         "at_iterations": t.get("at_iterations")}
    if kind == "outside_ms":
        q.update(bound=0.0, limit=(t["max_outside_ms"], t["max_outside_share"]))
    return q


def own(kind):
    """True for a figure of the variant's own processes (no against)."""
    return kind in OWN_BOUNDS.values()


def applies(q, iterations):
    """False for a target of another N than the variant's (at_iterations)."""
    return q.get("at_iterations") is None or iterations == q["at_iterations"]


def process_figure(q, p):
    """A process's figure for an own-figure target (question()), None when the
    process lacks what it needs: its time outside the clock less the bound in
    ms, its ns per operation, or its bytes above the idle process per
    operation."""
    n = p.get("iterations")
    if not n or not applies(q, n):
        return None
    if q["kind"] == "outside_ms":
        if p.get("outside_ns") is None or p.get("wall_ns") is None:
            return None
        timed_ms = (p["wall_ns"] - p["outside_ns"]) / 1e6
        return p["outside_ns"] / 1e6 - (q["limit"][0] + q["limit"][1] * timed_ms)
    if q["kind"] == "ns_per_op":
        return p["elapsed_ns"] / float(n * q["ops"]) if p.get("elapsed_ns") else None
    return bytes_per_op(p, q["ops"])


def bytes_per_op(p, ops=1):
    """A process's memory above its idle figure per operation, None without
    those figures."""
    n = p.get("iterations")
    if not n or p.get("proc_peak_rss_kb") is None or p.get("idle_rss_kb") is None:
        return None
    return (p["proc_peak_rss_kb"] - p["idle_rss_kb"]) * 1024.0 / (n * ops)


def memory_by_round(rounds):
    """{round: bytes per operation} of a variant's processes ({round: process}),
    the rounds where it is positive: what a bytes_ratio pairs."""
    out = {}
    for r, p in rounds.items():
        b = bytes_per_op(p)
        if b is not None and b > 0:
            out[r] = b
    return out


def evaluate(samples, targets_by_workload, sessions=None):
    """[{id, workload, what, variant, against, bound, kind, value, low, high,
    verdict, resolution, rounds, missing}] for every target whose variants
    took part in the run at its N (a target of the variant's own figure has
    no against; an outside-the-clock one carries limit, (ms, share)); missing
    says why a target could not be measured (else None).  A ratio or a
    difference whose two variants ran in lockstep is judged on their sessions
    (sessions: pairs.figures; stats.clustered), "pairing" says which."""
    processes, iterations = {}, {}
    for s in sm.per_process(samples):       # a process's value: its passes' median
        if s["status"] == "ok" and s["elapsed_ns"] is not None:
            processes.setdefault(s["variant"], {})[s["round"]] = s
    for s in samples:
        iterations.setdefault(s["variant"], s["iterations"])
    times = {v: {r: s["elapsed_ns"] for r, s in rs.items()} for v, rs in processes.items()}
    ran = {s["workload"] for s in samples}
    out = []
    for workload in sorted(ran):
        for t in targets_by_workload.get(workload) or []:
            if t["variant"] not in iterations or t.get("against", t["variant"]) not in iterations:
                continue            # not selected in this run (profile, filter, skipped)
            q = question(t)
            if not applies(q, iterations[t["variant"]]):
                continue            # judged at another N (another profile)
            if own(q["kind"]):
                out.append(_own(t, q, workload, processes.get(t["variant"], {})))
                continue
            e = _entry(t, workload, q["kind"], q["bound"])
            if q["kind"] == "bytes_ratio":
                out.append(_bytes_ratio(e, t, processes))
                continue
            locked = [(f[0], f[1]) for f in (sessions or {}).get((t["variant"], t["against"]), [])]
            gone = [v for v in (t["variant"], t["against"]) if not times.get(v)]
            if gone and not locked:
                e["missing"] = "no valid run of %s in this run" % " and ".join(gone)
                out.append(e)
                continue
            if locked:
                p = stats.clustered(locked)
            else:
                p = stats.paired(times[t["variant"]], times[t["against"]], iterations[t["variant"]])
            e["rounds"] = p["rounds"]
            e["pairing"] = "lockstep" if locked else "rounds"
            key = q["kind"]
            e["value"], e["low"], e["high"] = p[key], p[key + "_ci_low"], p[key + "_ci_high"]
            e["verdict"], e["resolution"] = stats.bound_verdict(e["low"], e["high"], e["bound"])
            if e["verdict"] == stats.UNTESTED:
                e["missing"] = "%d paired %s: too few for an interval (%d needed)" % (
                    p["rounds"], "lockstep sessions" if locked else "rounds",
                    stats.MIN_SESSIONS if locked else stats.min_samples_for_ci())
            out.append(e)
    return out


def _bytes_ratio(e, t, processes):
    """A pair's memory above idle per operation, variant over against, paired
    by round (never by lockstep: a lockstep pass has no peak of its own)."""
    mine, other = (memory_by_round(processes.get(v, {})) for v in (t["variant"], t["against"]))
    gone = [v for v, m in ((t["variant"], mine), (t["against"], other)) if not m]
    if gone:
        e["missing"] = "no valid run of %s with its peak and idle memory" % " and ".join(gone)
        return e
    p = stats.paired(mine, other, 1)
    e["rounds"], e["pairing"] = p["rounds"], "rounds"
    e["value"], e["low"], e["high"] = p["ratio"], p["ratio_ci_low"], p["ratio_ci_high"]
    e["verdict"], e["resolution"] = stats.bound_verdict(e["low"], e["high"], e["bound"])
    if e["verdict"] == stats.UNTESTED:
        e["missing"] = "%d paired rounds: too few for an interval (%d needed)" % (
            p["rounds"], stats.min_samples_for_ci())
    return e


def _entry(t, workload, kind, bound):
    return {"id": t["id"], "workload": workload, "what": t["what"], "variant": t["variant"],
            "against": t.get("against"), "kind": kind, "bound": bound,
            "value": None, "low": None, "high": None, "rounds": 0,
            "verdict": stats.UNTESTED, "resolution": None, "missing": None}


_NEEDS = {"outside_ms": "its time outside the clock", "ns_per_op": "its time",
          "bytes_per_op": "its peak and idle memory"}


def _own(t, q, workload, processes):
    """A target of the variant's own figure (process_figure): the median over
    its processes with the order-statistic interval."""
    e = _entry(t, workload, q["kind"], q["bound"])
    if q["kind"] == "outside_ms":
        e["limit"] = q["limit"]
    xs = [x for x in (process_figure(q, p) for p in processes.values()) if x is not None]
    e["rounds"] = len(xs)
    if not xs:
        e["missing"] = "no valid run of %s with %s" % (t["variant"], _NEEDS[q["kind"]])
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


def fmt_figure(kind, v):
    """A target's figure or bound in its kind's unit: "0.50x", "15.0 ns", "96 B"."""
    if kind in ("ratio", "bytes_ratio"):
        return fmt.ratio(v)
    if kind == "outside_ms":
        return "%+.1f ms" % v
    if kind == "ns_per_op":
        return "%.1f ns" % v
    if kind == "bytes_per_op":
        return "%.0f B" % v
    return "%+.1f ns" % v


def _what(e):
    mine = e["variant"].split("/", 1)[1]
    if e["kind"] == "outside_ms":
        return "%s (`%s`; measured: the time outside less the bound)" % (e["what"], mine)
    if own(e["kind"]):
        return "%s (`%s`)" % (e["what"], mine)
    return "%s (`%s` against `%s`)" % (e["what"], mine, e["against"].split("/", 1)[1])


def _bound(e):
    if e["kind"] == "outside_ms":
        return "≤ %s ms + %d%% of timed" % (format(e["limit"][0], "g"),
                                           round(100 * e["limit"][1]))
    return "≤ " + fmt_figure(e["kind"], e["bound"]) + (
        " in memory per op" if e["kind"] == "bytes_ratio" else "" if e["kind"] == "ratio" else " per op")


def _unit(e):
    return {"ratio": "%.2f", "bytes_ratio": "%.2f", "outside_ms": "%.1f ms", "bytes_per_op": "%.0f B"}.get(
        e["kind"], "%.1f ns") % e["resolution"]


def verdict_text(verdict, resolves, missing):
    """A verdict's words in a Targets table: "not resolvable on this host: this
    run resolves about ±<resolves>", "untested: <missing>", else the verdict."""
    if verdict == stats.UNRESOLVED:
        return verdict + ": this run resolves about ±%s" % resolves
    if verdict == stats.UNTESTED:
        return "untested: %s" % missing
    return verdict


def markdown(results):
    """The Targets section of REPORT.md (nothing when no target applies)."""
    if not results:
        return []
    out = ["## Targets", "",
           "Upper bounds from the catalog. *Met* only when the whole 95% interval is within "
           "the bound, *missed* when it is entirely beyond it. "
           "Otherwise it is *not resolvable on this host*, with the smallest difference this "
           "run could resolve (half the interval's width).", "",
           "| target | measured | bound | verdict |", "|---|---|---|---|"]
    for e in results:
        what, bound = _what(e), _bound(e)
        if e["value"] is None:
            out.append("| %s | not measured | %s | %s |" % (what, bound, e["missing"]))
            continue
        measured = fmt_figure(e["kind"], e["value"])
        if e["low"] is not None:
            measured += " [%s, %s]" % (fmt_figure(e["kind"], e["low"]), fmt_figure(e["kind"], e["high"]))
        verdict = verdict_text(e["verdict"], _unit(e) if e["resolution"] is not None else None,
                               e["missing"])
        out.append("| %s | %s | %s | **%s** |" % (what, measured, bound, verdict))
    return out + [""]
