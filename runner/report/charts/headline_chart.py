"""headline_chart.py -- does the style cost anything?  Each style's time relative
to the baseline of the same language and mode (C vs C, Node vs Node, Go vs Go):
one row per language and style, one column per mode, at most 1000 x 1200 px.

Usage: python3 -m runner.report.charts.headline_chart RUNDIR [-o OUT.png] [--workload W]

Reads RUNDIR/summary.json: for each variant, its round-paired ratio to the
baseline of its own language (the summary's same-language ratio, or its
ratio to the C baseline for a C variant), as a dot with its 95% CI on a log
axis around the line at 1.0.  A dot on the line: the style costs nothing
measurable; right of it: the style is slower than the baseline by that factor.
Solid and bold: significant; faded with `~`: not.  The baseline itself is the
hollow marker on the line.

One question, one variant a cell: a row is a language, style and shape, a
column a mode, timed in-process, on the host's runtime (a runtimes run: the
newest pinned version of each language).  Where the workload ran one of them
on several backends, the cell shows the variant on the first backend of the
catalog's charts.headline.backends that was measured, else on the backend of
its baseline, else the first by name (choose(), the one place of this rule).
The other backends, timing methods and versions are left out, and the title
says how many and that ratio-<workload>.png (when drawn) and
time-<workload>.png show them; a variant with no
baseline of its own language in its mode is left out too, and the note names
it.  The rows shrink (down to ROW_MIN_IN) to keep the chart within
MAX_HEIGHT_PX.
"""
import sys

from ...catalog import catalog as catalog_mod
from ...core import fmt
from ...core import ratios
from . import layout
from . import rundata
from . import style as st


PROG = "headline_chart.py"
MAX_HEIGHT_PX = 1200
ROW_MIN_IN = 0.22        # 13 pt labels (about 0.18 in) still clear of each other
OTHER_METHODS = "timed another way"
OTHER_BACKENDS = "another backend of its style"
OTHER_RUNTIMES = "another runtime version"


def preferred_backends(data, workload):
    """The catalog's charts.headline.backends of workload: backends in order of
    preference, [] when it names none or the catalog cannot be read."""
    try:
        cat = data.catalog()
    except catalog_mod.CatalogError:     # a broken catalog: the baselines' backends
        return []
    h = ((cat.workloads.get(workload) or {}).get("charts") or {}).get("headline") or {}
    return list(h.get("backends") or [])


def row_key(r):
    """A headline row: language (with its pinned version), style and shape."""
    lang = "%s@%s" % (r["lang"], r["runtime"]) if r.get("runtime") else r["lang"]
    return (lang, r["style"], r.get("shape") or "")


def _and(items):
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def row_label(r):
    """A row's label: language[@version]/style[-shape] (the title names the backends)."""
    lang, style, shape = row_key(r)
    return "%s/%s%s" % (lang, style, "-" + shape if shape else "")


def version(r):
    """r's pinned runtime version as a sortable tuple, () for the host's runtime."""
    return tuple(int(p) for p in r["runtime"].split(".")) if r.get("runtime") else ()


def choose(rows, preferred, pick=st.same_language):
    """(shown, left): of rows with a same-language ratio, timed in-process (or,
    when none is, by the first method in the suite's order), on the host's
    runtime of their language (else its newest pinned version: a runtimes
    run), the one variant of each row_key and mode on the first backend of
    preferred measured, else on its baseline's backend, else the first by
    name; left is [(row, why)] of the other rows that have a ratio."""
    rated = [r for r in rows if pick(r) and pick(r)["ratio"] is not None]
    methods = sorted({r.get("method") or "inprocess" for r in rated},
                     key=lambda m: (st._index(st.VOCAB["methods"], m), m))
    method = "inprocess" if "inprocess" in methods else (methods[0] if methods else None)
    # Per language one runtime: the host's (unpinned), else the newest pinned version.
    runtime = {}
    for r in rated:
        v = version(r)
        if r["lang"] not in runtime or (runtime[r["lang"]] and (not v or v > runtime[r["lang"]])):
            runtime[r["lang"]] = v
    groups, left = {}, []
    for r in rated:
        if version(r) != runtime[r["lang"]]:
            left.append((r, "%s (%s)" % (OTHER_RUNTIMES, r["runtime"] or "the host's")))
        elif (r.get("method") or "inprocess") != method:
            left.append((r, "%s (%s)" % (OTHER_METHODS, r.get("method"))))
        else:
            groups.setdefault(row_key(r) + (r["mode"],), []).append(r)
    shown = []
    for group in groups.values():
        def rank(r):
            b = r.get("backend") or ""
            base = (pick(r)["baseline"] or "").rsplit("@", 1)[-1]
            return (preferred.index(b) if b in preferred else len(preferred),
                    0 if b == base else 1, b, r["variant"])
        group.sort(key=rank)
        shown.append(group[0])
        left += [(r, OTHER_BACKENDS) for r in group[1:]]
    return shown, left


class Grid(layout.Panels):
    """Panels side by side: one column per mode, the same rows in each (a row
    label on the left of the first only), each column its own log axis with
    its values right of it."""

    GAP_PX = 14

    def __init__(self, prog, output, workload, title, columns, rows, legend, note, summary):
        self.rows = rows
        super().__init__(prog, output, "headline", workload, title,
                         [(c, rows) for c in columns],
                         "x baseline (log)", legend, note, summary,
                         label=lambda r: r["row_label"])
        for ax in self.axes[1:]:
            ax.tick_params(labelleft=False)

    def _heights(self, fixed_in):
        room = (MAX_HEIGHT_PX - 1) / float(st.DPI) - fixed_in - self.ABOVE_IN - self.BELOW_IN \
            - 0.2
        row_in = max(ROW_MIN_IN, min(self.ROW_IN, room / max(len(self.rows), 1)))
        return [row_in * max(len(self.rows), 1) + 0.2]

    def _place(self, y, total, heights, renderer, width_px, margin_px):
        label_px = max([t.get_window_extent(renderer).width for t in self.axes[0].get_yticklabels()
                        if t.get_text()] + [40])
        value_px = [max([t.get_window_extent(renderer).width for t in vs] + [0]) + 16
                    for vs in self.values]
        x0 = label_px + margin_px + 12
        plot_px = (width_px - margin_px - x0 - sum(value_px) - self.GAP_PX * (len(self.axes) - 1)) \
            / float(len(self.axes))
        h = heights[0]
        y -= self.ABOVE_IN + h
        for ax, vpx in zip(self.axes, value_px):
            ax.set_position([x0 / width_px, y / total, plot_px / width_px, h / total])
            ax.set_title(ax.get_title(loc="left"), loc="left", fontweight="bold",
                         pad=self.title_pad)
            ratio_ticks(ax, plot_px)
            x0 += plot_px + vpx + self.GAP_PX


def subtitle(shown, left, workload, ratio_chart):
    """The title's second line when variants with a ratio were left out: what
    each cell shows (per language its version when pinned and its backends,
    languages alike together) and where the others are; "" when none was."""
    if not left:
        return ""
    shown_as = {}
    for r in shown:
        lang = st.LANG_NAMES.get(r["lang"], r["lang"]) + (" " + r["runtime"] if r.get("runtime")
                                                          else "")
        bs = shown_as.setdefault(lang, [])
        if r.get("backend") and r["backend"] != "none" and r["backend"] not in bs:
            bs.append(r["backend"])
    same = {}
    for lang, bs in shown_as.items():
        same.setdefault(tuple(bs), []).append(lang)
    what = "; ".join("%s %s" % (_and(ls), ", ".join(bs)) for bs, ls in same.items() if bs
                     or any(" " in lang for lang in ls))
    whys = []
    if any(why == OTHER_BACKENDS for _, why in left):
        whys.append("other backends")
    methods = sorted({r.get("method") for r, why in left if why.startswith(OTHER_METHODS)})
    if methods:
        whys.append("%s timings" % ", ".join(methods))
    if any(why.startswith(OTHER_RUNTIMES) for _, why in left):
        whys.append("other versions")
    charts = ["ratio-%s.png" % workload] if ratio_chart else []
    return "\nOne variant a cell%s; the %d others (%s): %s" % (
        " (%s)" % what if what else "", len(left), ", ".join(whys),
        _and(charts + ["time-%s.png" % workload]))


def draw(data, workload=None, out=None):
    """The chart of workload (the run's only one when None) into out (None:
    RUNDIR/charts/headline-<workload>.png); ChartError when it cannot be drawn."""
    pick = st.same_language
    summary = data.summary
    workload, rows, out = rundata.run_rows(PROG, "headline", data, workload, out)
    shown, left = choose(rows, preferred_backends(data, workload), pick)
    if not shown:
        rundata.die(PROG, "no variant of %s has a ratio to draw" % workload, 1)
    shown.sort(key=st.variant_order)
    keys = []
    for r in shown:
        if row_key(r) not in keys:
            keys.append(row_key(r))
    cols = sorted({st.panel_key(r) for r in shown})
    cell = {(row_key(r), st.panel_key(r)): r for r in shown}
    # A row's label: language/style[-shape] (the title names the backends).
    grid_rows = [{"row_label": row_label(next(r for r in shown if row_key(r) == k)), "key": k}
                 for k in keys]
    labels = []
    for r in shown:
        if pick(r)["label"] not in labels:
            labels.append(pick(r)["label"])
    title = ("Does the style cost anything? Each style against %s of the same language and "
             "mode (ratio of times, 95%% CI)" % " / ".join(labels))
    title += subtitle(shown, left, workload, ratios.has_ratio(rows, "against_baseline"))
    noun = st.unit_noun(summary, workload)
    note = ("Hollow: the baseline itself. " + layout.ratio_words(summary).replace("%", "%%") +
            ", the whisker its 95%% CI. Solid and bold: significant; faded with ~: "
            "not named: its CI includes 1 (no measurable difference) or, with a whisker clear "
            "of 1, its test did not survive the false discovery rate control over the run's "
            "comparisons (too few rounds: REPORT.md); ?: too few paired rounds for "
            "a test; -: not run in that mode. Each column has its own axis; the line is 1.0 (as "
            "fast as the baseline). The difference per %s: REPORT.md." % noun)
    p = Grid(PROG, out, workload, title, [st.panel_title(c[1], c[3]) for c in cols], grid_rows,
             st.style_handles(shown, "dot"), note, summary)
    for r, why in left:
        p.omit(r, why)
    rated = {r["variant"] for r in shown} | {r["variant"] for r, _ in left}
    layout.omit_unrated(p, rows, [r for r in rows if r["variant"] not in rated], pick)
    for k, c in enumerate(cols):
        ax = p.axes[k]
        vals = []
        for y, g in enumerate(grid_rows):
            r = cell.get((g["key"], c))
            if r is None:
                p.value(k, y, "-")
                continue
            q = pick(r)
            if q["is_baseline"]:
                ax.plot([1.0], [y], marker=st.LANG_MARKER.get(r["lang"], "v"), markersize=10,
                        markerfacecolor="white", markeredgecolor=st.row_color(r),
                        markeredgewidth=2, linestyle="none")
                p.point(k, r, 1.0, baseline=q["baseline"], significant=None, row=y)
                p.value(k, y, "baseline")
                continue
            layout.dot(ax, y, r, q["ratio"], q["low"], q["high"], q["significant"])
            p.point(k, r, q["ratio"], q["low"], q["high"], baseline=q["baseline"],
                    significant=q["significant"], diff_per_op_ns=q.get("diff"), row=y)
            mark = "~" if q["significant"] is False else ("?" if q["significant"] is None else "")
            p.value(k, y, fmt.ratio(q["ratio"], mark=mark), q["significant"])
            vals += [q["ratio"], q["low"], q["high"]]
        ax.axvline(1.0, color="black", linewidth=1.2, zorder=1)
        layout.log_limits(ax, vals, pad=1.15, include_one=True)
    return p.finish()


def ratio_ticks(ax, plot_px):
    """Ticks of a column's log ratio axis (0.5x, 1x, 2x), plot_px wide
    (layout.log_ticks)."""
    from matplotlib.ticker import FuncFormatter
    layout.log_ticks(ax, plot_px)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: "%gx" % float("%.2g" % v)))


def main(argv):
    return rundata.cli(PROG, __doc__, "headline", argv, draw)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
