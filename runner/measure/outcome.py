"""outcome.py -- what one run of a program came to: its status (ok, invalid,
failed, timeout, crashed; an environment's failure told from the program's by
what its stderr says) and the rows of samples.csv it gives, one per timed pass.

A run is valid when it exits 0 with a line that keeps the contract of
runner/catalog/contract.py, including ok == iterations.
"""
import json
import re
import signal

from ..catalog import contract
from ..analysis import summary as sm
from . import launch


# What a program's stderr says when the machine, not the program, failed it:
# (pattern, the cause named in the reason).  Go's runtime says "fatal error:
# runtime: out of memory" and exits 2; Node's V8 "FATAL ERROR: ... JavaScript
# heap out of memory" and aborts (SIGABRT, or exit 134 through a shell); C
# says "out of memory" or strerror(ENOMEM/EMFILE/EAGAIN).
ENV_PATTERNS = (
    (re.compile(r"out of memory|cannot allocate memory|allocation failed|bad_alloc|ENOMEM", re.I),
     "out of memory"),
    (re.compile(r"too many open files|EMFILE|ENFILE", re.I), "too many open files"),
    (re.compile(r"failed to create new OS thread|pthread_create|cannot start a thread|"
                r"resource temporarily unavailable|EAGAIN", re.I), "cannot start a thread"),
)
def environment_cause(res):
    """(cause, the stderr line that shows it) when res failed because of the
    machine (memory, file descriptors, threads), else (None, None)."""
    text = res.stderr.decode("utf-8", "replace")
    for pattern, cause in ENV_PATTERNS:
        for line in text.splitlines():
            if pattern.search(line):
                return cause, line.strip()[:300]
    return None, None


def classify(v, n, res, workload_values=None, concurrency=None, passes=1):
    """(status, parsed JSON line or None, reason or None) of one run of
    `passes` timed passes; a run that failed while its server died
    (res.server_died) has the server's line after its own reason."""
    status, rec, reason = _classify(v, n, res, workload_values, concurrency, passes)
    died = getattr(res, "server_died", None)
    if reason and died and not res.spawn_error:
        reason = "%s; meanwhile %s" % (reason, died)
    return status, rec, reason


def _classify(v, n, res, workload_values=None, concurrency=None, passes=1):
    """(status, parsed JSON line or None, reason or None) of one run.

    A run that failed because of the machine keeps the status of DESIGN section
    6 (failed, crashed) but its reason starts with "environment failure (CAUSE)"
    so that it is never read as a verification failure: exit 3 (the contract's
    environment error), a Go runtime "fatal error:" (exit 2), or a death by a
    signal or exit 134 (an abort through a shell) whose stderr says out of
    memory, too many open files or no thread could start (Node out of memory
    aborts).  Exit 1 stays a verification failure whatever its message says."""
    if res.spawn_error:
        return "failed", None, res.spawn_error
    if res.timed_out:
        return "timeout", None, "no result within the timeout; process group killed"
    if res.signal is not None:
        name = (signal.Signals(res.signal).name if res.signal in signal.valid_signals()
                else res.signal)
        cause, line = environment_cause(res)
        if cause:
            return "crashed", None, "environment failure (%s): killed by %s: %s" % (cause, name, line)
        why = launch.first_line(res.stderr)
        return "crashed", None, "killed by %s%s" % (name, ": " + why if why else "")
    if res.exit_code != 0:
        cause, line = environment_cause(res)
        text = res.stderr.decode("utf-8", "replace")
        go_fatal = res.exit_code == 2 and re.search(r"^fatal error:", text, re.M)
        if go_fatal and not cause:
            cause, line = "Go runtime fatal error", go_fatal.string[go_fatal.start():].splitlines()[0]
        # Exit 1 is the contract's verification failure and stays one: its
        # message may quote a fixture's content, which anyone can write.
        if (res.exit_code == 3 or go_fatal or (res.exit_code == 134 and cause)) and cause:
            return "failed", None, "environment failure (%s): exit %d: %s" % (
                cause, res.exit_code, line[:300])
        if res.exit_code == 3:
            return "failed", None, "environment failure: exit 3: %s" % (
                launch.first_line(res.stderr) or "(nothing on stderr)")
        return "failed", None, "exit %d: %s" % (res.exit_code, launch.first_line(res.stderr)
                                                or "(nothing on stderr)")
    line = res.stdout.decode("utf-8", "replace")
    why = launch.output_problem(res) or contract.problem(
        v, n, line, workload_values, v["concurrency"] if concurrency is None else concurrency, passes)
    rec = None
    try:
        rec = json.loads(line) if line.strip() and "\n" not in line.strip() else None
        if not isinstance(rec, dict):
            rec = None
    except (ValueError, RecursionError):    # a line nested too deeply: contract.problem said so
        rec = None
    if why:
        return "invalid", rec, why
    why = rec and sm.elapsed_problem(_int_or_none(sum(pass_times(rec))), res.wall_ns)
    if why:
        return "invalid", rec, why
    return "ok", rec, None


def _int_or_none(x):
    return x if isinstance(x, int) and not isinstance(x, bool) else None


def _elapsed(x):
    """The line's elapsed_ns for samples.csv: left empty beyond 64 bits (the run is
    invalid with the reason; such a number in the file would mark it corrupted)."""
    x = _int_or_none(x)
    return None if x is not None and abs(x) > sm.INT64_MAX else x


def pass_times(rec):
    """The times of a line's timed passes (passes_elapsed_ns; [elapsed_ns] for a
    line without it: one pass), [] when it has none."""
    times = (rec or {}).get(contract.PASSES_FIELD)
    if isinstance(times, list) and times:
        return times
    return [rec["elapsed_ns"]] if rec and "elapsed_ns" in rec else []


def env_text(env):
    """A point's environment as samples.csv records it: NAME=VALUE, space-separated."""
    return " ".join("%s=%s" % kv for kv in sorted((env or {}).items()))


def outside_ns(elapsed, wall):
    """The time of a process outside its clock: wall_ns less elapsed_ns (at
    least 0: the clocks differ by their granularity), None when either is unknown."""
    if elapsed is None or wall is None:
        return None
    return max(0, wall - elapsed)


def sample_rows(rnd, order, v, n, status, rec, res, point=None, startup_ns=None):
    """The rows of samples.csv of one process: one per timed pass of its line
    (passes_elapsed_ns; the pass column counts them from 0), each with that
    pass's elapsed_ns and the process's other figures (wall_ns, CPU, memory,
    and outside_ns: its wall time less all its passes); one row, pass 0, when
    the process gave no valid line.  sample_row makes each."""
    times = pass_times(rec) if status == "ok" else []
    if len(times) <= 1:
        return [sample_row(rnd, order, v, n, status, rec, res, point, startup_ns)]
    outside = outside_ns(sum(times), res.wall_ns)
    return [dict(sample_row(rnd, order, v, n, status, dict(rec, elapsed_ns=t), res, point,
                            startup_ns), outside_ns=outside, **{"pass": k})
            for k, t in enumerate(times)]


def sample_row(rnd, order, v, n, status, rec, res, point=None, startup_ns=None):
    """One row of samples.csv (pass 0): the variant's fields from the catalog,
    the run's measurements, and the counts from its line; point (a sweep's,
    plan.points) gives its K, its environment and its label; startup_ns is the
    wall time of its language's empty program in the same round; warmup_ns is
    the line's (how long its warm-up pass took)."""
    rec = rec or {}
    point = point or {}
    return {"round": rnd, "order": order, "variant": v["id"], "workload": v["workload"],
            "lang": v["lang"], "style": v["style"], "mode": v["mode"], "backend": v["backend"],
            "iterations": n, "concurrency": point.get("concurrency", v["concurrency"]),
            "status": status,
            "exit_code": res.exit_code, "elapsed_ns": _elapsed(rec.get("elapsed_ns")),
            "wall_ns": res.wall_ns, "proc_user_us": res.proc_user_us, "proc_sys_us": res.proc_sys_us,
            "proc_peak_rss_kb": res.proc_peak_rss_kb, "ok": _int_or_none(rec.get("ok")),
            "bytes": _int_or_none(rec.get("bytes")), "shape": v["shape"],
            "method": v["method"], "label": v["label"],
            "idle_rss_kb": _int_or_none(rec.get("idle_rss_kb")),
            "env": env_text(point.get("env")), "point": point.get("point", ""),
            "outside_ns": outside_ns(_elapsed(rec.get("elapsed_ns")), res.wall_ns),
            "startup_ns": startup_ns, "warmup_ns": _elapsed(rec.get("warmup_ns")), "pass": 0,
            "sampled_rss_kb": _int_or_none(rec.get("sampled_rss_kb")),
            "runtime": v.get("runtime") or ""}
