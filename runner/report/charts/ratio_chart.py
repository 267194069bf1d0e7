"""ratio_chart.py -- each variant's time relative to the cross-language baseline
of its mode (the C callback variant for readfile; the label comes from
summary.json), one panel per mode and method.

Usage: python3 -m runner.report.charts.ratio_chart RUNDIR [-o OUT.png] [--workload W]

Reads RUNDIR/summary.json.  The ratio is the median of per-round ratios (runs
paired within a round), drawn as a dot with its 95% CI on a log axis, so that
2x slower and 2x faster are the same distance from the line at 1.0.  Solid
and bold: the difference is significant; faded with `~`: it is not named (its
CI includes 1, or its test did not survive the false discovery rate control;
never read as a speed-up or slow-down).  For each style
against callbacks of its own language, see headline_chart.py.
"""
import sys

from . import layout
from . import rundata
from ...core.ratios import against_baseline


PROG = "ratio_chart.py"


def draw(data, workload=None, out=None):
    """The chart of workload (the run's only one when None) into out (None:
    RUNDIR/charts/ratio-<workload>.png); ChartError when it cannot be drawn."""
    return layout.ratio_chart(
        PROG, "ratio", data, workload, out, against_baseline,
        lambda labels: "Every variant against the %s of the same mode (ratio of times, 95%% CI)"
        % " / ".join(labels))


def main(argv):
    return rundata.cli(PROG, __doc__, "ratio", argv, draw)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
