"""Unit tests of outcome.classify, launch (the launcher: wall time, timeouts,
signals, pinning) and servers, on the fake catalog tests/fixtures-bin/catalog/
and fake-server.  They start small real processes (sh, python, the launcher)
and assert on timing once: a 1 ms program's wall time is not a poll interval."""
import json
import os
import select
import subprocess
import sys
import unittest

from ..measure import launch
from ..measure import outcome
from ..measure import servers as servers_mod
from ..analysis import summary as sm
from ..core.errors import EnvError
from .testfixtures import FAKE_SERVER, HONEST, LAUNCH_C, Fixture, hidden, result


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
        return outcome.classify(self.v, n, res, self.cat.flag_values("readfile"))

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
        row = outcome.sample_row(2, 5, self.v, 10, st, rec, res, startup_ns=1234)
        self.assertEqual((row["outside_ns"], row["startup_ns"]), (4000, 1234))
        res.wall_ns = 4990     # the clocks' granularity: never below 0
        self.assertEqual(outcome.sample_row(2, 5, self.v, 10, st, rec, res)["outside_ns"], 0)
        res.wall_ns = None
        self.assertIsNone(outcome.sample_row(2, 5, self.v, 10, st, rec, res)["outside_ns"])

    def test_a_sample_row_has_the_spec_columns_with_the_new_ones_last(self):
        st, rec, _ = self.status(result(self.line()))
        row = outcome.sample_row(2, 5, self.v, 10, st, rec, result())
        self.assertEqual(list(row), sm.SAMPLE_COLUMNS)
        self.assertEqual(sm.SAMPLE_COLUMNS[19:23], ["shape", "method", "label", "idle_rss_kb"])
        self.assertEqual(row["idle_rss_kb"], 1000)
        self.assertEqual(sm.SAMPLE_COLUMNS[23:], ["env", "point", "outside_ns", "startup_ns",
                                                   "warmup_ns", "pass", "sampled_rss_kb", "runtime"])
        self.assertEqual(row["pass"], 0)
        self.assertEqual(row["runtime"], "", "the host's own runtime")
        self.assertEqual(outcome.sample_row(2, 5, dict(self.v, runtime="10.24.1"), 10, st, rec,
                                            result())["runtime"], "10.24.1")
        self.assertIsNone(row["sampled_rss_kb"])   # a line without a harness's figure
        rec = dict(rec, sampled_rss_kb=-12)
        self.assertEqual(outcome.sample_row(2, 5, self.v, 10, st, rec, result())["sampled_rss_kb"], -12)
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
                        other, LAUNCH_C], check=True)
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
        self.assertGreater(res.proc_peak_rss_kb, 0)

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

    def test_a_program_that_signals_its_own_group_is_its_own_death_not_the_launchers(self):
        # The shell idiom trap 'kill 0' EXIT: SIGTERM to the caller's group.
        # It once killed the launcher too, and the run stopped on "the
        # launcher ended (signal 15) without its report".
        res = launch.run_once(["sh", "-c", "trap 'kill 0' EXIT; echo out"], 10, self.launcher)
        self.assertEqual((res.stdout, res.signal, res.exit_code, res.timed_out),
                         (b"out\n", 15, -15, False))
        self.assertGreater(res.wall_ns, 0)
        # The next run through the launcher is as any other.
        self.assertEqual(launch.run_once(["true"], 10, self.launcher).exit_code, 0)

    def test_a_program_that_signals_its_launcher_is_one_failed_run_never_the_harnesss(self):
        # Signals that would end the launcher are ignored there (kill $PPID
        # from its own session reaches it only from the program) and given
        # back to the program; SIGKILL, which cannot be, is the program's crash.
        res = launch.run_once(["sh", "-c", "kill -HUP $PPID; kill -USR1 $PPID; kill -INT $PPID; "
                               "kill -QUIT $PPID; kill -PIPE $PPID; kill -ALRM $PPID; exit 4"],
                              10, self.launcher)
        self.assertEqual((res.exit_code, res.timed_out), (4, False))
        res = launch.run_once(["sh", "-c", "kill -HUP $$"], 10, self.launcher)
        self.assertEqual(res.signal, 1)
        res = launch.run_once(["sh", "-c", "kill -9 $PPID; sleep 5"], 10, self.launcher)
        self.assertEqual((res.exit_code, res.timed_out), (-9, False))
        self.assertIn(b"launch: the launcher was killed by SIGKILL while the program ran", res.stderr)

    def write_pids(self, script):
        """sh -c script, with $PIDS a file each background pid is appended to."""
        pids = os.path.join(self.dir, "pids")
        return ["sh", "-c", "PIDS=%s; %s" % (pids, script)], pids

    def assert_all_gone(self, pids_file, count):
        with open(pids_file) as f:
            pids = [int(p) for p in f.read().split()]
        self.assertEqual(len(pids), count)
        for pid in pids:
            with self.assertRaises(ProcessLookupError, msg="pid %d left running" % pid):
                os.kill(pid, 0)

    @unittest.skipUnless(sys.platform.startswith("linux"), "a subreaper is Linux's")
    def test_processes_a_program_leaves_behind_detached_or_not_are_killed_and_counted(self):
        # setsid, a double fork, a plain background child: 3 left at its end.
        argv, pids = self.write_pids(
            "setsid sleep 60 & echo $! >> $PIDS; "
            "(sleep 61 & echo $! >> $PIDS) ; "
            "sleep 62 & echo $! >> $PIDS; echo done")
        res = launch.run_once(argv, 10, self.launcher)
        self.assertEqual((res.exit_code, res.stdout, res.leftovers), (0, b"done\n", 3))
        self.assert_all_gone(pids, 3)
        self.assertEqual(launch.run_once(["true"], 10, self.launcher).leftovers, 0)

    @unittest.skipUnless(sys.platform.startswith("linux"), "a subreaper is Linux's")
    def test_at_the_timeout_a_programs_detached_children_are_killed_too(self):
        argv, pids = self.write_pids("setsid sleep 60 & echo $! >> $PIDS; sleep 60")
        res = launch.run_once(argv, 0.5, self.launcher)
        self.assertTrue(res.timed_out)
        self.assertEqual((res.signal, res.leftovers), (9, 1))
        self.assert_all_gone(pids, 1)

    def test_a_crash_under_ulimit_c_unlimited_leaves_no_core_file(self):
        import resource
        soft, hard = resource.getrlimit(resource.RLIMIT_CORE)
        if hard != resource.RLIM_INFINITY and hard < 1 << 20:
            self.skipTest("the hard core limit is %d here" % hard)
        resource.setrlimit(resource.RLIMIT_CORE, (hard, hard))
        try:
            res = launch.run_once(["sh", "-c", "ulimit -c; kill -SEGV $$"], 10, self.launcher)
        finally:
            resource.setrlimit(resource.RLIMIT_CORE, (soft, hard))
        self.assertEqual((res.signal, res.stdout), (11, b"0\n"))

    @unittest.skipUnless(os.path.isdir("/proc/self/fd"), "counts its open files in /proc")
    def test_a_runner_out_of_file_descriptors_says_so_and_names_its_limit(self):
        import resource
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        # Open now: /proc/self/fd less the listing's own.  No spare fails at the
        # capture files, 3 at the launcher's start (its pipe).
        for spare in (0, 3):
            open_now = len(os.listdir("/proc/self/fd")) - 1
            resource.setrlimit(resource.RLIMIT_NOFILE, (open_now + spare, hard))
            try:
                with self.assertRaisesRegex(EnvError, r"^the runner has run out of file descriptors "
                                            r"\(ulimit -n is \d+\), which each program run needs a "
                                            r"few of: raise the limit \(ulimit -n 1024\) and run again$"):
                    launch.run_once(["true"], 10, self.launcher)
            finally:
                resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))

    def test_a_program_that_cannot_be_executed_is_an_environment_error(self):
        # Not a failure of the program measured: the harness could not start it.
        with self.assertRaisesRegex(EnvError, "^launch: cannot run /nonexistent/prog: "):
            launch.run_once(["/nonexistent/prog"], 10, self.launcher)

    def test_the_launcher_keeps_the_runner_memory_out_of_the_peak(self):
        # sh -c : is well under the Python runner's own resident size.
        if sys.platform.startswith("linux"):
            launched = launch.run_once(["sh", "-c", ":"], 10, self.launcher).proc_peak_rss_kb
            import resource
            self.assertLess(launched, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)

    def test_the_launcher_comes_from_the_build_folder_and_is_never_compiled_here(self):
        self.assertEqual(launch.launcher(), self.launcher)
        os.environ["BUILD"] = os.path.join(self.dir, "empty")
        with self.assertRaisesRegex(EnvError, r"not built or not executable: .*bin/launch "
                                              r"\(run `make all` first\)"):
            launch.launcher()



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

    def test_a_warm_up_client_talks_to_the_server_before_its_port_is_given(self):
        # The client connects to the port it is given and writes what it read.
        out = os.path.join(self.dir, "warm.txt")
        client = ("import socket, sys; p = int(sys.argv[sys.argv.index('--port') + 1]); "
                  "c = socket.create_connection(('127.0.0.1', p)); "
                  "open(sys.argv[1], 'wb').write(c.recv(100))")
        s = servers_mod.Servers()
        spec = dict(self.spec(), warm={"argv": [sys.executable, "-c", client, out],
                                       "about": "a test's"})
        port, why = s.port(spec)
        self.assertIsNone(why)
        with open(out, "rb") as f:
            self.assertEqual(f.read(), b"Hello, world")
        s.stop_all()

    def test_a_warm_up_client_that_fails_or_overruns_fails_the_server(self):
        s = servers_mod.Servers()
        fail = dict(self.spec(), warm={"argv": [sys.executable, "-c",
                                                "import sys; sys.exit('no chain came back')"],
                                       "about": "a test's"})
        port, why = s.port(fail)
        self.assertIsNone(port)
        self.assertEqual(why, "server fake-server: its warm-up client exited 1: no chain came back")
        slow = dict(self.spec("--text", "x"), warm={
            "argv": [sys.executable, "-c", "import time; time.sleep(30)"], "timeout_s": 0.5,
            "about": "a test's"})
        port, why = s.port(slow)
        self.assertIsNone(port)
        self.assertEqual(why, "server fake-server: its warm-up client took more than 0.5 s")
        self.assertEqual(s.running, {})          # both stopped, not left running
        s.stop_all()

    def test_a_warm_up_client_that_signals_its_group_reaches_neither_the_runner_nor_the_server(self):
        import signal
        got = []
        old = signal.signal(signal.SIGUSR1, lambda *_: got.append(1))
        try:
            s = servers_mod.Servers()
            spec = dict(self.spec(), warm={"argv": ["sh", "-c", "trap '' USR1; kill -USR1 0; exit 3"],
                                           "about": "a test's"})
            port, why = s.port(spec)
        finally:
            signal.signal(signal.SIGUSR1, old)
        self.assertEqual(got, [])
        self.assertEqual((port, why), (None, "server fake-server: its warm-up client exited 3"))
        s.stop_all()

    def test_a_ctrl_c_during_the_warm_up_stops_the_server_and_its_warm_up_client(self):
        import signal
        pidfile = os.path.join(self.dir, "warm.pid")
        client = ("import os, sys, time; open(sys.argv[1], 'w').write(str(os.getpid())); "
                  "time.sleep(30)")
        spec = dict(self.spec(), warm={"argv": [sys.executable, "-c", client, pidfile],
                                       "about": "a test's"})

        def interrupt(*_):
            # Ctrl-C once the warm-up client runs (a loaded host may start it late).
            if not os.path.exists(pidfile):
                signal.setitimer(signal.ITIMER_REAL, 0.1)
                return
            raise KeyboardInterrupt

        def children():
            return set(subprocess.run(["pgrep", "-P", str(os.getpid())], stdout=subprocess.PIPE,
                                      universal_newlines=True).stdout.split())
        before = children()        # what earlier tests may have left
        old = signal.signal(signal.SIGALRM, interrupt)
        s = servers_mod.Servers()
        try:
            signal.setitimer(signal.ITIMER_REAL, 0.5)
            with self.assertRaises(KeyboardInterrupt):
                s.port(spec)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
        self.assertEqual(s.running, {})
        with open(pidfile) as f:
            warm_pid = int(f.read())
        # the warm-up client was killed and reaped, not left sleeping
        with self.assertRaises(ProcessLookupError):
            os.kill(warm_pid, 0)
        # and the server too: no child of this process is left beyond those before
        self.assertEqual(children() - before, set())
        s.stop_all()

    def test_with_server_starts_the_catalogs_server_without_its_warm_up_client(self):
        # with-server (the sanitizers' and the bats tests' harness) times
        # nothing: the catalog's warm-up client, whose argv is still {bin}/...
        # there, is not run, and the server's own argv is filled in.
        seen = {}

        class FakeServer:
            def __init__(self, spec):
                seen["spec"] = spec
                self.port, self.name, self.why = 4321, "s", ""
                self.proc = subprocess.Popen([sys.executable, "-c", "pass"])
                self.proc.wait()

            def stop(self):
                seen["stopped"] = True

        vid = "httpchain/c/callback-sequential@cserver.keepalive"
        real = servers_mod.Server
        servers_mod.Server = FakeServer
        try:
            code = servers_mod.with_server([vid, "--", sys.executable, "-c",
                                            "import sys; sys.exit(sys.argv[-2:] != ['--port', '4321'])"])
        finally:
            servers_mod.Server = real
        self.assertEqual(code, 0)
        self.assertTrue(seen["stopped"])
        self.assertNotIn("warm", seen["spec"])
        self.assertFalse(any("{" in a for a in seen["spec"]["argv"]), seen["spec"]["argv"])

    def test_a_server_that_dies_mid_round_fails_the_rest_of_the_round(self):
        s = servers_mod.Servers()
        spec = self.spec()
        s.port(spec)
        proc = s.running[tuple(spec["argv"])].proc
        os.kill(proc.pid, 9)
        proc.wait()
        self.assertEqual(s.port(spec), (None, "server fake-server died (exit -9)"))
        s.stop_all()


if __name__ == "__main__":
    unittest.main()
