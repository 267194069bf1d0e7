"""Tests of runner/catalog.py and the modules it is made of (ids.py, expr.py,
catalog_check.py, workload_check.py, matrix.py, catalog_docs.py, catalog_cli.py):
the real catalog folder, matrix expansion, the id rule, every validation error,
baselines and the CLI."""
import contextlib
import copy
import io
import json
import os
import tempfile
import unittest

from . import catalog
from . import catalog_cli
from . import catalog_docs
from . import expr

HERE = os.path.dirname(os.path.abspath(__file__))

FAKE = os.path.join(os.path.dirname(HERE), "tests", "fixtures-bin", "catalog")

SUITE = {"about": "a test suite", "modes": ["sequential", "parallel", "bounded"],
         "methods": ["inprocess", "nodetest"],
         "styles": ["sync", "callback", "promise", "await"], "bound": 16,
         "profiles": {"quick": {"about": "q", "rounds": 3, "warmup_rounds": 1},
                      "full": {"about": "f", "rounds": 5, "warmup_rounds": 0}}}
WORK = {"workload": "demo", "about": "a demo workload", "unit": "op",
        "flags": {"--text": {"value": "héllo", "about": "t"},
                  "--data": {"value": "fixtures/text.txt", "path": True, "about": "d"}},
        "checks": {"bytes": "iterations * len(text)"},
        "profiles": {"quick": {"iterations": 100, "timeout_s": 5},
                     "full": {"iterations": 1000, "timeout_s": 50, "rounds": 2}},
        "baselines": [{"key": "c", "label": "C callback", "for": {},
                       "baseline": {"lang": "c", "style": "callback"}}],
        "variants": [
            {"lang": "c", "style": ["callback", "promise"], "mode": ["sequential", "parallel", "bounded"],
             "backend": "b1", "argv": ["{bin}/c-{workload}", "--variant", "{name}", "--backend", "{backend}"],
             "profiles": ["quick", "full"],
             "about": {"promise-parallel": "by name", "bounded": "by mode", "callback": "by style",
                       "*": "anything else ({mode})"},
             "exclude": [{"style": "promise", "mode": ["sequential"]}]},
            {"lang": "node", "style": "await", "method": ["inprocess", "nodetest"], "mode": "parallel",
             "backend": "b1", "argv": ["{node}", "node/{workload}/{style}-{mode}.mjs"],
             "profiles": ["full"], "about": "node", "requires": {"os": ["linux", "darwin"]}},
        ]}


def write_catalog(folder, suite=SUITE, **workloads):
    """A catalog folder with suite.json and one file per workload (name=dict)."""
    with open(os.path.join(folder, "suite.json"), "w", encoding="utf-8") as f:
        json.dump(suite, f)
    for name, w in (workloads or {"demo": WORK}).items():
        with open(os.path.join(folder, name + ".json"), "w", encoding="utf-8") as f:
            json.dump(w, f)
    return folder


def run_cli(*args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = catalog_cli.main(list(args))
    return code, out.getvalue(), err.getvalue()


class TempCatalog(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self._tmp.cleanup)
        self.dir = self._tmp.name

    def load(self, suite=SUITE, **workloads):
        return catalog.load(write_catalog(self.dir, suite, **workloads))


class IdRuleTest(unittest.TestCase):
    def test_the_specs_examples(self):
        def f(lang, style, mode, backend, shape="", method="inprocess"):
            return {"workload": "readfile", "lang": lang, "style": style, "shape": shape,
                    "mode": mode, "method": method, "backend": backend}
        cases = [
            (f("c", "promise", "parallel", "node4", "counter"), "readfile/c/promise-counter-parallel@node4"),
            (f("c", "sync", "sequential", "node4"), "readfile/c/sync-sequential@node4"),
            (f("go", "goroutine", "parallel", "os.ReadFile"), "readfile/go/goroutine-parallel@os.ReadFile"),
            (f("node", "await", "parallel", "fs.promises", method="nodetest"),
             "readfile/node/await-nodetest-parallel@fs.promises"),
            (f("node", "await", "parallel", "promisify"), "readfile/node/await-parallel@promisify"),
            (f("c", "callback", "parallel", "node4", "nowait"), "readfile/c/callback-nowait-parallel@node4"),
            (f("c", "await", "parallel", "node4", "tasks"), "readfile/c/await-tasks-parallel@node4"),
            (f("node", "promise", "parallel", "native", "sequential", method="perfjs"),
             "readfile/node/promise-sequential-perfjs-parallel@native"),
            (f("node", "callback", "sequential", "fs.readFile", "nexttick", method="objkey"),
             "readfile/node/callback-nexttick-objkey-sequential@fs.readFile"),
            (f("node", "sync", "sequential", "fs.readFileSync", method="objkey"),
             "readfile/node/sync-objkey-sequential@fs.readFileSync"),
        ]
        for fields, want in cases:
            self.assertEqual(catalog.variant_id(fields), want)
            self.assertEqual(catalog.variant_label(fields), want.split("/", 1)[1])
            self.assertEqual(catalog.parse_id(want), fields)

    def test_the_name_is_what_a_driver_takes(self):
        self.assertEqual(catalog.variant_name({"style": "promise", "shape": "counter", "method": "nodetest",
                                               "mode": "parallel"}), "promise-counter-nodetest-parallel")
        self.assertEqual(catalog.variant_name({"style": "sync", "mode": "sequential"}), "sync-sequential")
        # Every method but inprocess is named, after the shape (DESIGN section 4).
        self.assertEqual(catalog.variant_name({"style": "await", "shape": "parallel", "method": "perfjs",
                                               "mode": "parallel"}), "await-parallel-perfjs-parallel")
        self.assertEqual(catalog.variant_name({"style": "await", "method": "inprocess",
                                               "mode": "parallel"}), "await-parallel")

    def test_a_word_is_a_method_only_when_the_catalog_has_it(self):
        self.assertEqual(catalog.parse_id("w/node/await-perfjs-parallel@x")["method"], "perfjs")
        self.assertEqual(catalog.parse_id("w/node/await-perfjs-parallel@x")["shape"], "")
        f = catalog.parse_id("w/node/await-perfjs-parallel@x", methods=["inprocess", "nodetest"])
        self.assertEqual((f["shape"], f["method"]), ("perfjs", "inprocess"))
        self.assertIsNone(catalog.parse_id("w/node/await-inprocess-parallel@x"))

    def test_ids_that_break_the_rule_do_not_parse(self):
        for bad in ("c/callback-parallel", "readfile/c/callback-parallel", "readfile/c/a-b-c-d@x",
                    "readfile/c/parallel@node4", "readfile/c/callback-parallel@no de"):
            self.assertIsNone(catalog.parse_id(bad), bad)


class RealCatalogTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cat = catalog.load()

    def test_it_loads_with_readfiles_99_variants_and_noops_20(self):
        self.assertEqual(len(self.cat.select(workload="readfile")), 99)
        self.assertEqual(len(self.cat.select(workload="noop")), 20)
        self.assertEqual(sorted(self.cat.workloads),
                         sorted(n[:-5] for n in os.listdir(catalog.DIR) if n != "suite.json"))

    def test_every_id_is_the_rule_applied_to_its_fields(self):
        for v in self.cat.variants:
            self.assertEqual(v["id"], catalog.variant_id(v))
            self.assertEqual(catalog.parse_id(v["id"]), {k: v[k] for k in catalog.FIELDS})
            self.assertNotRegex(" ".join(v["argv"]), r"\{(?!bin\}|node\})")
            self.assertTrue(v["about"] and "{" not in v["about"].replace("{ await", ""), v["about"])

    def test_readfiles_programs_follow_spec_section_9(self):
        c = self.cat.find("readfile/c/promise-counter-parallel@node4")
        self.assertEqual(c["argv"], ["{bin}/c-readfile", "--variant", "promise-counter-parallel",
                                     "--backend", "node4"])
        self.assertEqual(self.cat.find("readfile/go/goroutine-parallel@os.ReadFile")["argv"],
                         ["{bin}/go-readfile", "--variant", "goroutine-parallel"])
        self.assertEqual(self.cat.find("readfile/node/await-parallel@promisify")["argv"],
                         ["{node}", "node/readfile/await-promisify-parallel.mjs"])
        self.assertEqual(self.cat.find("readfile/node/promise-counter-nodetest-parallel@fs.promises")["argv"],
                         ["{node}", "node/lib/nodetest.mjs", "node/readfile/promise-counter-parallel.mjs"])
        self.assertEqual(self.cat.find("readfile/node/await-bounded@fs.promises")["concurrency"], 64)
        self.assertEqual(self.cat.find("readfile/node/await-bounded@fs.promises")["requires"], {"node": True})

    def test_profiles_give_n_timeout_and_rounds_per_workload(self):
        self.assertEqual(self.cat.settings("readfile", "quick"), {"iterations": 500, "timeout_s": 30})
        self.assertEqual(self.cat.settings("readfile", "full"),
                         {"iterations": 10000, "timeout_s": 120, "trace_iterations": 1000})
        self.assertEqual(self.cat.settings("noop", "quick"), {"iterations": 2000, "timeout_s": 30})
        self.assertIsNone(self.cat.settings("noop", "default"))
        self.assertEqual(self.cat.profile("full"), {"about": "more rounds for tighter intervals",
                                                    "rounds": 40, "warmup_rounds": 3})
        self.assertIsNone(self.cat.profile("nope"))
        self.assertEqual(len(self.cat.select(profile="selftest")), 1)
        self.assertEqual(len(self.cat.select(profile="seed", lang="node", workload="readfile")), 19)

    def test_workload_args_are_the_flags_with_absolute_paths(self):
        self.assertEqual(self.cat.workload_args("readfile"),
                         ["--file", os.path.join(catalog.ROOT, "fixtures", "text.txt"),
                          "--expect", "Hello, world"])
        self.assertEqual(self.cat.workload_args("noop"), [])

    def test_readfile_baselines(self):
        def b(vid):
            return self.cat.baselines(self.cat.find(vid))
        self.assertEqual(b("readfile/node/await-parallel@fs.promises"), {
            "c": ("readfile/c/callback-parallel@node4", "C callback"),
            "lang": ("readfile/node/callback-parallel@fs.readFile", "Node callback")})
        self.assertEqual(b("readfile/c/await-parallel@node4"), {
            "c": ("readfile/c/callback-parallel@node4", "C callback"), "lang": None})
        self.assertEqual(b("readfile/go/sync-sequential@os.ReadFile"), {
            "c": ("readfile/c/callback-sequential@node4", "C callback"),
            "lang": ("readfile/go/sync-sequential@os.ReadFile", "Go sync")})
        self.assertEqual(b("readfile/go/goroutine-parallel@os.ReadFile")["lang"], None)
        self.assertEqual(b("readfile/node/promise-counter-nodetest-parallel@fs.promises"), {
            "c": ("readfile/c/callback-parallel@node4", "C callback"),
            "lang": ("readfile/node/callback-nodetest-parallel@fs.readFile", "Node callback")})
        self.assertEqual(b("readfile/node/await-bounded@fs.promises")["lang"],
                         ("readfile/node/callback-bounded@fs.readFile", "Node callback"))
        self.assertEqual(b("readfile/c/callback-bounded@node4")["c"],
                         ("readfile/c/callback-bounded@node4", "C callback"))

    def test_every_readfile_and_noop_variant_has_a_c_baseline(self):
        table = self.cat.baseline_table()
        self.assertEqual(set(table), {v["id"] for v in self.cat.variants})
        for vid, keys in table.items():
            self.assertIsNotNone(keys["c"], vid)
            self.assertTrue(self.cat.find(keys["c"][0]), vid)
        json.dumps(table)

    def test_each_httpchain_server_names_the_language_its_backend_names(self):
        langs = {"cserver": "c", "goserver": "go", "nodeserver": "node"}
        chains = self.cat.select(workload="httpchain")
        self.assertTrue(chains)
        for v in chains:
            self.assertEqual(v["requires"]["server"]["lang"], langs[v["backend"].split(".")[0]], v["id"])

    def test_the_readme_tables_are_the_catalogs(self):
        self.assertEqual(run_cli("readme", "--check")[0], 0)

    def test_the_fake_catalog_loads_with_every_role(self):
        fake = catalog.load(FAKE)
        styles = {v["style"] for v in fake.select(workload="readfile")}
        self.assertEqual(styles, {"honest", "nowait", "fail", "crash", "hang", "chatty", "nodejs"})
        self.assertEqual(fake.find("readfile/fake/honest-bounded@python")["concurrency"], 8)
        self.assertEqual(fake.find("readfile/fake/nodejs-sequential@python")["requires"], {"node": True})
        self.assertIn("probe", fake.find("readfile/fake/honest-probed-sequential@python")["requires"])
        self.assertEqual(fake.find("readfile/fake/honest-elsewhere-sequential@python")["requires"],
                         {"os": ["windows"]})
        served = fake.find("served/fake/honest-parallel@python")["requires"]["server"]
        self.assertEqual(served["port_flag"], "--port")
        self.assertEqual(served["lang"], "fake")
        self.assertEqual(fake.workload_args("served"), ["--expect", "Hello, world"])


class ExpansionTest(TempCatalog):
    def test_the_matrix_is_the_product_minus_exclusions_in_order(self):
        cat = self.load()
        self.assertEqual([v["label"] for v in cat.variants], [
            "c/callback-sequential@b1", "c/callback-parallel@b1", "c/callback-bounded@b1",
            "c/promise-parallel@b1", "c/promise-bounded@b1",
            "node/await-parallel@b1", "node/await-nodetest-parallel@b1"])
        self.assertIs(cat.workloads["demo"]["variants"][0], cat.variants[0])

    def test_about_is_looked_up_by_name_then_mode_then_style_then_star(self):
        cat = self.load()
        about = {v["label"]: v["about"] for v in cat.variants}
        self.assertEqual(about["c/promise-parallel@b1"], "by name")
        self.assertEqual(about["c/promise-bounded@b1"], "by mode")
        self.assertEqual(about["c/callback-bounded@b1"], "by mode")
        self.assertEqual(about["c/callback-parallel@b1"], "by style")

    def test_fields_default_and_concurrency_follows_the_mode(self):
        cat = self.load()
        v = cat.find("demo/c/callback-bounded@b1")
        self.assertEqual((v["shape"], v["method"], v["concurrency"]), ("", "inprocess", 16))
        self.assertEqual(cat.find("demo/c/callback-sequential@b1")["concurrency"], 1)
        self.assertEqual(cat.find("demo/c/callback-parallel@b1")["concurrency"], 0)

    def test_argv_templates_are_filled_except_bin_and_node(self):
        cat = self.load()
        v = cat.find("demo/c/promise-parallel@b1")
        self.assertEqual(v["argv"], ["{bin}/c-demo", "--variant", "promise-parallel", "--backend", "b1"])
        self.assertEqual(catalog.argv(v, "/B"), ["/B/c-demo", "--variant", "promise-parallel",
                                                 "--backend", "b1"])
        n = cat.find("demo/node/await-nodetest-parallel@b1")
        self.assertEqual(catalog.argv(n, node="/usr/bin/node"),
                         ["/usr/bin/node", "node/demo/await-parallel.mjs"])

    def test_requirements_merge_workload_and_entry_and_node_is_implied(self):
        w = copy.deepcopy(WORK)
        w["requires"] = {"probe": ["{bin}/probe-{backend}"], "os": ["linux"]}
        cat = self.load(demo=w)
        self.assertEqual(cat.find("demo/c/callback-parallel@b1")["requires"],
                         {"probe": ["{bin}/probe-b1"], "os": ["linux"]})
        self.assertEqual(cat.find("demo/node/await-parallel@b1")["requires"],
                         {"probe": ["{bin}/probe-b1"], "os": ["linux", "darwin"], "node": True})

    def test_settings_rounds_and_selection(self):
        cat = self.load()
        self.assertEqual(cat.settings("demo", "full"), {"iterations": 1000, "timeout_s": 50, "rounds": 2})
        self.assertEqual(cat.rounds("demo", "full"), 2)
        self.assertEqual(cat.rounds("demo", "quick"), 3)
        self.assertEqual([v["label"] for v in cat.select("quick", "node")], [])
        self.assertEqual(len(cat.select("full", "node", "demo")), 2)

    def test_checks_see_flags_by_name_and_count_utf8_bytes(self):
        cat = self.load()
        v = cat.find("demo/c/callback-parallel@b1")
        self.assertEqual(v["flag_values"], {"text": "héllo", "data": "fixtures/text.txt"})
        tree, names = expr.parse_check(v["checks"]["bytes"], "t")
        self.assertEqual(names, {"iterations", "text"})
        self.assertEqual(expr.evaluate(tree, {"iterations": 3, "text": "héllo"}), 18)

    def test_the_check_evaluator_does_integers_only(self):
        def ev(text, **env):
            return expr.evaluate(expr.parse_check(text, "t")[0], env)
        self.assertEqual(ev("7 // 2 - 1 + 2 * 3"), 8)
        self.assertEqual(ev("iterations * int(queries)", iterations=4, queries="25"), 100)
        for text, env, why in (("x + 1", {}, "unknown name"), ("1 // 0", {}, "division by zero"),
                               ("len(n)", {"n": 3}, "not a text"), ("s + 1", {"s": "a"}, "only integers"),
                               ("int(s)", {"s": "1e3"}, "not a decimal")):
            with self.assertRaisesRegex(ValueError, why):
                ev(text, **env)

    def test_two_workloads_load_side_by_side(self):
        other = copy.deepcopy(WORK)
        other["workload"] = "other"
        cat = self.load(demo=WORK, other=other)
        self.assertEqual(len(cat.variants), 14)
        self.assertEqual(cat.find("other/c/callback-parallel@b1")["workload"], "other")


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
                              ({"minutes": True}, "minutes must be a number above 0")):
            self.assertRejected(pattern, suite=prof(**over), work=WORK)

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
                              "requires.server.lang must name the language")):
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
        self.assertIn("Warm-up (untimed operations in the same process before the timed pass): "
                      "`min(350, N)` (profile `full`: `0`): as bluebird's harness does.", table)
        self.assertIn("Warm-up (untimed operations in the same process before the timed pass): "
                      "none.", catalog_docs.markdown_table(self.load()))


class BaselineRuleTest(TempCatalog):
    def test_the_first_matching_rule_per_key_wins_and_lists_mean_any_of(self):
        w = copy.deepcopy(WORK)
        w["baselines"] = [
            {"key": "lang", "label": "Node await", "for": {"lang": ["node"], "method": "nodetest"},
             "baseline": {"style": "await", "method": "inprocess"}},
            {"key": "lang", "label": "never used", "for": {"lang": "node"}, "baseline": {"style": "await"}},
            {"key": "c", "label": "C promise", "for": {}, "baseline": {"lang": "c", "style": "promise",
                                                                       "method": "inprocess"}}]
        cat = self.load(demo=w)
        self.assertEqual(cat.baselines(cat.find("demo/node/await-nodetest-parallel@b1")), {
            "lang": ("demo/node/await-parallel@b1", "Node await"),
            "c": ("demo/c/promise-parallel@b1", "C promise")})
        # A rule that matches but finds no variant leaves the key empty.
        self.assertEqual(cat.baselines(cat.find("demo/c/callback-sequential@b1")),
                         {"c": None, "lang": None})


class CliTest(unittest.TestCase):
    def test_ids_with_filters(self):
        code, out, _ = run_cli("ids", "--profile", "seed", "--lang", "go", "--workload", "readfile")
        self.assertEqual((code, out), (0, "readfile/go/sync-sequential@os.ReadFile\n"))
        code, out, _ = run_cli("ids", "--workload", "noop", "--lang", "go")
        self.assertEqual(out.split(), ["noop/go/sync-sequential@none", "noop/go/goroutine-parallel@none"])

    def test_argv_field_flags_default_and_workloads(self):
        self.assertEqual(run_cli("argv", "readfile/c/sync-sequential@node4", "--bin", "/b")[1].split("\n")[:2],
                         ["/b/c-readfile", "--variant"])
        self.assertEqual(run_cli("field", "readfile/c/await-bounded@node4", "concurrency")[1], "64\n")
        self.assertEqual(run_cli("field", "readfile/c/await-bounded@node4", "label")[1],
                         "c/await-bounded@node4\n")
        self.assertEqual(run_cli("field", "readfile/node/await-bounded@fs.promises", "requires")[1],
                         '{"node": true}\n')
        self.assertEqual(run_cli("flags", "readfile")[1], "--file\nfixtures/text.txt\n--expect\nHello, world\n")
        self.assertEqual(run_cli("flags", "noop")[1], "")
        self.assertEqual(run_cli("default", "readfile/c/sync-sequential@node4", "--expect")[1],
                         "Hello, world\n")
        self.assertEqual(run_cli("workloads")[1], "".join(
            n[:-5] + "\n" for n in sorted(os.listdir(catalog.DIR)) if n != "suite.json"))

    def test_another_catalog_folder(self):
        code, out, _ = run_cli("--catalog", FAKE, "ids", "--profile", "quick")
        self.assertEqual(out.split(), ["readfile/fake/honest-sequential@python",
                                       "readfile/fake/honest-parallel@python",
                                       "readfile/fake/honest-bounded@python"])

    def test_bad_calls_exit_2(self):
        self.assertEqual(run_cli("argv", "c/callback-parallel")[0], 2)
        self.assertEqual(run_cli("flags", "nope")[0], 2)
        self.assertEqual(run_cli("frobnicate")[0], 2)
        self.assertEqual(run_cli("ids", "--profile")[0], 2)

    def test_a_broken_catalog_is_one_line_and_exit_3(self):
        with tempfile.TemporaryDirectory() as d:
            w = copy.deepcopy(WORK)
            w["variants"].append(w["variants"][0])
            write_catalog(d, demo=w)
            code, out, err = run_cli("--catalog", d, "ids")
        self.assertEqual(code, 3)
        self.assertEqual(out, "")
        self.assertEqual(err.count("\n"), 1)
        self.assertRegex(err, r"^catalog.py: .*demo.json: duplicate variant id demo/c/callback-sequential@b1\n$")

    def test_the_table_has_one_section_per_workload(self):
        code, out, _ = run_cli("table")
        self.assertEqual(out.count("| id | backend | profiles | what it does |"),
                         len([n for n in os.listdir(catalog.DIR) if n != "suite.json"]))
        self.assertIn("| `readfile/c/sync-sequential@node4` | node4 | quick, default, full, scaling | open, fstat", out)


if __name__ == "__main__":
    unittest.main()
