"""Unit tests of rundir's run folders and of run.py end to end, on the fake
catalog tests/fixtures-bin/catalog/ (fake-readfile in every role, fake-server
that serves, dies or stays mute) and on small catalog folders written into a
temporary folder where a case needs its own; read back from the run folder."""
import contextlib
import io
import csv
import json
import os
import select
import shutil
import sys
import tempfile
import unittest

from ..catalog import catalog as catalog_mod
from ..measure import launch
from ..measure import outcome
from ..analysis import noise
from ..report import render
from .. import run
from ..analysis import rundir as rd
from ..measure import schedule
from ..analysis import summary as sm
from ..core.errors import EnvError
from .testfixtures import FAKE, HONEST, Fixture, entry, hidden, make_catalog, quiet, workload


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
                self.assertGreater(float(r["probe_ms"]), 0)       # every round's end probed
                self.assertEqual(r["noisy"], str(int(float(r["steal_share"]) > noise.STEAL_MAX
                                                     or float(r["other_share"]) > noise.OTHER_MAX
                                                     or abs(float(r["speed_change"]))
                                                     > noise.SPEED_MAX)))

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
                log.sample(outcome.sample_row(1, 1, cat.find(vid), 10, "ok", line, res))
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

    def passes_catalog(self, calibrate=None):
        """A catalog of three fake readfile variants of 3 passes a process
        (whole: 1), its quick profile with calibrate as calibrate_passes."""
        catalog = make_catalog(self.dir, [workload(
            "readfile", [entry(), entry(style="other"), entry(style="whole", passes="1")],
            passes={"count": "min(3, iterations)", "about": "a test's"})])
        with open(os.path.join(catalog, "suite.json")) as f:
            suite = json.load(f)
        suite["styles"] = sorted(set(suite["styles"]) | {"other", "whole"})
        if calibrate:
            suite["profiles"]["quick"]["calibrate_passes"] = calibrate
        with open(os.path.join(catalog, "suite.json"), "w") as f:
            json.dump(suite, f)
        return catalog

    def test_a_workloads_passes_give_a_row_a_pass_and_the_median_pairs_by_round(self):
        catalog = self.passes_catalog()
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
            self.assertEqual(len({(r["order"], r["wall_ns"], r["proc_user_us"]) for r in rs}), 1)
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

    def test_a_profiles_calibration_raises_the_passes_of_short_passes_from_the_warm_up(self):
        # every fake pass is far shorter than a minute: the most, 5, for both
        catalog = self.passes_catalog({"min_ms": 60000, "max": 5})
        folder, samples, info, summary, report = self.run_main("quick", catalog)
        whole = "readfile/fake/whole-sequential@python"
        other = "readfile/fake/other-sequential@python"
        self.assertEqual(info["passes"], {HONEST: 5, other: 5})
        self.assertIn("ceil(60000 ms / t)", info["passes_rule"])
        self.assertEqual(info["commands"][HONEST][-6:-4], ["--passes", "5"])
        self.assertNotIn("--passes", info["commands"][whole])     # one pass stays one
        passes = {}
        for s in samples:
            self.assertEqual(s["status"], "ok", s)
            passes.setdefault((s["variant"], s["round"]), []).append(int(s["pass"]))
        self.assertEqual({k: v for k, v in passes.items() if k[0] != whole},
                         {(v, str(r)): [0, 1, 2, 3, 4] for v in (HONEST, other) for r in (1, 2, 3)})
        self.assertEqual({tuple(v) for k, v in passes.items() if k[0] == whole}, {(0,)})
        self.assertIn("More passes where a pass is short", report)
        self.assertIn("2 variants ran more (5 passes", report)

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
