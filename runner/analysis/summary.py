"""summary.py -- from samples.csv rows to the per-variant summary (summary.json,
summary.csv).

Times are the programs' own elapsed_ns (the timed section, start-up excluded);
CPU and memory are the runner's wait4 rusage of the whole process.  Only samples
with status ok count; the others are counted per status and warned about.
Reading and checking samples.csv is runner/catalog/samples.py; the tables of the
summary (terminal, REPORT.md, results.md) are runner/analysis/tables.py.
"""
import csv
import io
import re

from ..core import stats
from ..core.files import write_atomic
# STATUSES is this module's too; the others are re-exported for the callers
# that read them as summary.<name> (sm.read_samples, sm.SAMPLE_COLUMNS, ...).
from ..catalog.samples import BASE_COLUMNS, INT64_MAX, SAMPLE_COLUMNS, STATUSES, elapsed_problem, read_samples, row_problem, workload_contracts

MODES = ("sequential", "parallel", "bounded")
LANGS = ("c", "go", "node", "rust")
# The two baselines of a variant (runner/catalog/catalog.py: baselines): the catalog's rule keys, and the
# prefix of their fields in a summary row ("ratio", "lang_ratio", ...).
BASELINE_KEYS = (("c", ""), ("lang", "lang_"))
RATIO_FIELDS = ("baseline", "ratio", "ratio_ci_low", "ratio_ci_high", "p_value",
                "significant", "rounds_paired", "baseline_label", "diff_per_op_ns",
                "diff_per_op_ns_ci_low", "diff_per_op_ns_ci_high", "q_value",
                # With lockstep sessions (DESIGN section 7) the ratio above is
                # theirs: "lockstep", how many process pairs, and the round-paired
                # ratio of the fresh processes beside it, the check; disagree when
                # the two intervals do not overlap.
                "pairing", "sessions", "fresh_ratio", "fresh_ratio_ci_low",
                "fresh_ratio_ci_high", "fresh_rounds", "disagree")
SUMMARY_CSV_COLUMNS = ["variant", "workload", "lang", "style", "mode", "backend", "iterations",
                       "concurrency", "n", "ok", "invalid", "failed", "timeout", "crashed",
                       "median_ms", "ci_low_ms", "ci_high_ms", "baseline", "ratio",
                       "ratio_ci_low", "ratio_ci_high", "p_value", "significant",
                       "proc_peak_rss_kb", "proc_user_ms", "proc_sys_ms", "outliers", "warnings",
                       "shape", "method", "label", "baseline_label", "lang_baseline",
                       "lang_ratio", "lang_ratio_ci_low", "lang_ratio_ci_high", "lang_p_value",
                       "lang_significant", "lang_baseline_label", "idle_rss_kb",
                       "mem_above_idle_kb", "unit", "per_op_ns",
                       "per_op_ns_ci_low", "per_op_ns_ci_high", "rounds_paired", "diff_per_op_ns",
                       "diff_per_op_ns_ci_low", "diff_per_op_ns_ci_high", "lang_rounds_paired",
                       "lang_diff_per_op_ns", "lang_diff_per_op_ns_ci_low",
                       "lang_diff_per_op_ns_ci_high", "point", "env", "q_value",
                       "lang_q_value", "outside_ms", "startup_ms", "own_outside_ms",
                       "outside_share", "outside_flag", "warmup_ms", "sampled_rss_kb", "runtime",
                       "pairing", "sessions", "fresh_ratio", "fresh_ratio_ci_low",
                       "fresh_ratio_ci_high", "disagree", "lang_pairing", "lang_sessions",
                       "lang_fresh_ratio", "lang_fresh_ratio_ci_low", "lang_fresh_ratio_ci_high",
                       "lang_disagree"]

# A variant whose time outside its clock, less its language's empty-program
# start-up and its own warm-up, is more than this share of its timed time is
# flagged (DESIGN section 6): work the clock does not see is then a large part
# of the run.
OUTSIDE_SHARE_MAX = 0.10


def per_process(samples):
    """One row per process (variant, point and round) from samples.csv's rows,
    one per timed pass: the process's first row with elapsed_ns the median of
    its passes' (to the nearest ns) and passes, how many it ran.  Every
    statistic takes a process's value from here (DESIGN section 6): the
    passes of one process share its start, its placement and its neighbours,
    so they are not independent samples of the variant; the median keeps a
    pass that one interruption slowed from moving the process's value.  Rows
    of one pass (every run before --passes) come back as they are, with
    passes 1."""
    groups, order = {}, []
    for s in samples:
        key = (s["variant"], s.get("point") or "", s["round"])
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(s)
    out = []
    for key in order:
        rows = sorted(groups[key], key=lambda r: r.get("pass") or 0)
        row = dict(rows[0], passes=len(rows))
        times = [r["elapsed_ns"] for r in rows if r["elapsed_ns"] is not None]
        if len(rows) > 1 and times:
            row["elapsed_ns"] = int(round(stats.median(times)))
        out.append(row)
    return out


def workload_rounds(run, workload):
    """How many measured rounds a workload's variants ran, as text: "6", or
    "10-40" when a time budget gave its variants different counts (run.json's
    variant_rounds), else the workload's own figure, else the run's."""
    counts = [r for vid, r in (run.get("variant_rounds") or {}).items()
              if vid.split("/", 1)[0] == workload]
    if not counts:
        r = ((run.get("workloads") or {}).get(workload) or {}).get("rounds", run.get("rounds"))
        return "?" if r is None else str(r)
    lo, hi = min(counts), max(counts)
    return str(lo) if lo == hi else "%d-%d" % (lo, hi)


def is_baseline(row):
    """True for the variant that is its own C baseline (it leads its mode's rows)."""
    return row.get("baseline") == row["variant"]


def sort_key(row):
    """Tables and charts list workloads, then modes in a fixed order, the baseline
    first, then by language."""
    mode = row["mode"]
    return (row["workload"], MODES.index(mode) if mode in MODES else len(MODES), mode,
            not is_baseline(row), LANGS.index(row["lang"]) if row["lang"] in LANGS else len(LANGS),
            row["variant"])


def _ms(ns):
    return None if ns is None else ns / 1e6


def _ratio(row, prefix, key, base_key, label, ok_times, warnings, sessions=None):
    """Fills the row's ratio fields (prefix "" or "lang_") against the baseline,
    from the rounds both ran in (stats.paired: ratio, its interval, the sign
    test, significance exactly when the interval excludes 1, the difference per
    operation), or, where the two ran in lockstep (sessions: {(a, b): figures},
    pairs.figures), from their sessions (stats.clustered, one figure a process
    pair), with the round-paired ratio beside it as the check.  Keys are
    (variant id, point): a sweep's point pairs with the same point of the
    baseline; lockstep runs at the base point only."""
    vid, base = key[0], base_key[0]
    row[prefix + "baseline"] = base
    row[prefix + "baseline_label"] = label
    locked = [(f[0], f[1]) for f in (sessions or {}).get((vid, base), [])] \
        if not key[1] and vid != base else []
    if not ok_times.get(base_key) and not locked:
        if not base_key[1]:
            warnings.append("baseline %s has no valid samples in this run: no ratio" % base)
        return
    if not ok_times.get(key) and not locked:
        return
    p = stats.paired(ok_times.get(key) or {}, ok_times.get(base_key) or {}, row["iterations"])
    row[prefix + "pairing"] = "rounds"
    if locked:
        fresh = p
        p = stats.clustered(locked)
        row[prefix + "pairing"] = "lockstep"
        row[prefix + "sessions"] = p["rounds"]
        row[prefix + "fresh_rounds"] = fresh["rounds"]
        for k in ("ratio", "ratio_ci_low", "ratio_ci_high"):
            row[prefix + "fresh_" + k] = fresh[k]
        # The two methods disagree when neither interval reaches the other.
        if fresh["ratio_ci_low"] is not None and p["ratio_ci_low"] is not None:
            row[prefix + "disagree"] = (fresh["ratio_ci_low"] > p["ratio_ci_high"]
                                        or fresh["ratio_ci_high"] < p["ratio_ci_low"])
    row[prefix + "rounds_paired"] = p["rounds"]
    for k in ("ratio", "ratio_ci_low", "ratio_ci_high", "diff_per_op_ns",
              "diff_per_op_ns_ci_low", "diff_per_op_ns_ci_high"):
        row[prefix + k] = p[k]
    if p["rounds"] and p["ratio_ci_low"] is None and vid != base:
        warnings.append("ratio to %s from %d paired %s: too few for a 95%% CI or a test "
                        "(needs %d)" % (label, p["rounds"],
                                        "lockstep sessions" if locked else "rounds",
                                        stats.MIN_SESSIONS if locked
                                        else stats.min_samples_for_ci()))
    if vid != base:
        row[prefix + "p_value"] = p["p_value"]
        row[prefix + "significant"] = p["significant"]


def summarize(samples, baselines, units=None, sessions=None, lock_per_op=None):
    """One summary row per variant (grouped by the full id: workloads and backends
    never merge), in table order.  baselines maps a variant id to {"c": [id,
    label] or None, "lang": [id, label] or None}, as run.json records it;
    units maps a workload to what one of its operations is ("read"), from the
    catalog's unit (run.json's workloads); sessions are the lockstep sessions'
    figures (pairs.figures), which a ratio takes where its two variants ran
    in lockstep, and lock_per_op their processes' times per operation
    (pairs.per_op), which a variant's time per operation and its median time
    at N (per operation times N) take with its fresh processes': each
    lockstep process is one more sample of the variant."""
    by_variant = {}
    for s in per_process(samples):
        by_variant.setdefault((s["variant"], s.get("point") or ""), []).append(s)
    ok_times = {v: {s["round"]: s["elapsed_ns"] for s in rows
                    if s["status"] == "ok" and s["elapsed_ns"] is not None}
                for v, rows in by_variant.items()}
    out = []
    for (vid, point), rows in by_variant.items():
        first = rows[0]
        oks = [s for s in rows if s["status"] == "ok" and s["elapsed_ns"] is not None]
        locked = list((lock_per_op or {}).get(vid) or []) if not point else []
        n_at = first["iterations"]
        # A lockstep process's value at N: its time per operation times N.
        times_ms = [_ms(s["elapsed_ns"]) for s in oks] + [x * n_at / 1e6 for x in locked]
        d = stats.describe(times_ms)
        per_op = stats.median_ci([s["elapsed_ns"] / s["iterations"] for s in oks] + locked)
        statuses = {k: sum(1 for s in rows if s["status"] == k) for k in STATUSES}
        warnings = []
        bad = len(rows) - statuses["ok"]
        if bad:
            warnings.append("%d of %d runs not ok (%s)" % (bad, len(rows), ", ".join(
                "%d %s" % (statuses[k], k) for k in STATUSES[1:] if statuses[k])))
        warnings += [w for w in d["warnings"] if not (w == "no valid samples" and bad)]
        row = {"variant": vid, "label": first["label"], "workload": first["workload"],
               "lang": first["lang"], "style": first["style"], "shape": first["shape"],
               "mode": first["mode"], "method": first["method"], "backend": first["backend"],
               "runtime": first.get("runtime") or "",
               "iterations": first["iterations"], "concurrency": first["concurrency"],
               "n": len(oks) + len(locked), "statuses": statuses,
               "lockstep_processes": len(locked),
               "median_ms": d["median"], "ci_low_ms": d["ci_low"], "ci_high_ms": d["ci_high"],
               "ci_confidence": d["confidence"], "outliers": d["outliers"],
               "unit": (units or {}).get(first["workload"]) or "operation",
               "per_op_ns": (d["median"] * 1e6 / first["iterations"]
                             if d["median"] is not None else None),
               "per_op_ns_ci_low": per_op[0] if per_op else None,
               "per_op_ns_ci_high": per_op[1] if per_op else None,
               "proc_peak_rss_kb": _median_or_none([s["proc_peak_rss_kb"] for s in oks]),
               "idle_rss_kb": _median_or_none([s["idle_rss_kb"] for s in oks
                                               if s.get("idle_rss_kb") is not None]),
               "mem_above_idle_kb": _median_or_none([
                   max(0, s["proc_peak_rss_kb"] - s["idle_rss_kb"]) for s in oks
                   if s.get("idle_rss_kb") is not None and s["proc_peak_rss_kb"] is not None]),
               # A harness's own memory figure (perfjs: the largest RSS it sampled
               # less the RSS at its start), when the line gave one.
               "sampled_rss_kb": _median_or_none([s.get("sampled_rss_kb") for s in oks
                                                  if s.get("sampled_rss_kb") is not None]),
               "proc_user_ms": _median_or_none([s["proc_user_us"] / 1000.0 for s in oks
                                                if s["proc_user_us"] is not None]),
               "proc_sys_ms": _median_or_none([s["proc_sys_us"] / 1000.0 for s in oks
                                               if s["proc_sys_us"] is not None]),
               "wall_ms": _median_or_none([_ms(s["wall_ns"]) for s in oks
                                           if s["wall_ns"] is not None]),
               "warnings": warnings}
        row.update(outside_fields(oks, d["median"]))
        if point:
            # A sweep's point: its K (and N) are the point's, its environment too.
            row.update(point=point, env=first.get("env") or "",
                       axis=point_axis(point), x=point_x(point, first))
        for key, prefix in BASELINE_KEYS:
            for f in RATIO_FIELDS:
                row[prefix + f] = 0 if f == "rounds_paired" else None
            rule = (baselines.get(vid) or {}).get(key)
            if rule:
                _ratio(row, prefix, (vid, point), (rule[0], point), rule[1], ok_times, warnings,
                       sessions)
        out.append(row)
    out.sort(key=sort_key)
    control_fdr(out)
    return out


def control_fdr(rows, alpha=stats.ALPHA):
    """Every comparison of a run is one family (DESIGN section 7): the sign tests
    of all the rows' ratios that could be tested (an interval exists) get their
    Benjamini-Hochberg q-values (q_value, lang_q_value), and a difference stays
    significant only when its interval excludes 1 and its q-value is at most
    alpha.  Returns the number of tests in the family."""
    cells = [(r, prefix) for r in rows for _, prefix in BASELINE_KEYS
             if r.get(prefix + "significant") is not None and r.get(prefix + "p_value") is not None]
    qs = stats.bh_adjust([r[prefix + "p_value"] for r, prefix in cells])
    for (r, prefix), q in zip(cells, qs):
        r[prefix + "q_value"] = q
        r[prefix + "significant"] = bool(r[prefix + "significant"]) and q <= alpha
    for r in rows:
        r["fdr_tests"] = len(cells)
    return len(cells)


def family_size(rows):
    """How many comparisons the run's family had (the rows carry it: fdr_tests)."""
    return max([r.get("fdr_tests") or 0 for r in rows] or [0])


def excludes_one(r, prefix=""):
    """True when the ratio's interval excludes 1 (before the false discovery rate control)."""
    lo, hi = r.get(prefix + "ratio_ci_low"), r.get(prefix + "ratio_ci_high")
    return lo is not None and (lo > 1 or hi < 1)


def without_valid(rows):
    """One sentence per workload of rows none of whose runs was valid, and per
    other variant none of whose runs was: a run that measured nothing there
    is not a result (run.py exits 1), though its samples are kept."""
    def runs(rs):
        counts = {k: sum(r["statuses"][k] for r in rs) for k in STATUSES}
        total = sum(counts.values())
        return "%d run%s: %s" % (total, "" if total == 1 else "s", ", ".join(
            "%d %s" % (counts[k], k) for k in STATUSES if counts[k]))
    out = []
    for w in sorted({r["workload"] for r in rows}):
        wrows = [r for r in rows if r["workload"] == w]
        if not any(r["n"] for r in wrows):
            out.append("workload %s has no valid sample (%s)" % (w, runs(wrows)))
            continue
        out += ["%s has no valid sample (%s)" % (r["variant"], runs([r])) for r in wrows if not r["n"]]
    return out


def point_axis(point):
    """What a sweep's point varies: "iterations", "concurrency", the name of an
    environment variable, or "" for the base point."""
    name = point.partition("=")[0]
    return "" if "=" not in point else name


def point_x(point, sample):
    """The value on the point's axis (an integer when it is one), None for the base."""
    axis = point_axis(point)
    if not axis:
        return None
    if axis in ("iterations", "concurrency"):
        return sample[axis]
    value = point.partition("=")[2]
    return int(value) if re.match(r"[0-9]+\Z", value) else value


# The label of a sweep's base point: the run's own settings.  A row of a run
# without a sweep has no point ("" in samples.csv, None in older files).
BASE_POINT = "base"


def at_base_point(row):
    """True for a row (sample, line or summary row) of the base point: a
    sweep's "base", or the only point of a run without a sweep.  Every
    statistic of the variants themselves reads these rows; a sweep's other
    points are other settings."""
    return row.get("point") in (None, "", BASE_POINT)


def split_points(rows):
    """(the rows of the variants, the rows of a sweep's points): the variants'
    rows are those of the base point (a sweep's "base", or the only one), and
    carry "sweep": {axis: number of points} and sweep_iterations,
    sweep_concurrency, sweep_env (the points on such axes, None for none) when
    the run swept; the points are
    every row of a sweep, the base included, or [] without one."""
    swept = [r for r in rows if r.get("point")]
    base = [r for r in rows if at_base_point(r)]
    if swept:
        for r in base:
            axes = {}
            for p in swept:
                if p["variant"] == r["variant"] and p["axis"]:
                    axes[p["axis"]] = axes.get(p["axis"], 1) + 1
            r["sweep"] = axes
            # What the charts of runner/report/charting.py ask for: points on each kind of axis.
            for kind in ("iterations", "concurrency", "env"):
                n = sum(c for a, c in axes.items()
                        if a == kind or (kind == "env" and a not in ("iterations", "concurrency")))
                r["sweep_" + kind] = n or None
    return base, swept


def _outside(s):
    """A sample's time outside its clock in ns (samples.csv's outside_ns, or
    wall_ns less elapsed_ns in a file older than the column)."""
    if s.get("outside_ns") is not None:
        return s["outside_ns"]
    if s.get("wall_ns") is None or s.get("elapsed_ns") is None:
        return None
    return max(0, s["wall_ns"] - s["elapsed_ns"])


def outside_fields(oks, median_ms):
    """The summary's figures of the time outside the clock, from a variant's ok
    samples: outside_ms (median of wall_ns - elapsed_ns), startup_ms (median of
    its language's empty program in the same rounds), warmup_ms (median of the
    warm-up pass the program reported), own_outside_ms (median, round by round,
    of the first less the other two: start-up aside, what the program did
    outside its clock that is not the warm-up the runner asked for),
    outside_share (that over the timed median) and outside_flag (the share
    above OUTSIDE_SHARE_MAX; None when a figure is missing)."""
    out = _median_or_none([_outside(s) for s in oks])
    start = _median_or_none([s.get("startup_ns") for s in oks])
    warm = _median_or_none([s.get("warmup_ns") for s in oks])
    own = _median_or_none([_outside(s) - s["startup_ns"] - (s.get("warmup_ns") or 0) for s in oks
                           if _outside(s) is not None and s.get("startup_ns") is not None])
    share = own / 1e6 / median_ms if own is not None and median_ms else None
    return {"outside_ms": _ms(out), "startup_ms": _ms(start), "warmup_ms": _ms(warm),
            "own_outside_ms": _ms(own), "outside_share": share,
            "outside_flag": None if share is None else share > OUTSIDE_SHARE_MAX}


def _median_or_none(xs):
    xs = [x for x in xs if x is not None]
    return stats.median(xs) if xs else None


def write_csv(rows, path):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(SUMMARY_CSV_COLUMNS)
    for r in rows:
        flat = dict(r, **r["statuses"])
        flat["warnings"] = "; ".join(r["warnings"])
        w.writerow(["" if flat.get(k) is None else _fmt_csv(flat[k])
                    for k in SUMMARY_CSV_COLUMNS])
    write_atomic(path, buf.getvalue())


def _fmt_csv(v):
    if isinstance(v, float):
        return "%.6g" % v
    return v



def baseline_labels(rows, prefix=""):
    """The labels of one baseline column (catalog order of first use)."""
    labels = []
    for r in rows:
        label = r.get(prefix + "baseline_label")
        if label and label not in labels:
            labels.append(label)
    return labels

