"""progress.py -- the status of a running measurement on stderr.

On a terminal, one live line rewritten in place before every program run:
`[27/297 0:18 eta 3:07] round 1/10 readfile/c/stackless-parallel@node4 | last
c/await-parallel@node4 128.4 ms, median 127.9 ms (3)` -- runs done of the total,
time so far, the time left at the pace so far, the variant starting, and the
last variant's sample with that variant's running median over its valid runs.
The line is cut to the terminal's width so that it never wraps (a wrapped line
cannot be rewritten).  Otherwise (a log, CI) one plain line per call, and the
caller calls only at the start of a round.
"""
import os
import sys
import time

from ..core import fmt
from ..core import stats


def clock(seconds):
    s = int(seconds)
    return "%d:%02d" % (s // 60, s % 60)


class Progress:
    """Counts done runs out of total, estimates the time left from the pace so
    far, and keeps each variant's valid times for its running median."""

    def __init__(self, total, stream=None, tty=None, width=None):
        self.total = total
        self.done = 0
        self.start = time.monotonic()
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.width = 0
        self.columns = width
        self.times = {}
        self.last = None

    def record(self, label, elapsed_ns, status="ok", keep=True):
        """One finished run of the variant labelled label: its time when valid,
        kept for the running median unless keep is false (a warm-up)."""
        self.done += 1
        if status == "ok" and elapsed_ns is not None and not keep:
            self.last = "last %s %s (warm-up)" % (label, fmt.ms(elapsed_ns / 1e6))
        elif status == "ok" and elapsed_ns is not None:
            ms = elapsed_ns / 1e6
            seen = self.times.setdefault(label, [])
            seen.append(ms)
            self.last = "last %s %s, median %s (%d)" % (label, fmt.ms(ms),
                                                        fmt.ms(stats.median(seen)), len(seen))
        else:
            self.last = "last %s %s" % (label, status)

    def line(self, text):
        elapsed = time.monotonic() - self.start
        eta = ""
        if self.done:
            eta = " eta %s" % clock(elapsed / self.done * (self.total - self.done))
        line = "[%d/%d %s%s] %s" % (self.done, self.total, clock(elapsed), eta, text)
        if self.tty and self.last:
            line += " | " + self.last
        return line

    def show(self, text):
        line = self.line(text)
        if self.tty:
            line = line[:max(20, self.terminal_columns() - 1)]
            pad = max(0, self.width - len(line))
            self.stream.write("\r" + line + " " * pad)
            self.width = len(line)
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def terminal_columns(self):
        """The width to cut the live line to: the one given, $COLUMNS, the
        terminal's own, or 100 when the terminal does not say (0)."""
        if self.columns:
            return self.columns
        try:
            return int(os.environ["COLUMNS"])
        except (KeyError, ValueError):
            pass
        try:
            return os.get_terminal_size(self.stream.fileno()).columns or 100
        except (OSError, ValueError, AttributeError):
            return 100

    def note(self, text):
        """A line that stays (a failed run): above the live line on a terminal."""
        if self.tty and self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.width = 0
        self.stream.write(text + "\n")
        self.stream.flush()

    def end(self):
        if self.tty and self.width:
            self.stream.write("\n")
            self.stream.flush()
            self.width = 0
