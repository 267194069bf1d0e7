"""scaling_env_chart.py -- time per operation and peak memory against the value of
the environment variable a sweep varies (UV_THREADPOOL_SIZE: libuv's threadpool
size), log-log, one line per variant (a run of the scaling profile).

Usage: scaling_env_chart.py RUNDIR [-o OUT.png] [--workload W]

Reads RUNDIR/summary.json's "points" (runner/summary.py: split_points); the
base point (the variable unset) stands at the sweep's default (libuv's 4).
Only the variants the catalog marks as threadpool-backed are swept.  Lower is
better.
"""
import sys

from . import scaling

if __name__ == "__main__":
    sys.exit(scaling.draw("scaling_env_chart.py", __doc__, sys.argv[1:], "env",
                          "UV_THREADPOOL_SIZE", ("time", "memory"), "scaling-env"))
