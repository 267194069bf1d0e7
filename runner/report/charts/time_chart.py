"""time_chart.py -- time per operation of every variant: the median with its
95% CI, one panel per mode (and per method: whole-process timings apart).

Usage: python3 -m runner.report.charts.time_chart RUNDIR [-o OUT.png] [--workload W]

Reads RUNDIR/summary.json (written by runner/run.py).  A run's time is the
program's own elapsed time for N operations; per operation it is that divided
by N (the catalog's unit names what one operation is).  Each panel has its own
axis, logarithmic when its values span more than 10x, so that a fast variant is
never a sliver under a slow one.  Colour = style, marker = language; the value
column gives the median and its CI.  Lower is better; compare rows only
within a panel.
"""
import sys

from . import layout
from . import rundata
from . import style as st

PROG = "time_chart.py"


def draw(data, workload=None, out=None):
    """The chart of workload (the run's only one when None) into out (None:
    RUNDIR/charts/time-<workload>.png); ChartError when it cannot be drawn."""
    summary = data.summary
    workload, rows, out = rundata.run_rows(PROG, "time", data, workload, out, "median_ms")
    groups = st.panels(rows)
    unit, scale = st.time_unit([st.per_op_ns(r, r["median_ms"]) for r in rows])
    noun = st.unit_noun(summary, workload)
    n = rows[0]["iterations"]
    p = layout.Panels(PROG, out, "time", workload,
                  "%s: time per %s (median, 95%% CI), N = %s %ss per run; lower is better"
                  % (workload, noun, "{:,}".format(n), noun),
                  groups, "%s per %s" % (unit, noun), st.style_handles(rows, "dot"),
                  "Per %s = the program's own elapsed time for N %ss / N. Each panel has its own "
                  "axis (log when its values span more than 10x); compare rows within a panel "
                  "only." % (noun, noun), summary)
    no_ci = 0
    for k, (_, grows) in enumerate(groups):
        vals = []
        for y, r in enumerate(grows):
            v = st.per_op_ns(r, r["median_ms"]) / scale
            lo = hi = None
            if r.get("ci_low_ms") is not None:
                lo = st.per_op_ns(r, r["ci_low_ms"]) / scale
                hi = st.per_op_ns(r, r["ci_high_ms"]) / scale
            else:
                no_ci += 1
            layout.dot(p.axes[k], y, r, v, lo, hi, significant=True)
            p.point(k, r, v, lo, hi, unit="%s/%s" % (unit, noun))
            p.value(k, y, "%s %s" % (st.num(v), unit) + (
                " [%s, %s]" % (st.num(lo), st.num(hi)) if lo is not None else ""))
            vals += [v, lo, hi]
        ax = p.axes[k]
        vals = [x for x in vals if x]
        if max(vals) / min(vals) > 10:
            layout.log_limits(ax, vals)
            layout.plain_log_axis(ax)
        else:
            ax.set_xlim(0, max(vals) * 1.08)
    if no_ci:
        p.note_text += " %d variant%s without a CI: too few samples." % (
            no_ci, "" if no_ci == 1 else "s")
    return p.finish()


def main(argv):
    return rundata.cli(PROG, __doc__, "time", argv, draw)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
