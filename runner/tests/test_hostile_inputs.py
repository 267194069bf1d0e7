"""Unit tests of the runner against hostile input, round four (issue 46):
text nested too deeply for Python's parsers in a program's line, a catalog
file or a check; catalog mistakes that would be charged to every program;
output cut at the launcher's limit; how an incomplete run ended; the
Reproduce line of REPORT.md.  Run by `make test-runner`."""
import json
import os
import stat
import sys

from ..catalog import catalog as catalog_mod
from ..catalog import contract
from .. import run
from .testfixtures import Fixture, entry, make_catalog, quiet, workload
from ..core import paths

DEEP_LINE = "[" * 5000 + "]" * 5000


class RunFixture(Fixture):
    """Fixture with a program of the test's own (a Python script) and run.main
    on a catalog folder, read back from the run folder."""

    def program(self, name, body):
        """An executable Python script in the scratch folder that runs body."""
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write("#!%s\nimport sys\n%s\n" % (sys.executable, body))
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
        return path

    def run_main(self, catalog, *extra):
        """(exit code, run folder or None, its run.json or None)."""
        out = os.path.join(self.dir, "out")
        rc = quiet(run.main, ["--profile", "quick", "--catalog", catalog, "--out", out,
                              "--host", "testhost", "--node", "none", "--seed", "7",
                              "--no-charts", "--no-trace"] + list(extra))
        folder = None
        parent = os.path.join(out, "testhost")
        if os.path.isdir(parent) and os.listdir(parent):
            folder = os.path.join(parent, sorted(os.listdir(parent))[-1])
        info = None
        if folder and os.path.exists(os.path.join(folder, "run.json")):
            with open(os.path.join(folder, "run.json")) as f:
                info = json.load(f)
        return rc, folder, info

    def catalog_with(self, argv, **over):
        """A catalog of the honest fake and one variant (style "chatty") run by argv."""
        return make_catalog(self.dir, [workload("readfile", [
            entry(), entry(style="chatty", argv=argv)], **over)])


class NestedTooDeeplyTest(RunFixture):
    def test_a_program_line_nested_too_deeply_is_an_invalid_run_and_the_run_goes_on(self):
        deep = self.program("deep", "print(%r)" % DEEP_LINE)
        rc, folder, info = self.run_main(self.catalog_with([deep]))
        self.assertIn(rc, (0, 1))
        self.assertTrue(info["complete"])
        reasons = {f["reason"] for f in info["failures"]
                   if f["variant"] == "readfile/fake/chatty-sequential@python"}
        self.assertEqual(len(reasons), 1, reasons)
        self.assertIn("nested too deeply", reasons.pop())
        self.assertEqual(os.path.realpath(os.path.join(self.dir, "out", "latest")), folder)

    def test_the_contract_command_says_a_line_nested_too_deeply_in_one_line(self):
        got = quiet(contract.main, ["noop/c/sync-sequential@none", "5", DEEP_LINE])
        self.assertEqual(got, 1)
        obj, why = contract._parse(DEEP_LINE)
        self.assertIsNone(obj)
        self.assertIn("nested too deeply", why)

    def test_a_catalog_file_nested_too_deeply_is_refused_in_one_line(self):
        catalog = self.catalog_with(["tests/fixtures-bin/fake-readfile"])
        with open(os.path.join(catalog, "deep.json"), "w") as f:
            f.write(DEEP_LINE)
        with self.assertRaisesRegex(catalog_mod.CatalogError, "deep.json: not JSON: nested too deeply"):
            catalog_mod.load(catalog)

    def test_a_check_of_3000_terms_is_refused_in_one_line_at_load(self):
        catalog = make_catalog(self.dir, [workload("readfile", [entry()],
                                                   checks={"bytes": "1+" * 3000 + "1"})])
        with self.assertRaisesRegex(catalog_mod.CatalogError,
                                    "check 'bytes'.*too long or nested too deeply"):
            catalog_mod.load(catalog)
        catalog = make_catalog(self.dir, [workload("readfile", [entry()],
                                                   checks={"bytes": "1+" * 200 + "1"})])
        with self.assertRaisesRegex(catalog_mod.CatalogError, "nested 202 levels deep"):
            catalog_mod.load(catalog)

    def test_a_run_folder_file_nested_too_deeply_is_refused_in_one_line(self):
        _, folder, _ = self.run_main(self.catalog_with(["tests/fixtures-bin/fake-readfile"]))
        with open(os.path.join(folder, "run.json"), "w") as f:
            f.write(DEEP_LINE)
        from ..analysis import runfolder
        from ..core.errors import EnvError
        with self.assertRaisesRegex(EnvError, "run.json: not JSON: nested too deeply"):
            runfolder.RunFolder(folder).recorded

    def test_a_servers_readiness_line_nested_too_deeply_fails_the_server_in_one_line(self):
        from ..measure import servers as servers_mod
        server = self.program("deep-server", "print(%r, flush=True)\nimport time\ntime.sleep(30)"
                              % DEEP_LINE)
        servers = servers_mod.Servers()
        try:
            port, why = servers.port({"argv": [server], "port_flag": "--port",
                                      "ready_timeout_s": 10})
        finally:
            servers.stop_all()
        self.assertIsNone(port)
        self.assertRegex(why, r"^server .*deep-server: the readiness line is '\[\[\[.*, "
                              r"not \{\"port\": N\}$")

    def test_a_filter_or_a_bad_input_pattern_nested_too_deeply_is_refused_in_one_line(self):
        from .. import cli
        from ..core.errors import UsageError
        deep = "(" * 5000 + ")" * 5000
        with self.assertRaisesRegex(UsageError, "--filter .* nested too deeply"):
            cli.parse_args(["--profile", "quick", "--filter", deep])
        catalog = make_catalog(self.dir, [workload("readfile", [entry()], bad_inputs=[
            {"flags": ["--iterations", "0"], "exit": 2, "says": deep}])])
        with self.assertRaisesRegex(catalog_mod.CatalogError, "says .* nested too deeply"):
            catalog_mod.load(catalog)


class CatalogMistakeTest(RunFixture):
    """A mistake of the catalog is refused when the catalog is read (one line,
    exit 3), never charged to every program of the workload as invalid runs."""

    def refused(self, pattern, **over):
        catalog = make_catalog(self.dir, [workload("readfile", [entry()], **over)])
        with self.assertRaisesRegex(catalog_mod.CatalogError, pattern):
            catalog_mod.load(catalog)
        import io
        import contextlib
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            rc = run.main(["--profile", "quick", "--catalog", catalog, "--check"])
        self.assertEqual(rc, 3)
        self.assertEqual(len(err.getvalue().strip().splitlines()), 1, err.getvalue())
        self.assertRegex(err.getvalue(), pattern)

    def test_a_workload_flag_named_like_a_contract_flag_is_refused(self):
        for flag in ("--iterations", "--concurrency", "--warmup", "--passes", "--variant"):
            flags = {"--file": {"value": "fixtures/text.txt", "path": True, "about": "f"},
                     flag: {"value": "5", "about": "a contract flag"}}
            self.refused("flag '%s' is a flag of the program contract" % flag, flags=flags,
                         checks={})

    def test_a_check_that_divides_by_zero_or_cannot_be_evaluated_is_refused(self):
        for check, pattern in (("iterations // 0", "division by zero"),
                               ("bytes // (iterations - 1)", "at N = 1 .*division by zero"),
                               ("len(iterations)", "len\\(\\) of 1, not a text"),
                               ("int(expect)", "int\\(\\) of 'Hello, world', not a decimal"),
                               ("expect", "gives 'Hello, world', not an integer")):
            self.refused("check 'bytes': .*%s" % pattern, checks={"bytes": check})

    def test_the_catalogs_own_checks_hold_at_the_sample_values(self):
        catalog_mod.load(catalog_mod.DIR)


class OutputCutTest(RunFixture):
    def test_stdout_beyond_what_the_runner_keeps_is_said_to_be_cut_and_at_what_size(self):
        # A valid-looking start, then 2 MiB more on the same line.
        big = self.program("big", "sys.stdout.write('{\"workload\": \"' + 'x' * (2 << 20) + '\"}\\n')")
        rc, folder, info = self.run_main(self.catalog_with([big]))
        reasons = {f["reason"] for f in info["failures"]
                   if f["variant"] == "readfile/fake/chatty-sequential@python"}
        self.assertEqual(reasons, {"the output was cut at 1048576 bytes (1 MiB, what the runner "
                                   "keeps): the program wrote 2097169 bytes to stdout, where the "
                                   "contract's line is one short line"})
        self.assertTrue(info["complete"])


class ReproduceLineTest(RunFixture):
    def test_untracked_files_in_the_source_folders_make_the_commit_dirty_and_others_do_not(self):
        import subprocess
        from ..measure import host as host_mod
        repo = os.path.join(self.dir, "repo")
        os.makedirs(os.path.join(repo, "c"))
        with open(os.path.join(repo, "c", "main.c"), "w") as f:
            f.write("int main(void) { return 0; }\n")
        with open(os.path.join(repo, ".gitignore"), "w") as f:
            f.write("results/\n")
        git = ["git", "-C", repo, "-c", "user.name=t", "-c", "user.email=t@t"]
        subprocess.run(["git", "init", "-q", repo], check=True)
        subprocess.run(git + ["add", "-A"], check=True)
        subprocess.run(git + ["commit", "-qm", "x"], check=True)
        head = subprocess.run(git + ["rev-parse", "HEAD"], stdout=subprocess.PIPE,
                              check=True).stdout.decode().strip()
        saved = host_mod.ROOT
        host_mod.ROOT = repo
        try:
            self.assertEqual(host_mod.git_commit(), head)
            os.makedirs(os.path.join(repo, "results", "h"))
            with open(os.path.join(repo, "results", "h", "run.json"), "w") as f:
                f.write("{}")
            with open(os.path.join(repo, "notes.txt"), "w") as f:
                f.write("mine")
            self.assertEqual(host_mod.git_commit(), head)      # not the project's sources
            os.makedirs(os.path.join(repo, "c", "newload"))
            with open(os.path.join(repo, "c", "newload", "main.c"), "w") as f:
                f.write("int main(void) { return 1; }\n")
            self.assertEqual(host_mod.git_commit(), head + "-dirty")
        finally:
            host_mod.ROOT = saved

    def test_the_line_names_the_whole_commit_and_says_when_it_was_dirty(self):
        from ..report import rerun
        commit = "0123456789abcdef0123456789abcdef01234567"
        line = "\n".join(rerun.reproduce_command({"seed": 7, "profile": "quick", "options": []},
                                                  {"git_commit": commit + "-dirty"}))
        self.assertIn("at commit `%s`, with the changes the run had" % commit, line)
        line = "\n".join(rerun.reproduce_command({"seed": 7, "profile": "quick", "options": []},
                                                  {"git_commit": commit}))
        self.assertIn("at commit `%s` (" % commit, line)


class LateOrMisleadingErrorTest(RunFixture):
    def main(self, *argv):
        import io
        import contextlib
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            rc = run.main(list(argv))
        return rc, err.getvalue()

    def test_node_none_is_the_skip_reason_of_a_variant_that_needs_node(self):
        from .testfixtures import FAKE
        rc, err = self.main("--profile", "nodeonly", "--catalog", FAKE, "--node", "none",
                            "--out", os.path.join(self.dir, "out"))
        self.assertEqual(rc, 2)
        self.assertIn("(needs node, and --node none was given)", err)
        self.assertNotIn("none was found", err)

    def test_the_check_before_the_build_says_nothing_is_left_to_run(self):
        from .testfixtures import FAKE
        rc, err = self.main("--profile", "nodeonly", "--catalog", FAKE, "--node", "none", "--check")
        self.assertEqual(rc, 2)
        self.assertEqual(err, "run.py: nothing left to run: 1 variant needs node, and --node none "
                              "was given (readfile/fake/nodejs-sequential@python)\n")
        # A probe is not run before the build (it may need a built program):
        # the requires profile's variants are not all skipped by --check.
        rc, err = self.main("--profile", "requires", "--catalog", FAKE, "--node", "none", "--check")
        self.assertEqual((rc, err), (0, ""))


class HowARunEndedTest(RunFixture):
    """An incomplete run says how it ended: still running, crashed (with the
    error), interrupted by a signal, or killed without a word."""

    def ended_with(self, exc):
        """A run whose first measured program raises exc in the runner; (exit
        code, folder, run.json, REPORT.md after --render)."""
        from ..measure import outcome
        saved = outcome.classify
        calls = []

        def classify(*a, **kw):
            calls.append(1)
            if len(calls) > 2:          # after the warm-up round's two
                raise exc
            return saved(*a, **kw)
        outcome.classify = classify
        try:
            rc, folder, info = self.run_main(self.catalog_with(["tests/fixtures-bin/fake-readfile"]))
        finally:
            outcome.classify = saved
        quiet(run.main, ["--render", folder, "--no-charts"])
        with open(os.path.join(folder, "REPORT.md")) as f:
            return rc, folder, info, f.read()

    def test_a_crash_of_the_runner_is_recorded_with_its_error_and_the_report_says_so(self):
        rc, folder, info, report = self.ended_with(RuntimeError("boom in the runner"))
        self.assertEqual(rc, 1)
        self.assertIs(info["complete"], False)
        self.assertEqual(info["ended"], {"how": "crashed", "error": "RuntimeError: boom in the runner"})
        self.assertIn("> **Incomplete run**: the runner crashed after 0 of 3 measured rounds: "
                      "RuntimeError: boom in the runner (the traceback is in crash.txt).", report)
        with open(os.path.join(folder, "crash.txt")) as f:
            self.assertIn("RuntimeError: boom in the runner", f.read())

    def test_a_signal_is_recorded_as_an_interruption_and_the_report_says_so(self):
        rc, folder, info, report = self.ended_with(KeyboardInterrupt())
        self.assertEqual(rc, 130)
        self.assertEqual(info["ended"], {"how": "interrupted"})
        self.assertIn("> **Incomplete run**: interrupted by a signal (Ctrl-C, a kill or a hangup) "
                      "after 0 of 3 measured rounds.", report)

    def test_a_run_still_going_and_one_killed_without_a_word_are_told_apart(self):
        from ..analysis import rundir as rd
        from ..analysis import runfolder
        folder, _ = rd.make_run_folder(os.path.join(self.dir, "out"), "h", charts=False)
        with open(os.path.join(folder, "run.json"), "w") as f:
            json.dump({"complete": False, "rounds": 3, "rounds_done": 1}, f)
        ending = runfolder.RunFolder(folder).ending()
        self.assertRegex(ending, r"^still running \(pid %d on .+, started .+\): these are the "
                                 r"figures of the 1 measured rounds done so far$" % os.getpid())
        rd.release(folder)          # as the kernel does when the runner dies of SIGKILL
        self.assertEqual(runfolder.RunFolder(folder).ending(),
                         "ended without saying how, after 1 of 3 measured rounds: the runner was "
                         "killed (SIGKILL, out of memory) or its host stopped")

    def test_a_runner_killed_by_sigkill_is_told_from_one_still_running(self):
        import signal
        import subprocess
        from ..analysis import runfolder
        code = ("import json, os, sys, time\n"
                "from runner.analysis import rundir as rd\n"
                "f, _ = rd.make_run_folder(sys.argv[1], 'h', charts=False)\n"
                "json.dump({'complete': False, 'rounds': 3, 'rounds_done': 2},"
                " open(os.path.join(f, 'run.json'), 'w'))\n"
                "print(f, flush=True)\n"
                "time.sleep(60)\n")
        p = subprocess.Popen([sys.executable, "-c", code, os.path.join(self.dir, "out")],
                             stdout=subprocess.PIPE, cwd=paths.ROOT)
        try:
            folder = p.stdout.readline().decode().strip()
            self.assertTrue(runfolder.RunFolder(folder).ending().startswith(
                "still running (pid %d on " % p.pid))
        finally:
            p.send_signal(signal.SIGKILL)
            p.wait()
            p.stdout.close()
        self.assertTrue(runfolder.RunFolder(folder).ending().startswith(
            "ended without saying how, after 2 of 3 measured rounds: the runner was killed"))


class NewHostileCasesTest(RunFixture):
    """The author's own hostile cases of issue 46 that broke, each now one line."""

    def folder(self):
        _, folder, _ = self.run_main(self.catalog_with(["tests/fixtures-bin/fake-readfile"]))
        return folder

    def render(self, folder, timeout=30):
        """(exit code, stderr) of --render in a process of its own (a hang fails)."""
        import subprocess
        p = subprocess.run([sys.executable, "-m", "runner", "--render", folder, "--no-charts"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=timeout,
                           cwd=paths.ROOT)
        return p.returncode, p.stderr.decode()

    def test_a_fifo_for_a_run_folders_file_is_refused_not_waited_on(self):
        folder = self.folder()
        os.unlink(os.path.join(folder, "run.json"))
        os.mkfifo(os.path.join(folder, "run.json"))
        rc, err = self.render(folder)
        self.assertEqual(rc, 3)
        self.assertIn("run.json: cannot read it: not a regular file", err)
        os.unlink(os.path.join(folder, "run.json"))
        for name in ("rounds.csv", "runs.jsonl"):       # files a run may lack: read as none
            os.unlink(os.path.join(folder, name))
            os.mkfifo(os.path.join(folder, name))
        rc, err = self.render(folder)
        self.assertIn(rc, (0, 1))

    def test_a_fifo_for_the_newest_runs_summary_does_not_hang_the_next_runs_estimate(self):
        from .. import run as run_mod
        folder = self.folder()
        os.unlink(os.path.join(folder, "summary.json"))
        os.mkfifo(os.path.join(folder, "summary.json"))
        self.assertEqual(run_mod.walls_of(folder), {})

    def test_a_fifo_in_a_catalog_folder_is_refused_not_waited_on(self):
        catalog = self.catalog_with(["tests/fixtures-bin/fake-readfile"])
        os.mkfifo(os.path.join(catalog, "other.json"))
        with self.assertRaisesRegex(catalog_mod.CatalogError, "other.json: cannot read it: "
                                                              "not a regular file"):
            catalog_mod.load(catalog)

    def test_runs_jsonl_with_bytes_that_are_not_utf8_leaves_those_lines_out(self):
        folder = self.folder()
        with open(os.path.join(folder, "runs.jsonl"), "ab") as f:
            f.write(b'\xff\xfe{"round": 1}\n')
        rc, err = self.render(folder)
        self.assertIn(rc, (0, 1), err)
        self.assertNotIn("Traceback", err)

    def test_a_samples_field_beyond_csvs_limit_is_refused_in_one_line(self):
        folder = self.folder()
        with open(os.path.join(folder, "samples.csv"), "a") as f:
            f.write('"%s"\n' % ("x" * 200000))
        rc, err = self.render(folder)
        self.assertEqual(rc, 3)
        self.assertRegex(err, r"^run.py: .*samples.csv:\d+: field larger than field limit")

    def test_a_profile_that_is_not_a_word_is_refused(self):
        catalog = self.catalog_with(["tests/fixtures-bin/fake-readfile"])
        with open(os.path.join(catalog, "suite.json")) as f:
            suite = json.load(f)
        suite["profiles"]['a"b $x'] = suite["profiles"]["quick"]
        with open(os.path.join(catalog, "suite.json"), "w") as f:
            json.dump(suite, f)
        with self.assertRaisesRegex(catalog_mod.CatalogError, "profile 'a\"b \\$x': a profile's "
                                                              "name is a lower-case word"):
            catalog_mod.load(catalog)

    def test_a_filter_with_a_line_break_is_a_usage_error(self):
        from .. import cli
        from ..core.errors import UsageError
        with self.assertRaisesRegex(UsageError, "holds a line break"):
            cli.parse_args(["--profile", "quick", "--filter", "c/\nnode/"])

    def test_a_check_beyond_64_bits_is_refused_at_load_and_said_by_the_contract(self):
        big = "9" * 4000
        catalog = make_catalog(self.dir, [workload("readfile", [entry()], checks={
            "bytes": "iterations * %s * %s" % (big, big)})])
        with self.assertRaisesRegex(catalog_mod.CatalogError, "beyond 64 bits at N = 1"):
            catalog_mod.load(catalog)
        # A run.json edited so: the row check says it, where "%d" died in a ValueError.
        entry_ = {"checks": {"bytes": "iterations * %s * %s" % (big, big)}}
        self.assertEqual(contract._check_problem(entry_, {"bytes": 5}, 5, {}),
                         "check bytes == iterations * %s... gives a number beyond 64 bits"
                         % ("9" * 27))

    def test_a_servers_port_flag_that_the_runner_gives_already_is_refused(self):
        for flag, what in (("--iterations", "a flag of the program contract"),
                           ("--expect", "a flag of the workload")):
            catalog = make_catalog(self.dir, [workload("readfile", [entry(requires={"server": {
                "argv": ["tests/fixtures-bin/fake-server"], "lang": "fake", "port_flag": flag}})])])
            with self.assertRaisesRegex(catalog_mod.CatalogError,
                                        "port_flag %s is %s" % (flag, what)):
                catalog_mod.load(catalog)

    def test_a_programs_terminal_escapes_reach_neither_the_terminal_nor_the_report(self):
        esc = self.program("esc", "sys.stderr.write('\\x1b[2J\\x1b]0;pwned\\x07cleared'); sys.exit(1)")
        _, folder, info = self.run_main(self.catalog_with([esc]))
        reasons = {f["reason"] for f in info["failures"]
                   if f["variant"] == "readfile/fake/chatty-sequential@python"}
        self.assertEqual(reasons, {"exit 1: \\x1b[2J\\x1b]0;pwned\\x07cleared"})

    def test_a_fifo_for_runner_lock_is_not_waited_on(self):
        from ..analysis import rundir as rd
        from ..analysis import runfolder
        folder = os.path.join(self.dir, "fifo-lock")
        os.makedirs(folder)
        with open(os.path.join(folder, "run.json"), "w") as f:
            json.dump({"complete": False, "rounds": 3, "rounds_done": 1}, f)
        os.mkfifo(os.path.join(folder, rd.LOCK))
        self.assertEqual(runfolder.RunFolder(folder).ending(),
                         "interrupted or crashed after 1 of 3 measured rounds (a run from "
                         "before runs recorded how they ended)")

    def test_an_empty_value_of_an_option_is_a_usage_error(self):
        from .. import cli
        from ..core.errors import UsageError
        for opt in ("--out", "--node", "--catalog", "--host", "--profile"):
            argv = ["--profile", "quick", opt, ""] if opt != "--profile" else [opt, ""]
            with self.assertRaisesRegex(UsageError, "^%s '' is empty" % opt):
                cli.parse_args(argv)
        with self.assertRaisesRegex(UsageError, "^--render '' is empty"):
            cli.parse_args(["--render", ""])
