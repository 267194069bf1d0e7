"""Tests of runner/analysis/ladder.py: each claim's ladder on synthetic runs (the
factors multiply to the gap, a rung that cannot run renders with its reason)
and ladder_check.check_ladder."""
import math
import random
import unittest

from ..analysis import claimrun
from ..analysis import ladder
from ..catalog import catalog as catalog_mod
from ..catalog import ladder_check
from ..core.errors import CatalogError

CAT = catalog_mod.load()
FIB = CAT.workloads["asyncfib"]["claims"]
OLD = "asyncfib/node@18.15.0/%s-rssclock-sequential@none"
RSS = "asyncfib/node/%s-rssclock-sequential@none"
OWN = "asyncfib/node/%s-sequential@none"


def row(vid):
    f = catalog_mod.parse_id(vid)
    return {"variant": vid, "workload": f["workload"], "lang": f["lang"], "style": f["style"],
            "mode": f["mode"], "backend": f["backend"], "iterations": 5, "n": 10,
            "statuses": {"ok": 10}, "median_ms": 1.0, "runtime": f.get("runtime")}


def fake_run(ms, profile="seed", rounds=10, noise=0.0, skipped=(), seed=1):
    """A claimrun.Run whose variants' elapsed times per round are ms (a dict)
    times a drift shared by the round and, with noise, a factor of each
    variant's own (log-uniform within +-noise)."""
    rnd = random.Random(seed)
    summary = {"run": {"profile": profile, "variants": list(ms) + [s["variant"] for s in skipped],
                       "skipped": list(skipped), "complete": True},
               "host": {"slug": "test-host"}, "variants": [row(v) for v in ms]}
    run = claimrun.Run(summary, None, CAT)
    run.times = {}
    for r in range(1, rounds + 1):
        drift = 1.0 + 0.1 * (r % 3)
        for v, m in ms.items():
            own = math.exp(rnd.uniform(-noise, noise)) if noise else 1.0
            run.times.setdefault(v, {})[r] = m * 1e6 * drift * own
    return run


def seed_times(r2=200.0, r3=150.0, r5=40.0):
    """Elapsed ms of await-recursive's rungs 2, 3 and 5: the ratios r2, r3, r5."""
    return {OLD % "await-recursive": r2, OLD % "sync-recursive": 1.0,
            RSS % "await-recursive": r3, RSS % "sync-recursive": 1.0,
            OWN % "await-recursive": r5 * 2, OWN % "sync-recursive": 2.0}


def runs(seed_run, default_run=None, why_default="no run of the default profile was given"):
    return {"catalog": CAT, "seed": seed_run, "default": default_run, "why_default": why_default}


class LadderArithmetic(unittest.TestCase):
    def test_the_factors_multiply_to_the_gap_and_name_what_changed(self):
        default = fake_run({OWN % "await-recursive": 200.0, OWN % "sync-recursive": 10.0},
                           profile="default")
        lad = ladder.build(CAT, FIB, "await-recursive", runs(fake_run(seed_times()), default))
        figs = {r["rung"]: r["figure"]["value"] for r in lad["rungs"] if "figure" in r}
        self.assertEqual(sorted(figs), [1, 2, 3, 5, 6])
        for k, want in ((1, 256.4), (2, 200.0), (3, 150.0), (5, 40.0), (6, 20.0)):
            self.assertAlmostEqual(figs[k], want, places=6)
        steps = {(s["from"], s["to"]): s for s in lad["steps"]}
        self.assertEqual(sorted(steps), [(1, 2), (2, 3), (3, 5), (5, 6)])
        for (a, b), s in steps.items():
            self.assertAlmostEqual(s["value"], figs[a] / figs[b], places=6)
        self.assertIn("round-paired", steps[(2, 3)]["how"])
        self.assertNotIn("outside", steps[(2, 3)]["how"])
        self.assertTrue(lad["exact"])
        self.assertIn("two runs", steps[(5, 6)]["how"])
        self.assertEqual(steps[(1, 2)]["what"], ladder.HOST_STEP)
        self.assertEqual(steps[(2, 3)]["what"], FIB["ladder"]["steps"]["runtime"])
        self.assertEqual(steps[(3, 5)]["keys"], ["program", "method"])
        self.assertIn(FIB["ladder"]["steps"]["method"], steps[(3, 5)]["what"])
        self.assertAlmostEqual(lad["product"], 256.4 / 20.0, places=6)
        self.assertAlmostEqual(lad["gap"]["value"], 256.4 / 20.0, places=6)
        self.assertTrue(lad["within"])
        self.assertEqual((lad["most"]["from"], lad["most"]["to"]), (3, 5))   # 3.75x

    def test_with_noise_the_paired_factors_multiply_to_a_figure_inside_the_gaps_interval(self):
        default = fake_run({OWN % "await-recursive": 200.0, OWN % "sync-recursive": 10.0},
                           profile="default", noise=0.05, seed=7)
        for seed in range(5):
            lad = ladder.build(CAT, FIB, "await-recursive",
                               runs(fake_run(seed_times(), noise=0.05, seed=seed), default))
            g = lad["gap"]
            self.assertIsNotNone(g["low"])
            self.assertLess(g["low"], g["high"])
            self.assertTrue(g["low"] <= lad["product"] <= g["high"], (seed, lad["product"], g))
            self.assertTrue(lad["within"])
            self.assertTrue(lad["exact"])
            self.assertAlmostEqual(lad["product"], g["value"], places=9)
            # a paired step's interval is its rounds' own, of the rungs' ratio round by round
            seed_run = fake_run(seed_times(), noise=0.05, seed=seed)
            s = {(x["from"], x["to"]): x for x in lad["steps"]}[(2, 3)]
            r = seed_run.ratio([OLD % "await-recursive", RSS % "sync-recursive"],
                               [OLD % "sync-recursive", RSS % "await-recursive"])
            self.assertEqual((s["low"], s["high"]), (r["low"], r["high"]))
            self.assertIn("interval round-paired, 10 rounds", s["how"])
            rungs = {x["rung"]: x["figure"]["value"] for x in lad["rungs"] if "figure" in x}
            self.assertAlmostEqual(s["value"], rungs[2] / rungs[3], places=9)

    def test_a_step_whose_rungs_medians_fall_outside_its_paired_interval_says_so(self):
        # rung 3's ratio y a round, rung 2's y times f: f is 1 in 8 of 10 rounds, so the
        # step's paired interval is [1, 1], while the rungs' medians divide to 0.83
        y = [1, 3, 1, 1, 1, 8, 8, 1, 2, 5]
        f = [1.0, 0.5, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.5]
        run = fake_run(seed_times())
        for r in range(1, 11):
            run.times[OLD % "await-recursive"][r] = 100.0 * y[r - 1] * f[r - 1]
            run.times[RSS % "await-recursive"][r] = 100.0 * y[r - 1]
            run.times[OLD % "sync-recursive"][r] = run.times[RSS % "sync-recursive"][r] = 1.0
        lad = ladder.build(CAT, FIB, "await-recursive", runs(run))
        s = {(x["from"], x["to"]): x for x in lad["steps"]}[(2, 3)]
        self.assertAlmostEqual(s["value"], 250.0 / 300.0, places=9)
        self.assertEqual((s["low"], s["high"]), (1.0, 1.0))
        self.assertIn("the rungs' medians fall outside it (median of the rounds' ratios 1.00x)",
                      s["how"])
        self.assertTrue(lad["exact"])

    def test_the_check_fails_when_the_product_misses_the_gap(self):
        lad = {"gap": {"from": 1, "to": 6, "value": 10.0, "low": 9.0, "high": 11.0},
               "product": 14.0, "within": False,
               "most": {"from": 1, "to": 2, "keys": ["host"], "value": 5.0}}
        self.assertIn("**they do not make the gap**", ladder.summary_line(lad))

    def test_an_absolute_claim_is_a_time_in_ms(self):
        claims = CAT.workloads["cacheloop"]["claims"]
        nt = "cacheloop/node/callback-nexttick-%ssequential@fs.readFile"
        seed_run = fake_run({nt % "objkey-": 900.0, nt % "": 600.0})
        lad = ladder.build(CAT, claims, "nexttick-ms", runs(seed_run))
        figs = {r["rung"]: r["figure"]["value"] for r in lad["rungs"] if "figure" in r}
        self.assertAlmostEqual(figs[3], 900.0 * 1.1, places=3)   # the rounds' median drift: ms
        self.assertAlmostEqual(figs[5] / figs[3], 600.0 / 900.0, places=6)
        self.assertAlmostEqual(lad["product"], 1297.0 / figs[5], places=6)


class RungsThatCannotRun(unittest.TestCase):
    def test_a_rung_that_cannot_run_renders_its_reason_and_the_step_spans_it(self):
        times = seed_times()
        del times[OLD % "await-recursive"], times[OLD % "sync-recursive"]
        why = ("needs node 99.0.0 or later: a test's reason")
        seed_run = fake_run(times, skipped=[{"variant": OLD % "await-recursive", "reason": why},
                                            {"variant": OLD % "sync-recursive", "reason": why}])
        r = runs(seed_run)
        lad = ladder.build(CAT, FIB, "await-recursive", r)
        rung = {x["rung"]: x for x in lad["rungs"]}
        self.assertIn(why, rung[2]["why"])
        self.assertIn("rung 3 is this rung", rung[4]["why"])          # the catalog's reason
        self.assertEqual(rung[6]["why"], "no run of the default profile was given")
        self.assertEqual([(s["from"], s["to"]) for s in lad["steps"]], [(1, 3), (3, 5)])
        self.assertIn("across rung 2, not measured", lad["steps"][0]["what"])
        self.assertAlmostEqual(lad["product"], 256.4 / 40.0, places=6)
        text = "\n".join(ladder.markdown(r))
        self.assertIn("not measured: `%s` was skipped: %s" % (OLD % "await-recursive", why), text)
        self.assertIn("not measured: no run of the default profile was given", text)
        self.assertIn("| 6. the suite's default |", text)
        # every claim of the seed has its table, measured or not; a seed the
        # (filtered) run did not measure has none
        for c in FIB["ratios"]:
            self.assertIn("(`%s`)" % c["id"], text)
        self.assertIn("### Seed 004 (asyncfib)", text)
        self.assertNotIn("Seed 000", text)

    def test_every_claim_of_every_seed_has_its_table(self):
        ms = {}
        for w in ("readfile", "httpchain", "cacheloop", "doxbee", "asyncfib"):
            claims = CAT.workloads[w]["claims"]
            c = (claims.get("ratios") or claims.get("absolute"))[0]
            ms[c.get("num", c.get("variant"))] = 1.0
        text = "\n".join(ladder.markdown(runs(fake_run(ms))))
        for w in ("readfile", "httpchain", "cacheloop", "doxbee", "asyncfib"):
            claims = CAT.workloads[w]["claims"]
            self.assertIn("### Seed %s (%s)" % (claims["seed"], w), text)
            for c in claims.get("ratios", []) + claims.get("absolute", []):
                self.assertIn("(`%s`)" % c["id"], text)

    def test_a_seed_version_not_pinned_is_one_line(self):
        claims = CAT.workloads["cacheloop"]["claims"]
        lad = ladder.build(CAT, claims, "trampoline-nexttick", runs(fake_run({})))
        self.assertIn("no pinned Node stands for the seed's", lad["rungs"][1]["why"])
        self.assertIsNone(lad["gap"])
        self.assertEqual(ladder.summary_line(lad), "Fewer than two rungs are measured: no step to give.")

    def test_a_claim_without_a_published_figure_starts_at_its_first_measured_rung(self):
        claims = CAT.workloads["doxbee"]["claims"]
        pf = "doxbee/node/%s-sequential-perfjs-parallel@%s"
        seed_run = fake_run({pf % ("promise", "native"): 1.3, pf % ("await", "native"): 1.0,
                             pf % ("promise", "fakes.native"): 1.5, pf % ("await", "fakes.native"): 1.0})
        lad = ladder.build(CAT, claims, "await-promise-sequential", runs(seed_run))
        self.assertIn("published no figure", lad["rungs"][0]["why"])
        self.assertEqual((lad["gap"]["from"], lad["gap"]["to"]), (3, 4))
        self.assertAlmostEqual(lad["product"], 1.5 / 1.3, places=6)

    def test_a_run_of_another_profile_has_no_ladder_section(self):
        class Folder:
            run = {"profile": "default"}
        self.assertEqual(ladder.report_section(Folder()), [])


class CheckLadder(unittest.TestCase):
    def claims(self):
        return {"ratios": [{"id": "r", "num": "a", "den": "b"}],
                "absolute": [{"id": "t", "variant": "a"}],
                "ladder": {"about": "x", "steps": {k: "one line" for k in ladder_check.LADDER_STEPS},
                           "rungs": {"r": {"shape": ["a", "b"], "method": "why not"},
                                     "t": {"shape": ["a"], "method": ["a"]}}}}

    def find(self, vid):
        return {"a": {"profiles": ["seed"]}, "b": {"profiles": ["seed", "full"]},
                "d": {"profiles": ["default"]}}.get(vid)

    def check(self, claims):
        ladder_check.check_ladder(claims, self.find, "w.json: claims.ladder")

    def refused(self, claims, says):
        with self.assertRaises(CatalogError) as e:
            self.check(claims)
        self.assertRegex(str(e.exception), says)

    def test_a_whole_ladder_passes(self):
        self.check(self.claims())
        self.check({"ratios": []})              # no ladder at all

    def test_every_claim_has_rungs(self):
        c = self.claims()
        del c["ladder"]["rungs"]["t"]
        self.refused(c, "claim 't' has no rungs")
        c = self.claims()
        c["ladder"]["rungs"]["x"] = {"shape": "no", "method": "no"}
        self.refused(c, "rungs.x names no ratio or absolute claim")

    def test_the_rungs_sizes_ids_and_profiles(self):
        c = self.claims()
        c["ladder"]["rungs"]["r"]["shape"] = ["a"]
        self.refused(c, "must be 2 variant ids")
        c = self.claims()
        c["ladder"]["rungs"]["r"]["shape"] = ["a", "zz"]
        self.refused(c, "zz is not a variant of the catalog")
        c = self.claims()
        c["ladder"]["rungs"]["t"]["method"] = ["d"]
        self.refused(c, "d is not in the seed profile")
        c = self.claims()
        c["ladder"]["rungs"]["r"]["method"] = "two\nlines"
        self.refused(c, "a reason must be one line")
        c = self.claims()
        del c["ladder"]["steps"]["n"]
        self.refused(c, "steps must name exactly")
        c = self.claims()
        c["ladder"]["rungs"]["r"] = {"shape": ["a", "b"]}
        self.refused(c, "exactly shape and method")


if __name__ == "__main__":
    unittest.main()


class LadderChartWanted(unittest.TestCase):
    class Folder:
        def __init__(self, profile):
            self.recorded = {"profile": profile}

        def catalog_or_none(self):
            return CAT

    def test_only_a_seed_run_with_ladders_gets_the_chart(self):
        from ..report import charting
        rows = [{"workload": "asyncfib", "variant": OWN % "sync-recursive", "n": 3}]
        self.assertIsNone(charting.chart_wanted("ladder:claims", rows, self.Folder("seed")))
        self.assertIn("seed profile", charting.chart_wanted("ladder:claims", rows, self.Folder("default")))
        self.assertIn("seed profile", charting.chart_wanted("ladder:claims", rows, None))
        rows = [{"workload": "tasks", "variant": "tasks/c/callback-parallel@sleepq", "n": 3}]
        self.assertIn("no ladder", charting.chart_wanted("ladder:claims", rows, self.Folder("seed")))
        # a seed run's versioned variants are rungs: no chart of versions
        self.assertIn("rungs", charting.chart_wanted("versions:claims", rows, self.Folder("seed")))

    def test_the_chart_of_the_reference_seed_run_draws_its_steps_without_overlaps(self):
        import json
        import os
        import tempfile
        from ..analysis import runfolder
        from ..report.charts import ladder_chart
        seed = os.path.join(catalog_mod.ROOT, "results", "reference", "linux-x86_64-intel-xeon-2c",
                            "20261205T222516Z")
        if not os.path.isdir(seed):
            self.skipTest("the reference seed run is not in this checkout")
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "ladder-doxbee.png")
            ladder_chart.draw(runfolder.RunFolder(seed), "doxbee", out)
            with open(out[:-4] + ".json", encoding="utf-8") as f:
                side = json.load(f)
        self.assertEqual(side["check"]["overlaps"], [])
        self.assertEqual(side["check"]["outside"], [])
        self.assertGreaterEqual(side["check"]["smallest_pt_at_github"], 11.5)
        claim = {c["claim"]: c for c in side["claims"]}["bluebird-native-parallel"]
        self.assertEqual([s["to"] for s in claim["steps"]], [4, 5, 6])
        self.assertAlmostEqual(math.prod(s["value"] for s in claim["steps"]), claim["product"])


class SeedPins(unittest.TestCase):
    def test_the_seed_profile_installs_the_versions_its_rung_2_can_run_on(self):
        pins = ladder.seed_pins(CAT)
        self.assertEqual(pins, ["go@1.21.13", "node@10.24.1", "node@18.15.0", "node@20.8.0"])
        # Node 8.17.0 is seed 001's, but its one rung-2 program starts from an ES module
        self.assertIsNotNone(CAT.find("httpchain/node@8.17.0/await-datenow-sequential@nodeserver.close"))
        self.assertNotIn("node@8.17.0", pins)
        self.assertEqual(ladder.seed_pins(CAT, "go"), ["1.21.13"])
