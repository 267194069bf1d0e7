"""Tests of runner/analysis/reproduce.py (and its claimrun.py and claimverdicts.py) on synthetic
summaries and samples."""
import csv
import os
import re
import tempfile
import unittest
from unittest import mock

from ..catalog import catalog as catalog_mod
from ..analysis import claimverdicts
from ..analysis import reproduce
from ..analysis import summary as summary_mod

# Median ms per variant of the synthetic run: await is 3x callbacks in
# parallel, 1.5x sequentially; Go is 20x faster than Node's callbacks.
MEDIANS = {
    "readfile/c/callback-sequential@node4": 100.0, "readfile/c/callback-parallel@node4": 50.0,
    "readfile/c/await-sequential@node4": 102.0, "readfile/c/await-parallel@node4": 55.0,
    "readfile/c/promise-sequential@node4": 101.0, "readfile/c/promise-parallel@node4": 52.0,
    "readfile/c/promise-counter-parallel@node4": 51.0,
    "readfile/go/sync-sequential@os.ReadFile": 8.0,
    "readfile/node/callback-sequential@fs.readFile": 160.0, "readfile/node/callback-parallel@fs.readFile": 60.0,
    "readfile/node/await-sequential@fs.promises": 240.0, "readfile/node/await-parallel@fs.promises": 180.0,
    "readfile/node/promise-sequential@fs.promises": 230.0, "readfile/node/promise-parallel@fs.promises": 170.0,
    "readfile/node/promise-counter-parallel@fs.promises": 175.0,
    "readfile/node/await-sequential@promisify": 200.0, "readfile/node/await-parallel@promisify": 90.0,
    "readfile/node/callback-nodetest-sequential@fs.readFile": 260.0, "readfile/node/callback-nodetest-parallel@fs.readFile": 150.0,
    "readfile/node/await-nodetest-sequential@fs.promises": 340.0, "readfile/node/await-nodetest-parallel@fs.promises": 300.0,
    "readfile/node/promise-nodetest-sequential@fs.promises": 330.0, "readfile/node/promise-nodetest-parallel@fs.promises": 290.0,
}
# asyncfib's Node variants and their times.
FIB = "asyncfib/node/%s-sequential@none"
FIB_MS = {FIB % "sync-recursive": 20.0, FIB % "await-recursive": 5000.0,
          FIB % "sync-iterative": 2.0, FIB % "await-iterative": 66.0,
          FIB % "promise-iterative": 68.0}
# The real catalog: the claims under test are readfile's data.
CATALOG = catalog_mod.load()


class CatalogWithout:
    """The catalog as reproduce.py sees it, with one variant not (yet) in it."""

    def __init__(self, cat, vid):
        self.workloads, self._cat, self._vid = cat.workloads, cat, vid

    def find(self, vid):
        return None if vid == self._vid else self._cat.find(vid)


def row(vid, median, n=12, statuses=None):
    f = catalog_mod.parse_id(vid)
    return {"variant": vid, "workload": f["workload"], "lang": f["lang"], "style": f["style"],
            "mode": f["mode"], "backend": f["backend"], "iterations": 10000, "concurrency": 0, "n": n,
            "statuses": statuses or {"ok": n, "invalid": 0, "failed": 0, "timeout": 0, "crashed": 0},
            "median_ms": median if n else None,
            "ci_low_ms": median * 0.98 if n else None, "ci_high_ms": median * 1.02 if n else None,
            "baseline": None, "ratio": None, "ratio_ci_low": None, "ratio_ci_high": None,
            "significant": None, "proc_peak_rss_kb": 1000, "proc_user_ms": 1.0, "proc_sys_ms": 1.0, "warnings": []}


def make_summary(medians=MEDIANS, **run):
    info = {"profile": "full", "iterations": 10000, "rounds": 12, "complete": True,
            "variants": list(medians), "skipped": [], "filters": None}
    info.update(run)
    return {"run": info, "host": {"node": "v20.0.0", "go": "go version go1.21.0", "slug": "test-host"},
            "variants": [row(v, m) for v, m in medians.items()]}


def write_samples(folder, medians, rounds=12):
    """samples.csv where each variant's time per round is its median times a
    round factor shared by every variant (drift), so paired ratios are exact."""
    path = os.path.join(folder, "samples.csv")
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(summary_mod.SAMPLE_COLUMNS)
        for r in range(1, rounds + 1):
            drift = 1.0 + 0.05 * (r % 4)
            for order, (vid, ms) in enumerate(medians.items()):
                rec = {c: "" for c in summary_mod.SAMPLE_COLUMNS}
                rec.update(catalog_mod.parse_id(vid))
                rec.update(round=r, order=order, variant=vid, iterations=10000,
                           concurrency=catalog_mod.given_concurrency(rec["mode"], 64),
                           status="ok", exit_code=0,
                           elapsed_ns=int(ms * 1e6 * drift), wall_ns=int(ms * 1e6 * drift) + 1,
                           proc_user_us=1, proc_sys_us=1, proc_peak_rss_kb=1, ok=10000, bytes=120000)
                w.writerow([rec[c] for c in summary_mod.SAMPLE_COLUMNS])
    return path


def table_rows(md, header_start):
    """The data rows (lists of cells) of the Markdown table whose header starts so."""
    lines = md.splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith(header_start))
    out = []
    for l in lines[start + 2:]:
        if not l.startswith("|"):
            break
        out.append([c.strip() for c in l.strip("|").split("|")])
    return out


class ReproduceTest(unittest.TestCase):
    def setUp(self):
        patcher = mock.patch.object(reproduce.catalog_mod, "for_run", return_value=CATALOG)
        patcher.start()
        self.addCleanup(patcher.stop)

    def test_the_claims_are_the_catalogs_data(self):
        claims = CATALOG.workloads["readfile"]["claims"]
        md = reproduce.markdown(make_summary())
        self.assertIn("## %s" % claims["title"], md)
        self.assertEqual(len(table_rows(md, "| # |")),
                         len(claims["ratios"]) + len(claims["absolute"]))
        for c in claims["ratios"]:
            self.assertIn("`%s` / `%s`" % (c["num"], c["den"]), md)
            for vid in [c["num"], c["den"]] + c["seed_method"]:
                self.assertIsNotNone(CATALOG.find(vid), vid)

    def test_a_workload_without_variants_in_the_run_has_no_section(self):
        summary = make_summary({})
        self.assertEqual(reproduce.markdown(summary), "")

    def test_paired_ratios_with_confidence_intervals_from_samples(self):
        with tempfile.TemporaryDirectory() as d:
            write_samples(d, MEDIANS)
            md = reproduce.markdown(make_summary(), d)
        claims = table_rows(md, "| # |")
        self.assertEqual(len(claims), 7)
        # Claim 1: await / callback parallel = 180 / 60 = 3.00, every round alike.
        self.assertEqual(claims[0][3], "3.00x [3.00, 3.00]")
        self.assertIn("direction holds, magnitude does not**: 3.0x here (CI below it)",
                      claims[0][5])
        # Seed's method: 300 / 150; the in-process ratio over it, 3.00 / 2.00.
        self.assertEqual(claims[0][4], "2.00x [2.00, 2.00]; in-process over this: 1.50x [1.50, 1.50]")
        # The absolute claim: 230 ms in-process over 330 ms as one node --test process.
        self.assertEqual(claims[6][4], "330 ms [323, 337]; in-process over this: 0.70x [0.70, 0.70]")
        # Claim 4: Node sequential callbacks / Go = 160 / 8.
        self.assertEqual(claims[3][3], "20.00x [20.00, 20.00]")
        self.assertIn("magnitude does not**: 20.0x here (CI above it), claimed 4.9x", claims[3][5])
        # Claim 6: Go's absolute time with its CI.
        self.assertEqual(claims[5][3], "8.00 ms [7.84, 8.16]")
        self.assertIn("faster here", claims[5][5])
        # At most 6 columns: the table fits an issue comment.
        self.assertTrue(all(len(c) <= 6 for c in claims))
        self.assertIn("round-paired", md)

    def test_decomposition_divides_node_by_c_round_by_round(self):
        with tempfile.TemporaryDirectory() as d:
            write_samples(d, MEDIANS)
            md = reproduce.markdown(make_summary(), d)
        dec = {r[0]: r for r in table_rows(md, "| gap | in Node")}
        par = dec["await / callback, parallel"]
        self.assertEqual(par[1], "3.00x [3.00, 3.00]")
        self.assertEqual(par[2], "1.10x [1.10, 1.10]")            # 55 / 50
        self.assertEqual(par[3], "2.73x [2.73, 2.73]")            # 3.00 / 1.10
        self.assertEqual(par[4], "9% [9, 9]")                     # ln 1.1 / ln 3, every round
        go = dec["Node sequential callbacks / Go"]
        self.assertEqual(go[2], "12.50x [12.50, 12.50]")          # 100 / 8
        self.assertEqual(go[3], "1.60x [1.60, 1.60]")             # 160 / 100
        # C on node4 against Go is node4's four threadpool trips, not a style:
        # no share (the reference report once called it the style's 92%).
        self.assertTrue(go[4].startswith("none: "), go[4])
        self.assertIn("threadpool", go[4])
        self.assertNotIn("%", go[4])
        split = {r[0]: r for r in table_rows(md, "| gap in Node |")}
        self.assertEqual(split["await / callback, parallel"][2], "1.50x [1.50, 1.50]")  # 90 / 60
        self.assertEqual(split["await / callback, parallel"][3], "2.00x [2.00, 2.00]")  # 180 / 90

    def test_without_samples_the_ratio_of_medians_is_shown_without_a_ci(self):
        md = reproduce.markdown(make_summary())
        claims = table_rows(md, "| # |")
        self.assertEqual(claims[1][3], "1.50x (ratio of medians, no CI: samples.csv not read)")
        self.assertIn("no CI", claims[1][5])
        self.assertIn("no run folder was given", md)

    def test_missing_variants_are_explained_in_every_cell(self):
        medians = dict(MEDIANS)
        for vid in ("readfile/node/await-parallel@fs.promises", "readfile/c/await-sequential@node4", "readfile/node/await-nodetest-parallel@fs.promises"):
            del medians[vid]
        summary = make_summary(medians)
        summary["run"]["skipped"] = []
        # A variant that ran but never validly, and one the catalog lacks.
        summary["variants"].append(row("readfile/node/await-sequential@fs.promises", 0, n=0, statuses={
            "ok": 0, "invalid": 0, "failed": 3, "timeout": 0, "crashed": 0}))
        summary["variants"] = [r for r in summary["variants"]
                               if not (r["variant"] == "readfile/node/await-sequential@fs.promises" and r["n"])]
        catalog = CatalogWithout(CATALOG, "readfile/c/await-sequential@node4")
        with mock.patch.object(reproduce.catalog_mod, "for_run", return_value=catalog):
            md = reproduce.markdown(summary)
        claims = table_rows(md, "| # |")
        self.assertEqual(claims[0][3], "not measured: `readfile/node/await-parallel@fs.promises` is not in this run (profile full)")
        self.assertEqual(claims[0][4], "not measured: `readfile/node/await-nodetest-parallel@fs.promises` is not in this run (profile full)")
        self.assertEqual(claims[0][5], "cannot tell: not measured")
        self.assertEqual(claims[1][3], "not measured: `readfile/node/await-sequential@fs.promises` had no valid run (3 failed)")
        dec = {r[0]: r for r in table_rows(md, "| gap | in Node")}
        self.assertEqual(dec["await / callback, sequential"][2],
                         "not measured: `readfile/c/await-sequential@node4` is not in the catalog yet")

    def test_node_missing_and_an_interrupted_run_are_named(self):
        medians = {k: v for k, v in MEDIANS.items() if not k.startswith("readfile/node/")}
        summary = make_summary(medians, complete=False,
                               skipped=["16 Node variants (no node found: install Node.js or set NODE): "
                                        + ", ".join(k for k in MEDIANS if k.startswith("readfile/node/"))])
        summary["run"]["variants"].append("readfile/c/await-parallel@node4")
        summary["variants"] = [r for r in summary["variants"] if r["variant"] != "readfile/c/await-parallel@node4"]
        md = reproduce.markdown(summary)
        self.assertIn("**incomplete**", md)
        claims = table_rows(md, "| # |")
        self.assertEqual(claims[0][3], "not measured: `readfile/node/await-parallel@fs.promises` was skipped: "
                                       "16 Node variants (no node found")
        dec = {r[0]: r for r in table_rows(md, "| gap | in Node")}
        self.assertEqual(dec["await / callback, parallel"][2],
                         "not measured: the run ended before `readfile/c/await-parallel@node4` ran "
                         "(it did not finish)")

    def test_every_cell_has_a_number_or_a_reason(self):
        for medians in (MEDIANS, {"readfile/go/sync-sequential@os.ReadFile": 8.0}):
            md = reproduce.markdown(make_summary(medians))
            # The measured columns of each table (the others are the claims' text).
            for header, first in (("| # |", 5), ("| gap | in Node", 1), ("| gap in Node |", 1)):
                for cells in table_rows(md, header):
                    for cell in cells[first:]:
                        self.assertTrue(re.search(r"\d|not measured|cannot tell|same", cell),
                                        "empty-handed cell %r in %r" % (cell, cells))

    def test_a_skipped_variant_is_named_with_its_reason(self):
        medians = {k: v for k, v in MEDIANS.items() if k != "readfile/c/await-parallel@node4"}
        summary = make_summary(medians, skipped=[{"variant": "readfile/c/await-parallel@node4",
                                                  "reason": "probe failed: no coroutines here"}])
        dec = {r[0]: r for r in table_rows(reproduce.markdown(summary), "| gap | in Node")}
        self.assertEqual(dec["await / callback, parallel"][2],
                         "not measured: `readfile/c/await-parallel@node4` was skipped: "
                         "probe failed: no coroutines here")

    def test_small_n_makes_absolute_claims_not_comparable(self):
        summary = make_summary(iterations=500)
        for r in summary["variants"]:
            r["iterations"] = 500
        md = reproduce.markdown(summary)
        claims = table_rows(md, "| # |")
        self.assertEqual(claims[5][5], "not comparable: this run read the file 500 times, "
                                       "the claim is for 10,000")
        self.assertIn("With N = 500 instead of the seed's 10,000, what a pass pays once (its "
                      "first, cold operations) weighs more", md)

    def test_a_larger_n_than_the_seeds_never_says_fixed_costs_weigh_more(self):
        # Seed 004 ran 5 repetitions; the default profile runs 40,000.
        summary = make_summary(FIB_MS, iterations=40000)
        for r in summary["variants"]:
            r["iterations"] = 40000
        md = reproduce.markdown(summary)
        self.assertNotIn("weigh more", md)
        self.assertNotIn("weighs more", md)
        self.assertIn("With N = 40,000 instead of the seed's 5, what a pass pays once weighs less", md)

    def test_a_section_says_the_warm_up_its_run_gave_the_workload(self):
        # run.json's workloads record each workload's warm-up (warmup_ops): a
        # seed-profile run at warm-up 0 says so, an older one says its own.
        runs = {0: "N = 10,000, no warm-up, 12 rounds",
                1000: "N = 10,000, after a warm-up of 1,000, 12 rounds"}
        for ops, said in runs.items():
            md = reproduce.markdown(make_summary(workloads={"readfile": {"warmup_ops": ops}}))
            self.assertIn("This run: profile `full`, %s" % said, md)
        md = reproduce.markdown(make_summary())  # a run that did not record it
        self.assertIn("This run: profile `full`, N = 10,000, 12 rounds", md)

    def test_verdicts(self):
        def r(v, lo, hi):
            return {"value": v, "low": lo, "high": hi, "rounds": 12, "paired": True}
        self.assertIn("holds**: the CI includes 4.8x",
                      claimverdicts.verdict_ratio(r(4.7, 4.5, 5.0), 4.8))
        self.assertIn("reversed", claimverdicts.verdict_ratio(r(0.8, 0.7, 0.9), 4.8))
        self.assertIn("does not hold here", claimverdicts.verdict_ratio(r(1.0, 0.9, 1.1), 4.8))
        self.assertIn("direction holds, magnitude does not**: 2.0x here (CI below it)",
                      claimverdicts.verdict_ratio(r(2.0, 1.9, 2.1), 4.8))
        self.assertIn("magnitude does not**: 9.0x here (CI above it)",
                      claimverdicts.verdict_ratio(r(9.0, 8.0, 10.0), 4.8))
        self.assertIn("no CI", claimverdicts.verdict_ratio(
            {"value": 2.0, "low": None, "high": None, "rounds": 3, "paired": True}, 4.8))

    def test_a_share_only_when_both_ratios_name_a_gap_with_its_own_interval(self):
        # C's await costs nothing resolvable in half the rounds: its ratio's CI
        # holds 1, so no share (the reference once printed a clamped "100%"
        # beside such a ratio).
        medians = dict(MEDIANS)
        with tempfile.TemporaryDirectory() as d:
            write_samples(d, medians)
            path = os.path.join(d, "samples.csv")
            with open(path, encoding="utf-8") as f:
                recs = list(csv.DictReader(f))
            for rec in recs:
                if rec["variant"] == "readfile/c/await-parallel@node4":
                    # Alternately 5% above and below C's callbacks (50 ms x drift).
                    drift = 1.0 + 0.05 * (int(rec["round"]) % 4)
                    factor = 1.05 if int(rec["round"]) % 2 else 0.95
                    rec["elapsed_ns"] = str(int(50.0 * 1e6 * drift * factor))
            with open(path, "w", newline="", encoding="utf-8") as f:
                w = csv.DictWriter(f, fieldnames=summary_mod.SAMPLE_COLUMNS)
                w.writeheader()
                w.writerows(recs)
            md = reproduce.markdown(make_summary(), d)
        dec = {r[0]: r for r in table_rows(md, "| gap | in Node")}
        par = dec["await / callback, parallel"]
        self.assertRegex(par[2], r"\[0\.9\d, 1\.0\d\]")
        self.assertEqual(par[4], "none: C's ratio names no gap here (the style costs C nothing "
                                 "resolvable)")
        # A row where both name a gap gets the share with its interval.
        self.assertRegex(dec["await / callback, sequential"][4], r"^\d+% \[\d+, \d+\]$")

    def test_no_decomposition_row_divides_unlike_connections(self):
        # httpchain once divided a Node connection-per-request ratio by a C
        # keep-alive one.
        for name, w in CATALOG.workloads.items():
            for d in ((w.get("claims") or {}).get("decomposition") or {}).get("rows", []):
                modes = {v.rsplit("@", 1)[1].partition(".")[2] for v in d["node"] + d["c"]
                         if v.split("/")[0] == "httpchain"}
                self.assertLessEqual(len(modes), 1, (name, d["gap"], modes))

    def test_too_few_paired_rounds_say_so(self):
        with tempfile.TemporaryDirectory() as d:
            write_samples(d, MEDIANS, rounds=3)
            md = reproduce.markdown(make_summary(), d)
        claims = table_rows(md, "| # |")
        self.assertRegex(claims[0][3], r"^3\.00x \(no CI: 3 paired rounds, \d+ needed\)$")


if __name__ == "__main__":
    unittest.main()
