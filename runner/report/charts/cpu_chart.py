"""cpu_chart.py -- CPU time (user and system) beside wall time, per operation,
one panel per mode and method.

Usage: python3 -m runner.report.charts.cpu_chart RUNDIR [-o OUT.png] [--workload W]

Reads RUNDIR/summary.json: the medians of the runner's wait4 rusage (user and
system CPU) and of its wall time of the whole process, divided by N.  The bar
is user (solid) plus system (hatched) CPU; the black tick is the wall time.
CPU beyond the wall time means more than one thread worked (libuv's threadpool,
Go's threads, V8's helpers); far below it, the process waited.  These figures
include start-up, unlike the time chart.  Lower is better.
"""
import sys

from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from . import layout
from . import rundata
from . import style as st

PROG = "cpu_chart.py"


def draw(data, workload=None, out=None):
    """The chart of workload (the run's only one when None) into out (None:
    RUNDIR/charts/cpu-<workload>.png); ChartError when it cannot be drawn."""
    summary = data.summary
    workload, rows, out = rundata.run_rows(PROG, "cpu", data, workload, out, "proc_user_ms")
    rows = [r for r in rows if r.get("proc_sys_ms") is not None]
    groups = st.panels(rows)
    unit, scale = st.time_unit([st.per_op_ns(r, r["proc_user_ms"] + r["proc_sys_ms"]) for r in rows])
    noun = st.unit_noun(summary, workload)
    legend = [Patch(facecolor="#888888", edgecolor="black", label="user CPU"),
              Patch(facecolor="white", edgecolor="black", hatch="//", label="system CPU"),
              Line2D([], [], marker="|", color="black", markersize=16, mew=3, linestyle="none",
                     label="wall time")]
    p = layout.Panels(PROG, out, "cpu", workload,
                  "%s: CPU time (user + system) beside wall time, per %s, whole process; "
                  "lower is better" % (workload, noun), groups, "%s per %s" % (unit, noun),
                  legend + [None] + st.style_handles(rows, "dot", langs=False),
                  "Medians of wait4's rusage and the runner's wall time of the whole process "
                  "(start-up included) / N. Bar: user (solid) + system (hatched) CPU, colour = "
                  "style; tick: wall time. CPU beyond wall time = several threads at work.",
                  summary)
    for k, (_, grows) in enumerate(groups):
        ax = p.axes[k]
        top = []
        for y, r in enumerate(grows):
            user = st.per_op_ns(r, r["proc_user_ms"]) / scale
            sys_ = st.per_op_ns(r, r["proc_sys_ms"]) / scale
            wall = st.per_op_ns(r, r.get("wall_ms")) / scale if r.get("wall_ms") else None
            ax.barh(y, user, height=0.6, color=st.row_color(r), edgecolor="black",
                    linewidth=0.6)
            ax.barh(y, sys_, left=user, height=0.6, color="white", edgecolor=st.row_color(r),
                    hatch="//", linewidth=1.2)
            if wall is not None:
                ax.plot([wall], [y], marker="|", color="black", markersize=18, mew=3)
            p.point(k, r, user + sys_, user=user, sys=sys_, wall=wall,
                    unit="%s/%s" % (unit, noun))
            p.value(k, y, "%s + %s%s %s" % (st.num(user), st.num(sys_),
                                             "" if wall is None else " | %s" % st.num(wall),
                                             unit))
            top += [user + sys_, wall or 0]
        ax.set_xlim(0, max(top) * 1.08)
    p.note_text += " Value column: user + system | wall, %s per %s." % (unit, noun)
    return p.finish()


def main(argv):
    return rundata.cli(PROG, __doc__, "cpu", argv, draw)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
