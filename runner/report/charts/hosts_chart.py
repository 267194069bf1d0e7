"""hosts_chart.py -- the same variants side by side on several hosts.

Usage: python3 -m runner.report.charts.hosts_chart RUNDIR RUNDIR... [--kind ms|ratio] [-o OUT.png] [--workload W]

Reads each RUNDIR/summary.json (one run per host; `python3 -m runner --hosts`
passes the newest run of every host under results/).  --kind ms draws the
median time per operation with its 95% CI; --kind ratio draws each variant
normalised to its baseline of the same mode on the same host (log axis, the
baseline's label from the summaries), so that a faster machine does not hide
the pattern.  One panel per mode and method, one row per variant, one dot per
host (told apart by its marker, named in the legend; colour = style as in
every chart).
"""
import os
import sys

from matplotlib.lines import Line2D

from ...core import fmt
from . import layout
from . import rundata
from . import style as st

PROG = "hosts_chart.py"
HOST_MARKERS = ["o", "s", "^", "D", "v", "P"]


def check_count(rundirs):
    """Dies unless rundirs are of two hosts or more, and no more than fit."""
    if len(rundirs) < 2:
        rundata.die(PROG, "give run folders of at least two hosts (got %d)" % len(rundirs))
    if len(rundirs) > len(HOST_MARKERS):
        rundata.die(PROG, "at most %d hosts fit on one chart" % len(HOST_MARKERS))


def load(rundirs):
    """The summaries of rundirs, one run a host (as summary.json holds them)."""
    check_count(rundirs)
    return [rundata.folder(PROG, d).summary for d in rundirs]


def draw(runs, rundirs, kind, out, workload=None):
    """The chart across hosts of runs (their summaries, load(rundirs)) into out:
    kind "ms" (time per operation) or "ratio" (to each host's baseline), of
    workload (None: the first the runs share); ChartError when it cannot be
    drawn."""
    check_count(rundirs)
    hosts = [r.get("host", {}).get("slug") or os.path.basename(os.path.dirname(
        os.path.abspath(d))) for r, d in zip(runs, rundirs)]
    if len(set(hosts)) != len(hosts):
        rundata.die(PROG, "two run folders are of the same host %s: give one run per host" % hosts)
    common = set.intersection(*[{v["workload"] for v in r["variants"]} for r in runs])
    if not common:
        rundata.die(PROG, "the runs share no workload")
    workload = workload or sorted(common)[0]
    if workload not in common:
        rundata.die(PROG, "workload %r is not in every run (common: %s)"
                    % (workload, sorted(common)))

    key = "median_ms" if kind == "ms" else "ratio"
    per_host = [{v["variant"]: v for v in r["variants"]
                 if v["workload"] == workload and v.get(key) is not None} for r in runs]
    rows, seen = [], set()
    for table in per_host:
        for v in table.values():
            if v["variant"] not in seen:
                seen.add(v["variant"])
                rows.append(v)
    if not rows:
        rundata.die(PROG, "no variant has a %s on any host" % key, 1)
    groups = st.panels(rows)
    unit, scale = st.time_unit([st.per_op_ns(r, r["median_ms"]) for r in rows
                                if r.get("median_ms") is not None])
    noun = st.unit_noun(runs[0], workload)
    if kind == "ms":
        what, xlabel = "time per %s (median, 95%% CI)" % noun, "%s per %s" % (unit, noun)
    else:
        base = st.baseline_label(rows)
        what = "time / each host's %s (95%% CI)" % base
        xlabel = "time / %s on the same host (log; lower is better)" % base
    legend = [Line2D([], [], marker=HOST_MARKERS[i], linestyle="none", color="white",
                     markeredgecolor="black", markersize=9, label="host %d: %s" % (i + 1, h))
              for i, h in enumerate(hosts)]
    notes = ["host %d: %s, run %s" % (i + 1, r.get("host", {}).get("cpu_model") or hosts[i],
                                      r.get("run", {}).get("stamp", "?"))
             for i, r in enumerate(runs)]
    chart = layout.Panels(PROG, out, "hosts-%s" % kind, workload,
                      "%s across %d hosts: %s; lower is better" % (workload, len(runs), what),
                      groups, xlabel, legend, "; ".join(notes) + ". Dots in host order within "
                      "each row; whiskers: 95% CI.", runs[0])
    k_hosts = len(runs)
    for k, (_, grows) in enumerate(groups):
        ax = chart.axes[k]
        vals = []
        for y, r in enumerate(grows):
            texts = []
            for h, table in enumerate(per_host):
                v = table.get(r["variant"])
                if v is None:
                    texts.append("-")
                    continue
                dy = (h - (k_hosts - 1) / 2.0) * 0.5 / k_hosts
                if kind == "ms":
                    val = st.per_op_ns(v, v["median_ms"]) / scale
                    lo = hi = None
                    if v.get("ci_low_ms") is not None:
                        lo = st.per_op_ns(v, v["ci_low_ms"]) / scale
                        hi = st.per_op_ns(v, v["ci_high_ms"]) / scale
                    sig = True
                    texts.append(st.num(val))
                else:
                    val, lo, hi = v["ratio"], v.get("ratio_ci_low"), v.get("ratio_ci_high")
                    sig = v.get("significant")
                    texts.append(("~" if sig is False else "") + fmt.ratio(val))
                layout.dot(ax, y + dy, r, val, lo, hi, sig, marker=HOST_MARKERS[h])
                chart.point(k, r, val, lo, hi, host=hosts[h])
                vals += [val, lo, hi]
            chart.value(k, y, " | ".join(texts) + (" %s" % unit if kind == "ms" else ""))
        vals = [x for x in vals if x]
        if kind == "ratio":
            ax.axvline(1.0, color="black", linewidth=1.2, zorder=1)
            layout.log_limits(ax, vals, pad=1.15, include_one=True)
            layout.ratio_axis(ax)
        elif max(vals) / min(vals) > 10:
            layout.log_limits(ax, vals)
            layout.plain_log_axis(ax)
        else:
            ax.set_xlim(0, max(vals) * 1.08)
    return chart.finish()


def main(argv):
    p = rundata.parser(PROG, __doc__)
    p.add_argument("rundirs", nargs="+", help="run folders, one per host")
    p.add_argument("--kind", choices=("ms", "ratio"), default="ms")
    p.add_argument("-o", "--output", required=True, help="PNG to write")
    p.add_argument("--workload", help="which workload (default: the first in every run)")
    args = p.parse_args(argv)

    def call():
        check_count(args.rundirs)
        if not os.path.isdir(os.path.dirname(os.path.abspath(args.output))):
            rundata.die(PROG, "output folder of %s does not exist" % args.output)
        draw(load(args.rundirs), args.rundirs, args.kind, args.output, args.workload)
    return rundata.command(call)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
