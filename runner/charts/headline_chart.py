"""headline_chart.py -- does the style cost anything?  Each style's time relative
to callbacks of the same language and mode (C vs C, Node vs Node, Go vs Go),
one panel per mode and method.

Usage: python3 -m runner.charts.headline_chart RUNDIR [-o OUT.png] [--workload W]

Reads RUNDIR/summary.json: for each variant, its round-paired ratio to the
baseline of its own language (the summary's same-language ratio, or its
ratio to the C baseline for a C variant), as a dot with its 95% CI on a log
axis around the line at 1.0.  A dot on the line: the style costs nothing
measurable; right of it: the style is slower than callbacks by that factor.
Solid and bold: significant; faded with `~`: not.  The baseline itself is the
hollow marker on the line.  A variant with no baseline of its own language in
its mode is left out, and the chart's note names it.
"""
import sys

from . import style as st


PROG = "headline_chart.py"


def draw(data, workload=None, out=None):
    """The chart of workload (the run's only one when None) into out (None:
    RUNDIR/charts/headline-<workload>.png); ChartError when it cannot be drawn."""
    return st.ratio_chart(
        PROG, "headline", data, workload, out, st.same_language,
        lambda labels: "Does the style cost anything? Each style against %s of the same "
        "language and mode (ratio of times, 95%% CI)" % " / ".join(labels))


def main(argv):
    return st.cli(PROG, __doc__, "headline", argv, draw)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
