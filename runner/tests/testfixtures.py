"""What the tests of the runner's launching, planning and runs share: the fake
catalog tests/fixtures-bin/catalog/ (fake-readfile in every role, fake-server
that serves, dies or stays mute), small catalog folders written into a
temporary folder where a case needs its own (workload, entry, make_catalog),
and Fixture, a test case with a launcher built into BUILD=<tmp>/build and a
scratch folder per test."""
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from ..catalog import catalog as catalog_mod
from .. import cli
from ..measure import launch
from ..core import paths

ROOT = paths.ROOT
LAUNCH_C = os.path.join(paths.RUNNER, "measure", "launch.c")
FIXTURES = os.path.join(ROOT, "tests", "fixtures-bin")
FAKE = os.path.join(FIXTURES, "catalog")
FAKE_SERVER = os.path.join(FIXTURES, "fake-server")
HONEST = "readfile/fake/honest-sequential@python"
NO_NODE = "needs node, and none was found (install Node.js, set NODE or say --node PATH)"


def workload(name, variants, **over):
    """A workload file for a temporary catalog folder, run by fake-readfile."""
    w = {"workload": name, "about": "a test workload", "unit": "read",
         "flags": {"--file": {"value": "fixtures/text.txt", "path": True, "about": "f"},
                   "--expect": {"value": "Hello, world", "about": "e"}},
         "checks": {"bytes": "iterations * len(expect)"},
         "profiles": {"quick": {"iterations": 7, "timeout_s": 20}},
         "baselines": [{"key": "c", "label": "fake honest", "for": {},
                        "baseline": {"style": "honest"}}],
         "variants": variants}
    w.update(over)
    return w


def entry(**over):
    """A matrix entry of fake-readfile."""
    e = {"lang": "fake", "style": "honest", "mode": "sequential", "backend": "python",
         "argv": ["tests/fixtures-bin/fake-readfile", "--workload", "{workload}",
                  "--variant", "{name}"], "profiles": ["quick"], "about": "x"}
    e.update(over)
    return e


def make_catalog(folder, workloads):
    """A catalog folder with the fake catalog's suite.json and the given workloads."""
    path = os.path.join(folder, "catalog")
    os.makedirs(path, exist_ok=True)
    shutil.copy(os.path.join(FAKE, "suite.json"), path)
    for w in workloads:
        with open(os.path.join(path, w["workload"] + ".json"), "w") as f:
            json.dump(w, f)
    return path


@contextlib.contextmanager
def hidden(module, *names):
    """module's attributes names deleted for the block, as on a platform that
    lacks them (os.waitid on macOS before Python 3.13), then put back."""
    saved = {n: getattr(module, n) for n in names if hasattr(module, n)}
    for n in saved:
        delattr(module, n)
    try:
        yield
    finally:
        for n, v in saved.items():
            setattr(module, n, v)


def quiet(fn, *args):
    """fn(*args) with stdout and stderr sent to /dev/null (run.main talks a lot)."""
    saved = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = open(os.devnull, "w")
    try:
        return fn(*args)
    finally:
        sys.stdout.close()
        sys.stdout, sys.stderr = saved


class Fixture(unittest.TestCase):
    """The fake catalog, a launcher built into BUILD=<tmp>/build, a scratch folder
    per test, and the environment restored afterwards."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        cls.cat = catalog_mod.load(FAKE)
        cls.build = os.path.join(cls.tmp, "build")
        os.makedirs(os.path.join(cls.build, "bin"))
        cls.launcher = os.path.join(cls.build, "bin", "launch")
        cc = os.environ.get("CC") or "cc"
        try:
            subprocess.run([cc, "-std=c11", "-O2", "-o", cls.launcher,
                            LAUNCH_C], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        except (OSError, subprocess.CalledProcessError) as e:
            shutil.rmtree(cls.tmp)
            raise unittest.SkipTest("no C compiler for runner/measure/launch.c: %s" % e)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def setUp(self):
        self.saved_build = os.environ.get("BUILD")
        os.environ["BUILD"] = self.build
        self.dir = tempfile.mkdtemp(dir=self.tmp)

    def tearDown(self):
        if self.saved_build is None:
            os.environ.pop("BUILD", None)
        else:
            os.environ["BUILD"] = self.saved_build

    def options(self, profile="quick", *extra):
        return cli.parse_args(["--profile", profile, "--out", os.path.join(self.dir, "out")]
                              + list(extra))


def result(stdout=b"", stderr=b"", exit_code=0, sig=None, timed_out=False):
    r = launch.Result()
    r.stdout, r.stderr, r.exit_code, r.signal, r.timed_out = stdout, stderr, exit_code, sig, timed_out
    return r
