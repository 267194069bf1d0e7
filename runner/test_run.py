"""Unit tests of runner/run.py: one run's status, selection, the run folder.  They
start small real processes (sh, the launcher) but never assert on timing."""
import json
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run  # noqa: E402

FAKE_CATALOG = os.path.join(os.path.dirname(HERE), "tests", "fixtures-bin", "catalog.json")
VARIANT = {"id": "c/callback-sequential", "workload": "readfile", "lang": "c",
           "style": "callback", "mode": "sequential", "backend": "node4", "concurrency": 1,
           "argv": ["{bin}/c-readfile"], "profiles": ["quick"], "about": "x"}


def line(**over):
    rec = {"workload": "readfile", "lang": "c", "style": "callback", "mode": "sequential",
           "backend": "node4", "variant": "c/callback-sequential", "iterations": 10,
           "concurrency": 1, "ok": 10, "bytes": 120, "elapsed_ns": 5000, "user_us": 1,
           "sys_us": 1, "peak_rss_kb": 1500, "runtime": "libuv 1.44.2"}
    rec.update(over)
    return (json.dumps(rec) + "\n").encode()


def result(stdout=b"", stderr=b"", exit_code=0, sig=None, timed_out=False):
    r = run.Result()
    r.stdout, r.stderr, r.exit_code, r.signal, r.timed_out = stdout, stderr, exit_code, sig, timed_out
    return r


class ClassifyTest(unittest.TestCase):
    def status(self, res, n=10):
        return run.classify(VARIANT, n, "Hello, world", res)

    def test_a_contract_line_with_every_completion_is_ok(self):
        st, rec, why = self.status(result(line()))
        self.assertEqual((st, why), ("ok", None))
        self.assertEqual(rec["elapsed_ns"], 5000)

    def test_fewer_completions_than_iterations_is_invalid(self):
        st, rec, why = self.status(result(line(ok=5, bytes=60)))
        self.assertEqual(st, "invalid")
        self.assertIn("ok is 5, expected 10", why)
        self.assertEqual(rec["ok"], 5)

    def test_a_second_stdout_line_is_invalid(self):
        st, _, why = self.status(result(line() + b"done\n"))
        self.assertEqual(st, "invalid")
        self.assertIn("exactly one line", why)

    def test_a_line_of_another_variant_is_invalid(self):
        st, _, why = self.status(result(line(mode="parallel")))
        self.assertEqual(st, "invalid")
        self.assertIn("mode", why)

    def test_a_missing_field_is_invalid(self):
        rec = json.loads(line())
        del rec["runtime"]
        st, _, why = self.status(result((json.dumps(rec) + "\n").encode()))
        self.assertEqual(st, "invalid")
        self.assertIn("runtime", why)

    def test_a_concurrency_other_than_the_catalogs_is_invalid(self):
        # A bounded program that ignored --concurrency would measure another mode.
        st, _, why = self.status(result(line(concurrency=64)))
        self.assertEqual(st, "invalid")
        self.assertIn("concurrency is 64, expected 1", why)

    def test_nonzero_exit_is_failed_with_the_first_stderr_line(self):
        st, _, why = self.status(result(b"", b"iteration 3: short read\nmore\n", exit_code=1))
        self.assertEqual(st, "failed")
        self.assertEqual(why, "exit 1: iteration 3: short read")

    def test_a_signal_is_crashed(self):
        st, _, why = self.status(result(exit_code=-11, sig=11))
        self.assertEqual((st, why), ("crashed", "killed by SIGSEGV"))

    def test_the_timeout_wins_over_the_kill_signal(self):
        st, _, _ = self.status(result(exit_code=-9, sig=9, timed_out=True))
        self.assertEqual(st, "timeout")


class RunOnceTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.build = tempfile.mkdtemp()
        cls.launcher, why = run.build_launcher(cls.build)
        if cls.launcher is None:
            raise unittest.SkipTest("no C compiler for runner/launch.c: %s" % why)

    def test_output_exit_code_and_rusage_are_captured(self):
        for launcher in (self.launcher, None):
            res = run.run_once(["sh", "-c", "echo out; echo err >&2; exit 3"], 10, launcher)
            self.assertEqual((res.stdout, res.stderr, res.exit_code), (b"out\n", b"err\n", 3))
            self.assertIsNone(res.signal)
            self.assertGreater(res.wall_ns, 0)
            self.assertGreater(res.peak_rss_kb, 0)

    def test_a_hanging_program_and_its_children_are_killed_at_the_timeout(self):
        res = run.run_once(["sh", "-c", "sleep 30 & sleep 30; wait"], 0.3, self.launcher)
        self.assertTrue(res.timed_out)
        self.assertEqual(res.signal, 9)
        self.assertLess(res.wall_ns, 20 * 10 ** 9)   # not the 30 s of the sleeps

    def test_a_program_killed_by_a_signal_reports_it(self):
        res = run.run_once(["sh", "-c", "kill -SEGV $$"], 10, self.launcher)
        self.assertEqual((res.signal, res.exit_code, res.timed_out), (11, -11, False))

    def test_a_missing_program_is_a_failed_start(self):
        res = run.run_once(["/nonexistent/prog"], 10, None)
        self.assertIn("cannot start /nonexistent/prog", res.spawn_error)
        res = run.run_once(["/nonexistent/prog"], 10, self.launcher)
        self.assertEqual(res.exit_code, 127)
        self.assertIn(b"cannot run /nonexistent/prog", res.stderr)

    def test_no_function_newer_than_python_3_8_is_needed(self):
        # scripts/deps.sh accepts Python 3.8, which lacks os.waitstatus_to_exitcode.
        saved = getattr(os, "waitstatus_to_exitcode", None)
        if saved is not None:
            del os.waitstatus_to_exitcode
        try:
            for launcher in (self.launcher, None):
                res = run.run_once(["sh", "-c", "exit 4"], 10, launcher)
                self.assertEqual((res.exit_code, res.spawn_error), (4, None))
            res = run.run_once(["sh", "-c", "kill -TERM $$"], 10, None)
            self.assertEqual(res.exit_code, -15)
        finally:
            if saved is not None:
                os.waitstatus_to_exitcode = saved

    def test_the_launcher_keeps_the_runner_memory_out_of_the_peak(self):
        # sh -c true is well under the Python runner's own resident size.
        direct = run.run_once(["sh", "-c", ":"], 10, None).peak_rss_kb
        launched = run.run_once(["sh", "-c", ":"], 10, self.launcher).peak_rss_kb
        if sys.platform.startswith("linux"):
            self.assertLess(launched, direct)


class ArgsTest(unittest.TestCase):
    def test_a_timeout_that_is_not_a_finite_positive_number_is_a_usage_error(self):
        for bad in ("0", "-1", "nan", "inf", "-inf"):
            with self.assertRaisesRegex(run.UsageError, "--timeout must be a positive number"):
                run.parse_args(["--profile", "quick", "--timeout=" + bad])
        self.assertEqual(run.parse_args(["--profile", "quick", "--timeout", "2.5"]).timeout, 2.5)


class SelectTest(unittest.TestCase):
    def setUp(self):
        self.cat = run.load_catalog(FAKE_CATALOG)

    def test_profile_and_filters_choose_variants(self):
        chosen, skipped = run.select(self.cat, "quick", ["parallel$", "bounded"], "/usr/bin/node")
        self.assertEqual([v["id"] for v in chosen], ["fake/honest-parallel", "fake/honest-bounded"])
        self.assertEqual(skipped, [])

    def test_node_variants_are_skipped_with_one_line_when_there_is_no_node(self):
        cat = dict(self.cat, profiles=dict(self.cat["profiles"]))
        for v in cat["variants"]:
            if v["id"] == "fake/honest-sequential":
                v["profiles"] = v["profiles"] + ["nodeonly"]
        chosen, skipped = run.select(cat, "nodeonly", [], None)
        self.assertEqual([v["id"] for v in chosen], ["fake/honest-sequential"])
        self.assertEqual(len(skipped), 1)
        self.assertIn("fake/nodejs-sequential", skipped[0])

    def test_unknown_profile_and_empty_selection_are_usage_errors(self):
        with self.assertRaisesRegex(run.UsageError, "unknown profile 'nope'"):
            run.select(self.cat, "nope", [], None)
        with self.assertRaisesRegex(run.UsageError, "no variant"):
            run.select(self.cat, "quick", ["^zzz"], None)

    def test_the_command_gets_the_contract_flags_and_bounded_its_k(self):
        v = run.catalog_mod.find(self.cat, "fake/honest-bounded")
        argv = run.command(v, None, 7, "/f", "Hi")
        self.assertTrue(os.path.isabs(argv[0]))
        self.assertEqual(argv[1:], ["--variant", "honest-bounded", "--iterations", "7",
                                    "--file", "/f", "--expect", "Hi", "--warmup", "0",
                                    "--concurrency", "8"])
        seq = run.command(run.catalog_mod.find(self.cat, "fake/honest-sequential"), None, 7,
                          "/f", "Hi")
        self.assertNotIn("--concurrency", seq)

    def test_the_programs_come_from_the_build_folder_make_was_given(self):
        # `make compare BUILD=DIR` exports BUILD; the programs are DIR/bin/*, not build/bin.
        saved = os.environ.get("BUILD")
        try:
            os.environ.pop("BUILD", None)
            self.assertEqual(run.command(VARIANT, None, 1, "/f", "x")[0],
                             os.path.join(run.ROOT, "build", "bin", "c-readfile"))
            os.environ["BUILD"] = "/elsewhere/b"
            self.assertEqual(run.command(VARIANT, None, 1, "/f", "x")[0], "/elsewhere/b/bin/c-readfile")
            os.environ["BUILD"] = "b2"
            self.assertEqual(run.command(VARIANT, None, 1, "/f", "x")[0],
                             os.path.join(run.ROOT, "b2", "bin", "c-readfile"))
        finally:
            if saved is None:
                os.environ.pop("BUILD", None)
            else:
                os.environ["BUILD"] = saved


class RunFolderTest(unittest.TestCase):
    def test_a_second_run_in_the_same_second_gets_its_own_folder(self):
        with tempfile.TemporaryDirectory() as out:
            a, _ = run.make_run_folder(out, "h")
            b, _ = run.make_run_folder(out, "h")
            self.assertNotEqual(a, b)
            self.assertTrue(os.path.isdir(os.path.join(b, "charts")))

    def test_latest_is_a_relative_link_to_the_newest_run(self):
        with tempfile.TemporaryDirectory() as out:
            a, _ = run.make_run_folder(out, "h")
            run.point_latest(out, a)
            b, _ = run.make_run_folder(out, "h")
            run.point_latest(out, b)
            link = os.readlink(os.path.join(out, "latest"))
            self.assertFalse(os.path.isabs(link))
            self.assertEqual(os.path.realpath(os.path.join(out, "latest")), os.path.realpath(b))

    @unittest.skipIf(os.geteuid() == 0, "root can write anywhere")
    def test_an_unwritable_results_folder_is_an_environment_error(self):
        with tempfile.TemporaryDirectory() as out:
            os.chmod(out, 0o500)
            try:
                with self.assertRaisesRegex(run.EnvError, "results folder"):
                    run.make_run_folder(out, "h")
            finally:
                os.chmod(out, 0o700)

    def test_a_results_path_under_a_file_is_an_environment_error(self):
        with tempfile.NamedTemporaryFile() as f:
            with self.assertRaisesRegex(run.EnvError, "cannot create the results folder"):
                run.make_run_folder(f.name, "h")


if __name__ == "__main__":
    unittest.main()
