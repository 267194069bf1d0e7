"""Tests of runner/measure/sequential.py: the stopping rule of the extra rounds, by
simulation (its false positives stay at alpha however often it looks, where
naive fixed-sample tests repeated at every look do not), its power, the
questions a run asks, which variants an extra round holds, and the catalog's
check of a profile's extra_rounds."""
import copy
import csv
import math
import os
import random
import sys
import tempfile
import unittest

from ..catalog import catalog
from ..core import confseq
from ..measure import sequential as sq
from ..core import stats
from . import test_catalog as tc
from .test_summary import sample, write_samples as write_rows

ALPHA = 0.05
RUNS = 4000                 # simulated runs per case (seeded)
FIRST_LOOK, MAX_ROUNDS = 3, 30
PLANNED = 10                # the planned rounds before extra ones (the default profile's)
# Monte-Carlo allowance: three standard errors of a rate of alpha over RUNS.
ALLOW = 3 * math.sqrt(ALPHA * (1 - ALPHA) / RUNS)

# Two-sided 97.5% quantiles of Student's t by degrees of freedom (the naive t-test).
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
        9: 2.262, 10: 2.228, 11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131,
        16: 2.120, 17: 2.110, 18: 2.101, 19: 2.093, 20: 2.086, 21: 2.080, 22: 2.074,
        23: 2.069, 24: 2.064, 25: 2.060, 26: 2.056, 27: 2.052, 28: 2.048, 29: 2.045}


def normal(rng):
    return rng.gauss(0, 1)


def student2(rng):
    """Student's t with 2 degrees of freedom: symmetric, heavy-tailed (no variance)."""
    return rng.gauss(0, 1) / math.sqrt(-math.log(1.0 - rng.random()))


def skewed(rng):
    """A lognormal less its median: right-skewed, median 0, mean above 0 (as
    a log-ratio of a variant that is sometimes much slower, seldom faster)."""
    return math.exp(rng.gauss(0, 1)) - 1.0


NULLS = (("normal", normal), ("Student t, 2 df", student2), ("skewed lognormal", skewed))


def fixed_rank(n):
    """stats.median_ci's lower rank k at n (its interval is [x_(k), x_(n+1-k)]), 0 below 6."""
    k, below = 0, 0             # below: P(B <= j - 1) * 2^n, B ~ Binomial(n, 1/2)
    for j in range(1, n // 2 + 1):
        below += math.comb(n, j - 1)
        if 1 - 2 * below / 2.0 ** n < stats.CONFIDENCE:
            break
        k = j
    return k


K = {n: fixed_rank(n) for n in range(1, MAX_ROUNDS + 1)}


def fixed_excludes(above, below, n):
    """The run's own fixed-sample interval (stats.median_ci) excludes 0 at n."""
    return K[n] > 0 and min(above, below) <= K[n] - 1


def simulate(draw, seed, runs=RUNS, shift=0.0):
    """Rates over runs of RUNS log-ratios (draw() + shift), looked at after
    every round from FIRST_LOOK to MAX_ROUNDS: the rule ever excludes 0; the
    naive t-test ever rejects; the fixed interval ever excludes 0; the
    procedure of the runner (PLANNED rounds, extra ones while the rule has the
    question open, then the fixed interval) ends with a verdict; the naive
    procedure (extra rounds while the fixed interval is open) does; and the
    rounds the rule took to decide, where it did."""
    rng = random.Random(seed)
    rule = naive_t = naive_fixed = procedure = naive_procedure = 0
    taken = []
    for _ in range(runs):
        above = below = 0
        total = squares = 0.0
        r_hit = t_hit = f_hit = False
        stop_rule = stop_naive = None
        for n in range(1, MAX_ROUNDS + 1):
            x = draw(rng) + shift
            above += x > 0
            below += x < 0
            total += x
            squares += x * x
            if n < FIRST_LOOK:
                continue
            if not r_hit and confseq.excludes(above, below, ALPHA):
                r_hit = True
                taken.append(n)
            if n >= PLANNED and stop_rule is None and confseq.excludes(above, below, ALPHA):
                stop_rule = fixed_excludes(above, below, n)
            var = (squares - total * total / n) / (n - 1)
            if var > 0 and abs(total / n) / math.sqrt(var / n) > T975[n - 1]:
                t_hit = True
            if fixed_excludes(above, below, n):
                f_hit = True
                if n >= PLANNED and stop_naive is None:
                    stop_naive = True
        if stop_rule is None:          # the most rounds: the fixed interval at MAX_ROUNDS
            stop_rule = fixed_excludes(above, below, MAX_ROUNDS)
        rule += r_hit
        naive_t += t_hit
        naive_fixed += f_hit
        procedure += bool(stop_rule)
        naive_procedure += bool(stop_naive)
    return {"rule": rule / runs, "t": naive_t / runs, "fixed": naive_fixed / runs,
            "procedure": procedure / runs, "naive_procedure": naive_procedure / runs,
            "taken": taken}


def say(text):
    sys.stderr.write("\n    " + text)
    sys.stderr.flush()


class SimulationTest(unittest.TestCase):
    """No true difference (the median log-ratio is 0), looks after every round
    from 3 to 30, 4000 seeded runs per distribution."""

    @classmethod
    def setUpClass(cls):
        cls.results = {name: simulate(draw, seed)
                       for seed, (name, draw) in enumerate(NULLS, start=23)}
        for n in range(1, MAX_ROUNDS + 1):      # fixed_rank is stats.median_ci's rank
            ci = stats.median_ci([float(i) for i in range(n)])
            assert K[n] == (ci[0] + 1 if ci else 0), n

    def test_the_rule_keeps_its_false_positives_at_alpha_at_every_look(self):
        for name, r in self.results.items():
            say("%-17s rule %.4f, naive t-test %s, naive fixed interval %.4f "
                "(looks 3..30, %d runs)" % (
                    name, r["rule"], "%.4f" % r["t"] if name != "skewed lognormal" else "n/a",
                    r["fixed"], RUNS))
            self.assertLessEqual(r["rule"], ALPHA + ALLOW, name)

    def test_naive_repeated_tests_exceed_alpha_on_the_same_data(self):
        # The t-test only where the mean is the median (the skewed one's mean
        # is above 0: its t-test would reject a true difference of the means).
        for name in ("normal", "Student t, 2 df"):
            self.assertGreater(self.results[name]["t"], ALPHA + ALLOW, name)
        for name, r in self.results.items():
            self.assertGreater(r["fixed"], ALPHA + ALLOW, name)

    def test_the_runners_procedure_stays_within_twice_alpha_and_the_naive_one_does_not(self):
        for name, r in self.results.items():
            say("%-17s the runner's procedure (10 rounds, extra ones while the rule has it "
                "open, then the fixed interval) %.4f; extra rounds while the fixed interval "
                "is open %.4f" % (name, r["procedure"], r["naive_procedure"]))
            self.assertLessEqual(r["procedure"], 2 * ALPHA + ALLOW, name)
            self.assertGreater(r["naive_procedure"], r["procedure"], name)

    def test_a_true_ten_percent_difference_is_decided_within_the_most_rounds(self):
        shift = math.log(1.10)
        for sigma, least in ((0.05, 0.99), (0.10, 0.70)):
            r = simulate(lambda rng: sigma * rng.gauss(0, 1), 99, runs=2000, shift=shift)
            taken = sorted(r["taken"])
            say("10%% difference, per-round noise sd %.2f: decided within %d rounds in %.4f "
                "of runs, median round %d" % (sigma, MAX_ROUNDS, r["rule"],
                                              taken[len(taken) // 2]))
            self.assertGreaterEqual(r["rule"], least)
        r = simulate(lambda rng: 0.05 * skewed(rng), 98, runs=2000, shift=shift)
        say("10%% difference, skewed noise (0.05 x lognormal less its median): decided in "
            "%.4f of runs" % r["rule"])
        self.assertGreaterEqual(r["rule"], 0.99)


class RuleTest(unittest.TestCase):
    def test_the_boundary(self):
        # All 8 on one side: 2^8 / 9 = 28.4 >= 20; all 7: 2^7 / 8 = 16 < 20.
        self.assertEqual(confseq.boundary(7), -1)
        self.assertEqual(confseq.boundary(8), 0)
        self.assertAlmostEqual(math.exp(confseq.log_evalue(8, 0)), 256 / 9)
        self.assertEqual([confseq.boundary(n) for n in (10, 20, 30, 40)], [0, 3, 6, 10])

    def test_the_sequence_is_never_narrower_than_the_fixed_interval(self):
        # So whatever the sequence decides, the run's verdicts decide alike.
        for n in range(6, 501):
            self.assertLessEqual(confseq.boundary(n) + 1, fixed_rank(n), n)

    def test_confidence_sequence_and_decided(self):
        self.assertEqual(confseq.confidence_sequence([1.1] * 7), (None, None))
        xs = [1.0 + i / 100 for i in range(20)]         # 1.00 .. 1.19
        lo, hi = confseq.confidence_sequence(xs)
        self.assertEqual((lo, hi), (xs[3], xs[16]))
        self.assertTrue(confseq.decided(xs, 1.0 + 2.5 / 100))    # 17 above, 3 below
        self.assertFalse(confseq.decided(xs, 1.0 + 3.5 / 100))   # 16 above, 4 below
        self.assertTrue(confseq.decided(xs, 1.5))
        # Ties with the bound are dropped, never counted for a side.
        self.assertFalse(confseq.decided([1.0] * 30, 1.0))


A, B, C, D = ("demo/c/callback-sequential@b1", "demo/c/promise-parallel@b1",
              "demo/c/callback-parallel@b1", "demo/c/promise-bounded@b1")
E = "demo/c/callback-bounded@b1"


def with_questions():
    w = copy.deepcopy(tc.WORK)
    w["targets"] = [
        {"id": "promise-cost", "what": "promise at most 1.10x callbacks", "variant": B,
         "against": C, "max_ratio": 1.10},
        {"id": "per-op", "what": "at most 5 ns per op", "variant": D, "against": C,
         "max_diff_per_op_ns": 5},
        {"id": "outside", "what": "time outside", "variant": A, "max_outside_ms": 10,
         "max_outside_share": 0.25}]
    return w


def row(rnd, vid, t, iterations=100, wall=None):
    """A samples.csv row of an ok process taking t ns (None: a failed one)."""
    k = 0 if vid.split("@")[0].endswith("-parallel") else 1    # the K the runner gives
    if t is None:
        return dict(sample(rnd, vid, 0, status="failed"), iterations=iterations, concurrency=k)
    return dict(sample(rnd, vid, 1), elapsed_ns=t, wall_ns=wall or t + 1000,
                outside_ns=(wall or t + 1000) - t, iterations=iterations, ok=iterations,
                concurrency=k, point="", **{"pass": 0})


def write_samples(path, times, iterations=100, wall=None):
    """samples.csv with one ok process per (variant, round): times {vid: [ns by round]}."""
    write_rows(path, [row(r, vid, t, iterations, wall) for vid, ts in times.items()
                      for r, t in enumerate(ts, start=1)])


def append_round(path, rnd, times, iterations=100):
    """Rows of round rnd appended to samples.csv: times {vid: ns}, None for a failed run."""
    write_rows(path, [row(rnd, vid, t, iterations) for vid, t in times.items()], mode="a")


class QuestionsTest(tc.TempCatalog):
    def test_targets_and_claims_whose_variants_take_part(self):
        w = with_questions()
        w["claims"] = {"ratios": [{"id": "faster", "num": B, "den": C}]}
        cat = self.load(demo=w)
        ids = [v["id"] for v in cat.variants]
        qs = sq.questions(cat, ids)
        self.assertEqual([q["id"] for q in qs], ["target promise-cost", "target per-op",
                                                 "target outside", "claim faster"])
        self.assertEqual([q["kind"] for q in qs], ["ratio", "diff_per_op_ns", "outside_ms", "ratio"])
        self.assertEqual(qs[3]["bound"], 1.0)
        self.assertEqual(qs[3]["text"], "demo c/promise-parallel@b1 over c/callback-parallel@b1 "
                                        "against 1.00x")
        self.assertEqual(qs[0]["text"], "demo c/promise-parallel@b1 vs c/callback-parallel@b1 "
                                        "≤ 1.10x")
        # A question with a variant outside the run is not asked.
        self.assertEqual([q["id"] for q in sq.questions(cat, [A, B])], ["target outside"])

    def test_a_variants_own_time_or_memory_at_its_n(self):
        w = copy.deepcopy(tc.WORK)
        w["targets"] = [
            {"id": "ns", "what": "per call", "variant": B, "max_ns_per_op": 2,
             "ops_per_iteration": 4},
            {"id": "mem", "what": "per task", "variant": B, "max_bytes_per_op": 100,
             "at_iterations": 1000}]
        cat = self.load(demo=w)
        ids = [v["id"] for v in cat.variants]
        ns, mem = sq.questions(cat, ids)
        self.assertEqual((ns["kind"], ns["bound"], ns["against"], mem["kind"]),
                         ("ns_per_op", 2.0, None, "bytes_per_op"))
        self.assertEqual(ns["text"], "demo c/promise-parallel@b1 time ≤ 2.0 ns per op")
        self.assertEqual(mem["text"], "demo c/promise-parallel@b1 memory above idle ≤ 100 B "
                                      "per op")
        # Its figures: 800 ns over 100 iterations of 4 calls; memory only at N = 1,000.
        procs = {B: {1: dict(row(1, B, 800), proc_peak_rss_kb=2000, idle_rss_kb=1000)}}
        self.assertEqual(sq.figures(ns, procs), [2.0])
        self.assertEqual(sq.figures(mem, procs), [])
        procs[B][1]["iterations"] = 1000
        self.assertEqual(sq.figures(mem, procs), [1024.0])
        # A run at another N is not asked the memory question.
        self.assertEqual([q["id"] for q in sq.questions(cat, ids, {B: 100})], ["target ns"])
        self.assertEqual(len(sq.questions(cat, ids, {B: 1000})), 2)

    def test_the_headlines_comparisons_each_style_against_its_languages_baseline(self):
        w = with_questions()
        cat = self.load(demo=w)
        ids = [v["id"] for v in cat.variants]
        hs = sq.headline_questions(cat, ids, sq.questions(cat, ids))
        # Baselines are not asked, nor Node's await (no Node baseline here).
        self.assertEqual([(q["variant"], q["against"]) for q in hs], [(B, C), (D, E)])
        self.assertEqual({(q["source"], q["kind"], q["bound"]) for q in hs},
                         {("headline", "ratio", 1.0)})
        self.assertEqual(hs[0]["id"], "headline " + B)
        self.assertEqual(hs[0]["text"], "demo c/promise-parallel@b1 over its baseline "
                                        "c/callback-parallel@b1 against 1.00x")
        # One whose baseline is not in the run is not asked; one a claim asks
        # already is not asked twice.
        self.assertEqual([q["variant"] for q in sq.headline_questions(cat, [A, B, C, D])], [B])
        w["claims"] = {"ratios": [{"id": "faster", "num": B, "den": C}]}
        cat = self.load(demo=w)
        self.assertEqual([q["variant"] for q in
                          sq.headline_questions(cat, ids, sq.questions(cat, ids))], [D])

    def test_figures_pair_the_rounds_both_ran(self):
        cat = self.load(demo=with_questions())
        qs = {q["id"]: q for q in sq.questions(cat, [v["id"] for v in cat.variants])}
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "samples.csv")
            write_samples(path, {B: [110, 120, 130], C: [100, 100], D: [600, 700, 800]},
                          iterations=100)
            procs = sq.read_processes(d)
        self.assertEqual(sq.figures(qs["target promise-cost"], procs), [1.1, 1.2])
        self.assertEqual(sq.figures(qs["target per-op"], procs), [5.0, 6.0])
        self.assertEqual(sq.figures(qs["target outside"], procs), [])


class ExtraRoundTest(tc.TempCatalog):
    ORDER = [A, B, C, D]

    def extra(self, times, settings=None, clock=None, **over):
        cat = self.load(demo=with_questions())
        qs = sq.questions(cat, self.ORDER)
        d = tempfile.mkdtemp(dir=self.dir)
        write_samples(os.path.join(d, "samples.csv"), times)
        return sq.Extra(settings or {"max": 5, "minutes": 10}, qs, d, self.ORDER, 7,
                        clock=clock, **over)

    def test_an_extra_round_holds_the_variants_of_the_open_questions_only(self):
        # promise-cost: ratios alternating 1.05 and 1.15 around the 1.10 bound:
        # open.  per-op: 50 ns per op over a 5 ns bound in every round: decided.
        # outside: 1 us outside a 10 ms bound every round: decided.
        times = {B: [105, 115] * 5, C: [100] * 10, D: [5100] * 10, A: [100] * 10}
        e = self.extra(times)
        ids = e.next_round(11)
        self.assertEqual(sorted(ids), sorted([B, C]))
        self.assertIn("round 11 (extra, for: demo c/promise-parallel@b1 vs "
                      "c/callback-parallel@b1 ≤ 1.10x, open at [1.05, 1.15])", e.labels[11])
        rec = e.finish()
        self.assertEqual(rec["rule"], sq.RULE)
        got = {q["id"]: q for q in rec["questions"]}
        self.assertEqual(got["target promise-cost"]["extra_rounds"], [11])
        self.assertEqual(got["target per-op"]["extra_rounds"], [])
        self.assertEqual(got["target per-op"]["decided_at"], 10)
        self.assertTrue(got["target outside"]["decided"])

    def test_a_question_whose_extra_round_added_no_pair_gets_no_more(self):
        times = {B: [105, 115] * 5, C: [100] * 10, D: [500, 1500] * 5, A: [100] * 10}
        e = self.extra(times)
        self.assertEqual(sorted(e.next_round(11)), sorted([B, C, D]))
        # Round 11: D failed, B and C ran.
        append_round(os.path.join(e.rundir, "samples.csv"), 11, {B: 105, C: 100, D: None})
        self.assertEqual(sorted(e.next_round(12)), sorted([B, C]))
        got = {q["id"]: q for q in e.finish()["questions"]}
        self.assertTrue(got["target per-op"].get("stalled"))
        self.assertEqual(got["target per-op"]["extra_rounds"], [11])
        self.assertEqual(got["target promise-cost"]["extra_rounds"], [11, 12])

    def test_the_headlines_comparisons_wait_until_no_target_or_claim_is_open(self):
        cat = self.load(demo=with_questions())
        order = self.ORDER + [E]
        qs = sq.questions(cat, order)
        qs += sq.headline_questions(cat, order, qs)

        def extra(times):
            d = tempfile.mkdtemp(dir=self.dir)
            write_samples(os.path.join(d, "samples.csv"), times)
            return sq.Extra({"max": 5, "minutes": 10}, qs, d, order, 7)
        # promise-cost open (1.05 and 1.15 about 1.10), D over E open (0.9
        # and 1.1 about 1): the round is the target's.
        e = extra({A: [100] * 10, B: [105, 115] * 5, C: [100] * 10, D: [90, 110] * 5,
                   E: [100] * 10})
        self.assertEqual(sorted(e.next_round(11)), sorted([B, C]))
        self.assertNotIn("headline", e.labels[11])
        # promise-cost decided (2x every round): the headline's open one gets it.
        e = extra({A: [100] * 10, B: [200] * 10, C: [100] * 10, D: [90, 110] * 5,
                   E: [100] * 10})
        self.assertEqual(sorted(e.next_round(11)), sorted([D, E]))
        self.assertIn("round 11 (extra, for: demo c/promise-bounded@b1 over its baseline "
                      "c/callback-bounded@b1 against 1.00x, open at [0.90, 1.10])", e.labels[11])
        got = {q["id"]: q for q in e.finish()["questions"]}
        self.assertEqual(got["headline " + D]["extra_rounds"], [11])
        self.assertEqual(got["headline " + D]["source"], "headline")
        self.assertTrue(got["headline " + B]["decided"])
        # promise-cost open but its variants do not fit in the time left; the
        # headline's open one does: it gets the round.
        walls = {A: [100] * 10, B: [105, 115] * 5, C: [100] * 10, D: [90, 110] * 5,
                 E: [100] * 10}
        d = tempfile.mkdtemp(dir=self.dir)
        path = os.path.join(d, "samples.csv")
        write_rows(path, [dict(row(r, vid, t), wall_ns=t + (9000 if vid in (B, C) else 1000))
                          for vid, ts in walls.items() for r, t in enumerate(ts, start=1)])
        e = sq.Extra({"max": 5, "minutes": 10}, qs, d, order, 7, clock=lambda: 0.0,
                     deadline=5e-6, run_minutes=10)
        self.assertEqual(sorted(e.next_round(11)), sorted([D, E]))
        self.assertIn("; 1 open left out, no time for them)", e.labels[11])
        # Both decided: no extra round.
        e = extra({A: [100] * 10, B: [200] * 10, C: [100] * 10, D: [150] * 10, E: [100] * 10})
        self.assertIsNone(e.next_round(11))
        self.assertEqual(e.record["stopped"], "every question decided")

    def test_round_variants_keep_the_plans_order_and_each_once(self):
        qs = [({"variant": C, "against": B},), ({"variant": D, "against": C},),
              ({"variant": A, "against": None},)]
        self.assertEqual(sq.round_variants(qs, self.ORDER), [A, B, C, D])
        self.assertEqual(sq.round_variants(qs[:1], self.ORDER), [B, C])

    def test_no_extra_round_when_every_question_is_decided(self):
        e = self.extra({B: [200] * 10, C: [100] * 10, D: [5100] * 10, A: [100] * 10})
        self.assertIsNone(e.next_round(11))
        self.assertEqual(e.record["stopped"], "every question decided")

    def test_no_extra_round_for_a_question_measured_in_too_few_rounds(self):
        # MIN_PAIRS (1) paired round makes a question open; none (its
        # variants never ran in one round together) is too few.
        e = self.extra({B: [105], C: []})
        self.assertIsNone(e.next_round(2))
        self.assertEqual(e.record["stopped"], "no question measured")

    def test_the_most_extra_rounds_and_the_time_budget_stop_them(self):
        times = {B: [105, 115] * 5, C: [100] * 10}
        e = self.extra(times, {"max": 2, "minutes": 10})
        self.assertIsNotNone(e.next_round(11))
        append_round(os.path.join(e.rundir, "samples.csv"), 11, {B: 105, C: 100})
        self.assertIsNotNone(e.next_round(12))
        append_round(os.path.join(e.rundir, "samples.csv"), 12, {B: 115, C: 100})
        self.assertIsNone(e.next_round(13))
        self.assertEqual(e.record["stopped"], "the most extra rounds (2)")
        now = [0.0]
        e = self.extra(times, {"max": 9, "minutes": 1}, clock=lambda: now[0])
        self.assertIsNotNone(e.next_round(11))
        append_round(os.path.join(e.rundir, "samples.csv"), 11, {B: 105, C: 100})
        now[0] = 60.0 - 1e-7          # 100 ns left; the next round takes 2 x 1.1 us
        self.assertIsNone(e.next_round(12))
        self.assertEqual(e.record["stopped"], "the time budget (1 min)")

    def test_the_runs_own_time_budget_stops_them_even_before_the_first(self):
        # The profile's minutes count from the run's first warm-up: an extra
        # round that would end past them is not started, the first one either.
        times = {B: [105, 115] * 5, C: [100] * 10}
        now = [0.0]
        e = self.extra(times, {"max": 9, "minutes": 5}, clock=lambda: now[0],
                       deadline=600.0, run_minutes=10)
        now[0] = 600.0 - 1e-7         # 100 ns left of the run's 10 minutes
        self.assertIsNone(e.next_round(11))
        self.assertEqual(e.record["stopped"], "the run's time budget (10 min)")
        self.assertEqual(e.record["run_minutes"], 10)
        now[0] = 0.0
        e = self.extra(times, {"max": 9, "minutes": 5}, clock=lambda: now[0],
                       deadline=600.0, run_minutes=10)
        self.assertIsNotNone(e.next_round(11))      # well inside both budgets

    def test_an_extra_round_holds_the_open_questions_that_fit_in_the_time_left(self):
        # promise-cost (B, C: 2.2 us a round) and per-op (D: 4.5 and 5.5 ns
        # per op about its 5 ns bound; D 1.6 us more) are open; 3 us are left.
        times = {B: [105, 115] * 5, C: [100] * 10, D: [550, 650] * 5, A: [100] * 10}
        now = [0.0]
        e = self.extra(times, {"max": 9, "minutes": 5}, clock=lambda: now[0],
                       deadline=3e-6, run_minutes=10)
        self.assertEqual(sorted(e.next_round(11)), sorted([B, C]))
        self.assertIn("; 1 open left out, no time for them)", e.labels[11])
        self.assertEqual(e.record["partial_rounds"], 1)
        got = {q["id"]: q for q in e.finish()["questions"]}
        self.assertEqual(got["target per-op"]["extra_rounds"], [])
        # With room for both, both; with room for none, no round.
        e = self.extra(times, {"max": 9, "minutes": 5}, clock=lambda: now[0],
                       deadline=4e-6, run_minutes=10)
        self.assertEqual(sorted(e.next_round(11)), sorted([B, C, D]))
        self.assertNotIn("partial_rounds", e.record)
        e = self.extra(times, {"max": 9, "minutes": 5}, clock=lambda: now[0],
                       deadline=2e-6, run_minutes=10)
        self.assertIsNone(e.next_round(11))
        self.assertEqual(e.record["stopped"], "the run's time budget (10 min)")

    def test_fit_skips_a_question_that_does_not_fit_and_tries_the_next(self):
        cost = {"a": 5, "b": 1, "c": 1, "d": 1}
        qs = [({"variant": "a", "against": "b"},), ({"variant": "c", "against": "b"},),
              ({"variant": "d", "against": None},)]
        est = lambda ids: sum(cost[v] for v in ids)   # noqa: E731
        # a + b do not fit in 3; c + b do, and d with them (b counted once).
        self.assertEqual(sq.fit(qs, 3, est), qs[1:])
        self.assertEqual(sq.fit(qs, 8, est), qs)
        self.assertEqual(sq.fit(qs, 0.5, est), [])

    def test_the_order_of_an_extra_round_is_shuffled_from_the_seed(self):
        times = {B: [105, 115] * 5, C: [100] * 10, D: [500, 1500] * 5, A: [100] * 10}
        a, b = self.extra(times).next_round(11), self.extra(times).next_round(11)
        self.assertEqual(a, b)

    def test_an_extra_round_runs_in_blocks_as_a_planned_round(self):
        # B and C are compared (parallel, one block), D is in a block of its own.
        times = {B: [105, 115] * 5, C: [100] * 10, D: [500, 1500] * 5, A: [100] * 10}
        blocks = {A: "demo/c/sequential/inprocess/b1", B: "demo/c/parallel/inprocess/b1",
                  C: "demo/c/parallel/inprocess/b1", D: "demo/c/bounded/inprocess/b1"}
        orders = {tuple(self.extra(times, blocks=blocks).next_round(rnd))
                  for rnd in range(11, 31)}
        for o in orders:
            self.assertEqual(sorted(o), sorted([B, C, D]))
            self.assertEqual(abs(o.index(B) - o.index(C)), 1, o)
        # Both blocks' orders and both orders within the block occur.
        self.assertEqual(len(orders), 4, orders)


class ValidationTest(tc.TempCatalog):
    def suite(self, extra):
        s = copy.deepcopy(tc.SUITE)
        s["profiles"]["quick"]["extra_rounds"] = extra
        return s

    def test_a_profile_may_give_extra_rounds(self):
        cat = self.load(self.suite({"max": 20, "minutes": 5}), demo=tc.WORK)
        self.assertEqual(cat.profile("quick")["extra_rounds"], {"max": 20, "minutes": 5})
        self.load(self.suite({"max": 1, "minutes": 0.5}), demo=tc.WORK)

    def test_bad_extra_rounds_are_refused_with_one_line(self):
        for bad, pattern in (
                (5, "extra_rounds must be an object"),
                ({"max": 5}, "minutes must be a number above 0"),
                ({"max": 0, "minutes": 5}, "max must be an integer from 1 to"),
                ({"max": True, "minutes": 5}, "max must be an integer"),
                ({"max": 5, "minutes": 0}, "minutes must be a number above 0"),
                ({"max": 5, "minutes": float("nan")}, "minutes must be a number"),
                ({"max": 5, "minutes": 10 ** 6}, "at most 1440"),
                ({"max": 5, "minutes": 5, "alpha": 0.1}, "unknown field 'alpha'")):
            with self.assertRaises(catalog.CatalogError) as cm:
                self.load(self.suite(bad), demo=tc.WORK)
            self.assertNotIn("\n", str(cm.exception))
            self.assertRegex(str(cm.exception), "profile 'quick': extra_rounds")
            self.assertRegex(str(cm.exception), pattern)


if __name__ == "__main__":
    unittest.main()


class RunTest(unittest.TestCase):
    """run.py end to end on fake programs: a profile with extra rounds and a
    target between two variants that run alike (a ratio about 1 against a
    bound of 1: open however many rounds)."""

    def test_extra_rounds_hold_the_open_questions_variants_and_are_ordinary_rounds(self):
        import json
        from . import testfixtures as tr
        from ..measure import schedule
        from .. import run
        fx = tr.Fixture("run")
        fx.setUpClass()
        self.addCleanup(fx.tearDownClass)
        fx.setUp()
        self.addCleanup(fx.tearDown)
        one, two, three = ("readfile/fake/honest-sequential@python",
                           "readfile/fake/other-sequential@python",
                           "readfile/fake/honest-parallel@python")
        target = {"id": "alike", "what": "other at most honest's time", "variant": two,
                  "against": one, "max_ratio": 1.0}
        catalog = tr.make_catalog(fx.dir, [tr.workload(
            "readfile", [tr.entry(), tr.entry(style="other"), tr.entry(mode="parallel")],
            targets=[target])])
        with open(os.path.join(catalog, "suite.json")) as f:
            suite = json.load(f)
        suite["styles"] = sorted(set(suite["styles"]) | {"other"})
        suite["profiles"]["quick"]["extra_rounds"] = {"max": 3, "minutes": 5}
        with open(os.path.join(catalog, "suite.json"), "w") as f:
            json.dump(suite, f)
        out = os.path.join(fx.dir, "out")
        argv = ["--profile", "quick", "--catalog", catalog, "--out", out, "--host", "testhost",
                "--node", "none", "--seed", "7", "--no-charts", "--no-trace"]
        for without in (["--no-extra-rounds"], ["--rounds", "3"]):
            tr.quiet(run.main, argv + without)
            folder = os.path.realpath(os.path.join(out, "latest"))
            with open(os.path.join(folder, "run.json")) as f:
                info = json.load(f)
            self.assertEqual((info["rounds"], "extra_rounds" in info), (3, False), without)
        tr.quiet(run.main, argv)
        folder = os.path.realpath(os.path.join(out, "latest"))
        with open(os.path.join(folder, "samples.csv"), newline="") as f:
            samples = list(csv.DictReader(f))
        with open(os.path.join(folder, "run.json")) as f:
            info = json.load(f)
        with open(os.path.join(folder, "REPORT.md")) as f:
            report = f.read()
        by_round = {}
        for s in samples:
            by_round.setdefault(int(s["round"]), set()).add(s["variant"])
        self.assertEqual(by_round, {1: {one, two, three}, 2: {one, two, three},
                                    3: {one, two, three}, 4: {one, two}, 5: {one, two},
                                    6: {one, two}})
        # The orders of run.json give every round, the extra ones too.
        orders = schedule.run_orders(info)[1]
        self.assertEqual([sorted(o) for o in orders[3:]], [sorted([one, two])] * 3)
        self.assertEqual(len(orders), info["rounds"])
        x = info["extra_rounds"]
        self.assertEqual((x["rule"], x["rounds"], x["planned_rounds"], x["stopped"]),
                         (sq.RULE, 3, 3, "the most extra rounds (3)"))
        (q,) = x["questions"]
        self.assertEqual((q["id"], q["extra_rounds"], q["decided"]), ("target alike", [4, 5, 6],
                                                                      False))
        self.assertEqual(info["variant_rounds"], {one: 6, two: 6, three: 3})
        self.assertIn("Extra rounds:", report)
        self.assertIn(sq.RULE, report)
        self.assertIn("3 extra rounds ran; stopped by the most extra rounds (3)", report)
        self.assertIn("They were for 1 question (`run.json`: `extra_rounds`): none decided. "
                      "Still open: readfile fake/other-sequential@python vs "
                      "fake/honest-sequential@python ≤ 1.00x (too few rounds to exclude any bound).",
                      report)


class MethodTextTest(unittest.TestCase):
    def test_the_extra_rounds_sentence_names_both_limits_in_minutes(self):
        from ..report import method
        run = {"extra_rounds": {"rule": "sign-mixture confidence sequence", "max": 20,
                                "minutes": 5, "run_minutes": 10, "rounds": 4,
                                "stopped": "the run's time budget (10 min)", "questions": []}}
        text = method.extra_text(run)
        self.assertIn("At most 20 within 5 minutes and by the run's 10-minute budget, by the "
                      "sign-mixture confidence sequence:", text)
        self.assertIn("4 extra rounds ran; stopped by the run's time budget (10 min).", text)
        run["extra_rounds"]["partial_rounds"] = 1
        self.assertIn("4 extra rounds ran (1 of them holding only the open questions whose "
                      "variants fit in the time left); stopped by", method.extra_text(run))
        run["extra_rounds"].update(rounds=1, partial_rounds=1)
        self.assertIn("1 extra round ran, holding only the open questions whose variants fit "
                      "in the time left; stopped by", method.extra_text(run))
        run["extra_rounds"]["rounds"] = 4
        del run["extra_rounds"]["run_minutes"]
        # The headline's comparisons still open are counted, not listed; a
        # run folder from before "source" is read by the question's id.
        q = {"extra_rounds": [11], "decided_at": None, "lo": 0.9, "hi": 1.1}
        run["extra_rounds"]["questions"] = [
            dict(q, id="target t", source="target", text="demo a vs b ≤ 1.10x"),
            dict(q, id="headline demo/c/x", source="headline", text="x"),
            dict(q, id="headline demo/c/y", text="y")]
        self.assertIn("They were for 3 questions (`run.json`: `extra_rounds`): none decided. "
                      "Still open: demo a vs b ≤ 1.10x (at [0.9, 1.1]). And still open: 2 of the "
                      "headline's comparisons.", method.extra_text(run))
        run["extra_rounds"]["questions"] = run["extra_rounds"]["questions"][1:]
        self.assertIn("none decided. Still open: 2 of the headline's comparisons.",
                      method.extra_text(run))
        self.assertIn("At most 20 within 5 minutes, by the sign-mixture", method.extra_text(run))
