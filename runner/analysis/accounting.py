"""accounting.py -- what one operation costs besides its time: per variant,
the medians over the measured runs of

  cpu        user and system CPU per operation: the line's user_us and sys_us
             (the timed section in C and Node; Go reports its process's),
             divided by N
  threadpool threadpool round trips per operation (the C backends count every
             uv_fs_* and uv_queue_work they start: the line's threadpool_trips)
  allocs     heap allocations per operation (C: libuv's through a counting
             allocator, the promise pools' slabs, read buffers: allocs) and
             objects taken from the promise pools (pool_gets)
  switches   voluntary and involuntary context switches per operation: the
             line's nvcsw/nivcsw (C: the timed section) or else the runner's
             wait4 figures for the whole process (runs.jsonl's proc_nvcsw,
             proc_nivcsw) (start-up included)
  syscalls   system calls per operation from the traced runs (trace.py:
             trace.json), in all and the most frequent ones

It reads runs.jsonl (every run's JSON line, kept by the runner) and trace.json
of a run folder (runfolder.RunFolder: lines, trace), so `make plots`
recomputes it.  attach() puts the figures
into each summary row as row["accounting"]; markdown() is REPORT.md's table.
A field a language does not report is None (shown as "-"), never 0.
"""
from ..core import stats

# The line's optional per-pass counts (harness.c) and their names here.
LINE_COUNTS = (("threadpool_trips", "threadpool"), ("allocs", "allocs"),
               ("pool_gets", "pool_gets"), ("nvcsw", "nvcsw"), ("nivcsw", "nivcsw"))


def top_calls(by_syscall, n=4):
    """The n most frequent calls, and every call as frequent as the n-th: a cut
    inside a tie would drop a call that happens as often as one it shows."""
    items = sorted(by_syscall.items(), key=lambda kv: (-kv[1], kv[0]))
    if len(items) <= n:
        return items
    return [kv for kv in items if kv[1] >= items[n - 1][1]]


def _int(x):
    return x if isinstance(x, int) and not isinstance(x, bool) and x >= 0 else None


def _median(xs):
    xs = [x for x in xs if x is not None]
    return stats.median(xs) if xs else None


def per_variant(entries, traced):
    """The accounting of one variant from its ok runs and its trace.json record."""
    acc = {"runs": len(entries)}
    per = {}
    for e in entries:
        line = e["line"]
        n = _int(line.get("iterations"))
        if not n:
            continue
        for key, name in (("user_us", "user_ns"), ("sys_us", "sys_ns")):
            v = _int(line.get(key))
            per.setdefault(name, []).append(None if v is None else v * 1000.0 / n)
        for key, name in LINE_COUNTS:
            v = _int(line.get(key))
            per.setdefault(name, []).append(None if v is None else float(v) / n)
        for key in ("proc_nvcsw", "proc_nivcsw"):
            v = _int(e.get(key))
            per.setdefault(key, []).append(None if v is None else float(v) / n)
    for name, xs in per.items():
        acc[name] = _median(xs)
    if acc.get("user_ns") is not None and acc.get("sys_ns") is not None:
        acc["cpu_ns"] = acc["user_ns"] + acc["sys_ns"]
    # Context switches: the timed section's when the line has them, else the
    # process's (start-up included), and say which.
    acc["switches_from"] = "line" if acc.get("nvcsw") is not None else (
        "process" if acc.get("proc_nvcsw") is not None else None)
    if acc["switches_from"] == "process":
        acc["nvcsw"], acc["nivcsw"] = acc["proc_nvcsw"], acc["proc_nivcsw"]
    if traced and "total" in traced:
        acc["syscalls"] = traced["total"]
        acc["syscalls_top"] = top_calls(traced.get("by_syscall", {}))
        acc["trace_iterations"] = traced.get("iterations")
    elif traced and traced.get("skipped"):
        acc["syscalls_skipped"] = traced["skipped"]
    return acc


def attach(folder, rows):
    """Adds row["accounting"] to every summary row (None without runs.jsonl) from
    the run folder's (runfolder.RunFolder) lines and trace."""
    lines = folder.lines
    traced = (folder.trace or {}).get("variants") or {}
    for r in rows:
        entries = lines.get(r["variant"])
        r["accounting"] = (per_variant(entries or [], traced.get(r["variant"]))
                           if entries or r["variant"] in traced else None)
    return rows


def _f(x, digits=2):
    if x is None:
        return "-"
    if x >= 100:
        return "%.0f" % x
    return ("%%.%df" % digits) % x


def markdown(rows, trace=None):
    """REPORT.md's section: one table per workload, a row per variant."""
    rows = [r for r in rows if r.get("accounting")]
    if not rows:
        return []
    out = ["## Per operation: CPU, threadpool, allocations, context switches, system calls", "",
           "Medians over the measured runs, divided by N. CPU is the line's user and system "
           "time. Threadpool round trips and allocations are counted by the C programs. They "
           "count libuv's allocations through a counting allocator, and the promise pools' "
           "slabs and objects. Context switches are the timed section's in C, the whole "
           "process's (wait4) elsewhere (marked *). System calls come from two traced runs "
           "after the rounds, `strace -f -c` at N = N0 and N = T (N0 = 1, or K when bounded). "
           "A figure is the difference over T - N0, so start-up cancels; see trace.json and "
           "strace/. `-`: not reported for that variant.", ""]
    if trace and trace.get("skipped"):
        out += ["System calls were not counted: %s." % trace["skipped"], ""]
    for w in sorted({r["workload"] for r in rows}):
        # Six columns, so that the table fits an issue comment.
        out += ["| %s variant | µs/op (user / sys CPU) | threadpool trips/op | "
                "allocs/op (pool objects) | switches/op (voluntary / involuntary) | "
                "syscalls/op (most frequent) |" % w,
                "|---|---|---:|---|---|---|"]
        for r in rows:
            if r["workload"] != w:
                continue
            a = r["accounting"]
            us = (r["median_ms"] * 1000.0 / r["iterations"]
                  if r.get("median_ms") is not None and r.get("iterations") else None)
            sw = "-"
            if a.get("nvcsw") is not None:
                sw = "%s / %s%s" % (_f(a["nvcsw"], 3), _f(a.get("nivcsw"), 3),
                                    "*" if a.get("switches_from") == "process" else "")
            sc = "-"
            if a.get("syscalls") is not None:
                top = ", ".join("%s %s" % (k, _f(v, 1)) for k, v in a.get("syscalls_top") or [])
                sc = "%s%s" % (_f(a["syscalls"], 1), " (%s)" % top if top else "")
            elif a.get("syscalls_skipped"):
                sc = "not traced"
            cpu = "%s (%s / %s)" % (
                _f(us), _f(None if a.get("user_ns") is None else a["user_ns"] / 1000.0),
                _f(None if a.get("sys_ns") is None else a["sys_ns"] / 1000.0))
            allocs = "%s (%s)" % (_f(a.get("allocs")), _f(a.get("pool_gets")))
            out.append("| `%s` | %s | %s | %s | %s | %s |" % (
                r["label"], cpu, _f(a.get("threadpool")), allocs, sw, sc))
        out.append("")
    return out
