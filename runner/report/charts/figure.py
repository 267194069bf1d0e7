"""figure.py -- what a chart of runner/report/charts/ leaves beside its picture and
how the rendered figure is checked: the sidecar JSON of what it plotted, and
check_figure (no two texts overlap, none leaves the figure, the smallest text
stays legible at GitHub's width).  layout.py draws; this checks and saves.
"""
import json
import os

from .style import DPI, FONT_PT, GITHUB_PX


def write_sidecar(png, data):
    """PNG's sidecar: the same path with .json, what the chart plotted."""
    path = os.path.splitext(png)[0] + ".json"
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1, sort_keys=True, allow_nan=False, default=str)
        f.write("\n")
    os.replace(tmp, path)


def _drawn_texts(fig, renderer):
    """Every Text of fig that is drawn: visible, not empty, and for tick labels
    only the ticks inside the axis' view."""
    from matplotlib.text import Text
    tick_labels = set()
    drawn_ticks = set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                tick_labels.update((id(tick.label1), id(tick.label2)))
            try:
                shown = axis._update_ticks()
            except AttributeError:      # a matplotlib without it: every tick counts
                shown = axis.get_major_ticks() + axis.get_minor_ticks()
            for tick in shown:
                for t in (tick.label1, tick.label2):
                    if t.get_visible():
                        drawn_ticks.add(id(t))
    out = []
    for t in fig.findobj(Text):
        if not t.get_visible() or not t.get_text().strip():
            continue
        if id(t) in tick_labels and id(t) not in drawn_ticks:
            continue
        out.append(t)
    return out


def save_drawn(fig, path):
    """Writes the PNG of fig as its canvas last drew it (check_figure has, at
    the figure's DPI): what savefig writes, without drawing the figure again."""
    from matplotlib import image
    image.imsave(path, fig.canvas.buffer_rgba(), format="png", origin="upper", dpi=fig.dpi)


def check_figure(fig):
    """What the rendered figure shows of its texts: pairs whose boxes overlap,
    texts that leave the figure, its size and its smallest text at GitHub's
    width.  Draws the figure first."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    texts = _drawn_texts(fig, renderer)
    boxes = [(t, t.get_window_extent(renderer)) for t in texts]
    fb = fig.bbox
    overlaps, outside = [], []
    for i, (a, ba) in enumerate(boxes):
        if ba.x0 < fb.x0 - 0.5 or ba.y0 < fb.y0 - 0.5 or ba.x1 > fb.x1 + 0.5 \
                or ba.y1 > fb.y1 + 0.5:
            outside.append(a.get_text())
        for b, bb in boxes[i + 1:]:
            # Boxes that only touch (within half a pixel) do not overlap.
            if min(ba.x1, bb.x1) - max(ba.x0, bb.x0) > 0.5 and \
                    min(ba.y1, bb.y1) - max(ba.y0, bb.y0) > 0.5:
                overlaps.append([a.get_text(), b.get_text()])
    width_px, height_px = fig.bbox.width, fig.bbox.height
    smallest = min([t.get_fontsize() for t in texts] or [FONT_PT])
    return {"width_px": int(width_px), "height_px": int(height_px),    # as Agg sizes the PNG
            "texts": len(texts), "overlaps": overlaps, "outside": outside,
            "smallest_pt": smallest,
            "smallest_pt_at_github": round(smallest * DPI / 96.0 * min(1.0, GITHUB_PX / width_px),
                                           2)}
