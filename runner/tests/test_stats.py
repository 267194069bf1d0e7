"""Unit tests of runner/core/stats.py, with expectations computed by hand (see comments)."""
import unittest

from ..core import stats


class MedianTest(unittest.TestCase):
    def test_odd_count_takes_the_middle_value(self):
        self.assertEqual(stats.median([3, 1, 2]), 2)

    def test_even_count_averages_the_two_middle_values(self):
        self.assertEqual(stats.median([4, 1, 3, 2]), 2.5)

    def test_no_samples_is_an_error(self):
        with self.assertRaises(ValueError):
            stats.median([])


class MedianCITest(unittest.TestCase):
    def test_six_samples_is_the_smallest_n_for_95_percent(self):
        # n=5: the widest interval [x1, x5] covers 1 - 2/32 = 93.75% < 95%.
        self.assertEqual(stats.min_samples_for_ci(), 6)
        self.assertIsNone(stats.median_ci([1, 2, 3, 4, 5]))

    def test_six_samples_give_the_full_range(self):
        # n=6: [x1, x6] covers 1 - 2/64 = 0.96875.
        self.assertEqual(stats.median_ci([6, 5, 4, 3, 2, 1]), (1.0, 6.0, 0.96875))

    def test_ten_samples_drop_one_from_each_end(self):
        # P(B<=1) = 11/1024 = 0.0107 <= 0.025, P(B<=2) = 56/1024 > 0.025: k = 2.
        lo, hi, cover = stats.median_ci(range(1, 11))
        self.assertEqual((lo, hi), (2.0, 9.0))
        self.assertAlmostEqual(cover, 1 - 22 / 1024)

    def test_twelve_samples_drop_two_from_each_end(self):
        # P(B<=2) = (1 + 12 + 66)/4096 = 0.0193; P(B<=3) = 299/4096 = 0.073: k = 3.
        lo, hi, cover = stats.median_ci([12, 1, 11, 2, 10, 3, 9, 4, 8, 5, 7, 6])
        self.assertEqual((lo, hi), (3.0, 10.0))
        self.assertAlmostEqual(cover, 1 - 2 * 79 / 4096)


class RatioTest(unittest.TestCase):
    def test_ratios_pair_only_the_rounds_both_have(self):
        v = {1: 2.0, 2: 4.0, 3: 9.0}
        b = {1: 1.0, 2: 2.0, 4: 3.0}
        self.assertEqual(stats.paired_ratios(v, b), [2.0, 2.0])

    def test_a_zero_baseline_round_is_skipped(self):
        self.assertEqual(stats.paired_ratios({1: 5.0, 2: 6.0}, {1: 0.0, 2: 3.0}), [2.0])

    def test_ratio_ci_of_six_ratios(self):
        m, lo, hi = stats.ratio_ci([1.1, 0.9, 1.0, 1.2, 1.05, 0.95])
        self.assertAlmostEqual(m, 1.025)
        self.assertEqual((lo, hi), (0.9, 1.2))

    def test_ratio_ci_without_enough_rounds_has_no_interval(self):
        self.assertEqual(stats.ratio_ci([2.0, 4.0]), (3.0, None, None))
        self.assertEqual(stats.ratio_ci([]), (None, None, None))


class MannWhitneyTest(unittest.TestCase):
    def test_three_against_three_separated_is_not_significant(self):
        # C(6,3) = 20 orderings; U = 0 happens once: p = 2 * 1/20 = 0.1.
        u, p = stats.mann_whitney([1, 2, 3], [4, 5, 6])
        self.assertEqual(u, 0)
        self.assertAlmostEqual(p, 0.1)

    def test_four_against_four_separated_is_significant(self):
        # C(8,4) = 70: p = 2/70 = 0.02857.
        u, p = stats.mann_whitney([5, 6, 7, 8], [1, 2, 3, 4])
        self.assertEqual(u, 16)
        self.assertAlmostEqual(p, 2 / 70)

    def test_exact_distribution_counts_every_ordering(self):
        # n1=2, n2=2: U = 0,1,2,2,3,4 over the 6 orderings -> [1,1,2,1,1].
        self.assertEqual(stats._exact_u_distribution(2, 2), [1, 1, 2, 1, 1])

    def test_ties_use_the_corrected_normal_approximation(self):
        # pooled 1,1,2,2,2,2,3,3 -> ranks 1.5,1.5,4.5x4,7.5,7.5; R1 = 12, U1 = 2.
        # ties 2,4,2: sum(t^3 - t) = 72; var = 16/12 * (9 - 72/56) = 10.2857;
        # z = (|2 - 8| - 0.5)/sqrt(10.2857) = 1.7149; p = 2 (1 - Phi(z)) = 0.0864.
        u, p = stats.mann_whitney([1, 1, 2, 2], [2, 2, 3, 3])
        self.assertEqual(u, 2)
        self.assertAlmostEqual(p, 0.0864, places=3)

    def test_identical_samples_are_not_different(self):
        u, p = stats.mann_whitney([5, 5, 5], [5, 5, 5])
        self.assertEqual(p, 1.0)

    def test_large_separated_samples_are_significant(self):
        # n = 50 > 40 takes the normal path: U = 0, mean 312.5, var 625/12 * 51,
        # z = 312/51.54 = 6.05, p ~ 1.4e-9.
        u, p = stats.mann_whitney(list(range(1, 26)), list(range(26, 51)))
        self.assertEqual(u, 0)
        self.assertLess(p, 1e-8)
        self.assertGreater(p, 1e-10)

    def test_empty_sample_gives_no_answer(self):
        self.assertEqual(stats.mann_whitney([], [1]), (None, None))


class OutlierTest(unittest.TestCase):
    def test_far_sample_is_flagged_by_mad(self):
        # median 10, deviations 0,0,1,1,0,40 -> MAD 0.5; 0.6745*40/0.5 = 54 > 3.5,
        # 0.6745*1/0.5 = 1.35 is not.
        self.assertEqual(stats.mad_outliers([10, 10, 11, 9, 10, 50]), [5])

    def test_zero_mad_flags_nothing(self):
        self.assertEqual(stats.mad_outliers([1, 1, 1, 1, 1, 9]), [])

    def test_too_few_samples_flag_nothing(self):
        # n = 3: median 37, MAD 2, z(70) = 11, but three samples cannot tell.
        self.assertEqual(stats.mad_outliers([35, 37, 70]), [])


class DescribeTest(unittest.TestCase):
    def test_tight_samples_have_no_warnings(self):
        d = stats.describe([100, 101, 99, 100, 100, 101])
        self.assertEqual((d["median"], d["ci_low"], d["ci_high"]), (100.0, 99.0, 101.0))
        self.assertEqual(d["warnings"], [])
        self.assertEqual(d["outliers"], 0)

    def test_wide_interval_is_warned_about(self):
        # CI [90, 120], half-width 15 = 15% of the median 100.
        d = stats.describe([90, 95, 100, 100, 105, 120])
        self.assertEqual(d["warnings"], ["wide CI: half-width 15.0% of the median (over 5%)"])

    def test_too_few_samples_are_warned_about(self):
        d = stats.describe([1, 2, 3])
        self.assertIsNone(d["ci_low"])
        self.assertEqual(d["warnings"], ["n=3 is too small for a 95% CI (needs 6)"])

    def test_outliers_are_counted_and_kept(self):
        d = stats.describe([10, 10, 11, 9, 10, 50])
        self.assertEqual(d["outliers"], 1)
        self.assertEqual(d["median"], 10.0)
        self.assertIn("1 outlier by MAD (kept)", d["warnings"])


# c/await-bounded of an earlier reference run: the table printed
# "~ 1.10x [1.01, 1.35]", the mark from an unpaired Mann-Whitney test and the
# interval from round-paired ratios.  Baseline times drift from round to round
# (50..80 ms) far more than the 10% the variant adds within a round.
AWAIT_BOUNDED_BASE = [50.0, 80.0, 55.0, 75.0, 60.0, 70.0, 52.0, 78.0, 58.0, 66.0]
AWAIT_BOUNDED_RATIOS = [1.10, 1.35, 0.98, 1.08, 1.40, 1.15, 1.01, 1.05, 1.20, 1.10]


def _rounds(xs):
    return {i + 1: x for i, x in enumerate(xs)}


class PairedTest(unittest.TestCase):
    def test_the_await_bounded_case_is_significant_with_its_interval(self):
        base = _rounds(AWAIT_BOUNDED_BASE)
        value = _rounds([b * r for b, r in zip(AWAIT_BOUNDED_BASE, AWAIT_BOUNDED_RATIOS)])
        p = stats.paired(value, base, iterations=1)
        # sorted ratios 0.98 1.01 1.05 1.08 1.10 1.10 1.15 1.20 1.35 1.40; n = 10: CI [x2, x9].
        self.assertAlmostEqual(p["ratio"], 1.10)
        self.assertAlmostEqual(p["ratio_ci_low"], 1.01)
        self.assertAlmostEqual(p["ratio_ci_high"], 1.35)
        # one ratio of ten at or below 1: p = 2 P(B <= 1) = 2 * 11 / 1024.
        self.assertAlmostEqual(p["p_value"], 22 / 1024)
        self.assertIs(p["significant"], True)
        # The unpaired test on the same times sees no difference: the old mark.
        _, unpaired = stats.mann_whitney(list(value.values()), list(base.values()))
        self.assertGreater(unpaired, stats.ALPHA)

    def test_significance_and_the_interval_never_disagree(self):
        # Every split of n rounds into ratios below, at and above 1.
        for n in range(stats.min_samples_for_ci(), 31):
            for below in range(n + 1):
                for equal in range(n + 1 - below):
                    ratios = [0.9] * below + [1.0] * equal + [1.1] * (n - below - equal)
                    p = stats.paired(_rounds(ratios), _rounds([1.0] * n), iterations=1)
                    excludes = p["ratio_ci_low"] > 1 or p["ratio_ci_high"] < 1
                    self.assertEqual(p["significant"], excludes, (n, below, equal))
                    self.assertEqual(p["p_value"] < stats.ALPHA, excludes, (n, below, equal))

    def test_three_rounds_are_too_few_for_any_test(self):
        p = stats.paired(_rounds([2.0, 2.0, 2.0]), _rounds([1.0, 1.0, 1.0]), iterations=1)
        self.assertEqual(p["ratio"], 2.0)
        self.assertIsNone(p["ratio_ci_low"])
        self.assertIsNone(p["significant"])
        self.assertEqual(p["p_value"], 0.25)      # 2 / 2^3, the smallest with 3 rounds

    def test_the_difference_is_per_operation(self):
        # 6 rounds, the variant 1000 ns slower per run of 10 operations: 100 ns per op.
        base = _rounds([5000.0, 6000.0, 7000.0, 5500.0, 6500.0, 8000.0])
        value = {r: t + 1000 for r, t in base.items()}
        p = stats.paired(value, base, iterations=10)
        self.assertEqual((p["diff_per_op_ns"], p["diff_per_op_ns_ci_low"],
                          p["diff_per_op_ns_ci_high"]), (100.0, 100.0, 100.0))

    def test_no_shared_round_gives_nothing(self):
        p = stats.paired({1: 1.0}, {2: 1.0}, iterations=1)
        self.assertEqual((p["rounds"], p["ratio"], p["significant"]), (0, None, None))


class FalseDiscoveryRateTest(unittest.TestCase):
    def test_the_adjusted_p_values_of_benjamini_and_hochbergs_step_up(self):
        q = stats.bh_adjust([0.01, 0.04, 0.03, 0.005])
        for got, want in zip(q, [0.02, 0.04, 0.04, 0.02]):
            self.assertAlmostEqual(got, want)

    def test_one_small_p_among_many_large_ones_no_longer_survives(self):
        # 173 comparisons, as the default profile's run made: a lone p of 0.03
        # passes alone at 0.05 and is a likely false discovery in the family.
        q = stats.bh_adjust([0.03] + [1.0] * 172)
        self.assertGreater(q[0], stats.ALPHA)
        self.assertLessEqual(max(q), 1.0)

    def test_many_small_p_values_all_survive(self):
        q = stats.bh_adjust([0.02] * 100 + [1.0] * 73)
        self.assertTrue(all(x <= stats.ALPHA for x in q[:100]))

    def test_no_test_is_not_counted(self):
        self.assertEqual(stats.bh_adjust([None, 0.01, None]), [None, 0.01, None])
        self.assertEqual(stats.bh_adjust([]), [])

    def test_a_difference_is_tested_around_its_own_center(self):
        self.assertEqual(stats.sign_test_around([5.0] * 6, 0.0), 2.0 / 2 ** 6)
        self.assertEqual(stats.sign_test_around([-5.0, 5.0] * 3, 0.0), 1.0)


class BoundVerdictTest(unittest.TestCase):
    def test_met_only_when_the_whole_interval_is_within_the_bound(self):
        verdict, resolution = stats.bound_verdict(0.98, 1.04, 1.05)
        self.assertEqual(verdict, stats.MET)
        self.assertAlmostEqual(resolution, 0.03)

    def test_missed_only_when_the_whole_interval_is_beyond_it(self):
        verdict, _ = stats.bound_verdict(1.1, 1.3, 1.05)
        self.assertEqual(verdict, stats.MISSED)

    def test_an_interval_across_the_bound_is_not_resolvable(self):
        # The README once called 1.01x [0.96, 1.14] a met 1.05 target.
        verdict, resolution = stats.bound_verdict(0.96, 1.14, 1.05)
        self.assertEqual(verdict, stats.UNRESOLVED)
        self.assertAlmostEqual(resolution, 0.09)

    def test_no_interval_is_untested(self):
        self.assertEqual(stats.bound_verdict(None, None, 1.05), (stats.UNTESTED, None))


if __name__ == "__main__":
    unittest.main()
