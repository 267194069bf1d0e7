"""scaling_k_chart.py -- time per operation and peak memory against K (operations
in flight, bounded mode), log-log, one line per variant (a run of the scaling
profile).

Usage: python3 -m runner.report.charts.scaling_k_chart RUNDIR [-o OUT.png] [--workload W]

Reads RUNDIR/summary.json's "points" (runner/analysis/summary.py: split_points).  Lower
is better.
"""
import sys

from . import rundata
from . import scaling

PROG = "scaling_k_chart.py"


def draw(data, workload=None, out=None):
    """The chart of workload (the run's only one when None) into out (None:
    RUNDIR/charts/scaling-k-<workload>.png); ChartError when it cannot be drawn."""
    return scaling.chart(PROG, "scaling-k", data, workload, out, "concurrency", "K",
                         ("time", "memory"))


def main(argv):
    return rundata.cli(PROG, __doc__, "scaling-k", argv, draw)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
