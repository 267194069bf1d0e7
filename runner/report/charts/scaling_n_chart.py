"""scaling_n_chart.py -- time per operation, the ratio to the C baseline and peak
memory against N, log-log, one line per variant (a run of the scaling profile).

Usage: python3 -m runner.report.charts.scaling_n_chart RUNDIR [-o OUT.png] [--workload W]

Reads RUNDIR/summary.json's "points" (runner/analysis/summary.py: split_points).  The
second panel is each variant's time over its C baseline's (the same mode and
backend, paired round by round at the same N): how far Node or Go is from C
depends on N, and there it shows.  Lower is better in every panel.
"""
import sys

from . import rundata
from . import scaling

PROG = "scaling_n_chart.py"


def draw(data, workload=None, out=None):
    """The chart of workload (the run's only one when None) into out (None:
    RUNDIR/charts/scaling-n-<workload>.png); ChartError when it cannot be drawn."""
    return scaling.chart(PROG, "scaling-n", data, workload, out, "iterations", "N",
                         ("time", "ratio", "memory"))


def main(argv):
    return rundata.cli(PROG, __doc__, "scaling-n", argv, draw)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
