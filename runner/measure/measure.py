"""measure.py -- the rounds of a run: shuffle, warm-up, one process per variant,
its status, and the samples appended as they arrive.

Each round runs its variants once, in an order shuffled per round with
random.Random(seed) in blocks (schedule.py: a workload's variants together,
and within it the variants a ratio compares; the orders are recorded in
run.json).  W warm-up rounds
run every variant and are kept out of samples.csv.  A workload whose profile
settings give fewer rounds than the run takes part only in the first of them.
A workload's server (servers.py) is started at the first variant of the round
that needs it and stopped after the round.

The status of a run: ok, invalid (exit 0 but the line breaks the contract of
runner/catalog/contract.py, including ok != iterations), failed, timeout, crashed.
"""
import json
import os
import re
import signal
import sys
import time

from . import calibrate
from ..catalog import catalog as catalog_mod
from ..catalog import contract
from . import launch
from . import load as load_mod
from . import lockstep
from ..analysis import noise
from . import plan as plan_mod
from ..analysis import rundir as rd
from . import schedule
from . import sequential
from ..core import stats
from ..analysis import summary as sm
from . import trace as trace_mod
from . import host as host_mod
from ..core.errors import EnvError
from .progress import Progress
from .servers import Servers
from ..core import paths

ROOT = paths.ROOT


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


def _rel(a):
    return plan_mod.relative([a])[0]


def run_record(args, cat, plan, stamp, seed, recipe, launcher):
    """The first run.json: everything needed to read the run without today's catalog."""
    return {"profile": plan.profile,
            "catalog": _rel(os.path.abspath(args.catalog)),
            "stamp": stamp, "seed": seed, "rounds": plan.rounds, "warmup_rounds": plan.warmups,
            "iterations_override": args.iterations, "rounds_override": args.rounds, "timeout_override": args.timeout,
            "options": getattr(args, "plan_options", None),
            "workloads": {w: dict(s, args=[_rel(a) for a in s["args"]],
                                  unit=cat.workloads[w]["unit"])
                          for w, s in plan.settings.items()},
            "variants": [v["id"] for v in plan.variants],
            "baselines": cat.baseline_table(plan.variants), "skipped": plan.skipped, "filters": args.filter,
            "commands": {k: [_rel(a) for a in c] for k, c in plan.commands.items()},
            "env": {v["id"]: v["env"] for v in plan.variants if v.get("env")},
            "servers": {k: [_rel(a) for a in s["argv"]] for k, s in plan.servers.items()},
            # The client each server answers once, untimed, when it starts (servers.py).
            "server_warm": {k: [_rel(a) for a in s["warm"]["argv"]]
                            for k, s in plan.servers.items() if s.get("warm")},
            "orders": recipe,
            "started_utc": rd.utc_now(), "launcher": _rel(launcher),
            "sweep": {w: s["sweep"] for w, s in plan.settings.items() if s.get("sweep")},
            "budget": {w: s["budget"] for w, s in plan.settings.items() if s.get("budget")},
            # The empty program of each language, run once per round; its wall
            # time per measured round is added as the rounds go (startup_ns).
            "startup": {k: [_rel(a) for a in c]
                        for k, c in (getattr(plan, "startup", None) or {}).items()},
            # Each variant's invocation, resolved once (plan.Invocation): what
            # commands renders; the lockstep's are in lockstep.invocations.
            "invocations": {k: inv.record()
                            for k, inv in (getattr(plan, "invocations", None) or {}).items()},
            "complete": False, "rounds_done": 0, "failures": []}


def run_variant(plan, v, servers, launcher, point=None, cpu=None, argv=None):
    """One run of v (at a sweep's point; argv: another command of it, a
    warm-up's), given its round's server port when it needs a server, pinned to
    cpu when it is a number (launch.pin_rule); a server that is not up fails the
    run with the server's reason, the client unstarted."""
    argv = argv or (point["argv"] if point else plan.commands[v["id"]])
    spec = plan.servers.get(v["id"])
    if spec:
        port, why = servers.port(spec)
        if why:
            res = launch.Result()
            res.spawn_error = why
            return res
        argv = argv + [spec["port_flag"], str(port)]
    if point:
        res = launch.run_once(argv, point["timeout_s"], launcher, point.get("env"), cpu)
    else:
        res = launch.run_once(argv, plan.settings[v["workload"]]["timeout_s"], launcher,
                              v.get("env"), cpu)
    if spec:
        # A client that failed because its server died mid-run says so itself
        # only as "connection reset"; the reason gets the server's own line.
        res.server_died = servers.died(spec)
    return res


# Seconds an empty program may take before its start-up figure is given up.
STARTUP_TIMEOUT_S = 30


def run_startup(plan, launcher, log, round_label, cpu=None):
    """Runs the empty program of every language of the plan once (plan.startup),
    on the measured programs' CPU (cpu), and logs each run in runs.jsonl: {lang:
    its wall_ns, or None when it failed}."""
    out = {}
    for lang, argv in sorted((getattr(plan, "startup", None) or {}).items()):
        res = launch.run_once(argv, STARTUP_TIMEOUT_S, launcher, cpu=cpu)
        ok = res.exit_code == 0 and not res.timed_out and not res.spawn_error
        out[lang] = res.wall_ns if ok else None
        log.run(dict({"round": round_label, "startup": lang, "status": "ok" if ok else "failed",
                      "exit_code": res.exit_code, "wall_ns": res.wall_ns,
                      "stderr": launch.first_line(res.stderr) or res.spawn_error or None},
                     **({"leftovers": res.leftovers} if res.leftovers else {})))
    return out


def _interrupt(signum, frame):
    raise KeyboardInterrupt


# stdout and stderr when they are a terminal, noted when the run starts: after a
# hangup isatty() fails with EIO like every other call on the terminal.
_TTYS = []


def _hangup(signum, frame):
    """SIGHUP: the terminal is gone, so writing to it would fail (EIO) and lose
    the end of the run; what went to it goes nowhere now, files stay files."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        for fd in _TTYS:
            os.dup2(null, fd)
        os.close(null)
    except OSError:
        pass
    raise KeyboardInterrupt


def interrupt_on_signals():
    """Ctrl-C (and a plain kill, or a closed terminal: SIGHUP) raise
    KeyboardInterrupt, so that a run, or a --render, ends cleanly, even when the
    shell started us with SIGINT ignored, as non-interactive shells do for
    background jobs."""
    signal.signal(signal.SIGINT, _interrupt)
    signal.signal(signal.SIGTERM, _interrupt)
    if hasattr(signal, "SIGHUP"):
        _TTYS[:] = [fd for fd in (1, 2) if os.isatty(fd)]
        signal.signal(signal.SIGHUP, _hangup)


def measure(args, cat, plan, seed):
    """Runs the plan into a new run folder under args.out (--host names it); returns
    (folder, interrupted)."""
    rounds, warmups = plan.rounds, plan.warmups
    launcher = launch.launcher()
    out = os.path.abspath(args.out)
    rd.check_latest(out)
    hinfo = host_mod.info(args.host)
    rundir, stamp = rd.make_run_folder(out, hinfo["slug"])
    rd.write_json(os.path.join(rundir, "host.json"), hinfo)
    try:
        catalog_mod.snapshot(os.path.abspath(args.catalog), rundir)
    except OSError as e:
        raise EnvError("cannot copy the catalog into %s: %s" % (rd.shown(rundir), e.strerror or e))
    for s in plan.skipped:
        print("run.py: skipped %s: %s" % (s["variant"], s["reason"]), file=sys.stderr)
    recipe = schedule.order_recipe(plan, seed)
    plan_orders = schedule.expand(recipe)
    run = run_record(args, cat, plan, stamp, seed, recipe, launcher)
    # One CPU for every measured program, another for the servers (DESIGN section 6).
    run["pinning"] = pin = launch.pin_rule()
    for spec in plan.servers.values():
        spec["cpu"] = pin["server_cpu"]
    rd.write_json(os.path.join(rundir, "run.json"), run)
    print("run.py: %d variants (+%d warm-up round%s), %s, shuffle seed %d%s -> %s"
          % (len(plan.variants), warmups, "" if warmups == 1 else "s", ", ".join(
              "%s N=%d x %s" % (w, s["iterations"], schedule.rounds_said(s))
              for w, s in plan.settings.items()),
             seed, "; " + plan.estimate if getattr(plan, "estimate", None) else "",
             rd.shown(rundir)), file=sys.stderr)
    if rounds < stats.min_samples_for_ci():
        print("run.py: %d round%s: too few for a 95%% interval or a test (%d needed); ratios "
              "will be marked '?', never '~'" % (rounds, "" if rounds == 1 else "s",
                                                 stats.min_samples_for_ci()), file=sys.stderr)

    interrupt_on_signals()
    by_id = {v["id"]: v for v in plan.variants}
    values = {w: cat.flag_values(w) for w in plan.settings}
    runtimes = {}
    progress = Progress(sum(len(o) for o in plan_orders))
    interrupted = False
    sampled = 0
    servers = Servers()
    first_wall = {}
    budgeted = any(s.get("budget") for s in plan.settings.values())
    if budgeted:
        run["budget_from"] = "round 1"
    round_log = noise.RoundLog(rundir)
    run["noise_rule"] = noise.RULE
    # The profile's time budget counts from here (the first warm-up); the
    # extra rounds stop early enough for the traced runs after them to end
    # within it too.
    deadline = None
    if getattr(plan, "minutes", None):
        run["minutes"] = plan.minutes
        reserve = 0.0 if getattr(args, "no_trace", False) else plan_mod.trace_reserve(plan)
        deadline = time.monotonic() + plan.minutes * 60 - reserve
    extra = sequential.start(args, cat, plan, rundir, seed, deadline=deadline)
    passes_of = calibrate.Calibration(plan)
    end_speed = None    # the last measured round's end probe (noise.probe_ns)
    # The lockstep phase after the planned rounds (lockstep.py), before any
    # extra round: the profile's, unless --no-lockstep.
    lock_spec = getattr(plan, "lockstep", None)
    if getattr(args, "no_lockstep", False):
        lock_spec = None
    noise_load = None
    if getattr(args, "noise", False):
        noise_load = load_mod.Load(pin["program_cpu"], seed)
        run["noise"] = load_mod.describe(pin["program_cpu"])
    with rd.SampleLog(rundir) as log:
        try:
            if noise_load:
                noise_load.start()
            i = -1
            while True:
                if i + 1 >= len(plan_orders):
                    if lock_spec and sampled:
                        phase = lockstep.Phase(lock_spec, plan, cat, run, rundir, launcher,
                                               pin["program_cpu"], servers, log, seed, progress,
                                               deadline)
                        lock_spec = None
                        try:
                            phase.go([v["id"] for v in plan.variants])
                        finally:
                            servers.stop_all()
                            rd.write_json(os.path.join(rundir, "run.json"), run)
                        continue
                    if not (extra and sequential.add_round(extra, plan, plan_orders, run,
                                                           progress)):
                        break
                if len(plan_orders) - warmups > rounds:        # an extra round was added
                    rounds = len(plan_orders) - warmups
                    rd.write_json(os.path.join(rundir, "run.json"), run)
                i += 1
                order = plan_orders[i]
                warm = i < warmups
                rnd = i + 1 - warmups
                label = ("warm-up %d/%d" % (i + 1, warmups)) if warm else (
                    extra and extra.labels.get(rnd) or "round %d/%d" % (rnd, rounds))
                # What else the host does during the round (noise.py), from here;
                # the CPU's speed probed first, outside the round (the previous
                # round's end probe, taken moments ago, serves as this start's).
                if warm:
                    speed = None
                elif end_speed is None:
                    speed = noise.probe_ns(pin["program_cpu"])
                else:
                    speed = end_speed
                round_start = time.monotonic_ns()
                before = noise.snapshot(round_start, probe=speed)
                # Each language's process start-up, in this round's conditions.
                startup = run_startup(plan, launcher, log, ("w%d" % (i + 1)) if warm else rnd,
                                      pin["program_cpu"])
                if not warm:
                    for lang, ns in startup.items():
                        run.setdefault("startup_ns", {}).setdefault(lang, []).append(ns)
                try:
                    for pos, item in enumerate(order, start=1):
                        vid, label_of_point = plan_mod.parse_entry(item)
                        v = by_id[vid]
                        pts = getattr(plan, "points", None) or {}
                        point = None
                        if vid in pts:
                            point = pts[vid][label_of_point or next(iter(pts[vid]))]
                        n = point["iterations"] if point else plan.settings[v["workload"]]["iterations"]
                        argv = None
                        if warm and not label_of_point and vid in plan.warm:
                            argv, n = plan.warm[vid]      # a warm-up round's smaller N
                        if progress.tty or pos == 1:
                            progress.show("%s  %s" % (label, item))
                        res = run_variant(plan, v, servers, launcher, point, pin["program_cpu"],
                                          argv)
                        status, rec, reason = classify(v, n, res, values[v["workload"]],
                                                       point["concurrency"] if point else None,
                                                       passes_of.passes_of(v, n, point))
                        if warm and status == "ok" and not label_of_point:
                            passes_of.note_warmup(v, pass_times(rec), n)
                        progress.record(v["label"] + (" " + label_of_point if label_of_point else ""),
                                        rec.get("elapsed_ns") if rec else None,
                                        status, keep=not warm)
                        if rnd == 1 and status == "ok" and not label_of_point:
                            first_wall.setdefault(vid, []).append(res.wall_ns)
                        if rec and isinstance(rec.get("runtime"), str):
                            runtimes[vid] = rec["runtime"]
                        entry = {"round": ("w%d" % (i + 1)) if warm else rnd, "order": pos,
                                 "variant": vid, "status": status, "exit_code": res.exit_code,
                                 "wall_ns": res.wall_ns, "reason": reason, "line": rec,
                                 "proc_nvcsw": res.proc_nvcsw, "proc_nivcsw": res.proc_nivcsw, "cpu": res.cpu,
                                 "stderr": launch.first_line(res.stderr) or None}
                        if label_of_point:
                            entry["point"] = label_of_point
                        if res.leftovers:
                            # Processes it left running (killed by the launcher).
                            entry["leftovers"] = res.leftovers
                            progress.note("run.py: %s left %d process%s running at its end "
                                          "(killed; runs.jsonl: leftovers)" % (
                                              item, res.leftovers, "" if res.leftovers == 1 else "es"))
                        log.run(entry)
                        if reason:
                            run["failures"].append({k: entry[k] for k in (
                                "round", "variant", "status", "exit_code", "reason", "point")
                                if k in entry})
                            progress.note("run.py: %s %s: %s" % (item, status, reason))
                        if not warm:
                            for row in sample_rows(rnd, pos, v, n, status, rec, res, point,
                                                   startup.get(catalog_mod.runtime_key(v))):
                                log.sample(row)
                            sampled += 1
                finally:
                    servers.stop_all()      # after every round, and on Ctrl-C
                if i + 1 == warmups:
                    # Every variant's passes, from its warm-up (calibrate.py).
                    passes_of.apply(run)
                    rd.write_json(os.path.join(rundir, "run.json"), run)
                if not warm:
                    run["rounds_done"] = rnd
                    end_speed = noise.probe_ns(pin["program_cpu"])  # the round's end
                    after = noise.snapshot(time.monotonic_ns(), probe=end_speed)
                    round_log.add(noise.round_row(rnd, before, after))
                if rnd == 1 and budgeted:
                    # With the profile's deadline, the budget's rounds take at
                    # most a share of what the planned rounds leave before it.
                    left = None if deadline is None else (
                        time.monotonic_ns() - round_start,
                        (deadline - time.monotonic()) * 1e9)
                    rounds = schedule.decide_budget(plan, seed, first_wall, plan_orders, run,
                                                    progress, left)
                    rd.write_json(os.path.join(rundir, "run.json"), run)
        except KeyboardInterrupt:
            interrupted = True
        except EnvError as e:
            # The harness failed (the launcher, not a program): record why, leave
            # latest where it was, and stop with one line (exit 3).
            progress.end()
            run["error"] = str(e)
            run["finished_utc"] = rd.utc_now()
            rd.write_json(os.path.join(rundir, "run.json"), run)
            raise
        finally:
            round_log.close()
            if noise_load:
                noise_load.stop()
    progress.end()
    if (not interrupted and sampled and not getattr(args, "no_trace", False)
            and any(s.get("trace_iterations") for s in plan.settings.values())):
        # System calls per operation, from traced runs after the rounds.
        print("run.py: counting system calls with strace (run.py --no-trace skips it)",
              file=sys.stderr)
        traced = trace_mod.trace_run(plan, cat, launcher, rundir)
        interrupted = bool(traced.get("interrupted"))
        if traced.get("skipped"):
            print("run.py: no system call counts: %s" % traced["skipped"], file=sys.stderr)
    run["complete"] = not interrupted
    run["runtimes"] = runtimes
    if extra:
        run["extra_rounds"] = extra.finish()
    run["finished_utc"] = rd.utc_now()
    rd.write_json(os.path.join(rundir, "run.json"), run)
    if sampled:
        rd.point_latest(out, rundir)
    else:
        # Interrupted in the warm-up (or before the first sample): latest keeps
        # pointing at the last run that measured something.
        print("run.py: no sample was measured; %s not moved"
              % rd.shown(os.path.join(out, "latest")), file=sys.stderr)
    if interrupted:
        print("run.py: interrupted after %d complete round%s; kept the samples in %s"
              % (run["rounds_done"], "" if run["rounds_done"] == 1 else "s",
                 rd.shown(rundir)), file=sys.stderr)
    return rundir, interrupted
