"""Tests of outcome.classify on environment failures: out of memory, file
descriptors and threads keep the status of DESIGN section 6 (failed, crashed)
with a reason that says the environment failed, never a verification."""
import signal
import unittest


from ..measure import launch
from ..measure import outcome

V = {"id": "readfile/c/await-parallel@node4", "concurrency": 0}


def result(stderr=b"", exit_code=0, sig=None):
    r = launch.Result()
    r.stderr, r.exit_code, r.signal = stderr, exit_code, sig
    return r


class EnvironmentFailureTest(unittest.TestCase):
    def classify(self, res):
        status, rec, why = outcome.classify(V, 10, res, {})
        self.assertIsNone(rec)
        return status, why

    def test_exit_3_is_an_environment_failure(self):
        self.assertEqual(self.classify(result(b"c-readfile: fixtures/x.txt: No such file\n", 3)),
                         ("failed", "environment failure: exit 3: c-readfile: fixtures/x.txt: No such file"))

    def test_exit_3_out_of_memory_names_the_cause(self):
        self.assertEqual(self.classify(result(b"c-readfile: out of memory\n", 3)),
                         ("failed", "environment failure (out of memory): exit 3: c-readfile: out of memory"))

    def test_a_go_runtime_fatal_error_is_not_a_usage_error(self):
        st, why = self.classify(result(b"fatal error: runtime: out of memory\n\nruntime stack:\n", 2))
        self.assertEqual((st, why), ("failed", "environment failure (out of memory): exit 2: "
                                               "fatal error: runtime: out of memory"))
        st, why = self.classify(result(b"runtime: failed to create new OS thread (have 5 already;"
                                       b" errno=11)\nfatal error: newosproc\n", 2))
        self.assertEqual(st, "failed")
        self.assertTrue(why.startswith("environment failure (cannot start a thread): exit 2: "), why)
        st, why = self.classify(result(b"fatal error: all goroutines are asleep - deadlock!\n", 2))
        self.assertEqual(why, "environment failure (Go runtime fatal error): exit 2: "
                              "fatal error: all goroutines are asleep - deadlock!")

    def test_a_usage_error_stays_one(self):
        self.assertEqual(self.classify(result(b"usage: go-readfile --variant NAME\n", 2)),
                         ("failed", "exit 2: usage: go-readfile --variant NAME"))

    def test_node_out_of_memory_abort(self):
        err = (b"<--- Last few GCs --->\n\n[1:0x5]  12 ms: Mark-Compact\n\nFATAL ERROR: Reached "
               b"heap limit Allocation failed - JavaScript heap out of memory\n")
        st, why = self.classify(result(err, -signal.SIGABRT, signal.SIGABRT))
        self.assertEqual(st, "crashed")
        self.assertEqual(why, "environment failure (out of memory): killed by SIGABRT: FATAL ERROR: "
                              "Reached heap limit Allocation failed - JavaScript heap out of memory")
        st, why = self.classify(result(err, 134))
        self.assertEqual(st, "failed")
        self.assertTrue(why.startswith("environment failure (out of memory): exit 134: FATAL ERROR"), why)

    def test_sigkill_with_an_out_of_memory_message(self):
        st, why = self.classify(result(b"c-readfile: uv_queue_work: Cannot allocate memory\n",
                                       -signal.SIGKILL, signal.SIGKILL))
        self.assertEqual(st, "crashed")
        self.assertTrue(why.startswith("environment failure (out of memory): killed by SIGKILL"), why)

    def test_a_verification_failure_stays_one_whatever_it_quotes(self):
        st, why = self.classify(result(b"iteration 3: read 'out of memory', expected 'Hello'\n", 1))
        self.assertEqual((st, why), ("failed", "exit 1: iteration 3: read 'out of memory', expected 'Hello'"))

    def test_a_crash_without_a_message_stays_a_crash(self):
        self.assertEqual(self.classify(result(b"", -signal.SIGABRT, signal.SIGABRT)),
                         ("crashed", "killed by SIGABRT"))


if __name__ == "__main__":
    unittest.main()
