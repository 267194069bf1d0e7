"""Unit tests of cli's arguments and of plan: the estimate's figures, the
profile, filters, commands, skips, probes and rounds of a plan, on the fake
catalog tests/fixtures-bin/catalog/ and on small catalog folders written into
a temporary folder where a case needs its own."""
import json
import os
import sys
import tempfile
import unittest
from unittest import mock

from ..catalog import catalog as catalog_mod
from .. import cli
from ..report import method
from ..measure import plan as plan_mod
from .. import run
from ..measure import schedule
from ..core.errors import EnvError, UsageError
from .testfixtures import FIXTURES, HONEST, ROOT, Fixture, entry, make_catalog, workload


class ArgsTest(unittest.TestCase):
    def test_a_timeout_that_is_not_a_finite_positive_number_is_a_usage_error(self):
        for bad in ("0", "-1", "nan", "inf", "-inf"):
            with self.assertRaisesRegex(UsageError, "--timeout must be between 0.1 and 86400"):
                cli.parse_args(["--profile", "quick", "--timeout=" + bad])
        self.assertEqual(cli.parse_args(["--profile", "quick", "--timeout", "2.5"]).timeout, 2.5)

    def test_the_catalog_is_the_folder_by_default(self):
        self.assertEqual(cli.parse_args(["--profile", "quick"]).catalog, catalog_mod.DIR)



class EstimateFiguresTest(unittest.TestCase):
    """run.previous_walls: what a run's estimate is made from."""

    @staticmethod
    def summary(folder, walls, profile="default"):
        os.makedirs(folder)
        with open(os.path.join(folder, "summary.json"), "w") as f:
            json.dump({"run": {"profile": profile},
                       "variants": [{"variant": v, "wall_ms": ms, "iterations": n}
                                    for v, (ms, n) in walls.items()]}, f)

    def test_a_first_run_takes_the_newest_committed_reference_runs_figures(self):
        # A fresh clone has no results/latest: without the committed runs its
        # first make compare was estimated at start-up times ("about 1 min"
        # for a run of 19 min).  The local run's figure comes first, then the
        # newest reference run of the same profile that has the variant, of
        # any host (a seed run's N = 5 scaled to the default's 40,000 gave
        # "3 h 49 min").
        with tempfile.TemporaryDirectory() as d:
            out, ref = os.path.join(d, "results"), os.path.join(d, "reference")
            self.assertEqual(run.previous_walls(out, "default", ref), {})
            self.summary(os.path.join(ref, "host-a", "20260101T000000Z"), {"a": (1.0, 10), "b": (2.0, 10)})
            self.summary(os.path.join(ref, "host-b", "20260301T000000Z"), {"a": (3.0, 10)})
            self.summary(os.path.join(ref, "host-b", "20260401T000000Z"), {"a": (9.0, 5)}, "seed")
            os.makedirs(os.path.join(ref, "host-b", "micro-20260501T000000Z"))  # no summary.json
            self.assertEqual(run.previous_walls(out, "default", ref), {"a": (3.0, 10), "b": (2.0, 10)})
            self.assertEqual(run.previous_walls(out, "seed", ref), {"a": (9.0, 5)})
            self.summary(os.path.join(out, "latest"), {"b": (5.0, 20)})
            self.assertEqual(run.previous_walls(out, "default", ref), {"a": (3.0, 10), "b": (5.0, 20)})
            self.assertEqual(run.previous_walls(out, "seed", ref), {"a": (9.0, 5)})

    def test_a_budget_gives_the_rounds_a_variants_figure_fits_in_it(self):
        # readfile's default: 2 s and at most 40 rounds for C; a 40 ms run gets
        # 40, a 400 ms one 5 -> the workload's 10; the variants the budget is
        # not for keep 10; a variant with no figure is counted at the most.
        class Plan:
            warmups = 1
            points = {}
            settings = {"w": {"iterations": 10, "rounds": 10,
                              "budget": {"seconds": 2, "max_rounds": 40, "for": {"lang": "c"}}}}
            variants = [{"id": i, "workload": "w", "lang": lang} for i, lang in
                        (("fast", "c"), ("slow", "c"), ("other", "go"), ("new", "c"))]
        walls = {"fast": (40.0, 10), "slow": (400.0, 10), "other": (50.0, 10)}
        runs, _, guessed = plan_mod.estimate(Plan, walls)
        self.assertEqual((runs, guessed), ((1 + 40) + (1 + 10) + (1 + 10) + (1 + 40), 1))

    def test_the_budget_keeps_time_for_the_traced_runs_of_a_profile_that_traces(self):
        class Plan:
            settings = {"traced": {"trace_iterations": 200}, "plain": {}}
            variants = [{"workload": "traced", "lang": "node"}, {"workload": "traced", "lang": "c"},
                        {"workload": "plain", "lang": "c"}]
        # two traced runs a variant, each its language's floor and a margin
        self.assertAlmostEqual(plan_mod.trace_reserve(Plan), 2 * (0.09 + 0.05) + 2 * (0.002 + 0.05))
        Plan.settings = {"traced": {}, "plain": {}}
        self.assertEqual(plan_mod.trace_reserve(Plan), 0.0)

    def test_the_estimate_says_what_the_profiles_budget_leaves_for_extra_rounds(self):
        class Plan:
            minutes = 10
        args = cli.parse_args(["--profile", "default", "--yes",
                               "--out", os.path.join(tempfile.gettempdir(), "no-runs")])
        for seconds, want in ((300, "about 5 min; extra rounds fill the profile's 10-minute "
                                    "budget at most"),
                              (700, "the planned rounds alone go over the profile's 10-minute "
                                    "budget, so no extra round will run")):
            with mock.patch.object(plan_mod, "estimate", return_value=(100, seconds, 0)):
                self.assertIn(want, run.check_duration(args, Plan))
        args = cli.parse_args(["--profile", "default", "--yes", "--rounds", "3"])  # no extra
        with mock.patch.object(plan_mod, "estimate", return_value=(100, 700, 0)):
            self.assertNotIn("budget", run.check_duration(args, Plan))

    def test_the_projects_reference_runs_cover_every_default_variant(self):
        # What a fresh clone's make compare is estimated from.
        vs = catalog_mod.load(catalog_mod.DIR).select(profile="default")
        walls = run.previous_walls(os.path.join(tempfile.gettempdir(), "no-such-results"), "default")
        missing = [v["id"] for v in vs if v["id"] not in walls]
        self.assertLess(len(missing), len(vs) // 10, missing)



class PlanTest(Fixture):
    def test_profile_and_filters_choose_variants(self):
        p = plan_mod.make(self.cat, self.options("quick", "--filter", "parallel@",
                                                 "--filter", "bounded"), None)
        self.assertEqual([v["id"] for v in p.variants],
                         ["readfile/fake/honest-parallel@python",
                          "readfile/fake/honest-bounded@python"])
        self.assertEqual((p.rounds, p.warmups, p.skipped), (3, 1, []))

    def test_unknown_profile_and_empty_selection_are_usage_errors(self):
        with self.assertRaisesRegex(UsageError, "unknown profile 'nope'"):
            plan_mod.make(self.cat, self.options("nope"), None)
        with self.assertRaisesRegex(UsageError, "no variant"):
            plan_mod.make(self.cat, self.options("quick", "--filter", "^zzz"), None)

    def test_the_command_gets_the_workloads_flags_and_bounded_its_k(self):
        p = plan_mod.make(self.cat, self.options(), None)
        argv = p.commands["readfile/fake/honest-bounded@python"]
        self.assertEqual(argv[0], os.path.join(FIXTURES, "fake-readfile"))
        self.assertEqual(argv[1:], ["--workload", "readfile", "--variant", "honest-bounded",
                                    "--iterations", "50", "--warmup", "0",
                                    "--file", os.path.join(ROOT, "fixtures", "text.txt"),
                                    "--expect", "Hello, world", "--concurrency", "8"])
        self.assertNotIn("--concurrency", p.commands[HONEST])

    def test_n_and_timeout_are_the_workloads_and_the_options_override_them(self):
        p = plan_mod.make(self.cat, self.options("broken"), None)
        self.assertEqual({k: p.settings["readfile"][k] for k in ("iterations", "timeout_s", "rounds")},
                         {"iterations": 50, "timeout_s": 2, "rounds": 2})
        p = plan_mod.make(self.cat, self.options("broken", "--iterations", "3", "--timeout", "9",
                                                 "--rounds", "1"), None)
        self.assertEqual({k: p.settings["readfile"][k] for k in ("iterations", "timeout_s", "rounds")},
                         {"iterations": 3, "timeout_s": 9, "rounds": 1})

    def test_unmet_requirements_skip_with_one_reason_each(self):
        p = plan_mod.make(self.cat, self.options("requires"), None)
        self.assertEqual([v["id"] for v in p.variants],
                         [HONEST, "readfile/fake/honest-checked-sequential@python"])
        self.assertEqual(p.skipped, [
            {"variant": "readfile/fake/honest-probed-sequential@python",
             "reason": "fake: no such library here"},
            {"variant": "readfile/fake/honest-elsewhere-sequential@python",
             "reason": "runs on windows only, this is %s" % catalog_mod.host_os()}])

    def test_nothing_left_after_the_skips_is_a_usage_error_naming_them(self):
        with self.assertRaisesRegex(UsageError, "nothing left to run: skipped "
                                                "readfile/fake/nodejs-sequential@python "
                                                "\\(needs node"):
            plan_mod.make(self.cat, self.options("nodeonly"), None)
        p = plan_mod.make(self.cat, self.options("nodeonly"), sys.executable)
        self.assertEqual(p.commands["readfile/fake/nodejs-sequential@python"][:3],
                         [sys.executable, "-e", "process.exit(0)"])

    def test_a_profiles_warm_up_goes_to_every_command_never_above_n(self):
        # The seed profile gives each workload its seed's own warm-up (seed
        # 003's harness: min(350, n)), an expression over the workload's own;
        # without either a program warms up nothing.
        for warmup, n, want in (("min(350, iterations)", 7, "7"), ("3", 7, "3"), (None, 7, "0")):
            prof = {"iterations": n, "timeout_s": 20}
            if warmup is not None:
                prof["warmup"] = warmup
            w = workload("readfile", [entry()], profiles={"quick": prof})
            cat = catalog_mod.load(make_catalog(self.dir, [w]))
            p = plan_mod.make(cat, self.options(), None)
            argv = p.commands[HONEST]
            self.assertEqual(argv[argv.index("--warmup") + 1], want, (warmup, n))
            self.assertEqual(p.settings["readfile"]["warmup_ops"], int(want))
            self.assertEqual(method.method_section({"workloads": {"readfile": dict(
                p.settings["readfile"], args=[])}})[3].count("--warmup %s`" % want), 1)

    def test_a_probe_runs_once_per_run_for_every_variant_that_names_it(self):
        count = os.path.join(self.dir, "probe-runs")
        probe = ["sh", "-c", "echo run >> %s; echo 'no ring here' >&2; exit 1" % count]
        cat = catalog_mod.load(make_catalog(self.dir, [workload("readfile", [
            entry(), entry(shape=["ringa", "ringb"], requires={"probe": probe})])]))
        p = plan_mod.make(cat, self.options(), None)
        self.assertEqual(p.skipped, [
            {"variant": "readfile/fake/honest-ringa-sequential@python", "reason": "no ring here"},
            {"variant": "readfile/fake/honest-ringb-sequential@python", "reason": "no ring here"}])
        with open(count) as f:
            self.assertEqual(f.read(), "run\n")

    def test_a_program_not_built_and_a_missing_input_are_environment_errors(self):
        w = workload("readfile", [entry(argv=["{bin}/fake-missing"])])
        cat = catalog_mod.load(make_catalog(self.dir, [w]))
        with self.assertRaisesRegex(EnvError, "not built or not executable: .*fake-missing"):
            plan_mod.make(cat, self.options(), None)
        w = workload("readfile", [entry()])
        w["flags"]["--file"]["value"] = "fixtures/no-such-file"
        cat = catalog_mod.load(make_catalog(self.dir, [w]))
        with self.assertRaisesRegex(EnvError, "--file fixtures/no-such-file of workload readfile "
                                              "is missing"):
            plan_mod.make(cat, self.options(), None)

    def test_a_broken_catalog_is_an_environment_error_with_its_one_line(self):
        with self.assertRaisesRegex(EnvError, "not a catalog folder"):
            plan_mod.load_catalog(os.path.join(self.dir, "nowhere"))

    def test_a_workload_with_fewer_rounds_runs_in_the_first_rounds_only(self):
        cat = catalog_mod.load(make_catalog(self.dir, [
            workload("readfile", [entry()]),
            workload("rare", [entry()], profiles={"quick": {"iterations": 2, "timeout_s": 9,
                                                            "rounds": 1}})]))
        p = plan_mod.make(cat, self.options(), None)
        orders = schedule.orders(p, 42)
        both = sorted([HONEST, "rare/fake/honest-sequential@python"])
        self.assertEqual([sorted(o) for o in orders], [both, both, [HONEST], [HONEST]])
        self.assertEqual(orders, schedule.orders(p, 42))       # the seed decides

    def test_rounds_given_on_the_command_line_override_every_workload(self):
        cat = catalog_mod.load(make_catalog(self.dir, [
            workload("readfile", [entry()]),
            workload("rare", [entry()], profiles={"quick": {"iterations": 2, "timeout_s": 9,
                                                            "rounds": 1}})]))
        p = plan_mod.make(cat, self.options("quick", "--rounds", "6"), None)
        self.assertEqual([len(o) for o in schedule.orders(p, 42)], [2] * 7)  # 1 warm-up + 6


class ProbeStdout(unittest.TestCase):
    def test_a_probe_whose_stdout_would_be_dev_null_is_not_skipped(self):
        """A Node program takes a /dev/null stdout for a closed one and exits 3
        (contract.mjs stdoutClosed): bluebird's probe did, in every run."""
        code = ("import os, stat, sys; st = os.fstat(1); "
                "sys.exit(3 if stat.S_ISCHR(st.st_mode) and st.st_rdev == os.stat(os.devnull).st_rdev else 0)")
        self.assertIsNone(plan_mod.run_probe([sys.executable, "-c", code]))


if __name__ == "__main__":
    unittest.main()


def _command_before_the_typed_plan(v, node, n, workload_args, concurrency=None, warmup="0",
                                   passes="1", rt=None):
    """plan.command as it was before the typed plan (Invocation), kept here
    word for word as the reference the typed plan must render alike."""
    argv = plan_mod.fill(v["argv"], node, rt)
    argv += ["--iterations", str(n), "--warmup", str(plan_mod.warmup_ops(v, warmup, n))]
    p = plan_mod.passes_of(v, passes, n)
    if p > 1:
        argv += ["--passes", str(p)]
    argv += list(workload_args)
    if v["mode"] == "bounded":
        argv += ["--concurrency", str(v["concurrency"] if concurrency is None else concurrency)]
    return argv


class TypedPlanTest(unittest.TestCase):
    def test_every_variant_of_every_profile_renders_the_argv_it_had_before_the_typed_plan(self):
        cat = catalog_mod.Catalog()
        checked = 0
        for profile in sorted(cat.suite["profiles"]):
            for v in cat.select(profile):
                s = cat.settings(v["workload"], profile)
                if s is None:
                    continue
                args = cat.workload_args(v["workload"])
                for n in (1, s["iterations"]):
                    for k in (None, 3):
                        want = _command_before_the_typed_plan(
                            v, "/usr/bin/node", n, args, k, cat.warmup(v["workload"], profile),
                            cat.passes(v["workload"], profile))
                        inv = plan_mod.invocation(v, "/usr/bin/node", n, args, k,
                                                  cat.warmup(v["workload"], profile),
                                                  cat.passes(v["workload"], profile))
                        self.assertEqual(inv.argv(), want, (profile, v["id"], n, k))
                        checked += 1
        self.assertGreater(checked, 1000)

    def test_a_lockstep_invocation_is_derived_not_edited(self):
        inv = plan_mod.Invocation("w/c/x-sequential@b", ["prog", "--variant", "x"], 1000,
                                  warmup=10, passes=25, workload_args=["--file", "f"])
        ls = inv.replace(lockstep=True, iterations=40)
        self.assertEqual(ls.argv(), ["prog", "--variant", "x", "--iterations", "40", "--warmup",
                                     "10", "--file", "f", "--lockstep", "1"])
        self.assertEqual(inv.argv()[3:8], ["--iterations", "1000", "--warmup", "10", "--passes"])
        self.assertEqual(ls.record()["argv"], ls.argv())
        self.assertEqual(ls.record()["iterations"], 40)
