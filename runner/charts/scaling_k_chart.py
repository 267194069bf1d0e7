"""scaling_k_chart.py -- time per operation and peak memory against K (operations
in flight, bounded mode), log-log, one line per variant (a run of the scaling
profile).

Usage: scaling_k_chart.py RUNDIR [-o OUT.png] [--workload W]

Reads RUNDIR/summary.json's "points" (runner/summary.py: split_points).  Lower
is better.
"""
import sys

from . import scaling

if __name__ == "__main__":
    sys.exit(scaling.draw("scaling_k_chart.py", __doc__, sys.argv[1:], "concurrency", "K",
                          ("time", "memory"), "scaling-k"))
