"""tables.py -- the tables of a run's summary rows: the cells of a workload's
table (time per operation with its CI, the ratios to the baselines and the
differences per operation), their units and marks, the legend of the marks,
and the tables printed at the end of a run.  The wide table (terminal_table:
every column; `--wide`, docs/results.md), REPORT.md and results.md all format
the same cells (table_cells); the default printed table (compact_table) keeps
variant, n, time per operation and the ratio to the variant's own language's
baseline with a compact interval, to fit 100 columns, as hyperfine's output
does.  output_width() is the width the printed text wraps at.
"""
import os
import shutil
import sys
import textwrap

from ..core import fmt
from ..core import stats
from ..core.ratios import lang_of
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
           "with its 95% CI. Δ: the difference per operation, with its CI"
           if not locked else
           "ratios: time over the baseline's, the geometric mean of its lockstep sessions' "
           "figures, with its 95% CI. Where the pair ran no lockstep, it is the median of the "
           "rounds paired. Δ: the difference per operation, with its CI"]
    if SAME in marks:
        out.append("~ : no significant difference (the paired 95% CI includes 1; sign test "
                   "p >= 0.05)")
        lost = sum(1 for r in rows for _, p in BASELINE_KEYS
                   if r.get(p + "significant") is False and excludes_one(r, p))
        if lost:
            out.append("~ before an interval that excludes 1: the sign test does not survive the "
                       "false discovery rate control. That control is over the run's %d "
                       "comparisons (Benjamini-Hochberg, q > 0.05), so no difference is named"
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



# The width printed text wraps at when stdout is not a terminal (a log, CI).
DEFAULT_WIDTH = 100


def output_width(stream=None):
    """The columns printed text wraps at: $COLUMNS when it gives a width, else
    the terminal's own when stream (stdout) is one, else DEFAULT_WIDTH."""
    try:
        cols = int(os.environ.get("COLUMNS", ""))
        if cols > 0:
            return cols
    except ValueError:
        pass
    stream = stream or sys.stdout
    try:
        if stream.isatty():
            return shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns or DEFAULT_WIDTH
    except (AttributeError, ValueError, OSError):
        pass
    return DEFAULT_WIDTH


def wrap(line, width, indent=""):
    """line cut into lines of at most width columns at its blanks (a word
    longer than the width stays whole), the lines after the first indented by
    indent, as well as its own leading blanks."""
    lead = line[:len(line) - len(line.lstrip(" "))]
    return textwrap.wrap(line, width, initial_indent="", subsequent_indent=lead + indent,
                         break_long_words=False, break_on_hyphens=False) or [line]


def own_prefix(r):
    """The ratio prefix ("lang_" or "") whose baseline is of the row's own
    language; else the first the row has (named in its cell); None without one."""
    for _, prefix in reversed(BASELINE_KEYS):
        if lang_of(r.get(prefix + "baseline")) == r["lang"]:
            return prefix
    return next((p for _, p in BASELINE_KEYS if r.get(p + "baseline")), None)


def compact_ratio(r, prefix):
    """A ratio with a compact interval, three figures: '14.9x [12.8-17.2]',
    '~ 1.00x [0.99-1.01]', '? 1.10x [3 rounds]'; 'baseline', '-' or '' as
    fmt_ratio says."""
    if prefix is None:
        return ""
    if r["variant"] == r.get(prefix + "baseline") or r.get(prefix + "ratio") is None:
        return fmt_ratio(r, prefix)
    mark = ratio_mark(r, prefix)
    text = "%s%sx" % (mark + " " if mark else "", fmt.num(r[prefix + "ratio"]))
    lo, hi = r.get(prefix + "ratio_ci_low"), r.get(prefix + "ratio_ci_high")
    if lo is not None and hi is not None:
        return "%s [%s-%s]" % (text, fmt.num(lo), fmt.num(hi))
    k = r.get(prefix + "rounds_paired") or 0
    return "%s [%d round%s]" % (text, k, "" if k == 1 else "s")


def compact_legend(rows):
    """The compact table's legend: which baselines its ratios are over, and
    the marks it uses, each line a sentence or two."""
    labels = []
    for r in rows:
        p = own_prefix(r)
        label = p is not None and r.get(p + "baseline_label")
        if label and label not in labels:
            labels.append(label)
    out = ["ratio: time over the baseline of the variant's own language (%s), with its 95%% CI. "
           "Every column, with the differences per operation: --wide or REPORT.md."
           % ", ".join(labels or ["none"])]
    marks = {ratio_mark(r, p) for r in rows for p in [own_prefix(r)]
             if p is not None and r.get(p + "ratio") is not None
             and r[p + "baseline"] != r["variant"]}
    if SAME in marks:
        out.append("~ : no significant difference (the interval includes 1, or the test does not "
                   "survive the false discovery rate control).")
    if UNTESTED in marks:
        out.append("? : too few paired rounds for a CI or a test (%d needed): no verdict "
                   "either way" % stats.min_samples_for_ci())
    return out


def compact_table(rows, width=DEFAULT_WIDTH):
    """The table printed at the end of a run by default: a block per workload
    (variant, n, time per operation, the ratio to its own language's baseline
    with a compact interval), a section per mode, the legend wrapped at width."""
    lines = []
    for workload in sorted({r["workload"] for r in rows}):
        wrows = [r for r in rows if r["workload"] == workload]
        div, uname = op_scale(wrows)
        head = ["variant", "n", "%s/%s" % (uname, unit_of(wrows)), "vs own baseline"]
        body = []
        for r in wrows:
            n = "%d" % r["n"]
            if r["n"] != sum(r["statuses"].values()):
                n += "/%d" % sum(r["statuses"].values())
            p = own_prefix(r)
            cell = compact_ratio(r, p)
            if p is not None and lang_of(r.get(p + "baseline")) != r["lang"] \
                    and cell not in ("", "-", "baseline"):
                cell += " (%s)" % r[p + "baseline_label"]
            body.append([r["label"], n, fmt_op(r.get("per_op_ns"), div), cell])
        widths = [max([len(head[i])] + [len(b[i]) for b in body]) for i in range(len(head))]
        align = [str.ljust, str.rjust, str.rjust, str.ljust]

        def line(cells):
            return "  ".join(align[i](c, widths[i]) for i, c in enumerate(cells)).rstrip()
        if lines:
            lines.append("")
        lines.append("== %s (N = %s) ==" % (workload, format(wrows[0]["iterations"], ",")))
        lines.append(line(head))
        mode = None
        for r, b in zip(wrows, body):
            if r["mode"] != mode:
                mode = r["mode"]
                lines.append("-- %s " % mode + "-" * max(0, sum(widths) + 2 * 3 - 4 - len(mode)))
            lines.append(line(b))
    for text in compact_legend(rows):
        lines += wrap(text, width, "  ")
    return "\n".join(lines)
