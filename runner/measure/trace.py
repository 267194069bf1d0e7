"""trace.py -- system calls per operation, counted by strace after the measured
rounds (never inside a timed sample).

For each variant of the run, on Linux when strace is on the PATH, two extra
runs of the program under `strace -f -c` (every thread, a count per system
call): one with N = N0 and one with N = T, the workload profile's
trace_iterations (a profile that names none traces none of the workload's
variants: the quick profile, so that tests stay fast).  N0 is 1, or K for a
bounded variant (its K workers, coroutine stacks included, are made in both
runs).  The system calls per operation are the difference divided by T - N0:
the program's start-up, set-up and exit make the same calls in both and
cancel.  strace slows a program down
by an order of magnitude, which is why this is done after the rounds, on a
small T, and why its times are never used; its counts are exact.

Each run's strace summary is kept in the run folder, strace/<variant>-n<N>.txt,
and trace.json holds per variant: T, the totals of both runs, the calls per
operation in all and per system call, or why the variant was not traced.
`run.py --no-trace` skips the whole step.
"""
import os
import re
import shutil
import sys

from . import launch
from ..analysis import rundir as rd

# strace -c's table: % time, seconds, usecs/call, calls, [errors,] syscall.
_ROW = re.compile(r"^\s*[0-9.]+\s+[0-9.]+\s+[0-9]+\s+([0-9]+)\s+(?:[0-9]+\s+)?([a-z_0-9]+)\s*$")


def available():
    """Why tracing cannot run here (one line), or None when it can."""
    if not sys.platform.startswith("linux"):
        return "system calls are counted with strace, on Linux only"
    if not shutil.which("strace"):
        return "strace is not installed (Debian: apt-get install strace)"
    return None


def parse(text):
    """{syscall: calls} of an strace -c summary (the total row left out)."""
    calls = {}
    for line in text.splitlines():
        m = _ROW.match(line)
        if m and m.group(2) != "total":
            calls[m.group(2)] = calls.get(m.group(2), 0) + int(m.group(1))
    return calls


def with_iterations(argv, n):
    """The command with its --iterations value replaced by n, no warm-up (the
    difference of two traced runs cancels a warm-up anyway: it only costs time)
    and one timed pass (P passes would count every call P times)."""
    out = list(argv)
    i = out.index("--iterations")
    out[i + 1] = str(n)
    if "--warmup" in out:
        out[out.index("--warmup") + 1] = "0"
    if "--passes" in out:
        out[out.index("--passes") + 1] = "1"
    return out


def traced(plan, vid, n):
    """The command of a traced run of vid at N = n: its invocation (the plan's)
    at n, no warm-up, one timed pass (with_iterations' rule), derived; a plan
    without invocations (a test's) has its command rewritten."""
    inv = (getattr(plan, "invocations", None) or {}).get(vid)
    if inv is None:
        return with_iterations(plan.commands[vid], n)
    return inv.replace(iterations=n, warmup=0, passes=1).argv()


def slug(vid):
    """A file name for a variant id."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", vid)


def per_op(one, many, n, n0=1):
    """Calls per operation from the counts of a run with N = n0 and one with N = n:
    {"total": .., "by_syscall": {name: ..}}, dropping calls that did not grow."""
    names = set(one) | set(many)
    by = {k: (many.get(k, 0) - one.get(k, 0)) / float(n - n0) for k in names}
    by = {k: v for k, v in by.items() if v > 0}
    return {"total": max(0.0, (sum(many.values()) - sum(one.values())) / float(n - n0)),
            # Most frequent first; a tie goes by name, so the order never depends
            # on the interpreter's string hashing.
            "by_syscall": dict(sorted(by.items(), key=lambda kv: (-kv[1], kv[0])))}


def trace_run(plan, cat, launcher, rundir):
    """Traces every variant of the plan into rundir (strace/, trace.json); returns
    the trace.json object.  Ctrl-C stops it, keeping what was traced."""
    why = available()
    if not any(s.get("trace_iterations") for s in plan.settings.values()):
        return {"variants": {}}     # nothing to trace in this profile
    out = {"tool": "strace -f -c", "method": "calls(N = T) - calls(N = N0), divided by T - N0",
           "variants": {}}
    if why:
        out["skipped"] = why
        rd.write_json(os.path.join(rundir, "trace.json"), out)
        return out
    folder = os.path.join(rundir, "strace")
    os.makedirs(folder, exist_ok=True)
    strace = shutil.which("strace")
    try:
        for v in plan.variants:
            s = plan.settings[v["workload"]]
            n = s.get("trace_iterations")
            if not n:
                continue
            n0 = v["concurrency"] if v["mode"] == "bounded" and v["concurrency"] > 0 else 1
            rec = {"iterations": n, "iterations_small": n0}
            if n <= n0:
                rec["skipped"] = "trace_iterations %d is not above %d" % (n, n0)
                out["variants"][v["id"]] = rec
                continue
            counts = {}
            for k in (n0, n):
                path = os.path.join(folder, "%s-n%d.txt" % (slug(v["id"]), k))
                argv = [strace, "-f", "-c", "-o", path, "--"] + traced(plan, v["id"], k)
                res = launch.run_once(argv, s["timeout_s"] * 4, launcher, v.get("env"))
                if res.exit_code != 0 or not os.path.isfile(path):
                    rec["skipped"] = "traced run with N = %d: %s" % (
                        k, "timeout" if res.timed_out else "exit %s: %s" % (
                            res.exit_code, launch.first_line(res.stderr) or "no output"))
                    break
                with open(path, encoding="utf-8", errors="replace") as f:
                    counts[k] = parse(f.read())
                rec.setdefault("files", []).append(os.path.relpath(path, rundir))
            if "skipped" not in rec:
                rec["calls_small"] = sum(counts[n0].values())
                rec["calls"] = sum(counts[n].values())
                rec.update(per_op(counts[n0], counts[n], n, n0))
            out["variants"][v["id"]] = rec
    except KeyboardInterrupt:
        out["interrupted"] = True
    rd.write_json(os.path.join(rundir, "trace.json"), out)
    return out

