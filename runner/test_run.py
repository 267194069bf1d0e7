"""Unit tests of the runner's modules (cli, plan, launch, servers, measure, rundir)
and of run.py end to end, on the fake catalog folder tests/fixtures-bin/catalog/
(fake-readfile in every role, fake-server that serves, dies or stays mute) and on
small catalog folders written into a temporary folder where a case needs its
own.  They start small real processes (sh, python, the launcher) and assert
on timing once: a 1 ms program's wall time is not a poll interval."""
import contextlib
import io
import csv
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import unittest

from . import catalog as catalog_mod
from . import cli
from . import launch
from . import measure
from . import method
from . import noise
from . import plan as plan_mod
from . import render
from . import run
from . import rundir as rd
from . import schedule
from . import servers as servers_mod
from . import summary as sm
from .errors import EnvError, UsageError

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
FIXTURES = os.path.join(ROOT, "tests", "fixtures-bin")
FAKE = os.path.join(FIXTURES, "catalog")
FAKE_SERVER = os.path.join(FIXTURES, "fake-server")
HONEST = "readfile/fake/honest-sequential@python"
NO_NODE = "needs node, and none was found (install Node.js, set NODE or say --node PATH)"


def workload(name, variants, **over):
    """A workload file for a temporary catalog folder, run by fake-readfile."""
    w = {"workload": name, "about": "a test workload", "unit": "read",
         "flags": {"--file": {"value": "fixtures/text.txt", "path": True, "about": "f"},
                   "--expect": {"value": "Hello, world", "about": "e"}},
         "checks": {"bytes": "iterations * len(expect)"},
         "profiles": {"quick": {"iterations": 7, "timeout_s": 20}},
         "baselines": [{"key": "c", "label": "fake honest", "for": {},
                        "baseline": {"style": "honest"}}],
         "variants": variants}
    w.update(over)
    return w


def entry(**over):
    """A matrix entry of fake-readfile."""
    e = {"lang": "fake", "style": "honest", "mode": "sequential", "backend": "python",
         "argv": ["tests/fixtures-bin/fake-readfile", "--workload", "{workload}",
                  "--variant", "{name}"], "profiles": ["quick"], "about": "x"}
    e.update(over)
    return e


def make_catalog(folder, workloads):
    """A catalog folder with the fake catalog's suite.json and the given workloads."""
    path = os.path.join(folder, "catalog")
    os.makedirs(path, exist_ok=True)
    shutil.copy(os.path.join(FAKE, "suite.json"), path)
    for w in workloads:
        with open(os.path.join(path, w["workload"] + ".json"), "w") as f:
            json.dump(w, f)
    return path


@contextlib.contextmanager
def hidden(module, *names):
    """module's attributes names deleted for the block, as on a platform that
    lacks them (os.waitid on macOS before Python 3.13), then put back."""
    saved = {n: getattr(module, n) for n in names if hasattr(module, n)}
    for n in saved:
        delattr(module, n)
    try:
        yield
    finally:
        for n, v in saved.items():
            setattr(module, n, v)


def quiet(fn, *args):
    """fn(*args) with stdout and stderr sent to /dev/null (run.main talks a lot)."""
    saved = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = open(os.devnull, "w")
    try:
        return fn(*args)
    finally:
        sys.stdout.close()
        sys.stdout, sys.stderr = saved


class Fixture(unittest.TestCase):
    """The fake catalog, a launcher built into BUILD=<tmp>/build, a scratch folder
    per test, and the environment restored afterwards."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        cls.cat = catalog_mod.load(FAKE)
        cls.build = os.path.join(cls.tmp, "build")
        os.makedirs(os.path.join(cls.build, "bin"))
        cls.launcher = os.path.join(cls.build, "bin", "launch")
        cc = os.environ.get("CC") or "cc"
        try:
            subprocess.run([cc, "-std=c11", "-O2", "-o", cls.launcher,
                            os.path.join(HERE, "launch.c")], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        except (OSError, subprocess.CalledProcessError) as e:
            shutil.rmtree(cls.tmp)
            raise unittest.SkipTest("no C compiler for runner/launch.c: %s" % e)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def setUp(self):
        self.saved_build = os.environ.get("BUILD")
        os.environ["BUILD"] = self.build
        self.dir = tempfile.mkdtemp(dir=self.tmp)

    def tearDown(self):
        if self.saved_build is None:
            os.environ.pop("BUILD", None)
        else:
            os.environ["BUILD"] = self.saved_build

    def options(self, profile="quick", *extra):
        return cli.parse_args(["--profile", profile, "--out", os.path.join(self.dir, "out")]
                              + list(extra))


def result(stdout=b"", stderr=b"", exit_code=0, sig=None, timed_out=False):
    r = launch.Result()
    r.stdout, r.stderr, r.exit_code, r.signal, r.timed_out = stdout, stderr, exit_code, sig, timed_out
    return r


class ClassifyTest(Fixture):
    def setUp(self):
        super().setUp()
        self.v = self.cat.find(HONEST)

    def line(self, **over):
        rec = {"workload": "readfile", "lang": "fake", "style": "honest", "shape": "",
               "mode": "sequential", "method": "inprocess", "backend": "python",
               "variant": HONEST, "iterations": 10, "concurrency": 1, "ok": 10, "bytes": 120,
               "elapsed_ns": 5000, "user_us": 1, "sys_us": 1, "peak_rss_kb": 1500, "idle_rss_kb": 1000,
               "runtime": "python 3"}
        rec.update(over)
        return (json.dumps(rec) + "\n").encode()

    def status(self, res, n=10):
        return measure.classify(self.v, n, res, self.cat.flag_values("readfile"))

    def test_a_contract_line_with_every_completion_is_ok(self):
        st, rec, why = self.status(result(self.line()))
        self.assertEqual((st, why), ("ok", None))
        self.assertEqual(rec["elapsed_ns"], 5000)

    def test_fewer_completions_than_iterations_is_invalid(self):
        st, rec, why = self.status(result(self.line(ok=5, bytes=60)))
        self.assertEqual(st, "invalid")
        self.assertIn("ok is 5, expected 10", why)
        self.assertEqual(rec["ok"], 5)

    def test_the_workloads_own_check_uses_its_flag_values(self):
        st, _, why = self.status(result(self.line(bytes=40)))
        self.assertEqual(st, "invalid")
        self.assertIn("bytes is 40, expected 120", why)

    def test_a_second_stdout_line_is_invalid(self):
        st, _, why = self.status(result(self.line() + b"done\n"))
        self.assertEqual(st, "invalid")
        self.assertIn("exactly one line", why)

    def test_a_line_of_another_backend_is_invalid(self):
        st, _, why = self.status(result(self.line(backend="node4")))
        self.assertEqual(st, "invalid")
        self.assertIn("backend", why)

    def test_a_concurrency_other_than_the_catalogs_is_invalid(self):
        # A bounded program that ignored --concurrency would measure another mode.
        st, _, why = self.status(result(self.line(concurrency=64)))
        self.assertEqual(st, "invalid")
        self.assertIn("concurrency is 64, expected 1", why)

    def test_nonzero_exit_is_failed_with_the_first_stderr_line(self):
        st, _, why = self.status(result(b"", b"iteration 3: short read\nmore\n", exit_code=1))
        self.assertEqual((st, why), ("failed", "exit 1: iteration 3: short read"))

    def test_a_signal_is_crashed(self):
        st, _, why = self.status(result(exit_code=-11, sig=11))
        self.assertEqual((st, why), ("crashed", "killed by SIGSEGV"))

    def test_the_timeout_wins_over_the_kill_signal(self):
        st, _, _ = self.status(result(exit_code=-9, sig=9, timed_out=True))
        self.assertEqual(st, "timeout")

    def test_a_sample_row_has_the_time_outside_the_clock_and_the_start_up_of_its_round(self):
        st, rec, _ = self.status(result(self.line()))
        res = result()
        res.wall_ns = 9000
        row = measure.sample_row(2, 5, self.v, 10, st, rec, res, startup_ns=1234)
        self.assertEqual((row["outside_ns"], row["startup_ns"]), (4000, 1234))
        res.wall_ns = 4990     # the clocks' granularity: never below 0
        self.assertEqual(measure.sample_row(2, 5, self.v, 10, st, rec, res)["outside_ns"], 0)
        res.wall_ns = None
        self.assertIsNone(measure.sample_row(2, 5, self.v, 10, st, rec, res)["outside_ns"])

    def test_a_sample_row_has_the_spec_columns_with_the_new_ones_last(self):
        st, rec, _ = self.status(result(self.line()))
        row = measure.sample_row(2, 5, self.v, 10, st, rec, result())
        self.assertEqual(list(row), sm.SAMPLE_COLUMNS)
        self.assertEqual(sm.SAMPLE_COLUMNS[19:23], ["shape", "method", "label", "idle_rss_kb"])
        self.assertEqual(row["idle_rss_kb"], 1000)
        self.assertEqual(sm.SAMPLE_COLUMNS[23:], ["env", "point", "outside_ns", "startup_ns",
                                                   "warmup_ns", "pass", "sampled_rss_kb", "runtime"])
        self.assertEqual(row["pass"], 0)
        self.assertEqual(row["runtime"], "", "the host's own runtime")
        self.assertEqual(measure.sample_row(2, 5, dict(self.v, runtime="10.24.1"), 10, st, rec,
                                            result())["runtime"], "10.24.1")
        self.assertIsNone(row["sampled_rss_kb"])   # a line without a harness's figure
        rec = dict(rec, sampled_rss_kb=-12)
        self.assertEqual(measure.sample_row(2, 5, self.v, 10, st, rec, result())["sampled_rss_kb"], -12)
        self.assertEqual((row["env"], row["point"]), ("", ""))
        self.assertEqual((row["variant"], row["label"], row["shape"], row["method"]),
                         (HONEST, "fake/honest-sequential@python", "", "inprocess"))


class LaunchTest(Fixture):
    def test_a_1_ms_programs_wall_time_is_read_when_it_is_reaped(self):
        # A launcher that slept 50 ms between looks at the program (macOS's,
        # which has no parent-death signal) reported 50 ms and more.  Both
        # builds: as made here, and as made without Linux's prctl (-U__linux__:
        # sigtimedwait on Linux, the same kqueue on macOS).  The fastest of 5
        # runs, so that a busy host slowing one run fails nothing.
        other = os.path.join(self.dir, "launch-without-prctl")
        subprocess.run([os.environ.get("CC") or "cc", "-std=c11", "-O2", "-U__linux__", "-o",
                        other, os.path.join(HERE, "launch.c")], check=True)
        for path in (self.launcher, other):
            runs = [launch.run_once(["sleep", "0.001"], 10, path) for _ in range(5)]
            self.assertEqual([r.exit_code for r in runs], [0] * 5)
            walls = [r.wall_ns for r in runs]
            self.assertLess(min(walls), 10 * 10 ** 6, "%s: wall_ns %s" % (path, walls))

    def test_without_waitid_or_kqueue_the_group_is_still_killed_at_the_timeout(self):
        with hidden(os, "waitid"), hidden(select, "kqueue"):
            res = launch.run_once(["sh", "-c", "sleep 30 & sleep 30; wait"], 0.3, self.launcher)
        self.assertTrue(res.timed_out)
        self.assertEqual(res.exit_code, -9)

    def test_output_exit_code_and_rusage_are_captured(self):
        res = launch.run_once(["sh", "-c", "echo out; echo err >&2; exit 3"], 10, self.launcher)
        self.assertEqual((res.stdout, res.stderr, res.exit_code), (b"out\n", b"err\n", 3))
        self.assertIsNone(res.signal)
        self.assertGreater(res.wall_ns, 0)
        self.assertGreater(res.peak_rss_kb, 0)

    @unittest.skipUnless(launch.allowed_cpus(), "no sched_setaffinity here (macOS)")
    def test_the_launcher_pins_the_program_to_the_cpu_asked_and_reports_it(self):
        cpu = launch.allowed_cpus()[-1]
        probe = [sys.executable, "-c", "import os; print(sorted(os.sched_getaffinity(0)), "
                 "'LAUNCH_CPU' in os.environ)"]
        res = launch.run_once(probe, 10, self.launcher, cpu=cpu)
        self.assertEqual((res.exit_code, res.cpu), (0, cpu), res.stderr)
        self.assertEqual(res.stdout.decode(), "[%d] False\n" % cpu)   # and the variable is gone
        res = launch.run_once(probe, 10, self.launcher)
        self.assertIsNone(res.cpu)
        self.assertEqual(res.stdout.decode(), "%s False\n" % launch.allowed_cpus())
        # a CPU it cannot have is the harness's failure, not the program's
        with self.assertRaises(EnvError) as cm:
            launch.run_once(probe, 10, self.launcher, cpu=4000)
        self.assertIn("sched_setaffinity to CPU 4000", str(cm.exception))

    def test_the_pinning_rule_gives_programs_and_servers_the_highest_cpu(self):
        self.assertEqual({k: v for k, v in launch.pin_rule([0, 1, 3]).items() if k != "rule"},
                         {"program_cpu": 3, "server_cpu": 3})
        one = launch.pin_rule([2])
        self.assertEqual((one["program_cpu"], one["server_cpu"], one["why"]),
                         (None, None, "the runner may use 1 CPU"))

    def test_a_hanging_program_and_its_children_are_killed_at_the_timeout(self):
        res = launch.run_once(["sh", "-c", "sleep 30 & sleep 30; wait"], 0.3, self.launcher)
        self.assertTrue(res.timed_out)
        self.assertEqual(res.signal, 9)
        self.assertLess(res.wall_ns, 20 * 10 ** 9)   # not the 30 s of the sleeps

    def test_a_program_killed_by_a_signal_reports_it(self):
        res = launch.run_once(["sh", "-c", "kill -SEGV $$"], 10, self.launcher)
        self.assertEqual((res.signal, res.exit_code, res.timed_out), (11, -11, False))

    def test_a_program_that_cannot_be_executed_is_an_environment_error(self):
        # Not a failure of the program measured: the harness could not start it.
        with self.assertRaisesRegex(EnvError, "^launch: cannot run /nonexistent/prog: "):
            launch.run_once(["/nonexistent/prog"], 10, self.launcher)

    def test_the_launcher_keeps_the_runner_memory_out_of_the_peak(self):
        # sh -c : is well under the Python runner's own resident size.
        if sys.platform.startswith("linux"):
            launched = launch.run_once(["sh", "-c", ":"], 10, self.launcher).peak_rss_kb
            import resource
            self.assertLess(launched, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)

    def test_the_launcher_comes_from_the_build_folder_and_is_never_compiled_here(self):
        self.assertEqual(launch.launcher(), self.launcher)
        os.environ["BUILD"] = os.path.join(self.dir, "empty")
        with self.assertRaisesRegex(EnvError, r"not built or not executable: .*bin/launch "
                                              r"\(run `make all` first\)"):
            launch.launcher()


class ArgsTest(unittest.TestCase):
    def test_a_timeout_that_is_not_a_finite_positive_number_is_a_usage_error(self):
        for bad in ("0", "-1", "nan", "inf", "-inf"):
            with self.assertRaisesRegex(UsageError, "--timeout must be between 0.1 and 86400"):
                cli.parse_args(["--profile", "quick", "--timeout=" + bad])
        self.assertEqual(cli.parse_args(["--profile", "quick", "--timeout", "2.5"]).timeout, 2.5)

    def test_the_catalog_is_the_folder_by_default(self):
        self.assertEqual(cli.parse_args(["--profile", "quick"]).catalog, catalog_mod.DIR)


class EstimateFiguresTest(unittest.TestCase):
    """run.previous_walls: what a run's estimate is made from."""

    @staticmethod
    def summary(folder, walls, profile="default"):
        os.makedirs(folder)
        with open(os.path.join(folder, "summary.json"), "w") as f:
            json.dump({"run": {"profile": profile},
                       "variants": [{"variant": v, "wall_ms": ms, "iterations": n}
                                    for v, (ms, n) in walls.items()]}, f)

    def test_a_first_run_takes_the_newest_committed_reference_runs_figures(self):
        # A fresh clone has no results/latest: without the committed runs its
        # first make compare was estimated at start-up times ("about 1 min"
        # for a run of 19 min).  The local run's figure comes first, then the
        # newest reference run of the same profile that has the variant, of
        # any host (a seed run's N = 5 scaled to the default's 40,000 gave
        # "3 h 49 min").
        with tempfile.TemporaryDirectory() as d:
            out, ref = os.path.join(d, "results"), os.path.join(d, "reference")
            self.assertEqual(run.previous_walls(out, "default", ref), {})
            self.summary(os.path.join(ref, "host-a", "20260101T000000Z"), {"a": (1.0, 10), "b": (2.0, 10)})
            self.summary(os.path.join(ref, "host-b", "20260301T000000Z"), {"a": (3.0, 10)})
            self.summary(os.path.join(ref, "host-b", "20260401T000000Z"), {"a": (9.0, 5)}, "seed")
            os.makedirs(os.path.join(ref, "host-b", "micro-20260501T000000Z"))  # no summary.json
            self.assertEqual(run.previous_walls(out, "default", ref), {"a": (3.0, 10), "b": (2.0, 10)})
            self.assertEqual(run.previous_walls(out, "seed", ref), {"a": (9.0, 5)})
            self.summary(os.path.join(out, "latest"), {"b": (5.0, 20)})
            self.assertEqual(run.previous_walls(out, "default", ref), {"a": (3.0, 10), "b": (5.0, 20)})
            self.assertEqual(run.previous_walls(out, "seed", ref), {"a": (9.0, 5)})

    def test_a_budget_gives_the_rounds_a_variants_figure_fits_in_it(self):
        # readfile's default: 2 s and at most 40 rounds for C; a 40 ms run gets
        # 40, a 400 ms one 5 -> the workload's 10; the variants the budget is
        # not for keep 10; a variant with no figure is counted at the most.
        class Plan:
            warmups = 1
            points = {}
            settings = {"w": {"iterations": 10, "rounds": 10,
                              "budget": {"seconds": 2, "max_rounds": 40, "for": {"lang": "c"}}}}
            variants = [{"id": i, "workload": "w", "lang": lang} for i, lang in
                        (("fast", "c"), ("slow", "c"), ("other", "go"), ("new", "c"))]
        walls = {"fast": (40.0, 10), "slow": (400.0, 10), "other": (50.0, 10)}
        runs, _, guessed = plan_mod.estimate(Plan, walls)
        self.assertEqual((runs, guessed), ((1 + 40) + (1 + 10) + (1 + 10) + (1 + 40), 1))

    def test_the_budget_keeps_time_for_the_traced_runs_of_a_profile_that_traces(self):
        class Plan:
            settings = {"traced": {"trace_iterations": 200}, "plain": {}}
            variants = [{"workload": "traced", "lang": "node"}, {"workload": "traced", "lang": "c"},
                        {"workload": "plain", "lang": "c"}]
        # two traced runs a variant, each its language's floor and a margin
        self.assertAlmostEqual(plan_mod.trace_reserve(Plan), 2 * (0.09 + 0.05) + 2 * (0.002 + 0.05))
        Plan.settings = {"traced": {}, "plain": {}}
        self.assertEqual(plan_mod.trace_reserve(Plan), 0.0)

    def test_the_projects_reference_runs_cover_every_default_variant(self):
        # What a fresh clone's make compare is estimated from.
        vs = catalog_mod.load(catalog_mod.DIR).select(profile="default")
        walls = run.previous_walls(os.path.join(tempfile.gettempdir(), "no-such-results"), "default")
        missing = [v["id"] for v in vs if v["id"] not in walls]
        self.assertLess(len(missing), len(vs) // 10, missing)


class PlanTest(Fixture):
    def test_profile_and_filters_choose_variants(self):
        p = plan_mod.make(self.cat, self.options("quick", "--filter", "parallel@",
                                                 "--filter", "bounded"), None)
        self.assertEqual([v["id"] for v in p.variants],
                         ["readfile/fake/honest-parallel@python",
                          "readfile/fake/honest-bounded@python"])
        self.assertEqual((p.rounds, p.warmups, p.skipped), (3, 1, []))

    def test_unknown_profile_and_empty_selection_are_usage_errors(self):
        with self.assertRaisesRegex(UsageError, "unknown profile 'nope'"):
            plan_mod.make(self.cat, self.options("nope"), None)
        with self.assertRaisesRegex(UsageError, "no variant"):
            plan_mod.make(self.cat, self.options("quick", "--filter", "^zzz"), None)

    def test_the_command_gets_the_workloads_flags_and_bounded_its_k(self):
        p = plan_mod.make(self.cat, self.options(), None)
        argv = p.commands["readfile/fake/honest-bounded@python"]
        self.assertEqual(argv[0], os.path.join(FIXTURES, "fake-readfile"))
        self.assertEqual(argv[1:], ["--workload", "readfile", "--variant", "honest-bounded",
                                    "--iterations", "50", "--warmup", "0",
                                    "--file", os.path.join(ROOT, "fixtures", "text.txt"),
                                    "--expect", "Hello, world", "--concurrency", "8"])
        self.assertNotIn("--concurrency", p.commands[HONEST])

    def test_n_and_timeout_are_the_workloads_and_the_options_override_them(self):
        p = plan_mod.make(self.cat, self.options("broken"), None)
        self.assertEqual({k: p.settings["readfile"][k] for k in ("iterations", "timeout_s", "rounds")},
                         {"iterations": 50, "timeout_s": 2, "rounds": 2})
        p = plan_mod.make(self.cat, self.options("broken", "--iterations", "3", "--timeout", "9",
                                                 "--rounds", "1"), None)
        self.assertEqual({k: p.settings["readfile"][k] for k in ("iterations", "timeout_s", "rounds")},
                         {"iterations": 3, "timeout_s": 9, "rounds": 1})

    def test_unmet_requirements_skip_with_one_reason_each(self):
        p = plan_mod.make(self.cat, self.options("requires"), None)
        self.assertEqual([v["id"] for v in p.variants],
                         [HONEST, "readfile/fake/honest-checked-sequential@python"])
        self.assertEqual(p.skipped, [
            {"variant": "readfile/fake/honest-probed-sequential@python",
             "reason": "fake: no such library here"},
            {"variant": "readfile/fake/honest-elsewhere-sequential@python",
             "reason": "runs on windows only, this is %s" % catalog_mod.host_os()}])

    def test_nothing_left_after_the_skips_is_a_usage_error_naming_them(self):
        with self.assertRaisesRegex(UsageError, "nothing left to run: skipped "
                                                "readfile/fake/nodejs-sequential@python "
                                                "\\(needs node"):
            plan_mod.make(self.cat, self.options("nodeonly"), None)
        p = plan_mod.make(self.cat, self.options("nodeonly"), sys.executable)
        self.assertEqual(p.commands["readfile/fake/nodejs-sequential@python"][:3],
                         [sys.executable, "-e", "process.exit(0)"])

    def test_a_profiles_warm_up_goes_to_every_command_never_above_n(self):
        # The seed profile gives each workload its seed's own warm-up (seed
        # 003's harness: min(350, n)), an expression over the workload's own;
        # without either a program warms up nothing.
        for warmup, n, want in (("min(350, iterations)", 7, "7"), ("3", 7, "3"), (None, 7, "0")):
            prof = {"iterations": n, "timeout_s": 20}
            if warmup is not None:
                prof["warmup"] = warmup
            w = workload("readfile", [entry()], profiles={"quick": prof})
            cat = catalog_mod.load(make_catalog(self.dir, [w]))
            p = plan_mod.make(cat, self.options(), None)
            argv = p.commands[HONEST]
            self.assertEqual(argv[argv.index("--warmup") + 1], want, (warmup, n))
            self.assertEqual(p.settings["readfile"]["warmup_ops"], int(want))
            self.assertEqual(method.method_section({"workloads": {"readfile": dict(
                p.settings["readfile"], args=[])}})[3].count("--warmup %s`" % want), 1)

    def test_a_probe_runs_once_per_run_for_every_variant_that_names_it(self):
        count = os.path.join(self.dir, "probe-runs")
        probe = ["sh", "-c", "echo run >> %s; echo 'no ring here' >&2; exit 1" % count]
        cat = catalog_mod.load(make_catalog(self.dir, [workload("readfile", [
            entry(), entry(shape=["ringa", "ringb"], requires={"probe": probe})])]))
        p = plan_mod.make(cat, self.options(), None)
        self.assertEqual(p.skipped, [
            {"variant": "readfile/fake/honest-ringa-sequential@python", "reason": "no ring here"},
            {"variant": "readfile/fake/honest-ringb-sequential@python", "reason": "no ring here"}])
        with open(count) as f:
            self.assertEqual(f.read(), "run\n")

    def test_a_program_not_built_and_a_missing_input_are_environment_errors(self):
        w = workload("readfile", [entry(argv=["{bin}/fake-missing"])])
        cat = catalog_mod.load(make_catalog(self.dir, [w]))
        with self.assertRaisesRegex(EnvError, "not built or not executable: .*fake-missing"):
            plan_mod.make(cat, self.options(), None)
        w = workload("readfile", [entry()])
        w["flags"]["--file"]["value"] = "fixtures/no-such-file"
        cat = catalog_mod.load(make_catalog(self.dir, [w]))
        with self.assertRaisesRegex(EnvError, "--file fixtures/no-such-file of workload readfile "
                                              "is missing"):
            plan_mod.make(cat, self.options(), None)

    def test_a_broken_catalog_is_an_environment_error_with_its_one_line(self):
        with self.assertRaisesRegex(EnvError, "not a catalog folder"):
            plan_mod.load_catalog(os.path.join(self.dir, "nowhere"))

    def test_a_workload_with_fewer_rounds_runs_in_the_first_rounds_only(self):
        cat = catalog_mod.load(make_catalog(self.dir, [
            workload("readfile", [entry()]),
            workload("rare", [entry()], profiles={"quick": {"iterations": 2, "timeout_s": 9,
                                                            "rounds": 1}})]))
        p = plan_mod.make(cat, self.options(), None)
        orders = schedule.orders(p, 42)
        both = sorted([HONEST, "rare/fake/honest-sequential@python"])
        self.assertEqual([sorted(o) for o in orders], [both, both, [HONEST], [HONEST]])
        self.assertEqual(orders, schedule.orders(p, 42))       # the seed decides

    def test_rounds_given_on_the_command_line_override_every_workload(self):
        cat = catalog_mod.load(make_catalog(self.dir, [
            workload("readfile", [entry()]),
            workload("rare", [entry()], profiles={"quick": {"iterations": 2, "timeout_s": 9,
                                                            "rounds": 1}})]))
        p = plan_mod.make(cat, self.options("quick", "--rounds", "6"), None)
        self.assertEqual([len(o) for o in schedule.orders(p, 42)], [2] * 7)  # 1 warm-up + 6


class ServersTest(Fixture):
    def spec(self, *role, timeout=5):
        return {"argv": [FAKE_SERVER] + list(role), "port_flag": "--port",
                "ready_timeout_s": timeout}

    def test_a_ready_server_gives_its_port_once_per_round_and_stops_on_sigterm(self):
        s = servers_mod.Servers()
        spec = self.spec()
        port, why = s.port(spec)
        self.assertIsNone(why)
        self.assertEqual(s.port(spec), (port, None))        # the same server
        proc = s.running[tuple(spec["argv"])].proc
        s.stop_all()
        self.assertEqual(proc.returncode, 0)                # its SIGTERM handler, not SIGKILL
        self.assertEqual(s.running, {})

    @unittest.skipUnless(launch.allowed_cpus(), "no sched_setaffinity here (macOS)")
    def test_a_server_with_a_cpu_runs_every_thread_on_it(self):
        s = servers_mod.Servers()
        cpu = launch.allowed_cpus()[0]
        spec = dict(self.spec(), cpu=cpu)
        _, why = s.port(spec)
        self.assertIsNone(why)
        pid = s.running[tuple(spec["argv"])].proc.pid
        try:
            for tid in os.listdir("/proc/%d/task" % pid):
                self.assertEqual(os.sched_getaffinity(int(tid)), {cpu})
        finally:
            s.stop_all()

    def test_a_servers_stdin_is_a_pipe_that_ends_with_the_runner(self):
        # A server that watches its stdin exits when the runner's end closes,
        # as it does when the runner dies: no SIGTERM needed.
        code = ("import json, sys; print(json.dumps({'port': 1}), flush=True); "
                "sys.stdin.read(); sys.exit(0)")
        server = servers_mod.Server({"argv": [sys.executable, "-c", code], "port_flag": "--port"})
        self.assertEqual(server.port, 1)
        self.assertIsNone(server.proc.poll())
        server.proc.stdin.close()
        self.assertEqual(server.proc.wait(10), 0)
        server.stop()

    def test_a_server_that_dies_before_it_is_ready_says_why(self):
        s = servers_mod.Servers()
        port, why = s.port(self.spec("--die"))
        self.assertIsNone(port)
        self.assertEqual(why, "server fake-server exited 1 before it was ready: fake-server: "
                              "cannot bind: address already in use (as asked by --die)")
        self.assertEqual(s.port(self.spec("--die")), (None, why))     # not retried
        s.stop_all()

    def test_a_server_that_never_says_its_port_fails_at_its_timeout(self):
        s = servers_mod.Servers()
        port, why = s.port(self.spec("--mute", timeout=0.5))
        self.assertIsNone(port)
        self.assertEqual(why, 'server fake-server printed no {"port": N} line within 0.5 s')
        s.stop_all()

    def test_a_server_that_dies_mid_round_fails_the_rest_of_the_round(self):
        s = servers_mod.Servers()
        spec = self.spec()
        s.port(spec)
        proc = s.running[tuple(spec["argv"])].proc
        os.kill(proc.pid, 9)
        proc.wait()
        self.assertEqual(s.port(spec), (None, "server fake-server died (exit -9)"))
        s.stop_all()


class RunFolderTest(unittest.TestCase):
    def test_a_second_run_in_the_same_second_gets_its_own_folder(self):
        with tempfile.TemporaryDirectory() as out:
            a, _ = rd.make_run_folder(out, "h")
            b, _ = rd.make_run_folder(out, "h")
            self.assertNotEqual(a, b)
            self.assertTrue(os.path.isdir(os.path.join(b, "charts")))

    def test_latest_is_a_relative_link_to_the_newest_run(self):
        with tempfile.TemporaryDirectory() as out:
            a, _ = rd.make_run_folder(out, "h")
            rd.point_latest(out, a)
            b, _ = rd.make_run_folder(out, "h")
            rd.point_latest(out, b)
            link = os.readlink(os.path.join(out, "latest"))
            self.assertFalse(os.path.isabs(link))
            self.assertEqual(os.path.realpath(os.path.join(out, "latest")), os.path.realpath(b))

    @unittest.skipIf(os.geteuid() == 0, "root can write anywhere")
    def test_an_unwritable_results_folder_is_an_environment_error(self):
        with tempfile.TemporaryDirectory() as out:
            os.chmod(out, 0o500)
            try:
                with self.assertRaisesRegex(EnvError, "results folder"):
                    rd.make_run_folder(out, "h")
            finally:
                os.chmod(out, 0o700)

    def test_a_results_path_under_a_file_is_an_environment_error(self):
        with tempfile.NamedTemporaryFile() as f:
            with self.assertRaisesRegex(EnvError, "cannot create the results folder"):
                rd.make_run_folder(f.name, "h")


class EndToEndTest(Fixture):
    """run.main on the fake catalog, read back from the run folder."""

    def run_main(self, profile, catalog=FAKE, *extra):
        # No test here looks at a chart (tests/runner.bats and charts.bats do).
        out = os.path.join(self.dir, "out")
        rc = quiet(run.main, ["--profile", profile, "--catalog", catalog, "--out", out,
                              "--host", "testhost", "--node", "none", "--seed", "7",
                              "--no-charts"] + list(extra))
        folder = os.path.realpath(os.path.join(out, "latest"))
        with open(os.path.join(folder, "samples.csv"), newline="") as f:
            header = f.readline().strip()
            f.seek(0)
            samples = list(csv.DictReader(f))
        with open(os.path.join(folder, "run.json")) as f:
            info = json.load(f)
        with open(os.path.join(folder, "summary.json")) as f:
            summary = json.load(f)
        with open(os.path.join(folder, "REPORT.md")) as f:
            report = f.read()
        self.assertEqual(header, ",".join(sm.SAMPLE_COLUMNS))
        self.assertIn(rc, (0, 1))        # 1 only when matplotlib could not draw
        return folder, samples, info, summary, report

    def test_the_warm_up_and_each_languages_start_up_reach_the_rows_and_the_report(self):
        catalog = make_catalog(self.dir, [workload(
            "readfile", [entry(), entry(style="other", method="nodetest", warmup="0")],
            warmup={"iterations": "min(5, iterations // 2)", "about": "a test's"})])
        with open(os.path.join(catalog, "suite.json")) as f:
            suite = json.load(f)
        suite["methods"] = sorted(set(suite["methods"]) | {"nodetest"})
        suite["styles"] = sorted(set(suite["styles"]) | {"other"})
        suite["startup"] = {"about": "a test's", "programs": {"fake": [sys.executable, "-c", "pass"]}}
        with open(os.path.join(catalog, "suite.json"), "w") as f:
            json.dump(suite, f)
        _, samples, info, summary, report = self.run_main("quick", catalog)
        # N = 7: a warm-up of min(5, 3) in process, none for the whole-process
        # method, whose matrix entry says so
        self.assertEqual(info["commands"][HONEST][-6:-4], ["--warmup", "3"])
        self.assertIn("--warmup", info["commands"]["readfile/fake/other-nodetest-sequential@python"])
        self.assertEqual(info["commands"]["readfile/fake/other-nodetest-sequential@python"][-5], "0")
        self.assertEqual(info["workloads"]["readfile"]["warmup_ops"], 3)
        # one start-up figure per measured round, in every row of its round
        self.assertEqual(len(info["startup_ns"]["fake"]), 3)
        self.assertTrue(all(isinstance(x, int) and x > 0 for x in info["startup_ns"]["fake"]))
        for s in samples:
            self.assertEqual(int(s["startup_ns"]), info["startup_ns"]["fake"][int(s["round"]) - 1])
            self.assertEqual(int(s["outside_ns"]), int(s["wall_ns"]) - int(s["elapsed_ns"]))
        row = next(r for r in summary["variants"] if r["variant"] == HONEST)
        self.assertIsNotNone(row["own_outside_ms"])
        self.assertIn(row["outside_flag"], (True, False))
        self.assertIn("## Time outside the clock", report)
        self.assertIn("--iterations 7 --warmup 3", report)

    def test_run_json_records_the_pinning_and_every_run_its_cpu(self):
        folder, samples, info, _, report = self.run_main("quick", FAKE, "--rounds", "1",
                                                         "--warmup-rounds", "0")
        pin = info["pinning"]
        self.assertEqual(pin["rule"], launch.PIN_RULE)
        self.assertEqual(pin, launch.pin_rule())
        with open(os.path.join(folder, "runs.jsonl")) as f:
            runs = [json.loads(line) for line in f]
        measured = [r for r in runs if "variant" in r]
        self.assertTrue(measured)
        self.assertEqual({r["cpu"] for r in measured}, {pin["program_cpu"]})
        if launch.allowed_cpus() and len(launch.allowed_cpus()) >= 2:
            self.assertIsInstance(pin["program_cpu"], int)
            self.assertEqual(pin["program_cpu"], pin["server_cpu"])
            self.assertIn("- Placement: every measured program ran on CPU %d (pinned by the "
                          "launcher), each workload's server on the same CPU"
                          % pin["program_cpu"], report)

    def test_a_run_keeps_its_catalog_and_re_renders_by_it_not_by_todays(self):
        folder, _, _, summary, _ = self.run_main("quick", FAKE, "--rounds", "3",
                                                 "--warmup-rounds", "0")
        snap = os.path.join(folder, "catalog")
        self.assertEqual(sorted(os.listdir(snap)), sorted(
            n for n in os.listdir(FAKE) if n.endswith(".json")))
        with open(os.path.join(FAKE, "readfile.json")) as a, \
                open(os.path.join(snap, "readfile.json")) as b:
            self.assertEqual(a.read(), b.read())
        self.assertEqual(summary["targets"], [])
        # A bound in the run's catalog (as it was when the run was made)
        # judges the run when it is rendered again; today's has none.
        with open(os.path.join(snap, "readfile.json")) as f:
            work = json.load(f)
        work["targets"] = [{"id": "kept", "what": "the run's own bound",
                            "variant": "readfile/fake/honest-parallel@python",
                            "against": "readfile/fake/honest-sequential@python",
                            "max_ratio": 1000}]
        with open(os.path.join(snap, "readfile.json"), "w") as f:
            json.dump(work, f)
        again, _ = quiet(render.render, folder, None, False)
        self.assertEqual([t["id"] for t in again["targets"]], ["kept"])
        self.assertEqual(catalog_mod.for_run(folder).workloads["readfile"]["targets"][0]["id"],
                         "kept")
        self.assertEqual(catalog_mod.load(FAKE).workloads["readfile"]["targets"], [])

    def test_a_run_catalog_todays_code_cannot_read_gives_way_to_todays_with_a_line(self):
        folder = os.path.join(self.dir, "old")
        os.makedirs(os.path.join(folder, "catalog"))
        with open(os.path.join(folder, "catalog", "suite.json"), "w") as f:
            f.write('{"about": "a schema of long ago"}')
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            cat = catalog_mod.for_run(folder)
            catalog_mod.for_run(folder)
        self.assertIs(cat, catalog_mod.for_run(None))       # today's, loaded once
        self.assertEqual(err.getvalue().count("cannot be read by today's code"), 1)

    def test_rounds_csv_has_each_measured_rounds_noise_and_the_report_says_it(self):
        folder, _, info, _, report = self.run_main("quick", FAKE, "--rounds", "2")
        rows = noise.read_rounds(folder)
        self.assertEqual([r["round"] for r in rows], ["1", "2"])    # the warm-up is not one
        self.assertEqual(list(rows[0]), noise.ROUND_COLUMNS)
        self.assertEqual(info["noise_rule"], noise.RULE)
        self.assertIn("## Noise", report)
        for r in rows:
            self.assertGreater(int(r["wall_ns"]), 0)
            self.assertIn(r["noisy"], ("0", "1"))
            if noise.read_stat() is not None:
                self.assertTrue(0 <= float(r["steal_share"]) <= 1)
                self.assertTrue(0 <= float(r["other_share"]) <= 1)
                self.assertEqual(r["noisy"], str(int(float(r["steal_share"]) > noise.STEAL_MAX
                                                     or float(r["other_share"]) > noise.OTHER_MAX)))

    def test_a_served_workload_reaches_the_server_of_each_round(self):
        _, samples, info, _, _ = self.run_main("served")
        self.assertEqual(len(samples), 4)
        self.assertEqual({s["status"] for s in samples}, {"ok"}, info["failures"])
        self.assertEqual({s["workload"] for s in samples}, {"served"})
        self.assertEqual(info["servers"]["served/fake/honest-sequential@python"],
                         ["tests/fixtures-bin/fake-server", "--text", "Hello, world"])

    def test_a_server_that_dies_or_stays_mute_fails_its_workloads_variants_with_the_reason(self):
        _, samples, info, _, _ = self.run_main("unserved")
        status = {s["variant"]: s["status"] for s in samples}
        self.assertEqual(status, {HONEST: "ok",
                                  "unserved/fake/honest-sequential@python": "failed",
                                  "unready/fake/honest-sequential@python": "failed"})
        reasons = {f["variant"]: f["reason"] for f in info["failures"]}
        self.assertEqual(reasons["unserved/fake/honest-sequential@python"],
                         "server fake-server exited 1 before it was ready: fake-server: cannot "
                         "bind: address already in use (as asked by --die)")
        self.assertEqual(reasons["unready/fake/honest-sequential@python"],
                         'server fake-server printed no {"port": N} line within 1 s')

    def test_skipped_variants_are_in_run_json_and_the_report_with_their_reasons(self):
        _, samples, info, _, report = self.run_main("requires")
        self.assertEqual({s["variant"] for s in samples},
                         {HONEST, "readfile/fake/honest-checked-sequential@python"})
        self.assertEqual([s["variant"] for s in info["skipped"]],
                         ["readfile/fake/honest-probed-sequential@python",
                          "readfile/fake/honest-elsewhere-sequential@python"])
        self.assertIn("## Skipped variants", report)
        self.assertIn("- `readfile/fake/honest-probed-sequential@python`: fake: no such library "
                      "here", report)

    def test_both_baselines_are_recorded_and_their_labels_head_the_tables(self):
        folder, samples, info, summary, report = self.run_main("quick")
        self.assertEqual(len(samples), 9)
        self.assertEqual(info["baselines"][HONEST],
                         {"c": [HONEST, "fake honest"], "lang": [HONEST, "fake honest sequential"]})
        rows = {r["variant"]: r for r in summary["variants"]}
        par = rows["readfile/fake/honest-parallel@python"]
        self.assertEqual((par["baseline"], par["baseline_label"], par["lang_baseline"]),
                         ("readfile/fake/honest-parallel@python", "fake honest", None))
        self.assertEqual(rows[HONEST]["lang_baseline_label"], "fake honest sequential")
        self.assertIn("| vs fake honest (Δ µs/read) | vs fake honest sequential (Δ µs/read) | "
                      "notes |", report)
        self.assertEqual(info["workloads"]["readfile"]["args"],
                         ["--file", "fixtures/text.txt", "--expect", "Hello, world"])

    def test_render_redraws_a_run_without_todays_catalog(self):
        catalog = make_catalog(self.dir, [workload("readfile", [entry(mode=["sequential",
                                                                           "parallel"])])])
        folder, _, _, before, _ = self.run_main("quick", catalog)
        shutil.rmtree(catalog)
        os.remove(os.path.join(folder, "summary.json"))
        self.assertIn(quiet(run.main, ["--render", folder, "--no-charts"]), (0, 1))
        with open(os.path.join(folder, "summary.json")) as f:
            after = json.load(f)
        pick = [(r["variant"], r["baseline"], r["baseline_label"]) for r in before["variants"]]
        self.assertEqual(pick, [(r["variant"], r["baseline"], r["baseline_label"])
                                for r in after["variants"]])
        self.assertEqual(len(pick), 2)

    def test_a_folder_with_samples_csv_alone_takes_its_baselines_from_the_catalog(self):
        folder = os.path.join(self.dir, "host", "stamp")
        os.makedirs(folder)
        cat = catalog_mod.load()
        with rd.SampleLog(folder) as log:
            for vid in ("readfile/c/callback-sequential@node4",
                        "readfile/node/await-sequential@fs.promises"):
                res = launch.Result()
                res.exit_code, res.wall_ns = 0, 2000
                line = {"elapsed_ns": 1000, "ok": 10, "bytes": 120}
                log.sample(measure.sample_row(1, 1, cat.find(vid), 10, "ok", line, res))
        quiet(run.main, ["--render", folder, "--no-charts"])
        with open(os.path.join(folder, "summary.json")) as f:
            rows = {r["variant"]: r for r in json.load(f)["variants"]}
        node = rows["readfile/node/await-sequential@fs.promises"]
        self.assertEqual((node["baseline"], node["baseline_label"], node["ratio"]),
                         ("readfile/c/callback-sequential@node4", "C callback", 1.0))
        self.assertEqual((node["lang_baseline"], node["lang_baseline_label"], node["lang_ratio"]),
                         ("readfile/node/callback-sequential@fs.readFile", "Node callback", None))

    def test_a_workload_with_fewer_rounds_has_samples_in_its_first_rounds_only(self):
        catalog = make_catalog(self.dir, [
            workload("readfile", [entry()]),
            workload("rare", [entry()], profiles={"quick": {"iterations": 2, "timeout_s": 9,
                                                            "rounds": 2}})])
        _, samples, info, _, report = self.run_main("quick", catalog)
        rounds = {}
        for s in samples:
            rounds.setdefault(s["workload"], []).append(int(s["round"]))
        self.assertEqual((sorted(rounds["readfile"]), sorted(rounds["rare"])), ([1, 2, 3], [1, 2]))
        self.assertEqual([len(o) for o in schedule.run_orders(info)[1]], [2, 2, 1])
        self.assertIn("`rare`: `--iterations 2 --warmup 0 --file fixtures/text.txt --expect "
                      "'Hello, world'`, timeout 9 s, in the first 2 rounds only", report)

    def test_a_workloads_passes_give_a_row_a_pass_and_the_median_pairs_by_round(self):
        catalog = make_catalog(self.dir, [workload(
            "readfile", [entry(), entry(style="other"), entry(style="whole", passes="1")],
            passes={"count": "min(3, iterations)", "about": "a test's"})])
        with open(os.path.join(catalog, "suite.json")) as f:
            suite = json.load(f)
        suite["styles"] = sorted(set(suite["styles"]) | {"other", "whole"})
        with open(os.path.join(catalog, "suite.json"), "w") as f:
            json.dump(suite, f)
        folder, samples, info, summary, report = self.run_main("quick", catalog)
        whole = "readfile/fake/whole-sequential@python"
        self.assertEqual(info["commands"][HONEST][-6:-4], ["--passes", "3"])
        self.assertNotIn("--passes", info["commands"][whole])     # its own "1": the default
        self.assertEqual(info["workloads"]["readfile"]["passes_count"], 3)
        rows = {}
        for s in samples:
            self.assertEqual(s["status"], "ok", s)
            rows.setdefault((s["variant"], int(s["round"])), []).append(s)
        for (vid, rnd), rs in rows.items():
            # P rows per process, passes 0 to P - 1, one process's figures
            want = [0] if vid == whole else [0, 1, 2]
            self.assertEqual([int(r["pass"]) for r in rs], want, (vid, rnd))
            self.assertEqual(len({(r["order"], r["wall_ns"], r["user_us"]) for r in rs}), 1)
            self.assertEqual(len({r["elapsed_ns"] for r in rs}), len(rs))
            passes = sum(int(r["elapsed_ns"]) for r in rs)
            self.assertEqual({int(r["outside_ns"]) for r in rs}, {int(rs[0]["wall_ns"]) - passes})
        # each process counts once, by its passes' median: n is rounds, not rows
        by_id = {r["variant"]: r for r in summary["variants"]}
        self.assertEqual((by_id[HONEST]["n"], by_id[HONEST]["rounds_paired"]), (3, 3))
        other = "readfile/fake/other-sequential@python"
        medians = {vid: {rnd: sorted(int(r["elapsed_ns"]) for r in rs)[len(rs) // 2]
                         for (v2, rnd), rs in rows.items() if v2 == vid}
                   for vid in (HONEST, other)}
        ratios = sorted(medians[other][r] / medians[HONEST][r] for r in (1, 2, 3))
        self.assertAlmostEqual(by_id[other]["ratio"], ratios[1], places=9)
        self.assertIn("median of its passes", report)
        # the file reads back with its pass column
        back = sm.read_samples(os.path.join(folder, "samples.csv"))
        self.assertEqual(sorted({s["pass"] for s in back}), [0, 1, 2])

    def test_a_quick_run_without_os_waitid_as_on_macos_before_python_3_13(self):
        # CPython has os.waitid on macOS only from 3.13: without it each run
        # was marked ended as it started and its launcher killed, and every
        # variant failed ("ended (signal 9) without its report").  Without
        # select.kqueue too: the plain wait4 fallback.
        for names in (("waitid",), ("waitid", "kqueue")):
            with self.subTest(hidden=names), hidden(os, "waitid"), hidden(select, *names[1:]):
                _, samples, info, _, _ = self.run_main("quick")
                self.assertEqual(len(samples), 9)
                self.assertEqual({s["status"] for s in samples}, {"ok"}, info["failures"])

    def test_an_unbuilt_launcher_is_exit_3_before_any_folder_is_made(self):
        os.environ["BUILD"] = os.path.join(self.dir, "nobuild")
        rc = quiet(run.main, ["--profile", "quick", "--catalog", FAKE,
                              "--out", os.path.join(self.dir, "out"), "--node", "none"])
        self.assertEqual(rc, 3)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "out")))


if __name__ == "__main__":
    unittest.main()
