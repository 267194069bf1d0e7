"""Unit tests of runner/analysis/noise.py: the rounds' steal time and other load from
/proc/stat's counters, rounds.csv and REPORT.md's lines on it."""
import os
import tempfile
import unittest

from ..analysis import noise


def rule_text(rule):
    """The rule as REPORT.md's Noise section gives it: a bullet a condition."""
    return "\n".join("- " + b for b in noise.rule_bullets(rule))


class RuleTest(unittest.TestCase):
    def test_the_bullets_rejoin_to_the_rule_recorded(self):
        for rule in (noise.RULE, noise.THROTTLE_RULE, noise.LOAD_RULE):
            b = noise.rule_bullets(rule)
            self.assertEqual("a round is noisy when " + ", or when ".join(
                [b[0] + " or " + b[1]] + b[2:]), rule)
        self.assertEqual(len(noise.rule_bullets(noise.RULE)), 4)


def stat_file(folder, name, user, system, idle, steal):
    """A /proc/stat with its aggregate cpu line (ticks) and one per-CPU line."""
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        f.write("cpu  %d 0 %d %d 0 0 0 %d 0 0\ncpu0 1 2 3 4 5 6 7 8 9 10\nintr 5\n"
                % (user, system, idle, steal))
    return path


class RoundTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def test_steal_and_the_load_the_run_did_not_make_are_shares_of_all_cpu_time(self):
        a = stat_file(self.dir, "a", 1000, 500, 8000, 0)
        # 1,000 ticks later: 300 user + 100 system busy, 20 stolen, 580 idle; the
        # run itself used 1 s of CPU (100 ticks at 100 Hz)
        b = stat_file(self.dir, "b", 1300, 600, 8580, 20)
        self.assertEqual(noise.read_stat(a), [1000, 0, 500, 8000, 0, 0, 0, 0])
        before = (0, noise.read_stat(a), 10.0)
        after = (5 * 10 ** 9, noise.read_stat(b), 11.0)
        row = noise.round_row(3, before, after, hz=100)
        self.assertEqual((row["round"], row["wall_ns"]), (3, 5 * 10 ** 9))
        self.assertEqual(row["steal_share"], 0.02)          # 20 of 1,000 ticks
        self.assertEqual(row["other_share"], 0.3)           # (400 - 100) of 1,000
        self.assertEqual(row["noisy"], 1)
        quiet = noise.round_row(1, before, (1, noise.read_stat(b), 13.9), hz=100)
        self.assertEqual((quiet["other_share"], quiet["steal_share"] > noise.STEAL_MAX),
                         (0.01, True))                     # steal alone makes it noisy
        calm = stat_file(self.dir, "c", 1395, 600, 9005, 0)
        row = noise.round_row(1, before, (1, noise.read_stat(calm), 14.95), hz=100)
        self.assertEqual((row["steal_share"], row["other_share"], row["noisy"]), (0.0, 0.0, 0))

    def test_without_proc_stat_nothing_is_known_and_no_round_is_noisy(self):
        self.assertIsNone(noise.read_stat(os.path.join(self.dir, "missing")))
        row = noise.round_row(1, (0, None, 0.0), (9, None, 1.0))
        self.assertEqual((row["steal_share"], row["other_share"], row["noisy"]), (None, None, 0))

    def test_throttling_is_read_from_cpu_stat_and_thermal_counters_and_makes_a_round_noisy(self):
        v2 = os.path.join(self.dir, "v2.stat")
        with open(v2, "w") as f:
            f.write("usage_usec 100\nnr_throttled 2\nthrottled_usec 1500\n")
        v1 = os.path.join(self.dir, "v1.stat")
        with open(v1, "w") as f:
            f.write("nr_periods 0\nnr_throttled 0\nthrottled_time 2000000\n")
        missing = os.path.join(self.dir, "none.stat")
        self.assertEqual(noise.read_throttled_ns((missing, v2, v1)), 1500000)
        self.assertEqual(noise.read_throttled_ns((missing, v1)), 2000000)
        self.assertIsNone(noise.read_throttled_ns((missing,)))
        for cpu, count in (("cpu0", 3), ("cpu1", 4)):
            os.makedirs(os.path.join(self.dir, cpu, "thermal_throttle"))
            with open(os.path.join(self.dir, cpu, "thermal_throttle", "core_throttle_count"),
                      "w") as f:
                f.write("%d\n" % count)
        pattern = os.path.join(self.dir, "cpu[0-9]*", "thermal_throttle", "*_throttle_count")
        self.assertEqual(noise.read_thermal_events(pattern), 7)
        self.assertIsNone(noise.read_thermal_events(os.path.join(self.dir, "x*", "y")))
        a = stat_file(self.dir, "a", 1000, 500, 8000, 0)
        calm = stat_file(self.dir, "c", 1000, 500, 9000, 0)
        st_a, st_c = noise.read_stat(a), noise.read_stat(calm)
        quiet = noise.round_row(1, (0, st_a, 1.0, 5000000, 7), (1, st_c, 1.0, 5000000, 7), hz=100)
        self.assertEqual((quiet["throttled_ms"], quiet["thermal_events"], quiet["noisy"]),
                         (0.0, 0, 0))
        held = noise.round_row(2, (0, st_a, 1.0, 5000000, 7), (1, st_c, 1.0, 7500000, 7), hz=100)
        self.assertEqual((held["throttled_ms"], held["noisy"]), (2.5, 1))
        hot = noise.round_row(3, (0, None, 1.0, None, 7), (1, None, 1.0, None, 9))
        self.assertEqual((hot["thermal_events"], hot["throttled_ms"], hot["noisy"]), (2, None, 1))
        log = noise.RoundLog(self.dir)
        for r in (quiet, held, hot):
            log.add(r)
        log.close()
        text = "\n".join(noise.markdown(noise.read_rounds(self.dir)))
        self.assertIn("**2 of 3 rounds were noisy**:\n\n- round 2 (steal 0.0%, other load 0.0%, "
                      "throttled 2.5 ms)\n- round 3 (steal -, other load -, 2 thermal throttle "
                      "events)", text)

    def test_a_change_of_the_cpus_speed_under_a_round_makes_it_noisy_and_the_report_says_it(self):
        a = noise.read_stat(stat_file(self.dir, "a", 1000, 500, 8000, 0))
        calm = stat_file(self.dir, "b", 1100, 500, 8900, 0)    # the run's own 1 s busy
        before = (0, a, 10.0, None, None, 5000000)
        steady = noise.round_row(1, before, (1, noise.read_stat(calm), 11.0, None, None, 4800000),
                                 hz=100)
        self.assertEqual((steady["probe_ms"], steady["speed_change"], steady["noisy"]),
                         (4.8, 0.0417, 0))                  # 4% faster at the end: steady
        slower = noise.round_row(2, before, (1, noise.read_stat(calm), 11.0, None, None, 6000000),
                                 hz=100)
        self.assertEqual((slower["speed_change"], slower["noisy"]), (-0.1667, 1))
        unknown = noise.round_row(3, (0, None, 0.0), (1, None, 0.0, None, None, 6000000))
        self.assertEqual((unknown["probe_ms"], unknown["speed_change"], unknown["noisy"]),
                         (6.0, None, 0))                    # no start probe: nothing judged
        log = noise.RoundLog(self.dir)
        for row in (steady, slower):
            log.add(row)
        log.close()
        text = "\n".join(noise.markdown(noise.read_rounds(self.dir)))
        self.assertIn(rule_text(noise.RULE), text)
        self.assertIn("**1 of 2 rounds were noisy**:\n\n- round 2 (steal 0.0%, other load 0.0%, "
                      "CPU speed -17%)", text)
        self.assertIn("took 5.40 ms (median; from 4.80 to 6.00 over 2 rounds). The slowest "
                      "round's end was 11% slower than the median, the fastest 11% faster", text)

    def test_the_probe_times_a_fixed_loop_on_the_cpu_asked_and_moves_the_thread_back(self):
        before = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
        cpu = max(before) if before else None
        t = noise.probe_ns(cpu, steps=1000, tries=2)
        self.assertGreater(t, 0)
        if before is not None:
            self.assertEqual(os.sched_getaffinity(0), before)
        self.assertGreater(noise.probe_ns(None, steps=1000, tries=1), 0)

    def test_the_report_names_the_noisy_rounds(self):
        log = noise.RoundLog(self.dir)
        log.add({"round": 1, "wall_ns": 5, "cpus": 2, "steal_share": 0.0, "other_share": 0.02,
                 "noisy": 0})
        log.add({"round": 2, "wall_ns": 5, "cpus": 2, "steal_share": 0.03, "other_share": 0.25,
                 "noisy": 1})
        log.close()
        text = "\n".join(noise.markdown(noise.read_rounds(self.dir)))
        self.assertIn("## Noise", text)
        self.assertIn("**1 of 2 rounds were noisy**:\n\n- round 2 (steal 3.0%, other load 25.0%)",
                      text)
        self.assertEqual(noise.markdown(noise.read_rounds(tempfile.mkdtemp())), [])   # a run before rounds.csv
        self.assertIn(rule_text(noise.RULE), text)

    def test_a_row_that_is_not_all_numbers_is_left_out(self):
        # rounds.csv is appended a row a round: a hand edit or a torn row is
        # left out rather than read into a traceback.
        with open(os.path.join(self.dir, "rounds.csv"), "w") as f:
            f.write("round,wall_ns,cpus,steal_share,other_share,noisy,probe_ms\n"
                    "1,5,2,0.0,0.02,0,3.1\n2,5,2,0.0,0.02,0,x\n3,5,2,0.0,0.02,0,1e999\n"
                    "x,5,2,0.0,0.02,0,3.0\n4,5,2,0.0,0.02,0,3.3,7\n5,5,2,0.03,0.25,1,3.2\n")
        rows = noise.read_rounds(self.dir)
        self.assertEqual([r["round"] for r in rows], ["1", "5"])
        text = "\n".join(noise.markdown(rows))
        self.assertIn("**1 of 2 rounds were noisy**:\n\n- round 5", text)
        self.assertIn("took 3.15 ms (median; from 3.10 to 3.20 over 2 rounds)", text)

    def test_a_rounds_csv_from_before_the_throttling_columns_states_the_rule_it_was_judged_by(self):
        with open(os.path.join(self.dir, "rounds.csv"), "w") as f:
            f.write("round,wall_ns,cpus,steal_share,other_share,noisy\n1,5,2,0.0,0.02,0\n")
        text = "\n".join(noise.markdown(noise.read_rounds(self.dir)))
        self.assertIn(rule_text(noise.LOAD_RULE), text)
        self.assertNotIn("throttled", text)


if __name__ == "__main__":
    unittest.main()
