"""scaling_env_chart.py -- time per operation and peak memory against the value of
the environment variable a sweep varies (UV_THREADPOOL_SIZE: libuv's threadpool
size), log-log, one line per variant (a run of the scaling profile).

Usage: python3 -m runner.report.charts.scaling_env_chart RUNDIR [-o OUT.png] [--workload W]

Reads RUNDIR/summary.json's "points" (runner/analysis/summary.py: split_points); the
base point (the variable unset) stands at the sweep's default (libuv's 4).
Only the variants the catalog marks as threadpool-backed are swept.  Lower is
better.
"""
import sys

from . import rundata
from . import scaling

PROG = "scaling_env_chart.py"


def draw(data, workload=None, out=None):
    """The chart of workload (the run's only one when None) into out (None:
    RUNDIR/charts/scaling-env-<workload>.png); ChartError when it cannot be drawn."""
    return scaling.chart(PROG, "scaling-env", data, workload, out, "env",
                         "UV_THREADPOOL_SIZE", ("time", "memory"))


def main(argv):
    return rundata.cli(PROG, __doc__, "scaling-env", argv, draw)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
