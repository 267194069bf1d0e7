"""host.py -- what machine and toolchain a run was measured on (host.json) and the
readable host slug of the run folder, e.g. linux-x86_64-amd-epyc-2c.

Linux reads /proc and /sys; macOS has neither and answers through sysctl and
sw_vers.  Every probe that fails leaves its field null rather than failing the run.

What tells hosts apart beyond the CPU: the page size (16 KiB on Apple silicon:
each live coroutine stack keeps at least one page resident), the CPU frequency
policy (Linux cpufreq: driver, governor, limits, boost; macOS: Low Power Mode),
and emulation.  A run whose programs are translated or emulated measures the
translator as much as the code: Rosetta 2 (macOS, sysctl.proc_translated = 1)
and qemu-user (Linux: the kernel's own architecture, /proc/sys/kernel/arch, or
its /proc/cpuinfo, is not the one uname reports, as under binfmt_misc), or
ASYNCSTYLES_EMULATION naming one the probes cannot see.  Such a run's slug ends
in -emulated, and `make hosts` never draws it beside native runs.
"""
import os
import platform
import re
import shutil
import subprocess

from ..catalog import catalog  # build_dir: where make deps wrote deps.env
from ..core import paths

ROOT = paths.ROOT
DEFAULT_THREADPOOL = 4   # libuv's default when UV_THREADPOOL_SIZE is unset
MAX_THREADPOOL = 1024    # libuv >= 1.30 (128 before)


def threadpool_size(raw):
    """The threadpool size libuv uses for UV_THREADPOOL_SIZE=raw (None: unset), by
    the rule of its src/threadpool.c: nthreads, an unsigned int, = atoi(raw);
    0 becomes 1; above MAX_THREADPOOL it is MAX_THREADPOOL.  atoi is
    (int) strtol(raw): beyond a 64-bit long it stops at LONG_MAX or LONG_MIN,
    then keeps its low 32 bits.  So "abc" and "0" give 1, a negative value
    (huge as an unsigned int) 1024, 2^64 + 1 (LONG_MAX, -1 as an int) 1024,
    -2^64 (LONG_MIN, 0 as an int) 1; tests/hostile_runner.bats counts libuv's
    threads for these."""
    if raw is None:
        return DEFAULT_THREADPOOL
    m = re.match(r"[ \t\n\v\f\r]*([+-]?[0-9]+)", raw)    # what atoi reads
    n = int(m.group(1)) if m else 0
    n = max(-2 ** 63, min(n, 2 ** 63 - 1))                 # strtol's range (LP64)
    n %= 2 ** 32                                           # to int, then unsigned int
    return 1 if n == 0 else min(n, MAX_THREADPOOL)


def open_file_limits():
    """(soft, hard) RLIMIT_NOFILE of the runner, which its programs inherit; None
    for an unlimited one, (None, None) where resource is missing."""
    try:
        import resource
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (ImportError, OSError, ValueError):
        return None, None
    inf = resource.RLIM_INFINITY
    return (None if soft == inf else soft), (None if hard == inf else hard)


def _out(argv, timeout=10, lines=False):
    """First line of a command's stdout (all of it with lines), or None when it
    is missing or fails."""
    try:
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           timeout=timeout, cwd=ROOT)
    except (OSError, subprocess.SubprocessError):
        return None
    if p.returncode != 0:
        return None
    text = p.stdout.decode("utf-8", "replace").strip()
    if lines:
        return text or None
    return text.splitlines()[0].strip() if text else None


def _read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return None


def _deps_env():
    """What `make deps` recorded in build/deps.env (PYTHON, GO, NODE)."""
    env = {}
    text = _read(os.path.join(catalog.build_dir(), "deps.env")) or ""
    for line in text.splitlines():
        if "=" in line:
            k, v = line.split("=", 1)
            env[k.strip()] = v.strip()
    return env


def tool(name):
    """Path of GO or NODE: the environment, then build/deps.env, then PATH."""
    var = name.upper()
    for cand in (os.environ.get(var), _deps_env().get(var), shutil.which(name.lower())):
        if cand and shutil.which(cand):
            return shutil.which(cand)
    return None


def cpu_model():
    system = platform.system()
    if system == "Darwin":
        return _out(["sysctl", "-n", "machdep.cpu.brand_string"])
    text = _read("/proc/cpuinfo") or ""
    for key in ("model name", "Model", "Hardware", "cpu model"):
        m = re.search(r"^%s\s*:\s*(.+)$" % re.escape(key), text, re.M)
        if m:
            return m.group(1).strip()
    # aarch64 kernels often print no model name; lscpu knows the core type.
    return _out(["sh", "-c", "lscpu | sed -n 's/^Model name: *//p'"]) or platform.processor() or None


def memory_bytes():
    if platform.system() == "Darwin":
        v = _out(["sysctl", "-n", "hw.memsize"])
        return int(v) if v and v.isdigit() else None
    m = re.search(r"^MemTotal:\s+(\d+) kB", _read("/proc/meminfo") or "", re.M)
    return int(m.group(1)) * 1024 if m else None


def os_name():
    if platform.system() == "Darwin":
        v = _out(["sw_vers", "-productVersion"])
        return "macOS %s" % v if v else "macOS"
    m = re.search(r'^PRETTY_NAME="?([^"\n]+)"?', _read("/etc/os-release") or "", re.M)
    return m.group(1) if m else platform.system()


def governor():
    v = _read("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")
    return v.strip() if v else None


def page_size():
    """The kernel's page size in bytes (4096, 16384 on Apple silicon, 65536 on
    some aarch64 kernels), or None."""
    try:
        n = os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None
    return n if isinstance(n, int) and n > 0 else None


CPUFREQ = "/sys/devices/system/cpu/cpu0/cpufreq"


def cpu_frequency_policy(system=None, read=None, out=None):
    """What decides the clock: on Linux cpufreq's driver, governor, energy
    preference, limits in kHz and whether boost (turbo) is on; on macOS whether
    Low Power Mode is on (pmset).  None where nothing is readable (a VM without
    cpufreq, say).  read(path) and out(argv) are the probes (fakes in tests)."""
    system = system or platform.system()
    read = read or _read
    out = out or _out

    def text(path):
        v = read(path)
        return v.strip() if v and v.strip() else None

    def number(path):
        v = text(path)
        return int(v) if v and v.isdigit() else None

    if system == "Darwin":
        m = re.search(r"^\s*lowpowermode\s+(\d)", out(["pmset", "-g"], lines=True) or "", re.M)
        return {"low_power_mode": m.group(1) == "1"} if m else None
    policy = {
        "driver": text(CPUFREQ + "/scaling_driver"),
        "governor": text(CPUFREQ + "/scaling_governor"),
        "energy_performance_preference": text(CPUFREQ + "/energy_performance_preference"),
        "min_khz": number(CPUFREQ + "/scaling_min_freq"),
        "max_khz": number(CPUFREQ + "/scaling_max_freq"),
        "hardware_max_khz": number(CPUFREQ + "/cpuinfo_max_freq"),
    }
    boost = text("/sys/devices/system/cpu/cpufreq/boost")
    no_turbo = text("/sys/devices/system/cpu/intel_pstate/no_turbo")
    policy["boost"] = (boost == "1") if boost in ("0", "1") else \
        (no_turbo == "0") if no_turbo in ("0", "1") else None
    return policy if any(v is not None for v in policy.values()) else None


def rosetta_translated(system=None, out=None):
    """True when this process runs under Rosetta 2 (an x86_64 process on Apple
    silicon: sysctl.proc_translated = 1), False when native, None off macOS or
    where the key is missing (an Intel Mac, which has no Rosetta)."""
    if (system or platform.system()) != "Darwin":
        return None
    v = (out or _out)(["sysctl", "-n", "sysctl.proc_translated"])
    return {"1": True, "0": False}.get(v)


# Architectures a kernel runs natively without emulation (32-bit compat modes).
_COMPAT = {"x86_64": {"x86_64", "i386", "i486", "i586", "i686"},
           "aarch64": {"aarch64", "arm64", "armv7l", "armv8l", "armv7", "armv8"},
           "arm64": {"aarch64", "arm64", "armv7l", "armv8l"}}


def _cpuinfo_arch(text):
    """The architecture /proc/cpuinfo describes: x86 has vendor_id and flags,
    ARM has 'CPU implementer'; None when it cannot tell."""
    if re.search(r"^CPU implementer\s*:", text, re.M):
        return "aarch64"
    if re.search(r"^vendor_id\s*:", text, re.M) and re.search(r"^flags\s*:", text, re.M):
        return "x86_64"
    return None


def emulation(system=None, machine=None, read=None, out=None, env=None):
    """How this process is translated or emulated, or None when it runs
    natively: 'rosetta', 'qemu-user (aarch64 on a x86_64 kernel)', or the
    value of ASYNCSTYLES_EMULATION."""
    env = os.environ if env is None else env
    if env.get("ASYNCSTYLES_EMULATION"):
        return env["ASYNCSTYLES_EMULATION"]
    system = system or platform.system()
    if system == "Darwin":
        return "rosetta" if rosetta_translated(system, out) else None
    if system != "Linux":
        return None
    read = read or _read
    machine = machine or platform.machine()
    # uname is what the emulator says; the kernel's arch and cpuinfo are the host's.
    kernel = (read("/proc/sys/kernel/arch") or "").strip() or _cpuinfo_arch(read("/proc/cpuinfo") or "")
    if kernel and machine and machine not in _COMPAT.get(kernel, {kernel}):
        return "qemu-user (%s on a %s kernel)" % (machine, kernel)
    return None


def machine():
    m = platform.machine()
    return "arm64" if m in ("arm64", "aarch64") and platform.system() == "Darwin" else m


def slug(model=None, cores=None, emulated=None):
    """linux-x86_64-amd-epyc-2c: OS, architecture, CPU model words, core count;
    -emulated at the end when emulated (a truthy value) says the run is."""
    system = "macos" if platform.system() == "Darwin" else platform.system().lower()
    model = (model if model is not None else cpu_model()) or "unknown-cpu"
    cores = cores if cores is not None else os.cpu_count()
    words = model.lower()
    words = re.sub(r"\((r|tm|c)\)", " ", words)
    words = re.sub(r"@.*$", " ", words)                       # clock speed
    words = re.sub(r"\b(cpu|processor|\d+-core|with .*)\b", " ", words)
    words = re.sub(r"[^a-z0-9]+", "-", words).strip("-")
    parts = [w for w in words.split("-") if w][:5]
    return "-".join([system, machine()] + parts + ["%sc" % cores] + (["emulated"] if emulated else []))


def node_versions(node):
    """(node version, its libuv version) from the Node executable, or (None, None)."""
    if not node:
        return None, None
    v = _out([node, "-p", "process.version + ' ' + process.versions.uv"])
    if not v or " " not in v:
        return None, None
    a, b = v.split(" ", 1)
    return a, b


# What a run builds and runs from (DESIGN section 2): a file here that git does
# not track (a new workload not yet committed) makes the run's commit dirty, as
# a change to a tracked file anywhere does.  Untracked files elsewhere (notes,
# results/, which git ignores anyway) do not.
SOURCE_PATHS = ("Makefile", "c", "go", "node", "rust", "runner", "runtimes", "fixtures", "scripts")


def git_commit():
    """HEAD's full hash, with -dirty when a tracked file differs from it or a
    file that git does not track (and does not ignore) is in SOURCE_PATHS;
    None outside a git checkout."""
    c = _out(["git", "rev-parse", "HEAD"])
    if not c:
        return None
    dirty = (_out(["git", "status", "--porcelain", "--untracked-files=no"])
             or _out(["git", "status", "--porcelain", "--untracked-files=all", "--"]
                     + list(SOURCE_PATHS)))
    return c + ("-dirty" if dirty else "")


def info(slug_override=None):
    """The host.json dict."""
    model = cpu_model()
    cores = os.cpu_count()
    go = tool("go")
    node = tool("node")
    node_v, node_uv = node_versions(node)
    cc = os.environ.get("CC") or "cc"
    nofile = open_file_limits()
    emulated = emulation()
    return {
        "slug": slug_override or slug(model, cores, emulated),
        "cpu_model": model,
        "cores": cores,
        "memory_bytes": memory_bytes(),
        "os": os_name(),
        "kernel": "%s %s" % (platform.system(), platform.release()),
        "machine": platform.machine(),
        "compiler": _out([cc, "--version"]),
        "libuv": _out(["pkg-config", "--modversion", "libuv"]),
        "go": _out([go, "version"]) if go else None,
        "node": node_v,
        "node_libuv": node_uv,
        # What libuv uses, and the variable as given (None when unset).
        "uv_threadpool_size": threadpool_size(os.environ.get("UV_THREADPOOL_SIZE")),
        "uv_threadpool_size_env": os.environ.get("UV_THREADPOOL_SIZE"),
        "nofile_soft": nofile[0],
        "nofile_hard": nofile[1],
        "governor": governor(),
        "cpu_frequency_policy": cpu_frequency_policy(),
        "page_size": page_size(),
        "rosetta_translated": rosetta_translated(),
        # Not null: the run is translated or emulated, its timings are not the host's.
        "emulation": emulated,
        "python": platform.python_version(),
        "git_commit": git_commit(),
    }


if __name__ == "__main__":
    import json
    print(json.dumps(info(), indent=2))
