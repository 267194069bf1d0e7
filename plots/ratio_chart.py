"""ratio_chart.py -- each variant's time relative to the C callback variant of its mode.

Usage: ratio_chart.py RUNDIR [-o OUT.png] [--workload W]

Reads RUNDIR/summary.json.  The ratio is the median of per-round ratios (runs
paired within a round), drawn on a log axis so that 2x slower and 2x faster are
the same distance from the line at 1.0; whiskers are its 95% CI.  A `~` marks a
difference that is not significant (Mann-Whitney U, p >= 0.05): read it as
"no measurable difference", not as a speed-up or slow-down.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import style as st  # noqa: E402

PROG = "ratio_chart.py"


def main(argv):
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0],
                                epilog=__doc__.split("\n\n", 1)[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    st.common_args(p)
    args = p.parse_args(argv)
    summary = st.load_summary(PROG, args.rundir)
    workload, rows = st.pick_workload(PROG, summary["variants"], args.workload)
    rows = [r for r in rows if r.get("ratio") is not None]
    if not rows:
        st.die(PROG, "no variant of %s has a ratio (is the C callback baseline in the run?)"
               % workload, 1)
    out = st.output_path(args, "ratio-%s.png" % workload)

    groups = st.by_mode(rows)
    ordered = [r for _, g in groups for r in g]
    xs, spans = st.positions(groups)
    fig, ax = st.plt.subplots(figsize=(max(7.0, 0.85 * len(ordered) + 3.0), 5.6))
    ax.set_yscale("log")
    lows = [r["ratio_ci_low"] or r["ratio"] for r in ordered]
    highs = [r["ratio_ci_high"] or r["ratio"] for r in ordered]
    lo, hi = min(lows + [1.0]), max(highs + [1.0])
    for x, r in zip(xs, ordered):
        base = r["variant"] == r["baseline"]
        # Bars grow from the 1.0 line: up is slower than the baseline, down faster.
        ax.bar(x, r["ratio"] - 1.0, bottom=1.0, width=0.75,
               color=st.style_color(r["style"]), hatch=st.lang_hatch(r["lang"]),
               edgecolor="black", linewidth=0.7, alpha=0.45 if base else 1.0)
        if r["ratio_ci_low"] is not None and not base:
            ax.errorbar(x, r["ratio"], yerr=[[r["ratio"] - r["ratio_ci_low"]],
                                             [r["ratio_ci_high"] - r["ratio"]]],
                        fmt="none", ecolor="black", capsize=4, linewidth=1.2)
        if base:
            # 1.0 by definition: a bar of height 0 would vanish, so mark the line.
            ax.plot([x - 0.375, x + 0.375], [1.0, 1.0], color=st.style_color(r["style"]),
                    linewidth=5, solid_capstyle="butt")
            text = "baseline"
        else:
            text = ("~ " if r["significant"] is False else "") + "%.2fx" % r["ratio"]
        y = max(r["ratio_ci_high"] or r["ratio"], r["ratio"])
        ax.text(x, y * 1.04, text, ha="center", va="bottom", fontsize=8,
                fontweight="bold" if r["significant"] is False else "normal")
    ax.axhline(1.0, color="black", linewidth=1.2)
    ax.set_ylim(min(lo, 1.0) / 1.5, max(hi, 1.0) * 1.6)
    ax.set_xticks(xs)
    ax.set_xticklabels([st.label(r) for r in ordered], rotation=30, ha="right", fontsize=9)
    ax.set_ylabel("time / C callback time, same mode (log; lower is better)")
    from matplotlib.ticker import FuncFormatter
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: "%gx" % v))
    ax.yaxis.set_minor_formatter(FuncFormatter(lambda v, _: ""))
    ax.grid(axis="y", which="both", alpha=0.25)
    ax.set_axisbelow(True)
    st.mode_separators(ax, spans, groups)
    ax.set_title(st.title(summary, "ratio to the C callback of the same mode", workload),
                 pad=22, fontsize=11)
    ax.legend(handles=st.legend_handles(ordered), fontsize=8, loc="upper left",
              bbox_to_anchor=(1.01, 1.0), frameon=False)
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    st.footnote(fig, summary, "Ratio = median of per-round ratios (paired runs), whiskers 95% CI; "
                              "~ = not significant (Mann-Whitney U, alpha 0.05).")
    fig.savefig(out, dpi=st.DPI)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
