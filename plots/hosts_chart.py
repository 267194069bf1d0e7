"""hosts_chart.py -- the same variants side by side on several hosts.

Usage: hosts_chart.py RUNDIR RUNDIR... [--kind ms|ratio] [-o OUT.png] [--workload W]

Reads each RUNDIR/summary.json (one run per host; `runner/run.py --hosts`
passes the newest run of every host under results/).  --kind ms draws the
median time with its 95% CI; --kind ratio draws each variant normalised to its
baseline of the same mode on the same host (log axis, the baseline's label from
the summaries), so that a faster
machine does not hide the pattern.  Colour = style as in every chart; the
hosts are told apart by hatching and shade, named in the legend.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import style as st  # noqa: E402

PROG = "hosts_chart.py"
HOST_HATCH = ["", "///", "...", "xxx", "\\\\\\", "++"]


def main(argv):
    p = st.parser(PROG, __doc__)
    p.add_argument("rundirs", nargs="+", help="run folders, one per host")
    p.add_argument("--kind", choices=("ms", "ratio"), default="ms")
    p.add_argument("-o", "--output", required=True, help="PNG to write")
    p.add_argument("--workload", help="which workload (default: the first in every run)")
    args = p.parse_args(argv)
    if len(args.rundirs) < 2:
        st.die(PROG, "give run folders of at least two hosts (got %d)" % len(args.rundirs))
    if len(args.rundirs) > len(HOST_HATCH):
        st.die(PROG, "at most %d hosts fit on one chart" % len(HOST_HATCH))
    if not os.path.isdir(os.path.dirname(os.path.abspath(args.output))):
        st.die(PROG, "output folder of %s does not exist" % args.output)
    runs = [st.load_summary(PROG, d) for d in args.rundirs]
    hosts = [r.get("host", {}).get("slug") or os.path.basename(os.path.dirname(
        os.path.abspath(d))) for r, d in zip(runs, args.rundirs)]
    if len(set(hosts)) != len(hosts):
        st.die(PROG, "two run folders are of the same host %s: give one run per host" % hosts)
    common = set.intersection(*[{v["workload"] for v in r["variants"]} for r in runs])
    if not common:
        st.die(PROG, "the runs share no workload")
    workload = args.workload or sorted(common)[0]
    if workload not in common:
        st.die(PROG, "workload %r is not in every run (common: %s)" % (workload, sorted(common)))

    key = "median_ms" if args.kind == "ms" else "ratio"
    per_host = [{v["variant"]: v for v in r["variants"]
                 if v["workload"] == workload and v.get(key) is not None} for r in runs]
    # Variants in the first host's order, then any the others add.
    rows, seen = [], set()
    for table in per_host:
        for v in table.values():
            if v["variant"] not in seen:
                seen.add(v["variant"])
                rows.append(v)
    if not rows:
        st.die(PROG, "no variant has a %s on any host" % key, 1)
    groups = st.by_mode(rows)
    ordered = [r for _, g in groups for r in g]
    k = len(runs)
    width = 0.8 / k
    xs, spans = st.positions(groups)
    fig, ax = st.plt.subplots(figsize=(max(8.0, (0.55 + 0.35 * k) * len(ordered) + 3.5), 5.8))
    if args.kind == "ratio":
        ax.set_yscale("log")
        ax.axhline(1.0, color="black", linewidth=1.2)
    vals = []
    for h, table in enumerate(per_host):
        for x, r in zip(xs, ordered):
            v = table.get(r["variant"])
            if v is None:
                continue
            xh = x - 0.4 + width * (h + 0.5)
            y = v[key]
            lo = v["ci_low_ms"] if args.kind == "ms" else v["ratio_ci_low"]
            hi = v["ci_high_ms"] if args.kind == "ms" else v["ratio_ci_high"]
            kw = dict(width=width * 0.95, color=st.row_color(r), edgecolor="black",
                      linewidth=0.6, hatch=HOST_HATCH[h], alpha=1.0 - 0.25 * (h % 2))
            if args.kind == "ratio":
                ax.bar(xh, y - 1.0, bottom=1.0, **kw)
            else:
                ax.bar(xh, y, **kw)
            is_base = v["variant"] == v.get("baseline")
            if args.kind == "ratio" and is_base:
                # The baseline is 1.0 by definition: a bar of height 0 would vanish.
                ax.plot([xh - width * 0.45, xh + width * 0.45], [1.0, 1.0], color="black",
                        linewidth=4, solid_capstyle="butt")
                ax.text(xh, 1.05, "base", ha="center", va="bottom", fontsize=7, rotation=90)
            elif lo is not None:
                ax.errorbar(xh, y, yerr=[[y - lo], [hi - y]], fmt="none", ecolor="black",
                            capsize=2.5, linewidth=1)
            mark = "~" if args.kind == "ratio" and v.get("significant") is False else ""
            if mark:
                ax.text(xh, (hi or y) * 1.05, mark, ha="center", va="bottom", fontsize=10,
                        fontweight="bold")
            vals += [y, hi or y, lo or y]
    if args.kind == "ms":
        ax.set_ylim(0, max(vals) * 1.12)
        ax.set_ylabel("median time per run of %s, ms (lower is better)"
                      % st.operations(runs[0], workload))
    else:
        ax.set_ylim(min(vals + [1.0]) / 1.5, max(vals + [1.0]) * 2.2)
        ax.set_ylabel("time / %s on the same host (log; lower is better)"
                      % st.baseline_label(ordered))
        from matplotlib.ticker import FuncFormatter
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: "%gx" % v))
        ax.yaxis.set_minor_formatter(FuncFormatter(lambda v, _: ""))
    ax.set_xticks(xs)
    ax.set_xticklabels([st.label(r) for r in ordered], rotation=30, ha="right", fontsize=9)
    ax.grid(axis="y", which="both", alpha=0.25)
    ax.set_axisbelow(True)
    st.mode_separators(ax, spans, groups)
    n = rows[0]["iterations"]
    what = ("median time" if args.kind == "ms"
            else "normalised to each host's %s" % st.baseline_label(ordered))
    ax.set_title("%s across %d hosts: %s, N = %s per run" % (workload, k, what, n),
                 pad=22, fontsize=11)
    from matplotlib.patches import Patch
    styles = []
    for r in ordered:
        if st.style_key(r) not in styles:
            styles.append(st.style_key(r))
    hs = [Patch(facecolor=st.style_color(s), edgecolor="black", label=s) for s in styles]
    hs += [Patch(facecolor="white", edgecolor="black", hatch=HOST_HATCH[i],
                 label="host %d: %s" % (i + 1, h)) for i, h in enumerate(hosts)]
    ax.legend(handles=hs, fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0),
              frameon=False)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    notes = ["host %d: %s, run %s" % (i + 1, r.get("host", {}).get("cpu_model") or hosts[i],
                                      r.get("run", {}).get("stamp", "?"))
             for i, r in enumerate(runs)]
    fig.text(0.01, 0.005, "; ".join(notes) + "\nBars in host order within each variant; "
             "whiskers: 95% CI; ~ = not significant (Mann-Whitney U).",
             ha="left", va="bottom", fontsize=7.5, color="#333333")
    fig.savefig(args.output, dpi=st.DPI)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
