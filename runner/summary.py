"""summary.py -- from samples.csv rows to the per-variant summary (summary.json,
summary.csv) and the terminal table.

Times are the programs' own elapsed_ns (the timed section, start-up excluded);
CPU and memory are the runner's wait4 rusage of the whole process.  Only samples
with status ok count; the others are counted per status and warned about.
"""
import csv
import io

import stats
from files import write_atomic

SAMPLE_COLUMNS = ["round", "order", "variant", "workload", "lang", "style", "mode",
                  "backend", "iterations", "concurrency", "status", "exit_code",
                  "elapsed_ns", "wall_ns", "user_us", "sys_us", "peak_rss_kb", "ok", "bytes"]
INT_COLUMNS = ("round", "order", "iterations", "concurrency", "exit_code", "elapsed_ns",
               "wall_ns", "user_us", "sys_us", "peak_rss_kb", "ok", "bytes")
STATUSES = ("ok", "invalid", "failed", "timeout", "crashed")
MODES = ("sequential", "parallel", "bounded")
LANGS = ("c", "go", "node")
SUMMARY_CSV_COLUMNS = ["variant", "workload", "lang", "style", "mode", "backend", "iterations",
                       "concurrency", "n", "ok", "invalid", "failed", "timeout", "crashed",
                       "median_ms", "ci_low_ms", "ci_high_ms", "baseline", "ratio",
                       "ratio_ci_low", "ratio_ci_high", "p_value", "significant",
                       "peak_rss_kb", "user_ms", "sys_ms", "outliers", "warnings"]


def read_samples(path):
    """samples.csv as a list of dicts with integer columns converted (None when empty).
    Raises ValueError when the header is not the one of DESIGN section 6."""
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        header = next(reader, None)
        if header != SAMPLE_COLUMNS:
            raise ValueError("%s: header is %r, expected the columns %s"
                             % (path, header, ",".join(SAMPLE_COLUMNS)))
        rows = []
        for lineno, rec in enumerate(reader, start=2):
            if len(rec) != len(SAMPLE_COLUMNS):
                # An interrupted write leaves a short last line; keep what is whole.
                continue
            row = dict(zip(SAMPLE_COLUMNS, rec))
            try:
                for k in INT_COLUMNS:
                    row[k] = int(row[k]) if row[k] != "" else None
            except ValueError:
                raise ValueError("%s:%d: %s is not an integer" % (path, lineno, k))
            rows.append(row)
    return rows


def sort_key(row, baselines):
    """Tables and charts list modes in a fixed order, the baseline first, then by language."""
    mode = row["mode"]
    return (MODES.index(mode) if mode in MODES else len(MODES), mode,
            baselines.get(mode) != row["variant"],
            LANGS.index(row["lang"]) if row["lang"] in LANGS else len(LANGS),
            row["variant"])


def _ms(ns):
    return None if ns is None else ns / 1e6


def summarize(samples, baselines):
    """One summary ROW (see the shared format) per variant, in table order."""
    by_variant = {}
    for s in samples:
        by_variant.setdefault(s["variant"], []).append(s)
    ok_times = {v: {s["round"]: s["elapsed_ns"] for s in rows
                    if s["status"] == "ok" and s["elapsed_ns"] is not None}
                for v, rows in by_variant.items()}
    out = []
    for vid, rows in by_variant.items():
        first = rows[0]
        oks = [s for s in rows if s["status"] == "ok" and s["elapsed_ns"] is not None]
        times_ms = [_ms(s["elapsed_ns"]) for s in oks]
        d = stats.describe(times_ms)
        statuses = {k: sum(1 for s in rows if s["status"] == k) for k in STATUSES}
        warnings = []
        bad = len(rows) - statuses["ok"]
        if bad:
            warnings.append("%d of %d runs not ok (%s)" % (bad, len(rows), ", ".join(
                "%d %s" % (statuses[k], k) for k in STATUSES[1:] if statuses[k])))
        warnings += [w for w in d["warnings"] if not (w == "no valid samples" and bad)]
        row = {"variant": vid, "workload": first["workload"], "lang": first["lang"],
               "style": first["style"], "mode": first["mode"], "backend": first["backend"],
               "iterations": first["iterations"], "concurrency": first["concurrency"],
               "n": len(oks), "statuses": statuses,
               "median_ms": d["median"], "ci_low_ms": d["ci_low"], "ci_high_ms": d["ci_high"],
               "ci_confidence": d["confidence"], "outliers": d["outliers"],
               "baseline": None, "ratio": None, "ratio_ci_low": None, "ratio_ci_high": None,
               "p_value": None, "significant": None, "rounds_paired": 0,
               "peak_rss_kb": _median_or_none([s["peak_rss_kb"] for s in oks]),
               "user_ms": _median_or_none([s["user_us"] / 1000.0 for s in oks
                                           if s["user_us"] is not None]),
               "sys_ms": _median_or_none([s["sys_us"] / 1000.0 for s in oks
                                          if s["sys_us"] is not None]),
               "wall_ms": _median_or_none([_ms(s["wall_ns"]) for s in oks
                                           if s["wall_ns"] is not None]),
               "warnings": warnings}
        base = baselines.get(first["mode"])
        if base is None:
            pass
        elif base not in ok_times or not ok_times[base]:
            warnings.append("baseline %s has no valid samples in this run: no ratio" % base)
        elif oks:
            row["baseline"] = base
            ratios = stats.paired_ratios(ok_times[vid], ok_times[base])
            row["rounds_paired"] = len(ratios)
            m, lo, hi = stats.ratio_ci(ratios)
            row["ratio"], row["ratio_ci_low"], row["ratio_ci_high"] = m, lo, hi
            if ratios and lo is None and vid != base:
                warnings.append("ratio from %d paired rounds: too few for a 95%% CI" % len(ratios))
            if vid != base:
                _, p = stats.mann_whitney([_ms(t) for t in ok_times[vid].values()],
                                          [_ms(t) for t in ok_times[base].values()])
                row["p_value"] = p
                row["significant"] = None if p is None else p < stats.ALPHA
        out.append(row)
    out.sort(key=lambda r: sort_key(r, baselines))
    return out


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


def fmt_ms(v):
    if v is None:
        return "-"
    return "%.1f" % v if v >= 100 else ("%.2f" % v if v >= 1 else "%.3f" % v)


def fmt_ratio(r):
    """'1.93x [1.85, 2.01]', '~ 1.01x [0.97, 1.05]' when not significant, 'baseline'."""
    if r["baseline"] is None or r["ratio"] is None:
        return "-"
    if r["variant"] == r["baseline"]:
        return "baseline"
    ci = ("[%.2f, %.2f]" % (r["ratio_ci_low"], r["ratio_ci_high"])
          if r["ratio_ci_low"] is not None else "[n too small]")
    mark = "~ " if r["significant"] is False else ""
    return "%s%.2fx %s" % (mark, r["ratio"], ci)


def fmt_ci(r):
    if r["ci_low_ms"] is None:
        return "n too small" if r["n"] else "-"
    return "[%s, %s]" % (fmt_ms(r["ci_low_ms"]), fmt_ms(r["ci_high_ms"]))


def terminal_table(rows):
    """The table printed at the end of a run, one block per mode."""
    head = ("variant", "n", "median ms", "95% CI", "vs C callback (same mode)")
    body = []
    for r in rows:
        n = "%d" % r["n"]
        if r["n"] != sum(r["statuses"].values()):
            n += "/%d" % sum(r["statuses"].values())
        body.append((r["variant"], n, fmt_ms(r["median_ms"]), fmt_ci(r), fmt_ratio(r), r["mode"]))
    widths = [max(len(head[i]), *(len(b[i]) for b in body)) if body else len(head[i])
              for i in range(len(head))]
    lines = []

    def line(cells):
        return "  ".join([cells[0].ljust(widths[0]), cells[1].rjust(widths[1]),
                          cells[2].rjust(widths[2]), cells[3].ljust(widths[3]),
                          cells[4]]).rstrip()
    lines.append(line(head))
    mode = None
    for b in body:
        if b[5] != mode:
            mode = b[5]
            lines.append("-- %s " % mode + "-" * max(0, sum(widths[:4]) + 6 - len(mode)))
        lines.append(line(b))
    lines.append("~ : not significantly different from the baseline (Mann-Whitney U, p >= 0.05)")
    return "\n".join(lines)
