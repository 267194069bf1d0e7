"""where_time_chart.py -- where the time of one operation goes, per C variant:
a stacked bar of µs per operation split into system calls, verification,
the backend's hand-off (threadpool waiting) and the style, with the CPU per
operation marked on it.

Usage: python3 -m runner.report.charts.where_time_chart RUNDIR [-o OUT.png] [--workload W]

Reads RUNDIR/summary.json (its rows' median_ms, iterations and the
accounting that runner/analysis/accounting.py attaches).  One panel per backend of
the workload's C variants and mode, each on its own scale (a node4 read
costs a hundred times an inline one), backends from the slowest; a bar per
variant.  Go and Node variants are left out (the sidecar names them).  The
parts are estimated from differences of medians on the same backend, so they
are estimates, not measurements of their own:

  system calls    the backend's blocking floor (c/sync-sequential on it, or on
                  the backend the catalog's charts.where_time.floor_of names
                  for it: readfile's fused and inline, whose blocking form is
                  node4's): its µs per operation minus its user CPU per operation
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
import sys

from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from . import layout
from . import rundata
from . import style as st
from ...catalog import catalog as catalog_mod

PROG = "where_time_chart.py"

PARTS = (("syscalls", "system calls (blocking floor)", "#56B4E9"),
         ("verify", "verification (floor's user CPU)", "#009E73"),
         ("handoff", "hand-off: threadpool waiting / loop turn / ring", "#E69F00"),
         ("style", "style (minus callback, same mode and backend)", "#CC79A7"),
         ("rest", "not split (no floor or callback here)", "#BBBBBB"))


def floors(prog, workload, data=None):
    """{backend: the backend of its blocking floor} for the backends that have no
    sync variant of their own: the catalog's charts.where_time.floor_of (today's
    catalog, data's when given)."""
    try:
        cat = data.catalog() if data else catalog_mod.load()
    except catalog_mod.CatalogError as e:
        rundata.die(prog, str(e), 3)
    h = ((cat.workloads.get(workload) or {}).get("charts") or {}).get("where_time")
    return dict(h.get("floor_of") or {}) if isinstance(h, dict) else {}


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


def split(r, rows, floor_of=None):
    """{part: µs} of row r, from the floor and callback rows of its backend (the
    floor of floor_of[backend] when it names one): the parts in the order of
    PARTS, each capped at what is left of the variant's own time, so that the
    bar is as long as the variant's time."""
    total = us_per_op(r)
    floor_of = floor_of or {}
    find = {(x["style"], x.get("shape") or "", x["mode"], x["backend"]): x for x in rows}
    floor = find.get(("sync", "", "sequential", floor_of.get(r["backend"], r["backend"])))
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


def draw(data, workload=None, out=None):
    """The chart of workload (the run's only one when None) into out (None:
    RUNDIR/charts/where-<workload>.png); ChartError when it cannot be drawn."""
    summary = data.summary
    workload, rows, out = rundata.run_rows(PROG, "where", data, workload, out, "median_ms")
    c_rows = [r for r in rows if r["lang"] == "c" and us_per_op(r) is not None]
    floor_of = floors(PROG, workload, data)
    # Backends from the slowest (by its variants' mean time) to the fastest; in
    # each, one panel per mode, as every chart has them.
    backends = sorted({r["backend"] for r in c_rows}, key=lambda b: (-sum(
        us_per_op(r) for r in c_rows if r["backend"] == b) / sum(
        1 for r in c_rows if r["backend"] == b), b))
    groups = []
    for b in backends:
        for ptitle, grows in st.panels([r for r in c_rows if r["backend"] == b]):
            groups.append(("backend %s: %s" % (b, ptitle), grows))
    noun = st.unit_noun(summary, workload)
    # A unit that suits the times (ns for a made-up workload, µs for a read).
    unit, scale = st.time_unit([us_per_op(r) * 1000.0 for r in c_rows])
    f = 1000.0 / scale             # µs -> unit
    drawn = {key for r in c_rows for key, v in split(r, c_rows, floor_of).items() if v > 0}
    handles = [Patch(facecolor=color, edgecolor="black", label=name)
               for key, name, color in PARTS if key in drawn]
    handles += [None, Line2D([], [], marker="o", color="black", linestyle="none", markersize=8,
                             label="CPU per %s (user + system)" % noun)]
    # "(node4's for fused and inline)": the backends whose floor is another's.
    by_floor = {}
    for backend, of in sorted(floor_of.items()):
        by_floor.setdefault(of, []).append(backend)
    borrowed = " (%s)" % "; ".join("%s's for %s" % (of, " and ".join(bs))
                                   for of, bs in sorted(by_floor.items())) if by_floor else ""
    note = ("Parts are differences of medians on the same backend, estimates, not measurements "
            "of their own: floor = c/sync-sequential%s; system "
            "calls = the floor's time minus its user CPU; verification = that user CPU; "
            "hand-off = callback - floor; style = variant - callback. Laid down in that order "
            "and cut at the variant's own time, so a bar is as long as the variant's time. "
            "Dot: CPU per %s; right of the bar's end: more than one core busy; left of it: the "
            "process waited. Each panel has its own axis. Value column: time | CPU, %s per %s."
            % (borrowed, noun, unit, noun))
    left_out = [r for r in rows if r not in c_rows]
    if left_out:
        note += " Not shown: the %s variants (the split is of C's backends)." % " and ".join(
            sorted({st.LANG_NAMES.get(r["lang"], r["lang"]) for r in left_out}))
    if not groups:
        # Nothing to split: the chart says so rather than being missing.
        groups = [("no C variant with a time in this run", [])]
        handles, note = [], note[note.index(" Not shown"):].strip() if left_out else ""
    p = layout.Panels(PROG, out, "where", workload,
                  "%s: where the time of one %s goes (C), %s per %s, N = %s per run; lower is "
                  "better" % (workload, noun, unit, noun, "{:,}".format(rows[0]["iterations"])),
                  groups, "%s per %s" % (unit, noun), handles, note, summary,
                  label=lambda r: r["label"].split("/", 1)[1].split("@")[0].rsplit("-", 1)[0])
    for r in left_out:
        p.omit(r, "not a C variant: the split is of C's backends")
    if not c_rows:
        ax = p.axes[0]
        ax.set_xticks([])
        ax.set_yticks([])
        ax.set_xlabel("")
        ax.text(0.5, 0.5, "no C variant with a time: nothing to split", transform=ax.transAxes,
                ha="center", va="center")
        return p.finish()
    for k, (_, grows) in enumerate(groups):
        ax = p.axes[k]
        top = []
        for y, r in enumerate(grows):
            parts, left = split(r, c_rows, floor_of), 0.0
            for key, _, color in PARTS:
                if parts[key] > 0:
                    ax.barh(y, parts[key] * f, left=left, color=color, edgecolor="black",
                            linewidth=0.6, height=0.6)
                    left += parts[key] * f
            cpu = cpu_per_op(r) * f if cpu_per_op(r) is not None else None
            if cpu is not None:
                ax.plot([cpu], [y], "o", color="black", markersize=8)
            total = us_per_op(r) * f
            p.point(k, r, total, unit="%s/%s" % (unit, noun), cpu=cpu,
                    parts={key: v * f for key, v in parts.items()})
            p.value(k, y, st.num(total) + ("" if cpu is None else " | %s" % st.num(cpu)))
            top += [total, cpu or 0.0]
        ax.set_xlim(0, max(top) * 1.08 if max(top) > 0 else 1.0)
    return p.finish()


def main(argv):
    return rundata.cli(PROG, __doc__, "where", argv, draw)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
