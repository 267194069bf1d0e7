"""Tests of runner/render.py and run.py --render against interruptions: Ctrl-C
while the charts are drawn still writes REPORT.md (without the missing charts,
saying so) and exits 130 with one line."""
import contextlib
import csv
import io
import os
import tempfile
import unittest
from unittest import mock


from . import render
from . import run
from . import summary as sm

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
                            "user_us": 1, "sys_us": 1, "peak_rss_kb": 1, "ok": 100, "bytes": 1200,
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

        def draw(script, argv):
            if drawn:
                raise KeyboardInterrupt
            drawn.append(script)
            return True
        with mock.patch.object(render, "draw", draw):
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

    def test_a_chart_whose_script_ends_well_after_the_interrupt_is_counted_as_drawn(self):
        class Script:
            """A chart script that outlives the runner's KeyboardInterrupt (the
            signal went to the runner alone) and then exits 0."""
            calls = []

            def __init__(self, argv, **kw):
                self.argv, self.returncode, self.waited = argv, None, False
                Script.calls.append(self)

            def communicate(self, *a, **k):
                if len(Script.calls) == 1 and not self.waited:
                    self.waited = True
                    raise KeyboardInterrupt
                self.returncode = 0
                return b"", b""

            # What subprocess.run would do with it.
            def __enter__(self):
                return self

            def __exit__(self, *exc):
                return False

            def kill(self):
                pass

            def wait(self, *a, **k):
                return self.returncode

            def poll(self):
                return self.returncode
        with mock.patch.object(render.subprocess, "Popen", Script):
            code, lines = self.main("--render", self.dir)
        self.assertEqual(code, 130)
        self.assertEqual(len(Script.calls), 1)
        self.assertRegex(lines[0], r"REPORT\.md written with 1 of them")
        with open(os.path.join(self.dir, "REPORT.md")) as f:
            text = f.read()
        self.assertIn("(1 drawn)", text)
        self.assertIn(os.path.basename(Script.calls[0].argv[-1]), text)

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
        rows = [{"workload": w, "peak_rss_kb": 10, "median_ms": 1.0, "ratio": 1.0,
                 "baseline_label": None} for w in ("tasks", "readfile")]
        drawn = []

        def fake_draw(script, argv):
            drawn.append((script, argv[argv.index("--workload") + 1]))
            return True
        with mock.patch.object(render, "draw", fake_draw), \
                contextlib.redirect_stderr(io.StringIO()):
            render._draw_charts("/nowhere", rows, ["tasks", "readfile"], [])
        hinted = [(s, w) for s, w in drawn if s == "unit_memory_chart.py"]
        self.assertEqual(hinted, [("unit_memory_chart.py", "tasks")])
        self.assertIn(("memory_chart.py", "readfile"), drawn)
        self.assertTrue(render.chart_hint("tasks", "per_unit_memory"))
        self.assertIsNone(render.chart_hint("readfile", "per_unit_memory"))
        where = [(s, w) for s, w in drawn if s == "where_time_chart.py"]
        self.assertEqual(where, [("where_time_chart.py", "readfile")])


class ReproduceCommandTest(unittest.TestCase):
    """The Reproduce line repeats the run's settings, not what a budget decided."""

    def command(self, **run):
        from . import report
        return "\n".join(report.reproduce_command(dict(
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
