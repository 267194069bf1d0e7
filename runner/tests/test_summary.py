"""Unit tests of runner/catalog/samples.py, runner/analysis/summary.py, runner/analysis/tables.py and runner/report/export.py
on hand-made samples."""
import csv
import json
import os
import re
import tempfile
import unittest

from ..report import export
from ..analysis import summary as sm
from ..analysis import tables

CB = "readfile/c/callback-sequential@node4"
PR = "readfile/c/promise-sequential@node4"
GO = "readfile/go/goroutine-parallel@os.ReadFile"


def baselines(vids):
    """The table run.json records: C callback of the same mode and backend, and for
    Node variants the Node callback."""
    out = {}
    for vid in vids:
        workload, lang, rest = vid.split("/")
        name, backend = rest.split("@")
        mode = name.rsplit("-", 1)[1]
        c = ["%s/c/callback-%s@node4" % (workload, mode), "C callback"]
        lang_base = (["%s/node/callback-%s@fs.readFile" % (workload, mode), "Node callback"]
                     if lang == "node" else None)
        out[vid] = {"c": c, "lang": lang_base}
    return out


def sample(rnd, variant, ms, status="ok", rss=1500):
    workload, lang, rest = variant.split("/")
    name, backend = rest.split("@")
    style, mode = name.rsplit("-", 1)
    return {"round": rnd, "order": 1, "variant": variant, "workload": workload,
            "lang": lang, "style": style, "mode": mode, "backend": backend,
            "iterations": 100, "concurrency": 1, "status": status,
            "exit_code": 0 if status in ("ok", "invalid") else 1,
            "elapsed_ns": int(ms * 1e6) if status == "ok" else None,
            "wall_ns": int(ms * 1e6) + 1000000, "proc_user_us": 2000, "proc_sys_us": 3000,
            "proc_peak_rss_kb": rss, "ok": 100 if status == "ok" else None,
            "bytes": 1200 if status == "ok" else None, "shape": "", "method": "inprocess",
            "label": variant.split("/", 1)[1], "idle_rss_kb": 1000 if status == "ok" else None}


def write_samples(path, rows, columns=None, mode="w"):
    """Writes ROWS to the samples.csv at PATH with COLUMNS (all of them by
    default; fewer, as a file written before the later ones), header first
    unless appending."""
    with open(path, mode, newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns or sm.SAMPLE_COLUMNS, extrasaction="ignore")
        if mode == "w":
            w.writeheader()
        for row in rows:
            w.writerow(row)


def two_variants():
    """Six rounds; the promise variant takes exactly twice the baseline each round."""
    base = [10, 11, 12, 10, 11, 13]
    out = []
    for r, b in enumerate(base, start=1):
        out.append(sample(r, CB, b))
        out.append(sample(r, PR, 2 * b))
    out.append(sample(7, PR, 0, status="failed"))
    return out


def summarize(samples):
    return sm.summarize(samples, baselines({s["variant"] for s in samples}))


class WorkloadRoundsTest(unittest.TestCase):
    def test_a_budget_gives_a_range_and_a_workload_without_one_its_own_figure(self):
        run = {"rounds": 40, "workloads": {"doxbee": {"rounds": 6}, "readfile": {"rounds": 10}},
               "variant_rounds": {"readfile/c/a@x": 10, "readfile/c/b@x": 40,
                                  "readfile/node/c@y": 10, "doxbee/c/d@z": 6}}
        self.assertEqual(sm.workload_rounds(run, "readfile"), "10-40")
        self.assertEqual(sm.workload_rounds(run, "doxbee"), "6")
        self.assertEqual(sm.workload_rounds({"rounds": 3, "workloads": {"noop": {}}}, "noop"), "3")
        self.assertEqual(sm.workload_rounds({}, "noop"), "?")


class SummarizeTest(unittest.TestCase):
    def setUp(self):
        self.rows = {r["variant"]: r for r in summarize(two_variants())}

    def test_baseline_row_is_its_own_reference(self):
        b = self.rows[CB]
        self.assertEqual(b["baseline"], CB)
        self.assertEqual(b["baseline_label"], "C callback")
        self.assertEqual(b["ratio"], 1.0)
        self.assertIsNone(b["significant"])
        self.assertEqual(b["median_ms"], 11.0)
        # n = 6: the CI is [x1, x6] = [10, 13].
        self.assertEqual((b["ci_low_ms"], b["ci_high_ms"]), (10.0, 13.0))

    def test_paired_ratio_of_a_variant_twice_as_slow_is_two(self):
        p = self.rows[PR]
        self.assertEqual(p["ratio"], 2.0)
        self.assertEqual((p["ratio_ci_low"], p["ratio_ci_high"]), (2.0, 2.0))
        self.assertEqual(p["rounds_paired"], 6)
        # all six paired ratios are above 1: sign test p = 2 / 2^6.
        self.assertAlmostEqual(p["p_value"], 2 / 64)
        self.assertTrue(p["significant"])
        # each round the variant takes the baseline's time again: 10..13 ms over
        # 100 operations, median 11 ms = 110,000 ns per operation.
        self.assertEqual(p["diff_per_op_ns"], 110000.0)
        self.assertEqual((p["diff_per_op_ns_ci_low"], p["diff_per_op_ns_ci_high"]),
                         (100000.0, 130000.0))
        self.assertEqual(p["per_op_ns"], 220000.0)

    def test_statuses_are_counted_and_failed_runs_warned_about(self):
        p = self.rows[PR]
        self.assertEqual(p["n"], 6)
        self.assertEqual(p["statuses"], {"ok": 6, "invalid": 0, "failed": 1, "timeout": 0,
                                         "crashed": 0})
        self.assertIn("1 of 7 runs not ok (1 failed)", p["warnings"])

    def test_rows_follow_workload_then_mode_order_with_the_baseline_first(self):
        samples = two_variants() + [sample(1, GO, 5), sample(1, "noop/c/sync-sequential@none", 1)]
        ids = [r["variant"] for r in summarize(samples)]
        self.assertEqual(ids, ["noop/c/sync-sequential@none", CB, PR, GO])

    def test_workloads_and_backends_never_merge(self):
        samples = [sample(r, v, 10) for r in range(1, 4)
                   for v in (CB, "readfile/c/callback-sequential@fused",
                             "noop/c/callback-sequential@node4")]
        rows = summarize(samples)
        self.assertEqual(len(rows), 3)
        self.assertEqual({r["n"] for r in rows}, {3})

    def test_a_mode_without_its_baseline_has_no_ratio(self):
        rows = summarize([sample(1, GO, 5)])
        self.assertIsNone(rows[0]["ratio"])
        self.assertEqual(rows[0]["baseline"], "readfile/c/callback-parallel@node4")
        self.assertIn("baseline readfile/c/callback-parallel@node4 has no valid samples in this "
                      "run: no ratio", rows[0]["warnings"])

    def test_a_variant_without_a_rule_has_no_baseline_and_no_warning(self):
        rows = sm.summarize([sample(1, GO, 5)], {})
        self.assertEqual((rows[0]["baseline"], rows[0]["lang_baseline"]), (None, None))
        self.assertEqual(tables.fmt_ratio(rows[0]), "")
        self.assertFalse([w for w in rows[0]["warnings"] if "baseline" in w])

    def test_node_variants_get_both_ratios_with_their_labels(self):
        nodecb = "readfile/node/callback-sequential@fs.readFile"
        nodeaw = "readfile/node/await-sequential@fs.promises"
        samples = [sample(r, v, ms * (1 + r % 2)) for r in range(1, 7)
                   for v, ms in ((CB, 10), (nodecb, 20), (nodeaw, 60))]
        rows = {r["variant"]: r for r in summarize(samples)}
        aw = rows[nodeaw]
        self.assertEqual((aw["baseline_label"], aw["ratio"]), ("C callback", 6.0))
        self.assertEqual((aw["lang_baseline"], aw["lang_baseline_label"], aw["lang_ratio"]),
                         (nodecb, "Node callback", 3.0))
        self.assertTrue(aw["lang_significant"])
        self.assertEqual(rows[nodecb]["lang_ratio"], 1.0)
        table = tables.terminal_table(list(rows.values()))
        self.assertRegex(table, r"(?m)^variant +n +µs/operation +95% CI +vs C callback +"
                                r"Δ µs/operation +vs Node callback +Δ µs/operation$")
        # 60 or 120 ms over 100 operations: 900 µs; 6x the C callback, 750 µs more.
        self.assertRegex(table, r"(?m)^node/await-sequential@fs.promises +6 +900 +\[600, 1200\] +"
                                r"6\.00x \[6\.00, 6\.00\] +\+750 \[500, 1000\] +"
                                r"3\.00x \[3\.00, 3\.00\] +\+600 \[400, 800\]$")
        self.assertRegex(table, r"(?m)^node/callback-sequential@fs.readFile .* baseline$")
        self.assertRegex(table, r"(?m)^c/callback-sequential@node4 .* baseline$")

    def test_a_column_of_several_labels_names_each_rows_baseline(self):
        rows = summarize(two_variants())
        rows[1] = dict(rows[1], baseline_label="Other label")
        table = tables.terminal_table(rows)
        self.assertIn("vs C callback / Other label", table)
        self.assertRegex(table, r"c/promise-sequential@node4 .* 2\.00x \[2\.00, 2\.00\] "
                                r"\(Other label\)")

    def test_terminal_table_marks_no_significance_with_a_tilde(self):
        rows = summarize([sample(r, v, 10 + (r % 2)) for r in range(1, 7)
                          for v in (CB, "readfile/c/await-sequential@node4")])
        table = tables.terminal_table(rows)
        self.assertRegex(table, r"c/await-sequential@node4 .* ~ 1\.00x \[1\.00, 1\.00\]")
        self.assertIn("== readfile (N = 100) ==", table)
        self.assertIn("-- sequential", table)
        self.assertIn("~ : no significant difference (the paired 95% CI includes 1", table)
        self.assertNotIn("? :", table)

    def test_a_lone_difference_among_many_comparisons_is_not_named(self):
        # Six rounds: the slower variant is above its baseline in every one
        # (sign test p = 1/32, its interval excludes 1), beside 20 variants
        # alternating around it: one test in a family of 21 does not survive
        # the false discovery rate control (q = 21/32).
        others = ["readfile/c/s%d-sequential@node4" % k for k in range(20)]
        samples = [sample(r, CB, 10) for r in range(1, 7)]
        samples += [sample(r, PR, 11 + r) for r in range(1, 7)]
        samples += [sample(r, v, 10 + (1 if r % 2 else -1)) for r in range(1, 7) for v in others]
        rows = {r["variant"]: r for r in summarize(samples)}
        pr = rows[PR]
        self.assertTrue(sm.excludes_one(pr))
        self.assertAlmostEqual(pr["p_value"], 1 / 32.0)
        self.assertAlmostEqual(pr["q_value"], 21 / 32.0)
        self.assertFalse(pr["significant"])
        self.assertEqual(pr["fdr_tests"], 21)
        table = tables.terminal_table(list(rows.values()))
        self.assertRegex(table, r"c/promise-sequential@node4 .* ~ 1\.\d+x")
        self.assertIn("the sign test does not survive the false discovery rate control. That "
                      "control is over the run's 21 comparisons", table)

    def test_many_differences_survive_together(self):
        slower = ["readfile/c/s%d-sequential@node4" % k for k in range(6)]
        samples = [sample(r, CB, 10) for r in range(1, 7)]
        samples += [sample(r, v, 12 + r) for r in range(1, 7) for v in slower]
        rows = [r for r in summarize(samples) if r["variant"] != CB]
        self.assertTrue(all(r["significant"] for r in rows))
        self.assertTrue(all(abs(r["q_value"] - 1 / 32.0) < 1e-12 for r in rows))

    def test_three_rounds_say_untested_instead_of_a_tilde(self):
        rows = summarize([sample(r, v, ms * r) for r in range(1, 4)
                          for v, ms in ((CB, 10), ("readfile/c/await-sequential@node4", 11))])
        aw = [r for r in rows if r["style"] == "await"][0]
        self.assertIsNone(aw["significant"])
        self.assertEqual(tables.fmt_ratio(aw), "? 1.10x [3 rounds]")
        table = tables.terminal_table(rows)
        self.assertIn("? : too few paired rounds for a CI or a test (6 needed)", table)
        self.assertNotIn("~", table)
        self.assertIn("too few for a 95% CI or a test (needs 6)", " ".join(aw["warnings"]))


class RowContractTest(unittest.TestCase):
    """--render checks every row again with the runner's own checks on a line
    (contract.figures_problem) for the figures samples.csv keeps."""

    def test_an_ok_row_must_pass_the_catalogs_checks(self):
        self.assertIsNone(sm.row_problem(sample(1, CB, 10)))
        self.assertEqual(sm.row_problem(dict(sample(1, CB, 10), bytes=7)),
                         "status ok, but bytes is 7, expected 1200 (iterations * len(expect))")
        self.assertEqual(sm.row_problem(dict(sample(1, CB, 10), idle_rss_kb=0)),
                         "status ok, but idle_rss_kb must be positive, got 0")
        self.assertEqual(sm.row_problem(dict(sample(1, CB, 10), bytes=None)),
                         "status ok with bytes empty: the runner writes an ok run's bytes")
        # A row that is not ok keeps no line to check.
        self.assertIsNone(sm.row_problem(dict(sample(1, CB, 10, status="failed"), bytes=7)))

    def test_every_row_holds_the_k_its_mode_is_given(self):
        self.assertEqual(sm.row_problem(dict(sample(1, CB, 10, status="failed"), concurrency=9)),
                         "concurrency is 9: the runner gives a sequential variant 1")
        par = dict(sample(1, GO, 10), concurrency=0)
        self.assertIsNone(sm.row_problem(par))
        self.assertEqual(sm.row_problem(dict(par, concurrency=1)),
                         "concurrency is 1: the runner gives a parallel variant 0")
        bounded = "readfile/c/callback-bounded@node4"
        # The suite's bound, or a sweep point's K.
        for k in (64, 16, 1000):
            self.assertIsNone(sm.row_problem(dict(sample(1, bounded, 10), concurrency=k)))

    def test_the_checks_and_values_the_run_recorded_win_over_todays_catalog(self):
        run = {"workloads": {"readfile": {"args": ["--file", "f.txt", "--expect", "Hi"],
                                          "checks": {"bytes": "iterations * len(expect)"}}}}
        c = sm.workload_contracts(run)
        self.assertEqual(sm.row_problem(sample(1, CB, 10), c),
                         "status ok, but bytes is 1200, expected 200 (iterations * len(expect))")
        self.assertIsNone(sm.row_problem(dict(sample(1, CB, 10), bytes=200), c))
        # A run that recorded no checks for its workload had none.
        c = sm.workload_contracts({"workloads": {"readfile": {"checks": {}}}})
        self.assertIsNone(sm.row_problem(dict(sample(1, CB, 10), bytes=7), c))

    def test_a_check_on_a_field_samples_csv_does_not_hold_is_not_made(self):
        # cacheloop: bytes == iterations * file_bytes, hits, misses: the line's own
        # fields are not in samples.csv; ok and the rest are still checked.
        row = dict(sample(1, "cacheloop/c/sync-sequential@node4", 10), bytes=5)
        self.assertIsNone(sm.row_problem(row))
        self.assertIn("ok is 99", sm.row_problem(dict(row, ok=99)))

    def test_checks_in_run_json_that_are_not_checks_are_refused(self):
        for bad in ({"bytes": "__import__('os')"}, ["bytes"], {"Bytes!": "1"}):
            with self.assertRaisesRegex(ValueError, r"^run\.json: workloads\.readfile\.checks"):
                sm.workload_contracts({"workloads": {"readfile": {"checks": bad}}})
        with self.assertRaisesRegex(ValueError, r"args must be a list of flags and their values"):
            sm.workload_contracts({"workloads": {"readfile": {"args": ["--expect"]}}})


class SamplesFileTest(unittest.TestCase):
    def test_header_other_than_the_design_columns_is_refused(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "samples.csv")
            with open(path, "w") as f:
                f.write("round,variant\n1,readfile/c/x@y\n")
            with self.assertRaisesRegex(ValueError, "header"):
                sm.read_samples(path)

    def test_rows_round_trip_and_a_torn_last_line_is_skipped(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "samples.csv")
            write_samples(path, [sample(1, CB, 10)])
            with open(path, "a") as f:
                f.write("2,3,readfile/c/callback-seq")          # interrupted mid-line
            rows = sm.read_samples(path)
            self.assertEqual(len(rows), 1)
            self.assertEqual(rows[0]["elapsed_ns"], 10000000)
            self.assertEqual(rows[0]["exit_code"], 0)
            self.assertEqual(rows[0]["status"], "ok")
        self.assertEqual((rows[0]["shape"], rows[0]["method"], rows[0]["label"]),
                         ("", "inprocess", "c/callback-sequential@node4"))
        self.assertEqual(rows[0]["idle_rss_kb"], 1000)

    def test_a_file_written_before_the_later_columns_reads_them_empty(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "samples.csv")
            old = sm.SAMPLE_COLUMNS[:sm.BASE_COLUMNS]
            write_samples(path, [sample(1, CB, 10)], old)
            rows = sm.read_samples(path)
            self.assertIsNone(rows[0]["idle_rss_kb"])
            row = sm.summarize(rows, {})[0]
            self.assertIsNone(row["mem_above_idle_kb"])
            # A header cut inside the base columns is still refused.
            with open(path, "w") as f:
                f.write(",".join(old[:-1]) + "\n")
            with self.assertRaisesRegex(ValueError, "header"):
                sm.read_samples(path)

    def test_a_file_without_the_pass_column_is_pass_0_everywhere_and_passes_are_read_back(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "samples.csv")
            old = sm.SAMPLE_COLUMNS[:sm.SAMPLE_COLUMNS.index("pass")]
            write_samples(path, [sample(1, CB, 10), sample(2, CB, 11)], old)
            self.assertEqual([r["pass"] for r in sm.read_samples(path)], [0, 0])
            # three passes of one process are three rows; a pass twice is refused
            write_samples(path, [dict(sample(1, CB, ms), **{"pass": k})
                                 for k, ms in enumerate((10, 30, 12))])
            self.assertEqual([(r["pass"], r["elapsed_ns"]) for r in sm.read_samples(path)],
                             [(0, 10000000), (1, 30000000), (2, 12000000)])
            write_samples(path, [dict(sample(1, CB, 9), **{"pass": 1})], mode="a")
            with self.assertRaisesRegex(ValueError, "a second row of %s in round 1 pass 1" % CB):
                sm.read_samples(path)

    def test_a_harness_memory_figure_is_read_back_signed_and_summarised_by_its_median(self):
        # sampled_rss_kb (a perfjs line's: the largest RSS sampled less the RSS
        # at its start) may be below 0 when the RSS fell; a file without the
        # column reads it empty, and the summary row has no figure then.
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "samples.csv")
            write_samples(path, [dict(sample(r, CB, 10), sampled_rss_kb=kb)
                                 for r, kb in ((1, 300), (2, -20), (3, 500))])
            rows = sm.read_samples(path)
            self.assertEqual([r["sampled_rss_kb"] for r in rows], [300, -20, 500])
            self.assertEqual(sm.summarize(rows, {})[0]["sampled_rss_kb"], 300)
            old = sm.SAMPLE_COLUMNS[:sm.SAMPLE_COLUMNS.index("sampled_rss_kb")]
            write_samples(path, [sample(1, CB, 10)], old)
            rows = sm.read_samples(path)
            self.assertIsNone(rows[0]["sampled_rss_kb"])
            self.assertIsNone(sm.summarize(rows, {})[0]["sampled_rss_kb"])
        self.assertIn("sampled_rss_kb", sm.SUMMARY_CSV_COLUMNS)

    def test_a_process_counts_once_by_the_median_of_its_passes(self):
        rows = []
        for r in range(1, 7):
            # the baseline's passes 10, 40 (interrupted), 12 ms: its value is 12;
            # the promise variant's 24, 20, 22: 22, so every round's ratio is 22/12
            for k, (b, p) in enumerate(zip((10, 40, 12), (24, 20, 22))):
                rows.append(dict(sample(r, CB, b), **{"pass": k}))
                rows.append(dict(sample(r, PR, p), **{"pass": k}))
        procs = sm.per_process(rows)
        self.assertEqual(len(procs), 12)
        self.assertEqual({(p["elapsed_ns"], p["passes"]) for p in procs if p["variant"] == CB},
                         {(12000000, 3)})
        by = {r["variant"]: r for r in summarize(rows)}
        self.assertEqual((by[CB]["n"], by[CB]["median_ms"]), (6, 12.0))
        self.assertEqual((by[PR]["rounds_paired"], by[PR]["median_ms"]), (6, 22.0))
        self.assertAlmostEqual(by[PR]["ratio"], 22 / 12.0)
        # rows of one pass (a run before --passes) are the processes themselves
        one = [sample(r, CB, 10 + r) for r in (1, 2, 3)]
        self.assertEqual([p["elapsed_ns"] for p in sm.per_process(one)],
                         [s["elapsed_ns"] for s in one])

    def test_time_outside_the_clock_less_the_languages_start_up_is_flagged_over_10_percent(self):
        def s(rnd, ms, wall_ms, startup_ms, variant=CB):
            row = sample(rnd, variant, ms)
            row.update(wall_ns=int(wall_ms * 1e6), outside_ns=int((wall_ms - ms) * 1e6),
                       startup_ns=int(startup_ms * 1e6))
            return row
        # 10 ms timed, 13 ms wall, an empty program's 2 ms: 1 ms of its own, 10%: not over
        rows = sm.summarize([s(r, 10, 13, 2) for r in (1, 2, 3)], {})
        self.assertEqual([rows[0][k] for k in ("outside_ms", "startup_ms", "own_outside_ms")],
                         [3.0, 2.0, 1.0])
        self.assertAlmostEqual(rows[0]["outside_share"], 0.1)
        self.assertIs(rows[0]["outside_flag"], False)
        # 1.5 ms of its own, round by round (the start-up varies with the round): 15%, over
        rows = sm.summarize([s(1, 10, 14, 2.5), s(2, 10, 13.5, 2), s(3, 10, 16, 4.5)], {})
        self.assertEqual(rows[0]["own_outside_ms"], 1.5)
        self.assertIs(rows[0]["outside_flag"], True)
        # the warm-up the runner asked for is not the variant's own: 0.5 ms left, 5%
        warm = [s(1, 10, 14, 2.5), s(2, 10, 13.5, 2), s(3, 10, 16, 4.5)]
        for row in warm:
            row["warmup_ns"] = 1000000
        rows = sm.summarize(warm, {})
        self.assertEqual((rows[0]["warmup_ms"], rows[0]["own_outside_ms"]), (1.0, 0.5))
        self.assertIs(rows[0]["outside_flag"], False)
        self.assertIn("outside_flag", sm.SUMMARY_CSV_COLUMNS)

    def test_a_file_without_the_outside_columns_has_them_from_wall_and_elapsed(self):
        rows = sm.summarize([sample(r, CB, 10) for r in (1, 2, 3)], {})
        # sample()'s wall time is 1 ms over its timed section; no start-up figure: no flag
        self.assertEqual((rows[0]["outside_ms"], rows[0]["startup_ms"], rows[0]["outside_flag"]),
                         (1.0, None, None))

    def test_memory_above_idle_is_the_median_of_peak_minus_idle(self):
        rows = sm.summarize([sample(r, CB, 10, rss=1500 + 100 * r) for r in (1, 2, 3)], {})
        self.assertEqual(rows[0]["idle_rss_kb"], 1000)
        self.assertEqual(rows[0]["mem_above_idle_kb"], 700)


    def test_a_file_from_before_the_proc_names_reads_its_launcher_figures_as_proc(self):
        old = {"proc_user_us": "user_us", "proc_sys_us": "sys_us", "proc_peak_rss_kb": "peak_rss_kb"}
        columns = [old.get(c, c) for c in sm.SAMPLE_COLUMNS]
        rows = [{old.get(k, k): v for k, v in sample(r, CB, 10).items()} for r in (1, 2, 3)]
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "samples.csv")
            write_samples(path, rows, columns)
            got = sm.read_samples(path)
        self.assertEqual([(s["proc_user_us"], s["proc_sys_us"], s["proc_peak_rss_kb"]) for s in got],
                         [(2000, 3000, 1500)] * 3)
        self.assertNotIn("peak_rss_kb", got[0])
        self.assertEqual(sm.summarize(got, {})[0]["proc_peak_rss_kb"], 1500)


class ExportTest(unittest.TestCase):
    def setUp(self):
        self.samples = two_variants()
        self.rows = summarize(self.samples)

    def test_hyperfine_json_has_the_fields_its_plot_scripts_read(self):
        doc = json.loads(json.dumps(export.hyperfine(self.samples, self.rows)))
        self.assertEqual([r["command"] for r in doc["results"]], [CB, PR])
        r = doc["results"][1]
        self.assertEqual(r["parameters"]["backend"], "node4")
        for k in ("command", "mean", "stddev", "median", "user", "system", "min", "max",
                  "times", "exit_codes"):
            self.assertIn(k, r)
        self.assertEqual(len(r["times"]), 6)             # the failed run is not a time
        self.assertAlmostEqual(r["min"], 0.020)
        self.assertAlmostEqual(r["max"], 0.026)
        self.assertAlmostEqual(r["median"], 0.022)
        self.assertAlmostEqual(r["mean"], sum([20, 22, 24, 20, 22, 26]) / 6 / 1000)
        self.assertAlmostEqual(r["user"], 0.002)
        self.assertAlmostEqual(r["system"], 0.003)

    def test_go_benchmark_text_has_headers_and_one_line_per_sample(self):
        host = {"machine": "x86_64", "kernel": "Linux 6.1", "cpu_model": "AMD EPYC",
                "slug": "linux-x86_64-amd-epyc-2c"}
        text = export.gobench(self.samples, self.rows, host)
        lines = text.splitlines()
        self.assertEqual(lines[:3], ["goos: linux", "goarch: amd64", "pkg: asyncstyles"])
        bench = [line for line in lines if line.startswith("Benchmark")]
        self.assertEqual(len(bench), 12)
        # One op is one operation: the count is N (100), ns/op the time per operation.
        pat = re.compile(r"^BenchmarkReadfile/c/[a-z]+-sequential@node4 100 \d+(\.\d+)? ns/op "
                         r"\d+ peak-RSS-KiB$")
        for line in bench:
            self.assertRegex(line, pat)
        self.assertIn("BenchmarkReadfile/c/promise-sequential@node4 100 260000 ns/op 1500 "
                      "peak-RSS-KiB",
                      bench)
        # Every non-benchmark line is a "key: value" configuration line.
        for line in lines:
            if not line.startswith("Benchmark"):
                self.assertRegex(line, r"^[a-z][a-z-]*: \S")

    def test_time_per_operation_keeps_its_digits(self):
        self.assertEqual(export._per_op(93012345, 10000), "9301.2345")
        self.assertEqual(export._per_op(3, 3), "1")
        self.assertEqual(export._per_op(10, 3), "3.3333")

    def test_markdown_export_has_a_table_per_mode_with_the_summary_cells(self):
        md = export.markdown(self.rows)
        self.assertIn("## readfile, sequential (N = 100)", md)
        self.assertRegex(md, r"(?m)^\| variant \| n \| µs/operation \| 95% CI \| vs C callback \| "
                             r"Δ µs/operation \|$")
        # promise: 20..26 ms over 100 operations, 220 µs, twice the baseline.
        self.assertIn("| `c/promise-sequential@node4` | 6/7 | 220 | [200, 260] | "
                      "2.00x [2.00, 2.00] | +110 [100, 130] |", md)

    def test_macos_arm_maps_to_go_names(self):
        text = export.gobench([], [], {"machine": "arm64", "kernel": "Darwin 23.0"})
        self.assertTrue(text.startswith("goos: darwin\ngoarch: arm64\n"))


if __name__ == "__main__":
    unittest.main()
