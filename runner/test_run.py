"""Unit tests of the runner's modules (cli, plan, launch, servers, measure, rundir)
and of run.py end to end, on catalog folders written into a temporary folder.
They start small real processes (sh, python, the launcher) but never assert on
timing."""
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest
from types import SimpleNamespace

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import catalog as catalog_mod  # noqa: E402
import cli  # noqa: E402
import launch  # noqa: E402
import measure  # noqa: E402
import plan as plan_mod  # noqa: E402
import run  # noqa: E402
import rundir as rd  # noqa: E402
import servers as servers_mod  # noqa: E402
import summary as sm  # noqa: E402
from errors import EnvError, UsageError  # noqa: E402

# A client that keeps the contract of SPEC section 2 for whatever variant its first
# seven arguments name.  Style "fail" exits 1; a --port makes it fetch one byte
# from that port first, so a test sees that it reached the round's server.
CLIENT = r'''
import json, socket, sys
fields = dict(zip(("workload", "lang", "style", "shape", "mode", "method", "backend"),
                  sys.argv[1:8]))
opts = dict(zip(sys.argv[8::2], sys.argv[9::2]))
if fields["style"] == "fail":
    sys.exit("iteration 3: wrong word")
if "--port" in opts:
    with socket.create_connection(("127.0.0.1", int(opts["--port"])), timeout=5) as s:
        if s.recv(1) != b"x":
            sys.exit("the server said nothing")
n = int(opts["--iterations"])
mode = fields["mode"]
label = "%s/%s%s-%s@%s" % (fields["lang"], fields["style"],
                           "-" + fields["shape"] if fields["shape"] else "", mode,
                           fields["backend"])
line = dict(fields, variant=fields["workload"] + "/" + label, iterations=n,
            concurrency={"sequential": 1, "parallel": 0}.get(mode, int(opts.get("--concurrency", 0))),
            ok=n, bytes=n * len(opts.get("--word", "")), elapsed_ns=1000 + n, user_us=1,
            sys_us=1, peak_rss_kb=100, runtime="fake")
print(json.dumps(line))
'''

# A server: prints {"port": N} when it listens (or, with "die", exits 3 first; with
# "mute", never says it is ready), answers every connection with one byte, and
# notes SIGTERM in the file given as its second argument.
SERVER = r'''
import json, signal, socket, sys
how, note = sys.argv[1], sys.argv[2]
if how == "die":
    sys.exit("cannot bind: address in use")
def term(*_):
    open(note, "a").write("TERM\n")
    sys.exit(0)
signal.signal(signal.SIGTERM, term)
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(8)
if how != "mute":
    print(json.dumps({"port": s.getsockname()[1]}), flush=True)
while True:
    c, _ = s.accept()
    c.sendall(b"x")
    c.close()
'''

# Exits 1 with a reason (counting its runs in the file of its argument).
PROBE = r'''
import sys
open(sys.argv[1], "a").write("probe\n")
sys.exit("needs liburing 2.0 (none found)")
'''

SUITE = {"about": "test suite", "modes": ["sequential", "parallel", "bounded"],
         "methods": ["inprocess", "nodetest"], "styles": ["sync", "callback", "fail"],
         "bound": 8,
         "profiles": {"quick": {"about": "q", "rounds": 3, "warmup_rounds": 1},
                      "other": {"about": "o", "rounds": 1, "warmup_rounds": 0}}}


def script(folder, name, text):
    """An executable Python script in folder; its path."""
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        f.write("#!%s\n%s" % (sys.executable, textwrap.dedent(text)))
    os.chmod(path, 0o755)
    return path


def workload(name, variants, **over):
    w = {"workload": name, "about": "a test workload", "unit": "op",
         "flags": {"--word": {"value": "four", "about": "a word"}},
         "checks": {"bytes": "iterations * len(word)"},
         "profiles": {"quick": {"iterations": 7, "timeout_s": 20}},
         "baselines": [
             {"key": "c", "label": "Fake callback", "for": {},
              "baseline": {"lang": "fake", "style": "callback"}},
             {"key": "lang", "label": "Other sync", "for": {"lang": "other"},
              "baseline": {"lang": "other", "style": "sync"}}],
         "variants": variants}
    w.update(over)
    return w


def make_catalog(folder, workloads):
    """A catalog folder with SUITE and the given workload dicts; its path."""
    path = os.path.join(folder, "catalog")
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, "suite.json"), "w") as f:
        json.dump(SUITE, f)
    for w in workloads:
        with open(os.path.join(path, w["workload"] + ".json"), "w") as f:
            json.dump(w, f)
    return path


class Fixture(unittest.TestCase):
    """A temporary folder with the fake client, server and probe, a launcher built
    into BUILD=<tmp>/build, and the environment restored afterwards."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        cls.client = script(cls.tmp, "client", CLIENT)
        cls.server = script(cls.tmp, "server", SERVER)
        cls.probe = script(cls.tmp, "probe", PROBE)
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

    def argv(self):
        return [self.client, "{workload}", "{lang}", "{style}", "{shape}", "{mode}",
                "{method}", "{backend}"]

    def simple_catalog(self, **over):
        """Workload "plain": fake callback and sync in two modes."""
        w = workload("plain", [{"lang": "fake", "style": ["callback", "sync"],
                                "mode": ["sequential", "bounded"], "backend": "b1",
                                "argv": self.argv(), "profiles": ["quick"], "about": "x"}],
                     **over)
        return catalog_mod.load(make_catalog(self.dir, [w]))

    def options(self, *extra):
        return cli.parse_args(["--profile", "quick", "--out", os.path.join(self.dir, "out")]
                              + list(extra))


def result(stdout=b"", stderr=b"", exit_code=0, sig=None, timed_out=False):
    r = launch.Result()
    r.stdout, r.stderr, r.exit_code, r.signal, r.timed_out = stdout, stderr, exit_code, sig, timed_out
    return r


class ClassifyTest(Fixture):
    def setUp(self):
        super().setUp()
        self.cat = self.simple_catalog()
        self.v = self.cat.find("plain/fake/callback-sequential@b1")

    def line(self, **over):
        rec = {"workload": "plain", "lang": "fake", "style": "callback", "shape": "",
               "mode": "sequential", "method": "inprocess", "backend": "b1",
               "variant": "plain/fake/callback-sequential@b1", "iterations": 10,
               "concurrency": 1, "ok": 10, "bytes": 40, "elapsed_ns": 5000, "user_us": 1,
               "sys_us": 1, "peak_rss_kb": 1500, "runtime": "fake 1"}
        rec.update(over)
        return (json.dumps(rec) + "\n").encode()

    def status(self, res, n=10):
        return measure.classify(self.v, n, res, self.cat.flag_values("plain"))

    def test_a_contract_line_with_every_completion_is_ok(self):
        st, rec, why = self.status(result(self.line()))
        self.assertEqual((st, why), ("ok", None))
        self.assertEqual(rec["elapsed_ns"], 5000)

    def test_fewer_completions_than_iterations_is_invalid(self):
        st, rec, why = self.status(result(self.line(ok=5, bytes=20)))
        self.assertEqual(st, "invalid")
        self.assertIn("ok is 5, expected 10", why)
        self.assertEqual(rec["ok"], 5)

    def test_the_workloads_own_check_uses_its_flag_values(self):
        st, _, why = self.status(result(self.line(bytes=120)))
        self.assertEqual(st, "invalid")
        self.assertIn("bytes is 120, expected 40", why)

    def test_a_second_stdout_line_is_invalid(self):
        st, _, why = self.status(result(self.line() + b"done\n"))
        self.assertEqual(st, "invalid")
        self.assertIn("exactly one line", why)

    def test_a_line_of_another_backend_is_invalid(self):
        st, _, why = self.status(result(self.line(backend="b2")))
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

    def test_a_sample_row_has_the_spec_columns_with_the_new_ones_last(self):
        st, rec, _ = self.status(result(self.line()))
        row = measure.sample_row(2, 5, self.v, 10, st, rec, result())
        self.assertEqual(list(row), sm.SAMPLE_COLUMNS)
        self.assertEqual(sm.SAMPLE_COLUMNS[-3:], ["shape", "method", "label"])
        self.assertEqual((row["variant"], row["label"], row["shape"], row["method"]),
                         ("plain/fake/callback-sequential@b1", "fake/callback-sequential@b1",
                          "", "inprocess"))


class LaunchTest(Fixture):
    def test_output_exit_code_and_rusage_are_captured(self):
        res = launch.run_once(["sh", "-c", "echo out; echo err >&2; exit 3"], 10, self.launcher)
        self.assertEqual((res.stdout, res.stderr, res.exit_code), (b"out\n", b"err\n", 3))
        self.assertIsNone(res.signal)
        self.assertGreater(res.wall_ns, 0)
        self.assertGreater(res.peak_rss_kb, 0)

    def test_a_hanging_program_and_its_children_are_killed_at_the_timeout(self):
        res = launch.run_once(["sh", "-c", "sleep 30 & sleep 30; wait"], 0.3, self.launcher)
        self.assertTrue(res.timed_out)
        self.assertEqual(res.signal, 9)
        self.assertLess(res.wall_ns, 20 * 10 ** 9)   # not the 30 s of the sleeps

    def test_a_program_killed_by_a_signal_reports_it(self):
        res = launch.run_once(["sh", "-c", "kill -SEGV $$"], 10, self.launcher)
        self.assertEqual((res.signal, res.exit_code, res.timed_out), (11, -11, False))

    def test_a_missing_program_exits_127_with_the_reason(self):
        res = launch.run_once(["/nonexistent/prog"], 10, self.launcher)
        self.assertEqual(res.exit_code, 127)
        self.assertIn(b"cannot run /nonexistent/prog", res.stderr)

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
            with self.assertRaisesRegex(UsageError, "--timeout must be a positive number"):
                cli.parse_args(["--profile", "quick", "--timeout=" + bad])
        self.assertEqual(cli.parse_args(["--profile", "quick", "--timeout", "2.5"]).timeout, 2.5)

    def test_the_catalog_is_the_folder_by_default(self):
        self.assertEqual(cli.parse_args(["--profile", "quick"]).catalog, catalog_mod.DIR)


class PlanTest(Fixture):
    def test_profile_and_filters_choose_variants(self):
        cat = self.simple_catalog()
        p = plan_mod.make(cat, self.options("--filter", "sync", "--filter", "callback-seq"), None)
        self.assertEqual([v["id"] for v in p.variants],
                         ["plain/fake/callback-sequential@b1", "plain/fake/sync-sequential@b1",
                          "plain/fake/sync-bounded@b1"])
        self.assertEqual((p.rounds, p.warmups, p.skipped), (3, 1, []))

    def test_unknown_profile_and_empty_selection_are_usage_errors(self):
        cat = self.simple_catalog()
        with self.assertRaisesRegex(UsageError, "unknown profile 'nope'"):
            plan_mod.make(cat, cli.parse_args(["--profile", "nope"]), None)
        with self.assertRaisesRegex(UsageError, "no variant"):
            plan_mod.make(cat, self.options("--filter", "^zzz"), None)

    def test_the_command_gets_the_workloads_flags_and_bounded_its_k(self):
        p = plan_mod.make(self.simple_catalog(), self.options(), None)
        argv = p.commands["plain/fake/callback-bounded@b1"]
        self.assertEqual(argv[0], self.client)
        self.assertEqual(argv[8:], ["--iterations", "7", "--warmup", "0", "--word", "four",
                                    "--concurrency", "8"])
        self.assertNotIn("--concurrency", p.commands["plain/fake/callback-sequential@b1"])

    def test_n_and_timeout_are_the_workloads_and_the_options_override_them(self):
        cat = self.simple_catalog()
        p = plan_mod.make(cat, self.options(), None)
        self.assertEqual({k: p.settings["plain"][k] for k in ("iterations", "timeout_s", "rounds")},
                         {"iterations": 7, "timeout_s": 20, "rounds": 3})
        p = plan_mod.make(cat, self.options("--iterations", "3", "--timeout", "2", "--rounds", "2"),
                          None)
        self.assertEqual({k: p.settings["plain"][k] for k in ("iterations", "timeout_s", "rounds")},
                         {"iterations": 3, "timeout_s": 2, "rounds": 2})

    def test_unmet_requirements_skip_with_one_reason_each_and_a_probe_runs_once(self):
        count = os.path.join(self.dir, "probe-runs")
        other_os = "darwin" if catalog_mod.host_os() != "darwin" else "linux"
        entry = {"lang": "fake", "style": "callback", "backend": "b1", "argv": self.argv(),
                 "profiles": ["quick"], "about": "x"}
        w = workload("plain", [
            dict(entry, mode="sequential"),
            dict(entry, mode="parallel", requires={"os": [other_os]}),
            dict(entry, mode="bounded", backend=["ring1", "ring2"],
                 requires={"probe": [self.probe, count]}),
            dict(entry, style="sync", mode="sequential", argv=["{node}", "x.js"])])
        cat = catalog_mod.load(make_catalog(self.dir, [w]))
        p = plan_mod.make(cat, self.options(), None)
        self.assertEqual([v["id"] for v in p.variants], ["plain/fake/callback-sequential@b1"])
        self.assertEqual(p.skipped, [
            {"variant": "plain/fake/callback-parallel@b1",
             "reason": "runs on %s only, this is %s" % (other_os, catalog_mod.host_os())},
            {"variant": "plain/fake/callback-bounded@ring1",
             "reason": "needs liburing 2.0 (none found)"},
            {"variant": "plain/fake/callback-bounded@ring2",
             "reason": "needs liburing 2.0 (none found)"},
            {"variant": "plain/fake/sync-sequential@b1",
             "reason": "needs node, and none was found (install Node.js, set NODE or say "
                       "--node PATH)"}])
        with open(count) as f:
            self.assertEqual(f.read(), "probe\n")

    def test_nothing_left_after_the_skips_is_a_usage_error_naming_them(self):
        w = workload("plain", [{"lang": "fake", "style": "sync", "mode": "sequential",
                                "backend": "b1", "argv": ["{node}", "x.js"],
                                "profiles": ["quick"], "about": "x"}])
        cat = catalog_mod.load(make_catalog(self.dir, [w]))
        with self.assertRaisesRegex(UsageError, "nothing left to run: skipped "
                                                "plain/fake/sync-sequential@b1 \\(needs node"):
            plan_mod.make(cat, self.options(), None)

    def test_a_program_not_built_and_a_missing_input_are_environment_errors(self):
        w = workload("plain", [{"lang": "fake", "style": "sync", "mode": "sequential",
                                "backend": "b1", "argv": ["{bin}/fake-missing"],
                                "profiles": ["quick"], "about": "x"}])
        cat = catalog_mod.load(make_catalog(self.dir, [w]))
        with self.assertRaisesRegex(EnvError, "not built or not executable: .*fake-missing"):
            plan_mod.make(cat, self.options(), None)
        w["flags"]["--input"] = {"value": "fixtures/no-such-file", "path": True, "about": "x"}
        w["variants"][0]["argv"] = self.argv()
        cat = catalog_mod.load(make_catalog(self.dir, [w]))
        with self.assertRaisesRegex(EnvError, "--input fixtures/no-such-file of workload plain "
                                              "is missing"):
            plan_mod.make(cat, self.options(), None)

    def test_a_broken_catalog_is_an_environment_error_with_its_one_line(self):
        with self.assertRaisesRegex(EnvError, "not a catalog folder"):
            plan_mod.load_catalog(os.path.join(self.dir, "nowhere"))

    def test_a_workload_with_fewer_rounds_runs_in_the_first_rounds_only(self):
        entry = {"lang": "fake", "style": "callback", "mode": "sequential", "backend": "b1",
                 "argv": self.argv(), "profiles": ["quick"], "about": "x"}
        cat = catalog_mod.load(make_catalog(self.dir, [
            workload("plain", [entry]),
            workload("rare", [entry], profiles={"quick": {"iterations": 2, "timeout_s": 9,
                                                          "rounds": 1}})]))
        p = plan_mod.make(cat, self.options(), None)
        orders = measure.orders(p, 42)
        self.assertEqual([sorted(o) for o in orders], [
            ["plain/fake/callback-sequential@b1", "rare/fake/callback-sequential@b1"],  # warm-up
            ["plain/fake/callback-sequential@b1", "rare/fake/callback-sequential@b1"],
            ["plain/fake/callback-sequential@b1"], ["plain/fake/callback-sequential@b1"]])
        self.assertEqual(orders, measure.orders(p, 42))


class ServersTest(Fixture):
    def spec(self, how, timeout=5):
        self.note = os.path.join(self.dir, "note")
        return {"argv": [self.server, how, self.note], "port_flag": "--port",
                "ready_timeout_s": timeout}

    def test_a_ready_server_gives_its_port_once_per_round_and_gets_sigterm(self):
        s = servers_mod.Servers()
        spec = self.spec("serve")
        port, why = s.port(spec)
        self.assertIsNone(why)
        self.assertEqual(s.port(spec), (port, None))        # the same server
        self.assertEqual(len(s.running), 1)
        s.stop_all()
        with open(self.note) as f:
            self.assertEqual(f.read(), "TERM\n")

    def test_a_server_that_dies_before_it_is_ready_says_why(self):
        s = servers_mod.Servers()
        port, why = s.port(self.spec("die"))
        self.assertIsNone(port)
        self.assertRegex(why, r"^server server exited 1 before it was ready: cannot bind")
        self.assertEqual(s.port(self.spec("die")), (None, why))     # not retried
        s.stop_all()

    def test_a_server_that_never_says_its_port_fails_at_its_timeout(self):
        s = servers_mod.Servers()
        port, why = s.port(self.spec("mute", timeout=0.5))
        self.assertIsNone(port)
        self.assertIn('printed no {"port": N} line within 0.5 s', why)
        s.stop_all()

    def test_a_server_that_dies_mid_round_fails_the_rest_of_the_round(self):
        s = servers_mod.Servers()
        spec = self.spec("serve")
        s.port(spec)
        server = s.running[tuple(spec["argv"])]
        os.kill(server.proc.pid, 9)
        server.proc.wait()
        port, why = s.port(spec)
        self.assertIsNone(port)
        self.assertEqual(why, "server server died (exit -9)")
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
    """run.main on a catalog of two workloads: "plain", and "served", whose server
    is started per round; one variant of each fails, one needs node (skipped)."""

    def catalog(self, how):
        self.note = os.path.join(self.dir, "note")
        entry = {"backend": "b1", "argv": self.argv(), "profiles": ["quick"], "about": "x"}
        plain = workload("plain", [
            dict(entry, lang="fake", style=["callback", "sync"], mode="sequential"),
            dict(entry, lang="other", style=["callback", "sync", "fail"], mode="sequential"),
            dict(entry, lang="other", style="sync", mode="parallel", argv=["{node}", "x.js"])])
        served = workload("served", [dict(entry, lang="fake", style=["callback", "sync"],
                                          mode="sequential")],
                          requires={"server": {"argv": [self.server, how, self.note],
                                               "port_flag": "--port", "ready_timeout_s": 5}},
                          profiles={"quick": {"iterations": 3, "timeout_s": 20, "rounds": 2}})
        return make_catalog(self.dir, [plain, served])

    def run_main(self, how):
        out = os.path.join(self.dir, "out")
        argv = ["--profile", "quick", "--catalog", self.catalog(how), "--out", out,
                "--host", "testhost", "--node", "none", "--seed", "7"]
        saved = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = open(os.devnull, "w")
        try:
            rc = run.main(argv)
        finally:
            sys.stdout.close()
            sys.stdout, sys.stderr = saved
        folder = os.path.realpath(os.path.join(out, "latest"))
        with open(os.path.join(folder, "samples.csv"), newline="") as f:
            samples = list(csv.DictReader(f))
        with open(os.path.join(folder, "run.json")) as f:
            info = json.load(f)
        with open(os.path.join(folder, "summary.json")) as f:
            summary = json.load(f)
        return rc, folder, samples, info, summary

    def test_a_run_measures_both_workloads_and_records_what_it_skipped_and_why(self):
        rc, folder, samples, info, summary = self.run_main("serve")
        self.assertIn(rc, (0, 1))        # 1 only when matplotlib could not draw
        with open(os.path.join(folder, "samples.csv")) as f:
            self.assertEqual(f.readline().strip(), ",".join(sm.SAMPLE_COLUMNS))
        by = {}
        for s in samples:
            by.setdefault(s["variant"], []).append(s)
        # served lists 2 rounds of the profile's 3: its variants run in rounds 1 and 2.
        self.assertEqual(sorted(s["round"] for s in by["served/fake/callback-sequential@b1"]),
                         ["1", "2"])
        self.assertEqual(len(by["plain/fake/sync-sequential@b1"]), 3)
        self.assertEqual({s["status"] for s in samples
                          if not s["variant"].endswith("fail-sequential@b1")}, {"ok"})
        self.assertEqual({s["status"] for s in by["plain/other/fail-sequential@b1"]}, {"failed"})
        self.assertEqual(by["plain/fake/sync-sequential@b1"][0]["label"],
                         "fake/sync-sequential@b1")
        self.assertEqual(info["skipped"], [{"variant": "plain/other/sync-parallel@b1",
                                            "reason": "needs node, and none was found "
                                                      "(install Node.js, set NODE or say "
                                                      "--node PATH)"}])
        self.assertEqual(info["baselines"]["plain/other/sync-sequential@b1"],
                         {"c": ["plain/fake/callback-sequential@b1", "Fake callback"],
                          "lang": ["plain/other/sync-sequential@b1", "Other sync"]})
        self.assertEqual(info["workloads"]["served"]["rounds"], 2)
        with open(self.note) as f:           # one server per round (warm-up included)
            self.assertEqual(f.read(), "TERM\n" * 3)
        rows = {r["variant"]: r for r in summary["variants"]}
        other = rows["plain/other/callback-sequential@b1"]
        self.assertEqual((other["baseline_label"], other["lang_baseline_label"]),
                         ("Fake callback", "Other sync"))
        self.assertIsNotNone(other["ratio"])
        self.assertIsNotNone(other["lang_ratio"])
        with open(os.path.join(folder, "REPORT.md")) as f:
            report = f.read()
        self.assertIn("## Skipped variants", report)
        self.assertIn("- `plain/other/sync-parallel@b1`: needs node", report)
        self.assertIn("vs Fake callback", report)
        self.assertIn("vs Other sync", report)

    def test_a_server_that_dies_fails_the_rounds_variants_with_the_reason(self):
        rc, folder, samples, info, _ = self.run_main("die")
        self.assertIn(rc, (0, 1))
        served = [s for s in samples if s["workload"] == "served"]
        self.assertEqual(len(served), 4)
        self.assertEqual({s["status"] for s in served}, {"failed"})
        reasons = {f["reason"] for f in info["failures"] if f["variant"].startswith("served/")}
        self.assertEqual(len(reasons), 1)
        self.assertRegex(reasons.pop(), "^server server exited 1 before it was ready: "
                                        "cannot bind: address in use$")
        self.assertEqual({s["status"] for s in samples if s["workload"] == "plain"
                          and "fail" not in s["variant"]}, {"ok"})

    def test_render_redraws_a_run_without_todays_catalog(self):
        _, folder, _, _, before = self.run_main("serve")
        shutil.rmtree(os.path.join(self.dir, "catalog"))
        os.remove(os.path.join(folder, "summary.json"))
        saved = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = open(os.devnull, "w")
        try:
            rc = run.main(["--render", folder])
        finally:
            sys.stdout.close()
            sys.stdout, sys.stderr = saved
        self.assertIn(rc, (0, 1))
        with open(os.path.join(folder, "summary.json")) as f:
            after = json.load(f)
        self.assertEqual([(r["variant"], r["baseline"], r["lang_baseline"]) for r in after["variants"]],
                         [(r["variant"], r["baseline"], r["lang_baseline"]) for r in before["variants"]])

    def test_the_same_options_as_before_with_an_unbuilt_launcher_exit_3(self):
        os.environ["BUILD"] = os.path.join(self.dir, "nobuild")
        saved = sys.stderr
        sys.stderr = open(os.devnull, "w")
        try:
            rc = run.main(["--profile", "quick", "--catalog", self.catalog("serve"),
                           "--out", os.path.join(self.dir, "out"), "--node", "none"])
        finally:
            sys.stderr.close()
            sys.stderr = saved
        self.assertEqual(rc, 3)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "out")))


if __name__ == "__main__":
    unittest.main()
