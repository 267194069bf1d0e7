"""gap_chart.py -- Node's gap to C, split into the runtime, the style and the
file reader, for each gap of the workload's claims decomposition.

Usage: python3 -m runner.report.charts.gap_chart RUNDIR [-o OUT.png] [--workload W]

Reads RUNDIR/summary.json and RUNDIR/samples.csv, and the "decomposition" of
the workload's seed claims in its catalog file.  Each gap row names a Node
pair (slower style / Node callbacks) and the same pair in C.  The chart draws,
as round-paired ratios with 95% CIs (runner/analysis/claimrun.py) on a log axis:

  total        the Node variant / C callbacks            (Node's whole gap to C)
  runtime      Node callbacks / C callbacks              (the same style, Node vs C)
  style        Node's style over Node callbacks through the same file reader
               (the row's style_in_node pair, e.g. await@promisify / callback@fs.readFile)
  file reader  the Node variant / the same style through the other reader
               (backend_in_node, e.g. await@fs.promises / await@promisify)
  style in C   the same pair of styles in C: what the style costs when built cheaply

total = runtime x style x file reader, so on the log axis the three parts add
up to the total.  Rows that compare two languages' pairs (Node / Go) are
not gaps to C and are left out.  A gap without the Node pairs to split style from file
reader shows style and file reader as one part.
"""
import sys

from ...catalog import catalog as catalog_mod
from ...analysis import claimrun
from . import layout
from . import rundata
from . import style as st

PROG = "gap_chart.py"
PART_COLORS = {"total": "#000000", "runtime": "#7f7f7f", "style": "#009E73",
               "file reader": "#E69F00", "style and file reader": "#009E73",
               "style in C": "#0072B2"}


def short(vid):
    """A variant id without its workload: node/await-parallel@fs.promises."""
    return vid.split("/", 1)[1] if "/" in vid else vid


def parts(d):
    """[(part, numerator ids, denominator ids)] of one decomposition row."""
    node, c = d["node"], d["c"]
    out = [("total", [node[0]], [c[1]]), ("runtime", [node[1]], [c[1]])]
    if d.get("style_in_node") and d.get("backend_in_node"):
        out += [("style", [d["style_in_node"][0]], [d["style_in_node"][1]]),
                ("file reader", [d["backend_in_node"][0]], [d["backend_in_node"][1]])]
    else:
        out.append(("style and file reader", [node[0]], [node[1]]))
    out.append(("style in C", [c[0]], [c[1]]))
    return out


def splits(d):
    """True for a row that pairs two styles in one language (Node) and the same
    two in another (C): a gap between languages, such as Node / Go, is no
    language's gap to C and has no runtime part to split off."""
    a = {st.lang_of(v) for v in d["node"]}
    b = {st.lang_of(v) for v in d["c"]}
    return len(a) == 1 and len(b) == 1 and a != b


def draw(data, workload=None, out=None):
    """The chart of workload (the run's only one when None) into out (None:
    RUNDIR/charts/gap-<workload>.png); ChartError when it cannot be drawn."""
    summary = data.summary
    workload, _, out = rundata.run_rows(PROG, "gap", data, workload, out)
    try:
        cat = data.catalog()
    except catalog_mod.CatalogError as e:
        rundata.die(PROG, "cannot read the catalog: %s" % e, 3)
    dec = ((cat.workloads.get(workload) or {}).get("claims") or {}).get("decomposition")
    if not dec or not dec.get("rows"):
        rundata.die(PROG, "the catalog has no decomposition of %s's gaps" % workload, 1)
    run = claimrun.Run(summary, data, cat)
    groups, measured, missing, reasons = [], [], {}, []
    gaps = [d for d in dec["rows"] if splits(d)]
    for d in gaps:
        rows = []
        for name, num, den in parts(d):
            res = run.ratio(num, den)
            if "missing" in res:
                missing.setdefault(name, []).append(d["gap"])
                reasons.append(res["missing"])
                continue
            rows.append({"variant": num[0], "label": name, "mode": "", "lang": "",
                         "num": num, "den": den, "res": res})
        if rows:
            groups.append((d["gap"], rows))
    if not groups:
        rundata.die(PROG, "no gap of %s was measured in this run: %s" % (workload, reasons[0]), 1)
    p = layout.Panels(PROG, out, "gap", workload,
                  "%s: Node's gap to C split into runtime, style and file reader "
                  "(ratios of times, 95%% CI, log axis)" % workload, groups,
                  "ratio of times (log)", (), "", summary)
    for k, (gap, grows) in enumerate(groups):
        ax = p.axes[k]
        vals = []
        for y, g in enumerate(grows):
            res, color = g["res"], PART_COLORS.get(g["label"], "#555555")
            sig = None if res["low"] is None else (res["low"] > 1 or res["high"] < 1)
            e = st.emphasis(sig)
            if res["low"] is not None:
                ax.plot([res["low"], res["high"]], [y, y], color=color, linewidth=3,
                        alpha=e["alpha"])
                vals += [res["low"], res["high"]]
            ax.plot([res["value"]], [y], marker="o", markersize=10, color=color,
                    markeredgecolor="black", alpha=e["alpha"], linestyle="none")
            vals.append(res["value"])
            for vid in g["num"] + g["den"]:
                p.point(k, {"variant": vid}, res["value"], res["low"], res["high"],
                        part=g["label"], num=g["num"], den=g["den"])
            p.value(k, y, st.ratio_text(res["value"], res["low"], res["high"],
                                        None if sig is None else sig), sig)
            measured.append("%s = %s / %s" % (g["label"], " x ".join(map(short, g["num"])),
                                              " x ".join(map(short, g["den"]))))
        ax.axvline(1.0, color="black", linewidth=1.2, zorder=1)
        layout.log_limits(ax, vals, pad=1.15, include_one=True)
        layout.ratio_axis(ax)
    first = groups[0][1]
    p.note_text = ("total = runtime x style x file reader: on the log axis the parts add up to "
                   "the total. Round-paired ratios (as REPORT.md's decomposition); bold: the CI "
                   "excludes 1, faded: it does not. In the first panel: %s."
                   % "; ".join(measured[:len(first)]))
    if missing:
        p.note_text += " Not measured in this run: %s (for example, %s)." % (
            "; ".join("%s in %s" % (part, "every gap" if len(where) == len(gaps)
                                    else ", ".join(where)) for part, where in missing.items()),
            reasons[0].replace("`", ""))
    return p.finish()


def main(argv):
    return rundata.cli(PROG, __doc__, "gap", argv, draw)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
