"""Unit tests of runner/verdicts.py: the same-language comparisons and their sentences."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import verdicts  # noqa: E402
from test_summary import CB, sample, summarize  # noqa: E402

AW = "readfile/c/await-sequential@node4"
SY = "readfile/c/sync-sequential@node4"
NCB = "readfile/node/callback-sequential@fs.readFile"
NAW = "readfile/node/await-sequential@fs.promises"


def rows_of(spec, rounds=10):
    """Summary rows of variants whose time per round is base(round) * factor."""
    return summarize([sample(r, v, (10 + r % 3) * f) for r in range(1, rounds + 1)
                      for v, f in spec])


class HeadlineTest(unittest.TestCase):
    def test_each_variant_is_compared_within_its_own_language(self):
        rows = rows_of([(CB, 1), (AW, 1.0), (NCB, 2), (NAW, 6)])
        h = {e["variant"]: e for e in verdicts.headline(rows)}
        self.assertEqual(h[AW]["baseline"], CB)
        self.assertEqual(h[NAW]["baseline"], NCB)     # Node against Node, not against C
        self.assertEqual(h[NAW]["ratio"], 3.0)
        self.assertTrue(h[NCB]["is_baseline"])
        # 6b - 2b per round over 100 operations, b = 10..12 ms: median 4 * 11 ms / 100.
        self.assertAlmostEqual(h[NAW]["diff_per_op_ns"], 440000.0)
        self.assertLessEqual({"ratio_ci_low", "ratio_ci_high", "significant", "mode", "lang",
                              "style", "diff_per_op_ns_ci_low", "unit"}, set(h[AW]))


class SentencesTest(unittest.TestCase):
    def test_a_significant_difference_reads_like_hyperfine(self):
        rows = rows_of([(NCB, 1), (NAW, 3)])
        (workload, sentences), = verdicts.sentences(rows)
        self.assertEqual(workload, "readfile")
        self.assertEqual(len(sentences), 1)
        # 3x every round; the difference is 2x the baseline's 10-12 ms over 100 reads.
        self.assertRegex(sentences[0], r"^In sequential mode, against Node callback: "
                                       r"`await@fs.promises` ran 3\.00x \[3\.00, 3\.00\] slower "
                                       r"\(\+220 µs \[200, 240\] per operation\)\.$")

    def test_no_significant_difference_is_never_called_a_speed_up(self):
        rows = summarize([sample(r, v, 10 + (r % 2) * (v == AW)) for r in range(1, 11)
                          for v in (CB, AW)])
        (_, sentences), = verdicts.sentences(rows)
        self.assertIn("`await` is not resolvably different (intervals", sentences[0])
        self.assertNotIn("faster", sentences[0])
        self.assertNotIn("slower", sentences[0])

    def test_faster_styles_are_named_with_the_inverse_ratio(self):
        rows = rows_of([(CB, 1), (SY, 0.5)])
        (_, sentences), = verdicts.sentences(rows)
        self.assertIn("`sync` ran 2.00x [2.00, 2.00] faster (-", sentences[0])

    def test_too_few_rounds_say_untested(self):
        rows = rows_of([(CB, 1), (AW, 1.1)], rounds=3)
        (_, sentences), = verdicts.sentences(rows)
        self.assertIn("`await` 1.10x untested (3 paired rounds: a test needs 6)", sentences[0])

    def test_one_sentence_per_mode_and_none_without_a_comparison(self):
        rows = rows_of([(CB, 1), (AW, 1.0), ("readfile/c/callback-parallel@node4", 1),
                        ("readfile/c/await-parallel@node4", 2)])
        (_, sentences), = verdicts.sentences(rows)
        self.assertEqual([s.split(",")[0] for s in sentences],
                         ["In sequential mode", "In parallel mode"])
        self.assertEqual(verdicts.sentences(rows_of([(CB, 1)])), [])


if __name__ == "__main__":
    unittest.main()
