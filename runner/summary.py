"""summary.py -- from samples.csv rows to the per-variant summary (summary.json,
summary.csv) and the terminal table.

Times are the programs' own elapsed_ns (the timed section, start-up excluded);
CPU and memory are the runner's wait4 rusage of the whole process.  Only samples
with status ok count; the others are counted per status and warned about.
"""
import csv
import io
import re

import stats
from files import write_atomic

SAMPLE_COLUMNS = ["round", "order", "variant", "workload", "lang", "style", "mode",
                  "backend", "iterations", "concurrency", "status", "exit_code",
                  "elapsed_ns", "wall_ns", "user_us", "sys_us", "peak_rss_kb", "ok", "bytes",
                  "shape", "method", "label", "idle_rss_kb"]
# samples.csv may end after any column from this one on: a file written before the
# later columns existed is read with them empty.  New columns are appended.
BASE_COLUMNS = 22
INT_COLUMNS = ("round", "order", "iterations", "concurrency", "exit_code", "elapsed_ns",
               "wall_ns", "user_us", "sys_us", "peak_rss_kb", "ok", "bytes", "idle_rss_kb")
STATUSES = ("ok", "invalid", "failed", "timeout", "crashed")
MODES = ("sequential", "parallel", "bounded")
LANGS = ("c", "go", "node")
# The two baselines of a variant (runner/catalog.py: baselines): the catalog's rule keys, and the
# prefix of their fields in a summary row ("ratio", "lang_ratio", ...).
BASELINE_KEYS = (("c", ""), ("lang", "lang_"))
RATIO_FIELDS = ("baseline", "ratio", "ratio_ci_low", "ratio_ci_high", "p_value",
                "significant", "rounds_paired", "baseline_label")
SUMMARY_CSV_COLUMNS = ["variant", "workload", "lang", "style", "mode", "backend", "iterations",
                       "concurrency", "n", "ok", "invalid", "failed", "timeout", "crashed",
                       "median_ms", "ci_low_ms", "ci_high_ms", "baseline", "ratio",
                       "ratio_ci_low", "ratio_ci_high", "p_value", "significant",
                       "peak_rss_kb", "user_ms", "sys_ms", "outliers", "warnings",
                       "shape", "method", "label", "baseline_label", "lang_baseline",
                       "lang_ratio", "lang_ratio_ci_low", "lang_ratio_ci_high", "lang_p_value",
                       "lang_significant", "lang_baseline_label", "idle_rss_kb",
                       "mem_above_idle_kb"]


# Columns every row of samples.csv has (the runner always writes them); the
# others are empty when the program gave no line (elapsed_ns, ok, bytes) or the
# launcher no figure.
REQUIRED_COLUMNS = ("round", "order", "variant", "workload", "lang", "style", "mode",
                    "backend", "iterations", "concurrency", "status")
# Integer columns that are counts from 1 (the others are 0 or more; exit_code
# may be anything the launcher reported).
POSITIVE_COLUMNS = ("round", "iterations")
INT64_MAX = 2 ** 63 - 1


def read_samples(path, warnings=None):
    """samples.csv as a list of dicts with integer columns converted (None when empty).

    A corrupted file is refused with ValueError, one line naming the file and
    the line: a header other than the one of DESIGN section 6, a row with the
    wrong number of columns (except a short last line: an interrupted write,
    skipped with a warning appended to warnings), an empty required column, a
    column that is not an integer or is negative (elapsed_ns < 0 would enter the
    median), an unknown status, two rows of one variant in one round (counted
    twice), or one variant with two different N (iterations): a median over
    mixed N means nothing.  Refused rather than warned about: each is a file
    edited or concatenated by hand, never something the runner writes, and any
    figure drawn from it would be wrong."""
    with open(path, newline="", encoding="utf-8") as f:
        text = f.read()
    reader = csv.reader(io.StringIO(text))
    header = next(reader, None)
    if (header is None or len(header) < BASE_COLUMNS
            or header != SAMPLE_COLUMNS[:len(header)]):
        raise ValueError("%s: header is %r, expected the columns %s"
                         % (path, header, ",".join(SAMPLE_COLUMNS)))
    columns = header
    records = list(enumerate(reader, start=2))
    rows, seen, n_of = [], {}, {}
    for i, (lineno, rec) in enumerate(records):
        where = "%s:%d" % (path, lineno)
        if len(rec) != len(columns):
            last = i == len(records) - 1 and not text.endswith("\n")
            if last and len(rec) < len(columns):
                # An interrupted write leaves a short last line; keep what is whole.
                if warnings is not None:
                    warnings.append("%s: a short last line (an interrupted write) was "
                                    "left out" % where)
                continue
            raise ValueError("%s: %d columns, expected %d" % (where, len(rec), len(columns)))
        row = dict(zip(columns, rec))
        for k in SAMPLE_COLUMNS[len(columns):]:
            row[k] = ""
        for k in REQUIRED_COLUMNS:
            if row[k] == "":
                raise ValueError("%s: %s is empty" % (where, k))
        for k in INT_COLUMNS:
            if row[k] == "":
                row[k] = None
                continue
            if not re.match(r"-?[0-9]+\Z", row[k]):
                raise ValueError("%s: %s is not an integer: %r" % (where, k, row[k][:40]))
            row[k] = int(row[k])
            low = 1 if k in POSITIVE_COLUMNS else 0
            if k != "exit_code" and row[k] < low:
                raise ValueError("%s: %s is %d, below %d" % (where, k, row[k], low))
            if abs(row[k]) > INT64_MAX:
                raise ValueError("%s: %s has %d digits, beyond a 64-bit integer"
                                 % (where, k, len(str(abs(row[k])))))
        if row["status"] not in STATUSES:
            raise ValueError("%s: unknown status %r (known: %s)"
                             % (where, row["status"][:40], ", ".join(STATUSES)))
        key = (row["variant"], row["round"])
        if key in seen:
            raise ValueError("%s: a second row of %s in round %d (the first is line %d)"
                             % (where, row["variant"], row["round"], seen[key]))
        seen[key] = lineno
        first = n_of.setdefault(row["variant"], (row["iterations"], lineno))
        if first[0] != row["iterations"]:
            raise ValueError("%s: %s has iterations %d here and %d on line %d: one run "
                             "has one N per variant" % (where, row["variant"], row["iterations"],
                                                        first[0], first[1]))
        rows.append(row)
    return [_checked(path, row) for row in rows]


# A program's elapsed_ns is its timed section, inside the process's own life: it
# can never exceed the wall time the launcher measured (fork to wait4) by more
# than the clocks' granularity.  10^20 ns from a 50 ms process, or 10^400 (JSON
# has big integers; a float of it overflows), is a broken clock or a lie.
WALL_SLACK_NS = 10 * 1000 * 1000


def big(n):
    """An integer for a message: 10^400 as '1000000...(401 digits)'."""
    t = str(n)
    return t if len(t) <= 20 else "%s...(%d digits)" % (t[:8], len(t))


def elapsed_problem(elapsed_ns, wall_ns):
    """Why elapsed_ns cannot be the timed section of a process whose wall time was
    wall_ns (None when it can, or when either is unknown)."""
    if elapsed_ns is None:
        return None
    if elapsed_ns > INT64_MAX:
        return "elapsed_ns %s is beyond any clock (more than 2^63 - 1)" % big(elapsed_ns)
    if wall_ns is not None and elapsed_ns > wall_ns + WALL_SLACK_NS:
        return ("elapsed_ns %s is longer than the process's own wall time %d ns "
                "(measured by the runner)" % (big(elapsed_ns), wall_ns))
    return None


def _checked(path, row):
    """A row whose ok run reports an elapsed_ns longer than its process's wall
    time counts as invalid (a file written before the runner checked it)."""
    if row["status"] == "ok" and elapsed_problem(row["elapsed_ns"], row["wall_ns"]):
        row["status"] = "invalid"
    return row


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


def _ratio(row, prefix, vid, base, label, ok_times, warnings):
    """Fills the row's ratio fields (prefix "" or "lang_") against the baseline id."""
    row[prefix + "baseline"] = base
    row[prefix + "baseline_label"] = label
    if not ok_times.get(base):
        warnings.append("baseline %s has no valid samples in this run: no ratio" % base)
        return
    if not ok_times.get(vid):
        return
    ratios = stats.paired_ratios(ok_times[vid], ok_times[base])
    row[prefix + "rounds_paired"] = len(ratios)
    m, lo, hi = stats.ratio_ci(ratios)
    row[prefix + "ratio"], row[prefix + "ratio_ci_low"], row[prefix + "ratio_ci_high"] = m, lo, hi
    if ratios and lo is None and vid != base:
        warnings.append("ratio to %s from %d paired rounds: too few for a 95%% CI"
                        % (label, len(ratios)))
    if vid != base:
        _, p = stats.mann_whitney([_ms(t) for t in ok_times[vid].values()],
                                  [_ms(t) for t in ok_times[base].values()])
        row[prefix + "p_value"] = p
        row[prefix + "significant"] = None if p is None else p < stats.ALPHA


def summarize(samples, baselines):
    """One summary row per variant (grouped by the full id: workloads and backends
    never merge), in table order.  baselines maps a variant id to {"c": [id,
    label] or None, "lang": [id, label] or None}, as run.json records it."""
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
        row = {"variant": vid, "label": first["label"], "workload": first["workload"],
               "lang": first["lang"], "style": first["style"], "shape": first["shape"],
               "mode": first["mode"], "method": first["method"], "backend": first["backend"],
               "iterations": first["iterations"], "concurrency": first["concurrency"],
               "n": len(oks), "statuses": statuses,
               "median_ms": d["median"], "ci_low_ms": d["ci_low"], "ci_high_ms": d["ci_high"],
               "ci_confidence": d["confidence"], "outliers": d["outliers"],
               "peak_rss_kb": _median_or_none([s["peak_rss_kb"] for s in oks]),
               "idle_rss_kb": _median_or_none([s["idle_rss_kb"] for s in oks
                                               if s.get("idle_rss_kb") is not None]),
               "mem_above_idle_kb": _median_or_none([
                   max(0, s["peak_rss_kb"] - s["idle_rss_kb"]) for s in oks
                   if s.get("idle_rss_kb") is not None and s["peak_rss_kb"] is not None]),
               "user_ms": _median_or_none([s["user_us"] / 1000.0 for s in oks
                                           if s["user_us"] is not None]),
               "sys_ms": _median_or_none([s["sys_us"] / 1000.0 for s in oks
                                          if s["sys_us"] is not None]),
               "wall_ms": _median_or_none([_ms(s["wall_ns"]) for s in oks
                                           if s["wall_ns"] is not None]),
               "warnings": warnings}
        for key, prefix in BASELINE_KEYS:
            for f in RATIO_FIELDS:
                row[prefix + f] = 0 if f == "rounds_paired" else None
            rule = (baselines.get(vid) or {}).get(key)
            if rule:
                _ratio(row, prefix, vid, rule[0], rule[1], ok_times, warnings)
        out.append(row)
    out.sort(key=sort_key)
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


def fmt_ratio(r, prefix=""):
    """'1.93x [1.85, 2.01]', '~ 1.01x [0.97, 1.05]' when not significant, 'baseline'
    for the baseline itself, '-' when the ratio is missing, '' when no baseline
    rule applies.  prefix "lang_" gives the same-language ratio."""
    if r.get(prefix + "baseline") is None:
        return ""
    if r["variant"] == r[prefix + "baseline"]:
        return "baseline"
    if r.get(prefix + "ratio") is None:
        return "-"
    ci = ("[%.2f, %.2f]" % (r[prefix + "ratio_ci_low"], r[prefix + "ratio_ci_high"])
          if r[prefix + "ratio_ci_low"] is not None else "[n too small]")
    mark = "~ " if r[prefix + "significant"] is False else ""
    return "%s%.2fx %s" % (mark, r[prefix + "ratio"], ci)


def baseline_labels(rows, prefix=""):
    """The labels of one baseline column (catalog order of first use)."""
    labels = []
    for r in rows:
        label = r.get(prefix + "baseline_label")
        if label and label not in labels:
            labels.append(label)
    return labels


def ratio_columns(rows):
    """[(prefix, header, labels)] of the ratio columns a table of rows needs: one per
    baseline key that some row has, headed by its labels from the data."""
    cols = []
    for _, prefix in BASELINE_KEYS:
        labels = baseline_labels(rows, prefix)
        if labels:
            cols.append((prefix, "vs " + " / ".join(labels), labels))
    return cols


def ratio_cell(r, prefix, labels):
    """fmt_ratio, naming the baseline when the column mixes several."""
    text = fmt_ratio(r, prefix)
    if len(labels) > 1 and text not in ("", "baseline"):
        text += " (%s)" % r[prefix + "baseline_label"]
    return text


def fmt_ci(r):
    if r["ci_low_ms"] is None:
        return "n too small" if r["n"] else "-"
    return "[%s, %s]" % (fmt_ms(r["ci_low_ms"]), fmt_ms(r["ci_high_ms"]))


def terminal_table(rows):
    """The table printed at the end of a run: a block per workload with its own
    header (the ratio columns are named by the catalog's baseline labels), a
    section per mode."""
    lines = []
    for workload in sorted({r["workload"] for r in rows}):
        wrows = [r for r in rows if r["workload"] == workload]
        cols = ratio_columns(wrows)
        head = ("variant", "n", "median ms", "95% CI") + tuple(c[1] for c in cols)
        body = []
        for r in wrows:
            n = "%d" % r["n"]
            if r["n"] != sum(r["statuses"].values()):
                n += "/%d" % sum(r["statuses"].values())
            body.append((r["label"], n, fmt_ms(r["median_ms"]), fmt_ci(r))
                         + tuple(ratio_cell(r, p, labels) for p, _, labels in cols))
        widths = [max([len(head[i])] + [len(b[i]) for b in body]) for i in range(len(head))]
        align = [str.ljust, str.rjust, str.rjust, str.ljust] + [str.ljust] * len(cols)

        def line(cells):
            return "  ".join(align[i](c, widths[i]) for i, c in enumerate(cells)).rstrip()
        if lines:
            lines.append("")
        lines.append("== %s (N = %s) ==" % (workload, wrows[0]["iterations"]))
        lines.append(line(head))
        mode = None
        for r, b in zip(wrows, body):
            if r["mode"] != mode:
                mode = r["mode"]
                lines.append("-- %s " % mode + "-" * max(0, sum(widths[:4]) + 6 - len(mode)))
            lines.append(line(b))
    lines.append("~ : not significantly different from the baseline (Mann-Whitney U, p >= 0.05)")
    return "\n".join(lines)
