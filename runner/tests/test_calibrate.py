"""Unit tests of calibrate.py: the passes a variant runs, from its warm-up."""
import unittest

from ..measure import calibrate

SPEC = {"min_ms": 50, "max": 25}


class ChooseTest(unittest.TestCase):
    def test_a_short_pass_gets_passes_enough_for_the_minimum_time_up_to_the_most(self):
        self.assertEqual(calibrate.choose(3, 2.0, SPEC), 25)       # 2 ms: 25 for 50 ms
        self.assertEqual(calibrate.choose(3, 4.0, SPEC), 13)       # ceil(12.5)
        self.assertEqual(calibrate.choose(3, 0.01, SPEC), 25)      # never past the most

    def test_a_long_pass_keeps_the_catalogs_passes(self):
        self.assertEqual(calibrate.choose(3, 17.0, SPEC), 3)
        self.assertEqual(calibrate.choose(3, 900.0, SPEC), 3)

    def test_one_pass_and_an_unknown_time_keep_what_the_catalog_gives(self):
        self.assertEqual(calibrate.choose(1, 0.5, SPEC), 1)        # a whole-process method
        self.assertEqual(calibrate.choose(3, None, SPEC), 3)       # no valid warm-up run

    def test_the_warm_up_time_is_the_median_pass_scaled_to_the_rounds_n(self):
        # passes of 0.1, 0.3 and 0.2 ms at N/10: 2 ms at N
        self.assertAlmostEqual(calibrate.warm_pass_ms([100000, 300000, 200000], 1000, 10000), 2.0)
        self.assertIsNone(calibrate.warm_pass_ms([], 1000, 10000))
        self.assertIsNone(calibrate.warm_pass_ms([0, None], 1000, 10000))

    def test_the_passes_flag_is_replaced_or_added_after_the_warm_up(self):
        argv = ["p", "--iterations", "9", "--warmup", "1", "--passes", "3", "--x", "y"]
        self.assertEqual(calibrate.with_passes(argv, 7),
                         ["p", "--iterations", "9", "--warmup", "1", "--passes", "7", "--x", "y"])
        argv = ["p", "--iterations", "9", "--warmup", "1", "--x", "y"]
        self.assertEqual(calibrate.with_passes(argv, 4),
                         ["p", "--iterations", "9", "--warmup", "1", "--passes", "4", "--x", "y"])
        self.assertEqual(calibrate.with_passes(argv, 1), argv)


if __name__ == "__main__":
    unittest.main()
