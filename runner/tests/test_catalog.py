"""Tests of runner/catalog/catalog.py and the modules it is made of (ids.py, expr.py,
matrix.py, catalog_docs.py, catalog_cli.py): the real catalog folder, matrix
expansion, the id rule, baselines and the CLI; and the fixtures of a temporary
catalog folder that test_catalog_check.py (every validation error, warm-up,
passes, start-up) and other tests use."""
import contextlib
import copy
import io
import json
import os
import shutil
import tempfile
import unittest

from ..catalog import catalog
from ..catalog import catalog_cli
from ..core import expr
from ..core import paths


FAKE = os.path.join(paths.ROOT, "tests", "fixtures-bin", "catalog")

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
        self.assertEqual(len(self.cat.select(workload="readfile")), 106)
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
        full = self.cat.profile("full")
        self.assertEqual((full["rounds"], full["warmup_rounds"], full["calibrate_passes"]),
                         (40, 3, {"min_ms": 50, "max": 25}))
        self.assertNotIn("calibrate_passes", self.cat.profile("seed"))   # the seeds' own method
        self.assertIsNone(self.cat.profile("nope"))
        self.assertEqual(len(self.cat.select(profile="selftest")), 1)
        # 19 of the host's Node and the ladders' rung 2: the 6 nodetest variants on Node 20.8.0
        self.assertEqual(len(self.cat.select(profile="seed", lang="node", workload="readfile")), 25)
        self.assertEqual(len([v for v in self.cat.select(profile="seed", lang="node", workload="readfile")
                              if v.get("runtime") == "20.8.0"]), 6)

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

    def assert_c_baselines(self, cat):
        """Every variant a C rule of its workload covers has that baseline in the
        catalog; one no C rule covers (a Node-only workload's, "baselines": [])
        has none, and needs none."""
        table = cat.baseline_table()
        self.assertEqual(set(table), {v["id"] for v in cat.variants})
        for vid, keys in table.items():
            v = cat.find(vid)
            covered = any(r["key"] == "c" and catalog.matches(v, r["for"])
                          for r in cat.workloads[v["workload"]]["baselines"])
            if covered:
                self.assertIsNotNone(keys["c"], vid)
                self.assertTrue(cat.find(keys["c"][0]), vid)
            else:
                self.assertIsNone(keys["c"], vid)
        json.dumps(table)

    def test_every_variant_a_c_rule_covers_has_its_c_baseline(self):
        self.assert_c_baselines(self.cat)
        for w in ("readfile", "noop"):
            self.assertTrue(all(self.cat.baselines(v)["c"] for v in self.cat.select(workload=w)), w)

    def test_a_workload_without_baselines_needs_no_c_baseline(self):
        # docs/adding.md's Node-only workload: "baselines": [] (tests/new_workload.bats).
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        shutil.copy(os.path.join(catalog.DIR, "suite.json"), tmp)
        shutil.copy(os.path.join(catalog.DIR, "noop.json"), tmp)
        with open(os.path.join(tmp, "thrown.json"), "w") as f:
            json.dump({"workload": "thrown", "about": "a Node-only workload", "unit": "operation",
                       "flags": {}, "checks": {}, "requires": {},
                       "profiles": {"quick": {"iterations": 20, "timeout_s": 30}},
                       "baselines": [],
                       "variants": [{"lang": "node", "style": "callback", "mode": "sequential",
                                     "backend": "none", "argv": ["{node}", "thrown.mjs"],
                                     "profiles": ["quick"], "about": "a test's"}]}, f)
        cat = catalog.load(tmp)
        self.assertIsNone(cat.baselines(cat.find("thrown/node/callback-sequential@none"))["c"])
        self.assert_c_baselines(cat)

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
        # and Go's program on the seed's Go, the rung 2 of seed 000's ladders
        self.assertEqual((code, out), (0, "readfile/go/sync-sequential@os.ReadFile\n"
                                          "readfile/go@1.21.13/sync-sequential@os.ReadFile\n"))
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
        self.assertRegex(err, r"^catalog_cli.py: .*demo.json: duplicate variant id demo/c/callback-sequential@b1\n$")

    def test_the_table_has_one_section_per_workload(self):
        code, out, _ = run_cli("table")
        self.assertEqual(out.count("| id | backend | profiles | what it does |"),
                         len([n for n in os.listdir(catalog.DIR) if n != "suite.json"]))
        self.assertIn("| `readfile/c/sync-sequential@node4` | node4 | quick, default, full, scaling | open, fstat", out)


if __name__ == "__main__":
    unittest.main()
