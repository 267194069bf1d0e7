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
import os
import signal
import sys
import time

from . import calibrate
from ..catalog import catalog as catalog_mod
from . import launch
from . import load as load_mod
from . import lockstep
from ..analysis import noise
from . import invocation as invocation_mod
from . import plan as plan_mod
from ..analysis import rundir as rd
from ..analysis import tables
from . import schedule
from . import sequential
from ..core import stats
from . import trace as trace_mod
from . import host as host_mod
from ..core.errors import EnvError
from .progress import Progress
from .servers import Servers
from . import outcome
from ..core import paths

ROOT = paths.ROOT


def _rel(a):
    return invocation_mod.relative([a])[0]


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
            # Each variant's invocation, resolved once (invocation.Invocation): what
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


def say(text):
    """A status line on stderr, wrapped as the terminal's tables are (at its
    width, or 100 when stderr is not a terminal), its continuation indented."""
    for line in tables.wrap(text, tables.output_width(sys.stderr), "  "):
        print(line, file=sys.stderr)


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
    say("run.py: %d variants (+%d warm-up round%s), %s, shuffle seed %d%s -> %s"
        % (len(plan.variants), warmups, "" if warmups == 1 else "s", ", ".join(
            "%s N=%d x %s" % (w, s["iterations"], schedule.rounds_said(s))
            for w, s in plan.settings.items()),
           seed, "; " + plan.estimate if getattr(plan, "estimate", None) else "",
           rd.shown(rundir)))
    if rounds < stats.min_samples_for_ci():
        say("run.py: %d round%s: too few for a 95%% interval or a test (%d needed); ratios "
            "will be marked '?', never '~'" % (rounds, "" if rounds == 1 else "s",
                                               stats.min_samples_for_ci()))

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
                        status, rec, reason = outcome.classify(v, n, res, values[v["workload"]],
                                                       point["concurrency"] if point else None,
                                                       passes_of.passes_of(v, n, point))
                        if warm and status == "ok" and not label_of_point:
                            passes_of.note_warmup(v, outcome.pass_times(rec), n)
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
                            for row in outcome.sample_rows(rnd, pos, v, n, status, rec, res, point,
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
