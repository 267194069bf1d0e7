"""headline_chart.py -- does the style cost anything?  Each style's time relative
to callbacks of the same language and mode (C vs C, Node vs Node, Go vs Go),
one panel per mode and method.

Usage: headline_chart.py RUNDIR [-o OUT.png] [--workload W]

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


def main(argv):
    return st.ratio_chart(
        "headline_chart.py", __doc__, "headline", argv, st.same_language,
        lambda labels: "Does the style cost anything? Each style against %s of the same "
        "language and mode (ratio of times, 95%% CI)" % " / ".join(labels))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
