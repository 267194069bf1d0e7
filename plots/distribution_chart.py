"""distribution_chart.py -- every valid sample of every variant, as a box with the
points on top, grouped by mode.

Usage: distribution_chart.py RUNDIR [-o OUT.png] [--workload W]

Reads RUNDIR/samples.csv (status ok rows) and RUNDIR/summary.json.  Each dot is
one process run; the box spans the quartiles with the median line.  MAD
outliers are drawn as red crosses: flagged, never dropped.  Lower is better.
"""
import argparse
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import style as st  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "runner"))
import stats  # noqa: E402

PROG = "distribution_chart.py"


def main(argv):
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0],
                                epilog=__doc__.split("\n\n", 1)[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    st.common_args(p)
    args = p.parse_args(argv)
    summary = st.load_summary(PROG, args.rundir)
    workload, rows = st.pick_workload(PROG, summary["variants"], args.workload)
    samples = st.load_samples(PROG, args.rundir)
    times = {}
    for s in samples:
        if s.get("status") == "ok" and s.get("elapsed_ns"):
            try:
                times.setdefault(s["variant"], []).append(int(s["elapsed_ns"]) / 1e6)
            except ValueError:
                st.die(PROG, "samples.csv: elapsed_ns %r is not an integer" % s["elapsed_ns"])
    rows = [r for r in rows if times.get(r["variant"])]
    if not rows:
        st.die(PROG, "no valid sample of %s to draw" % workload, 1)
    out = st.output_path(args, "distribution-%s.png" % workload)

    groups = st.by_mode(rows)
    ordered = [r for _, g in groups for r in g]
    xs, spans = st.positions(groups)
    fig, ax = st.plt.subplots(figsize=(max(7.0, 0.85 * len(ordered) + 3.0), 5.6))
    data = [times[r["variant"]] for r in ordered]
    bp = ax.boxplot(data, positions=xs, widths=0.6, patch_artist=True, showfliers=False,
                    medianprops={"color": "black", "linewidth": 1.5})
    for box, r in zip(bp["boxes"], ordered):
        box.set_facecolor(st.style_color(r["style"]))
        box.set_alpha(0.35)
        box.set_hatch(st.lang_hatch(r["lang"]))
    jitter = random.Random(1)
    n_out = 0
    for x, r, ys in zip(xs, ordered, data):
        flagged = set(stats.mad_outliers(ys))
        n_out += len(flagged)
        for i, y in enumerate(ys):
            dx = jitter.uniform(-0.18, 0.18)
            if i in flagged:
                ax.plot(x + dx, y, "x", color="#d62728", markersize=7, mew=1.8)
            else:
                ax.plot(x + dx, y, "o", color=st.style_color(r["style"]), markersize=4,
                        markeredgecolor="black", markeredgewidth=0.5)
        ax.text(x, 1.0, "n=%d" % len(ys), transform=ax.get_xaxis_transform(), ha="center",
                va="top", fontsize=7, color="#555555")
    ax.set_ylim(bottom=0)
    ax.set_xticks(xs)
    ax.set_xticklabels([st.label(r) for r in ordered], rotation=30, ha="right", fontsize=9)
    ax.set_ylabel("time per run of N reads, ms (lower is better)")
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    st.mode_separators(ax, spans, groups)
    ax.set_title(st.title(summary, "every sample", workload), pad=22, fontsize=11)
    from matplotlib.lines import Line2D
    hs = st.legend_handles(ordered) + [
        Line2D([], [], marker="x", color="#d62728", linestyle="none", label="MAD outlier (kept)")]
    ax.legend(handles=hs, fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0),
              frameon=False)
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    st.footnote(fig, summary, "Dots: one process run each; boxes: quartiles and median; "
                              "%d outlier%s flagged." % (n_out, "" if n_out == 1 else "s"))
    fig.savefig(out, dpi=st.DPI)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
