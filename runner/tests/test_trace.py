"""Tests of trace.py (system calls per operation) and accounting.py (the
per-operation figures from the runs' lines)."""
import json
import os
import tempfile
import unittest

from ..analysis import accounting
from ..analysis import runfolder
from ..measure import trace

STRACE_C = """\
% time     seconds  usecs/call     calls    errors syscall
------ ----------- ----------- --------- --------- ----------------
 79.77    8.596410         308     27845      1886 futex
 16.60    1.789308         111     15997           epoll_pwait
  1.15    0.124156          12     10091           read
  0.28    0.029806          14      2024         3 openat
------ ----------- ----------- --------- --------- ----------------
100.00   10.539680         189     55957      1889 total
"""


class TraceTest(unittest.TestCase):
    def test_parse_reads_the_calls_column_with_and_without_errors(self):
        self.assertEqual(trace.parse(STRACE_C),
                         {"futex": 27845, "epoll_pwait": 15997, "read": 10091, "openat": 2024})

    def test_parse_of_no_table_is_empty(self):
        self.assertEqual(trace.parse("strace: exec: No such file\n"), {})

    def test_per_op_cancels_the_start_up_and_drops_calls_that_did_not_grow(self):
        small = {"execve": 1, "mmap": 40, "openat": 11, "read": 12}
        big = {"execve": 1, "mmap": 40, "openat": 110, "read": 210}
        got = trace.per_op(small, big, 100, 1)
        self.assertEqual(got["by_syscall"], {"read": 2.0, "openat": 1.0})
        self.assertEqual(got["total"], 3.0)

    def test_per_op_divides_by_the_difference_of_n(self):
        self.assertEqual(trace.per_op({"read": 64}, {"read": 200}, 200, 64)["total"], 1.0)

    def test_per_op_orders_a_tie_by_name_whatever_the_string_hashing(self):
        # Five calls once per read: set order follows PYTHONHASHSEED, the result must not.
        names = ["read", "openat", "epoll_wait", "close", "newfstatat"]
        got = trace.per_op({k: 1 for k in names}, {k: 101 for k in names}, 101, 1)
        self.assertEqual(list(got["by_syscall"]), sorted(names))

    def test_the_most_frequent_calls_keep_every_call_tied_with_the_fourth(self):
        by = {"openat": 1.0, "close": 1.0, "newfstatat": 1.0, "read": 1.0,
              "epoll_wait": 1.0, "futex": 0.5}
        self.assertEqual([k for k, _ in accounting.top_calls(by)],
                         ["close", "epoll_wait", "newfstatat", "openat", "read"])
        self.assertEqual(accounting.top_calls({"read": 3.0, "close": 2.0, "a": 1.0, "b": 0.5,
                                               "c": 0.25}),
                         [("read", 3.0), ("close", 2.0), ("a", 1.0), ("b", 0.5)])

    def test_with_iterations_replaces_n_and_drops_the_warm_up(self):
        argv = ["prog", "--variant", "x", "--iterations", "10000", "--warmup", "350"]
        self.assertEqual(trace.with_iterations(argv, 7),
                         ["prog", "--variant", "x", "--iterations", "7", "--warmup", "0"])
        self.assertEqual(argv[4:], ["10000", "--warmup", "350"])
        # one timed pass: P passes would count every system call P times
        self.assertEqual(trace.with_iterations(argv + ["--passes", "3"], 7)[-2:], ["--passes", "1"])

    def test_slug_is_a_file_name(self):
        self.assertEqual(trace.slug("readfile/c/sync-sequential@node4"),
                         "readfile_c_sync-sequential_node4")


def entry(rnd, line, **rusage):
    return dict({"round": rnd, "variant": line["variant"], "status": "ok", "line": line}, **rusage)


class AccountingTest(unittest.TestCase):
    def c_line(self, n, trips):
        return {"variant": "w/c/callback-sequential@x", "iterations": n, "user_us": n,
                "sys_us": 2 * n, "threadpool_trips": trips, "allocs": n, "pool_gets": 0,
                "nvcsw": n // 2, "nivcsw": 0}

    def test_a_c_line_gives_its_counts_per_operation(self):
        a = accounting.per_variant([entry(1, self.c_line(100, 400)),
                                    entry(2, self.c_line(100, 400))], None)
        self.assertEqual(a["threadpool"], 4.0)
        self.assertEqual(a["allocs"], 1.0)
        self.assertEqual(a["user_ns"], 1000.0)
        self.assertEqual(a["cpu_ns"], 3000.0)
        self.assertEqual((a["nvcsw"], a["switches_from"]), (0.5, "line"))

    def test_a_line_without_counts_gives_none_and_the_process_switches(self):
        line = {"variant": "w/node/callback-sequential@y", "iterations": 10, "user_us": 10,
                "sys_us": 0}
        a = accounting.per_variant([entry(1, line, proc_nvcsw=30, proc_nivcsw=5)], None)
        self.assertIsNone(a["threadpool"])
        self.assertIsNone(a["allocs"])
        self.assertEqual((a["nvcsw"], a["nivcsw"], a["switches_from"]), (3.0, 0.5, "process"))

    def test_attach_reads_runs_jsonl_and_trace_json_and_skips_warm_ups(self):
        with tempfile.TemporaryDirectory() as d:
            line = self.c_line(10, 40)
            with open(os.path.join(d, "runs.jsonl"), "w") as f:
                f.write(json.dumps(entry("w1", self.c_line(10, 99999))) + "\n")
                f.write(json.dumps(entry(1, line)) + "\n")
                f.write(json.dumps(dict(entry(2, line), status="failed")) + "\n")
                # A line of another shape (edited by hand) is left out.
                f.write(json.dumps(dict(entry(3, line), variant=[line["variant"]])) + "\n")
            with open(os.path.join(d, "trace.json"), "w") as f:
                json.dump({"variants": {line["variant"]: {
                    "iterations": 200, "total": 4.0, "by_syscall": {"read": 1.0}}}}, f)
            rows = [{"variant": line["variant"], "workload": "w", "label": "c/x",
                     "median_ms": 1.0, "iterations": 10}]
            accounting.attach(runfolder.RunFolder(d), rows)
            a = rows[0]["accounting"]
            self.assertEqual((a["runs"], a["threadpool"], a["syscalls"]), (1, 4.0, 4.0))
            text = "\n".join(accounting.markdown(rows))
            self.assertIn("| `c/x` | 100 (1.00 / 2.00) | 4.00 | 1.00 (0.00) |", text)
            self.assertIn("4.0 (read 1.0)", text)

    def test_a_runs_jsonl_from_before_the_proc_names_gives_the_process_switches(self):
        line = {"variant": "w/node/callback-sequential@y", "iterations": 10, "user_us": 10,
                "sys_us": 0}
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "runs.jsonl"), "w") as f:
                f.write(json.dumps(entry(1, line, nvcsw=30, nivcsw=5)) + "\n")
            got = runfolder.RunFolder(d).lines[line["variant"]]
        self.assertEqual((got[0]["proc_nvcsw"], got[0]["proc_nivcsw"]), (30, 5))
        a = accounting.per_variant(got, None)
        self.assertEqual((a["nvcsw"], a["nivcsw"], a["switches_from"]), (3.0, 0.5, "process"))

    def test_a_sweeps_other_points_are_not_samples_of_the_base_point(self):
        with tempfile.TemporaryDirectory() as d:
            line = self.c_line(10, 40)
            with open(os.path.join(d, "runs.jsonl"), "w") as f:
                f.write(json.dumps(dict(entry(1, line), point="base")) + "\n")
                f.write(json.dumps(dict(entry(1, self.c_line(10, 99999)),
                                        point="iterations=1000")) + "\n")
                f.write(json.dumps(entry(2, line)) + "\n")
            got = runfolder.RunFolder(d).lines[line["variant"]]
            self.assertEqual([e["round"] for e in got], [1, 2])


if __name__ == "__main__":
    unittest.main()
