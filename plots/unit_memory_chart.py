"""unit_memory_chart.py -- memory per operation in flight: bytes per task.

Usage: unit_memory_chart.py RUNDIR [-o OUT.png] [--workload W]

Reads RUNDIR/summary.json and the workload's catalog file.  For a workload
whose every operation is suspended at once (tasks), each variant's median
memory above the idle process (mem_above_idle_kb; peak RSS when the run has no
idle figure, which then includes the runtime's own floor) is divided by its N:
bytes per suspended operation, on a log axis.  The catalog's
charts.per_unit_memory gives the unit, reference marks (bytes per unit) drawn as dashed lines
and the footnote quoting where they come from (another host: a scale, not a
check).  Lower is better.
"""
import os
import sys
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "runner"))
import style as st  # noqa: E402
import catalog as catalog_mod  # noqa: E402


def hint(prog, workload):
    try:
        cat = catalog_mod.load()
    except catalog_mod.CatalogError as e:
        st.die(prog, str(e), 3)
    w = cat.workloads.get(workload) or {}
    h = (w.get("charts") or {}).get("per_unit_memory")
    if not h:
        st.die(prog, "the catalog gives %s no charts.per_unit_memory" % workload, 1)
    return h


def main(argv):
    c = st.Chart("unit_memory_chart.py", __doc__, argv, "peak_rss_kb", "unit-memory")
    h = hint(c.prog, c.workload)
    unit = h.get("unit", "operation")
    above = all(r.get("mem_above_idle_kb") is not None for r in c.rows)
    per = []
    for r in c.rows:
        kb = r["mem_above_idle_kb"] if above else r["peak_rss_kb"]
        per.append(max(kb * 1024.0 / max(r.get("iterations") or 1, 1), 1.0))
    for x, r, b in zip(c.xs, c.rows, per):
        c.ax.bar(x, b, width=0.75, color=st.row_color(r),
                 hatch=st.lang_hatch(r["lang"]), edgecolor="black", linewidth=0.7)
        c.ax.text(x, b * 1.08, "%.0f" % b, ha="center", va="bottom", fontsize=8)
    c.ax.set_yscale("log" if h.get("log", True) else "linear")
    marks = h.get("marks") or {}
    for name, value in marks.items():
        c.ax.axhline(value, color="grey", linestyle="--", linewidth=0.8)
        # Labelled at the left edge, on a white box, so that no bar hides it.
        c.ax.text(c.xs[0] - 0.65, value, name, ha="left", va="center", fontsize=7, color="dimgrey",
                  bbox={"facecolor": "white", "edgecolor": "none", "pad": 1.0}, zorder=5)
    top = max(per + list(marks.values()))
    c.ax.set_ylim(max(min(per + list(marks.values())) / 2.0, 1.0), top * 3.0)
    what = "memory above idle" if above else "peak RSS (no idle figure)"
    return c.finish("bytes per %s, %s" % (unit, what),
                    "bytes per %s (log scale, lower is better)" % unit,
                    "%s / N.\n%s" % (what, textwrap.fill(h.get("anchor", ""), 110)))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
