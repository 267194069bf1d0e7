"""Tests of the catalog's checks (runner/catalog/catalog_check.py, runner/catalog/workload_check.py,
runner/core/expr.py): every validation error of a catalog folder, each in one line,
and the in-process warm-up, the timed passes and the empty program of each
language.  The fixtures (SUITE, WORK, TempCatalog) are test_catalog.py's."""
import copy
import os
import unittest

from ..catalog import catalog
from ..catalog import catalog_docs
from ..core import expr
from .test_catalog import SUITE, WORK, TempCatalog


class ValidationTest(TempCatalog):
    def assertRejected(self, pattern, suite=SUITE, work=None, **workloads):
        workloads = workloads or {"demo": work}
        with self.assertRaises(catalog.CatalogError) as cm:
            self.load(suite, **workloads)
        msg = str(cm.exception)
        self.assertNotIn("\n", msg)
        self.assertRegex(msg, pattern)
        return msg

    def work(self, **changes):
        w = copy.deepcopy(WORK)
        w.update(changes)
        return w

    def entry(self, **changes):
        e = {"lang": "c", "style": "sync", "mode": "sequential", "backend": "b1",
             "argv": ["x"], "profiles": ["quick"], "about": "x"}
        e.update(changes)
        return self.work(variants=[e])

    def test_a_duplicate_id(self):
        w = self.work()
        w["variants"].append(w["variants"][0])
        self.assertRejected(r"duplicate variant id demo/c/callback-sequential@b1", work=w)

    def test_a_duplicate_id_within_one_entry(self):
        self.assertRejected(r"duplicate variant id demo/c/sync-parallel@b1",
                            work=self.entry(mode=["parallel", "parallel"]))

    def test_unknown_fields(self):
        self.assertRejected(r"variants\[0\]: unknown field 'colour'", work=self.entry(colour="red"))
        self.assertRejected(r"demo.json: unknown field 'defaults'", work=self.work(defaults={}))
        suite = dict(SUITE, langs=["c"])
        self.assertRejected(r"suite.json: unknown field 'langs'", suite=suite, work=WORK)
        self.assertRejected(r"flag '--text': unknown field 'default'",
                            work=self.work(flags={"--text": {"value": "a", "default": "b"}}))

    def test_a_flags_test_value(self):
        for bad in (10, "", None):
            self.assertRejected(r"flag '--text': test must be a non-empty string",
                                work=self.work(flags={"--text": {"value": "a", "test": bad}}))
        w = self.work()
        w["flags"]["--text"]["test"] = "b"
        cat = self.load(demo=w)
        self.assertEqual(cat.test_args("demo"), ["--text", "b"])
        self.assertEqual(cat.workload_args("demo")[:2], ["--text", "héllo"])   # the runner's

    def test_unknown_style_mode_and_method(self):
        self.assertRejected(r"unknown style 'fiber' \(suite.json has sync, callback, promise, await\)",
                            work=self.entry(style="fiber"))
        self.assertRejected(r"unknown mode 'eager'", work=self.entry(mode=["sequential", "eager"]))
        self.assertRejected(r"unknown method 'subprocess'", work=self.entry(method="subprocess"))

    def test_a_backend_with_bad_characters(self):
        self.assertRejected(r"backend 'util.promisify\(fs.readFile\)' has characters outside",
                            work=self.entry(backend="util.promisify(fs.readFile)"))
        self.assertRejected(r"backend 'a b'", work=self.entry(backend="a b"))

    def test_a_shape_of_more_than_one_word(self):
        self.assertRejected(r"shape 'two-words'", work=self.entry(shape="two-words"))
        self.assertRejected(r"shape 'nodetest'", work=self.entry(shape="nodetest"))

    def test_bad_check_expressions(self):
        for text, pattern in (("iterations *", "is not an expression"),
                              ("__import__('os').system('true')", "not Call|not Attribute"),
                              ("iterations ** 2", "not BinOp"),
                              ("iterations / 2", "not BinOp"),
                              ("iterations * 1.5", "not Constant"),
                              ("iterations * len(expect)", "unknown name 'expect'"),
                              ("-iterations", "not UnaryOp"),
                              (12, "a check is a string")):
            self.assertRejected(r"check 'bytes': .*(%s)" % pattern,
                                work=self.work(checks={"bytes": text}))
        self.assertRejected(r"check 'hits': 'hits' is not an integer field",
                            work=self.work(checks={"hits": "iterations"}))

    def test_a_workloads_own_fields_may_be_checked(self):
        cat = self.load(demo=self.work(fields={"hits": "cache hits"}, checks={"hits": "iterations - 1"}))
        self.assertEqual(cat.find("demo/c/callback-parallel@b1")["extra_fields"], ["hits"])
        self.assertRejected(r"fields must map new integer fields", work=self.work(fields={"ok": "x"}))

    def test_a_baseline_rule_naming_unknown_fields(self):
        rule = {"key": "c", "label": "C", "for": {"language": "c"}, "baseline": {"style": "callback"}}
        self.assertRejected(r"baselines\[0\]: for names unknown field 'language'",
                            work=self.work(baselines=[rule]))
        rule = {"key": "c", "label": "C", "for": {}, "baseline": {"flavour": "x"}}
        self.assertRejected(r"baselines\[0\]: baseline names unknown field 'flavour'",
                            work=self.work(baselines=[rule]))
        rule = {"key": "c", "label": "C", "for": {}, "baseline": {}, "same_backend_for": {}}
        self.assertRejected(r"baselines\[0\]: unknown field 'same_backend_for'",
                            work=self.work(baselines=[rule]))

    def test_a_profile_not_in_suite_json(self):
        self.assertRejected(r"variants\[0\]: profile 'nightly' is not in suite.json \(it has quick, full\)",
                            work=self.entry(profiles=["quick", "nightly"]))
        profiles = dict(WORK["profiles"], nightly={"iterations": 1, "timeout_s": 1})
        self.assertRejected(r"profile 'nightly' is not in suite.json", work=self.work(profiles=profiles))

    def test_a_variant_in_a_profile_its_workload_does_not_take_part_in(self):
        self.assertRejected(r"profile 'full' is not among the workload's profiles \(quick\)",
                            work=self.work(profiles={"quick": {"iterations": 1, "timeout_s": 1}}))

    def test_bad_profile_settings(self):
        for settings, pattern in (({"iterations": 0, "timeout_s": 1}, "iterations must be an integer from 1 to"),
                                  ({"iterations": 10 ** 30, "timeout_s": 1}, "iterations must be an integer from 1 to"),
                                  ({"iterations": 1, "timeout_s": float("nan")}, "timeout_s must be .* got nan"),
                                  ({"iterations": 1, "timeout_s": float("inf")}, "timeout_s must be .* got inf"),
                                  ({"iterations": 1, "timeout_s": 1e10}, "timeout_s must be .* to 86400"),
                                  ({"iterations": 1}, "timeout_s must be a number of seconds from 0.1"),
                                  ({"iterations": 1, "timeout_s": 1, "rounds": 9}, "rounds must be .* 3"),
                                  ({"iterations": 1, "timeout_s": 1, "warmup": -1}, "warmup: a check is a string expression, got -1"),
                                  ({"iterations": 1, "timeout_s": 1, "warmup": "n"}, "warmup: .* may name only iterations"),
                                  ({"iterations": 1, "timeout_s": 1, "n": 1}, "unknown field 'n'")):
            self.assertRejected(pattern, work=self.work(profiles={"quick": settings,
                                                                  "full": WORK["profiles"]["full"]}))

    def test_a_suite_profiles_warm_up_n_and_time_budget(self):
        def prof(**over):
            return dict(SUITE, profiles=dict(SUITE["profiles"], quick=dict(
                SUITE["profiles"]["quick"], **over)))
        cat = self.load(suite=prof(warmup_iterations="max(1, iterations // 10)", minutes=10),
                        demo=WORK)
        self.assertEqual(expr.warmup_round_n(cat.profile("quick")["warmup_iterations"], 5), 1)
        self.assertEqual(expr.warmup_round_n(cat.profile("quick")["warmup_iterations"], 100), 10)
        for over, pattern in (({"warmup_iterations": "iterations * 2"}, "gives 2 at N = 1, not an integer from 1 to 1$"),
                              ({"warmup_iterations": "0"}, "gives 0 at N = 1"),
                              ({"warmup_iterations": "rounds // 2"}, "may name only iterations"),
                              ({"warmup_iterations": 3}, "a check is a string expression"),
                              ({"minutes": 0}, "minutes must be a number above 0"),
                              ({"minutes": True}, "minutes must be a number above 0"),
                              ({"calibrate_passes": 50}, "must be an object"),
                              ({"calibrate_passes": {"min_ms": 0, "max": 5}}, "min_ms must be"),
                              ({"calibrate_passes": {"min_ms": 50, "max": 0}}, "max must be an integer"),
                              ({"calibrate_passes": {"min_ms": 50, "max": 5, "x": 1}}, "x")):
            self.assertRejected(pattern, suite=prof(**over), work=WORK)
        cat = self.load(suite=prof(calibrate_passes={"min_ms": 50, "max": 25}), demo=WORK)
        self.assertEqual(cat.profile("quick")["calibrate_passes"], {"min_ms": 50, "max": 25})

    def test_a_workload_named_unlike_its_file(self):
        self.assertRejected(r"workload must be 'demo'", work=self.work(workload="other"))

    def test_unknown_placeholders_and_missing_fields(self):
        self.assertRejected(r"unknown placeholder \{root\}", work=self.entry(argv=["{root}/x"]))
        e = self.entry()
        del e["variants"][0]["backend"]
        self.assertRejected(r"variants\[0\]: backend is missing", work=e)
        self.assertRejected(r"about has no text for sync-sequential",
                            work=self.entry(about={"parallel": "x"}))
        self.assertRejected(r"the exclusions leave no variant",
                            work=self.entry(exclude=[{"lang": "c"}]))
        self.assertRejected(r"exclude names unknown field 'colour'",
                            work=self.entry(exclude=[{"colour": "c"}]))

    def test_bad_requirements(self):
        for req, pattern in ((["node"], "requires must be an object"),
                             ({"gpu": True}, "unknown field 'gpu'"),
                             ({"os": ["Linux"]}, "unknown os 'Linux'"),
                             ({"node": "yes"}, "requires.node must be true or false"),
                             ({"probe": "sh -c true"}, "requires.probe must be a non-empty list"),
                             ({"server": {"argv": ["s"]}}, "port_flag must be a --flag"),
                             ({"server": {"argv": ["s"], "port_flag": "--port", "ready_timeout_s": 0}},
                              "ready_timeout_s must be a number of seconds from 0.1"),
                             ({"server": {"argv": ["s"], "port_flag": "--port"}},
                              r"requires.server.lang must name the language the server is written in "
                              r"\(a lower-case word\), got None"),
                             ({"server": {"argv": ["s"], "port_flag": "--port", "lang": "Go"}},
                              "requires.server.lang must name the language"),
                             ({"server": {"argv": ["s"], "port_flag": "--port", "warm": ["c"]}},
                              "requires.server.warm must be an object"),
                             ({"server": {"argv": ["s"], "port_flag": "--port", "warm": {"argv": ["c"]}}},
                              "requires.server.warm.about must say why"),
                             ({"server": {"argv": ["s"], "port_flag": "--port",
                                          "warm": {"argv": ["c"], "about": "x", "n": 1}}},
                              "unknown field 'n'")):
            self.assertRejected(pattern, work=self.entry(requires=req))

    def test_a_server_in_a_language_no_variant_is_written_in(self):
        server = {"argv": ["{bin}/rust-server"], "lang": "rust", "port_flag": "--port"}
        self.assertRejected(r"/demo\.json \(demo/c/callback-sequential@b1\): requires.server.lang 'rust' "
                            r"is not a language of the catalog's variants \(c, node\)$",
                            work=self.work(requires={"server": server}))
        # A language of another workload's variants is one of the catalog's.
        other = self.entry(lang="rust")
        other["workload"] = "other"
        cat = self.load(demo=self.work(requires={"server": server}), other=other)
        self.assertEqual(cat.find("demo/node/await-parallel@b1")["requires"]["server"]["lang"], "rust")

    def test_an_entrys_server_replaces_the_workloads_with_its_own_language(self):
        w = copy.deepcopy(WORK)
        w["requires"] = {"server": {"argv": ["{bin}/c-server"], "lang": "c", "port_flag": "--port"}}
        w["variants"][1]["requires"] = {"server": {"argv": ["{node}", "server.mjs"], "lang": "node",
                                                   "port_flag": "--port"}}
        cat = self.load(demo=w)
        self.assertEqual(cat.find("demo/c/callback-parallel@b1")["requires"]["server"]["lang"], "c")
        self.assertEqual(cat.find("demo/node/await-parallel@b1")["requires"]["server"]["lang"], "node")
        # Without a lang of its own the entry's server is refused: it is not the workload's.
        del w["variants"][1]["requires"]["server"]["lang"]
        with self.assertRaisesRegex(catalog.CatalogError, "variants\\[1\\]: requires.server.lang must name"):
            self.load(demo=w)

    def test_a_broken_suite(self):
        self.assertRejected(r"bound must be an integer from 1 to", suite=dict(SUITE, bound=0), work=WORK)
        self.assertRejected(r"methods must include inprocess",
                            suite=dict(SUITE, methods=["nodetest"]), work=WORK)
        self.assertRejected(r"method_titles must map methods to a panel title each",
                            suite=dict(SUITE, method_titles={"nosuch": "a title"}), work=WORK)

    def test_a_missing_folder_or_file(self):
        with self.assertRaisesRegex(catalog.CatalogError, "not a catalog folder"):
            catalog.load(os.path.join(self.dir, "nope"))
        with open(os.path.join(self.dir, "suite.json"), "w") as f:
            f.write("{")
        with self.assertRaisesRegex(catalog.CatalogError, "suite.json: not JSON"):
            catalog.load(self.dir)


def with_own(work, key, spec=None, profile=None):
    """A copy of a workload file with its own `key` (warmup, passes) set to spec
    and the quick profile's to profile, where given."""
    w = copy.deepcopy(work)
    if spec is not None:
        w[key] = spec
    if profile is not None:
        w["profiles"]["quick"][key] = profile
    return w


class WarmupAndStartupTest(TempCatalog):
    """The catalog's in-process warm-up (a workload's expression of N, a profile's
    own) and the empty program of each language (suite.json's startup)."""

    def test_a_warm_up_is_an_expression_of_n_with_min_and_max(self):
        w = dict(copy.deepcopy(WORK), warmup={"iterations": "min(350, iterations)", "about": "why"})
        w["profiles"]["full"]["warmup"] = "max(1, iterations // 10)"
        cat = self.load(demo=w)
        self.assertEqual(cat.warmup("demo", "quick"), "min(350, iterations)")
        self.assertEqual(cat.warmup("demo", "full"), "max(1, iterations // 10)")
        self.assertEqual([expr.warmup_for(cat.warmup("demo", "quick"), n) for n in (100, 350, 5000)],
                         [100, 350, 350])
        self.assertEqual(expr.warmup_for(cat.warmup("demo", "full"), 5), 1)
        self.assertEqual(expr.warmup_for("0", 99), 0)
        self.assertEqual(self.load().warmup("demo", "quick"), "0")   # none given: 0

    def test_a_bad_warm_up_is_refused_with_one_line(self):
        def work(spec=None, profile=None):
            return with_own(WORK, "warmup", spec, profile)
        self.assertRejected(r"demo.json: warmup: about must say what it is or why",
                            work=work({"iterations": "10"}))
        self.assertRejected(r"warmup: unknown field 'per'", work=work({"iterations": "1", "about": "a",
                                                                       "per": 1}))
        self.assertRejected(r"warmup: 'min\(350, text\)' may name only iterations",
                            work=work({"iterations": "min(350, text)", "about": "a"}))
        self.assertRejected(r"profile 'quick': warmup 'iterations - 200' gives -100 at N = 100, "
                            r"not an integer from 0", work=work(profile="iterations - 200"))
        self.assertRejected(r"only integers, names, len\(\), int\(\), min\(\), max\(\)",
                            work=work({"iterations": "iterations ** 2", "about": "a"}))

    def test_passes_are_an_expression_of_n_a_profile_and_an_entry_may_give_their_own(self):
        w = dict(copy.deepcopy(WORK), passes={"count": "min(3, iterations)", "about": "why"})
        w["profiles"]["full"]["passes"] = "1"
        w["variants"][0]["passes"] = "1"
        cat = self.load(demo=w)
        self.assertEqual((cat.passes("demo", "quick"), cat.passes("demo", "full")),
                         ("min(3, iterations)", "1"))
        self.assertEqual([expr.passes_for(cat.passes("demo", "quick"), n) for n in (2, 5)], [2, 3])
        self.assertTrue(all(v["passes"] == "1" for v in cat.select(workload="demo")
                            if v["lang"] == w["variants"][0]["lang"]))
        self.assertEqual(self.load().passes("demo", "quick"), "1")   # none given: 1

    def test_bad_passes_are_refused_with_one_line(self):
        def work(spec=None, profile=None):
            return with_own(WORK, "passes", spec, profile)
        self.assertRejected(r"demo.json: passes: about must say what it is or why",
                            work=work({"count": "3"}))
        self.assertRejected(r"passes: unknown field 'iterations'",
                            work=work({"count": "3", "about": "a", "iterations": "1"}))
        self.assertRejected(r"profile 'quick': passes '0' gives 0 at N = [0-9]+, not an integer "
                            r"from 1 to 10000", work=work(profile="0"))
        self.assertRejected(r"profile 'quick': passes 'iterations \* 100000' gives [0-9]+ at N = "
                            r"[0-9]+, not an integer from 1 to 10000",
                            work=work({"count": "iterations * 100000", "about": "a"}))

    def test_every_language_of_the_variants_needs_an_empty_program(self):
        progs = {"c": ["{bin}/c-empty"], "node": ["{node}", "node/lib/empty.mjs"]}
        suite = dict(SUITE, startup={"about": "start-up", "programs": progs})
        self.assertEqual(self.load(suite).suite["startup"]["programs"], progs)
        self.assertRejected(r"suite.json: startup.programs has no empty program of node",
                            suite=dict(SUITE, startup={"about": "a", "programs": {"c": ["x"]}}),
                            work=WORK)
        self.assertRejected(r"startup: about must say what it is or why",
                            suite=dict(SUITE, startup={"programs": progs}), work=WORK)

    def assertRejected(self, pattern, suite=SUITE, work=None):
        with self.assertRaises(catalog.CatalogError) as cm:
            self.load(suite, demo=work)
        self.assertNotIn("\n", str(cm.exception))
        self.assertRegex(str(cm.exception), pattern)

    def test_the_readme_says_each_workloads_warm_up(self):
        w = dict(copy.deepcopy(WORK), warmup={"iterations": "min(350, iterations)",
                                              "about": "as bluebird's harness does."})
        w["profiles"]["full"]["warmup"] = "0"
        table = catalog_docs.markdown_table(self.load(demo=w))
        self.assertIn("Warm-up: `min(350, N)` (profile `full`: `0`). These are untimed "
                      "operations in the same process, before the timed pass. As bluebird's "
                      "harness does.", table)
        self.assertIn("Warm-up: none. These are untimed operations in the same process, before "
                      "the timed pass.", catalog_docs.markdown_table(self.load()))


if __name__ == "__main__":
    unittest.main()
