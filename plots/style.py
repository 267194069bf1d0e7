"""style.py -- what every chart of plots/ shares: one colour per style and one hatch
per language across all charts, the run folder reader, the title and footnote,
the mode grouping, and die() for bad input.  Not a chart itself.
"""
import argparse
import csv
import json
import os
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402,F401  (re-exported to the chart scripts)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "runner"))
import summary as sm  # noqa: E402  (runner/summary.py: what a summary row holds)

# One colour per style, the same in every chart (colour-blind safe Okabe-Ito first).
STYLE_COLORS = {
    "sync": "#7f7f7f",
    "callback": "#0072B2",
    "promise": "#E69F00",
    "promise-counter": "#F0C050",
    "await": "#009E73",
    "stackless": "#CC79A7",
    "goroutine": "#56B4E9",
    "nexttick": "#D55E00",
    "trampoline": "#8C564B",
}
EXTRA_COLORS = ["#332288", "#117733", "#999933", "#882255", "#44AA99", "#AA4499"]
# Languages are told apart by hatching and by the tick label.
LANG_HATCH = {"c": "", "go": "//", "node": "..", "fake": "xx"}
MODES = ("sequential", "parallel", "bounded")
DPI = 110


def die(prog, msg, code=2):
    print("%s: %s" % (prog, msg), file=sys.stderr)
    sys.exit(code)


def style_color(style):
    if style in STYLE_COLORS:
        return STYLE_COLORS[style]
    # A style added later still gets a stable colour: derived from its name.
    return EXTRA_COLORS[sum(style.encode()) % len(EXTRA_COLORS)]


def style_key(r):
    """What a bar's colour stands for: the style, or style-shape when that has a
    colour of its own (promise-counter), as the charts have always drawn it."""
    if r.get("shape"):
        key = "%s-%s" % (r["style"], r["shape"])
        if key in STYLE_COLORS:
            return key
    return r["style"]


def row_color(r):
    return style_color(style_key(r))


def baseline_label(rows, prefix=""):
    """The label of the rows' baseline (or labels, joined), from the summary."""
    return " / ".join(sm.baseline_labels(rows, prefix)) or "baseline"


def lang_hatch(lang):
    return LANG_HATCH.get(lang, "\\\\")


def load_summary(prog, rundir):
    path = os.path.join(rundir, "summary.json")
    if not os.path.isdir(rundir):
        die(prog, "%s is not a run folder (expected results/<host>/<stamp>/)" % rundir)
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except OSError:
        die(prog, "%s is missing: run `runner/run.py --render %s` first" % (path, rundir))
    except ValueError as e:
        die(prog, "%s is not valid JSON: %s" % (path, e))
    if not isinstance(data, dict) or not isinstance(data.get("variants"), list):
        die(prog, "%s has no \"variants\" list: not a summary of this suite" % path)
    return data


def load_samples(prog, rundir):
    path = os.path.join(rundir, "samples.csv")
    try:
        with open(path, newline="", encoding="utf-8") as f:
            return list(csv.DictReader(f))
    except OSError:
        die(prog, "%s is missing: not a run folder" % path)


def pick_workload(prog, rows, workload):
    names = sorted({r["workload"] for r in rows})
    if not names:
        die(prog, "the run has no variants to draw")
    if workload is None:
        if len(names) > 1:
            die(prog, "the run has workloads %s: choose one with --workload" % ", ".join(names))
        workload = names[0]
    if workload not in names:
        die(prog, "no workload %r in this run (it has %s)" % (workload, ", ".join(names)))
    return workload, [r for r in rows if r["workload"] == workload]


def by_mode(rows):
    """[(mode, rows of that mode)] in the fixed mode order, rows in summary order."""
    order = list(MODES) + sorted({r["mode"] for r in rows} - set(MODES))
    return [(m, [r for r in rows if r["mode"] == m]) for m in order
            if any(r["mode"] == m for r in rows)]


def positions(groups, gap=1.0):
    """x positions of the bars with a gap between mode groups, and each group's span."""
    xs, spans, x = [], [], 0.0
    for _, rows in groups:
        start = x
        for _ in rows:
            xs.append(x)
            x += 1.0
        spans.append((start, x - 1.0))
        x += gap
    return xs, spans


def mode_separators(ax, spans, groups, label_y=1.0):
    """Dashed lines between mode groups and the mode's name above each group."""
    for i, ((s, e), (mode, rows)) in enumerate(zip(spans, groups)):
        ax.text((s + e) / 2.0, label_y, mode, transform=ax.get_xaxis_transform(),
                ha="center", va="bottom", fontsize=10, fontweight="bold")
        if i:
            prev_end = spans[i - 1][1]
            ax.axvline((prev_end + s) / 2.0, color="#444444", linestyle="--", linewidth=0.8)


def operations(summary, workload):
    """'N reads': what one run of the workload does N times, by the unit its catalog
    file names (recorded in run.json), 'N operations' when the run does not say."""
    w = ((summary.get("run") or {}).get("workloads") or {}).get(workload) or {}
    return "N %ss" % (w.get("unit") or "operation")


def title(summary, what, workload):
    run, host = summary.get("run", {}), summary.get("host", {})
    n = next((r["iterations"] for r in summary["variants"] if r["workload"] == workload), None)
    incomplete = " (INCOMPLETE RUN)" if run.get("complete") is False else ""
    return "%s: %s, N = %s per run, host %s%s" % (
        workload, what, "{:,}".format(n) if isinstance(n, int) else n,
        host.get("slug", "?"), incomplete)


def footnote(fig, summary, extra=""):
    run, host = summary.get("run", {}), summary.get("host", {})
    parts = []
    if host.get("cpu_model"):
        parts.append("%s, %s cores" % (host["cpu_model"], host.get("cores", "?")))
    if host.get("os"):
        parts.append(host["os"])
    if host.get("libuv"):
        parts.append("libuv %s" % host["libuv"])
    if host.get("go"):
        parts.append(host["go"].replace("go version ", ""))
    if host.get("node"):
        parts.append("node %s (libuv %s)" % (host["node"], host.get("node_libuv", "?")))
    if host.get("compiler"):
        parts.append(host["compiler"])
    line2 = "%s rounds, shuffled order (seed %s), %s warm-up; run %s" % (
        run.get("rounds", "?"), run.get("seed", "?"), run.get("warmup_rounds", "?"),
        run.get("stamp", "?"))
    text = "; ".join(parts) + "\n" + line2 + (("\n" + extra) if extra else "")
    fig.text(0.01, 0.005, text, ha="left", va="bottom", fontsize=7.5, color="#333333")


def legend_handles(rows):
    """Patches for every style and language present, for the legend."""
    from matplotlib.patches import Patch
    styles = []
    langs = []
    for r in rows:
        if style_key(r) not in styles:
            styles.append(style_key(r))
        if r["lang"] not in langs:
            langs.append(r["lang"])
    hs = [Patch(facecolor=style_color(s), edgecolor="black", label=s) for s in styles]
    hs += [Patch(facecolor="white", edgecolor="black", hatch=lang_hatch(lang),
                 label="lang: %s" % lang) for lang in langs]
    return hs


def parser(prog, doc):
    """The argument parser of a chart script: its docstring is the --help."""
    p = argparse.ArgumentParser(prog=prog, description=doc.split("\n\n")[0],
                                epilog=doc.split("\n\n", 1)[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    return p


def output_path(prog, args, default_name):
    out = args.output or os.path.join(args.rundir, "charts", default_name)
    d = os.path.dirname(os.path.abspath(out))
    if not os.path.isdir(d):
        die(prog, "output folder %s does not exist" % d)
    return out


class Chart:
    """One per-run chart: the variants of one workload that have `needs`, laid out
    in mode groups, on a figure sized to their number."""

    def __init__(self, prog, doc, argv, needs, prefix):
        p = parser(prog, doc)
        p.add_argument("rundir", help="a run folder, e.g. results/latest")
        p.add_argument("-o", "--output",
                       help="PNG to write (default: RUNDIR/charts/%s-<workload>.png)" % prefix)
        p.add_argument("--workload", help="which workload (default: the only one)")
        self.prog = prog
        self.args = p.parse_args(argv)
        self.summary = load_summary(prog, self.args.rundir)
        self.workload, rows = pick_workload(prog, self.summary["variants"], self.args.workload)
        rows = [r for r in rows if r.get(needs) is not None]
        if not rows:
            die(prog, "no variant of %s has a %s to draw" % (self.workload,
                                                            needs.replace("_", " ")), 1)
        self.output = output_path(prog, self.args, "%s-%s.png" % (prefix, self.workload))
        self.groups = by_mode(rows)
        self.rows = [r for _, g in self.groups for r in g]
        self.xs, self.spans = positions(self.groups)
        self.fig, self.ax = plt.subplots(figsize=(max(7.0, 0.55 * len(self.rows) + 3.5), 6.2))

    def finish(self, what, ylabel, note, extra_handles=()):
        """Ticks, mode separators, title, legend and footnote; writes the PNG."""
        ax = self.ax
        ax.set_xticks(self.xs)
        ax.set_xticklabels([label(r) for r in self.rows], rotation=35, ha="right", fontsize=9)
        ax.set_ylabel(ylabel)
        ax.grid(axis="y", which="both", alpha=0.3)
        ax.set_axisbelow(True)
        ax.set_xlim(self.xs[0] - 0.7, self.xs[-1] + 0.7)
        mode_separators(ax, self.spans, self.groups)
        ax.set_title(title(self.summary, what, self.workload), pad=22, fontsize=11)
        ax.legend(handles=legend_handles(self.rows) + list(extra_handles), fontsize=8,
                  loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
        self.fig.tight_layout(rect=(0, 0.08, 1, 1))
        footnote(self.fig, self.summary, note)
        self.fig.savefig(self.output, dpi=DPI)
        return 0


def label(r):
    """Tick label: the variant's label (its id without the workload) without the
    mode, which the group says: c/promise-counter@node4."""
    name, at, backend = r["label"].partition("@")
    suffix = "-" + r["mode"]
    if name.endswith(suffix):
        name = name[: -len(suffix)]
    return name + at + backend
