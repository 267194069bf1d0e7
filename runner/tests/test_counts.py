"""Unit tests of runner/tools/counts.py (`make counts`), and one count under Valgrind
when it and the C programs are there: the counts of two runs agree to 0.1%."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from ..catalog import catalog
from ..tools import counts
from ..analysis import runfolder
from ..core import paths

HERE = os.path.dirname(os.path.abspath(__file__))
BIN = os.path.join(catalog.build_dir(), "bin")


class ParseTest(unittest.TestCase):
    def test_valgrinds_total_is_read_from_its_summary(self):
        err = "==12== Command: x\n==12== \n==12== I   refs:      1,234,567\n"
        self.assertEqual(counts.instructions(err), 1234567)
        self.assertIsNone(counts.instructions("==12== ERROR SUMMARY: 0 errors\n"))

    def test_each_instruction_goes_to_the_category_of_its_source(self):
        cases = [
            ("/x/c/lib/promise.c", "ab_promise_resolve", "/x/build/bin/c-tasks", "promise"),
            ("/x/c/lib/promise.h", "run_coros", None, "promise"),          # inlined
            ("/x/c/lib/microtask_internal.h", "run_coros", None, "microtask"),
            ("/x/c/lib/coro_switch_x86_64.S", "ab__coro_switch", None, "switch"),
            ("/x/c/lib/fiber.c", "ab_fiber_wait", None, "switch"),
            ("/x/c/lib/stack.c", "ab_stack_pool_get", None, "stack"),
            ("/x/c/lib/async.c", "ab_async_call", None, "async"),
            ("/x/c/lib/stackless.h", "step", None, "async"),
            ("/x/c/lib/harness.c", "ab_run_begin", None, "program"),
            ("/x/c/cacheloop/await.c", "run_coros", None, "program"),
            ("./malloc/./malloc/malloc.c", "_int_free", "/usr/lib/libc.so.6", "alloc"),
            ("???", "malloc", "/usr/lib/libc.so.6", "alloc"),
            ("src/unix/core.c", "uv_run", "/usr/lib/x86_64-linux-gnu/libuv.so.1.0.0", "libuv"),
            ("go/internal/cacheloop/cacheloop.go", "asyncstyles/internal/cacheloop.pass",
             "/x/build/bin/go-cacheloop", "program"),
            ("/usr/local/go/src/runtime/malloc.go", "runtime.mallocgcSmallScanNoHeader", None,
             "alloc"),
            ("/usr/local/go/src/runtime/proc.go", "runtime.schedule", None, "other"),
            ("./elf/./elf/dl-lookup.c", "do_lookup_x", "/usr/lib/ld-linux-x86-64.so.2", "other"),
        ]
        for path, fn, obj, want in cases:
            self.assertEqual(counts.category(path, fn, obj), want, (path, fn))

    def test_callgrind_annotates_text_is_summed_by_category(self):
        text = "\n".join([
            "960,375 (100.0%)  PROGRAM TOTALS",
            "--------------------------------------------------------------------------------",
            "Ir                file:function",
            " 78,003 ( 8.12%)  /w/c/lib/coro.h:run_coros [/w/build/bin/c-cacheloop]",
            " 47,976 ( 5.00%)  /w/c/lib/promise.c:ab_promise_resolved [/w/build/bin/c-cacheloop]",
            "  1,000 ( 0.10%)  /w/c/lib/promise.h:run_coros",
            "    500 ( 0.05%)  ./malloc/./malloc/malloc.c:free [/usr/lib/libc.so.6]",
        ])
        got = counts.breakdown(text)
        self.assertEqual((got["switch"], got["promise"], got["alloc"]), (78003, 48976, 500))
        self.assertEqual(sum(got.values()), 78003 + 48976 + 500)

    def test_two_n_are_checked(self):
        self.assertEqual(counts.parse_n("10,20"), (10, 20))
        for bad in ("10", "20,10", "0,5", "a,b", "1,20000000"):
            with self.assertRaises(Exception):
                counts.parse_n(bad)


class ReportSpreadTest(unittest.TestCase):
    def test_the_reports_spread_is_a_share_of_the_count_and_needs_two_counts(self):
        from ..report import report
        self.assertEqual(report._spread({"spread_per_op": "2.0", "repeat": "2"}, 1000.0), "0.2%")
        self.assertEqual(report._spread({"spread_per_op": "2.0", "repeat": "1"}, 1000.0), "-")
        self.assertEqual(report._spread({"spread_per_op": "15000", "repeat": "3"}, 1000.0), "1,500%")
        self.assertEqual(report._spread({"spread_per_op": "", "repeat": "3"}, 1000.0), "-")


class TableTest(unittest.TestCase):
    def row(self, **changes):
        r = {"variant": "cacheloop/c/await-sequential@node4", "workload": "cacheloop",
             "style": "await", "n1": 10, "n2": 110, "repeat": 3, "instr_n1": 5000,
             "instr_n2": 25000, "instr_per_op": 200.0, "spread_per_op": 0.02, "warmup": 10}
        for c in counts.CATEGORIES:
            r["per_op_" + c] = None
        r.update(changes)
        return r

    def test_the_table_and_the_csv_carry_every_row(self):
        meta = {"host": "h", "stamp": "counts-x", "tool": "cachegrind", "failed": ["x failed"],
                "left_out": [{"variant": "httpchain/c/callback-sequential@cserver.keepalive",
                              "reason": "needs a server"}]}
        md = counts.markdown([self.row()], meta)
        self.assertIn("## cacheloop (N = 10 and 110)", md)
        self.assertIn("| `c/await-sequential@node4` | 200.0 | 0.010% |", md)
        self.assertIn("left out: httpchain/c/callback-sequential@cserver.keepalive: needs a "
                      "server", md)
        self.assertIn("**failed**: x failed", md)
        self.assertNotIn("alloc", md)
        csv_text = counts.write_csv([self.row(per_op_alloc=1.5)])
        head, line = csv_text.splitlines()
        self.assertEqual(head.split(","), counts.COLUMNS)
        self.assertIn(",200.000,0.020,1.500,", line)


@unittest.skipUnless(shutil.which("valgrind") and os.path.exists(os.path.join(BIN, "c-cacheloop")),
                     "valgrind or build/bin/c-cacheloop missing")
class UnderValgrindTest(unittest.TestCase):
    def run_counts(self, *args, env=None):
        out = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, out)
        p = subprocess.run([sys.executable, "-m", "runner.tools.counts", "--out", out]
                           + list(args), capture_output=True, text=True, env=env,
                           cwd=paths.ROOT)
        return p, out

    def test_two_counts_of_a_variant_agree_to_a_thousandth(self):
        p, out = self.run_counts("--filter", "^cacheloop/(c/sync|c/await|node/await)-", "--n",
                                 "10000,510000",
                                 "--repeat", "2")
        self.assertEqual(p.returncode, 0, p.stderr)
        (folder,) = [os.path.join(r, d) for r, ds, _ in os.walk(out) for d in ds
                     if d.startswith("counts-")]
        import csv
        with open(os.path.join(folder, "counts.csv")) as f:
            rows = {r["variant"]: r for r in csv.DictReader(f)}
        self.assertEqual(sorted(rows), ["cacheloop/c/await-sequential@node4",
                                        "cacheloop/c/sync-sequential@node4"])
        for r in rows.values():
            per_op, spread = float(r["instr_per_op"]), float(r["spread_per_op"])
            self.assertGreater(per_op, 10)
            self.assertLessEqual(spread, per_op / 1000.0, r)
        # await does more per load than the plain function.
        self.assertGreater(float(rows["cacheloop/c/await-sequential@node4"]["instr_per_op"]),
                           float(rows["cacheloop/c/sync-sequential@node4"]["instr_per_op"]) + 50)
        self.assertIn("left out 1 Node variant: V8's compiler and collector threads", p.stderr)
        self.assertTrue(os.path.isfile(os.path.join(folder, "counts.md")))

    def test_into_a_run_folder_counts_its_variants_for_its_report(self):
        import csv
        import json
        from ..report import report
        run = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, run)
        vid = "cacheloop/c/sync-sequential@node4"
        head = subprocess.run(["git", "-C", HERE, "rev-parse", "HEAD"], capture_output=True,
                              text=True).stdout.strip() or None
        with open(os.path.join(run, "run.json"), "w") as f:
            json.dump({"profile": "default", "variants": [vid, "cacheloop/c/await-sequential@node4x"]}, f)
        with open(os.path.join(run, "host.json"), "w") as f:
            json.dump({"git_commit": head}, f)
        p, _ = self.run_counts("--into", run, "--n", "1000,11000")
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(run, "counts.csv")) as f:
            rows = list(csv.DictReader(f))
        self.assertEqual([r["variant"] for r in rows], [vid])
        with open(os.path.join(run, "counts.json")) as f:
            info = json.load(f)
        self.assertEqual(info["n"], {"cacheloop": [1000, 11000]})
        self.assertEqual(info["run_commit"], head)
        if head:
            self.assertIs(info["same_sources"], True)
        self.assertFalse(os.path.exists(os.path.join(run, "counts-")))
        row = {"variant": vid, "workload": "cacheloop", "label": "c/sync-sequential@node4",
               "n": 6, "per_op_ns": 10.0, "per_op_ns_ci_low": 9.0, "per_op_ns_ci_high": 11.0}
        text = "\n".join(report.counts_section(runfolder.RunFolder(run), [row]))
        self.assertIn("## Instructions per operation", text)
        self.assertIn("### cacheloop (counted at N = 1,000 and 11,000)", text)
        line = [l for l in text.splitlines() if l.startswith("| `c/sync-sequential@node4`")][0]
        per_op = float(rows[0]["instr_per_op"])
        self.assertIn("| %.2f |" % (per_op / 10.0), line)
        self.assertIn(" | - | ", line)          # one count: no spread
        self.assertEqual(report.counts_section(runfolder.RunFolder(tempfile.gettempdir()), [row]), [])

    def test_into_takes_a_run_folder_and_nothing_that_would_change_its_variants(self):
        empty = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, empty)
        p, _ = self.run_counts("--into", empty)
        self.assertEqual(p.returncode, 2)
        self.assertIn("not a run folder", p.stderr)
        with open(os.path.join(empty, "run.json"), "w") as f:
            f.write('{"profile": "default", "variants": []}')
        p, _ = self.run_counts("--into", empty, "--filter", "^cacheloop/")
        self.assertEqual(p.returncode, 2)
        self.assertIn("no --profile or --filter beside it", p.stderr)

    def test_no_match_and_no_valgrind_say_so_in_one_line(self):
        p, _ = self.run_counts("--filter", "^nothing/")
        self.assertEqual(p.returncode, 2)
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
        p, _ = self.run_counts("--filter", "^cacheloop/c/sync-",
                               env=dict(os.environ, PATH="/nonexistent", VALGRIND=""))
        self.assertEqual(p.returncode, 3, p.stderr)
        self.assertIn("valgrind is not installed", p.stderr)

    def test_a_variant_that_needs_a_server_is_left_out_with_its_reason(self):
        p, _ = self.run_counts("--filter", "^httpchain/c/callback-sequential@cserver.keepalive$")
        self.assertEqual(p.returncode, 2)
        self.assertIn("needs a server", p.stderr)


if __name__ == "__main__":
    unittest.main()
