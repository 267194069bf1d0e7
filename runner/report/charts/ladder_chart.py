"""ladder_chart.py -- a seed's claims as ladders: a waterfall from the seed's
published figure to the suite's default, one change at a time.

Usage: python3 -m runner.report.charts.ladder_chart RUNDIR [-o OUT.png] [--workload W]

For a run of the seed profile (runner/analysis/ladder.py, DESIGN section 7): a panel
per ratio claim of the workload with at least two measured rungs (the first
four in the catalog's order; every claim's table is in REPORT.md).  A rung's
figure is a level with its 95% CI; the bar between two measured rungs is the
step, labelled with its factor and what changed; a rung not measured is
marked so.  Rung 6 comes from the newest default-profile run beside this one
(the same host).  Log axis.
"""
import sys
import textwrap

from ...analysis import ladder
from ...catalog import catalog as catalog_mod
from ...core.errors import EnvError
from . import layout
from . import rundata
from .style import DPI, FONT_PT, WIDTH_IN, plt

PROG = "ladder_chart.py"
MAX_PANELS = 4
TICKS = {1: "1 published", 2: "2 shape,\nold runtime", 3: "3 shape,\nthis runtime",
         4: "4 suite's code,\nseed's clock", 5: "5 in-process,\nseed's N", 6: "6 suite's\ndefault"}
SHORT = {"host": "host", "runtime": "runtime", "program": "program", "method": "clock",
         "n": "N"}
UP, DOWN, LEVEL = "#D55E00", "#0072B2", "#000000"


def ladders_of(data, workload):
    """(claims, [ladder]) of the workload's ratio claims with two measured rungs."""
    try:
        runs = ladder.runs_for(data, ladder.default_beside(data))
    except (EnvError, catalog_mod.CatalogError) as e:
        rundata.die(PROG, "cannot read the runs: %s" % e, 3)
    claims = (runs["catalog"].workloads.get(workload) or {}).get("claims") or {}
    if not claims.get("ladder"):
        rundata.die(PROG, "the catalog has no ladder of %s's claims" % workload, 1)
    lads = [ladder.build(runs["catalog"], claims, c["id"], runs) for c in claims.get("ratios", [])]
    lads = [lad for lad in lads if sum("figure" in r for r in lad["rungs"]) >= 2]
    if not lads:
        rundata.die(PROG, "no claim of %s has two measured rungs in this run" % workload, 1)
    return claims, runs, lads


def draw(data, workload=None, out=None):
    """The chart of workload into out (None: RUNDIR/charts/ladder-<workload>.png)."""
    workload, _, out = rundata.run_rows(PROG, "ladder", data, workload, out)
    claims, runs, lads = ladders_of(data, workload)
    shown = lads[:MAX_PANELS]
    steps = claims["ladder"]["steps"]
    note = ("Each level a rung's figure with its 95%% CI, each bar a step: its factor (the rung "
            "before it over the rung after it, as in the tables) and what changed, orange where the figure grows, blue where it shrinks; an empty slot a rung not measured (REPORT.md says why). host: %s; runtime: "
            "%s; program: %s; clock: %s; N: %s. Rung 6: %s.%s" % (
                ladder.HOST_STEP, steps["runtime"], steps["program"], steps["method"], steps["n"],
                "not measured (%s)" % shown[0]["rungs"][5]["why"] if "why" in shown[0]["rungs"][5]
                else "the default run %s" % runs["default_stamp"],
                " Not shown: %d more claims (REPORT.md has every ladder)." % (len(lads) - len(shown))
                if len(lads) > len(shown) else ""))
    wrapped = "\n".join(textwrap.wrap(note, 86))
    lines = wrapped.count("\n") + 1
    panel_in = 3.1
    fig, axes = plt.subplots(len(shown), 1, figsize=(
        WIDTH_IN, 1.0 + panel_in * len(shown) + lines * FONT_PT * 1.25 / 72 + 0.95),
                             dpi=DPI, sharex=True, squeeze=False)
    axes = [a[0] for a in axes]
    side = []
    for ax, lad in zip(axes, shown):
        c = lad["claim"]
        vals = []
        for r in lad["rungs"]:
            x = r["rung"] - 1
            if "figure" not in r:
                continue
            f = r["figure"]
            ax.plot([x - 0.28, x + 0.28], [f["value"]] * 2, color=LEVEL, linewidth=2.5)
            vals.append(f["value"])
            if f.get("low") is not None:
                ax.plot([x, x], [f["low"], f["high"]], color=LEVEL, linewidth=1.2)
                vals += [f["low"], f["high"]]
            top = f["high"] if f.get("high") is not None else f["value"]
            ax.annotate(("%.2fx" if f["value"] < 10 else "%.3gx") % f["value"], (x, top),
                        xytext=(0, 4),
                        textcoords="offset points", ha="center", va="bottom", fontsize=FONT_PT)
        for s in lad["steps"]:
            a = next(r for r in lad["rungs"] if r["rung"] == s["from"])["figure"]["value"]
            b = next(r for r in lad["rungs"] if r["rung"] == s["to"])["figure"]["value"]
            xa, xb = s["from"] - 1, s["to"] - 1
            xm = (xa + xb) / 2.0
            color = UP if b > a else DOWN
            ax.plot([xa + 0.28, xm], [a, a], color="#999999", linewidth=1, linestyle=":")
            ax.plot([xm, xb - 0.28], [b, b], color="#999999", linewidth=1, linestyle=":")
            ax.bar([xm], [abs(b - a)], bottom=[min(a, b)], width=0.16, color=color, alpha=0.8)
            # the step's label in the panel's bottom band, under its bar
            ax.text(xm, 0.03, "%.2fx\n%s" % (s["value"], "+".join(SHORT[k] for k in s["keys"])),
                    transform=ax.get_xaxis_transform(), ha="center", va="bottom",
                    fontsize=FONT_PT, color=color)
        ax.set_yscale("log")
        lo, hi = min(vals) / 1.3, max(vals) * 3.0
        # the data in the upper 62% of the panel, the steps' labels below it
        ax.set_ylim(lo / (hi / lo) ** 0.62, hi)
        layout.plain_log_axis(ax, "y")
        ax.set_ylabel("slower / faster")
        ax.set_title("%s (seed: %s)" % (c["id"], ladder.fig_cell(lad["rungs"][0], "ratio").split(" (")[0]
                                         if "figure" in lad["rungs"][0] else "no figure"),
                     loc="left", fontsize=FONT_PT)
        ax.grid(axis="y", color="#dddddd", linewidth=0.6)
        side.append({"claim": c["id"], "rungs": [
            {"rung": r["rung"], "figure": r.get("figure"), "why": r.get("why"),
             "variants": r.get("ids")} for r in lad["rungs"]],
            "steps": [{k: s[k] for k in ("from", "to", "value", "low", "high", "how", "what")}
                      for s in lad["steps"]],
            "product": lad["product"], "gap": lad["gap"], "within": lad["within"]})
    axes[-1].set_xticks(range(6))
    axes[-1].set_xticklabels([TICKS[k] for k in range(1, 7)])
    axes[-1].set_xlim(-0.5, 5.5)
    fig.suptitle("Seed %s (%s): each claim from the seed's figure to the suite's, one change "
                 "at a time (log axis)" % (claims["seed"], workload), fontsize=FONT_PT,
                 x=0.02, ha="left", y=0.995)
    fig.text(0.02, 0.005, wrapped, ha="left", va="bottom", fontsize=FONT_PT)
    fig_h = fig.get_figheight()
    fig.subplots_adjust(left=0.1, right=0.98, top=1 - 0.75 / fig_h,
                        bottom=(lines * FONT_PT * 1.25 / 72 + 0.95) / fig_h, hspace=0.45)
    fig.canvas.draw()
    check = layout.check_figure(fig)
    layout.save_drawn(fig, out)
    plt.close(fig)
    layout.write_sidecar(out, {"chart": "ladder", "workload": workload, "claims": side,
                               "check": check})
    if check["overlaps"] or check["outside"]:
        rundata.die(PROG, "the chart's texts overlap or leave it: %s" % (
            check["overlaps"] or check["outside"])[:3], 4)
    return out


def main(argv):
    return rundata.cli(PROG, __doc__, "ladder", argv, draw)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
