"""Tests of runtime versions in the catalog, with no install: the versions
suite.json's runtimes section lists and what a variant needs of one (the skip
reasons of DESIGN section 11), the id rule with a runtime version, and the
runtimes profile."""
import json
import unittest

from ..catalog import catalog
from ..catalog import catalog_check
from ..measure import plan
from ..measure import runtimes


class VersionNeeds(unittest.TestCase):
    """suite.json's runtimes: the versions the runtimes profile lists and what a
    variant needs of one (the skip reasons of DESIGN section 11)."""

    @classmethod
    def setUpClass(cls):
        cls.cat = catalog.load()
        cls.rt = cls.cat.suite["runtimes"]

    def test_every_listed_version_is_pinned(self):
        lock = runtimes.load_lock()
        for lang in runtimes.LANGS:
            for v in self.rt[lang]["versions"]:
                self.assertIn(v, lock[lang], "%s %s is listed in suite.json but not pinned" % (lang, v))

    def test_node_8_runs_no_program_and_says_why(self):
        for v in self.cat.select(lang="node"):
            why = catalog_check.runtime_unmet(self.cat.suite, v, "8.17.0")
            self.assertIsNotNone(why, v["id"])
            self.assertTrue(why.startswith("needs node 10.12.0 or later: "), why)
            self.assertIn("import.meta", why)
            self.assertNotIn("\n", why)

    def test_nodetest_needs_18_1_and_the_rest_runs_from_10(self):
        seen = set()
        for v in self.cat.select(lang="node"):
            seen.add(v["method"])
            for version in ("10.24.1", "14.21.3", "18.0.0"):
                why = catalog_check.runtime_unmet(self.cat.suite, v, version)
                if v["method"] == "nodetest":
                    self.assertRegex(why, r"^needs node 18\.1\.0 or later: .*node --test")
                else:
                    self.assertIsNone(why, v["id"])
            self.assertIsNone(catalog_check.runtime_unmet(self.cat.suite, v, "18.15.0"))
        self.assertIn("nodetest", seen)
        self.assertIn("perfjs", seen)

    def test_go_1_21_builds_every_program(self):
        for v in self.cat.select(lang="go"):
            self.assertIsNone(catalog_check.runtime_unmet(self.cat.suite, v, "1.21.13"))
            self.assertRegex(catalog_check.runtime_unmet(self.cat.suite, v, "1.20.14"), r"^needs go 1\.21\.0 or later: ")

    def test_versions_compare_as_numbers(self):
        self.assertLess(catalog.version_key("9.11.2"), catalog.version_key("10.2.0"))
        self.assertLess(catalog.version_key("1.9.0"), catalog.version_key("1.21.0"))

    def test_bad_runtimes_are_refused(self):
        good = {"about": "a", "node": {"versions": ["10.24.1"], "needs": [{"for": {}, "min": "10.0.0", "why": "w"}]}}
        catalog_check.check_runtimes(good, "suite.json: runtimes")
        for bad, msg in (
                ({"node": {"versions": ["10.24.1"]}}, "must be an object with an about"),
                ({"about": "a", "node": {"versions": ["10.24"]}}, "is not MAJOR.MINOR.PATCH"),
                ({"about": "a", "node": {"versions": []}}, "versions must be a non-empty list"),
                ({"about": "a", "node": {"versions": ["1.0.0"], "needs": [{"min": "x", "why": "w"}]}}, "min must be"),
                ({"about": "a", "node": {"versions": ["1.0.0"], "needs": [{"min": "1.0.0"}]}}, "why must say"),
                ({"about": "a", "node": {"versions": ["1.0.0"], "needs": [{"for": {"colour": "x"}, "min": "1.0.0",
                                                                            "why": "w"}]}}, "unknown field 'colour'"),
                ({"about": "a", "node": {"versions": ["1.0.0"], "flags": []}}, "unknown field 'flags'")):
            with self.assertRaisesRegex(catalog.CatalogError, msg):
                catalog_check.check_runtimes(bad, "suite.json: runtimes")


class VersionedIds(unittest.TestCase):
    """The id rule with a runtime version, and the runtimes profile."""

    @classmethod
    def setUpClass(cls):
        cls.cat = catalog.load()

    def test_the_version_is_part_of_the_language(self):
        f = {"workload": "doxbee", "lang": "node", "style": "promise", "shape": "parallel", "method": "inprocess",
             "mode": "parallel", "backend": "bluebird", "runtime": "10.24.1"}
        vid = "doxbee/node@10.24.1/promise-parallel-parallel@bluebird"
        self.assertEqual(catalog.variant_id(f), vid)
        self.assertEqual(catalog.variant_label(f), "node@10.24.1/promise-parallel-parallel@bluebird")
        self.assertEqual(catalog.parse_id(vid), f)
        self.assertEqual(catalog.variant_id(dict(f, runtime="")), "doxbee/node/promise-parallel-parallel@bluebird")
        self.assertNotIn("runtime", catalog.parse_id("doxbee/node/promise-parallel-parallel@bluebird"))
        for bad in ("doxbee/node@10.24/promise-parallel-parallel@bluebird", "doxbee/node@/promise-parallel@b",
                    "doxbee/node@v10.24.1/promise-parallel@b", "doxbee/@10.24.1/promise-parallel@b"):
            self.assertIsNone(catalog.parse_id(bad), bad)

    def test_the_runtimes_profile_is_each_claim_variant_on_each_version(self):
        rt = self.cat.suite["runtimes"]
        versioned = self.cat.select(profile="runtimes")
        self.assertTrue(versioned)
        bases = set()
        for v in versioned:
            self.assertTrue(v.get("runtime"), v["id"])
            self.assertIn(v["runtime"], rt[v["lang"]]["versions"])
            # the seed profile too where the version is a ladder's rung 2 (runner/analysis/ladder.py)
            self.assertEqual(v["profiles"][0], "runtimes")
            self.assertLessEqual(set(v["profiles"]), {"runtimes", "seed"})
            base = catalog.variant_id(dict(v, runtime=""))
            self.assertIsNotNone(self.cat.find(base))
            self.assertNotIn(v, self.cat.workloads[v["workload"]]["variants"], "versioned variants are not README rows")
            bases.add((base, v["lang"]))
        for base, lang in bases:
            ids = {v["id"] for v in versioned if catalog.variant_id(dict(v, runtime="")) == base}
            self.assertEqual(len(ids), len(rt[lang]["versions"]), base)
        # the seeds' headline claims are there: bluebird against native promises (003), Go (000)
        for vid in ("doxbee/node@10.24.1/promise-parallel-parallel@bluebird",
                    "doxbee/node@10.24.1/promise-parallel-parallel@native",
                    "readfile/go@1.21.13/sync-sequential@os.ReadFile"):
            self.assertIsNotNone(self.cat.find(vid), vid)
        self.assertFalse([v for v in self.cat.runtime_variants if v["lang"] == "c"])
        # every other consumer of the catalog sees the host's runtimes only
        self.assertFalse([v for v in self.cat.variants if v.get("runtime")])
        self.assertFalse([v for v in self.cat.select() if v.get("runtime")])
        seed_only = [v for v in self.cat.runtime_variants if v["profiles"] == ["seed"]]
        self.assertEqual(len(versioned) + len(seed_only), len(self.cat.runtime_variants))

    def test_the_seed_profile_runs_each_ladders_shape_on_the_seeds_version(self):
        seeded = [v for v in self.cat.select(profile="seed") if v.get("runtime")]
        wanted = set()
        for name, w in self.cat.workloads.items():
            claims = w.get("claims") or {}
            pins = {k: x for k, x in (claims.get("runtimes") or {}).items() if k != "about"}
            for spec in ((claims.get("ladder") or {}).get("rungs") or {}).values():
                if isinstance(spec["shape"], list):
                    for vid in spec["shape"]:
                        v = self.cat.find(vid)
                        if v["lang"] in pins:
                            wanted.add(catalog.variant_id(dict(v, runtime=pins[v["lang"]])))
        self.assertEqual({v["id"] for v in seeded}, wanted)
        self.assertIn("httpchain/node@8.17.0/callback-datenow-sequential@nodeserver.close", wanted)
        self.assertIn("doxbee/node@10.24.1/promise-parallel-perfjs-parallel@fakes.bluebird", wanted)
        # the ladder's seed-shape variants are not run on every version by the runtimes profile
        self.assertIsNone(self.cat.find("httpchain/node@10.24.1/callback-datenow-sequential@nodeserver.close"))
        # nor in the full or default profile
        self.assertFalse([v for v in self.cat.select(profile="full") + self.cat.select(profile="default")
                          if v.get("runtime")])


    def test_a_versions_baselines_are_of_the_same_version(self):
        v = self.cat.find("readfile/node@10.24.1/await-parallel@fs.promises")
        self.assertEqual(catalog.unversioned_id(v), "readfile/node/await-parallel@fs.promises")
        self.assertEqual(catalog.runtime_key(v), "node@10.24.1")
        self.assertEqual(catalog.runtime_key(self.cat.find(catalog.unversioned_id(v))), "node")
        b = self.cat.baselines(v)
        self.assertEqual(b["lang"][0], "readfile/node@10.24.1/callback-parallel@fs.readFile")
        self.assertIsNone(b["c"], "C has no versions: a versioned row has no C ratio")
        # the baseline runs in the profile, though no claim names it
        asyncfib = {v["id"] for v in self.cat.select(profile="runtimes", workload="asyncfib")}
        for vid in asyncfib:
            base = self.cat.baselines(self.cat.find(vid))["lang"]
            self.assertIn(base[0], asyncfib, vid)

    def test_a_line_of_a_version_names_the_variant_without_it_and_its_runtime(self):
        v = self.cat.find("asyncfib/node@10.24.1/await-recursive-sequential@none")
        line = {"workload": "asyncfib", "lang": "node", "style": "await", "shape": "recursive",
                "mode": "sequential", "method": "inprocess", "backend": "none",
                "variant": "asyncfib/node/await-recursive-sequential@none", "iterations": 5,
                "concurrency": 1, "ok": 5, "bytes": 0, "elapsed_ns": 1000, "user_us": 1, "sys_us": 1,
                "peak_rss_kb": 100, "idle_rss_kb": 50,
                "runtime": "node v10.24.1 (V8 6.8.275.32-node.59, libuv 1.34.2)"}
        from ..catalog import contract
        extra = {k: 0 for k in v.get("extra_fields", ())}
        ok = json.dumps(dict(line, **extra))
        self.assertIsNone(contract.problem(v, 5, ok))
        wrong = json.dumps(dict(line, runtime="node v20.20.2 (V8 11.3, libuv 1.46.0)", **extra))
        self.assertEqual(contract.problem(v, 5, wrong),
                         "runtime is 'node v20.20.2 (V8 11.3, libuv 1.46.0)': the id "
                         "asyncfib/node@10.24.1/await-recursive-sequential@none names node v10.24.1")
        self.assertRegex(contract.problem(v, 5, json.dumps(dict(line, runtime="node v10.24.10", **extra))),
                         "names node v10.24.1$", "a longer version is another version")
        versioned = json.dumps(dict(line, variant=v["id"], **extra))
        self.assertRegex(contract.problem(v, 5, versioned), "^variant is ")
        go = self.cat.find("readfile/go@1.21.13/sync-sequential@os.ReadFile")
        self.assertIsNone(contract.runtime_problem(go, "go1.21.13"))
        self.assertIsNotNone(contract.runtime_problem(go, "go1.21.1"))

    def test_each_version_has_its_own_start_up(self):
        vs = [self.cat.find(i) for i in ("readfile/node@10.24.1/await-parallel@fs.promises",
                                          "readfile/node@20.8.0/await-parallel@fs.promises",
                                          "readfile/go@1.21.13/sync-sequential@os.ReadFile")]
        rts = {vs[0]["id"]: {"node": "/n10/node", "flags": ["--experimental-modules"]},
               vs[1]["id"]: {"node": "/n20/node", "flags": []},
               vs[2]["id"]: {"bin": "/b/go1.21.13"}}
        progs = plan.startup_programs(self.cat, vs, "/usr/bin/node", rts)
        self.assertEqual(sorted(progs), ["go@1.21.13", "node@10.24.1", "node@20.8.0"])
        self.assertEqual(progs["node@10.24.1"][:2], ["/n10/node", "--experimental-modules"])
        self.assertEqual(progs["go@1.21.13"], ["/b/go1.21.13/go-empty"])


if __name__ == "__main__":
    unittest.main()
