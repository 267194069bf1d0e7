"""Tests of sweeps and time budgets below the runner: plan.points(), the order
entries, schedule.budget_rounds() and orders(), summary's point columns and
split_points(), and reading a samples.csv written before env and point."""
import contextlib
import csv
import io
import os
import random
import tempfile
import unittest

from ..report import method
from ..measure import plan as plan_mod
from ..measure import schedule
from ..analysis import summary as sm


def variant(style, mode, backend="b", lang="c", concurrency=None):
    return {"id": "w/%s/%s-%s@%s" % (lang, style, mode, backend), "workload": "w", "lang": lang,
            "style": style, "shape": "", "method": "inprocess", "mode": mode, "backend": backend,
            "concurrency": concurrency if concurrency is not None else
            {"sequential": 1, "parallel": 0}.get(mode, 8)}


SWEEP = [{"axis": "iterations", "values": [10, 100, 1000]},
         {"axis": "concurrency", "values": [1, 8, 64], "for": {"mode": "bounded"}},
         {"axis": "env", "name": "POOL", "values": [1, 4, 16], "default": 4,
          "for": {"backend": "b"}}]


class PointsTest(unittest.TestCase):
    def test_without_a_sweep_one_point_labelled_empty(self):
        pts = plan_mod.points(variant("callback", "parallel"), {"iterations": 100})
        self.assertEqual(pts, [{"point": "", "iterations": 100, "concurrency": 0, "env": {}}])

    def test_each_axis_alone_from_the_base_which_is_never_repeated(self):
        pts = plan_mod.points(variant("callback", "bounded"), {"iterations": 100, "sweep": SWEEP})
        self.assertEqual([p["point"] for p in pts],
                         ["base", "iterations=10", "iterations=1000", "concurrency=1",
                          "concurrency=64", "POOL=1", "POOL=16"])
        by = {p["point"]: p for p in pts}
        self.assertEqual((by["concurrency=64"]["iterations"], by["concurrency=64"]["concurrency"]),
                         (100, 64))
        self.assertEqual(by["POOL=16"]["env"], {"POOL": "16"})
        self.assertEqual(by["iterations=10"]["env"], {})

    def test_for_filters_and_concurrency_only_in_bounded_mode(self):
        pts = plan_mod.points(variant("sync", "sequential", backend="other"),
                              {"iterations": 100, "sweep": SWEEP})
        self.assertEqual([p["point"] for p in pts], ["base", "iterations=10", "iterations=1000"])

    def test_a_variants_own_environment_stays_at_every_point(self):
        v = dict(variant("callback", "parallel"), env={"URING": "1"})
        by = {p["point"]: p for p in plan_mod.points(v, {"iterations": 100, "sweep": SWEEP})}
        self.assertEqual(by["base"]["env"], {"URING": "1"})
        self.assertEqual(by["POOL=1"]["env"], {"URING": "1", "POOL": "1"})

    def test_an_axis_given_twice_for_different_variants_runs_a_point_once(self):
        sweep = [{"axis": "iterations", "values": [10, 1000]},
                 {"axis": "iterations", "values": [10], "for": {"mode": "parallel"}}]
        pts = plan_mod.points(variant("callback", "parallel"), {"iterations": 100, "sweep": sweep})
        self.assertEqual([p["point"] for p in pts], ["base", "iterations=10", "iterations=1000"])

    def test_order_entries_round_trip(self):
        self.assertEqual(plan_mod.entry("w/c/x-parallel@b", "base"), "w/c/x-parallel@b")
        self.assertEqual(plan_mod.parse_entry("w/c/x-parallel@b POOL=1"), ("w/c/x-parallel@b", "POOL=1"))
        self.assertEqual(plan_mod.parse_entry("w/c/x-parallel@b"), ("w/c/x-parallel@b", None))


class FakePlan:
    def __init__(self, variants, settings, rounds=3, warmups=1):
        self.variants, self.settings, self.rounds, self.warmups = variants, settings, rounds, warmups
        self.points = {}


class BudgetTest(unittest.TestCase):
    def setUp(self):
        self.cb = variant("callback", "parallel")
        self.pr = variant("promise", "parallel")
        self.seq = variant("callback", "sequential")
        self.node = variant("callback", "parallel", lang="node")
        budget = {"seconds": 1, "max_rounds": 50, "for": {"lang": "c"}}
        self.plan = FakePlan([self.cb, self.pr, self.seq, self.node],
                             {"w": {"rounds": 3, "budget": budget}})

    def test_a_group_shares_the_rounds_its_median_warm_up_time_fits(self):
        # the parallel group: 20, 40 and 60 ms -> median 40 ms -> 25 rounds, for both
        walls = {self.cb["id"]: [20e6, 60e6], self.pr["id"]: [40e6], self.seq["id"]: [900e6],
                 self.node["id"]: [1e6]}
        got = schedule.budget_rounds(self.plan, walls)
        self.assertEqual(got, {self.cb["id"]: 25, self.pr["id"]: 25, self.seq["id"]: 3})

    def test_bounded_by_max_rounds_and_by_the_profiles_rounds(self):
        got = schedule.budget_rounds(self.plan, {self.cb["id"]: [1e3], self.seq["id"]: [5e9]})
        self.assertEqual((got[self.cb["id"]], got[self.seq["id"]]), (50, 3))
        self.assertNotIn(self.node["id"], got)

    def test_the_rounds_added_fit_in_the_time_the_planned_rounds_leave(self):
        walls = {self.cb["id"]: [20e6, 60e6], self.pr["id"]: [40e6], self.seq["id"]: [900e6],
                 self.node["id"]: [1e6]}
        # Uncapped: 22 more rounds of 80 + 40 ms = 2.64 s; in 1.2 s, 10 more (13 rounds).
        self.assertEqual(schedule.budget_rounds(self.plan, walls, 3e9),
                         schedule.budget_rounds(self.plan, walls))
        got = schedule.budget_rounds(self.plan, walls, 1.2e9)
        self.assertEqual(got, {self.cb["id"]: 13, self.pr["id"]: 13, self.seq["id"]: 3})
        self.assertEqual(set(schedule.budget_rounds(self.plan, walls, 0).values()), {3})

    def test_the_time_left_after_the_planned_rounds_at_round_1s_pace(self):
        walls = {self.cb["id"]: [0.5e9, 0.5e9], self.pr["id"]: [1e9], self.seq["id"]: [],
                 self.node["id"]: [0]}
        # 2 s of runs in a round of 2.5 s: 2 rounds to come take 5 s of the 8 s left,
        # and the 3 s that remain are 2.4 s of runs.
        self.assertAlmostEqual(schedule.spare_ns(self.plan, walls, 2.5e9, 8e9), 2.4e9)
        self.assertEqual(schedule.spare_ns(self.plan, walls, 2.5e9, 4e9), 0.0)

    def test_a_host_too_slow_for_the_budget_adds_no_round_and_says_by_how_much(self):
        class Progress:
            done, total = 0, 0
        walls = {self.cb["id"]: [0.5e9, 0.5e9], self.pr["id"]: [1e9], self.seq["id"]: [1e9],
                 self.node["id"]: [0.5e9]}
        plan_orders = schedule.orders(self.plan, 3)
        # 3.5 s of runs in a round of 3.5 s: the 2 rounds to come take 7 s, 1 s more than left.
        run = {}
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            schedule.decide_budget(self.plan, 3, walls, plan_orders, run, Progress(),
                                   (3.5e9, 6e9))
        self.assertEqual((run["budget_cap_s"], run["planned_over_s"]), (0.0, 1))
        self.assertEqual(set(run["variant_rounds"].values()), {3})
        self.assertIn("the planned rounds alone end about 1 s past the run's time budget",
                      err.getvalue())
        said = method.method_section(dict(run, rounds=3, warmup_rounds=1, seed=3,
                                          profile="default", minutes=10))[2]
        self.assertIn("its time budget 10 min from the first warm-up, which at round 1's pace "
                      "its planned rounds alone were to pass by about 1 s", said)
        # With time to spare: half of it, and nothing said.
        run, err = {}, io.StringIO()
        with contextlib.redirect_stderr(err):
            schedule.decide_budget(self.plan, 3, walls, plan_orders, run, Progress(),
                                   (3.5e9, 27e9))
        self.assertEqual(run["budget_cap_s"], 10.0)    # half of 27 - 7 s
        self.assertNotIn("planned_over_s", run)
        self.assertNotIn("past", err.getvalue())

    def test_the_first_line_says_each_workloads_rounds_and_the_budgets_ceiling(self):
        self.assertEqual(schedule.rounds_said(self.plan.settings["w"]),
                         "3 rounds (up to 50 by a time budget)")
        self.assertEqual(schedule.rounds_said({"rounds": 1}), "1 round")
        self.assertEqual(schedule.rounds_said({"rounds": 6}), "6 rounds")

    def test_the_budgets_spread_per_workload(self):
        walls = {self.cb["id"]: [20e6, 60e6], self.pr["id"]: [40e6], self.seq["id"]: [900e6]}
        got = schedule.budget_spread(self.plan, schedule.budget_rounds(self.plan, walls))
        self.assertEqual(got, {"w": (3, 25)})

    def test_orders_keep_the_warm_ups_and_extend_the_budgeted_variants(self):
        before = schedule.orders(self.plan, 7)
        after = schedule.orders(self.plan, 7, {self.cb["id"]: 5, self.pr["id"]: 5})
        self.assertEqual(after[:1], before[:1])
        self.assertEqual([len(o) for o in after], [4, 4, 4, 4, 2, 2])


def contiguous(order, key):
    """True when the entries of order with the same key(entry) stand together."""
    seen, last = set(), None
    for e in order:
        k = key(e)
        if k != last:
            if k in seen:
                return False
            seen.add(k)
            last = k
    return True


class BlockOrderTest(unittest.TestCase):
    """A round's order in blocks (DESIGN section 6): the variants a ratio
    compares run one after another, the blocks and workloads in a shuffled order."""

    def setUp(self):
        self.vs = [dict(variant(s, m, backend=b, lang=lang), workload=w,
                        id="%s/%s/%s-%s@%s" % (w, lang, s, m, b))
                   for w in ("w1", "w2", "w3")
                   for lang, b in (("c", "b1"), ("c", "b2"), ("node", "n"))
                   for m in ("sequential", "parallel")
                   for s in ("callback", "promise", "await")]
        self.plan = FakePlan(self.vs, {w: {"rounds": 30} for w in ("w1", "w2", "w3")},
                             rounds=30, warmups=1)
        self.block = {v["id"]: schedule.block_key(v) for v in self.vs}

    def test_every_round_keeps_each_workload_and_each_block_together(self):
        orders = schedule.orders(self.plan, 11)
        self.assertEqual(len(orders), 31)
        for order in orders:
            self.assertEqual(sorted(order), sorted(v["id"] for v in self.vs))
            self.assertTrue(contiguous(order, lambda e: e.split("/")[0]), order)
            self.assertTrue(contiguous(order, self.block.__getitem__), order)

    def test_the_workloads_the_blocks_and_the_members_are_shuffled_per_round(self):
        orders = schedule.orders(self.plan, 11)
        workloads = {tuple(dict.fromkeys(e.split("/")[0] for e in o)) for o in orders}
        blocks = {tuple(dict.fromkeys(self.block[e] for e in o if e.startswith("w1/")))
                  for o in orders}
        members = {tuple(e for e in o if self.block[e] == "w1/c/parallel/inprocess/b1")
                   for o in orders}
        # 3! workload orders, 6! block orders, 3! member orders: 31 rounds see many.
        self.assertEqual(len(workloads), 6)
        self.assertGreater(len(blocks), 15)
        self.assertEqual(len(members), 6)
        self.assertEqual(schedule.orders(self.plan, 11), orders)
        self.assertNotEqual(schedule.orders(self.plan, 12), orders)

    def test_the_recipe_records_each_entrys_block_and_the_rule(self):
        recipe = schedule.order_recipe(self.plan, 11)
        self.assertEqual(recipe["blocks"], schedule.BLOCK_RULE)
        self.assertEqual(recipe["entries"][0],
                         ["w1/c/callback-sequential@b1", 30, "w1/c/sequential/inprocess/b1"])

    def test_the_reports_method_says_blocks_only_for_a_run_in_blocks(self):
        run = {"rounds": 30, "warmup_rounds": 1, "seed": 11, "profile": "quick",
               "orders": schedule.order_recipe(self.plan, 11)}
        first = method.method_section(run)[2]
        self.assertIn("`random.Random(11)` in blocks: the workloads in a shuffled order", first)
        del run["orders"]["blocks"]
        self.assertNotIn("blocks", method.method_section(run)[2])

    def test_a_recipe_without_blocks_expands_as_one_shuffled_list_per_round(self):
        # A run folder from before blocks: its orders are what its runner ran.
        recipe = schedule.order_recipe(self.plan, 5)
        del recipe["blocks"]
        recipe["entries"] = [e[:2] for e in recipe["entries"]]
        rng, want = random.Random(5), []
        for _ in range(31):
            ids = [v["id"] for v in self.vs]
            rng.shuffle(ids)
            want.append(ids)
        self.assertEqual(schedule.expand(recipe), want)


class SummaryPointsTest(unittest.TestCase):
    def rows(self, vid, point, iterations, env=""):
        return [{"round": r, "order": 1, "variant": vid, "workload": "w", "lang": "c",
                 "style": "callback", "mode": "parallel", "backend": "b", "iterations": iterations,
                 "concurrency": 0, "status": "ok", "exit_code": 0, "elapsed_ns": 1000 * r * iterations,
                 "wall_ns": 10 ** 9, "proc_user_us": 1, "proc_sys_us": 1, "proc_peak_rss_kb": 100, "ok": iterations,
                 "bytes": 0, "shape": "", "method": "inprocess", "label": vid[2:], "env": env,
                 "point": point} for r in range(1, 7)]

    def test_points_are_series_of_their_own_and_the_base_is_the_variant(self):
        samples = (self.rows("w/c/callback-parallel@b", "base", 100)
                   + self.rows("w/c/callback-parallel@b", "iterations=10", 10)
                   + self.rows("w/c/callback-parallel@b", "POOL=1", 100, "POOL=1"))
        base, pts = sm.split_points(sm.summarize(samples, {}))
        self.assertEqual([r["iterations"] for r in base], [100])
        self.assertEqual(base[0]["sweep"], {"iterations": 2, "POOL": 2})
        self.assertEqual((base[0]["sweep_iterations"], base[0]["sweep_concurrency"],
                          base[0]["sweep_env"]), (2, None, 2))
        by = {p["point"]: p for p in pts}
        self.assertEqual((by["iterations=10"]["axis"], by["iterations=10"]["x"]), ("iterations", 10))
        self.assertEqual((by["POOL=1"]["axis"], by["POOL=1"]["x"], by["POOL=1"]["env"]),
                         ("POOL", 1, "POOL=1"))
        self.assertEqual(by["iterations=10"]["median_ms"], 0.035)

    def test_without_points_nothing_changes(self):
        base, pts = sm.split_points(sm.summarize(self.rows("w/c/callback-parallel@b", "", 100), {}))
        self.assertEqual((len(base), pts), (1, []))
        self.assertNotIn("sweep", base[0])

    def test_a_samples_csv_without_env_and_point_still_reads(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "samples.csv")
            with open(path, "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=sm.SAMPLE_COLUMNS[:sm.BASE_COLUMNS], lineterminator="\n")
                w.writeheader()
                for r in self.rows("w/c/callback-parallel@b", "", 100):
                    w.writerow({k: r[k] for k in sm.SAMPLE_COLUMNS[:sm.BASE_COLUMNS]})
            rows = sm.read_samples(path)
        self.assertEqual(len(rows), 6)
        self.assertEqual((rows[0]["env"], rows[0]["point"]), ("", ""))

    def test_the_same_round_twice_is_refused_only_at_the_same_point(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "samples.csv")
            rows = self.rows("w/c/callback-parallel@b", "base", 100)
            rows += self.rows("w/c/callback-parallel@b", "iterations=10", 10)
            with open(path, "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=sm.SAMPLE_COLUMNS, lineterminator="\n")
                w.writeheader()
                w.writerows(rows)
            self.assertEqual(len(sm.read_samples(path)), 12)
            with open(path, "a", newline="") as f:
                csv.DictWriter(f, fieldnames=sm.SAMPLE_COLUMNS, lineterminator="\n").writerow(rows[7])
            with self.assertRaisesRegex(ValueError, "a second row of w/c/callback-parallel@b at "
                                                    "iterations=10 in round 2"):
                sm.read_samples(path)


if __name__ == "__main__":
    unittest.main()
