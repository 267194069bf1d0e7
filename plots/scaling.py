"""scaling.py -- what the three scaling charts share (scaling_n_chart.py,
scaling_k_chart.py, scaling_env_chart.py): the points of a sweep along one
axis, one line per variant, log-log panels.  Not a chart itself.

A sweep (the scaling profile, runner/catalog/suite.json) varies one thing at a
time from each variant's base point: N, K (bounded variants) or an environment
variable (UV_THREADPOOL_SIZE, for the variants on libuv's threadpool).
RUNDIR/summary.json's "points" holds a row per variant and point; the base
point's row stands on every axis at the base's value.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import style as st  # noqa: E402
from matplotlib.ticker import FuncFormatter  # noqa: E402

LANG_LINE = {"c": "-", "go": ":", "node": "--"}
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


def per_op_us(p):
    return p["median_ms"] * 1000.0 / p["iterations"]


PANELS = {
    "time": ("time per operation, µs (median, 95% CI)", per_op_us),
    "ratio": ("time / C baseline's at the same point", lambda p: p.get("ratio")),
    "memory": ("peak RSS of the process, MiB", lambda p: p["peak_rss_kb"] / 1024.0
               if p.get("peak_rss_kb") else None),
}


def draw(prog, doc, argv, kind, xlabel, panels, prefix):
    p = st.parser(prog, doc)
    p.add_argument("rundir", help="a run folder of the scaling profile, e.g. results/latest")
    p.add_argument("-o", "--output", help="PNG to write (default: RUNDIR/charts/%s-<workload>.png)"
                   % prefix)
    p.add_argument("--workload", help="which workload (default: the only one)")
    args = p.parse_args(argv)
    summary = st.load_summary(prog, args.rundir)
    if not summary.get("points"):
        st.die(prog, "%s has no sweep (run the scaling profile: make compare PROFILE=scaling)"
               % args.rundir, 1)
    workload, _ = st.pick_workload(prog, summary["points"], args.workload)
    name, lines = series(summary, workload, kind)
    lines = {v: xs for v, xs in lines.items() if len(xs) >= 2}
    if not lines:
        st.die(prog, "no variant of %s has two points along %s" % (workload, kind), 1)
    out = st.output_path(prog, args, "%s-%s.png" % (prefix, workload))
    # At most ~1200 px wide (10.9 in at the charts' 110 dpi).
    fig, axes = st.plt.subplots(1, len(panels), figsize=(min(10.9, 2.9 * len(panels) + 2.6), 4.8),
                                squeeze=False)
    unit = st.operations(summary, workload).split(" ", 1)[1].rstrip("s")
    handles = {}
    ticks = sorted({x for xs in lines.values() for x, _ in xs if isinstance(x, (int, float))})
    for ax, panel in zip(axes[0], panels):
        ylabel, value = PANELS[panel]
        if panel == "time":
            ylabel = ylabel.replace("operation", unit)
        for vid, xs in sorted(lines.items()):
            r = xs[0][1]
            pts = [(x, value(row), row) for x, row in xs if value(row)]
            if panel == "ratio" and (r.get("baseline") in (None, vid)):
                continue
            if len(pts) < 2:
                continue
            h, = ax.plot([x for x, _, _ in pts], [y for _, y, _ in pts],
                         linestyle=LANG_LINE.get(r["lang"], "-."),
                         marker=MODE_MARKER.get(r["mode"], "D"), markersize=4,
                         color=st.row_color(r), linewidth=1.3, label=r["label"])
            handles.setdefault(r["label"], h)
            if panel == "time":
                lo = [y - row["ci_low_ms"] * 1000.0 / row["iterations"]
                      if row.get("ci_low_ms") is not None else 0 for _, y, row in pts]
                hi = [row["ci_high_ms"] * 1000.0 / row["iterations"] - y
                      if row.get("ci_high_ms") is not None else 0 for _, y, row in pts]
                ax.errorbar([x for x, _, _ in pts], [y for _, y, _ in pts], yerr=[lo, hi],
                            fmt="none", ecolor=st.row_color(r), capsize=2, linewidth=0.8)
        if not ax.lines:
            ax.text(0.5, 0.5, "no %s in this run" % ("C baseline" if panel == "ratio" else "figure"),
                    transform=ax.transAxes, ha="center", va="center", fontsize=9)
        ax.set_xscale("log", base=2 if kind != "iterations" else 10)
        ax.set_xticks(ticks)
        ax.set_xlim(ticks[0] / 1.5, ticks[-1] * 1.5)
        ax.set_yscale("log")
        ax.xaxis.set_major_formatter(FuncFormatter(short))
        ax.yaxis.set_major_formatter(FuncFormatter(short))
        ax.yaxis.set_minor_formatter(FuncFormatter(lambda y, _: ""))
        ax.xaxis.set_minor_formatter(FuncFormatter(lambda y, _: ""))
        if panel == "ratio":
            ax.axhline(1.0, color="black", linewidth=0.8)
        lo, hi = ax.get_ylim()
        if lo > 0 and hi / lo < 10:
            # Less than a decade: the minor ticks carry the only labels.
            ax.yaxis.set_minor_formatter(FuncFormatter(lambda y, _: short(round(y, 3))))
            ax.tick_params(axis="y", which="minor", labelsize=7)
        ax.set_xlabel(xlabel if kind != "env" else "%s (threads)" % name)
        ax.set_ylabel(ylabel, fontsize=9)
        ax.grid(which="both", alpha=0.3)
        ax.set_title({"time": "time per %s (lower is better)" % unit,
                      "ratio": "ratio to the C baseline",
                      "memory": "peak memory"}[panel], fontsize=10)
    fig.suptitle("%s: scaling with %s, host %s" % (
        workload, name if kind == "env" else xlabel, summary.get("host", {}).get("slug", "?")),
        fontsize=11)
    fig.legend(handles=list(handles.values()), fontsize=7, loc="upper left",
               bbox_to_anchor=(0.74, 0.92), frameon=False,
               title="line: C solid, Node dashed, Go dotted;\nmarker: o seq, s par, ^ bounded",
               title_fontsize=7)
    fig.tight_layout(rect=(0, 0.07, 0.74, 0.95))
    st.footnote(fig, summary, "log-log; each point the median of its rounds; a variant's "
                "other figures at the base point")
    fig.savefig(out, dpi=st.DPI)
    return 0
