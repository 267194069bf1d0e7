"""ms_chart.py -- median time per variant with 95% CI whiskers, grouped by mode.

Usage: ms_chart.py RUNDIR [-o OUT.png] [--workload W]

Reads RUNDIR/summary.json (written by runner/run.py).  Bars are the medians of
the programs' own elapsed time; whiskers the distribution-free 95% CI (none
when n is too small).  Modes are separate groups, because only variants of the
same mode may be compared; colour = style, hatching = language.  Lower is better.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import style as st  # noqa: E402

PROG = "ms_chart.py"


def main(argv):
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0],
                                epilog=__doc__.split("\n\n", 1)[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    st.common_args(p)
    args = p.parse_args(argv)
    summary = st.load_summary(PROG, args.rundir)
    workload, rows = st.pick_workload(PROG, summary["variants"], args.workload)
    rows = [r for r in rows if r.get("median_ms") is not None]
    if not rows:
        st.die(PROG, "no variant of %s has a valid sample to draw" % workload, 1)
    out = st.output_path(args, "ms-%s.png" % workload)

    groups = st.by_mode(rows)
    ordered = [r for _, g in groups for r in g]
    xs, spans = st.positions(groups)
    fig, ax = st.plt.subplots(figsize=(max(7.0, 0.85 * len(ordered) + 3.0), 5.6))
    top = max(r["ci_high_ms"] if r["ci_high_ms"] is not None else r["median_ms"] for r in ordered)
    for x, r in zip(xs, ordered):
        ax.bar(x, r["median_ms"], width=0.75, color=st.style_color(r["style"]),
               hatch=st.lang_hatch(r["lang"]), edgecolor="black", linewidth=0.7)
        if r["ci_low_ms"] is not None:
            ax.errorbar(x, r["median_ms"], yerr=[[r["median_ms"] - r["ci_low_ms"]],
                                                  [r["ci_high_ms"] - r["median_ms"]]],
                        fmt="none", ecolor="black", capsize=4, linewidth=1.2)
            y = r["ci_high_ms"]
        else:
            y = r["median_ms"]
        ax.text(x, y + top * 0.015, "%s" % _fmt(r["median_ms"]), ha="center", va="bottom",
                fontsize=8)
    ax.set_xticks(xs)
    ax.set_xticklabels([st.label(r) for r in ordered], rotation=30, ha="right", fontsize=9)
    ax.set_ylabel("median time per run of N reads, ms (lower is better)")
    ax.set_ylim(0, top * 1.15)
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    st.mode_separators(ax, spans, groups)
    ax.set_title(st.title(summary, "median time, 95% CI whiskers", workload), pad=22, fontsize=11)
    ax.legend(handles=st.legend_handles(ordered), fontsize=8, loc="upper left",
              bbox_to_anchor=(1.01, 1.0), frameon=False)
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    st.footnote(fig, summary, "Compare bars only within a mode group; "
                              "whiskers: distribution-free 95% CI of the median.")
    fig.savefig(out, dpi=st.DPI)
    return 0


def _fmt(v):
    return "%.0f" % v if v >= 100 else ("%.1f" % v if v >= 1 else "%.2f" % v)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
