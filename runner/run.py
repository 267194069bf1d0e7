"""run.py -- the alternating runner: measure the catalog's variants, then summarise,
chart and report.

Usage:
  run.py --profile {quick,default,full,selftest} [--rounds R] [--warmup-rounds W]
         [--filter REGEX]... [--iterations N] [--out DIR] [--host SLUG] [--seed S]
         [--timeout S] [--catalog PATH] [--node PATH|none]
  run.py --render RUNDIR      redraw summaries, charts, exports and REPORT.md from
                              RUNDIR/samples.csv (run.json and host.json when present)
  run.py --hosts [DIR]        cross-host charts from every run under DIR (default
                              results) into DIR/hosts/

Each round runs every selected variant once, as a fresh process, in an order
shuffled per round with random.Random(seed); W warm-up rounds come first and are
not recorded in samples.csv.  Every sample is appended to samples.csv as it
arrives, so Ctrl-C keeps what was measured (the run is marked incomplete and
the runner exits 130).  A new run folder is made under OUT/<host>/<UTC stamp>/;
an existing one is never overwritten, and OUT/latest points at the newest.

Exit codes: 0 the run finished (failed runs are recorded, not fatal); 1 the
charts could not be drawn; 2 usage error; 3 environment error (unwritable
output folder, a program not built, a bad catalog); 130 interrupted.
"""
import argparse
import csv
import datetime
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tests"))

import catalog as catalog_mod  # noqa: E402
import export  # noqa: E402
import host as host_mod  # noqa: E402
import report  # noqa: E402
import summary as sm  # noqa: E402
from files import write_atomic  # noqa: E402
from check_result import problem as contract_problem  # noqa: E402  (the one contract check)

PLOTS = os.path.join(ROOT, "plots")
# (chart script, file prefix, title in REPORT.md), drawn per workload.
# The last field is the summary field a variant needs to appear on the chart.
CHARTS = [("ms_chart.py", "ms", "Median time with 95% CI", "median_ms"),
          ("ratio_chart.py", "ratio", "Ratio to the C callback of the same mode", "ratio"),
          ("distribution_chart.py", "distribution", "Every sample", "median_ms"),
          ("memory_chart.py", "memory", "Peak memory", "peak_rss_kb")]


class UsageError(Exception):
    pass


class EnvError(Exception):
    pass


def die(code, msg):
    print("run.py: %s" % msg, file=sys.stderr)
    sys.exit(code)


# ---------------------------------------------------------------- selection


def parse_args(argv):
    p = argparse.ArgumentParser(prog="run.py", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("--profile", help="catalog profile (quick, default, full, selftest)")
    p.add_argument("--rounds", type=int, help="measured rounds (overrides the profile)")
    p.add_argument("--warmup-rounds", type=int, help="unrecorded warm-up rounds")
    p.add_argument("--filter", action="append", default=[], metavar="REGEX",
                   help="keep variants whose id matches (repeatable: any may match)")
    p.add_argument("--iterations", type=int, help="N per program run")
    p.add_argument("--out", default=os.path.join(ROOT, "results"), help="results folder")
    p.add_argument("--host", help="host slug for the run folder (default: detected)")
    p.add_argument("--seed", type=int, help="shuffle seed (default: from the clock, recorded)")
    p.add_argument("--timeout", type=float, help="seconds per program run")
    p.add_argument("--catalog", default=catalog_mod.PATH, help="catalog file (tests use a fake one)")
    p.add_argument("--node", help="Node.js executable, or 'none' to skip Node variants")
    p.add_argument("--render", metavar="RUNDIR", help="redraw a run folder from its samples.csv")
    p.add_argument("--hosts", nargs="?", const=os.path.join(ROOT, "results"), metavar="DIR",
                   help="draw the cross-host charts from every run under DIR")
    a = p.parse_args(argv)
    if a.render or a.hosts:
        return a
    if not a.profile:
        raise UsageError("say which profile, e.g. --profile quick (or --render RUNDIR)")
    for name in ("rounds", "iterations"):
        v = getattr(a, name)
        if v is not None and v < 1:
            raise UsageError("--%s must be a positive integer, got %d" % (name, v))
    if a.warmup_rounds is not None and a.warmup_rounds < 0:
        raise UsageError("--warmup-rounds must be 0 or more, got %d" % a.warmup_rounds)
    # float() takes "nan" and "inf": nan made every run an instant timeout.
    if a.timeout is not None and not (0 < a.timeout < float("inf")):
        raise UsageError("--timeout must be a positive number of seconds, got %g" % a.timeout)
    if a.host is not None and not re.match(r"^[A-Za-z0-9][A-Za-z0-9._-]*$", a.host):
        raise UsageError("--host %r: use letters, digits, '.', '_' and '-' only" % a.host)
    for f in a.filter:
        try:
            re.compile(f)
        except re.error as e:
            raise UsageError("--filter %r is not a regular expression: %s" % (f, e))
    return a


def load_catalog(path):
    try:
        return catalog_mod.load(path)
    except FileNotFoundError:
        raise EnvError("catalog %s not found" % path)
    except (ValueError, KeyError) as e:
        raise EnvError("catalog %s is broken: %s" % (path, e))


def find_node(option):
    if option == "none":
        return None
    if option:
        found = shutil.which(option)
        if not found:
            raise EnvError("--node %s is not an executable (or say --node none)" % option)
        return found
    return host_mod.tool("node")


def select(cat, profile, filters, node):
    """(selected variants, lines about skipped ones)."""
    if profile not in cat.get("profiles", {}):
        raise UsageError("unknown profile %r; the catalog has %s"
                         % (profile, ", ".join(sorted(cat.get("profiles", {})))))
    chosen = catalog_mod.variants(cat, profile)
    if filters:
        chosen = [v for v in chosen if any(re.search(f, v["id"]) for f in filters)]
    skipped = []
    if node is None:
        need = [v["id"] for v in chosen if any("{node}" in a for a in v["argv"])]
        if need:
            skipped.append("%d Node variant%s (no node found: install Node.js or set NODE): %s"
                           % (len(need), "" if len(need) == 1 else "s", ", ".join(need)))
        chosen = [v for v in chosen if v["id"] not in need]
    if not chosen:
        if skipped:
            raise UsageError("nothing left to run: skipped %s" % "; ".join(skipped))
        raise UsageError("no variant of profile %r matches %s" % (
            profile, " or ".join(repr(f) for f in filters) if filters else "(none left)"))
    return chosen, skipped


def command(v, node, n, file_path, expect):
    """The argv list of one run: the catalog's command plus the contract's flags."""
    argv = catalog_mod.argv(v, node=node or "node")
    if os.sep in argv[0] and not os.path.isabs(argv[0]):
        argv[0] = os.path.join(ROOT, argv[0])
    argv += ["--iterations", str(n), "--file", file_path, "--expect", expect, "--warmup", "0"]
    if v["mode"] == "bounded":
        argv += ["--concurrency", str(v["concurrency"])]
    return argv


def check_programs(commands):
    missing = sorted({c[0] for c in commands
                      if not (os.path.isfile(c[0]) and os.access(c[0], os.X_OK))
                      and not shutil.which(c[0])})
    if missing:
        raise EnvError("not built or not executable: %s (run `make all` first)"
                       % ", ".join(os.path.relpath(m, ROOT) if os.path.isabs(m) else m
                                   for m in missing))


# ---------------------------------------------------------------- one run


class Result:
    __slots__ = ("exit_code", "signal", "timed_out", "stdout", "stderr", "wall_ns",
                 "user_us", "sys_us", "peak_rss_kb", "spawn_error")

    def __init__(self):
        self.exit_code = self.signal = self.wall_ns = None
        self.user_us = self.sys_us = self.peak_rss_kb = None
        self.timed_out = False
        self.spawn_error = None
        self.stdout = self.stderr = b""


def _maxrss_kb(maxrss):
    # ru_maxrss is KiB on Linux, bytes on macOS.
    return maxrss // 1024 if sys.platform == "darwin" else maxrss


LAUNCH_SRC = os.path.join(HERE, "launch.c")


def build_launcher(build_dir):
    """Compiles runner/launch.c into BUILD/runner/launch when missing or stale.
    Returns (path, None) or (None, why it could not be built)."""
    exe = os.path.join(build_dir, "runner", "launch")
    try:
        if os.path.getmtime(exe) >= os.path.getmtime(LAUNCH_SRC):
            return exe, None
    except OSError:
        pass
    cc = os.environ.get("CC") or "cc"
    try:
        os.makedirs(os.path.dirname(exe), exist_ok=True)
        p = subprocess.run([cc, "-std=c11", "-O2", "-Wall", "-Wextra", "-o", exe, LAUNCH_SRC],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    except OSError as e:
        return None, "cannot run %s: %s" % (cc, e.strerror or e)
    if p.returncode != 0:
        return None, "%s failed: %s" % (cc, p.stdout.decode("utf-8", "replace").strip()[:200])
    return exe, None


def run_once(argv, timeout_s, launcher=None):
    """Runs argv as a fresh process in its own process group, stdout and stderr to
    temporary files (no pipe can fill up).  With a launcher (runner/launch.c) the
    program is forked from that small process, which reports the program's wall
    time and wait4 rusage; without one the runner forks it and waits with wait4
    itself (then peak RSS includes the runner's own footprint on Linux).  A timer
    kills the whole group when timeout_s passes."""
    res = Result()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.TemporaryFile() as rep:
        lock = threading.Lock()
        state = {"exited": False}
        full = ([launcher, str(rep.fileno())] + argv) if launcher else argv
        t0 = time.monotonic_ns()
        try:
            p = subprocess.Popen(full, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                 cwd=ROOT, start_new_session=True,
                                 pass_fds=(rep.fileno(),) if launcher else ())
        except OSError as e:
            res.spawn_error = "cannot start %s: %s" % (argv[0], e.strerror or e)
            return res

        def on_timeout():
            with lock:
                if not state["exited"]:
                    res.timed_out = True
                    _killpg(p.pid)
        timer = threading.Timer(timeout_s, on_timeout)
        timer.daemon = True
        timer.start()
        try:
            if hasattr(os, "waitid"):
                # Wait for the exit but leave the zombie, so its pid (and group id)
                # cannot be reused while the group is cleaned up below.
                os.waitid(os.P_PID, p.pid, os.WEXITED | os.WNOWAIT)
            t1 = time.monotonic_ns()
            with lock:
                state["exited"] = True
            timer.cancel()
            _killpg(p.pid)          # leftovers of the program (forked helpers)
            _, status, ru = os.wait4(p.pid, 0)
            if not hasattr(os, "waitid"):
                t1 = time.monotonic_ns()
        except BaseException:
            timer.cancel()
            _killpg(p.pid)
            try:
                os.wait4(p.pid, 0)
            except ChildProcessError:
                pass
            p.returncode = -9
            raise
        p.returncode = _exit_code(status)
        res.wall_ns = t1 - t0
        res.user_us = int(round(ru.ru_utime * 1e6))
        res.sys_us = int(round(ru.ru_stime * 1e6))
        res.peak_rss_kb = _maxrss_kb(ru.ru_maxrss)
        if launcher and res.timed_out:
            # What wait4 saw is the killed launcher's, not the program's.
            res.user_us = res.sys_us = res.peak_rss_kb = None
        if launcher and not res.timed_out:
            rep.seek(0)
            text = rep.read().decode("utf-8", "replace").strip()
            fields = dict(kv.split("=", 1) for kv in text.split() if "=" in kv)
            if text.startswith("error="):
                res.spawn_error = "launcher: %s" % text[len("error="):]
            elif "status" in fields:
                status = int(fields["status"])
                res.wall_ns = int(fields["wall_ns"])
                res.user_us, res.sys_us = int(fields["user_us"]), int(fields["sys_us"])
                res.peak_rss_kb = _maxrss_kb(int(fields["maxrss"]))
        if os.WIFSIGNALED(status):
            res.signal = os.WTERMSIG(status)
            res.exit_code = -res.signal
        else:
            res.exit_code = os.WEXITSTATUS(status)
        out.seek(0)
        err.seek(0)
        res.stdout = out.read(1 << 20)
        res.stderr = err.read(1 << 16)
    return res


def _exit_code(status):
    """A wait status as Popen.returncode (os.waitstatus_to_exitcode, which is
    Python 3.9+; scripts/deps.sh accepts 3.8)."""
    return -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)


def _killpg(pid):
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _first_line(data):
    text = data.decode("utf-8", "replace").strip()
    return text.splitlines()[0][:300] if text else ""


def classify(v, n, expect, res):
    """(status, parsed JSON line or None, reason or None) of one run."""
    if res.spawn_error:
        return "failed", None, res.spawn_error
    if res.timed_out:
        return "timeout", None, "no result within the timeout; process group killed"
    if res.signal is not None:
        name = signal.Signals(res.signal).name if res.signal in signal.valid_signals() else res.signal
        why = _first_line(res.stderr)
        return "crashed", None, "killed by %s%s" % (name, ": " + why if why else "")
    if res.exit_code != 0:
        return "failed", None, "exit %d: %s" % (res.exit_code,
                                               _first_line(res.stderr) or "(nothing on stderr)")
    line = res.stdout.decode("utf-8", "replace")
    why = contract_problem(v, n, line, expect, v["concurrency"])
    rec = None
    try:
        rec = json.loads(line) if line.strip() and "\n" not in line.strip() else None
        if not isinstance(rec, dict):
            rec = None
    except ValueError:
        rec = None
    if why:
        return "invalid", rec, why
    return "ok", rec, None


def sample_row(rnd, order, v, n, status, rec, res):
    rec = rec or {}
    return {"round": rnd, "order": order, "variant": v["id"], "workload": v["workload"],
            "lang": v["lang"], "style": v["style"], "mode": v["mode"], "backend": v["backend"],
            "iterations": n, "concurrency": v["concurrency"], "status": status,
            "exit_code": res.exit_code, "elapsed_ns": _int_or_none(rec.get("elapsed_ns")),
            "wall_ns": res.wall_ns, "user_us": res.user_us, "sys_us": res.sys_us,
            "peak_rss_kb": res.peak_rss_kb, "ok": _int_or_none(rec.get("ok")),
            "bytes": _int_or_none(rec.get("bytes"))}


def _int_or_none(x):
    return x if isinstance(x, int) and not isinstance(x, bool) else None


# ---------------------------------------------------------------- run folder


def utc_stamp():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")


def make_run_folder(out, host_slug):
    """Creates OUT/<host>/<stamp>/ (never an existing one), or raises EnvError."""
    parent = os.path.join(out, host_slug)
    try:
        os.makedirs(parent, exist_ok=True)
    except OSError as e:
        raise EnvError("cannot create the results folder %s: %s (choose another with --out)"
                       % (parent, e.strerror or e))
    if not os.access(parent, os.W_OK | os.X_OK):
        raise EnvError("results folder %s is not writable (fix its permissions or use --out DIR)"
                       % parent)
    stamp = utc_stamp()
    for i in range(1, 100):
        name = stamp if i == 1 else "%s-%d" % (stamp, i)
        path = os.path.join(parent, name)
        try:
            os.mkdir(path)
        except FileExistsError:
            continue
        except OSError as e:
            raise EnvError("cannot create %s: %s (use --out DIR)" % (path, e.strerror or e))
        os.mkdir(os.path.join(path, "charts"))
        return path, name
    raise EnvError("too many runs in the same second under %s" % parent)


def point_latest(out, rundir):
    """OUT/latest -> <host>/<stamp>, a relative symlink replaced atomically."""
    link = os.path.join(out, "latest")
    tmp = os.path.join(out, ".latest.%d" % os.getpid())
    try:
        os.symlink(os.path.relpath(rundir, out), tmp)
        os.replace(tmp, link)
    except OSError as e:
        print("run.py: could not point %s at the run: %s" % (link, e), file=sys.stderr)


def shown(path):
    """A path as the user should see it: relative when under the current folder."""
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel


def write_json(path, obj):
    write_atomic(path, json.dumps(obj, indent=2) + "\n")


class Progress:
    """One status line, rewritten in place on a terminal, plain lines otherwise."""

    def __init__(self, total):
        self.total = total
        self.done = 0
        self.start = time.monotonic()
        self.tty = sys.stderr.isatty()
        self.width = 0

    def show(self, text):
        elapsed = time.monotonic() - self.start
        eta = ""
        if self.done:
            eta = " eta %s" % _clock(elapsed / self.done * (self.total - self.done))
        line = "[%d/%d %s%s] %s" % (self.done, self.total, _clock(elapsed), eta, text)
        if self.tty:
            pad = max(0, self.width - len(line))
            sys.stderr.write("\r" + line + " " * pad)
            self.width = len(line)
        else:
            sys.stderr.write(line + "\n")
        sys.stderr.flush()

    def end(self):
        if self.tty and self.width:
            sys.stderr.write("\n")
            sys.stderr.flush()


def _clock(s):
    s = int(s)
    return "%d:%02d" % (s // 60, s % 60)


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def measure(args, cat, chosen, skipped, node):
    prof = dict(cat["profiles"][args.profile])
    rounds = args.rounds or prof["rounds"]
    warmups = prof.get("warmup_rounds", 0) if args.warmup_rounds is None else args.warmup_rounds
    n = args.iterations or prof["iterations"]
    timeout_s = args.timeout or prof["timeout_s"]
    seed = args.seed if args.seed is not None else time.time_ns() % (2 ** 32)
    defaults = cat.get("defaults", {})
    file_path = os.path.join(ROOT, defaults.get("file", "fixtures/text.txt"))
    expect = defaults.get("expect", "Hello, world")
    if not os.path.isfile(file_path):
        raise EnvError("fixture %s is missing (it ships with the project)" % file_path)

    commands = {v["id"]: command(v, node, n, file_path, expect) for v in chosen}
    check_programs(commands.values())
    out = os.path.abspath(args.out)
    hinfo = host_mod.info(args.host)
    rundir, stamp = make_run_folder(out, hinfo["slug"])
    launcher, why = build_launcher(catalog_mod.build_dir())
    if launcher is None:
        print("run.py: warning: no launcher (%s); peak RSS will include the runner's own "
              "memory" % why, file=sys.stderr)
    write_json(os.path.join(rundir, "host.json"), hinfo)
    for line in skipped:
        print("run.py: skipped %s" % line, file=sys.stderr)

    rng = random.Random(seed)
    plan = []
    for i in range(warmups + rounds):
        order = [v["id"] for v in chosen]
        rng.shuffle(order)
        plan.append(order)
    run = {"profile": args.profile, "catalog": os.path.relpath(os.path.abspath(args.catalog), ROOT),
           "stamp": stamp, "seed": seed, "rounds": rounds, "warmup_rounds": warmups,
           "iterations": n, "timeout_s": timeout_s,
           "file": os.path.relpath(file_path, ROOT), "expect": expect,
           "variants": [v["id"] for v in chosen], "baselines": cat.get("baselines", {}),
           "skipped": skipped, "filters": args.filter,
           "commands": {k: [os.path.relpath(a, ROOT) if os.path.isabs(a) and a.startswith(ROOT)
                            else a for a in c] for k, c in commands.items()},
           "warmup_order": plan[:warmups], "order": plan[warmups:],
           "started_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(),
           "launcher": "runner/launch.c" if launcher else None,
           "complete": False, "rounds_done": 0, "failures": []}
    write_json(os.path.join(rundir, "run.json"), run)
    print("run.py: %d variants x %d rounds (+%d warm-up), N=%d, seed %d -> %s"
          % (len(chosen), rounds, warmups, n, seed, shown(rundir)), file=sys.stderr)

    # Ctrl-C (and a plain kill) end the run cleanly, even when the shell started us
    # with SIGINT ignored, as non-interactive shells do for background jobs.
    signal.signal(signal.SIGINT, _interrupt)
    signal.signal(signal.SIGTERM, _interrupt)
    by_id = {v["id"]: v for v in chosen}
    runtimes = {}
    progress = Progress(len(plan) * len(chosen))
    interrupted = False
    with open(os.path.join(rundir, "samples.csv"), "w", newline="", encoding="utf-8") as sf, \
            open(os.path.join(rundir, "runs.jsonl"), "w", encoding="utf-8") as lf:
        writer = csv.DictWriter(sf, fieldnames=sm.SAMPLE_COLUMNS, lineterminator="\n")
        writer.writeheader()
        sf.flush()
        try:
            for i, order in enumerate(plan):
                warm = i < warmups
                rnd = i + 1 - warmups
                label = ("warm-up %d/%d" % (i + 1, warmups)) if warm else ("round %d/%d" % (rnd, rounds))
                for pos, vid in enumerate(order, start=1):
                    v = by_id[vid]
                    if progress.tty or pos == 1:
                        progress.show("%s  %s" % (label, vid))
                    res = run_once(commands[vid], timeout_s, launcher)
                    status, rec, reason = classify(v, n, expect, res)
                    progress.done += 1
                    if rec and isinstance(rec.get("runtime"), str):
                        runtimes[vid] = rec["runtime"]
                    log = {"round": ("w%d" % (i + 1)) if warm else rnd, "order": pos,
                           "variant": vid, "status": status, "exit_code": res.exit_code,
                           "wall_ns": res.wall_ns, "reason": reason, "line": rec,
                           "stderr": _first_line(res.stderr) or None}
                    lf.write(json.dumps(log) + "\n")
                    lf.flush()
                    if reason:
                        run["failures"].append({k: log[k] for k in
                                                ("round", "variant", "status", "exit_code", "reason")})
                        if not progress.tty:
                            print("run.py: %s %s: %s" % (vid, status, reason), file=sys.stderr)
                    if not warm:
                        writer.writerow(sample_row(rnd, pos, v, n, status, rec, res))
                        sf.flush()
                if not warm:
                    run["rounds_done"] = rnd
        except KeyboardInterrupt:
            interrupted = True
    progress.end()
    run["complete"] = not interrupted
    run["runtimes"] = runtimes
    run["finished_utc"] = datetime.datetime.now(datetime.timezone.utc).isoformat()
    write_json(os.path.join(rundir, "run.json"), run)
    point_latest(out, rundir)
    if interrupted:
        print("run.py: interrupted after %d complete round%s; kept the samples in %s"
              % (run["rounds_done"], "" if run["rounds_done"] == 1 else "s",
                 shown(rundir)), file=sys.stderr)
    return rundir, interrupted


# ---------------------------------------------------------------- render


def render(rundir, out_root=None, quiet=False):
    """Summaries, exports, charts and REPORT.md from RUNDIR/samples.csv.  Returns
    (summary dict, True when every chart was drawn)."""
    rundir = os.path.realpath(rundir)       # results/latest is a symlink
    samples_path = os.path.join(rundir, "samples.csv")
    if not os.path.isfile(samples_path):
        raise EnvError("%s has no samples.csv: not a run folder" % rundir)
    try:
        samples = sm.read_samples(samples_path)
    except ValueError as e:
        raise EnvError(str(e))
    run = _read_json(os.path.join(rundir, "run.json")) or {}
    hinfo = _read_json(os.path.join(rundir, "host.json")) or {}
    if not hinfo.get("slug"):
        hinfo["slug"] = os.path.basename(os.path.dirname(os.path.abspath(rundir)))
    if not run:
        # samples.csv alone: recover what it can tell.
        run = {"stamp": os.path.basename(os.path.abspath(rundir)),
               "rounds": max([s["round"] for s in samples] or [0]),
               "iterations": samples[0]["iterations"] if samples else None,
               "complete": None, "failures": []}
    baselines = run.get("baselines") or load_catalog(catalog_mod.PATH).get("baselines", {})
    rows = sm.summarize(samples, baselines)
    summary = {"run": run, "host": hinfo, "variants": rows}
    write_json(os.path.join(rundir, "summary.json"), summary)
    sm.write_csv(rows, os.path.join(rundir, "summary.csv"))
    export.write(rundir, samples, rows, hinfo)

    charts_dir = os.path.join(rundir, "charts")
    os.makedirs(charts_dir, exist_ok=True)
    charts, all_drawn = [], True
    workloads = sorted({r["workload"] for r in rows})
    for script, prefix, title, needs in CHARTS:
        for w in workloads:
            if not any(r[needs] is not None for r in rows if r["workload"] == w):
                print("run.py: no %s chart for %s: no variant has a %s"
                      % (prefix, w, needs.replace("_", " ")), file=sys.stderr)
                continue
            rel = os.path.join("charts", "%s-%s.png" % (prefix, w))
            ok = draw(script, [rundir, "--workload", w, "-o", os.path.join(rundir, rel)])
            all_drawn &= ok
            if ok:
                charts.append(("%s (%s)" % (title, w), rel))
    # Cross-host charts when the results folder holds runs of more than one host.
    out_root = out_root or os.path.dirname(os.path.dirname(os.path.abspath(rundir)))
    if len(host_runs(out_root)) > 1:
        for rel in draw_hosts(out_root, charts_dir):
            charts.append(("Across hosts", os.path.relpath(rel, rundir)))
    failures = run.get("failures")
    if failures is None:
        failures = []
    write_atomic(os.path.join(rundir, "REPORT.md"), report.markdown(rundir, summary, charts, failures))
    return summary, all_drawn


def _read_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def draw(script, argv):
    """Runs one chart script with this same Python; True when it drew its PNG."""
    p = subprocess.run([sys.executable, os.path.join(PLOTS, script)] + argv,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        why = p.stderr.decode("utf-8", "replace").strip().splitlines()
        print("run.py: %s failed: %s" % (script, why[-1] if why else "exit %d" % p.returncode),
              file=sys.stderr)
        return False
    return True


def host_runs(out_root):
    """{host slug: [run folders with a summary.json, oldest first]} under out_root."""
    found = {}
    try:
        hosts = sorted(os.listdir(out_root))
    except OSError:
        return found
    for h in hosts:
        hdir = os.path.join(out_root, h)
        if h in ("latest", "hosts") or os.path.islink(hdir) or not os.path.isdir(hdir):
            continue
        runs = sorted(d for d in os.listdir(hdir)
                      if not os.path.islink(os.path.join(hdir, d))
                      and os.path.isfile(os.path.join(hdir, d, "summary.json")))
        if runs:
            found[h] = [os.path.join(hdir, d) for d in runs]
    return found


def draw_hosts(out_root, dest):
    """Cross-host charts of the newest run of each host into dest; the PNG paths drawn."""
    runs = host_runs(out_root)
    newest = [v[-1] for v in runs.values()]
    drawn = []
    for kind in ("ms", "ratio"):
        path = os.path.join(dest, "hosts-%s.png" % kind)
        if draw("hosts_chart.py", newest + ["--kind", kind, "-o", path]):
            drawn.append(path)
    return drawn


# ---------------------------------------------------------------- main


def main(argv):
    try:
        args = parse_args(argv)
        if args.hosts:
            runs = host_runs(args.hosts)
            if len(runs) < 2:
                raise EnvError("%s holds runs of %d host%s; the cross-host charts need two or more "
                               "(run on another machine, or label a run with --host)"
                               % (args.hosts, len(runs), "" if len(runs) == 1 else "s"))
            dest = os.path.join(args.hosts, "hosts")
            os.makedirs(dest, exist_ok=True)
            drawn = draw_hosts(args.hosts, dest)
            for p in drawn:
                print(p)
            return 0 if len(drawn) == 2 else 1
        if args.render:
            try:
                summary, ok = render(args.render)
            except OSError as e:
                raise EnvError("cannot write into %s: %s" % (args.render, e))
            print(sm.terminal_table(summary["variants"]))
            print("charts: %s" % os.path.join(args.render, "charts"))
            print("report: %s" % os.path.join(args.render, "REPORT.md"))
            return 0 if ok else 1
        cat = load_catalog(args.catalog)
        node = find_node(args.node)
        chosen, skipped = select(cat, args.profile, args.filter, node)
        rundir, interrupted = measure(args, cat, chosen, skipped, node)
    except OSError as e:
        # A full disk or a folder that became unwritable mid-run: the samples
        # written so far stay on disk (each row is flushed as it arrives).
        print("run.py: cannot write the results: %s" % e, file=sys.stderr)
        return 3
    except UsageError as e:
        print("run.py: %s" % e, file=sys.stderr)
        return 2
    except EnvError as e:
        print("run.py: %s" % e, file=sys.stderr)
        return 3
    try:
        summary, ok = render(rundir, out_root=os.path.abspath(args.out))
    except KeyboardInterrupt:
        return 130
    except EnvError as e:
        print("run.py: %s" % e, file=sys.stderr)
        return 3
    except OSError as e:
        print("run.py: cannot write the summary, charts or report in %s: %s "
              "(the samples are kept; redraw with: make plots RUN=%s)"
              % (shown(rundir), e, shown(rundir)), file=sys.stderr)
        return 3
    print(sm.terminal_table(summary["variants"]))
    rel = shown(rundir)
    print("charts: %s" % os.path.join(rel, "charts"))
    print("report: %s" % os.path.join(rel, "REPORT.md"))
    if interrupted:
        return 130
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
