"""where_time_chart.py -- where the time of one operation goes, per C variant:
a stacked bar of µs per operation split into system calls, verification,
the backend's hand-off (threadpool waiting) and the style, with the CPU per
operation marked on it.

Usage: where_time_chart.py RUNDIR [-o OUT.png] [--workload W]

Reads RUNDIR/summary.json (its rows' median_ms, iterations and the
accounting that runner/accounting.py attaches).  One panel per backend of
the workload's C variants, each on its own scale (a node4 read costs a
hundred times an inline one); a bar per variant, grouped by mode.  The parts
are estimated from differences of medians on the same backend, so they are
estimates, not measurements of their own:

  system calls    the backend's blocking floor (c/sync-sequential on it, or on
                  node4 for fused and inline, whose blocking form is node4's):
                  its µs per operation minus its user CPU per operation
  verification    that floor's user CPU per operation (comparing the bytes,
                  the loop around the calls)
  hand-off        the callback variant of the same mode and backend minus the
                  floor: threadpool waiting (node4, fused), loop turns (inline),
                  the ring (uring)
  style           the variant minus that callback variant (0 for callbacks)

The parts are laid down in that order, each cut to what is left of the
variant's own time, so every bar is as long as the variant's time: a
parallel variant faster than the sequential floor (two cores) shows only
part of the floor, and a negative difference is 0.  The dot is the
CPU per operation (user + system of the timed section): right of the bar's
end means more than one core was busy, left of it that the process waited.
Without a floor or a callback variant on a backend the unexplained rest is
drawn as one grey part.  Lower is better.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import style as st  # noqa: E402
from style import plt  # noqa: E402

PARTS = (("syscalls", "system calls (blocking floor)", "#56B4E9"),
         ("verify", "verification (floor's user CPU)", "#009E73"),
         ("handoff", "hand-off: threadpool waiting / loop turn / ring", "#E69F00"),
         ("style", "style (minus callback, same mode and backend)", "#CC79A7"),
         ("rest", "not split (no floor or callback here)", "#BBBBBB"))
# Blocking forms that are node4's (backend -> backend of its floor).
FLOOR_OF = {"fused": "node4", "inline": "node4"}


def us_per_op(r):
    if r.get("median_ms") is None or not r.get("iterations"):
        return None
    return r["median_ms"] * 1000.0 / r["iterations"]


def cpu_per_op(r):
    a = r.get("accounting") or {}
    return None if a.get("cpu_ns") is None else a["cpu_ns"] / 1000.0


def user_per_op(r):
    a = r.get("accounting") or {}
    return None if a.get("user_ns") is None else a["user_ns"] / 1000.0


def split(r, rows):
    """{part: µs} of row r, from the floor and callback rows of its backend: the
    parts in the order of PARTS, each capped at what is left of the variant's
    own time, so that the bar is as long as the variant's time."""
    total = us_per_op(r)
    find = {(x["style"], x.get("shape") or "", x["mode"], x["backend"]): x for x in rows}
    floor = find.get(("sync", "", "sequential", FLOOR_OF.get(r["backend"], r["backend"])))
    cb = find.get(("callback", "", r["mode"], r["backend"]))
    want = dict.fromkeys([p[0] for p in PARTS], 0.0)
    if floor is None or us_per_op(floor) is None or r["style"] == "sync" and floor is not r:
        want["rest"] = total
    else:
        fl = us_per_op(floor)
        want["verify"] = min(user_per_op(floor) or 0.0, fl)
        want["syscalls"] = fl - want["verify"]
        if r["style"] != "sync":
            if cb is None or us_per_op(cb) is None:
                want["rest"] = total
            else:
                want["handoff"] = max(0.0, us_per_op(cb) - fl)
                want["style"] = max(0.0, total - us_per_op(cb))
    parts, left = {}, total
    for key, _, _ in PARTS:
        parts[key] = min(want[key], left)
        left -= parts[key]
    return parts


def main(argv):
    p = st.parser("where_time_chart.py", __doc__)
    p.add_argument("rundir", help="a run folder, e.g. results/latest")
    p.add_argument("-o", "--output", help="PNG to write (default: RUNDIR/charts/where-<workload>.png)")
    p.add_argument("--workload", help="which workload (default: the only one)")
    args = p.parse_args(argv)
    summary = st.load_summary("where_time_chart.py", args.rundir)
    workload, rows = st.pick_workload("where_time_chart.py", summary["variants"], args.workload)
    out = st.output_path("where_time_chart.py", args, "where-%s.png" % workload)
    c_rows = [r for r in rows if r["lang"] == "c" and us_per_op(r) is not None]
    # Panels from the slowest backend (by its variants' mean time) to the fastest.
    backends = sorted({r["backend"] for r in c_rows}, key=lambda b: -sum(
        us_per_op(r) for r in c_rows if r["backend"] == b) / sum(
        1 for r in c_rows if r["backend"] == b))
    if not backends:
        fig, ax = plt.subplots(figsize=(7, 2.5))
        ax.axis("off")
        ax.text(0.5, 0.5, "%s: no C variant with a time in this run" % workload,
                ha="center", va="center")
        fig.savefig(out, dpi=st.DPI)
        return 0
    ncol = 2 if len(backends) > 1 else 1
    nrow = (len(backends) + ncol - 1) // ncol
    most = max(sum(1 for r in c_rows if r["backend"] == b) for b in backends)
    fig, axes = plt.subplots(nrow, ncol, figsize=(11.5 if ncol == 2 else 10.0,
                                                   nrow * (0.24 * most + 1.4) + 1.6),
                             squeeze=False)
    for k, b in enumerate(backends):
        ax = axes[k // ncol][k % ncol]
        brows = [r for _, g in st.by_mode([r for r in c_rows if r["backend"] == b]) for r in g]
        ys = list(range(len(brows)))[::-1]
        for y, r in zip(ys, brows):
            parts, left = split(r, c_rows), 0.0
            for key, _, color in PARTS:
                if parts[key] > 0:
                    ax.barh(y, parts[key], left=left, color=color, edgecolor="black",
                            linewidth=0.4, height=0.72)
                    left += parts[key]
            if cpu_per_op(r) is not None:
                ax.plot(cpu_per_op(r), y, "o", color="black", markersize=3.5)
        ax.set_yticks(ys)
        ax.set_yticklabels(["%s %s" % (st.label(r).split("/", 1)[1].split("@")[0], r["mode"])
                            for r in brows], fontsize=7.5)
        ax.set_title("backend %s" % b, fontsize=10)
        ax.set_xlabel("µs per operation (lower is better)", fontsize=8)
        ax.grid(axis="x", alpha=0.3)
        ax.set_axisbelow(True)
        ax.set_xlim(left=0)
    for k in range(len(backends), nrow * ncol):
        axes[k // ncol][k % ncol].axis("off")
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    handles = [Patch(facecolor=color, edgecolor="black", label=name) for _, name, color in PARTS]
    handles += [Line2D([], [], marker="o", color="black", linestyle="", markersize=4,
                       label="CPU per operation (user + system)")]
    fig.legend(handles=handles, loc="upper center", ncol=3, fontsize=7.5, frameon=False,
               bbox_to_anchor=(0.5, 0.985))
    fig.suptitle(st.title(summary, "where the time of one operation goes (C)", workload),
                 fontsize=11, y=0.998)
    fig.tight_layout(rect=(0, 0.08, 1, 0.93))
    st.footnote(fig, summary, "Parts are differences of medians on the same backend: "
                "floor = c/sync-sequential (node4's for fused and inline); hand-off = callback "
                "- floor;\nstyle = variant - callback; laid down in that order and cut at the "
                "variant's own time.")
    fig.savefig(out, dpi=st.DPI)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
