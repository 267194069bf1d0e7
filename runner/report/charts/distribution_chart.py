"""distribution_chart.py -- every valid sample of every variant, per operation:
a box with the runs on top, one panel per mode and method.

Usage: python3 -m runner.report.charts.distribution_chart RUNDIR [-o OUT.png] [--workload W]

Reads RUNDIR/samples.csv (status ok rows) and RUNDIR/summary.json.  Each dot is
one process run (its elapsed time / N); the box spans the quartiles with the
median line.  MAD outliers are drawn as red crosses: flagged, never dropped.
Each panel has its own axis, logarithmic when its values span more than 10x.
Lower is better.
"""
import random
import sys

from matplotlib.lines import Line2D

from ...core import stats
from . import layout
from . import rundata
from . import style as st
from ...analysis import summary as sm

PROG = "distribution_chart.py"


def draw(data, workload=None, out=None):
    """The chart of workload (the run's only one when None) into out (None:
    RUNDIR/charts/distribution-<workload>.png); ChartError when it cannot be drawn."""
    summary = data.summary
    workload, rows, out = rundata.run_rows(PROG, "distribution", data, workload, out, "median_ms")
    times = {}
    for s in rundata.samples(PROG, data):
        # A sweep's other points (the scaling profile) have charts of their own.
        if s.get("status") == "ok" and s.get("elapsed_ns") and sm.at_base_point(s):
            times.setdefault(s["variant"], []).append(s["elapsed_ns"])
    missing = [r["variant"] for r in rows if not times.get(r["variant"])]
    if missing:
        rundata.die(PROG, "samples.csv has no valid sample of %s, which summary.json has: "
                     "redraw with python3 -m runner --render" % ", ".join(missing))
    groups = st.panels(rows)
    unit, scale = st.time_unit([st.per_op_ns(r, r["median_ms"]) for r in rows])
    noun = st.unit_noun(summary, workload)
    outlier = Line2D([], [], marker="x", color="#d62728", linestyle="none", markersize=9,
                     mew=2, label="MAD outlier (kept)")
    p = layout.Panels(PROG, out, "distribution", workload,
                  "%s: every run, time per %s; lower is better" % (workload, noun), groups,
                  "%s per %s" % (unit, noun), st.style_handles(rows, "dot") + [outlier],
                  "", summary)
    jitter = random.Random(1)      # the same picture on every redraw
    n_out, counts = 0, []
    for k, (_, grows) in enumerate(groups):
        ax = p.axes[k]
        data = [[t / r["iterations"] / scale for t in times[r["variant"]]] for r in grows]
        bp = ax.boxplot(data, positions=range(len(grows)), vert=False, widths=0.55,
                        patch_artist=True, showfliers=False,
                        medianprops={"color": "black", "linewidth": 1.5})
        for box, r in zip(bp["boxes"], grows):
            box.set_facecolor(st.row_color(r))
            box.set_alpha(0.35)
        for y, (r, xs) in enumerate(zip(grows, data)):
            flagged = set(stats.mad_outliers(xs))
            n_out += len(flagged)
            counts.append(len(xs))
            # One line of markers a kind (thousands of dots a chart: one artist
            # each made drawing it slow), the jitter drawn in the dots' order.
            ys = [y + jitter.uniform(-0.18, 0.18) for _ in xs]
            kept = [i for i in range(len(xs)) if i not in flagged]
            ax.plot([xs[i] for i in kept], [ys[i] for i in kept],
                    st.LANG_MARKER.get(r["lang"], "v"), linestyle="none",
                    color=st.row_color(r), markersize=5, markeredgecolor="black",
                    markeredgewidth=0.5)
            if flagged:
                out_i = sorted(flagged)
                ax.plot([xs[i] for i in out_i], [ys[i] for i in out_i], "x",
                        linestyle="none", color="#d62728", markersize=8, mew=2)
            p.point(k, r, stats.median(xs), min(xs), max(xs), samples=len(xs),
                    outliers=len(flagged), unit="%s/%s" % (unit, noun))
            p.value(k, y, "n = %d%s" % (len(xs), ", %d out" % len(flagged) if flagged else ""))
        # boxplot resets the ticks: the labels again, top to bottom.
        ax.set_yticks(range(len(grows)))
        ax.set_yticklabels([st.short_label(r) for r in grows])
        ax.set_ylim(len(grows) - 0.5, -0.5)
        flat = [x for xs in data for x in xs]
        if max(flat) / min(flat) > 10:
            layout.log_limits(ax, flat, pad=1.1)
            layout.plain_log_axis(ax)
        else:
            ax.set_xlim(0, max(flat) * 1.05)
    n_text = ("%d" % counts[0] if min(counts) == max(counts)
              else "%d to %d" % (min(counts), max(counts)))
    p.note_text = ("Dots: one process run each (its elapsed time / N; n = %s per variant); "
                   "boxes: quartiles and median; %d outlier%s flagged by MAD, none dropped."
                   % (n_text, n_out, "" if n_out == 1 else "s"))
    return p.finish()


def main(argv):
    return rundata.cli(PROG, __doc__, "distribution", argv, draw)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
