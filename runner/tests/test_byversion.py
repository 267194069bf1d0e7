"""Tests of byversion.py: the seeds' claims per runtime version, from made-up
round times of the real catalog's doxbee and readfile claims."""
import copy
import unittest

from ..analysis import byversion
from ..core import prose
from ..catalog import catalog
from ..catalog import catalog_check
from ..analysis import claimrun

CAT = catalog.load()
NATIVE = "doxbee/node/promise-parallel-parallel@native"
BLUEBIRD = "doxbee/node/promise-parallel-parallel@bluebird"
SEQ_PROMISE = "doxbee/node/promise-sequential-parallel@native"
SEQ_AWAIT = "doxbee/node/await-sequential-parallel@native"


def vid(base, version):
    return catalog.variant_id(dict(CAT.find(base), runtime=version))


def make_run(ratios, versions=("10.24.1", "12.22.12", "24.22.3"), skipped=()):
    """A Run whose times give, per version, native / bluebird = ratios[version]
    and the sequential pair 1.0 (8 rounds, a little noise), every variant's
    row measured."""
    rows, times, skips = [], {}, []
    for ver in versions:
        for base, scale in ((NATIVE, ratios[ver]), (BLUEBIRD, 1.0), (SEQ_PROMISE, 1.0),
                            (SEQ_AWAIT, 1.0)):
            v = vid(base, ver)
            if ver in skipped:
                skips.append({"variant": v, "reason": "needs node 99.0.0 or later: made up"})
                continue
            rows.append({"variant": v, "workload": "doxbee", "lang": "node", "runtime": ver,
                         "n": 8, "median_ms": 10.0 * scale})
            times[v] = {r: 1e7 * scale * (1 + 0.001 * ((r * 7 + len(v)) % 5)) for r in range(1, 9)}
    run = claimrun.Run({"run": {"profile": "runtimes", "skipped": skips}, "host": {},
                         "variants": rows}, None, CAT)
    run.times = times
    return run


class ByVersion(unittest.TestCase):
    def claims(self):
        return CAT.workloads["doxbee"]["claims"]

    def test_versions_in_release_order(self):
        run = make_run({"10.24.1": 3.0, "12.22.12": 2.0, "24.22.3": 1.0},
                       versions=("24.22.3", "10.24.1", "12.22.12"))
        self.assertEqual(byversion.versions_in(run), {"node": ["10.24.1", "12.22.12", "24.22.3"]})

    def test_the_table_has_the_seeds_runtime_and_todays(self):
        run = make_run({"10.24.1": 3.0, "12.22.12": 2.0, "24.22.3": 1.0})
        text = "\n".join(byversion.section(run, "doxbee", self.claims()))
        self.assertIn("seed's runtime here (Node 10.24.1) | today's runtime here (Node 24.22.3)", text)
        row = [l for l in text.splitlines() if l.startswith("| 2 | ") and "bluebird" in l][0]
        self.assertRegex(row, r"\| 4\.0x \| 3\.00x \[2\.99, 3\.01\], direction holds, smaller \| "
                              r"1\.00x \[1\.00, 1\.00\], no difference")
        self.assertIn("| # | Node 10.24.1 (seed's) | Node 12.22.12 | Node 24.22.3 |", text)

    def test_a_claim_with_a_c_side_is_left_to_the_default_run(self):
        cl = copy.deepcopy(self.claims())
        cl["ratios"].append({"id": "x", "whose": "C", "claim": "made up", "seed": 2.0,
                             "num": "doxbee/c/promise-parallel-parallel@sleepq", "den": NATIVE})
        run = make_run({"10.24.1": 3.0, "12.22.12": 2.0, "24.22.3": 1.0})
        self.assertEqual(len(byversion.compared(CAT, cl, byversion.versions_in(run))), 2)
        self.assertNotIn("made up", "\n".join(byversion.section(run, "doxbee", cl)))

    def test_a_skipped_version_says_so(self):
        run = make_run({"10.24.1": 3.0, "12.22.12": 2.0, "24.22.3": 1.0}, skipped=("12.22.12",))
        text = "\n".join(byversion.section(run, "doxbee", self.claims()))
        self.assertEqual(byversion.versions_in(run), {"node": ["10.24.1", "24.22.3"]})
        r = byversion.ratio_on(run, self.claims()["ratios"][1], {"node": "12.22.12"})
        self.assertRegex(r["missing"], "was skipped: needs node 99.0.0")
        self.assertNotIn("12.22.12", text.split("Every version")[1])

    def test_a_skipped_seed_version_gives_its_reason_once_in_a_note(self):
        run = make_run({"10.24.1": 3.0, "12.22.12": 2.0, "24.22.3": 1.0}, skipped=("10.24.1",))
        text = "\n".join(byversion.section(run, "doxbee", self.claims()))
        rows = [l for l in text.splitlines() if l.startswith(("| 1 | ", "| 2 | "))][:2]
        self.assertEqual(len(rows), 2)
        for row in rows:
            self.assertIn("skipped (note 1)", row)
            self.assertNotIn("made up", row)
        self.assertEqual(text.count("made up"), 1)
        self.assertIn("- Note 1: not measured, the variant was skipped: needs node 99.0.0 or later: made up", text)

    def test_every_version_cells_have_two_decimals_as_the_seeds_table(self):
        run = make_run({"10.24.1": 3.0, "12.22.12": 2.0, "24.22.3": 1.0})
        every = "\n".join(byversion.section(run, "doxbee", self.claims())).split("Every version")[1]
        self.assertRegex(every, r"\| 3\.00x \[\d\.\d\d, \d\.\d\d\], ")
        self.assertRegex(every, r"\| 1\.00x \[\d\.\d\d, \d\.\d\d\], no difference")

    def test_a_verdict_that_changes_is_a_sentence_naming_both_versions(self):
        run = make_run({"10.24.1": 3.0, "12.22.12": 2.0, "24.22.3": 1.0})
        found = byversion.changes(run, self.claims())
        self.assertEqual([c["num"] for c, _, _ in found], [NATIVE])
        sentence = found[0][2]
        self.assertIn("3.00x [2.99, 3.01] on Node 10.24.1", sentence)
        self.assertIn("1.00x [1.00, 1.00] on Node 24.22.3", sentence)
        self.assertTrue(sentence.startswith("Node: bluebird is up to 4x faster"), sentence)
        self.assertIn("By version: \"direction holds, smaller\" on 10.24.1 to 12.22.12, "
                      "\"no difference\" on 24.22.3.", sentence)
        self.assertEqual(prose.long_sentences(sentence), [])

    def test_a_verdict_that_flickers_shows_each_stretch(self):
        seen = [("10", None, "a"), ("12", None, "a"), ("14", None, "b"), ("18", None, "a")]
        self.assertEqual(byversion.runs_of(seen), [("a", "10 to 12"), ("b", "14"), ("a", "18")])

    def test_a_verdict_that_holds_everywhere_is_no_sentence(self):
        run = make_run({"10.24.1": 3.0, "12.22.12": 3.1, "24.22.3": 3.2})
        self.assertEqual(byversion.changes(run, self.claims()), [])

    def test_the_seeds_runtime_must_be_a_listed_version(self):
        rt = CAT.suite["runtimes"]
        catalog_check.check_claim_runtimes(None, rt, "w")
        catalog_check.check_claim_runtimes({"about": "a", "node": "10.24.1"}, rt, "w")
        with self.assertRaisesRegex(catalog.CatalogError, "node '10.6.0' is not a version"):
            catalog_check.check_claim_runtimes({"about": "a", "node": "10.6.0"}, rt, "w")
        with self.assertRaisesRegex(catalog.CatalogError, "with an about"):
            catalog_check.check_claim_runtimes({"node": "10.24.1"}, rt, "w")
        for name in ("asyncfib", "doxbee", "httpchain", "readfile"):
            self.assertTrue(byversion.seed_pins(CAT.workloads[name]["claims"]), name)


if __name__ == "__main__":
    unittest.main()
