"""Unit tests of runner/stats.py, with expectations computed by hand (see comments)."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stats  # noqa: E402


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


if __name__ == "__main__":
    unittest.main()
