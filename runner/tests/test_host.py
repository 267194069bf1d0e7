"""Tests of host.py's metadata that tells hosts apart (page size, Rosetta,
emulation, CPU frequency policy) with fake probes, and of `make hosts` leaving
emulated runs out of the cross-host charts."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

from ..measure import host
from ..report import render
from ..core import paths

X86_CPUINFO = "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC\nflags\t\t: fpu sse2\n"
ARM_CPUINFO = "processor\t: 0\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\nCPU part\t: 0xd0c\n"


def files(table):
    """A fake read(path): the text of table[path], None for any other path."""
    return lambda path: table.get(path)


def command(table):
    """A fake out(argv, lines=False): table[' '.join(argv)], None for any other."""
    return lambda argv, lines=False: table.get(" ".join(argv))


class PageSize(unittest.TestCase):
    def test_the_kernels_page_size(self):
        for n in (4096, 16384, 65536):
            with mock.patch.object(host.os, "sysconf", return_value=n):
                self.assertEqual(host.page_size(), n)

    def test_unknown_when_sysconf_cannot_tell(self):
        with mock.patch.object(host.os, "sysconf", side_effect=ValueError("no such name")):
            self.assertIsNone(host.page_size())
        with mock.patch.object(host.os, "sysconf", return_value=-1):
            self.assertIsNone(host.page_size())

    def test_this_host_reports_a_power_of_two(self):
        n = host.page_size()
        self.assertGreaterEqual(n, 4096)
        self.assertEqual(n & (n - 1), 0)


class Rosetta(unittest.TestCase):
    def test_a_translated_process_on_macos(self):
        out = command({"sysctl -n sysctl.proc_translated": "1"})
        self.assertIs(host.rosetta_translated("Darwin", out), True)
        self.assertEqual(host.emulation("Darwin", "x86_64", out=out, env={}), "rosetta")

    def test_a_native_process_on_apple_silicon(self):
        out = command({"sysctl -n sysctl.proc_translated": "0"})
        self.assertIs(host.rosetta_translated("Darwin", out), False)
        self.assertIsNone(host.emulation("Darwin", "arm64", out=out, env={}))

    def test_an_intel_mac_has_no_such_key(self):
        out = command({})
        self.assertIsNone(host.rosetta_translated("Darwin", out))
        self.assertIsNone(host.emulation("Darwin", "x86_64", out=out, env={}))

    def test_not_asked_off_macos(self):
        out = command({"sysctl -n sysctl.proc_translated": "1"})
        self.assertIsNone(host.rosetta_translated("Linux", out))


class Emulation(unittest.TestCase):
    def test_qemu_user_aarch64_on_an_x86_64_kernel(self):
        read = files({"/proc/sys/kernel/arch": "x86_64\n", "/proc/cpuinfo": X86_CPUINFO})
        self.assertEqual(host.emulation("Linux", "aarch64", read=read, env={}),
                         "qemu-user (aarch64 on a x86_64 kernel)")

    def test_qemu_user_seen_from_cpuinfo_on_a_kernel_without_arch(self):
        read = files({"/proc/cpuinfo": X86_CPUINFO})
        self.assertEqual(host.emulation("Linux", "aarch64", read=read, env={}),
                         "qemu-user (aarch64 on a x86_64 kernel)")
        read = files({"/proc/cpuinfo": ARM_CPUINFO})
        self.assertEqual(host.emulation("Linux", "x86_64", read=read, env={}),
                         "qemu-user (x86_64 on a aarch64 kernel)")

    def test_native_hosts_are_not_emulated(self):
        for machine, arch, cpuinfo in (("x86_64", "x86_64", X86_CPUINFO),
                                       ("aarch64", "aarch64", ARM_CPUINFO)):
            read = files({"/proc/sys/kernel/arch": arch + "\n", "/proc/cpuinfo": cpuinfo})
            self.assertIsNone(host.emulation("Linux", machine, read=read, env={}), machine)

    def test_32_bit_compat_is_not_emulation(self):
        read = files({"/proc/sys/kernel/arch": "aarch64\n"})
        self.assertIsNone(host.emulation("Linux", "armv7l", read=read, env={}))
        read = files({"/proc/sys/kernel/arch": "x86_64\n"})
        self.assertIsNone(host.emulation("Linux", "i686", read=read, env={}))

    def test_nothing_readable_is_not_called_emulated(self):
        self.assertIsNone(host.emulation("Linux", "aarch64", read=files({}), env={}))

    def test_the_environment_names_what_the_probes_cannot_see(self):
        read = files({"/proc/sys/kernel/arch": "x86_64\n"})
        self.assertEqual(host.emulation("Linux", "x86_64", read=read,
                                        env={"ASYNCSTYLES_EMULATION": "qemu-system"}), "qemu-system")

    def test_an_emulated_run_has_its_own_slug(self):
        native = host.slug("AMD EPYC 7B13", 2)
        self.assertFalse(native.endswith("-emulated"))
        self.assertEqual(host.slug("AMD EPYC 7B13", 2, "qemu-user (aarch64 on a x86_64 kernel)"),
                         native + "-emulated")

    def test_host_json_records_all_four(self):
        with mock.patch.object(host, "emulation", return_value="rosetta"):
            info = host.info()
        self.assertEqual(info["emulation"], "rosetta")
        self.assertTrue(info["slug"].endswith("-emulated"))
        for key in ("page_size", "rosetta_translated", "cpu_frequency_policy"):
            self.assertIn(key, info)


class FrequencyPolicy(unittest.TestCase):
    def test_linux_cpufreq(self):
        d = host.CPUFREQ
        read = files({d + "/scaling_driver": "intel_pstate\n", d + "/scaling_governor": "powersave\n",
                      d + "/energy_performance_preference": "balance_performance\n",
                      d + "/scaling_min_freq": "800000\n", d + "/scaling_max_freq": "4700000\n",
                      d + "/cpuinfo_max_freq": "4700000\n",
                      "/sys/devices/system/cpu/intel_pstate/no_turbo": "0\n"})
        self.assertEqual(host.cpu_frequency_policy("Linux", read), {
            "driver": "intel_pstate", "governor": "powersave",
            "energy_performance_preference": "balance_performance",
            "min_khz": 800000, "max_khz": 4700000, "hardware_max_khz": 4700000, "boost": True})

    def test_boost_off_by_the_generic_switch(self):
        d = host.CPUFREQ
        read = files({d + "/scaling_driver": "acpi-cpufreq", d + "/scaling_governor": "performance",
                      "/sys/devices/system/cpu/cpufreq/boost": "0"})
        policy = host.cpu_frequency_policy("Linux", read)
        self.assertIs(policy["boost"], False)
        self.assertEqual(policy["governor"], "performance")
        self.assertIsNone(policy["max_khz"])

    def test_a_vm_without_cpufreq_has_none(self):
        self.assertIsNone(host.cpu_frequency_policy("Linux", files({})))

    def test_macos_low_power_mode(self):
        for flag, want in (("1", True), ("0", False)):
            out = command({"pmset -g": "System-wide power settings:\n lowpowermode         %s\n"
                                       " sleep                1\n" % flag})
            self.assertEqual(host.cpu_frequency_policy("Darwin", out=out), {"low_power_mode": want})
        self.assertIsNone(host.cpu_frequency_policy("Darwin", out=command({})))


class HostsLeaveEmulatedRunsOut(unittest.TestCase):
    """`make hosts` (run.py --hosts) on a results folder with two native hosts
    and one emulated: the emulated run is named on stderr and not drawn."""

    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)

    def add_run(self, slug, emulation, stamp="20260101T000000Z"):
        d = os.path.join(self.dir, slug, stamp)
        os.makedirs(d)
        with open(os.path.join(d, "host.json"), "w") as f:
            json.dump({"slug": slug, "emulation": emulation}, f)
        with open(os.path.join(d, "summary.json"), "w") as f:
            json.dump({"host": {"slug": slug}, "variants": []}, f)
        return d

    def test_host_runs_splits_native_and_emulated(self):
        a = self.add_run("linux-x86_64-a-2c", None)
        b = self.add_run("macos-arm64-b-10c", None)
        e = self.add_run("linux-aarch64-a-2c-emulated", "qemu-user (aarch64 on a x86_64 kernel)")
        self.assertEqual(render.host_runs(self.dir),
                         {"linux-x86_64-a-2c": [a], "macos-arm64-b-10c": [b]})
        self.assertEqual(render.host_runs(self.dir, emulated=True),
                         {"linux-aarch64-a-2c-emulated": [e]})

    def test_a_runs_own_cross_host_charts_take_it_and_each_other_hosts_newest_of_its_profile(self):
        def run(slug, stamp, profile, emulation=None):
            d = self.add_run(slug, emulation, stamp)
            with open(os.path.join(d, "run.json"), "w") as f:
                json.dump({"profile": profile}, f)
            return d
        mine = run("linux-x86_64-a-2c", "20260101T000000Z", "default")
        run("linux-x86_64-a-2c", "20260301T000000Z", "default")         # newer, not this one
        other = run("macos-arm64-b-10c", "20260102T000000Z", "default")
        run("macos-arm64-b-10c", "20260201T000000Z", "seed")            # newest, other profile
        run("zeta-x86_64-c-4c", "20260101T000000Z", "seed")             # no default run
        self.assertEqual(render.host_peers(self.dir, mine), [mine, other])
        seed = run("linux-x86_64-a-2c", "20260401T000000Z", "seed")
        self.assertEqual(render.host_peers(self.dir, seed),
                         [seed, os.path.join(self.dir, "macos-arm64-b-10c", "20260201T000000Z"),
                          os.path.join(self.dir, "zeta-x86_64-c-4c", "20260101T000000Z")])
        lone = run("linux-x86_64-a-2c", "20260501T000000Z", "full")
        self.assertEqual(render.host_peers(self.dir, lone), [lone])
        emulated = run("linux-aarch64-a-2c-emulated", "20260101T000000Z", "default", "qemu-user")
        self.assertEqual(render.host_peers(self.dir, emulated), [])

    def hosts_refused(self):
        """run.py --hosts on the folder, which must exit 3; its process."""
        p = subprocess.run([sys.executable, "-m", "runner", "--hosts", self.dir],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                           cwd=paths.ROOT)
        self.assertEqual(p.returncode, 3, p.stderr)
        return p

    def test_run_py_hosts_sets_side_by_side_only_runs_of_the_newest_runs_profile(self):
        for slug, stamp, profile in (("linux-x86_64-a-2c", "20260102T000000Z", "default"),
                                     ("macos-arm64-b-10c", "20260101T000000Z", "seed")):
            d = self.add_run(slug, None, stamp)
            with open(os.path.join(d, "run.json"), "w") as f:
                json.dump({"profile": profile}, f)
        p = self.hosts_refused()
        self.assertIn("macos-arm64-b-10c left out of the cross-host charts: no run of the "
                      "default profile", p.stderr)
        self.assertIn("holds no other host's run of the default profile", p.stderr)

    def test_run_py_hosts_names_the_emulated_run_and_needs_two_native(self):
        self.add_run("linux-x86_64-a-2c", None)
        self.add_run("macos-x86_64-b-10c-emulated", "rosetta")
        p = self.hosts_refused()
        self.assertIn("macos-x86_64-b-10c-emulated left out of the cross-host charts: "
                      "emulated (rosetta)", p.stderr)
        self.assertIn("holds runs of 1 host;", p.stderr)


if __name__ == "__main__":
    unittest.main()
