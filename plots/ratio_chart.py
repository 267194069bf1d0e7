"""ratio_chart.py -- each variant's time relative to its baseline of the same mode
(the C callback for readfile; the label comes from summary.json).

Usage: ratio_chart.py RUNDIR [-o OUT.png] [--workload W]

Reads RUNDIR/summary.json.  The ratio is the median of per-round ratios (runs
paired within a round), drawn on a log axis so that 2x slower and 2x faster are
the same distance from the line at 1.0; bars grow from that line, whiskers are
the ratio's 95% CI.  A `~` marks a difference that is not significant
(Mann-Whitney U, p >= 0.05): read it as "no measurable difference", not as a
speed-up or slow-down.
"""
import os
import sys

from matplotlib.ticker import FuncFormatter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import style as st  # noqa: E402


def main(argv):
    c = st.Chart("ratio_chart.py", __doc__, argv, "ratio", "ratio")
    ax = c.ax
    ax.set_yscale("log")
    lo = min([r["ratio_ci_low"] or r["ratio"] for r in c.rows] + [1.0])
    hi = max([r["ratio_ci_high"] or r["ratio"] for r in c.rows] + [1.0])
    for x, r in zip(c.xs, c.rows):
        color = st.row_color(r)
        if r["variant"] == r["baseline"]:
            # 1.0 by definition: a bar of height 0 would vanish, so mark the line.
            ax.plot([x - 0.375, x + 0.375], [1.0, 1.0], color=color, linewidth=5,
                    solid_capstyle="butt")
            ax.text(x, 1.04, "baseline", ha="center", va="bottom", fontsize=8)
            continue
        ax.bar(x, r["ratio"] - 1.0, bottom=1.0, width=0.75, color=color,
               hatch=st.lang_hatch(r["lang"]), edgecolor="black", linewidth=0.7)
        top = r["ratio"]
        if r["ratio_ci_low"] is not None:
            ax.errorbar(x, r["ratio"], yerr=[[r["ratio"] - r["ratio_ci_low"]],
                                             [r["ratio_ci_high"] - r["ratio"]]],
                        fmt="none", ecolor="black", capsize=4, linewidth=1.2)
            top = max(top, r["ratio_ci_high"])
        same = r["significant"] is False
        ax.text(x, max(top, 1.0) * 1.04, ("~ " if same else "") + "%.2fx" % r["ratio"],
                ha="center", va="bottom", fontsize=8, fontweight="bold" if same else "normal",
                rotation=90 if len(c.rows) > 14 else 0)
    ax.axhline(1.0, color="black", linewidth=1.2)
    ax.set_ylim(lo / 1.5, hi * 2.2)
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: "%gx" % v))
    ax.yaxis.set_minor_formatter(FuncFormatter(lambda v, _: ""))
    base = st.baseline_label(c.rows)
    return c.finish("ratio to the %s of the same mode" % base,
                    "time / %s time, same mode (log; lower is better)" % base,
                    "Ratio = median of per-round ratios (paired runs), whiskers 95% CI; "
                    "~ = not significant (Mann-Whitney U, alpha 0.05).")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
