"""Tests of runner/report/render.py, runner/report/charting.py and run.py --render against
interruptions: Ctrl-C while the charts are drawn still writes REPORT.md
(without the missing charts, saying so) and exits 130 with one line; a chart
that cannot be drawn is one line and exit 1, the others drawn."""
import contextlib
import csv
import io
import os
import signal
import sys
import tempfile
import unittest
from unittest import mock


from ..report import charting
from ..report import render
from .. import run
from ..analysis import runfolder
from ..analysis import summary as sm
from ..core.errors import ChartError

IDS = ["readfile/c/callback-sequential@node4", "readfile/c/await-sequential@node4"]


def write_run(folder):
    with open(os.path.join(folder, "samples.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=sm.SAMPLE_COLUMNS, lineterminator="\n")
        w.writeheader()
        for rnd in (1, 2, 3):
            for order, vid in enumerate(IDS, start=1):
                w.writerow({"round": rnd, "order": order, "variant": vid, "workload": "readfile",
                            "lang": "c", "style": vid.split("/")[2].split("-")[0],
                            "mode": "sequential", "backend": "node4", "iterations": 100,
                            "concurrency": 1, "status": "ok", "exit_code": 0,
                            "elapsed_ns": 1000000 * (order + rnd), "wall_ns": 9000000,
                            "proc_user_us": 1, "proc_sys_us": 1, "proc_peak_rss_kb": 1, "ok": 100, "bytes": 1200,
                            "shape": "", "method": "inprocess", "label": vid.split("/", 1)[1]})


class InterruptedRenderTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = os.path.join(self.tmp.name, "h", "20260101T000000Z")
        os.makedirs(self.dir)
        write_run(self.dir)

    def tearDown(self):
        self.tmp.cleanup()

    def main(self, *argv):
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = run.main(list(argv))
        return code, err.getvalue().splitlines()

    def test_ctrl_c_while_charts_are_drawn_writes_the_report_and_says_so(self):
        drawn = []

        def draw(path, call):
            if drawn:
                raise KeyboardInterrupt
            drawn.append(path)
            return True
        with mock.patch.object(charting, "draw", draw):
            code, lines = self.main("--render", self.dir)
        self.assertEqual(code, 130)
        self.assertEqual(len(lines), 1, lines)
        self.assertRegex(lines[0], r"^run\.py: interrupted while drawing the charts: REPORT\.md "
                                   r"written with 1 of them \(redraw with: make plots RUN=")
        with open(os.path.join(self.dir, "REPORT.md")) as f:
            text = f.read()
        self.assertIn("**Charts missing**", text)
        self.assertIn("## Results", text)
        self.assertTrue(os.path.exists(os.path.join(self.dir, "summary.json")))

    def chart(self, signals=0, fail=None):
        """A chart module whose draw() gets `signals` SIGINTs (Ctrl-C) while it
        draws, or raises fail; the PNG paths it was asked for go to self.calls."""
        test = self

        class Chart:
            @staticmethod
            def draw(data, workload, out):
                test.calls.append(out)
                print("a warning of the chart's", file=sys.stderr)
                if fail is not None:
                    raise fail
                for _ in range(signals):
                    os.kill(os.getpid(), signal.SIGINT)
                with open(out, "wb") as f:
                    f.write(b"\x89PNG")
        self.calls = []
        return mock.patch.object(charting, "chart_module", lambda name: Chart)

    def test_a_signal_while_a_chart_is_drawn_waits_for_it_and_counts_it_drawn(self):
        with self.chart(signals=1):
            code, lines = self.main("--render", self.dir)
        self.assertEqual(code, 130)
        self.assertEqual(len(self.calls), 1)
        self.assertEqual(len(lines), 1, lines)
        self.assertRegex(lines[0], r"REPORT\.md written with 1 of them")
        with open(os.path.join(self.dir, "REPORT.md")) as f:
            text = f.read()
        self.assertIn("(1 drawn)", text)
        self.assertIn(os.path.basename(self.calls[0]), text)

    def test_a_second_signal_does_not_wait_for_the_chart(self):
        with self.chart(signals=2):
            code, lines = self.main("--render", self.dir)
        self.assertEqual(code, 130)
        self.assertEqual(len(self.calls), 1)
        self.assertRegex(lines[0], r"REPORT\.md written with 0 of them")

    def test_a_chart_that_cannot_be_drawn_is_one_line_and_exit_1(self):
        with self.chart(fail=ChartError("time_chart.py", "no variant to draw", 1)):
            code, lines = self.main("--render", self.dir)
        self.assertEqual(code, 1)
        self.assertGreater(len(self.calls), 1)      # the others were drawn
        failed = [line for line in lines if "failed" in line]
        self.assertEqual(len(failed), len(self.calls), lines)
        self.assertRegex(failed[0], r"^run\.py: .*charts/headline-readfile\.png failed: "
                                    r"time_chart\.py: no variant to draw$")
        self.assertNotIn("a warning of the chart's", "\n".join(lines))

    def test_a_charts_bug_is_its_failure_not_the_runs(self):
        with self.chart(fail=ZeroDivisionError("float division by zero")):
            code, lines = self.main("--render", self.dir)
        self.assertEqual(code, 1)
        self.assertIn("failed: ZeroDivisionError: float division by zero", lines[0])

    def test_ctrl_c_before_the_summaries_names_what_is_missing(self):
        def boom(*a, **k):
            raise KeyboardInterrupt
        with mock.patch.object(render.sm, "summarize", boom):
            code, lines = self.main("--render", self.dir)
        self.assertEqual(code, 130)
        self.assertEqual(len(lines), 1, lines)
        self.assertIn("interrupted before the summaries and REPORT.md were written", lines[0])
        self.assertFalse(os.path.exists(os.path.join(self.dir, "REPORT.md")))


class ChartHintTest(unittest.TestCase):
    def test_a_chart_with_a_catalog_hint_is_drawn_only_for_workloads_that_give_it(self):
        rows = [{"workload": w, "proc_peak_rss_kb": 10, "median_ms": 1.0, "ratio": 1.0,
                 "baseline_label": None} for w in ("tasks", "readfile")]
        drawn = []

        def fake_draw(path, call):
            drawn.append(os.path.basename(path))
            return True
        with mock.patch.object(charting, "draw", fake_draw), \
                contextlib.redirect_stderr(io.StringIO()):
            charting.draw_charts(runfolder.RunFolder("/nowhere"), rows, ["tasks", "readfile"], [])
        hinted = [p for p in drawn if p.startswith("unit-memory-")]
        self.assertEqual(hinted, ["unit-memory-tasks.png"])
        self.assertIn("memory-readfile.png", drawn)
        self.assertTrue(charting.chart_hint("tasks", "per_unit_memory"))
        self.assertIsNone(charting.chart_hint("readfile", "per_unit_memory"))
        where = [p for p in drawn if p.startswith("where-")]
        self.assertEqual(where, ["where-readfile.png"])


class ReproduceCommandTest(unittest.TestCase):
    """The Reproduce line repeats the run's settings, not what a budget decided."""

    def command(self, **run):
        from ..report import rerun
        return "\n".join(rerun.reproduce_command(dict(
            {"seed": 7, "warmup_rounds": 1, "profile": "default"}, **run), {"git_commit": "abc"}))

    def test_a_budgeted_run_is_not_repeated_with_every_workload_at_its_largest_count(self):
        got = self.command(rounds=40, rounds_override=None, budget={"readfile": {}})
        self.assertNotIn("--rounds", got)
        self.assertIn("--seed 7", got)
        self.assertIn("--warmup-rounds 1", got)

    def test_rounds_given_on_the_command_line_are_given_again(self):
        self.assertIn("--rounds 3", self.command(rounds=3, rounds_override=3))

    def test_an_older_run_json_without_the_override(self):
        self.assertNotIn("--rounds", self.command(rounds=40, variant_rounds={"a": 40}))
        self.assertIn("--rounds 5", self.command(rounds=5))


if __name__ == "__main__":
    unittest.main()
