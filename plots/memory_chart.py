"""memory_chart.py -- median peak resident memory of each variant's process.

Usage: memory_chart.py RUNDIR [-o OUT.png] [--workload W]

Reads RUNDIR/summary.json.  Peak RSS is wait4's ru_maxrss of the whole program
process (KiB on Linux, bytes on macOS, converted), forked from the runner's
small launcher so that the runner's own memory is not counted.  It includes
the runtime itself: Go's and Node's floors are higher than C's before any
work.  Lower is better.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import style as st  # noqa: E402


def main(argv):
    c = st.Chart("memory_chart.py", __doc__, argv, "peak_rss_kb", "memory")
    mib = [r["peak_rss_kb"] / 1024.0 for r in c.rows]
    top = max(mib)
    for x, r, m in zip(c.xs, c.rows, mib):
        c.ax.bar(x, m, width=0.75, color=st.row_color(r),
                 hatch=st.lang_hatch(r["lang"]), edgecolor="black", linewidth=0.7)
        c.ax.text(x, m + top * 0.015, "%.1f" % m, ha="center", va="bottom", fontsize=8,
                  rotation=90 if len(c.rows) > 14 else 0)
    c.ax.set_ylim(0, top * 1.18)
    return c.finish("peak memory", "median peak RSS of the process, MiB (lower is better)",
                    "Peak RSS from wait4 (whole process, runtime included).")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
