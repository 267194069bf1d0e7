"""memory_chart.py -- median peak resident memory of each variant's process.

Usage: memory_chart.py RUNDIR [-o OUT.png] [--workload W]

Reads RUNDIR/summary.json.  Peak RSS is the runner's wait4 ru_maxrss of the
whole process (KiB on Linux, bytes on macOS, converted), so it includes the
runtime itself: Go's and Node's baselines are larger than C's before any work.
Lower is better.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import style as st  # noqa: E402

PROG = "memory_chart.py"


def main(argv):
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0],
                                epilog=__doc__.split("\n\n", 1)[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    st.common_args(p)
    args = p.parse_args(argv)
    summary = st.load_summary(PROG, args.rundir)
    workload, rows = st.pick_workload(PROG, summary["variants"], args.workload)
    rows = [r for r in rows if r.get("peak_rss_kb") is not None]
    if not rows:
        st.die(PROG, "no variant of %s has a valid sample with its memory" % workload, 1)
    out = st.output_path(args, "memory-%s.png" % workload)

    groups = st.by_mode(rows)
    ordered = [r for _, g in groups for r in g]
    xs, spans = st.positions(groups)
    fig, ax = st.plt.subplots(figsize=(max(7.0, 0.85 * len(ordered) + 3.0), 5.6))
    mib = [r["peak_rss_kb"] / 1024.0 for r in ordered]
    top = max(mib)
    for x, r, m in zip(xs, ordered, mib):
        ax.bar(x, m, width=0.75, color=st.style_color(r["style"]),
               hatch=st.lang_hatch(r["lang"]), edgecolor="black", linewidth=0.7)
        ax.text(x, m + top * 0.015, "%.1f" % m, ha="center", va="bottom", fontsize=8)
    ax.set_ylim(0, top * 1.15)
    ax.set_xticks(xs)
    ax.set_xticklabels([st.label(r) for r in ordered], rotation=30, ha="right", fontsize=9)
    ax.set_ylabel("median peak RSS of the process, MiB (lower is better)")
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    st.mode_separators(ax, spans, groups)
    ax.set_title(st.title(summary, "peak memory", workload), pad=22, fontsize=11)
    ax.legend(handles=st.legend_handles(ordered), fontsize=8, loc="upper left",
              bbox_to_anchor=(1.01, 1.0), frameon=False)
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    st.footnote(fig, summary, "Peak RSS from the runner's wait4 (whole process, runtime included).")
    fig.savefig(out, dpi=st.DPI)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
