"""tables.py -- the tables of a run's summary rows: the cells of a workload's
table (time per operation with its CI, the ratios to the baselines and the
differences per operation), their units and marks, the legend of the marks,
and the terminal table printed at the end of a run.  The terminal table,
REPORT.md and results.md all format the same cells (table_cells).
"""
from ..core import fmt
from ..core import stats
from .summary import BASELINE_KEYS, baseline_labels, excludes_one, family_size

# Per-operation figures are shown in the largest unit that keeps them above 1.
SCALES = ((1e6, "ms"), (1e3, "µs"), (1.0, "ns"))


def op_scale(rows):
    """(divisor from ns, unit name) for the per-operation figures of rows: the
    unit of the median of their per-operation medians."""
    values = sorted(r["per_op_ns"] for r in rows if r.get("per_op_ns"))
    typical = values[len(values) // 2] if values else 0
    for div, name in SCALES:
        if typical >= div:
            return div, name
    return SCALES[-1]


def fmt_op(v, div):
    """A per-operation figure in ns (v) in the scale div (op_scale): fmt.num."""
    return fmt.num(None if v is None else v / div)


def per_op_ci(r, div):
    """'[118, 140]' per operation in the scale div; 'n too small' without a CI."""
    if r.get("per_op_ns_ci_low") is None:
        return "n too small" if r["n"] else "-"
    return "[%s, %s]" % (fmt_op(r["per_op_ns_ci_low"], div), fmt_op(r["per_op_ns_ci_high"], div))


# The marks of a ratio: not significant, and untestable (too few paired rounds).
SAME, UNTESTED = "~", "?"


def ratio_mark(r, prefix=""):
    """'~' when the paired interval includes 1, '?' when the rounds are too few
    for an interval and a test, '' when the difference is significant."""
    if r[prefix + "significant"] is False:
        return SAME
    if r[prefix + "significant"] is None:
        return UNTESTED
    return ""


def fmt_ratio(r, prefix=""):
    """'1.93x [1.85, 2.01]', '~ 1.01x [0.97, 1.05]' when not significant (the
    interval includes 1), '? 1.10x [3 rounds]' when the paired rounds are too
    few for an interval or a test, 'baseline' for the baseline itself, '-' when
    the ratio is missing, '' when no baseline rule applies.  prefix "lang_"
    gives the same-language ratio."""
    if r.get(prefix + "baseline") is None:
        return ""
    if r["variant"] == r[prefix + "baseline"]:
        return "baseline"
    if r.get(prefix + "ratio") is None:
        return "-"
    k = r.get(prefix + "rounds_paired") or 0
    return fmt.ratio(r[prefix + "ratio"], r[prefix + "ratio_ci_low"], r[prefix + "ratio_ci_high"],
                     ratio_mark(r, prefix), "[%d round%s]" % (k, "" if k == 1 else "s"))


def fmt_diff(r, prefix, div):
    """The difference from the baseline per operation in the scale div, signed,
    with its CI: '+6.3 [2.1, 9.0]'; '' for the baseline itself or no ratio."""
    if r.get(prefix + "baseline") in (None, r["variant"]) or r.get(prefix + "diff_per_op_ns") is None:
        return ""
    text = fmt.signed(r[prefix + "diff_per_op_ns"] / div)
    if r.get(prefix + "diff_per_op_ns_ci_low") is not None:
        text += " [%s, %s]" % (fmt_op(r[prefix + "diff_per_op_ns_ci_low"], div),
                               fmt_op(r[prefix + "diff_per_op_ns_ci_high"], div))
    return text


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
    if len(labels) > 1 and text not in ("", "baseline", "-"):
        text += " (%s)" % r[prefix + "baseline_label"]
    return text


def unit_of(rows):
    """The workload's operation ('read') from its rows."""
    return next((r.get("unit") for r in rows if r.get("unit")), "operation")


def legend(rows):
    """The lines under a table that explain its marks (only the marks it uses)."""
    marks = {ratio_mark(r, p) for r in rows for _, p in BASELINE_KEYS
             if r.get(p + "ratio") is not None and r[p + "baseline"] != r["variant"]}
    locked = any(r.get(p + "pairing") == "lockstep" for r in rows for _, p in BASELINE_KEYS)
    out = ["ratios: time over the baseline's, median of the rounds paired in this run, "
           "with its 95% CI; Δ: the difference per operation, with its CI"
           if not locked else
           "ratios: time over the baseline's, the geometric mean of its lockstep sessions' "
           "figures (the median of the rounds paired where the pair ran no lockstep), with its "
           "95% CI; "
           "Δ: the difference per operation, with its CI"]
    if SAME in marks:
        out.append("~ : no significant difference (the paired 95% CI includes 1; sign test "
                   "p >= 0.05)")
        lost = sum(1 for r in rows for _, p in BASELINE_KEYS
                   if r.get(p + "significant") is False and excludes_one(r, p))
        if lost:
            out.append("~ before an interval that excludes 1: the sign test does not survive the "
                       "false discovery rate control over the run's %d comparisons "
                       "(Benjamini-Hochberg, q > 0.05), so no difference is named"
                       % family_size(rows))
    if UNTESTED in marks:
        out.append("? : too few paired rounds for a CI or a test (%d needed): no verdict "
                   "either way" % stats.min_samples_for_ci())
    return out


def table_cells(wrows):
    """(head, body rows, scale) of one workload's table: variant, n, time per
    operation with its CI, then per baseline column the ratio and the
    difference per operation.  The terminal table, REPORT.md and the markdown
    export all format the same cells."""
    div, uname = op_scale(wrows)
    unit = unit_of(wrows)
    cols = ratio_columns(wrows)
    head = ["variant", "n", "%s/%s" % (uname, unit), "95% CI"]
    for _, header, _ in cols:
        head += [header, "Δ %s/%s" % (uname, unit)]
    body = []
    for r in wrows:
        n = "%d" % r["n"]
        if r["n"] != sum(r["statuses"].values()):
            n += "/%d" % sum(r["statuses"].values())
        cells = [r["label"], n, fmt_op(r.get("per_op_ns"), div), per_op_ci(r, div)]
        for prefix, _, labels in cols:
            cells += [ratio_cell(r, prefix, labels), fmt_diff(r, prefix, div)]
        body.append(cells)
    return head, body, (div, uname)


def terminal_table(rows):
    """The table printed at the end of a run: a block per workload with its own
    header (time per operation; the ratio columns are named by the catalog's
    baseline labels, each with the difference per operation beside it), a
    section per mode, and the legend of its marks."""
    lines = []
    for workload in sorted({r["workload"] for r in rows}):
        wrows = [r for r in rows if r["workload"] == workload]
        head, body, _ = table_cells(wrows)
        widths = [max([len(head[i])] + [len(b[i]) for b in body]) for i in range(len(head))]
        align = [str.ljust, str.rjust, str.rjust, str.ljust] + [str.ljust] * (len(head) - 4)

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
    lines += legend(rows)
    return "\n".join(lines)
