"""style.py -- the look every chart of runner/report/charts/ shares: one colour per style
and one marker and hatch per language across all charts, the fonts and sizes,
the suite's order of styles, modes and methods (variant_order, panels: one
panel per mode and method), the units and the text of a figure (time_unit,
ratio_text, emphasis) and the legend's entries.  Not a chart itself; the run a
chart reads is rundata.py's, the panels it draws and the check of the figure
layout.py's.

Sizes: a chart is WIDTH_IN x DPI = 1000 px wide with no text under FONT_PT
(13 pt); shown 880 px wide (GitHub's column) its smallest text is still
11.9 pt (FONT_PT x DPI / 96 x 880 / 1000).  Panels stack downwards, so a
chart grows in height, never in width, with its number of variants.
"""
import json
import os

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402,F401  (re-exported to the charts)

from ...core import fmt  # noqa: E402
from ...analysis import summary as sm  # noqa: E402  (what a summary row holds)
from ...core.ratios import lang_of, same_language  # noqa: E402,F401  (re-exported to the charts)
from ...core import paths

# One colour per style, the same in every chart (colour-blind safe Okabe-Ito first).
STYLE_COLORS = {
    "sync": "#7f7f7f",
    "callback": "#0072B2",
    "promise": "#E69F00",
    "promise-counter": "#F0C050",
    "await": "#009E73",
    "stackless": "#CC79A7",
    "goroutine": "#56B4E9",
    "fiber": "#882255",
    "nexttick": "#D55E00",
    "trampoline": "#8C564B",
}
EXTRA_COLORS = ["#332288", "#117733", "#999933", "#882255", "#44AA99", "#AA4499"]
# Languages are told apart by hatching and by the tick label.
LANG_HATCH = {"c": "", "go": "//", "node": "..", "rust": "--", "fake": "xx"}
# Languages are also told apart by the marker of a dot.
LANG_MARKER = {"c": "o", "go": "s", "node": "D", "rust": "P"}
LANG_NAMES = {"c": "C", "go": "Go", "node": "Node", "rust": "Rust"}
MODES = ("sequential", "parallel", "bounded")
DPI = 100
WIDTH_IN = 10.0
FONT_PT = 13
GITHUB_PX = 880          # the width GitHub shows an image at in a README or an issue
MIN_PT_AT_GITHUB = 11.5  # the smallest text there, in points of a 96 dpi screen
# runner/, whose catalog/suite.json names the styles, modes and methods.

plt.rcParams.update({"font.size": FONT_PT, "axes.titlesize": FONT_PT,
                     "axes.labelsize": FONT_PT, "xtick.labelsize": FONT_PT,
                     "ytick.labelsize": FONT_PT, "legend.fontsize": FONT_PT,
                     "figure.titlesize": FONT_PT})


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


# -- order and grouping ------------------------------------------------------

def suite_vocabulary():
    """suite.json's styles, modes, methods and method titles (catalog/suite.json is their
    one source); the built-in lists when it cannot be read."""
    try:
        with open(os.path.join(paths.CATALOG, "suite.json"), encoding="utf-8") as f:
            suite = json.load(f)
    except (OSError, ValueError):
        suite = {}
    return {"styles": suite.get("styles") or list(STYLE_COLORS),
            "modes": suite.get("modes") or list(MODES),
            "methods": suite.get("methods") or ["inprocess"],
            # How a panel of another method's timings is titled; a method
            # without one gets its name.
            "method_titles": suite.get("method_titles") or {}}


VOCAB = suite_vocabulary()


def _index(seq, x):
    return seq.index(x) if x in seq else len(seq)


def variant_order(r):
    """Rows sort by language (c, go, node, then others), then by the suite's style
    order, the same in every language, then shape, backend and id."""
    return (_index(list(sm.LANGS), r["lang"]), r["lang"], _index(VOCAB["styles"], r["style"]),
            r["style"], r.get("shape") or "", r.get("backend") or "", r["variant"])


def panel_key(r):
    mode, method = r["mode"], r.get("method") or "inprocess"
    return (_index(VOCAB["modes"], mode), mode, _index(VOCAB["methods"], method), method)


def panel_title(mode, method):
    if method in ("", "inprocess", None):
        return mode
    return "%s: %s" % (mode, VOCAB["method_titles"].get(method, "method %s" % method))


def panels(rows):
    """[(panel title, rows)]: one panel per mode and method (whole-process timings
    apart from in-process ones), modes in the suite's order, rows in
    variant_order."""
    keys = sorted({panel_key(r) for r in rows})
    return [(panel_title(k[1], k[3]), sorted([r for r in rows if panel_key(r) == k],
                                              key=variant_order)) for k in keys]


def short_label(r):
    """A variant's label inside its panel: without the mode and the method (the
    panel's title says them): node/await@fs.promises."""
    name, at, backend = r["label"].partition("@")
    for suffix in ("-" + r["mode"], "-" + (r.get("method") or "inprocess")):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return name + at + backend


# -- units ---------------------------------------------------------------------

def unit_noun(summary, workload):
    """What one operation of the workload is ('read'), from the catalog's unit as
    run.json recorded it; 'operation' when the run does not say."""
    w = ((summary.get("run") or {}).get("workloads") or {}).get(workload) or {}
    return w.get("unit") or "operation"


def per_op_ns(r, ms):
    """A time of one run of r (ms) per operation, in ns: elapsed / iterations."""
    if ms is None or not r.get("iterations"):
        return None
    return ms * 1e6 / r["iterations"]


def time_unit(values_ns):
    """(name, ns per unit) that suits the values: their median below 1000 units."""
    vals = sorted(v for v in values_ns if v)
    if not vals:
        return fmt.TIME_UNITS[0]
    mid = vals[len(vals) // 2]
    for name, scale in fmt.TIME_UNITS:
        if mid < 1000 * scale:
            return name, scale
    return fmt.TIME_UNITS[-1]


def num(v):
    """fmt.num as a chart shows a figure: thousands grouped (1,234)."""
    return fmt.num(v, grouping=True)


def ratio_text(value, low, high, significant=None, tested=False):
    """fmt.ratio as a chart shows it: '~ 1.01x [0.97, 1.05]', ~ when the
    difference is not significant, ? when tested is True but there was no test
    (too few paired rounds); '-' without a ratio."""
    if value is None:
        return "-"
    mark = "~" if significant is False else ("?" if significant is None and tested else "")
    return fmt.ratio(value, low, high, mark, no_ci="[no CI]")


def emphasis(significant):
    """Drawing and text properties: solid and bold for a significant difference,
    faded for one that is not (~), plain when there was no test."""
    if significant is True:
        return {"alpha": 1.0, "weight": "bold"}
    if significant is False:
        return {"alpha": 0.35, "weight": "normal"}
    return {"alpha": 0.8, "weight": "normal"}


# -- the legend --------------------------------------------------------------

def style_handles(rows, kind="patch", langs=True):
    """Legend entries: one per style present (in the suite's order), then one per
    language (hatch for bars, marker for dots) unless langs is False."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    styles, present = [], []
    for r in sorted(rows, key=lambda r: (_index(VOCAB["styles"], r["style"]), style_key(r))):
        if style_key(r) not in styles:
            styles.append(style_key(r))
    for r in sorted(rows, key=variant_order):
        if langs and r["lang"] not in present:
            present.append(r["lang"])
    if kind == "patch":
        hs = [Patch(facecolor=style_color(s), edgecolor="black", label=s) for s in styles]
        hs += [None] if present else []
        hs += [Patch(facecolor="white", edgecolor="black", hatch=lang_hatch(lang),
                     label=LANG_NAMES.get(lang, lang)) for lang in present]
    else:
        hs = [Line2D([], [], marker="o", linestyle="none", color=style_color(s), label=s,
                     markersize=9) for s in styles]
        hs += [None] if present else []
        hs += [Line2D([], [], marker=LANG_MARKER.get(lang, "v"), linestyle="none",
                      color="white", markeredgecolor="black", label=LANG_NAMES.get(lang, lang),
                      markersize=9) for lang in present]
    return hs
