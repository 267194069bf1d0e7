"""claims_chart.py -- each seed claim of a workload against this host's figure.

Usage: python3 -m runner.report.charts.claims_chart RUNDIR [-o OUT.png] [--workload W]

Reads RUNDIR/summary.json and RUNDIR/samples.csv, and the workload's seed
claims from its catalog file (catalog/<workload>.json, "claims").  A
ratio claim ("callbacks are 4.8x faster than async/await in parallel") is the
slower variant's time over the faster one's: the seed's figure is the hollow
black diamond, this host's the dot with its 95% CI (round-paired, by
runner/analysis/reproduce.py, as in REPORT.md), with the suite's in-process timing and,
when the run measured it, the seed's own method (whole processes).  An
absolute claim (a time for N operations) is drawn per operation in a panel of
its own.  Log axes: a claim 2x too high and one 2x too low are the same
distance from the dot.
"""
import sys

from matplotlib.lines import Line2D

from ...catalog import catalog as catalog_mod
from ...analysis import claimrun
from . import layout
from . import rundata
from . import style as st

PROG = "claims_chart.py"
SUITE = "#0072B2"      # this host, the suite's in-process timing
SEED_METHOD = "#D55E00"  # this host, timed as the seed did


def claim_rows(claims):
    """The chart's rows: (panel, label, claim) for every claim."""
    rows = []
    for c in claims.get("ratios", []):
        rows.append(("ratio claims (slower / faster)", "%s: %s" % (c["whose"], c["id"]), c))
    for c in claims.get("absolute", []):
        rows.append(("absolute claims, per operation", "%s: %s" % (c["whose"], c["id"]), c))
    return rows


def draw(data, workload=None, out=None):
    """The chart of workload (the run's only one when None) into out (None:
    RUNDIR/charts/claims-<workload>.png); ChartError when it cannot be drawn."""
    summary = data.summary
    workload, _, out = rundata.run_rows(PROG, "claims", data, workload, out)
    try:
        cat = data.catalog()
    except catalog_mod.CatalogError as e:
        rundata.die(PROG, "cannot read the catalog: %s" % e, 3)
    claims = (cat.workloads.get(workload) or {}).get("claims")
    if not claims or not (claims.get("ratios") or claims.get("absolute")):
        rundata.die(PROG, "the catalog has no seed claims of %s" % workload, 1)
    run = claimrun.Run(summary, data, cat)
    rows = claim_rows(claims)
    # One pseudo row per claim for the panel layout: its label is the claim's.
    groups = []
    for panel, label, c in rows:
        if not groups or groups[-1][0] != panel:
            groups.append((panel, []))
        groups[-1][1].append({"variant": c["id"], "label": label, "mode": "", "lang": "",
                              "claim": c})
    noun = st.unit_noun(summary, workload)
    legend = [Line2D([], [], marker="D", markersize=10, markerfacecolor="white",
                     markeredgecolor="black", markeredgewidth=2, linestyle="none",
                     label="the seed's claim"),
              Line2D([], [], marker="o", markersize=9, color=SUITE, markeredgecolor="black",
                     label="this host, in-process (95% CI)"),
              Line2D([], [], marker="s", markersize=9, color=SEED_METHOD,
                     markeredgecolor="black", label="this host, the seed's method")]
    p = layout.Panels(PROG, out, "claims", workload,
                  "%s: seed %s's claims against this host (log axes)" % (workload,
                                                                         claims["seed"]),
                  groups, "", legend, "", summary)
    missing = []
    unit, scale = "µs", 1e3
    for k, (panel, grows) in enumerate(groups):
        ax = p.axes[k]
        vals = []
        for y, g in enumerate(grows):
            c = g["claim"]
            if "seed" in c:
                here = run.ratio([c["num"]], [c["den"]])
                # Without seed_method the seed timed the pair as the suite does.
                sm = c.get("seed_method")
                seedm = run.ratio([sm[0]], [sm[1]]) if sm else {"missing": "same"}
                seed = c["seed"]
                used = [c["num"], c["den"]]
                fmt = "%.3gx"
            else:
                seed = c["seed_ms"] * 1e6 / claims["iterations"] / scale
                here = _absolute(run, c["variant"], scale)
                sm = c.get("seed_method", c["variant"])
                seedm = (_absolute(run, sm, scale) if sm != c["variant"]
                         else {"missing": "same"})
                used = [c["variant"]]
                fmt = "%.3g " + unit
            if seed is None:
                # A claim of direction only ("faster"): no figure to draw, the line at 1 is it.
                text = "claim: faster"
            else:
                ax.plot([seed], [y], marker="D", markersize=11, markerfacecolor="white",
                        markeredgecolor="black", markeredgewidth=2, linestyle="none", zorder=3)
                vals.append(seed)
                text = "claim " + fmt % seed
            for res, color, marker, dy in ((here, SUITE, "o", -0.12), (seedm, SEED_METHOD,
                                                                       "s", 0.12)):
                if "missing" in res:
                    continue
                if res["low"] is not None:
                    ax.plot([res["low"], res["high"]], [y + dy] * 2, color=color, linewidth=3)
                    vals += [res["low"], res["high"]]
                ax.plot([res["value"]], [y + dy], marker=marker, markersize=9, color=color,
                        markeredgecolor="black", linestyle="none", zorder=4)
                vals.append(res["value"])
            if "missing" in here:
                missing.append("%s (%s)" % (g["label"], here["missing"].replace("`", "")))
                text += "; not measured"
            else:
                text += "; here " + fmt % here["value"]
                p.point(k, {"variant": used[0]}, here["value"], here["low"], here["high"],
                        claim=c["id"], seed=seed, compared=used, method="in-process")
                for extra in used[1:]:
                    p.point(k, {"variant": extra}, here["value"], here["low"], here["high"],
                            claim=c["id"], seed=seed, compared=used, method="in-process")
            if "missing" not in seedm:
                text += " (%s)" % (fmt % seedm["value"]).strip()
            p.value(k, y, text)
        if vals:
            layout.log_limits(ax, vals, pad=1.3, include_one="seed" in grows[0]["claim"])
            if "seed" in grows[0]["claim"]:
                ax.axvline(1.0, color="black", linewidth=1)
                layout.ratio_axis(ax)
                ax.set_xlabel("slower variant's time / faster one's")
            else:
                layout.plain_log_axis(ax)
                ax.set_xlabel("%s per %s" % (unit, noun))
    p.note_text = ("Claims from seed %s (%s, N = %s). Dots: this run, round-paired ratios or "
                   "medians with 95%% CIs; squares (value in brackets): the same pair timed by "
                   "the seed's method, when this run measured it. Ratios read like the claim: "
                   "slower over faster." % (claims["seed"], claims["host"],
                                           "{:,}".format(claims["iterations"])))
    if missing:
        p.note_text += " Not measured in this run: %s." % "; ".join(missing)
    return p.finish()


def _absolute(run, vid, scale):
    """A variant's median time and CI per operation (ns / scale), as
    claimrun.Run.ratio returns a ratio; {"missing": why} when not measured."""
    why = run.why_missing(vid)
    if why:
        return {"missing": why}
    r = run.rows[vid]
    per = lambda ms: None if ms is None else st.per_op_ns(r, ms) / scale  # noqa: E731
    return {"value": per(r["median_ms"]), "low": per(r.get("ci_low_ms")),
            "high": per(r.get("ci_high_ms"))}


def main(argv):
    return rundata.cli(PROG, __doc__, "claims", argv, draw)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
