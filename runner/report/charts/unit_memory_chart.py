"""unit_memory_chart.py -- memory per operation in flight: bytes per task.

Usage: python3 -m runner.report.charts.unit_memory_chart RUNDIR [-o OUT.png] [--workload W]

Reads RUNDIR/summary.json and the workload's catalog file.  For a workload
whose every operation is suspended at once (tasks), each variant's median
memory above the idle process (mem_above_idle_kb; peak RSS when the run has no
idle figure, which then includes the runtime's own floor) is divided by its N:
bytes per suspended operation, on a log axis.  The catalog's
charts.per_unit_memory gives the unit, reference marks (bytes per unit)
drawn as grey lines named in the legend, and the note quoting where they come
from (another host: a scale, not a check).  Lower is better.
"""
import sys

from matplotlib.lines import Line2D

from . import layout
from . import rundata
from . import style as st
from ...catalog import catalog as catalog_mod

PROG = "unit_memory_chart.py"


def hint(prog, workload, data):
    """The catalog's charts.per_unit_memory of workload; dies without it."""
    try:
        cat = data.catalog()
    except catalog_mod.CatalogError as e:
        rundata.die(prog, str(e), 3)
    w = cat.workloads.get(workload) or {}
    h = (w.get("charts") or {}).get("per_unit_memory")
    if not h:
        rundata.die(prog, "the catalog gives %s no charts.per_unit_memory" % workload, 1)
    return h


def draw(data, workload=None, out=None):
    """The chart of workload (the run's only one when None) into out (None:
    RUNDIR/charts/unit-memory-<workload>.png); ChartError when it cannot be drawn."""
    summary = data.summary
    workload, rows, out = rundata.run_rows(PROG, "unit-memory", data, workload, out, "proc_peak_rss_kb")
    h = hint(PROG, workload, data)
    unit = h.get("unit", "operation")
    above = all(r.get("mem_above_idle_kb") is not None for r in rows)
    what = "memory above idle" if above else "peak RSS (no idle figure: the runtime's floor included)"

    def per(r):
        kb = r["mem_above_idle_kb"] if above else r["proc_peak_rss_kb"]
        # At least a byte: a log axis has no place for 0 (or less, when the
        # peak fell under the idle RSS).
        return max(kb * 1024.0 / max(r.get("iterations") or 1, 1), 1.0)

    marks = sorted((h.get("marks") or {}).items(), key=lambda kv: -kv[1])
    dashes = ["--", ":", "-.", (0, (5, 1, 1, 1, 1, 1))]
    legend = st.style_handles(rows, "patch")
    legend += [None] + [Line2D([], [], color="dimgrey", linestyle=dashes[i % len(dashes)],
                               linewidth=1.6, label="%s: %s B" % (name, "{:,.0f}".format(v)))
                        for i, (name, v) in enumerate(marks)]
    log = h.get("log", True)
    groups = st.panels(rows)
    p = layout.Panels(PROG, out, "unit-memory", workload,
                  "%s: bytes per %s in flight, %s / N; lower is better" % (workload, unit, what),
                  groups, "bytes per %s%s" % (unit, " (log)" if log else ""), legend,
                  "Every %s is suspended at once: %s / N = bytes per suspended %s. Grey lines: "
                  "%s." % (unit, what, unit, h.get("anchor", "").rstrip(".")), summary)
    for k, (_, grows) in enumerate(groups):
        ax = p.axes[k]
        vals = []
        for y, r in enumerate(grows):
            b = per(r)
            ax.barh(y, b, height=0.6, color=st.row_color(r), edgecolor="black", linewidth=0.6,
                    hatch=st.lang_hatch(r["lang"]))
            p.point(k, r, b, unit="B/%s" % unit, kind="above idle" if above else "peak")
            p.value(k, y, "{:,.0f} B".format(b))
            vals.append(b)
        for i, (name, v) in enumerate(marks):
            ax.axvline(v, color="dimgrey", linestyle=dashes[i % len(dashes)], linewidth=1.6,
                       zorder=3)
        allv = vals + [v for _, v in marks]
        if log:
            # Bars start at the axis' left edge: under the smallest value.
            ax.set_xscale("log")
            ax.set_xlim(max(min(allv) / 2.0, 0.5), max(allv) * 1.6)
            layout.plain_log_axis(ax)
        else:
            ax.set_xlim(0, max(allv) * 1.08)
    return p.finish()


def main(argv):
    return rundata.cli(PROG, __doc__, "unit-memory", argv, draw)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
