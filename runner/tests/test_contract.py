"""Tests of runner/catalog/contract.py: every way a line can break the contract, and its CLI."""
import contextlib
import io
import json
import os
import unittest

from ..catalog import catalog
from ..catalog import contract
from ..core import paths


CAT = catalog.load()
ENTRY = CAT.find("readfile/c/promise-counter-parallel@node4")
FAKE = os.path.join(paths.ROOT, "tests", "fixtures-bin", "catalog")


def line(n=10, drop=(), **over):
    """A valid line of ENTRY for N, with fields changed or dropped."""
    rec = {"workload": "readfile", "lang": "c", "style": "promise", "shape": "counter",
           "mode": "parallel", "method": "inprocess", "backend": "node4",
           "variant": "readfile/c/promise-counter-parallel@node4", "iterations": n,
           "concurrency": 0, "ok": n, "bytes": 12 * n, "elapsed_ns": 93012345, "user_us": 61000,
           "sys_us": 120000, "peak_rss_kb": 5320, "idle_rss_kb": 4100, "runtime": "libuv 1.44.2"}
    rec.update(over)
    for k in drop:
        del rec[k]
    return json.dumps(rec, separators=(",", ":")) + "\n"


def cli(*args):
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = contract.main(list(args))
    return code, err.getvalue()


class ProblemTest(unittest.TestCase):
    def problem(self, text, n=10, **kw):
        return contract.problem(ENTRY, n, text, **kw)

    def test_a_valid_line_has_no_problem(self):
        self.assertIsNone(self.problem(line()))
        self.assertIsNone(self.problem(line(), concurrency=0))

    def test_the_specs_example_line_is_valid(self):
        self.assertIsNone(self.problem(line(10000, bytes=120000), 10000))

    def test_not_one_json_object_on_one_line(self):
        self.assertIn("exactly one line, got 2", self.problem(line() + "done\n"))
        self.assertEqual(self.problem(""), "the line is empty")
        self.assertIn("not JSON", self.problem("{\"workload\":"))
        self.assertIn("not a JSON object", self.problem("[1, 2]"))

    def test_a_field_given_twice_is_named_not_read_as_the_last(self):
        self.assertEqual(self.problem(line().replace('"ok":10,', '"ok":0,"ok":10,')),
                         'key "ok" appears twice in one object: the line must say each field once')

    def test_every_missing_field_is_named(self):
        for k in contract.ORDER:
            self.assertEqual(self.problem(line(drop=[k])), "field %r is missing" % k)

    def test_fields_out_of_order(self):
        rec = json.loads(line())
        rec = dict([("lang", rec.pop("lang"))] + list(rec.items()))
        self.assertIn("fields out of order: 'lang' where 'workload' belongs", self.problem(json.dumps(rec)))

    def test_a_workloads_own_fields_may_follow_runtime(self):
        self.assertIsNone(self.problem(line(hits=3)))

    def test_a_field_among_the_contracts_is_named_not_a_crash(self):
        rec = json.loads(line())
        rec = dict(list(rec.items())[:3] + [("hits", 3)] + list(rec.items())[3:])
        self.assertIn("field 'hits' comes before 'shape'", self.problem(json.dumps(rec)))

    def test_the_optional_counts_are_integers_when_present(self):
        self.assertIsNone(self.problem(line(threadpool_trips=40, allocs=0, nvcsw=1, nivcsw=0)))
        self.assertIn("'allocs' must be an integer, got '3'", self.problem(line(allocs="3")))
        self.assertIn("'nivcsw' must not be negative", self.problem(line(nivcsw=-1)))
        self.assertIsNone(self.problem(line(preclock_heap_bytes=0, preclock_faults=3, warmup_ns=9)))
        self.assertIn("'preclock_faults' must be an integer",
                      self.problem(line(preclock_faults=1.5)))

    def test_the_harness_memory_figure_is_a_perfjs_lines_and_lies_within_its_rss(self):
        # sampled_rss_kb: bluebird's harness's memory, the largest RSS sampled
        # at a completion less the RSS at the start (idle_rss_kb); RSS may have
        # fallen since the start, never below 0, nor risen above the peak.
        entry = CAT.find("doxbee/node/promise-parallel-perfjs-parallel@native")

        def harness(**over):
            rec = {"workload": "doxbee", "lang": "node", "style": "promise", "shape": "parallel",
                   "mode": "parallel", "method": "perfjs", "backend": "native",
                   "variant": entry["id"], "iterations": 10, "concurrency": 0, "ok": 10,
                   "bytes": 0, "elapsed_ns": 93012345, "user_us": 61000, "sys_us": 120000,
                   "peak_rss_kb": 5320, "idle_rss_kb": 4100, "runtime": "node v20.0.0",
                   "commits": 10, "checked": 260, "ops_per_upload": 26, "warmup_ns": 5, "sampled_rss_kb": 1000, "passes_elapsed_ns": [93012345]}
            rec.update(over)
            return json.dumps({k: v for k, v in rec.items() if v is not None})

        self.assertIsNone(contract.problem(entry, 10, harness()))
        self.assertIsNone(contract.problem(entry, 10, harness(sampled_rss_kb=1220)))
        self.assertIsNone(contract.problem(entry, 10, harness(sampled_rss_kb=-4)))
        self.assertEqual(contract.problem(entry, 10, harness(sampled_rss_kb=None)),
                         "field 'sampled_rss_kb' is missing: a perfjs line carries its harness's "
                         "memory figure")
        self.assertIn("'sampled_rss_kb' must be an integer, got 1.5",
                      contract.problem(entry, 10, harness(sampled_rss_kb=1.5)))
        self.assertEqual(contract.problem(entry, 10, harness(sampled_rss_kb=1221)),
                         "sampled_rss_kb is 1221: the RSS it samples lies between 0 and the "
                         "peak, so it is from -4100 to 1220 (peak_rss_kb - idle_rss_kb)")
        self.assertIn("from -4100 to 1220", contract.problem(entry, 10, harness(sampled_rss_kb=-4101)))
        # Another method's line may carry it too, held to the same bounds.
        self.assertIsNone(self.problem(line(sampled_rss_kb=12)))
        self.assertIn("from -4100 to 1220", self.problem(line(sampled_rss_kb=5000)))

    def test_wrong_types(self):
        self.assertIn("'style' must be a non-empty string", self.problem(line(style="")))
        self.assertIn("'shape' must be a string", self.problem(line(shape=None)))
        self.assertIn("'ok' must be an integer, got True", self.problem(line(ok=True)))
        self.assertIn("'bytes' must be an integer, got 1.5", self.problem(line(bytes=1.5)))
        self.assertIn("'sys_us' must not be negative", self.problem(line(sys_us=-1)))

    def test_the_line_must_be_the_catalog_entrys(self):
        self.assertIn("variant is 'c/promise-counter-parallel'",
                      self.problem(line(variant="c/promise-counter-parallel")))
        for k, bad in (("workload", "noop"), ("lang", "go"), ("style", "await"), ("shape", ""),
                       ("mode", "sequential"), ("method", "nodetest"), ("backend", "fused")):
            self.assertIn("%s is %r, the catalog says" % (k, bad), self.problem(line(**{k: bad})))

    def test_iterations_and_ok_must_be_n(self):
        self.assertEqual(self.problem(line(), n=11), "iterations is 10, expected 11")
        self.assertEqual(self.problem(line(ok=9)), "ok is 9, expected 10 (every completion verified)")

    def test_the_workloads_checks(self):
        self.assertEqual(self.problem(line(bytes=119)), "bytes is 119, expected 120 (iterations * len(expect))")
        # UTF-8 bytes: é is two.
        self.assertIsNone(self.problem(line(bytes=60), workload_values={"expect": "héllo"}))

    def test_a_check_that_cannot_be_evaluated_is_a_problem(self):
        entry = dict(ENTRY, checks={"bytes": "iterations * len(missing)"})
        self.assertIn("cannot be evaluated: unknown name 'missing'", contract.problem(entry, 10, line()))

    def test_concurrency_when_given(self):
        self.assertEqual(self.problem(line(), concurrency=8), "concurrency is 0, expected 8")
        bounded = CAT.find("readfile/c/promise-bounded@node4")
        fields = dict(style="promise", shape="", mode="bounded",
                      variant="readfile/c/promise-bounded@node4")
        # The most in flight: N when N is below K.
        self.assertIsNone(contract.problem(bounded, 10, line(concurrency=10, **fields),
                                           concurrency=64))
        self.assertEqual(contract.problem(bounded, 10, line(concurrency=64, **fields),
                                          concurrency=64), "concurrency is 64, expected 10")

    def test_the_k_given_must_be_the_one_the_runner_gives_the_mode(self):
        # 1 sequential, 0 parallel (all N), a bound of 1 or more bounded: a
        # samples.csv row holds the K given (samples.row_problem checks it so).
        self.assertEqual(self.problem(line(concurrency=8), concurrency=8),
                         "concurrency is 8: the runner gives a parallel variant 0")
        self.assertEqual(catalog.given_concurrency_problem("sequential", 9),
                         "concurrency is 9: the runner gives a sequential variant 1")
        self.assertIsNone(catalog.given_concurrency_problem("bounded", 3))
        self.assertIn("a bound of 1 or more", catalog.given_concurrency_problem("bounded", 0))

    def test_elapsed_and_peak_rss_must_be_positive(self):
        self.assertIn("elapsed_ns must be positive", self.problem(line(elapsed_ns=0)))
        self.assertIn("peak_rss_kb must be positive", self.problem(line(peak_rss_kb=0)))

    def test_idle_rss_is_positive_and_at_most_the_peak(self):
        self.assertIn("idle_rss_kb must be positive", self.problem(line(idle_rss_kb=0)))
        self.assertIn("at most peak_rss_kb (5320), got 6000", self.problem(line(idle_rss_kb=6000)))
        self.assertIn("field 'idle_rss_kb' is missing",
                      self.problem(line(drop=("idle_rss_kb",))))

    def test_a_workload_without_checks_needs_none(self):
        noop = CAT.find("noop/c/sync-sequential@none")
        text = line(workload="noop", style="sync", shape="", mode="sequential", backend="none",
                    variant=noop["id"], concurrency=1, bytes=0)
        self.assertIsNone(contract.problem(noop, 10, text))

    def test_every_timed_pass_has_its_time_and_the_first_is_elapsed_ns(self):
        first = 93012345
        self.assertIsNone(self.problem(line(passes_elapsed_ns=[first])))
        self.assertIsNone(self.problem(line(passes_elapsed_ns=[first, 90000000, 91000000]),
                                       passes=3))
        # one pass when not told: a line without the field ran one (an older program)
        self.assertIsNone(self.problem(line()))
        self.assertEqual(self.problem(line(), passes=2),
                         "field 'passes_elapsed_ns' is missing (a run of 2 passes)")
        self.assertEqual(self.problem(line(passes_elapsed_ns=[first, 5])),
                         "passes_elapsed_ns has 2 entries, expected 1 (one a timed pass)")
        self.assertEqual(self.problem(line(passes_elapsed_ns=[first]), passes=3),
                         "passes_elapsed_ns has 1 entry, expected 3 (one a timed pass)")
        self.assertIn("must be a list of integers",
                      self.problem(line(passes_elapsed_ns=first)))
        self.assertIn("must be a list of integers",
                      self.problem(line(passes_elapsed_ns=[first, 1.5]), passes=2))
        self.assertIn("must be a list of integers",
                      self.problem(line(passes_elapsed_ns=[first, True]), passes=2))
        self.assertEqual(self.problem(line(passes_elapsed_ns=[first, 0]), passes=2),
                         "passes_elapsed_ns must hold positive times, got 0")
        self.assertEqual(self.problem(line(passes_elapsed_ns=[7, first]), passes=2),
                         "passes_elapsed_ns starts with 7, not elapsed_ns %d (the first timed pass)"
                         % first)

    def test_declared_own_fields_must_be_integers(self):
        entry = dict(ENTRY, extra_fields=["hits"])
        self.assertEqual(contract.problem(entry, 10, line()), "field 'hits' is missing")
        self.assertIn("'hits' must be an integer", contract.problem(entry, 10, line(hits="3")))
        self.assertIsNone(contract.problem(entry, 10, line(hits=3)))


class CliTest(unittest.TestCase):
    def test_ok_is_exit_0(self):
        self.assertEqual(cli(ENTRY["id"], "10", line()), (0, ""))

    def test_a_problem_is_exit_1_with_the_id(self):
        code, err = cli(ENTRY["id"], "10", line(ok=3))
        self.assertEqual(code, 1)
        self.assertEqual(err, "%s: ok is 3, expected 10 (every completion verified)\n" % ENTRY["id"])

    def test_flags_default_to_the_catalogs_values(self):
        self.assertEqual(cli(ENTRY["id"], "10", line(), "--expect", "Hello, world")[0], 0)
        code, err = cli(ENTRY["id"], "10", line(), "--expect", "Hi")
        self.assertEqual(code, 1)
        self.assertIn("bytes is 120, expected 20", err)
        self.assertEqual(cli(ENTRY["id"], "10", line(), "--concurrency", "0")[0], 0)
        self.assertEqual(cli(ENTRY["id"], "10", line(), "--concurrency", "5")[0], 1)

    def test_passes_says_how_many_times_the_line_lists(self):
        two = line(passes_elapsed_ns=[93012345, 8])
        self.assertEqual(cli(ENTRY["id"], "10", two, "--passes", "2"), (0, ""))
        code, err = cli(ENTRY["id"], "10", two)
        self.assertEqual(code, 1)
        self.assertIn("passes_elapsed_ns has 2 entries, expected 1", err)
        for bad in ("0", "x", "-1", "10001"):
            code, err = cli(ENTRY["id"], "10", two, "--passes", bad)
            self.assertEqual(code, 2, bad)
            self.assertIn("--passes must be an integer from 1 to 10000", err)

    def test_bad_calls_are_exit_2(self):
        for args in ((ENTRY["id"], "10"), (ENTRY["id"], "ten", line()), (ENTRY["id"], "0", line()),
                     ("c/callback-parallel", "10", line()), (ENTRY["id"], "10", line(), "--port", "1"),
                     (ENTRY["id"], "10", line(), "--expect")):
            self.assertEqual(cli(*args)[0], 2, args)

    def test_another_catalog(self):
        text = line(workload="readfile", lang="fake", style="honest", shape="", mode="sequential",
                    backend="python", variant="readfile/fake/honest-sequential@python", concurrency=1)
        self.assertEqual(cli("--catalog", FAKE, "readfile/fake/honest-sequential@python", "10", text),
                         (0, ""))

    def test_a_broken_catalog_is_exit_3(self):
        self.assertEqual(cli("--catalog", os.path.join(FAKE, "nope"), ENTRY["id"], "10", line())[0], 3)


if __name__ == "__main__":
    unittest.main()
