"""Unit tests of runner/analysis/verdicts.py: the same-language comparisons and their sentences."""
import unittest

from ..analysis import summary as sm
from ..analysis import verdicts
from .test_summary import CB, sample, summarize

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


def rows_on_backends(spec, rounds=10):
    """Summary rows whose C variants are compared with the C callback of their own
    mode and backend (readfile's baselines), the time per round base(round) * factor."""
    vids = [v for v, _ in spec]
    table = {}
    for vid in vids:
        workload, lang, rest = vid.split("/")
        name, backend = rest.split("@")
        mode = name.rsplit("-", 1)[1]
        table[vid] = {"c": ["%s/c/callback-%s@%s" % (workload, mode, backend), "C callback"],
                      "lang": None}
    return sm.summarize([sample(r, v, (10 + r % 3) * f) for r in range(1, rounds + 1)
                         for v, f in spec], table)


class SentencesTest(unittest.TestCase):
    """The short verdicts: a sentence per language, or per backend."""

    def test_a_significant_difference_reads_like_hyperfine(self):
        rows = rows_of([(NCB, 1), (NAW, 3)])
        (workload, sentences), = verdicts.sentences(rows)
        self.assertEqual(workload, "readfile")
        # 3x every round; the difference is 2x the baseline's 10-12 ms over 100 reads.
        self.assertEqual(sentences, ["`await@fs.promises` ran 3.00x [3.00, 3.00] slower than "
                                     "Node callback (+220 µs per operation)."])

    def test_one_sentence_per_language_each_against_its_own(self):
        rows = rows_of([(CB, 1), (AW, 2), (NCB, 2), (NAW, 6)])
        (_, sentences), = verdicts.sentences(rows)
        self.assertEqual(len(sentences), 2)
        self.assertRegex(sentences[0], r"^`await` ran 2\.00x \[2\.00, 2\.00\] slower than "
                                       r"C callback \(\+110 µs per operation\)\.$")
        self.assertRegex(sentences[1], r"^`await@fs\.promises` ran 3\.00x .* than Node callback")

    def test_the_largest_are_named_and_the_rest_given_as_a_range(self):
        styles = [("await", 5), ("promise", 4), ("stackless", 3), ("fiber", 2)]
        rows = rows_of([(CB, 1)] + [("readfile/c/%s-sequential@node4" % s, f)
                                    for s, f in styles])
        (_, (sentence,)), = verdicts.sentences(rows)
        # Largest first: two named with their intervals, the other two as a range.
        self.assertEqual(sentence, "`await` ran 5.00x [5.00, 5.00] slower than C callback "
                                   "(+440 µs per operation), `promise` 4.00x [4.00, 4.00] "
                                   "(+330 µs) and 2 more from 2.00x to 3.00x (+110 to +220 µs).")
        # Three are all named.
        rows = rows_of([(CB, 1)] + [("readfile/c/%s-sequential@node4" % s, f)
                                    for s, f in styles[:3]])
        (_, (sentence,)), = verdicts.sentences(rows)
        self.assertIn("`stackless` 3.00x [3.00, 3.00] (+220 µs).", sentence)
        self.assertNotIn("more", sentence)

    def test_no_significant_difference_is_never_called_a_speed_up(self):
        rows = summarize([sample(r, v, 10 + (r % 2) * (v == AW)) for r in range(1, 11)
                          for v in (CB, AW)])
        (_, (sentence,)), = verdicts.sentences(rows)
        self.assertRegex(sentence, r"^`await` is not resolvably different from C callback "
                                   r"\(differences under about [0-9.]+ µs per operation not "
                                   r"resolvable\)\.$")
        self.assertNotIn("faster", sentence)
        self.assertNotIn("slower", sentence)

    def test_faster_styles_are_named_with_the_inverse_ratio(self):
        rows = rows_of([(CB, 1), (SY, 0.5)])
        (_, (sentence,)), = verdicts.sentences(rows)
        self.assertTrue(sentence.startswith(
            "`sync` ran 2.00x [2.00, 2.00] faster than C callback (-"), sentence)

    def test_too_few_rounds_say_untested(self):
        rows = rows_of([(CB, 1), (AW, 1.1)], rounds=3)
        (_, (sentence,)), = verdicts.sentences(rows)
        self.assertEqual(sentence, "`await` 1.10x against C callback, untested "
                                   "(3 paired rounds: a test needs 6).")

    def test_several_modes_tag_each_name_with_its_mode(self):
        rows = rows_of([(CB, 1), (AW, 1.0), ("readfile/c/callback-parallel@node4", 1),
                        ("readfile/c/await-parallel@node4", 2)])
        (_, (sentence,)), = verdicts.sentences(rows)
        self.assertRegex(sentence, r"^`await` \(parallel\) ran 2\.00x .* slower than C callback"
                                   r" .*\. `await` \(sequential\) is not resolvably different")
        self.assertEqual(verdicts.sentences(rows_of([(CB, 1)])), [])

    def test_backends_where_the_style_shows_get_a_sentence_each(self):
        spec = []
        for backend, f in (("node4", 1.0), ("inline", 1.5), ("uring", 1.2), ("fused", 1.0)):
            for mode in ("sequential", "parallel"):
                spec += [("readfile/c/callback-%s@%s" % (mode, backend), 1),
                         ("readfile/c/await-%s@%s" % (mode, backend), f),
                         ("readfile/c/promise-%s@%s" % (mode, backend), f)]
        (_, sentences), = verdicts.sentences(rows_on_backends(spec))
        # inline and uring, where a style is slower, then node4 and fused together.
        self.assertEqual([s.split(",")[0] for s in sentences[:2]], ["On `inline`", "On `uring`"])
        self.assertEqual(len(sentences), 3)
        self.assertRegex(sentences[0], r"^On `inline`, `await` \((sequential|parallel)\) ran "
                                       r"1\.50x \[1\.50, 1\.50\] slower than C callback .* and "
                                       r"2 more from 1\.50x to 1\.50x")
        self.assertRegex(sentences[2], r"^On `(node4|fused)` and `(node4|fused)`, no style is "
                                       r"resolvably different from C callback \(8 comparisons; "
                                       r"differences under about [0-9.]+ µs per operation not "
                                       r"resolvable\)\.$")
        self.assertIn("`node4`", sentences[2])
        self.assertIn("`fused`", sentences[2])


PR = "readfile/c/promise-sequential@node4"


def held_rows():
    """6 rounds: `await` 2x C callback in every round (sign test p = 1/32), `promise`
    equal to it in every round (p = 1): a family of 2 tests, where 1/32 is above
    the Benjamini-Hochberg threshold 0.05/2 of the smallest p-value."""
    return rows_of([(CB, 1), (AW, 2), (PR, 1.0)], rounds=6)


class HeldBackTest(unittest.TestCase):
    """An interval that excludes 1 whose test does not survive the false discovery
    rate control is neither named nor called not resolvably different."""

    def test_the_short_sentence_gives_it_with_the_rounds_that_would_name_it(self):
        (_, (sentence,)), = verdicts.sentences(held_rows())
        self.assertEqual(sentence.split(" `promise`")[0],
                         "`await` ran 2.00x [2.00, 2.00] slower than C callback (+110 µs per "
                         "operation). At 6 paired rounds its sign test does not survive the "
                         "false discovery rate control over the run's 2 comparisons (q > 0.05), "
                         "so it is not named. At 7 rounds a difference seen in every round "
                         "would be named.")
        self.assertRegex(sentence, r"\. `promise` is not resolvably different \(differences "
                                   r"under about \S+ µs per operation not resolvable\)\.$")
        self.assertNotIn("no style", sentence)

    def test_the_glance_does_not_say_none_differs(self):
        head, line = verdicts.glance(held_rows())
        self.assertEqual(head, "- **readfile** (N = 100, per operation):")
        self.assertEqual(line, "  - Against C callback, none of 2 styles named. 1 has an "
                               "interval that excludes 1, at most `await` 2.00x [2.00, 2.00]. "
                               "It does not survive the false discovery rate control at 6 "
                               "paired rounds.")

    def test_every_comparison_names_it_apart_from_the_undecided(self):
        (_, (sentence,)), = verdicts.full_sentences(held_rows())
        self.assertIn("`await` 2.00x [2.00, 2.00] has an interval that excludes 1 (slower). "
                      "At 6 paired rounds its sign test", sentence)
        self.assertIn("`promise` is not resolvably different (intervals 1.00x to 1.00x", sentence)

    def test_held_back_slower_and_faster_together_are_said_to_be_both(self):
        # `await` 3x slower and `sync` 2x faster in all 6 rounds, `promise` and
        # `stackless` equal: a family of 4 where p = 1/32 is above 0.05 * 2 / 4.
        rows = rows_of([(CB, 1), (AW, 3), (SY, 0.5), (PR, 1.0),
                        ("readfile/c/stackless-sequential@node4", 1.0)], rounds=6)
        (_, (sentence,)), = verdicts.full_sentences(rows)
        self.assertIn("`await` 3.00x [3.00, 3.00] and `sync` 2.00x [2.00, 2.00] each have an "
                      "interval that excludes 1 (slower or faster)", sentence)

    def test_the_rounds_that_survive_any_family(self):
        from ..core import stats
        for m in (1, 2, 10, 175, 1000):
            n = stats.rounds_to_survive(m)
            for k, survives in ((n, True), (n - 1, False)):
                q = stats.bh_adjust([stats.sign_test([2.0] * k)] + [1.0] * (m - 1))[0]
                self.assertEqual(q <= stats.ALPHA, survives, (m, k, q))
        self.assertEqual(stats.rounds_to_survive(175), 13)


class GlanceTest(unittest.TestCase):
    """docs/results.md's glance: a bullet per workload, a sentence per language."""

    def test_a_line_per_workload_counts_the_slower_styles_and_names_the_largest(self):
        styles = [("await", 5), ("promise", 4), ("stackless", 1.0), ("fiber", 1.0)]
        rows = rows_of([(CB, 1)] + [("readfile/c/%s-sequential@node4" % s, f)
                                    for s, f in styles] + [(NCB, 1), (NAW, 3)])
        self.assertEqual(verdicts.glance(rows), [
            "- **readfile** (N = 100, per operation):",
            "  - Against C callback, 2 of 4 styles resolvably slower, at most `await` 5.00x "
            "[5.00, 5.00].",
            "  - Against Node callback, 1 of 1 style resolvably slower, at most "
            "`await@fs.promises` 3.00x [3.00, 3.00]."])

    def test_a_language_where_no_style_differs_gives_the_resolution(self):
        rows = rows_of([(CB, 1), (AW, 1.0)])
        _, line = verdicts.glance(rows)
        self.assertRegex(line, r"Against C callback, none of 1 style resolvably different "
                               r"\(under about \S+ \S+ per operation\)\.$")

    def test_faster_styles_are_counted_apart(self):
        rows = rows_of([(CB, 1), (AW, 2), (SY, 0.5)])
        _, line = verdicts.glance(rows)
        self.assertIn("1 of 2 styles resolvably slower, at most `await` 2.00x [2.00, 2.00]. "
                      "1 is faster, at most `sync` 2.00x [2.00, 2.00].", line)


class FullSentencesTest(unittest.TestCase):
    """Every comparison one by one: a sentence per mode, each baseline named."""

    def test_a_significant_difference_reads_like_hyperfine(self):
        rows = rows_of([(NCB, 1), (NAW, 3)])
        (workload, sentences), = verdicts.full_sentences(rows)
        self.assertEqual(workload, "readfile")
        self.assertRegex(sentences[0], r"^In sequential mode, against Node callback: "
                                       r"`await@fs.promises` ran 3\.00x \[3\.00, 3\.00\] slower "
                                       r"\(\+220 µs \[200, 240\] per operation\)\.$")

    def test_many_styles_alike_are_listed_in_short_sentences(self):
        others = [("readfile/c/s%02d-sequential@node4" % k, 1.0) for k in range(23)]
        rows = rows_of([(CB, 1)] + others)
        (_, (sentence,)), = verdicts.full_sentences(rows)
        self.assertRegex(sentence, r"^In sequential mode, against C callback: 23 styles are not "
                                   r"resolvably different \(intervals ")
        self.assertIn(" They are `s00`, `s01`,", sentence)
        self.assertIn(" So are `s10`,", sentence)
        self.assertIn(" So are `s20`, `s21` and `s22`.", sentence)
        from ..core import prose
        self.assertEqual(prose.long_sentences(sentence), [])

    def test_one_sentence_per_mode_every_style_named(self):
        styles = [("await", 5), ("promise", 4), ("stackless", 3), ("fiber", 2)]
        rows = rows_of([(CB, 1), ("readfile/c/callback-parallel@node4", 1),
                        ("readfile/c/await-parallel@node4", 2)]
                       + [("readfile/c/%s-sequential@node4" % s, f) for s, f in styles])
        (_, sentences), = verdicts.full_sentences(rows)
        self.assertEqual([s.split(",")[0] for s in sentences],
                         ["In sequential mode", "In parallel mode"])
        for s, f in styles:
            self.assertIn("`%s` ran %d.00x" % (s, f), sentences[0])

    def test_text_and_markdown_give_either_set(self):
        rows = rows_of([(CB, 1), (AW, 2)])
        self.assertIn("  `await` ran 2.00x", verdicts.text(rows))
        self.assertIn("  In sequential mode, against C callback: `await` ran 2.00x",
                      verdicts.text(rows, full=True))
        self.assertIn("- In sequential mode, against C callback: `await` ran 2.00x",
                      "\n".join(verdicts.markdown(rows, full=True)))
        self.assertIn("**readfile** (N = 100, time per operation):", verdicts.markdown(rows))


if __name__ == "__main__":
    unittest.main()


class VersionsTest(unittest.TestCase):
    def test_a_pinned_versions_variants_are_compared_among_themselves_in_release_order(self):
        table, spec = {}, []
        for ver, f in (("20.8.0", 3), ("10.24.1", 2), ("20.20.2", 1)):
            cb = "readfile/node@%s/callback-sequential@fs.readFile" % ver
            aw = "readfile/node@%s/await-sequential@fs.promises" % ver
            for vid in (cb, aw):
                table[vid] = {"c": None, "lang": [cb, "Node callback on %s" % ver]}
            spec += [(cb, 1), (aw, f)]
        samples = [dict(sample(r, v, (10 + r % 3) * f), lang="node", runtime=v.split("/")[1].split("@")[1])
                   for r in range(1, 11) for v, f in spec]
        rows = sm.summarize(samples, table)
        self.assertEqual(verdicts.lang_of(spec[0][0]), "node")
        (_, sentences), = verdicts.sentences(rows)
        self.assertEqual(len(sentences), 3)
        for s, (ver, f) in zip(sentences, (("10.24.1", 2), ("20.8.0", 3), ("20.20.2", 1))):
            self.assertIn("Node callback on %s" % ver, s)
