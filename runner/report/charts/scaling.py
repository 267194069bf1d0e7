"""scaling.py -- what the three scaling charts share (scaling_n_chart.py,
scaling_k_chart.py, scaling_env_chart.py): the points of a sweep along one
axis, one line per variant, log-log panels.  Not a chart itself.

A sweep (the scaling profile, catalog/suite.json) varies one thing at a
time from each variant's base point: N, K (bounded variants) or an environment
variable (UV_THREADPOOL_SIZE, for the variants on libuv's threadpool).
RUNDIR/summary.json's "points" holds a row per variant and point; the base
point's row stands on every axis at the base's value.

Laid out by layout.Panels like every chart (1000 px wide, 13 pt text): the
panels (time, ratio, memory) stack downwards, each a log-log plot of lines
with its own y axis; colour = style, line = language, marker = mode, and the
marker's fill tells apart variants alike on other backends.  The sidecar
JSON lists every point drawn (variant, x, value, CI) and the variants left
out (fewer than two points along the axis).
"""
import math

from matplotlib.ticker import FuncFormatter, NullFormatter

from . import layout
from . import rundata
from . import style as st

LANG_LINE = {"c": "-", "go": ":", "node": "--", "rust": (0, (5, 1, 1, 1, 1, 1))}
MODE_MARKER = {"sequential": "o", "parallel": "s", "bounded": "^"}


def env_default(summary, workload, name):
    """The value of variable `name` that the base point stands for (the sweep's
    default), or None when the catalog gave none."""
    for ax in ((summary.get("run") or {}).get("sweep") or {}).get(workload) or []:
        if ax.get("axis") == "env" and ax.get("name") == name and "default" in ax:
            return ax["default"]
    return None


def series(summary, workload, kind):
    """(axis name, {variant id: [(x, row)] sorted by x}) of the points along one
    kind of axis: "iterations", "concurrency" or "env" (the first variable the
    sweep varies).  The base point joins each variant that has points there."""
    pts = [p for p in summary.get("points") or [] if p["workload"] == workload]
    if kind == "env":
        names = sorted({p["axis"] for p in pts if p["axis"] not in ("", "iterations", "concurrency")})
        name = names[0] if names else None
    else:
        name = kind
    lines = {}
    for p in pts:
        if name and p["axis"] == name and p.get("median_ms") is not None:
            lines.setdefault(p["variant"], []).append((p["x"], p))
    for p in pts:
        if p["axis"] or p["variant"] not in lines or p.get("median_ms") is None:
            continue
        x = p[kind] if kind != "env" else env_default(summary, workload, name)
        if x is not None:
            lines[p["variant"]].append((x, p))
    return name, {v: sorted(xs, key=lambda t: t[0]) for v, xs in lines.items()}


def short(v, _pos=None):
    """A tick label on a log axis: 100, 1k, 10k, 1M, 0.5."""
    for div, suffix in ((1e6, "M"), (1e3, "k")):
        if v >= div:
            return "%g%s" % (v / div, suffix)
    return "%g" % v


def per_op_ns(p):
    return st.per_op_ns(p, p.get("median_ms"))


# What each kind of panel plots: its title (%(unit)s and %(noun)s filled in)
# and a point's value (in ns for the time, scaled to the panel's unit).
PANELS = {
    "time": ("time per %(noun)s, %(unit)s (median, 95%% CI; lower is better)", per_op_ns),
    "ratio": ("time / the C baseline's at the same point (lower is better)",
              lambda p: p.get("ratio")),
    "memory": ("peak RSS of the process, MiB (lower is better)",
               lambda p: p["proc_peak_rss_kb"] / 1024.0 if p.get("proc_peak_rss_kb") else None),
}


# Variants of the same style, language and mode (on other backends) are told
# apart by the fill of their markers, in variant order.
FILLS = ("full", "none", "left", "bottom", "right", "top")


def fills(rows):
    """{variant id: marker fill style} for rows in variant order."""
    seen, out = {}, {}
    for r in rows:
        key = (st.style_key(r), r["lang"], r["mode"])
        out[r["variant"]] = FILLS[seen.get(key, 0) % len(FILLS)]
        seen[key] = seen.get(key, 0) + 1
    return out


def line_style(r, fill):
    """How a variant's line is drawn: colour = style, line = language, marker =
    mode, its fill = which of the variants alike."""
    return {"color": st.row_color(r), "linestyle": LANG_LINE.get(r["lang"], "-."),
            "marker": MODE_MARKER.get(r["mode"], "D"), "markersize": 8, "linewidth": 2,
            "fillstyle": fill, "markerfacecoloralt": "white"}


def line_handle(r, fill):
    """A variant's legend entry, drawn as its line."""
    from matplotlib.lines import Line2D
    return Line2D([], [], label=r["label"], **line_style(r, fill))


def chart(prog, prefix, data, workload, out, kind, xlabel, panels):
    """A scaling chart of workload (the run's only one when None) into out (None:
    RUNDIR/charts/<prefix>-<workload>.png): the sweep's points along kind, the
    panels named (PANELS' keys); ChartError when it cannot be drawn."""
    summary = data.summary
    if not summary.get("points"):
        rundata.die(prog, "%s has no sweep (run the scaling profile: make compare PROFILE=scaling)"
               % data.path, 1)
    workload, _ = rundata.pick_workload(prog, summary["points"], workload)
    name, lines = series(summary, workload, kind)
    short_lines = {v: xs for v, xs in lines.items() if len(xs) < 2}
    lines = {v: xs for v, xs in lines.items() if len(xs) >= 2}
    if not lines:
        rundata.die(prog, "no variant of %s has two points along %s" % (workload, kind), 1)
    out = rundata.output_path(prog, data.path, out, "%s-%s.png" % (prefix, workload))
    noun = st.unit_noun(summary, workload)
    rows = sorted((xs[0][1] for xs in lines.values()), key=st.variant_order)
    tunit, tscale = st.time_unit([per_op_ns(row) for xs in lines.values() for _, row in xs])
    xname = "%s (threads)" % name if kind == "env" else xlabel
    groups, values = [], []
    for panel in panels:
        title, value = PANELS[panel]
        if panel == "time":
            value = (lambda p: per_op_ns(p) / tscale if per_op_ns(p) else None)
        # A variant that is its own baseline has no ratio: no line there.
        prows = [r for r in rows if (panel != "ratio" or r.get("baseline") not in
                                     (None, r["variant"]))
                 and sum(1 for _, row in lines[r["variant"]] if value(row)) >= 2]
        if prows:
            groups.append((title % {"noun": noun, "unit": tunit}, prows))
            values.append((panel, value))
    note = ("Log-log; each point the median of its rounds (whiskers: 95% CI), a variant's "
            "other figures at the base point. Colour = style; line: C solid, Go dotted, Node "
            "dashed; marker: o sequential, s parallel, ^ bounded; its fill (full, hollow, half) "
            "tells apart variants alike on other backends.")
    fill = fills(rows)
    if "ratio" in panels and "ratio" not in [v[0] for v in values]:
        note += " No ratio to the C baseline: no variant here has one."
    p = layout.Panels(prog, out, prefix, workload,
                  "%s: scaling with %s, host %s" % (workload, xname,
                                                    summary.get("host", {}).get("slug", "?")),
                  groups, xname, [line_handle(r, fill[r["variant"]]) for r in rows], note,
                  summary, lines=True)
    for vid in sorted(short_lines):
        p.omit(short_lines[vid][0][1], "fewer than two points along %s" % kind)
    if short_lines:
        p.note_text += " Not drawn (fewer than two points): %s." % ", ".join(
            short_lines[v][0][1]["label"] for v in sorted(short_lines))
    ticks = sorted({x for xs in lines.values() for x, _ in xs if isinstance(x, (int, float))})
    for k, ((_, prows), (panel, value)) in enumerate(zip(groups, values)):
        ax = p.axes[k]
        for r in prows:
            pts = [(x, value(row), row) for x, row in lines[r["variant"]] if value(row)]
            xs, ys = [x for x, _, _ in pts], [y for _, y, _ in pts]
            ax.plot(xs, ys, zorder=3, **line_style(r, fill[r["variant"]]))
            for x, y, row in pts:
                lo = hi = None
                if panel == "time" and row.get("ci_low_ms") is not None:
                    lo = st.per_op_ns(row, row["ci_low_ms"]) / tscale
                    hi = st.per_op_ns(row, row["ci_high_ms"]) / tscale
                    ax.plot([x, x], [lo, hi], color=st.row_color(r), linewidth=1.2)
                elif panel == "ratio" and row.get("ratio_ci_low") is not None:
                    lo, hi = row["ratio_ci_low"], row["ratio_ci_high"]
                    ax.plot([x, x], [lo, hi], color=st.row_color(r), linewidth=1.2)
                p.point(k, r, y, lo, hi, x=x, point=row.get("point") or "base",
                        unit={"time": "%s/%s" % (tunit, noun), "ratio": "x",
                              "memory": "MiB"}[panel])
        if panel == "ratio":
            ax.axhline(1.0, color="black", linewidth=1.0)
        ax.set_xscale("log", base=2 if kind != "iterations" else 10)
        ax.set_xticks(ticks)
        ax.set_xlim(ticks[0] / 1.5, ticks[-1] * 1.5)
        ax.xaxis.set_major_formatter(FuncFormatter(short))
        ax.xaxis.set_minor_formatter(NullFormatter())
        ys = [y for line in ax.get_lines() for y in line.get_ydata() if y and y > 0]
        if panel == "ratio":
            ys.append(1.0)
        lo, hi = min(ys), max(ys)
        if hi / lo < 2:
            mid = math.sqrt(hi * lo)
            lo, hi = mid / 1.5, mid * 1.5
        ax.set_yscale("log")
        ax.set_ylim(lo / 1.25, hi * 1.25)
        layout.plain_log_axis(ax, "y")
    return p.finish()
