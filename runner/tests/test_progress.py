"""Unit tests of runner/measure/progress.py: the live line on a terminal (a pty) and the
plain lines elsewhere, and the runner's progress through a pty end to end."""
import os
import pty
import select
import subprocess
import sys
import tempfile
import unittest

from ..measure import progress
from ..core import paths

ROOT = paths.ROOT


def read_all(fd):
    """Everything written to the pty's master side until the writer closes it."""
    out = b""
    while True:
        r, _, _ = select.select([fd], [], [], 30)
        if not r:
            break
        try:
            chunk = os.read(fd, 65536)
        except OSError:          # EIO: the other side is closed
            break
        if not chunk:
            break
        out += chunk
    return out.decode("utf-8", "replace")


class ProgressTest(unittest.TestCase):
    def test_on_a_terminal_one_line_is_rewritten_with_the_last_sample_and_its_median(self):
        master, slave = pty.openpty()
        with os.fdopen(slave, "w", encoding="utf-8") as stream:
            p = progress.Progress(4, stream, width=200)
            self.assertTrue(p.tty)
            p.show("round 1/2  w/c/a-sequential@x")
            p.record("c/a-sequential@x", 12_000_000)
            p.show("round 1/2  w/c/b-sequential@x")
            p.record("c/b-sequential@x", None, "failed")
            p.show("round 2/2  w/c/a-sequential@x")
            p.record("c/a-sequential@x", 14_000_000)
            p.show("round 2/2  w/c/b-sequential@x")
            p.end()
        text = read_all(master)
        os.close(master)
        # One line: every update starts with a carriage return, one newline at the end.
        self.assertEqual(text.count("\r") - text.count("\r\n"), 4)
        self.assertTrue(text.endswith("\n"))
        frames = [f for f in text.replace("\r\n", "\n").split("\r") if f]
        self.assertRegex(frames[0], r"^\[0/4 0:00\] round 1/2  w/c/a-sequential@x *$")
        self.assertRegex(frames[1], r"^\[1/4 0:00 eta 0:00\] round 1/2  w/c/b-sequential@x \| "
                                    r"last c/a-sequential@x 12\.0 ms, median 12\.0 ms \(1\)")
        self.assertIn("| last c/b-sequential@x failed", frames[2])
        # The running median of a's two runs: (12 + 14) / 2.
        self.assertIn("[3/4 ", frames[3])
        self.assertIn("last c/a-sequential@x 14.0 ms, median 13.0 ms (2)", frames[3])

    def test_elsewhere_plain_lines_without_carriage_returns(self):
        with tempfile.TemporaryFile("w+", encoding="utf-8") as f:
            p = progress.Progress(2, f)
            self.assertFalse(p.tty)
            p.show("round 1/1  w/c/a-sequential@x")
            p.record("c/a-sequential@x", 5_000_000)
            p.note("run.py: w/c/b-sequential@x failed: exit 1")
            p.end()
            f.seek(0)
            lines = f.read().split("\n")
        self.assertEqual(lines, ["[0/2 0:00] round 1/1  w/c/a-sequential@x",
                                 "run.py: w/c/b-sequential@x failed: exit 1", ""])

    def test_the_live_line_never_wraps(self):
        master, slave = pty.openpty()
        with os.fdopen(slave, "w", encoding="utf-8") as stream:
            p = progress.Progress(1, stream, width=40)
            p.show("round 1/1  " + "x" * 100)
        text = read_all(master)
        os.close(master)
        self.assertEqual(text, "\r" + ("[0/1 0:00] round 1/1  " + "x" * 100)[:39])

    def test_a_warm_up_sample_is_shown_but_not_in_the_median(self):
        p = progress.Progress(3, stream=open(os.devnull, "w"), tty=True)
        p.record("c/a@x", 1_000_000, keep=False)
        self.assertEqual(p.last, "last c/a@x 1.00 ms (warm-up)")
        p.record("c/a@x", 3_000_000)
        self.assertEqual(p.last, "last c/a@x 3.00 ms, median 3.00 ms (1)")
        p.stream.close()

    def test_the_runner_shows_the_live_line_on_a_terminal(self):
        # The fake catalog's quick profile, stderr on a pty, stdout to a pipe.
        master, slave = pty.openpty()
        with tempfile.TemporaryDirectory() as out:
            proc = subprocess.Popen(
                [sys.executable, "-m", "runner", "--catalog",
                 os.path.join(ROOT, "tests", "fixtures-bin", "catalog"), "--profile", "quick",
                 "--rounds", "2", "--warmup-rounds", "0", "--iterations", "5", "--seed", "1",
                 "--out", out], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=slave,
                env=dict(os.environ, COLUMNS="300"), cwd=ROOT)
            os.close(slave)
            err = read_all(master)
            stdout, _ = proc.communicate(timeout=120)
            os.close(master)
        self.assertIn("\r[", err)
        self.assertRegex(err, r"\[\d+/\d+ \d+:\d\d eta \d+:\d\d\] round 2/2 .* \| last "
                              r"\S+ \d+\.\d+ ms, median \d+\.\d+ ms \(\d\)")
        self.assertIn(b"== readfile (N = 5) ==", stdout)


if __name__ == "__main__":
    unittest.main()
