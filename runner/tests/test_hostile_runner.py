"""Unit tests of the runner against hostile input (numeric options out of range,
reserved host slugs, absurd timings, a broken launcher, odd UV_THREADPOOL_SIZE
values, results/latest in the way or raced).  Run by `make test-runner`."""
import contextlib
import io
import json
import os
import shutil
import signal
import stat
import subprocess
import tempfile
import threading
import types
import unittest

from .. import cli
from ..measure import host as host_mod
from ..measure import launch
from ..measure import outcome
from ..measure import measure
from ..measure import plan as plan_mod
from ..report import report
from .. import run
from ..analysis import rundir as rd
from ..measure import servers as servers_mod
from ..analysis import summary as sm
from ..core.errors import EnvError, UsageError
from .testfixtures import FAKE, FAKE_SERVER, HONEST, Fixture, result


def usage(*argv):
    """The UsageError message of parse_args(argv), or None."""
    try:
        cli.parse_args(list(argv))
    except UsageError as e:
        return str(e)
    return None


class BoundsTest(unittest.TestCase):
    def test_every_numeric_option_is_bounded(self):
        cases = {("--timeout", "1e10"): "--timeout must be between 0.1 and 86400 seconds",
                 ("--timeout", "1e-9"): "--timeout must be between 0.1 and 86400 seconds",
                 ("--rounds", "1000000000"): "--rounds must be between 1 and 10000",
                 ("--warmup-rounds", "10001"): "--warmup-rounds must be between 0 and 10000",
                 ("--iterations", "1000000001"): "--iterations must be between 1 and 1000000000",
                 ("--seed", "-1"): "--seed must be between 0 and"}
        for argv, msg in cases.items():
            got = usage("--profile", "quick", *argv)
            self.assertIsNotNone(got, argv)
            self.assertTrue(got.startswith(msg), (argv, got))
        for argv in (("--timeout", "0.1"), ("--timeout", "86400"), ("--rounds", "10000"),
                     ("--warmup-rounds", "0"), ("--seed", "0")):
            self.assertIsNone(usage("--profile", "quick", *argv), argv)

    def test_the_help_states_the_bounds(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out), self.assertRaises(SystemExit):
            cli.parse_args(["--help"])
        text = " ".join(out.getvalue().split())
        self.assertIn("--rounds and --warmup-rounds at most 10000", text)
        self.assertIn("--timeout 0.1 s to 86400 s (24 h)", text)
        self.assertIn("(latest, hosts, reference)", text)

    def test_an_empty_filter_is_refused(self):
        self.assertEqual(usage("--profile", "quick", "--filter", "^c/", "--filter", ""),
                         "--filter '' is empty and would match every variant; "
                         "leave --filter out to run them all")

    def test_reserved_and_malformed_host_slugs_are_refused(self):
        for slug in ("latest", "hosts", "reference", "LATEST", "Hosts"):
            self.assertEqual(usage("--profile", "quick", "--host", slug),
                             "--host %r: the runner uses that name in the results folder; "
                             "choose another host slug" % slug)
        for slug in (".latest", "a/b", "-x", "x" * 101):
            self.assertIn("use letters, digits", usage("--profile", "quick", "--host=" + slug))
        self.assertEqual(usage("--profile", "quick", "--host="),
                         "--host '' is empty: give a value, or leave --host out")
        self.assertIsNone(usage("--profile", "quick", "--host", "latest-box"))


class CatalogTimeoutTest(Fixture):
    def test_a_catalog_timeout_out_of_bounds_is_a_catalog_error(self):
        cat_dir = os.path.join(self.dir, "catalog")
        shutil.copytree(FAKE, cat_dir)
        path = os.path.join(cat_dir, "readfile.json")
        with open(path) as f:
            w = json.load(f)
        w["profiles"]["quick"]["timeout_s"] = 1e-9
        with open(path, "w") as f:
            json.dump(w, f)
        with self.assertRaisesRegex(EnvError, r"readfile.json: profile 'quick': "
                                              r"timeout_s must be a number of seconds from 0.1 to 86400"):
            plan_mod.load_catalog(cat_dir)

    def test_catalog_rounds_and_iterations_out_of_bounds_are_catalog_errors(self):
        cat_dir = os.path.join(self.dir, "catalog")
        shutil.copytree(FAKE, cat_dir)
        for name, edit, msg in (
                ("suite.json", lambda d: d["profiles"]["quick"].update(rounds=10 ** 9),
                 r"suite.json: profile 'quick': rounds must be an integer from 1 to 10000, "
                 r"got 1000000000$"),
                ("readfile.json", lambda d: d["profiles"]["quick"].update(iterations=10 ** 12),
                 r"readfile.json: profile 'quick': iterations must be an integer from 1 to "
                 r"1000000000, got 1000000000000$")):
            path = os.path.join(cat_dir, name)
            with open(path) as f:
                saved = f.read()
            d = json.loads(saved)
            edit(d)
            with open(path, "w") as f:
                json.dump(d, f)
            try:
                with self.assertRaisesRegex(EnvError, msg):
                    plan_mod.load_catalog(cat_dir)
            finally:
                with open(path, "w") as f:
                    f.write(saved)


class ThreadpoolTest(unittest.TestCase):
    def test_the_size_is_the_one_libuv_uses(self):
        cases = {None: 4, "abc": 1, "": 1, "0": 1, "-3": 1024, "5000": 1024, "8": 8,
                 " 12x": 12, "1024": 1024, "1025": 1024, "+2": 2,
                 # beyond a long: strtol stops at LONG_MAX / LONG_MIN, atoi keeps 32 bits
                 "18446744073709551617": 1024, "9223372036854775808": 1024,
                 "-18446744073709551617": 1, "4294967297": 1, "4294967298": 2}
        for raw, used in cases.items():
            self.assertEqual(host_mod.threadpool_size(raw), used, raw)

    def test_host_json_records_the_size_used_and_the_raw_value(self):
        saved = os.environ.get("UV_THREADPOOL_SIZE")
        try:
            os.environ["UV_THREADPOOL_SIZE"] = "abc"
            info = host_mod.info("h")
        finally:
            if saved is None:
                os.environ.pop("UV_THREADPOOL_SIZE")
            else:
                os.environ["UV_THREADPOOL_SIZE"] = saved
        self.assertEqual((info["uv_threadpool_size"], info["uv_threadpool_size_env"]), (1, "abc"))
        self.assertIn("| UV_THREADPOOL_SIZE | 1 (UV_THREADPOOL_SIZE='abc') |",
                      report.host_section(info))


class OpenFilesTest(unittest.TestCase):
    def test_host_json_and_the_report_have_the_open_file_limits(self):
        import resource
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        info = host_mod.info("h")
        inf = resource.RLIM_INFINITY
        self.assertEqual(info["nofile_soft"], None if soft == inf else soft)
        self.assertEqual(info["nofile_hard"], None if hard == inf else hard)
        lines = report.host_section({"nofile_soft": 1024, "nofile_hard": None})
        self.assertIn("| open files (soft / hard limit) | 1024 / unlimited |", lines)


class AbsurdTimingTest(Fixture):
    def line(self, elapsed):
        # JSON has big integers: 10^400 parses as an int, not as a float.
        rec = {"workload": "readfile", "lang": "fake", "style": "honest", "shape": "",
               "mode": "sequential", "method": "inprocess", "backend": "python",
               "variant": HONEST, "iterations": 5, "concurrency": 1, "ok": 5, "bytes": 60,
               "elapsed_ns": elapsed, "user_us": 1, "sys_us": 1, "peak_rss_kb": 1500, "idle_rss_kb": 1000,
               "runtime": "python 3"}
        return (json.dumps(rec) + "\n").encode()

    def classify(self, elapsed, wall_ns):
        v = self.cat.find(HONEST)
        res = result(stdout=self.line(elapsed))
        res.wall_ns = wall_ns
        return outcome.classify(v, 5, res, self.cat.flag_values("readfile"))

    def test_an_elapsed_time_beyond_the_process_wall_time_is_invalid(self):
        status, _, why = self.classify(10 ** 12, 50 * 10 ** 6)
        self.assertEqual(status, "invalid")
        self.assertEqual(why, "elapsed_ns 1000000000000 is longer than the process's "
                              "own wall time 50000000 ns (measured by the runner)")
        status, _, why = self.classify(10 ** 20, 50 * 10 ** 6)
        self.assertEqual(status, "invalid")
        self.assertEqual(why, "elapsed_ns 10000000...(21 digits) is beyond any clock "
                              "(more than 2^63 - 1)")
        status, _, why = self.classify(10 ** 400, 50 * 10 ** 6)
        self.assertEqual(status, "invalid")
        self.assertEqual(why, "elapsed_ns 10000000...(401 digits) is beyond any clock "
                              "(more than 2^63 - 1)")
        self.assertEqual(self.classify(40 * 10 ** 6, 50 * 10 ** 6)[0], "ok")

    def write_samples(self, elapsed):
        path = os.path.join(self.dir, "samples.csv")
        base = dict.fromkeys(sm.SAMPLE_COLUMNS, "")
        base.update(variant=HONEST, workload="readfile", lang="fake", style="honest",
                    mode="sequential", backend="python", iterations=5, concurrency=1,
                    status="ok", exit_code=0, wall_ns=50 * 10 ** 6, order=1, ok=5,
                    bytes=5 * len("Hello, world"))
        import csv
        with open(path, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=sm.SAMPLE_COLUMNS, lineterminator="\n")
            w.writeheader()
            w.writerows([dict(base, round=r + 1, elapsed_ns=e) for r, e in enumerate(elapsed)])
        return path

    def test_an_ok_row_longer_than_its_wall_time_already_on_disk_is_not_counted(self):
        samples = sm.read_samples(self.write_samples([10 ** 15, 10 ** 6]))
        self.assertEqual([s["status"] for s in samples], ["invalid", "ok"])
        (row,) = sm.summarize(samples, {})
        self.assertEqual((row["n"], row["median_ms"]), (1, 1.0))
        self.assertIn("1 of 2 runs not ok (1 invalid)", row["warnings"])

    def test_an_elapsed_time_beyond_64_bits_on_disk_is_a_corrupted_file_not_a_crash(self):
        # The runner never writes one (it leaves the cell empty for such a run).
        for huge in (10 ** 400, 10 ** 20):
            with self.assertRaisesRegex(ValueError, r"samples.csv:2: elapsed_ns has \d+ digits, "
                                                    r"beyond a 64-bit integer"):
                sm.read_samples(self.write_samples([huge, 10 ** 6]))

    def test_the_runner_leaves_an_elapsed_time_beyond_64_bits_out_of_its_row(self):
        row = outcome.sample_row(1, 1, {"id": HONEST, "workload": "readfile", "lang": "fake",
                                        "style": "honest", "mode": "sequential",
                                        "backend": "python", "concurrency": 1, "shape": "",
                                        "method": "inprocess", "label": "x"},
                                 5, "invalid", {"elapsed_ns": 10 ** 400, "ok": 5}, launch.Result())
        self.assertIsNone(row["elapsed_ns"])


class HarnessFailureTest(Fixture):
    """A launcher that cannot run, or dies, is the runner's environment error
    (exit 3, one line), never a failed sample of the program measured."""

    def fake_launcher(self, text, mode=0o755):
        path = os.path.join(self.dir, "launch")
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, mode)
        return path

    def test_a_launcher_that_cannot_be_executed(self):
        bad = self.fake_launcher("#!/nonexistent/interpreter\n")
        with self.assertRaisesRegex(EnvError, r"^cannot start the launcher .*launch: "
                                              r"No such file or directory \(run `make all`\)$"):
            launch.run_once(["true"], 10, bad)
        bad = self.fake_launcher("", mode=0o644)
        with self.assertRaisesRegex(EnvError, "Permission denied"):
            launch.run_once(["true"], 10, bad)

    def test_a_launcher_that_ends_without_its_report(self):
        bad = self.fake_launcher("#!/bin/sh\necho 'Text file busy' >&2\nexit 126\n")
        with self.assertRaisesRegex(EnvError, r"^launcher .*launch ended \(exit 126\) without "
                                              r"its report: Text file busy$"):
            launch.run_once(["true"], 10, bad)

    def test_a_run_whose_launcher_fails_exits_3_and_charges_no_program(self):
        build = os.path.join(self.dir, "build")
        os.makedirs(os.path.join(build, "bin"))
        path = os.path.join(build, "bin", "launch")
        with open(path, "w") as f:
            f.write("#!/bin/sh\nexit 1\n")
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
        os.environ["BUILD"] = build
        out = os.path.join(self.dir, "out")
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            rc = run.main(["--profile", "quick", "--catalog", FAKE, "--out", out, "--host", "h",
                           "--node", "none", "--rounds", "1", "--warmup-rounds", "0"])
        self.assertEqual(rc, 3)
        last = err.getvalue().strip().splitlines()[-1]
        self.assertRegex(last, r"^run\.py: launcher .*launch ended \(exit 1\) without its report$")
        self.assertFalse(os.path.lexists(os.path.join(out, "latest")))
        (folder,) = os.listdir(os.path.join(out, "h"))
        with open(os.path.join(out, "h", folder, "samples.csv")) as f:
            self.assertEqual(len(f.read().splitlines()), 1)       # the header only
        with open(os.path.join(out, "h", folder, "run.json")) as f:
            info = json.load(f)
        self.assertEqual(info["failures"], [])
        self.assertIn("without its report", info["error"])


class LatestTest(unittest.TestCase):
    def test_a_file_named_latest_is_refused_before_the_run_and_left_alone(self):
        with tempfile.TemporaryDirectory() as out:
            path = os.path.join(out, "latest")
            with open(path, "w") as f:
                f.write("mine\n")
            with self.assertRaisesRegex(EnvError, r"latest is a file, not the link the runner "
                                                  r"keeps at the newest run: move it away"):
                rd.check_latest(out)
            run_dir, _ = rd.make_run_folder(out, "h")
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                rd.point_latest(out, run_dir)
            self.assertIn("latest is not a link; left it alone", err.getvalue())
            with open(path) as f:
                self.assertEqual(f.read(), "mine\n")
            rd.check_latest(os.path.join(out, "h"))     # no latest at all: fine

    def test_latest_stays_at_the_newest_stamp_whoever_finishes_last(self):
        with tempfile.TemporaryDirectory() as out:
            for name in ("20260101T000000Z", "20260101T000001Z", "20260101T000001Z-2"):
                os.makedirs(os.path.join(out, "h", name))
            newest = os.path.join(out, "h", "20260101T000001Z-2")
            rd.point_latest(out, newest)
            rd.point_latest(out, os.path.join(out, "h", "20260101T000001Z"))
            rd.point_latest(out, os.path.join(out, "h", "20260101T000000Z"))
            self.assertEqual(os.readlink(os.path.join(out, "latest")),
                             os.path.join("h", "20260101T000001Z-2"))
            # A link to a run that is gone does not hold latest back.
            shutil.rmtree(newest)
            rd.point_latest(out, os.path.join(out, "h", "20260101T000000Z"))
            self.assertEqual(os.readlink(os.path.join(out, "latest")),
                             os.path.join("h", "20260101T000000Z"))

    def test_stamps_order_by_time_then_by_their_same_second_number(self):
        keys = [rd.stamp_key(n) for n in ("20260101T000001Z-10", "20260101T000001Z-2",
                                          "20260101T000001Z", "20251231T235959Z")]
        self.assertEqual(sorted(keys, reverse=True), keys)
        self.assertIsNone(rd.stamp_key("latest"))


class InterruptedServerTest(unittest.TestCase):
    def test_ctrl_c_while_a_server_gets_ready_stops_it(self):
        """Ctrl-C (or SIGTERM, which the runner turns into KeyboardInterrupt)
        while the runner waits for a server's {"port": N} line: the server,
        which nobody holds yet, is stopped, not left to outlive the runner (a
        server that does not watch its stdin, as fake-server --mute, did)."""
        started = []
        real_popen, real_select = servers_mod.subprocess.Popen, servers_mod.select.select

        def popen(*a, **k):
            started.append(real_popen(*a, **k))
            return started[-1]

        def select(*a):
            raise KeyboardInterrupt

        servers_mod.subprocess.Popen, servers_mod.select.select = popen, select
        try:
            with self.assertRaises(KeyboardInterrupt):
                servers_mod.Servers().port({"argv": [FAKE_SERVER, "--mute"], "port_flag": "--port",
                                            "ready_timeout_s": 5})
        finally:
            servers_mod.subprocess.Popen, servers_mod.select.select = real_popen, real_select
            for proc in started:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
                    self.fail("the server was left running")
        self.assertEqual(len(started), 1)
        self.assertIsNotNone(started[0].returncode)

    def test_ctrl_c_while_servers_stop_still_kills_every_one(self):
        """Ctrl-C during the grace period after SIGTERM (a hung server that
        ignores it): the servers are killed all the same, every one of them,
        and the interrupt goes on; the SIGKILL was skipped and the server left."""
        servers = servers_mod.Servers()
        procs = []
        for extra in ([], ["--text", "two"]):
            port, why = servers.port({"argv": [FAKE_SERVER, "--stubborn"] + extra,
                                      "port_flag": "--port", "ready_timeout_s": 5})
            self.assertIsNone(why)
            procs.append(servers.running[tuple([FAKE_SERVER, "--stubborn"] + extra)].proc)

        def interrupt(*_):
            raise KeyboardInterrupt

        old = signal.signal(signal.SIGALRM, interrupt)
        try:
            signal.setitimer(signal.ITIMER_REAL, 0.3)
            with self.assertRaises(KeyboardInterrupt):
                servers.stop_all()
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
            left = []
            for p in procs:
                try:
                    p.wait(2)     # killed: gone at once (reaped here)
                except subprocess.TimeoutExpired:
                    left.append(p.args)
                    os.killpg(p.pid, signal.SIGKILL)
                    p.wait()
        self.assertEqual(left, [])

    def test_a_client_that_fails_as_its_server_dies_names_the_servers_death(self):
        """The server killed while a client runs: the client's own line says only
        "connection reset"; the run's reason adds the server's death."""
        servers = servers_mod.Servers()
        spec = {"argv": [FAKE_SERVER], "port_flag": "--port", "ready_timeout_s": 5}
        v = {"id": "w/fake/honest-sequential@x", "workload": "w"}
        client = ["/bin/sh", "-c", "sleep 1; echo 'client: connection reset by peer' >&2; exit 1", "client"]
        plan = types.SimpleNamespace(commands={v["id"]: client}, servers={v["id"]: spec},
                                     settings={"w": {"timeout_s": 20}})
        servers.port(spec)
        proc = servers.running[tuple(spec["argv"])].proc
        killer = threading.Timer(0.2, os.kill, (proc.pid, signal.SIGKILL))
        killer.start()
        try:
            res = measure.run_variant(plan, v, servers, launch.launcher())
        finally:
            killer.join()
            servers.stop_all()
        status, _, reason = outcome.classify(v, 5, res)
        self.assertEqual(status, "failed")
        self.assertEqual(reason, "exit 1: client: connection reset by peer; meanwhile server "
                                 "fake-server died (exit -9)")


if __name__ == "__main__":
    unittest.main()
