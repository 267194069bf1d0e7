"""scaling_n_chart.py -- time per operation, the ratio to the C baseline and peak
memory against N, log-log, one line per variant (a run of the scaling profile).

Usage: scaling_n_chart.py RUNDIR [-o OUT.png] [--workload W]

Reads RUNDIR/summary.json's "points" (runner/summary.py: split_points).  The
second panel is each variant's time over its C baseline's (the same mode and
backend, paired round by round at the same N): how far Node or Go is from C
depends on N, and there it shows.  Lower is better in every panel.
"""
import sys

from . import scaling

if __name__ == "__main__":
    sys.exit(scaling.draw("scaling_n_chart.py", __doc__, sys.argv[1:], "iterations", "N",
                          ("time", "ratio", "memory"), "scaling-n"))
