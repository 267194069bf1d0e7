"""layout.py -- how a chart of runner/report/charts/ is laid out: the panels (Panels: one
panel per mode and method, each with its own axis, variant labels on the left
and the values in a column of their own on the right), the title, legend and
footnote around them, the axes (log limits, ratio and plain ticks) and the dots
with their CIs, the chart of ratios that several charts share (ratio_chart),
the sidecar JSON and the check of the rendered figure (figure.py).  The look
(colours, markers, sizes, order) is style.py's.
"""
import math
import sys

from ...core import fmt
from ...analysis import summary as sm  # (what a summary row holds)
from .figure import check_figure, save_drawn, write_sidecar
from .rundata import die, run_rows
from .style import DPI, FONT_PT, LANG_MARKER, MIN_PT_AT_GITHUB, WIDTH_IN, emphasis, panels, plt, ratio_text, row_color, short_label, style_handles, unit_noun, variant_order


def omit_unrated(p, rows, unrated, pick):
    """Records in the chart p why each row of unrated has no ratio to draw (no
    baseline of its language in its mode, a baseline with no valid run, or no
    round with both valid; pick(row) gives a row's ratio to its baseline) and
    names them in its note."""
    measured = {r["variant"] for r in rows if r.get("n")}
    for r in unrated:
        if not pick(r):
            why = "no baseline of its own language in its mode"
        elif pick(r)["baseline"] not in measured:
            why = "no ratio: the baseline has no valid run here"
        else:
            why = "no ratio: no round with both runs valid"
        p.omit(r, why)
    if unrated:
        names = {r["variant"] for r in unrated}
        p.note_text += " Not shown (%s): %s." % (
            "; ".join(sorted({o["why"] for o in p.omitted if o["variant"] in names})),
            ", ".join(r["label"] for r in unrated))


def host_note(summary, workload=None):
    """The host and the run (the workload's rounds when it is named), for the footnote."""
    run, host = summary.get("run", {}), summary.get("host", {})
    parts = []
    if host.get("cpu_model"):
        parts.append("%s, %s cores" % (host["cpu_model"], host.get("cores", "?")))
    if host.get("os"):
        parts.append(host["os"])
    if host.get("libuv"):
        parts.append("libuv %s" % host["libuv"])
    if host.get("go"):
        parts.append(host["go"].replace("go version ", ""))
    if host.get("node"):
        parts.append("node %s" % host["node"])
    incomplete = " INCOMPLETE RUN." if run.get("complete") is False else ""
    rounds = sm.workload_rounds(run, workload) if workload else run.get("rounds", "?")
    ls = run.get("lockstep")
    locked = (", then %s lockstep sessions" % ls.get("sessions_run")
              if isinstance(ls, dict) and ls.get("sessions_run") else "")
    return "%s. Run %s: %s round%s%s, shuffled order (shuffle seed %s).%s" % (
        "; ".join(parts) or "host %s" % host.get("slug", "?"), run.get("stamp", "?"),
        rounds, "" if str(rounds) == "1" else "s", locked, run.get("seed", "?"), incomplete)


def ratio_words(summary):
    """How the chart's ratios were taken, for its note: from lockstep sessions
    where the run had them (DESIGN section 7), else from paired rounds."""
    ls = (summary.get("run") or {}).get("lockstep")
    if isinstance(ls, dict) and ls.get("sessions_run"):
        return ("A ratio is the geometric mean of its lockstep sessions' figures (of per-round "
                "ratios where a pass was too long for lockstep)")
    return "A ratio is the median of per-round ratios (runs paired within a round)"


class Panels:
    """A chart of panels stacked downwards, one per group of rows (a mode, or a
    mode's whole-process timings), each with its own x axis.  Row i of a panel
    is at y = i (top to bottom); its label on the left, and a value column on
    the right outside the axes, so that no value collides with a whisker.

    Draw into self.axes[k]; record what is plotted with point() (it goes to the
    sidecar JSON); put the text of a row's value with value(); finish() lays the
    figure out from the measured texts, checks it and writes the PNG and the
    sidecar."""

    ROW_IN = 0.36
    ABOVE_IN = 0.42       # a panel's title
    BELOW_IN = 0.80       # tick labels and the axis label under a panel

    LINES_IN = 3.2        # the plot of a panel of lines (lines=True)

    def __init__(self, prog, output, chart, workload, title, groups, xlabel,
                 legend=(), note="", summary=None, label=short_label, lines=False):
        """groups: [(panel title, rows)]; label(row) is a row's label on the
        left.  With lines=True a panel is a plot of lines (x against a value,
        its own y axis) of a fixed height instead of a row per variant; its
        rows are the variants it draws."""
        self.prog, self.output, self.chart, self.workload = prog, output, chart, workload
        self.groups = groups
        self.lines = lines
        # A line panel's top tick label may stand at its top edge: its title
        # keeps clear of it.
        self.title_pad = 16 if lines else 6
        self.fig = plt.figure(figsize=(WIDTH_IN, 6), dpi=DPI)
        self.axes = []
        for ptitle, rows in groups:
            ax = self.fig.add_axes([0.3, 0.1, 0.4, 0.2])
            ax.set_title(ptitle, loc="left", fontweight="bold", pad=self.title_pad)
            if not lines:
                ax.set_yticks(range(len(rows)))
                ax.set_yticklabels([label(r) for r in rows])
                ax.set_ylim(max(len(rows), 1) - 0.5, -0.5)
            ax.set_xlabel(xlabel)
            ax.grid(axis="both" if lines else "x", which="major", alpha=0.3)
            ax.set_axisbelow(True)
            self.axes.append(ax)
        self.title_text = self.fig.text(0.01, 0.99, title, ha="left", va="top",
                                        fontweight="bold")
        self.legend_handles = list(legend)
        self.note_text = note
        self.summary = summary or {}
        self.values = [[] for _ in groups]
        self.value_log = []
        self.points = []
        self.omitted = []

    def point(self, k, r, value, low=None, high=None, **extra):
        """Records one plotted value of row r in panel k for the sidecar."""
        p = {"panel": self.groups[k][0], "variant": r["variant"], "value": value,
             "low": low, "high": high}
        p.update(extra)
        self.points.append(p)

    def omit(self, r, why):
        """Records a variant the chart leaves out, and why (said in the note too)."""
        self.omitted.append({"variant": r["variant"], "why": why})

    def value(self, k, y, text, significant=None):
        """The text of row y of panel k, in the value column right of the axes."""
        e = emphasis(significant)
        t = self.axes[k].annotate(text, xy=(1.0, y), xycoords=("axes fraction", "data"),
                                  xytext=(10, 0), textcoords="offset points", ha="left",
                                  va="center", fontweight=e["weight"], color="black",
                                  alpha=max(e["alpha"], 0.6))
        self.values[k].append(t)
        self.value_log.append({"panel": self.groups[k][0], "row": y, "text": text,
                               "weight": e["weight"], "alpha": t.get_alpha()})
        return t

    def _heights(self, fixed_in):
        """The height of each panel's plot (inches); fixed_in is what the title,
        legend and note take."""
        return [self.LINES_IN if self.lines else self.ROW_IN * max(len(rows), 1) + 0.2
                for _, rows in self.groups]

    def _place(self, y, total, heights, renderer, width_px, margin_px):
        """Positions the panels downwards from y (inches from the bottom), and
        spaces the labels of a panel of rows' log x axis whose locator is the
        span's (ratio_axis, plain_log_axis) for the width it got."""
        from matplotlib.ticker import LogLocator
        # Left: the widest row label; right: the widest value.
        label_px = max([t.get_window_extent(renderer).width for ax in self.axes
                        for t in ax.get_yticklabels() if t.get_text()] + [40])
        value_px = max([t.get_window_extent(renderer).width for vs in self.values for t in vs]
                       + [0])
        left = (label_px + margin_px + 12) / width_px
        right = 1.0 - (value_px + margin_px + (16 if value_px else 8)) / width_px
        for ax, h in zip(self.axes, heights):
            y -= self.ABOVE_IN + h
            ax.set_position([left, y / total, right - left, h / total])
            if not self.lines and ax.get_xscale() == "log" \
                    and isinstance(ax.xaxis.get_major_locator(), LogLocator):
                log_ticks(ax, (right - left) * width_px)
            # The panel's title starts at the figure's left margin: the whole
            # width is its own.
            ax.set_title(ax.get_title(loc="left"), loc="left", fontweight="bold",
                         pad=self.title_pad,
                         x=(margin_px / width_px - left) / (right - left))
            y -= self.BELOW_IN

    # -- layout

    def _wrap(self, text, renderer, width_px, **kw):
        """text wrapped to lines no wider than width_px, measured with the
        renderer at the chart's font size."""
        from matplotlib.font_manager import FontProperties
        prop = FontProperties(size=FONT_PT, **kw)
        lines = []
        for para in text.split("\n"):
            words, cur = para.split(" "), ""
            for w in words:
                trial = (cur + " " + w).strip()
                wpx = renderer.get_text_width_height_descent(trial, prop, ismath=False)[0]
                if cur and wpx > width_px:
                    lines.append(cur)
                    cur = w
                else:
                    cur = trial
            lines.append(cur)
        return "\n".join(lines)

    def finish(self):
        fig = self.fig
        renderer = fig.canvas.get_renderer()
        width_px = WIDTH_IN * DPI
        margin_px = 0.012 * width_px
        line_in = FONT_PT * 1.35 / 72.0
        # Title, note and legend wrapped to the width.
        self.title_text.set_text(self._wrap(self.title_text.get_text(), renderer,
                                            width_px - 2 * margin_px, weight="bold"))
        note = self.note_text + ("\n" if self.note_text else "") + host_note(self.summary, self.workload)
        note = self._wrap(note, renderer, width_px - 2 * margin_px)
        title_h = line_in * (self.title_text.get_text().count("\n") + 1) + 0.12
        legend_rows, legend = 0, None
        if self.legend_handles:
            # None in the handles starts a new row (styles, then languages).
            blocks = [[]]
            for h in self.legend_handles:
                if h is None:
                    blocks.append([])
                else:
                    blocks[-1].append(h)
            blocks = [b for b in blocks if b]
            ncol = max(len(b) for b in blocks)
            while True:
                padded = [h for b in blocks for h in b + [_blank()] * (-len(b) % ncol)]
                legend = fig.legend(handles=row_major(padded, ncol),
                                    loc="upper left", ncol=ncol,
                                    frameon=False, handlelength=1.6, columnspacing=1.2,
                                    borderaxespad=0.0, bbox_to_anchor=(0.005, 0.9))
                if legend.get_window_extent(renderer).width <= width_px - 2 * margin_px \
                        or ncol == 1:
                    break
                legend.remove()
                ncol -= 1
            legend_rows = math.ceil(len(padded) / float(ncol))
        legend_h = legend_rows * line_in * 1.25 + (0.1 if legend_rows else 0)
        note_h = line_in * (note.count("\n") + 1) + 0.15
        heights = self._heights(title_h + legend_h + note_h)
        total = title_h + legend_h + sum(h + self.ABOVE_IN + self.BELOW_IN for h in heights) \
            + note_h
        # Whole pixels (Agg truncates the figure's size to its PNG's).
        total = (round(total * DPI) + 0.01) / float(DPI)
        fig.set_size_inches(WIDTH_IN, total)
        fig.canvas.draw()
        y = total - title_h
        if legend is not None:
            legend.set_bbox_to_anchor((0.005, y / total), transform=fig.transFigure)
        self._place(y - legend_h, total, heights, fig.canvas.get_renderer(), width_px, margin_px)
        self.title_text.set_position((0.01, 1.0 - 0.06 / total))
        fig.text(0.01, (note_h - 0.1) / total, note, ha="left", va="top", color="#222222")
        check = check_figure(fig)      # draws the figure as laid out here
        # Said when drawing, so that whoever changes a chart sees it (the tests fail on it).
        for a, b in check["overlaps"]:
            print("%s: warning: %r overlaps %r" % (self.prog, a, b), file=sys.stderr)
        for t in check["outside"]:
            print("%s: warning: %r leaves the figure" % (self.prog, t), file=sys.stderr)
        if check["smallest_pt_at_github"] < MIN_PT_AT_GITHUB:
            print("%s: warning: text of %s pt at GitHub's width (under %s)"
                  % (self.prog, check["smallest_pt_at_github"], MIN_PT_AT_GITHUB),
                  file=sys.stderr)
        save_drawn(fig, self.output)
        write_sidecar(self.output, {
            "chart": self.chart, "workload": self.workload,
            "variants": sorted({p["variant"] for p in self.points}),
            "omitted": self.omitted, "panels": [g[0] for g in self.groups],
            "points": self.points, "values": self.value_log, "layout": check})
        plt.close(fig)
        return 0


def _blank():
    """An empty legend entry, to end a row of the legend early."""
    from matplotlib.lines import Line2D
    return Line2D([], [], linestyle="none", label=" ")


def row_major(handles, ncol):
    """handles reordered so that a legend, which fills its columns first, reads
    row by row."""
    nrows = math.ceil(len(handles) / float(ncol))
    rows = [handles[i:i + ncol] for i in range(0, len(handles), ncol)]
    out = []
    for c in range(ncol):
        for r in range(nrows):
            if c < len(rows[r]):
                out.append(rows[r][c])
    return out


def ratio_chart(prog, prefix, data, workload, out, pick, what):
    """A chart of ratios to a baseline: per panel (mode and method), each
    variant's ratio as a dot with its 95% CI on a log axis around the line at
    1.0; solid and bold when the difference is significant, faded with ~ when
    not.  pick(row) gives the row's ratio (a dict as same_language() returns)
    or None when it has none (the variant is left out and the note says so);
    what(labels) the chart's title from the baselines' labels."""
    summary = data.summary
    workload, rows, out = run_rows(prog, prefix, data, workload, out)
    shown, left_out = [], []
    for r in rows:
        (shown if pick(r) and pick(r)["ratio"] is not None else left_out).append(r)
    if not shown:
        die(prog, "no variant of %s has a ratio to draw" % workload, 1)
    labels = []
    for r in sorted(shown, key=variant_order):
        if pick(r)["label"] not in labels:
            labels.append(pick(r)["label"])
    groups = panels(shown)
    noun = unit_noun(summary, workload)
    p = Panels(prog, out, prefix, workload, what(labels), groups,
               "time / baseline's time (log; lower is better)", style_handles(shown, "dot"),
               "Hollow: the baseline itself. " + ratio_words(summary) + ", the "
               "whisker its 95%% CI. Solid and bold: significant; faded with ~: not named: "
               "its CI includes 1 (no measurable difference) or, with a whisker clear of 1, its "
               "test did not survive the false discovery rate control over the run's comparisons "
               "(too few rounds: REPORT.md); ?: too few paired rounds "
               "for a test. Each panel has its own axis; the line is 1.0 (as fast as the "
               "baseline). After the ratio, when the summary has it: the difference per %s."
               % noun, summary)
    omit_unrated(p, rows, left_out, pick)
    for k, (_, grows) in enumerate(groups):
        ax = p.axes[k]
        vals = []
        for y, r in enumerate(grows):
            q = pick(r)
            if q["is_baseline"]:
                ax.plot([1.0], [y], marker=LANG_MARKER.get(r["lang"], "v"), markersize=10,
                        markerfacecolor="white", markeredgecolor=row_color(r),
                        markeredgewidth=2, linestyle="none")
                p.point(k, r, 1.0, baseline=q["baseline"], significant=None, row=y)
                p.value(k, y, "baseline")
                continue
            dot(ax, y, r, q["ratio"], q["low"], q["high"], q["significant"])
            p.point(k, r, q["ratio"], q["low"], q["high"], baseline=q["baseline"],
                    significant=q["significant"], diff_per_op_ns=q.get("diff"), row=y)
            text = ratio_text(q["ratio"], q["low"], q["high"], q["significant"], tested=True)
            if q.get("diff") is not None:
                text += ", %s" % fmt.ns(q["diff"], sign=True, grouping=True)
            p.value(k, y, text, q["significant"])
            vals += [q["ratio"], q["low"], q["high"]]
        ax.axvline(1.0, color="black", linewidth=1.2, zorder=1)
        log_limits(ax, vals, pad=1.15, include_one=True)
        ratio_axis(ax)
    return p.finish()


def log_limits(ax, values, pad=1.25, include_one=False):
    """x limits of a log axis around values (and 1.0), with room on both sides."""
    vals = [v for v in values if v is not None and v > 0]
    if include_one:
        vals.append(1.0)
    lo, hi = min(vals), max(vals)
    if hi / lo < 1.5:
        mid = math.sqrt(hi * lo)
        lo, hi = mid / 1.25, mid * 1.25
    ax.set_xscale("log")
    ax.set_xlim(lo / pad, hi * pad)


TICK_SETS = ((1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 7.0), (1.0, 1.5, 2.0, 3.0, 5.0, 7.0),
             (1.0, 2.0, 5.0), (1.0, 3.0), (1.0,))
TICK_GAP_PX = 60         # between two tick labels' centres: "0.05x" is about 45 px wide
TICK_CHAR_PX = 9         # a tick label's character, about, and the room beside it
TICK_MARGIN_PX = 10


def log_ticks(ax, plot_px):
    """The ticks of a log x axis plot_px wide, once it is placed: the densest
    of TICK_SETS whose labels stand TICK_GAP_PX apart, and further where two
    neighbours' labels are long ("30,000" beside "100,000": half of each one's
    TICK_CHAR_PX a character, and TICK_MARGIN_PX; its formatter stays).  A
    locator chosen by the span alone put "0.05" on "0.1" in a narrow panel."""
    from matplotlib.ticker import FixedLocator, NullFormatter
    lo, hi = ax.get_xlim()
    span = math.log(hi / lo)
    fmt = ax.xaxis.get_major_formatter()
    for subs in TICK_SETS:
        ticks = [k * 10.0 ** e for e in range(int(math.floor(math.log10(lo))) - 1,
                                               int(math.ceil(math.log10(hi))) + 1)
                 for k in subs if lo <= k * 10.0 ** e <= hi]
        labels = [len(str(fmt(t, i))) for i, t in enumerate(ticks)]
        fits = all(math.log(b / a) / span * plot_px
                   >= max(TICK_GAP_PX, (la + lb) / 2.0 * TICK_CHAR_PX + TICK_MARGIN_PX)
                   for a, b, la, lb in zip(ticks, ticks[1:], labels, labels[1:]))
        if fits:
            break
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_minor_formatter(NullFormatter())


def ratio_axis(ax):
    """Tick labels of a ratio axis: 0.5x, 1x, 2x; intermediate ticks when the
    axis spans less than about two decades, so that a few are always labelled."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
    lo, hi = ax.get_xlim()
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: "%gx" % float("%.2g" % v)))
    if hi / lo < 12:
        ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 1.5, 2.0, 3.0, 5.0, 7.0)))
    elif hi / lo < 150:
        ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.xaxis.set_minor_formatter(NullFormatter())


def plain_log_axis(ax, which="x"):
    """Plain numbers (not 10^k) on a log axis (x, or y with which="y"), with
    intermediate ticks when it spans less than three decades."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
    axis = ax.xaxis if which == "x" else ax.yaxis
    lo, hi = ax.get_xlim() if which == "x" else ax.get_ylim()
    axis.set_major_formatter(FuncFormatter(lambda v, _: "{:,g}".format(float("%.2g" % v))))
    if hi / lo < 1000:
        axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axis.set_minor_formatter(NullFormatter())


def dot(ax, y, r, value, low=None, high=None, significant=None, marker=None, color=None):
    """A dot with its CI as a horizontal whisker, emphasised by significance."""
    e = emphasis(significant)
    color = color or row_color(r)
    if low is not None and high is not None:
        ax.plot([low, high], [y, y], color=color, alpha=e["alpha"],
                linewidth=3 if significant else 2, solid_capstyle="butt")
    ax.plot([value], [y], marker=marker or LANG_MARKER.get(r["lang"], "v"), markersize=9,
            color=color, markeredgecolor="black", alpha=e["alpha"], linestyle="none")
