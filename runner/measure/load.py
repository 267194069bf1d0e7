"""load.py -- noise a user can repeat: a load on the measured CPU, switched on
and off at random (DESIGN section 6, --noise).

An ordinary host's CPU changes speed within a fraction of a second (a
neighbour on the same core, turbo, thermal limits).  To check that the suite
decides on such a host, `Load` makes one: a process pinned to the CPU the
programs run on that spins for a random 50 to 500 ms, then sleeps for a random
50 to 500 ms, and so on until stopped.  While it spins, a measured program on
that CPU gets about half of it, so its pass times jump between two levels as
often as the load switches.  The intervals come from random.Random(seed), so a
run with the same seed switches alike.

    with load.Load(cpu, seed):
        ...   # measure

The process is a child of the runner in its own process group, and ends when
the runner does (it watches its parent); stop() ends it at once.
"""
import os
import signal
import subprocess
import sys

SWITCH_MS = (50, 500)

# The child: pins itself, then alternates spinning and sleeping, each for a
# random time from SWITCH_MS, until its parent is gone.
_CHILD = r"""
import os, random, sys, time
cpu, seed, lo, hi, parent = (int(a) for a in sys.argv[1:6])
if cpu >= 0 and hasattr(os, "sched_setaffinity"):
    os.sched_setaffinity(0, {cpu})
rng = random.Random(seed)
on = True
while os.getppid() == parent:
    end = time.monotonic() + rng.uniform(lo, hi) / 1000.0
    if on:
        while time.monotonic() < end:
            pass
    else:
        time.sleep(max(0.0, end - time.monotonic()))
    on = not on
"""


class Load:
    """The on-and-off load on cpu (None: not pinned) from seed."""

    def __init__(self, cpu, seed=0, switch_ms=SWITCH_MS):
        self.cpu, self.seed, self.switch_ms = cpu, seed, switch_ms
        self.p = None

    def start(self):
        self.p = subprocess.Popen(
            [sys.executable, "-c", _CHILD, str(-1 if self.cpu is None else self.cpu),
             str(self.seed), str(self.switch_ms[0]), str(self.switch_ms[1]), str(os.getpid())],
            stdin=subprocess.DEVNULL, start_new_session=True)
        return self

    def running(self):
        return self.p is not None and self.p.poll() is None

    def stop(self):
        if self.p is None:
            return
        try:
            os.killpg(self.p.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.p.wait()
        self.p = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        return False


def describe(cpu):
    """What --noise did, in one line for run.json and the Method."""
    return ("a load process on CPU %s spinning and sleeping for random %d to %d ms each, "
            "switched on and off throughout the measured rounds"
            % ("(unpinned)" if cpu is None else cpu, SWITCH_MS[0], SWITCH_MS[1]))
