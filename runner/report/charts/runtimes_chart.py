"""runtimes_chart.py -- a workload's seed claims on each runtime version.

Usage: python3 -m runner.report.charts.runtimes_chart RUNDIR [-o OUT.png] [--workload W]

For a run of the runtimes profile (DESIGN section 11): each ratio claim of the
workload whose variants are all of versioned languages, as a line across the
versions of its first variant's language in release order.  A dot is the
claim's round-paired ratio on that version with its 95% CI (runner/analysis/byversion.py,
the figures of REPORT.md's table), the hollow diamond the seed's published
figure at the version that stands for the seed's runtime.  Log axis: the line
at 1 is "as fast"; a claim holds where its CI lies above 1.
"""
import sys

from matplotlib.lines import Line2D

from ...analysis import byversion
from ...catalog import catalog as catalog_mod
from ...analysis import claimrun
from . import layout
from . import rundata

PROG = "runtimes_chart.py"
COLORS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"]
NAMES = {"node": "Node", "go": "Go"}


def draw(data, workload=None, out=None):
    """The chart of workload (the run's only one when None) into out (None:
    RUNDIR/charts/runtimes-<workload>.png); ChartError when it cannot be drawn."""
    summary = data.summary
    workload, _, out = rundata.run_rows(PROG, "runtimes", data, workload, out)
    try:
        cat = data.catalog()
    except catalog_mod.CatalogError as e:
        rundata.die(PROG, "cannot read the catalog: %s" % e, 3)
    claims = (cat.workloads.get(workload) or {}).get("claims")
    if not claims:
        rundata.die(PROG, "the catalog has no seed claims of %s" % workload, 1)
    run = claimrun.Run(summary, data, cat)
    versions = byversion.versions_in(run)
    rows = byversion.compared(cat, claims, versions)
    seed, today = byversion.seed_pins(claims), byversion.today_pins(versions)
    if not rows:
        rundata.die(PROG, "no claim of %s has its variants on a pinned version in this run"
                    % workload, 1)
    lang, _ = byversion.axis(cat, rows[0], versions, seed, today)
    rows = [c for c in rows if byversion.axis(cat, c, versions, seed, today)[0] == lang]
    heads = versions[lang]
    legend = []
    p = layout.Panels(PROG, out, "runtimes", workload,
                  "%s: seed %s's claims on each %s version (log axis)" % (
                      workload, claims["seed"], NAMES.get(lang, lang)),
                  [("ratio claims (slower / faster), by %s version" % NAMES.get(lang, lang),
                    [{"variant": c["num"]} for c in rows])],
                  "%s version, in release order" % NAMES.get(lang, lang), legend, "", summary,
                  lines=True)
    ax = p.axes[0]
    vals = [1.0]
    missing = []
    for k, c in enumerate(rows):
        color = COLORS[k % len(COLORS)]
        dx = (k - (len(rows) - 1) / 2.0) * 0.06
        _, cols = byversion.axis(cat, c, versions, seed, today)
        xs, ys = [], []
        for x, (ver, pins) in enumerate(cols):
            r = byversion.ratio_on(run, c, pins)
            if "missing" in r:
                missing.append("#%d on %s" % (k + 1, ver))
                continue
            if r["low"] is not None:
                ax.plot([x + dx] * 2, [r["low"], r["high"]], color=color, linewidth=2.5)
                vals += [r["low"], r["high"]]
            xs.append(x + dx)
            ys.append(r["value"])
            vals.append(r["value"])
            p.point(0, {"variant": byversion.on(cat, c["num"], pins)}, r["value"], r["low"],
                    r["high"], claim=c["id"], version=ver,
                    compared=[byversion.on(cat, c["num"], pins), byversion.on(cat, c["den"], pins)])
        ax.plot(xs, ys, color=color, marker="o", markersize=7, markeredgecolor="black",
                linewidth=1.2)
        if c["seed"] is not None and seed.get(lang) in heads:
            ax.plot([heads.index(seed[lang]) + dx], [c["seed"]], marker="D", markersize=11,
                    markerfacecolor="white", markeredgecolor=color, markeredgewidth=2.2,
                    linestyle="none", zorder=5)
            vals.append(c["seed"])
        legend.append(Line2D([], [], color=color, marker="o", markeredgecolor="black",
                             label="#%d %s (seed: %s)" % (k + 1, c["id"], byversion.seed_figure(c))))
    legend.append(Line2D([], [], marker="D", markersize=10, markerfacecolor="white",
                         markeredgecolor="black", markeredgewidth=2, linestyle="none",
                         label="the seed's figure, at the seed's version"))
    p.legend_handles = legend
    ax.axhline(1.0, color="black", linewidth=1)
    ax.set_xticks(range(len(heads)))
    ax.set_xticklabels(["%s%s" % (v, "\nseed's" if seed.get(lang) == v else "") for v in heads])
    ax.set_xlim(-0.5, len(heads) - 0.5)
    lo, hi = min(v for v in vals if v > 0), max(vals)
    ax.set_yscale("log")
    ax.set_ylim(lo / 1.25, hi * 1.25)
    layout.plain_log_axis(ax, "y")
    ax.set_ylabel("slower / faster")
    p.note_text = ("Seed %s measured on %s; the seed's version here: %s. A dot is this run's "
                   "median of round-paired ratios, its bar the 95%% CI; a claim holds where the "
                   "bar lies above 1.%s" % (
                       claims["seed"], claims["host"], byversion.pins_text(seed) or "none",
                       (" Other languages stay at the seed's version. " if len(versions) > 1 else " ")
                       + ("Not measured: %s." % ", ".join(missing) if missing else "")))
    return p.finish()


def main(argv):
    return rundata.cli(PROG, __doc__, "runtimes", argv, draw)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
