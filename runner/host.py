"""host.py -- what machine and toolchain a run was measured on (host.json) and the
readable host slug of the run folder, e.g. linux-x86_64-amd-epyc-2c.

Linux reads /proc and /sys; macOS has neither and answers through sysctl and
sw_vers.  Every probe that fails leaves its field null rather than failing the run.
"""
import os
import platform
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import catalog  # noqa: E402  (build_dir: where make deps wrote deps.env)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_THREADPOOL = 4   # libuv's default when UV_THREADPOOL_SIZE is unset
MAX_THREADPOOL = 1024    # libuv >= 1.30 (128 before)


def threadpool_size(raw):
    """The threadpool size libuv uses for UV_THREADPOOL_SIZE=raw (None: unset), by
    the rule of its src/threadpool.c: nthreads, an unsigned int, = atoi(raw);
    0 becomes 1; above MAX_THREADPOOL it is MAX_THREADPOOL.  So "abc" and "0" give 1,
    and a negative value, huge as an unsigned int, gives 1024."""
    if raw is None:
        return DEFAULT_THREADPOOL
    m = re.match(r"[ \t\n\v\f\r]*([+-]?[0-9]+)", raw)    # what atoi reads
    n = int(m.group(1)) if m else 0
    n %= 2 ** 32                                           # int into unsigned int
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


def _out(argv, timeout=10):
    """First line of a command's stdout, or None when it is missing or fails."""
    try:
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           timeout=timeout, cwd=ROOT)
    except (OSError, subprocess.SubprocessError):
        return None
    if p.returncode != 0:
        return None
    text = p.stdout.decode("utf-8", "replace").strip()
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


def machine():
    m = platform.machine()
    return "arm64" if m in ("arm64", "aarch64") and platform.system() == "Darwin" else m


def slug(model=None, cores=None):
    """linux-x86_64-amd-epyc-2c: OS, architecture, CPU model words, core count."""
    system = "macos" if platform.system() == "Darwin" else platform.system().lower()
    model = (model if model is not None else cpu_model()) or "unknown-cpu"
    cores = cores if cores is not None else os.cpu_count()
    words = model.lower()
    words = re.sub(r"\((r|tm|c)\)", " ", words)
    words = re.sub(r"@.*$", " ", words)                       # clock speed
    words = re.sub(r"\b(cpu|processor|\d+-core|with .*)\b", " ", words)
    words = re.sub(r"[^a-z0-9]+", "-", words).strip("-")
    parts = [w for w in words.split("-") if w][:5]
    return "-".join([system, machine()] + parts + ["%sc" % cores])


def node_versions(node):
    """(node version, its libuv version) from the Node executable, or (None, None)."""
    if not node:
        return None, None
    v = _out([node, "-p", "process.version + ' ' + process.versions.uv"])
    if not v or " " not in v:
        return None, None
    a, b = v.split(" ", 1)
    return a, b


def git_commit():
    c = _out(["git", "rev-parse", "HEAD"])
    if not c:
        return None
    dirty = _out(["git", "status", "--porcelain", "--untracked-files=no"])
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
    return {
        "slug": slug_override or slug(model, cores),
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
        "python": platform.python_version(),
        "git_commit": git_commit(),
    }


if __name__ == "__main__":
    import json
    print(json.dumps(info(), indent=2))
