"""memory_chart.py -- the memory each variant's work takes: peak resident memory
above the idle process, one panel per mode and method.

Usage: python3 -m runner.report.charts.memory_chart RUNDIR [-o OUT.png] [--workload W]

Reads RUNDIR/summary.json.  Above idle = the process's peak RSS (wait4's
ru_maxrss of the whole program) minus its RSS just before the timed section
(after the runtime started and set up, before the first operation), so Go's
and Node's runtimes do not count, only what the N operations took.  A run that
did not record the idle RSS gets the whole peak RSS instead, and the chart
says so in its title.  Lower is better.
"""
import sys

from . import layout
from . import rundata
from . import style as st

PROG = "memory_chart.py"


def above_idle_kb(r):
    """r's median peak RSS above the idle process, KiB, or None when unknown."""
    if r.get("mem_above_idle_kb") is not None:
        return r["mem_above_idle_kb"]
    if r.get("idle_rss_kb") is not None and r.get("proc_peak_rss_kb") is not None:
        return r["proc_peak_rss_kb"] - r["idle_rss_kb"]
    return None


def draw(data, workload=None, out=None):
    """The chart of workload (the run's only one when None) into out (None:
    RUNDIR/charts/memory-<workload>.png); ChartError when it cannot be drawn."""
    summary = data.summary
    workload, rows, out = rundata.run_rows(PROG, "memory", data, workload, out, "proc_peak_rss_kb")
    above = all(above_idle_kb(r) is not None for r in rows)
    value = above_idle_kb if above else (lambda r: r["proc_peak_rss_kb"])
    kbs = [value(r) for r in rows]
    big = max(abs(v) for v in kbs) >= 2048
    unit, div = ("MiB", 1024.0) if big else ("KiB", 1.0)
    what = "peak memory above the idle process" if above else \
        "peak memory of the whole process (this run did not record the idle RSS)"
    groups = st.panels(rows)
    p = layout.Panels(PROG, out, "memory", workload, "%s: %s; lower is better" % (workload, what),
                  groups, "%s, %s" % ("peak RSS above idle" if above else "peak RSS", unit),
                  st.style_handles(rows, "patch"),
                  ("Above idle = the peak RSS (wait4, whole process) minus the RSS just before "
                   "the first %s: what the N %ss took, without the runtime."
                   % (st.unit_noun(summary, workload), st.unit_noun(summary, workload))
                   if above else
                   "Peak RSS from wait4 (whole process, runtime included: Go's and Node's floors "
                   "are higher than C's before any work)."), summary)
    for k, (_, grows) in enumerate(groups):
        ax = p.axes[k]
        vals = []
        for y, r in enumerate(grows):
            v = value(r) / div
            ax.barh(y, v, height=0.6, color=st.row_color(r), edgecolor="black", linewidth=0.6,
                    hatch=st.lang_hatch(r["lang"]))
            p.point(k, r, v, unit=unit, kind="above idle" if above else "peak")
            p.value(k, y, "%s %s" % (st.num(v), unit))
            vals.append(v)
        ax.axvline(0, color="black", linewidth=0.8)
        lo, hi = min(vals + [0.0]), max(vals + [0.0])
        # All zero (nothing above idle): one unit wide, not an axis of 1e-9.
        ax.set_xlim(lo * 1.1, hi * 1.08 if hi > 0 else 1.0)
    return p.finish()


def main(argv):
    return rundata.cli(PROG, __doc__, "memory", argv, draw)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
