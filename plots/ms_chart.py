"""ms_chart.py -- median time per variant with 95% CI whiskers, grouped by mode.

Usage: ms_chart.py RUNDIR [-o OUT.png] [--workload W]

Reads RUNDIR/summary.json (written by runner/run.py).  Bars are the medians of
the programs' own elapsed time; whiskers the distribution-free 95% CI (none
when n is too small).  Modes are separate groups, because only variants of the
same mode may be compared; colour = style, hatching = language.  Lower is better.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import style as st  # noqa: E402


def main(argv):
    c = st.Chart("ms_chart.py", __doc__, argv, "median_ms", "ms")
    ax = c.ax
    top = max(r["ci_high_ms"] or r["median_ms"] for r in c.rows)
    no_ci = 0
    for x, r in zip(c.xs, c.rows):
        ax.bar(x, r["median_ms"], width=0.75, color=st.row_color(r),
               hatch=st.lang_hatch(r["lang"]), edgecolor="black", linewidth=0.7)
        y = r["median_ms"]
        if r["ci_low_ms"] is not None:
            ax.errorbar(x, y, yerr=[[y - r["ci_low_ms"]], [r["ci_high_ms"] - y]],
                        fmt="none", ecolor="black", capsize=4, linewidth=1.2)
            y = r["ci_high_ms"]
        else:
            no_ci += 1
        ax.text(x, y + top * 0.015, _fmt(r["median_ms"]), ha="center", va="bottom",
                fontsize=8, rotation=90 if len(c.rows) > 14 else 0)
    ax.set_ylim(0, top * 1.18)
    note = "Compare bars only within a mode group; whiskers: distribution-free 95% CI of the median."
    if no_ci:
        note += " %d bar%s without whiskers: too few samples for a 95%% CI." % (
            no_ci, "" if no_ci == 1 else "s")
    return c.finish("median time, 95% CI whiskers",
                    "median time per run of %s, ms (lower is better)"
                    % st.operations(c.summary, c.workload), note)


def _fmt(v):
    return "%.0f" % v if v >= 100 else ("%.1f" % v if v >= 1 else "%.2f" % v)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
