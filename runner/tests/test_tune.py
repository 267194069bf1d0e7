"""Unit tests of runner/tools/tune.py (`make tune`) on a fake /sys and /proc tree:
nothing changes without --apply, --apply changes only what differs and saves
what was there, --reset puts it back."""
import io
import json
import os
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

from ..tools import tune


def tree(governors=("powersave", "performance"), boost="1", aslr="2"):
    root = tempfile.mkdtemp()
    for i, g in enumerate(governors):
        d = os.path.join(root, "sys/devices/system/cpu/cpu%d/cpufreq" % i)
        os.makedirs(d)
        with open(os.path.join(d, "scaling_governor"), "w") as f:
            f.write(g + "\n")
    if boost is not None:
        d = os.path.join(root, "sys/devices/system/cpu/cpufreq")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "boost"), "w") as f:
            f.write(boost + "\n")
    if aslr is not None:
        d = os.path.join(root, "proc/sys/kernel")
        os.makedirs(d)
        with open(os.path.join(d, "randomize_va_space"), "w") as f:
            f.write(aslr + "\n")
    return root


def read(root, rel):
    with open(os.path.join(root, rel)) as f:
        return f.read().strip()


class TuneTest(unittest.TestCase):
    def run_tune(self, root, *args):
        build, state = os.path.join(root, "build"), os.path.join(root, "state")
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            code = tune.main(["--root", root, "--build", build, "--state", state] + list(args))
        return code, out.getvalue(), err.getvalue()

    def test_without_apply_it_says_what_it_would_change_and_changes_nothing(self):
        root = tree()
        code, out, _ = self.run_tune(root)
        self.assertEqual(code, 0)
        self.assertRegex(out, r"governor cpu0 +powersave +would change to performance")
        self.assertRegex(out, r"governor cpu1 +performance +as it should be")
        self.assertRegex(out, r"turbo +1 +would change to 0")
        self.assertRegex(out, r"aslr +2 +as it should be")
        self.assertIn("nothing was changed", out)
        self.assertEqual(read(root, "sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
                         "powersave")
        self.assertEqual(read(root, "sys/devices/system/cpu/cpufreq/boost"), "1")
        self.assertFalse(os.path.exists(os.path.join(root, "state", ".tune-restore.json")))

    def test_apply_changes_what_differs_and_reset_puts_it_back(self):
        root = tree(aslr="0")
        code, out, _ = self.run_tune(root, "--apply")
        self.assertEqual(code, 0, out)
        self.assertIn("governor cpu0: powersave -> performance", out)
        self.assertIn("turbo: 1 -> 0", out)
        self.assertIn("aslr: 0 -> 2", out)
        self.assertNotIn("cpu1:", out)
        self.assertEqual(read(root, "sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
                         "performance")
        with open(os.path.join(root, "state", ".tune-restore.json")) as f:
            self.assertEqual(len(json.load(f)), 3)
        code, out, _ = self.run_tune(root, "--apply")
        self.assertEqual((code, out.strip().splitlines()[-1]), (0, "tune.py: nothing to change"))
        code, out, _ = self.run_tune(root, "--reset")
        self.assertEqual(code, 0, out)
        self.assertEqual(read(root, "sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
                         "powersave")
        self.assertEqual(read(root, "sys/devices/system/cpu/cpufreq/boost"), "1")
        self.assertEqual(read(root, "proc/sys/kernel/randomize_va_space"), "0")
        code, _, err = self.run_tune(root, "--reset")
        self.assertEqual(code, 3)
        self.assertIn("nothing to reset", err)

    def test_a_second_apply_merges_what_changed_since_and_reset_restores_both(self):
        root = tree(governors=("powersave", "performance"))
        self.assertEqual(self.run_tune(root, "--apply")[0], 0)
        # The host's cpu1 is set to another governor since the first --apply.
        cpu1 = os.path.join(root, "sys/devices/system/cpu/cpu1/cpufreq/scaling_governor")
        with open(cpu1, "w") as f:
            f.write("schedutil\n")
        code, out, _ = self.run_tune(root, "--apply")
        self.assertEqual(code, 0, out)
        self.assertIn("governor cpu1: schedutil -> performance", out)
        code, out, _ = self.run_tune(root, "--reset")
        self.assertEqual(code, 0, out)
        self.assertEqual(read(root, "sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
                         "powersave")
        self.assertEqual(read(root, "sys/devices/system/cpu/cpu1/cpufreq/scaling_governor"),
                         "schedutil")
        self.assertEqual(read(root, "sys/devices/system/cpu/cpufreq/boost"), "1")

    def test_the_restore_file_is_out_of_the_folder_make_clean_removes(self):
        # make clean is `rm -rf $(BUILD)`: build/ by default.
        build = os.path.join(tune.ROOT, "build") + os.sep
        self.assertFalse(tune.restore_file().startswith(build), tune.restore_file())
        with open(os.path.join(tune.ROOT, ".gitignore")) as f:
            self.assertIn("/" + os.path.basename(tune.restore_file()), f.read().split())

    def test_a_restore_file_left_in_build_by_an_older_apply_is_merged_and_reset(self):
        root = tree(governors=("performance",), boost="0")
        os.makedirs(os.path.join(root, "build"))
        with open(os.path.join(root, "build", "tune-restore.json"), "w") as f:
            json.dump({os.path.join(root, "sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"):
                       "ondemand"}, f)
        code, out, _ = self.run_tune(root, "--reset")
        self.assertEqual(code, 0, out)
        self.assertEqual(read(root, "sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
                         "ondemand")
        self.assertFalse(os.path.exists(os.path.join(root, "build", "tune-restore.json")))

    def test_a_restore_file_edited_into_another_shape_is_one_line_and_nothing_changes(self):
        root = tree()
        os.makedirs(os.path.join(root, "state"))
        with open(os.path.join(root, "state", ".tune-restore.json"), "w") as f:
            f.write("[1, 2]")
        code, _, err = self.run_tune(root, "--apply")
        self.assertEqual(code, 1)
        self.assertRegex(err, r"^tune.py: .*\.tune-restore\.json is not a map of paths to settings\n$")
        self.assertEqual(read(root, "sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
                         "powersave")
        code, _, err = self.run_tune(root, "--reset")
        self.assertEqual(code, 3)
        self.assertIn("nothing was restored", err)

    def test_a_host_without_cpufreq_lists_it_as_not_exposed(self):
        root = tree(governors=(), boost=None)
        code, out, _ = self.run_tune(root)
        self.assertEqual(code, 0)
        self.assertRegex(out, r"governor +not exposed here")
        self.assertRegex(out, r"turbo +not exposed here")
        self.assertNotIn("nothing was changed", out)

    def test_intel_pstate_no_turbo_is_the_turbo_switch_without_cpufreq_boost(self):
        root = tree(boost=None)
        d = os.path.join(root, "sys/devices/system/cpu/intel_pstate")
        os.makedirs(d)
        with open(os.path.join(d, "no_turbo"), "w") as f:
            f.write("0\n")
        _, out, _ = self.run_tune(root)
        self.assertRegex(out, r"turbo +0 +would change to 1")

    def test_apply_and_reset_are_one_or_the_other(self):
        with redirect_stderr(io.StringIO()):
            with self.assertRaises(SystemExit) as cm:
                tune.main(["--apply", "--reset"])
        self.assertEqual(cm.exception.code, 2)


if __name__ == "__main__":
    unittest.main()
