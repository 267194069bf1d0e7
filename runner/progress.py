"""progress.py -- the one status line of a running measurement on stderr:
`[27/297 0:18 eta 3:07] round 1/10  readfile/c/stackless-parallel@node4`, rewritten
in place on a terminal, one plain line per call otherwise (logs, CI).
"""
import sys
import time


def clock(seconds):
    s = int(seconds)
    return "%d:%02d" % (s // 60, s % 60)


class Progress:
    """Counts done runs out of total and estimates the time left from the pace so far."""

    def __init__(self, total, stream=None):
        self.total = total
        self.done = 0
        self.start = time.monotonic()
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.width = 0

    def show(self, text):
        elapsed = time.monotonic() - self.start
        eta = ""
        if self.done:
            eta = " eta %s" % clock(elapsed / self.done * (self.total - self.done))
        line = "[%d/%d %s%s] %s" % (self.done, self.total, clock(elapsed), eta, text)
        if self.tty:
            pad = max(0, self.width - len(line))
            self.stream.write("\r" + line + " " * pad)
            self.width = len(line)
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def end(self):
        if self.tty and self.width:
            self.stream.write("\n")
            self.stream.flush()
