"""distribution_chart.py -- every valid sample of every variant, as a box with the
points on top, grouped by mode.

Usage: distribution_chart.py RUNDIR [-o OUT.png] [--workload W]

Reads RUNDIR/samples.csv (status ok rows) and RUNDIR/summary.json.  Each dot is
one process run; the box spans the quartiles with the median line.  MAD
outliers are drawn as red crosses: flagged, never dropped.  Lower is better.
"""
import os
import random
import sys

from matplotlib.lines import Line2D

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "runner"))
import stats  # noqa: E402
import style as st  # noqa: E402

PROG = "distribution_chart.py"


def main(argv):
    c = st.Chart(PROG, __doc__, argv, "median_ms", "distribution")
    times = {}
    for s in st.load_samples(PROG, c.args.rundir):
        # A sweep's other points (the scaling profile) have charts of their own.
        if s.get("status") == "ok" and s.get("elapsed_ns") and s.get("point") in (None, "", "base"):
            try:
                times.setdefault(s["variant"], []).append(int(s["elapsed_ns"]) / 1e6)
            except ValueError:
                st.die(PROG, "samples.csv: elapsed_ns %r is not an integer" % s["elapsed_ns"])
    missing = [r["variant"] for r in c.rows if not times.get(r["variant"])]
    if missing:
        st.die(PROG, "samples.csv has no valid sample of %s, which summary.json has: "
                     "redraw with runner/run.py --render" % ", ".join(missing))
    ax = c.ax
    data = [times[r["variant"]] for r in c.rows]
    bp = ax.boxplot(data, positions=c.xs, widths=0.6, patch_artist=True, showfliers=False,
                    medianprops={"color": "black", "linewidth": 1.5})
    for box, r in zip(bp["boxes"], c.rows):
        box.set_facecolor(st.row_color(r))
        box.set_alpha(0.35)
        box.set_hatch(st.lang_hatch(r["lang"]))
    jitter = random.Random(1)      # the same picture on every redraw
    n_out = 0
    for x, r, ys in zip(c.xs, c.rows, data):
        flagged = set(stats.mad_outliers(ys))
        n_out += len(flagged)
        for i, y in enumerate(ys):
            dx = jitter.uniform(-0.18, 0.18)
            if i in flagged:
                ax.plot(x + dx, y, "x", color="#d62728", markersize=7, mew=1.8)
            else:
                ax.plot(x + dx, y, "o", color=st.row_color(r), markersize=4,
                        markeredgecolor="black", markeredgewidth=0.5)
    ax.set_ylim(bottom=0)
    outlier = Line2D([], [], marker="x", color="#d62728", linestyle="none",
                     label="MAD outlier (kept)")
    return c.finish("every sample", "time per run of %s, ms (lower is better)"
                    % st.operations(c.summary, c.workload),
                    "Dots: one process run each (n = %d to %d per variant); boxes: quartiles and "
                    "median; %d outlier%s flagged." % (min(map(len, data)), max(map(len, data)),
                                                       n_out, "" if n_out == 1 else "s"),
                    [outlier])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
