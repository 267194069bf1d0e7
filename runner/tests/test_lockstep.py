"""Lockstep pairing (runner/measure/lockstep.py, stats.clustered, runner/tools/aa.py): the
interval over process pairs keeps its coverage on clustered data, the A/A
check can fail, and a session's programs fail alone and leave nothing behind."""
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest

from ..tools import aa
from ..catalog import catalog as catalog_mod
from ..measure import launch
from ..measure import lockstep
from ..measure import sessions
from ..analysis import pairs as pairs_mod
from ..measure import plan as plan_mod
from ..core import stats

ROOT = catalog_mod.ROOT


def simulate(rng, sessions, pairs, between, within, heavy=False, true_ratio=1.0):
    """One simulated comparison: `sessions` process pairs, each with its own
    effect (a process pair's layout, JIT, placement: normal, sd `between` on the
    log), and `pairs` pairs of passes each with its own noise (sd `within`,
    Student-t with 3 degrees of freedom when heavy); returns the sessions'
    pairs [(a_ns, b_ns)]."""
    out = []
    for _ in range(sessions):
        effect = rng.gauss(0, between)
        cl = []
        for _ in range(pairs):
            e = rng.gauss(0, within)
            if heavy:
                e = within * rng.gauss(0, 1) / max(1e-9, (sum(rng.gauss(0, 1) ** 2 for _ in range(3)) / 3) ** 0.5)
            b = 1e6 * (1 + abs(rng.gauss(0, 0.3)))     # the host's speed, shared by the pair
            cl.append((b * true_ratio * pow(2.718281828, effect + e), b))
        out.append(cl)
    return out


class ClusteredIntervalTest(unittest.TestCase):
    def test_the_interval_over_sessions_keeps_its_coverage_where_pooling_the_rounds_does_not(self):
        # No true difference; each session has its own effect (sd 1% on the
        # log: a process's layout, its JIT), each round of passes its own noise
        # (3%), normal and heavy-tailed.  Student's t
        # over the sessions' medians is exact for normal figures: it excludes
        # 1 about 5% of the time (deterministic: the seed is fixed); the same
        # rounds pooled as if independent exclude it far more often, which is
        # what the test tells apart.
        rng = random.Random(7)
        for heavy in (False, True):
            fp = pooled = 0
            m = 1000
            for _ in range(m):
                sessions = simulate(rng, 8, 16, 0.01, 0.03, heavy)
                r = stats.clustered([stats.cluster_figure(cl, 1000) for cl in sessions])
                fp += r["ratio_ci_low"] > 1 or r["ratio_ci_high"] < 1
                _, lo, hi = stats.ratio_ci([a / b for cl in sessions for a, b in cl])
                pooled += lo > 1 or hi < 1
            self.assertLessEqual(fp / m, 0.06, (heavy, fp))
            self.assertGreaterEqual(fp / m, 0.03, (heavy, fp))
            self.assertGreater(pooled / m, 0.12, (heavy, pooled))

    def test_at_the_fewest_sessions_an_interval_takes_it_keeps_its_coverage(self):
        # A pair the time budget cut to stats.MIN_SESSIONS sessions: t with 2
        # degrees of freedom, wide, still excludes 1 about 5% of the time.
        rng = random.Random(11)
        for heavy in (False, True):
            fp, m = 0, 1000
            for _ in range(m):
                sessions = simulate(rng, stats.MIN_SESSIONS, 16, 0.01, 0.03, heavy)
                r = stats.clustered([stats.cluster_figure(cl, 1000) for cl in sessions])
                fp += r["ratio_ci_low"] > 1 or r["ratio_ci_high"] < 1
            self.assertLessEqual(fp / m, 0.065, (heavy, fp))
            self.assertGreaterEqual(fp / m, 0.03, (heavy, fp))

    def test_students_t_is_right(self):
        self.assertAlmostEqual(stats.t_quantile(0.95, 5), 2.5706, places=3)
        self.assertAlmostEqual(stats.t_quantile(0.95, 30), 2.0423, places=3)
        self.assertAlmostEqual(stats.t_sf2(1.0, 1), 0.5, places=9)
        self.assertAlmostEqual(stats.t_sf2(2.0, 10), 0.07339, places=4)
        m, lo, hi, p = stats.t_mean([1.0, 2.0, 3.0])
        self.assertAlmostEqual(lo, 2 - 4.3027 / 3 ** 0.5, places=3)
        self.assertAlmostEqual(p, 0.0742, places=3)

    def test_the_interval_covers_a_true_ratio_and_finds_a_real_difference(self):
        rng = random.Random(11)
        cover = found = 0
        for _ in range(300):
            sessions = simulate(rng, 8, 16, 0.005, 0.05, true_ratio=1.03)
            r = stats.clustered([stats.cluster_figure(cl, 1) for cl in sessions])
            cover += r["ratio_ci_low"] <= 1.03 <= r["ratio_ci_high"]
            found += r["ratio_ci_low"] > 1
        self.assertGreaterEqual(cover / 300.0, 0.92)      # 95% nominal, 300 draws
        self.assertGreaterEqual(found / 300.0, 0.9)

    def test_a_cluster_figure_is_the_median_of_its_pairs(self):
        self.assertEqual(stats.cluster_figure([(110, 100), (300, 100), (105, 100)], 10),
                         (1.1, 1.0))
        self.assertIsNone(stats.cluster_figure([(5, 0)], 1))
        r = stats.clustered([(1.0, 0.0)] * 2)
        self.assertEqual(r["rounds"], 2)
        self.assertIsNone(r["ratio_ci_low"])     # too few process pairs for an interval
        r = stats.clustered([(1.0, 0.0), (1.1, 0.0), (1.2, 0.0)])
        self.assertEqual(stats.MIN_SESSIONS, 3)
        self.assertLess(r["ratio_ci_low"], r["ratio"])


class AATest(unittest.TestCase):
    def test_the_exact_interval_of_a_share(self):
        lo, hi = aa.clopper_pearson(0, 60)
        self.assertEqual(lo, 0.0)
        self.assertAlmostEqual(hi, 0.0596, places=3)
        lo, hi = aa.clopper_pearson(3, 40)
        self.assertAlmostEqual(lo, 0.0157, places=3)
        self.assertAlmostEqual(hi, 0.2039, places=3)
        self.assertEqual(aa.verdict(0, 80)[0], stats.MET)
        self.assertEqual(aa.verdict(0, 20)[0], stats.UNRESOLVED)
        self.assertEqual(aa.verdict(30, 80)[0], stats.MISSED)

    def test_the_check_fails_only_on_more_false_positives_than_chance_gives(self):
        self.assertFalse(aa.check_fails(0, 30))
        self.assertFalse(aa.check_fails(4, 30))   # P(X >= 4) is about 6% at 5%
        self.assertTrue(aa.check_fails(8, 30))
        self.assertTrue(aa.check_fails(30, 30))


def _side(vid, n, pass_n, **flags):
    """A session's side of vid with no warm-up, its workload's flags given."""
    cat = catalog_mod.Catalog()
    sd = sessions.side(cat, cat.find(vid), plan_mod.find_node(None), n, pass_n)
    sd["argv"] = sd["invocation"].replace(warmup=0).argv()
    extra = []
    for k, v in flags.items():
        extra += ["--" + k.replace("_", "-"), v]
    sd["argv"] = sd["argv"] + extra
    return sd


@unittest.skipUnless(os.path.exists(os.path.join(catalog_mod.build_dir(), "bin", "c-readfile")),
                     "needs make all")
class SessionTest(unittest.TestCase):
    VID = "readfile/c/callback-sequential@inline"

    def test_a_session_alternates_the_two_in_a_random_order_and_keeps_each_processs_figures(self):
        a = _side(self.VID, 100, 20)
        cl = sessions.session(a, a, 12, random.Random(3), launch.launcher())
        self.assertIsNone(cl.failure)
        self.assertEqual(len(cl.pairs), 12)
        firsts = {first for _, _, first in cl.pairs}
        self.assertEqual(firsts, {True, False})
        self.assertEqual(len(cl.a_lines), 12)
        for proc in (cl.a_proc, cl.b_proc):
            self.assertEqual(proc["end"]["passes"], 12)
            self.assertGreater(proc["proc_peak_rss_kb"], 0)
            self.assertEqual(proc["warmup_ns"], 0)      # _side runs no warm-up
        self.assertEqual(json.loads(cl.a_lines[0])["iterations"], 20)

    def test_a_program_that_fails_a_pass_ends_its_session_with_one_line(self):
        a = _side(self.VID, 100, 20)
        b = _side(self.VID, 100, 20, expect="Hello, worlD")
        cl = sessions.session(a, b, 5, random.Random(1), launch.launcher())
        self.assertIn("B %s: exit 1 before its pass line" % self.VID, cl.failure)
        self.assertIn("lockstep pass 1: iteration 0", cl.failure)
        self.assertNotIn("\n", cl.failure)

    def test_a_program_killed_mid_lockstep_is_a_failure_and_the_next_session_runs(self):
        a = _side(self.VID, 100, 20)
        real = sessions.Warm.run_pass
        count = {"n": 0}

        def kill_the_second(self, timeout_s):
            count["n"] += 1
            if count["n"] == 4:
                with open("/proc/%d/task/%d/children" % (self.p.pid, self.p.pid)) as f:
                    kids = f.read().split()
                os.kill(int(kids[0]), signal.SIGKILL)
                time.sleep(0.05)
            return real(self, timeout_s)
        sessions.Warm.run_pass = kill_the_second
        try:
            cl = sessions.session(a, a, 5, random.Random(1), launch.launcher())
        finally:
            sessions.Warm.run_pass = real
        self.assertRegex(cl.failure, r"^[AB] %s: killed by signal 9 before its pass line$" % self.VID)
        again = sessions.session(a, a, 2, random.Random(1), launch.launcher())
        self.assertIsNone(again.failure)

    def test_ctrl_c_during_a_pair_leaves_no_process_behind(self):
        with tempfile.TemporaryDirectory() as d:
            fixture = os.path.join(d, "marker-%d.txt" % os.getpid())
            with open(fixture, "w") as f:
                f.write("Hello, world")
            script = textwrap.dedent("""
                import random, sys
                from runner.measure import launch, sessions
                from runner.tests import test_lockstep
                a = test_lockstep._side(%r, 100, 200000, file=%r)
                print("started", flush=True)
                sessions.session(a, a, 1000, random.Random(1), launch.launcher())
            """ % (self.VID, fixture))
            p = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL)
            self.assertEqual(p.stdout.readline().strip(), b"started")
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline and len(_with(fixture)) < 2:
                time.sleep(0.05)
            self.assertEqual(len(_with(fixture)), 2, "both programs running")
            time.sleep(0.2)
            p.send_signal(signal.SIGINT)
            p.wait(20)
            p.stdout.close()
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline and _with(fixture):
                time.sleep(0.05)
            self.assertEqual(_with(fixture), [])


def _with(text):
    """The pids of the processes whose command line holds text (the launcher
    aside: its program is what is asked after)."""
    out = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                cmd = f.read().split(b"\0")
        except OSError:
            continue
        if text.encode() in cmd and not cmd[0].endswith(b"/launch"):
            out.append(int(pid))
    return out


if __name__ == "__main__":
    unittest.main()


class LoadTest(unittest.TestCase):
    def test_the_load_runs_pinned_on_its_cpu_switching_and_stops_with_nothing_left(self):
        from ..measure import load
        cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else [None]
        ld = load.Load(cpus[-1], seed=3, switch_ms=(20, 40)).start()
        try:
            self.assertTrue(ld.running())
            time.sleep(0.5)
            if cpus[-1] is not None:
                self.assertEqual(os.sched_getaffinity(ld.p.pid), {cpus[-1]})
            # On about half the time: it used some CPU but far from all of it.
            with open("/proc/%d/stat" % ld.p.pid) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            ticks = int(fields[11]) + int(fields[12])
            self.assertGreater(ticks, 0)
            pid = ld.p.pid
        finally:
            ld.stop()
        self.assertFalse(ld.running())
        self.assertFalse(os.path.exists("/proc/%d" % pid) and
                         open("/proc/%d/stat" % pid).read().split()[2] != "Z")


class PairsFileTest(unittest.TestCase):
    A, B = "readfile/c/await-sequential@inline", "readfile/c/callback-sequential@inline"

    def write(self, lines):
        d = tempfile.mkdtemp()
        path = os.path.join(d, "lockstep.csv")
        with open(path, "w") as f:
            f.write(",".join(pairs_mod.PAIR_COLUMNS) + "\n" + "".join(l + "\n" for l in lines))
        return path

    def test_a_session_is_one_figure_and_either_order_of_the_pair_finds_it(self):
        lines = ["%d,1,%s,%s,%d,%d,100,100,%d,%d" % (s, self.A, self.B, k, k % 2, a, b)
                 for s, pairs in ((1, [(110, 100), (120, 100), (105, 100)]),
                                  (2, [(200, 100), (210, 200)]))
                 for k, (a, b) in enumerate(pairs)]
        # A session of three: C's passes were of another N, its ratio per operation.
        C = "readfile/c/promise-sequential@inline"
        lines += ["2,1,%s,%s,%d,1,50,100,%d,%d" % (C, self.B, k, a, b)
                  for k, (a, b) in enumerate([(60, 100), (110, 200)])]
        rows = pairs_mod.read_pairs(self.write(lines))
        figs = pairs_mod.figures(rows)
        self.assertEqual([f[:3] for f in figs[(self.A, self.B)]],
                         [(pytest_approx(1.1), pytest_approx(0.1), 1),
                          (pytest_approx(1.525), pytest_approx(0.55), 2)])
        self.assertAlmostEqual(figs[(self.B, self.A)][0][0], 1 / 1.1)
        self.assertEqual([f[:3] for f in figs[(C, self.B)]], [(1.15, pytest_approx(0.2), 2)])
        # One process a variant and session: B's passes in session 2 counted once.
        per = pairs_mod.per_op(rows)
        self.assertEqual(per[self.B], [1.0, 1.5])
        self.assertEqual(per[C], [pytest_approx(1.7)])

    def test_a_file_the_runner_could_not_have_written_is_refused_naming_the_line(self):
        good = "1,1,%s,%s,0,1,100,100,5,6" % (self.A, self.B)
        for bad, says in (("1,1,%s,%s,0,2,100,100,5,6" % (self.A, self.B), "a_first is 2"),
                          ("1,1,%s,%s,0,1,100,100,0,6" % (self.A, self.B), "a_ns is 0, below 1"),
                          ("1,1,%s,%s,0,1,100,100,x,6" % (self.A, self.B), "a_ns is not a whole"),
                          ("1,1,nonsense,%s,1,1,100,100,5,6" % self.B, "not a variant id"),
                          (good, "a second pair 0 of"),
                          ("1,1,%s,%s,1,1,99,100,5,6" % (self.A, self.B), "other N or another round"),
                          ("1,1,%s,%s,1,1,100,100,5" % (self.A, self.B), "9 columns, expected 10")):
            with self.assertRaises(ValueError) as e:
                pairs_mod.read_pairs(self.write([good, bad, good.replace(",0,1,", ",5,1,")]))
            self.assertIn(":3: ", str(e.exception))
            self.assertIn(says, str(e.exception))

    def test_the_summary_takes_the_lockstep_ratio_and_keeps_the_rounds_beside_it(self):
        from ..analysis import summary as sm
        from .test_summary import sample
        samples = []
        for rnd in range(1, 7):
            samples.append(sample(rnd, self.B, 10 + rnd / 1000.0))
            samples.append(sample(rnd, self.A, 15 + rnd / 1000.0))      # 1.5x by rounds
        base = {self.A: {"c": [self.B, "C callback"], "lang": None},
                self.B: {"c": [self.B, "C callback"], "lang": None}}
        locked = {(self.A, self.B): [(1.01 + k / 1000.0, 0.5, k + 1, 1) for k in range(8)]}
        (a,) = [r for r in sm.summarize(samples, base, None, locked) if r["variant"] == self.A]
        self.assertEqual(a["pairing"], "lockstep")
        self.assertEqual(a["sessions"], 8)
        self.assertAlmostEqual(a["ratio"], 1.0135, places=4)     # geometric mean
        self.assertAlmostEqual(a["fresh_ratio"], 1.5, places=3)
        self.assertTrue(a["disagree"])
        (a,) = [r for r in sm.summarize(samples, base) if r["variant"] == self.A]
        self.assertEqual(a["pairing"], "rounds")
        self.assertIsNone(a["disagree"])


def pytest_approx(x):
    class Near(float):
        def __eq__(self, other):
            return abs(other - x) < 1e-9
        __hash__ = float.__hash__
    return Near(x)


class LockstepCatalogTest(unittest.TestCase):
    def test_a_profiles_lockstep_is_checked(self):
        from ..catalog import catalog_check
        ok = {"pass_ms": 3, "pairs": 8, "sessions": 8, "max_sessions": 24}
        catalog_check.check_lockstep(ok, "w")
        for bad, says in ((dict(ok, pass_ms=0), "pass_ms"), (dict(ok, max_sessions=2), "max_sessions"),
                          (dict(ok, frob=1), "frob"), (dict(ok, max_pass_ms=1), "max_pass_ms"),
                          (dict(ok, workloads=[]), "workloads"), (dict(ok, session_ms=-1), "session_ms"),
                          (dict(ok, session_ms=True), "session_ms"),
                          (dict(ok, half_width={"cobol": 0.1}), "half_width"),
                          (dict(ok, half_width={"c": 0}), "half_width"), ([], "must be an object")):
            with self.assertRaises(catalog_mod.CatalogError) as e:
                catalog_check.check_lockstep(bad, "w")
            self.assertIn(says, str(e.exception))


class FitTest(unittest.TestCase):
    def test_when_time_is_short_the_lowest_priority_groups_are_left_to_the_rounds(self):
        ph = lockstep.Phase.__new__(lockstep.Phase)
        ph.spec = {"sessions": 6}
        ph.failures, ph.figs = {}, {}
        ph.qs = {("t", "b"): [], ("h", "c"): [], ("x", "d"): [], ("y", "d"): []}   # priority order
        ph.groups = lockstep.groups(ph.qs)
        self.assertEqual(ph.groups, [[("t", "b")], [("h", "c")], [("x", "d"), ("y", "d")]])
        ph.cost = {0: 1.0, 1: 1.0, 2: 1.0}
        for p in ph.qs:
            ph.figs[p] = [(1.0, 0.0)]
        # 5 sessions each, 1.3 s a session with the margin: 13 s fits two of three.
        ph.deadline = time.monotonic() + 13.5
        ph.dropped, ph.reinstated = set(), False
        ph.fit({})
        self.assertEqual(ph.dropped, {("x", "d"), ("y", "d")})
        self.assertEqual(ph.failures, {})
        ph.plan_round()
        self.assertEqual(ph.wanted(ph.groups[2]), [])
        self.assertEqual(ph.wanted(ph.groups[0]), [("t", "b")])
        # Once the others have their 6, the left-out get the time left, and
        # fit leaves them be.
        for p in [("t", "b"), ("h", "c")]:
            ph.figs[p] = [(1.0, 0.0)] * 6
        ph.plan_round()
        self.assertTrue(ph.reinstated)
        self.assertEqual(ph.wanted(ph.groups[2]), [("x", "d"), ("y", "d")])
        ph.fit({})
        self.assertEqual(ph.dropped, set())
        ph.dropped, ph.reinstated = set(), False
        ph.deadline = time.monotonic() + 100
        ph.fit({})
        self.assertEqual(ph.dropped, set())

    def test_a_pair_wider_than_the_profile_asks_wants_more_sessions(self):
        spec = {"half_width": {"c": 0.02, "node": 0.03, "across": 0.05}}
        cc = ("readfile/c/await-sequential@uring", "readfile/c/callback-sequential@uring")
        nc = ("readfile/node/await-sequential@fs.promises", cc[1])
        gg = ("cacheloop/go/goroutine-sequential@os.ReadFile", "cacheloop/go/sync-sequential@os.ReadFile")
        tight = [(1.50, 0.0), (1.51, 0.0), (1.49, 0.0), (1.50, 0.0)]     # about +-1%
        loose = [(1.40, 0.0), (1.60, 0.0), (1.45, 0.0), (1.55, 0.0)]     # about +-9%
        self.assertFalse(lockstep.wide(tight, cc, spec))
        self.assertTrue(lockstep.wide(loose, cc, spec))
        self.assertTrue(lockstep.wide(loose, nc, spec))                  # across: 5%
        self.assertFalse(lockstep.wide(loose, gg, spec))                 # Go: none asked
        self.assertTrue(lockstep.wide(tight[:2], cc, spec))              # no interval yet
        self.assertFalse(lockstep.wide(loose, cc, {}))

    def test_the_live_line_names_the_question_a_session_pairs(self):
        qs = {("readfile/c/await-sequential@uring", "readfile/c/callback-sequential@uring"):
              [("diff_per_op_ns", 50)],
              ("readfile/c/promise-sequential@uring", "readfile/c/callback-sequential@uring"):
              [("ratio", 1.0)],
              ("readfile/node/await-sequential@fs.promises", "readfile/c/callback-sequential@uring"):
              [("ratio", 1.0)]}
        pairs = list(qs)[:0:-1] + [list(qs)[0]]          # in any order: the first asked leads
        self.assertEqual(lockstep._pairs_words(pairs, qs),
                         "readfile c/await-sequential@uring vs c/callback-sequential@uring, "
                         "Δ per op against 50 ns; +2 more pairs")
        self.assertEqual(lockstep._pairs_words([list(qs)[1]], qs),
                         "readfile c/promise-sequential@uring vs c/callback-sequential@uring, "
                         "ratio against 1.00x")

    def test_a_session_of_short_passes_runs_more_rounds_up_to_four_times(self):
        spec = {"pairs": 16, "session_ms": 1000}
        self.assertEqual(lockstep.session_rounds(spec, [3.0, 3.0]), 64)       # 6 ms a round
        self.assertEqual(lockstep.session_rounds(spec, [3.0] * 8), 41)        # 24 ms
        self.assertEqual(lockstep.session_rounds(spec, [20.0] * 5), 16)       # 100 ms: pairs
        self.assertEqual(lockstep.session_rounds({"pairs": 16}, [3.0, 3.0]), 16)

    def test_extra_sessions_for_open_questions_wait_until_every_pair_has_its_sessions(self):
        ph = lockstep.Phase.__new__(lockstep.Phase)
        ph.spec = {"sessions": 6, "max_sessions": 16}
        ph.failures, ph.dropped, ph.reinstated = {}, set(), False
        # (a, b) is open (1.00x against 1.00x), (c, b) short of its 6, (e, f)
        # in a group of its own, open too.
        ph.qs = {("a", "b"): [("ratio", 1.0)], ("c", "b"): [("ratio", 1.0)],
                 ("e", "f"): [("ratio", 1.0)]}
        ph.groups = lockstep.groups(ph.qs)
        ph.figs = {("a", "b"): [(1.0, 0.0), (1.01, 0.0), (0.99, 0.0)] * 2,
                   ("c", "b"): [(1.0, 0.0)] * 3,
                   ("e", "f"): [(1.0, 0.0), (1.01, 0.0), (0.99, 0.0)] * 2}
        ph.plan_round()
        self.assertTrue(ph.base_left)
        # (c, b)'s session starts b but not a: (a, b) waits; (e, f) waits.
        self.assertEqual(ph.wanted(ph.groups[0]), [("c", "b")])
        self.assertEqual(ph.wanted(ph.groups[1]), [])
        ph.qs[("c", "a")] = [("ratio", 1.0)]
        ph.figs[("c", "a")] = [(1.0, 0.0)] * 3
        ph.groups = lockstep.groups(ph.qs)
        # Now a's process starts for another pair: (a, b) rides along.
        self.assertEqual(ph.wanted(ph.groups[0]), [("a", "b"), ("c", "b"), ("c", "a")])
        ph.figs[("c", "b")] = ph.figs[("c", "a")] = [(1.0, 0.0)] * 6
        ph.plan_round()
        self.assertFalse(ph.base_left)
        self.assertEqual(ph.wanted(ph.groups[1]), [("e", "f")])

    def test_the_pairs_come_targets_and_claims_first_then_the_headline_then_the_rest(self):
        cat = catalog_mod.Catalog()
        ids = [v["id"] for v in cat.select("default") if v["workload"] == "cacheloop"]
        run = {"baselines": cat.baseline_table([cat.find(v) for v in ids])}
        qs = lockstep.pair_questions(cat, run, ids, {v: 1000000 for v in ids})
        first = next(iter(qs))
        targets = [t for t in cat.workloads["cacheloop"]["targets"] if t.get("against")]
        self.assertIn(first, [(t["variant"], t["against"]) for t in targets] +
                      [(c["num"], c["den"]) for c in cat.workloads["cacheloop"]["claims"]["ratios"]])
        self.assertIn(("ratio", 1.0), qs[("cacheloop/c/await-sequential@node4",
                                          "cacheloop/c/sync-sequential@node4")])
