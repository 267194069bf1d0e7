"""plan.py -- what a run will do, decided before the first program starts.

make() picks the variants of a profile that match the filters, skips the ones
whose requirement this machine does not meet (one reason each), fixes each
workload's N, timeout and rounds for the profile, and builds every program's
command line.  Nothing here measures; measure.py runs the plan.

Requirements (runner/catalog/catalog.py's module doc, workload level merged with the matrix entry's):
  os      ["linux", "darwin"]: the variant runs on those systems only
  node    true, or any argv with {node}: needs a node executable
  probe   [argv...]: run once per run (not once per variant); a non-zero exit
          skips the variants that name it, with its first stderr line as reason
  server  {"argv": [...], ...}: not a skip; the server is started per round by
          servers.py, so its program must be built like any other
"""
import os
import re
import shutil
import signal
import subprocess

from ..catalog import catalog as catalog_mod
from ..catalog import catalog_check
from ..core import expr
from . import runtimes as runtimes_mod
from . import host as host_mod
from ..analysis import summary as sm
from ..core.errors import EnvError, UsageError
from ..core import paths

ROOT = paths.ROOT
PROBE_TIMEOUT_S = 30


class Plan:
    """The decided run: the profile, its measured and warm-up rounds, variants
    (catalog order), skipped ({"variant", "reason"}), settings per workload
    ({"iterations", "timeout_s", "rounds", "warmup", "warmup_ops", "passes",
    "passes_count", "args"[,
    "budget", "sweep"]}), the command of each variant id, the server spec of
    each variant that needs one, the points of each variant (points(): {label:
    point with its argv and timeout_s}; one, labelled "", without a sweep), and
    the empty program of each language (startup: {lang: argv}); warm: {id:
    (argv, N)} of the variants whose warm-up rounds run at a smaller N (the
    profile's warmup_iterations), minutes, the profile's time budget or None,
    and calibrate, the profile's calibrate_passes or None (calibrate.py)."""

    def __init__(self, profile, rounds, warmups, variants, skipped, settings, commands,
                 servers):
        self.profile = profile
        self.rounds = rounds
        self.warmups = warmups
        self.variants = variants
        self.skipped = skipped
        self.settings = settings
        self.commands = commands
        self.servers = servers
        self.warm = {}
        self.invocations = {}       # {id: Invocation}, what commands renders (make())
        self.lockstep = None
        self.minutes = None
        self.calibrate = None


def load_catalog(path):
    """The Catalog of a catalog folder; EnvError with the catalog's one line when broken."""
    try:
        return catalog_mod.load(path)
    except catalog_mod.CatalogError as e:
        raise EnvError(str(e))      # one line that names the file


def find_node(option):
    """The node executable to use, or None (--node none, or none installed)."""
    if option == "none":
        return None
    if option:
        found = shutil.which(option)
        if not found:
            raise EnvError("--node %s is not an executable (or say --node none)" % option)
        return found
    return host_mod.tool("node")


def select(cat, profile, filters):
    """The variants of a profile whose id matches any filter, in catalog order."""
    profiles = cat.suite.get("profiles", {})
    if profile not in profiles:
        raise UsageError("unknown profile %r; the catalog has %s"
                         % (profile, ", ".join(sorted(profiles))))
    chosen = cat.select(profile=profile)
    if filters:
        chosen = [v for v in chosen if any(re.search(f, v["id"]) for f in filters)]
    if not chosen:
        raise UsageError("no variant of profile %r matches %s" % (
            profile, " or ".join(repr(f) for f in filters) if filters else "(none listed)"))
    return chosen


def needs_node(v):
    server = (v.get("requires") or {}).get("server") or {}
    return bool((v.get("requires") or {}).get("node")) or any(
        "{node}" in a for a in list(v["argv"]) + list(server.get("argv", [])))


def fill(args, node, rt=None):
    """args (a variant's, a probe's or a server's) with {bin} and {node} filled
    in by the catalog, a relative program path made absolute under the root.
    rt (runtime()'s answer for a variant of a pinned version) gives its node
    and the options that version needs, or its Go programs' folder."""
    if rt and rt.get("node"):
        out = catalog_mod.expand(args, node=rt["node"])
        if out and out[0] == rt["node"]:
            out[1:1] = rt["flags"]
    else:
        out = catalog_mod.expand(args, bin_dir=(rt or {}).get("bin"), node=node)
    if os.sep in out[0] and not os.path.isabs(out[0]):
        out[0] = os.path.join(ROOT, out[0])
    return out


def runtime(cat, v, store=None):
    """(why, rt) for a variant of a pinned runtime version (v["runtime"], DESIGN
    section 11): why, one line, when it cannot run here (the version lacks what
    it needs, is not available on this host or not installed), else rt:
    {"node": binary, "flags": [..]} or {"bin": the folder of that Go's
    programs}.  (None, None) for a variant of the host's own runtime."""
    version = v.get("runtime")
    if not version:
        return None, None
    why = catalog_check.runtime_unmet(cat.suite, v, version)
    if why:
        return why, None
    store = store or runtimes_mod.Store()
    try:
        exe = store.path(v["lang"], version)
    except runtimes_mod.RuntimeError_ as e:
        return str(e), None
    if v["lang"] == "node":
        return None, {"node": exe, "flags": store.flags("node", version)}
    return None, {"bin": os.path.join(catalog_mod.build_dir(), "bin", "go" + version)}


def run_probe(argv, env=None):
    """None when the probe exits 0 (run with env added to the environment), else
    why not in one line."""
    try:
        # A group of its own: a probe that times out, or a run interrupted
        # meanwhile, ends with whatever the probe started (sh -c ... & co).
        # stdout a pipe whose output is dropped, not DEVNULL: a Go or Node
        # program takes a read-write /dev/null stdout for a closed one (its
        # runtime leaves a closed fd 1 so: contract.mjs stdoutClosed) and
        # exits 3, so bluebird's probe skipped its variants in every run.
        p = subprocess.Popen(argv, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             env=dict(os.environ, **(env or {})), stderr=subprocess.PIPE,
                             start_new_session=True)
    except OSError as e:
        return "probe %s cannot run: %s" % (os.path.basename(argv[0]), e.strerror or e)
    try:
        _, err = p.communicate(timeout=PROBE_TIMEOUT_S)
    except BaseException as e:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except OSError:
            pass
        p.wait()
        if not isinstance(e, subprocess.TimeoutExpired):
            raise
        return "probe %s did not finish within %d s" % (os.path.basename(argv[0]),
                                                         PROBE_TIMEOUT_S)
    if p.returncode == 0:
        return None
    text = err.decode("utf-8", "replace").strip()
    return text.splitlines()[0][:200] if text else "probe %s exited %d" % (
        os.path.basename(argv[0]), p.returncode)


def unmet(v, node, probes, rt=None, node_refused=False):
    """Why v cannot run on this machine (one line), or None.  probes caches each
    probe's answer by its argv, so a probe runs once per run (None: no probe
    is run, as before the build); rt: runtime()'s answer for a variant of a
    pinned version, whose node runs its probe; node_refused: --node none."""
    req = v.get("requires") or {}
    systems = req.get("os")
    if systems and catalog_mod.host_os() not in systems:
        return "runs on %s only, this is %s" % (", ".join(systems), catalog_mod.host_os())
    if rt and rt.get("node"):
        node = rt["node"]
    if needs_node(v) and node is None:
        if node_refused:
            return "needs node, and --node none was given"
        return "needs node, and none was found (install Node.js, set NODE or say --node PATH)"
    if req.get("probe") and probes is not None:
        argv = fill(req["probe"], node, rt)
        env = v.get("env") or {}
        key = (tuple(argv), tuple(sorted(env.items())))
        if key not in probes:
            probes[key] = run_probe(argv, env)
        return probes[key]
    return None


def workload_settings(cat, workload, profile, rounds, args):
    """N, timeout, rounds and the flags with their values (path flags absolute,
    their files checked) for one workload."""
    s = cat.settings(workload, profile)
    if s is None:
        raise EnvError("catalog: workload %s has variants in profile %r but no settings "
                       "for it" % (workload, profile))
    flags = cat.workloads[workload].get("flags") or {}
    values = cat.workload_args(workload)
    for flag, value in zip(values[::2], values[1::2]):
        if (flags.get(flag) or {}).get("path") and not os.path.exists(value):
            raise EnvError("%s %s of workload %s is missing (it ships with the project)"
                           % (flag, os.path.relpath(value, ROOT), workload))
    # The catalog's figures were bounded when it was loaded, the options by cli.py.
    timeout = args.timeout or s["timeout_s"]
    n = args.iterations or s["iterations"]
    out = {"iterations": n,
           "timeout_s": timeout,
           # --rounds, like --iterations, overrides every workload's own figure.
           "rounds": args.rounds or min(cat.rounds(workload, profile), rounds),
           # N of the traced runs after the rounds (trace.py), never above N;
           # None: the profile traces none of this workload's variants.
           "trace_iterations": min(s["trace_iterations"], n) if s.get("trace_iterations") else None,
           # The in-process warm-up, an expression of N (catalog.py: warmup), and
           # what it gives at this N.
           "warmup": cat.warmup(workload, profile),
           "warmup_ops": expr.warmup_for(cat.warmup(workload, profile), n),
           # The timed passes of every process, an expression of N (catalog.py:
           # passes), and what it gives at this N: each is a row of samples.csv.
           "passes": cat.passes(workload, profile),
           "passes_count": expr.passes_for(cat.passes(workload, profile), n),
           "args": values,
           # What every line is checked against with those values (the
           # catalog's checks): --render checks every row again with them.
           "checks": dict(cat.workloads[workload].get("checks") or {})}
    # A time budget gives cheap variants more rounds; --rounds fixes them all.
    if s.get("budget") and not args.rounds:
        out["budget"] = s["budget"]
    if s.get("sweep"):
        out["sweep"] = s["sweep"]
    return out


BASE = sm.BASE_POINT     # the label of a sweep's base point


def points(v, s):
    """The points of variant v under its workload's settings s: [{"point",
    "iterations", "concurrency", "env"}], the base point first.  Without a sweep
    there is one, labelled "".  With one, the base point ("base": the settings'
    N, v's own K, only v's own environment) and one point per value of every axis whose
    `for` matches v, the others at the base: "iterations=1000",
    "concurrency=16" (bounded variants only), "UV_THREADPOOL_SIZE=8".  A value
    equal to the base's (an env axis's default) is the base point itself, and a
    point two axes give is run once."""
    base = {"point": BASE if s.get("sweep") else "", "iterations": s["iterations"],
            "concurrency": v["concurrency"], "env": dict(v.get("env") or {})}
    out = [base]
    for ax in s.get("sweep") or []:
        if not catalog_check.matches(v, ax.get("for") or {}):
            continue
        kind = ax["axis"]
        if kind == "concurrency" and v["mode"] != "bounded":
            continue
        for x in ax["values"]:
            if kind == "env":
                if "default" in ax and str(x) == str(ax["default"]):
                    continue
                p = dict(base, env=dict(base["env"], **{ax["name"]: str(x)}),
                         point="%s=%s" % (ax["name"], x))
            else:
                if x == base[kind]:
                    continue
                p = dict(base, point="%s=%d" % (kind, x))
                p[kind] = x
            if all(q["point"] != p["point"] for q in out):
                out.append(p)
    return out


def entry(vid, point):
    """An entry of a round's order: the id, and the point's label after a space
    unless it is the base point."""
    return vid if point in ("", BASE) else "%s %s" % (vid, point)


def parse_entry(text):
    """(variant id, point label or None for the base point) of an order entry."""
    vid, _, point = text.partition(" ")
    return vid, point or None


def warmup_ops(v, warmup, n):
    """The --warmup of a run of v at N = n: the variant's own warm-up expression
    when its matrix entry gives one (nodetest's is 0: it times everything its
    process does, as seed 000 did, so a warm-up would be timed), else the
    profile's or the workload's (catalog.py: warmup), at n, in the same process
    before the timed pass (DESIGN section 3)."""
    return expr.warmup_for(v.get("warmup", warmup) or "0", n)


# What one program run costs at least, start-up included: the fastest runs of
# the reference host (C 1.2 ms, Go 2.2 ms, Node 94 ms); and what the runner
# spends around each (about 3 ms there: the launcher, the checks, the rows).
FLOOR_S = {"node": 0.09}
OTHER_FLOOR_S = 0.002
PER_RUN_S = 0.003


def estimate(plan, previous=None):
    """(runs, seconds, variants without a previous figure) of the plan: every
    run of every round, each at the median wall time the previous run
    measured for it (previous: {id: (wall_ms, iterations)}, scaled to this N
    above the start-up floor), or at the floor of its language when it has no
    such figure; plus the runner's time around each run.  A variant under a
    time budget (schedule.budget_rounds) gets the rounds its figure fits in the
    budget, within the workload's rounds and the budget's most; without a
    figure, the most."""
    pts = getattr(plan, "points", None) or {}
    runs = seconds = 0
    guessed = set()
    for v in plan.variants:
        s = plan.settings[v["workload"]]
        budget = s.get("budget")
        if budget and not catalog_check.matches(v, budget.get("for") or {}):
            budget = None
        floor = FLOOR_S.get(v["lang"], OTHER_FLOOR_S)
        for p in (pts.get(v["id"]) or {"": {"iterations": s["iterations"]}}).values():
            wall_ms, n = (previous or {}).get(v["id"]) or (None, None)
            if wall_ms and n:
                each = floor + max(0.0, wall_ms / 1e3 - floor) * p["iterations"] / float(n)
            else:
                each = floor
                guessed.add(v["id"])
            rounds = s["rounds"]
            if budget:
                fit = int(budget["seconds"] // each) if v["id"] not in guessed else budget["max_rounds"]
                rounds = max(rounds, min(budget["max_rounds"], fit))
            warm = each
            if v["id"] in (getattr(plan, "warm", None) or {}) and wall_ms and n:
                warm = floor + max(0.0, wall_ms / 1e3 - floor) * plan.warm[v["id"]][1] / float(n)
            runs += plan.warmups + rounds
            seconds += plan.warmups * (warm + PER_RUN_S) + rounds * (each + PER_RUN_S)
    return runs, seconds, len(guessed)


# What a traced run (runner/measure/trace.py: two runs a variant under strace, at small
# N) costs at most above its start-up floor; the reference host's traced step
# took 8 s for 74 variants.
TRACED_RUN_S = 0.05


def trace_reserve(plan):
    """Seconds to keep, within a profile's time budget, for the traced runs
    that follow the rounds (none when the profile traces nothing)."""
    out = 0.0
    for v in plan.variants:
        if plan.settings[v["workload"]].get("trace_iterations"):
            out += 2 * (FLOOR_S.get(v["lang"], OTHER_FLOOR_S) + TRACED_RUN_S)
    return out


def passes_of(v, passes, n):
    """The --passes of a run of v at N = n: the variant's own passes expression
    when its matrix entry gives one (a whole-process method's "1": it times one
    pass a process), else the profile's or the workload's (catalog.py: passes)."""
    return expr.passes_for(v.get("passes", passes) or "1", n)


class Invocation(tuple):
    """One run of a program, resolved (DESIGN section 6): the variant's id, its
    program (the catalog's command filled in: the runtime's binary and flags),
    N, the in-process warm-up, the timed passes, the workload's own flags, the
    bound (bounded mode only, else None), and whether it runs in lockstep.  argv()
    renders its command, the one place a command line is made; replace() derives
    another (a lockstep pass's N, a traced run's), never by editing text."""
    __slots__ = ()
    FIELDS = ("variant", "program", "iterations", "warmup", "passes", "workload_args",
              "concurrency", "lockstep")

    def __new__(cls, variant, program, iterations, warmup=0, passes=1, workload_args=(),
                concurrency=None, lockstep=False):
        return tuple.__new__(cls, (variant, tuple(program), int(iterations), int(warmup),
                                   int(passes), tuple(workload_args),
                                   None if concurrency is None else int(concurrency),
                                   bool(lockstep)))

    def __getattr__(self, name):
        try:
            return self[Invocation.FIELDS.index(name)]
        except ValueError:
            raise AttributeError(name)

    def replace(self, **changes):
        fields = dict(zip(Invocation.FIELDS, self))
        fields.update(changes)
        return Invocation(**fields)

    def argv(self):
        """The command: the program, then the contract's flags (--passes only
        above 1, every program's default, and never in lockstep), the
        workload's own flags, the bound in bounded mode, --lockstep 1 last."""
        out = list(self.program) + ["--iterations", str(self.iterations),
                                    "--warmup", str(self.warmup)]
        if self.passes > 1 and not self.lockstep:
            out += ["--passes", str(self.passes)]
        out += list(self.workload_args)
        if self.concurrency is not None:
            out += ["--concurrency", str(self.concurrency)]
        if self.lockstep:
            out += ["--lockstep", "1"]
        return out

    def record(self):
        """As run.json keeps it: a dict of the fields, and the argv rendered,
        every path under the project's root relative to it (relative())."""
        out = dict(zip(Invocation.FIELDS, (list(x) if isinstance(x, tuple) else x
                                           for x in self)))
        out["program"] = relative(self.program)
        out["workload_args"] = relative(self.workload_args)
        out["argv"] = relative(self.argv())
        return out


def relative(argv):
    """argv with every absolute path under the project's root made relative to
    it, as run.json keeps commands (a checkout moved keeps its meaning)."""
    return [os.path.relpath(a, ROOT) if os.path.isabs(a) and a.startswith(ROOT + os.sep) else a
            for a in argv]


def invocation(v, node, n, workload_args, concurrency=None, warmup="0", passes="1", rt=None):
    """The Invocation of one run of v at N = n: the catalog's command, the
    warm-up and the timed passes from the workload's expressions at n, the
    workload's own flags and, in bounded mode, the bound (v's own unless a
    sweep's point gives another)."""
    bound = None
    if v["mode"] == "bounded":
        bound = v["concurrency"] if concurrency is None else concurrency
    return Invocation(v["id"], fill(v["argv"], node, rt), n, warmup_ops(v, warmup, n),
                      passes_of(v, passes, n), workload_args, bound)


def command(v, node, n, workload_args, concurrency=None, warmup="0", passes="1", rt=None):
    """The argv of one run (invocation()'s, rendered)."""
    return invocation(v, node, n, workload_args, concurrency, warmup, passes, rt).argv()


def check_programs(argvs):
    """EnvError naming every program that is not built (or not on the PATH)."""
    missing = sorted({c[0] for c in argvs
                      if not (os.path.isfile(c[0]) and os.access(c[0], os.X_OK))
                      and not shutil.which(c[0])})
    if missing:
        raise EnvError("not built or not executable: %s (run `make all` first)"
                       % ", ".join(os.path.relpath(m, ROOT) if os.path.isabs(m) else m
                                   for m in missing))


def make(cat, args, node):
    """The Plan of a run for the options of cli.py (profile, filters, and the
    --rounds, --warmup-rounds, --iterations and --timeout overrides)."""
    profile = args.profile
    chosen = select(cat, profile, args.filter)
    prof = cat.profile(profile)
    rounds = args.rounds or prof["rounds"]
    warmups = prof.get("warmup_rounds", 0) if args.warmup_rounds is None else args.warmup_rounds
    probes, runnable, skipped, rts = {}, [], [], {}
    store = None
    for v in chosen:
        if v.get("runtime") and store is None:
            store = runtimes_mod.Store()
        why, rts[v["id"]] = runtime(cat, v, store)
        why = why or unmet(v, node, probes, rts[v["id"]], getattr(args, "node", None) == "none")
        if why:
            skipped.append({"variant": v["id"], "reason": why})
        else:
            runnable.append(v)
    if not runnable:
        raise UsageError("nothing left to run: skipped %s" % "; ".join(
            "%s (%s)" % (s["variant"], s["reason"]) for s in skipped))
    settings = {}
    for v in runnable:
        if v["workload"] not in settings:
            settings[v["workload"]] = workload_settings(cat, v["workload"], profile, rounds, args)
    commands, servers, pts, warm, invocations = {}, {}, {}, {}, {}
    for v in runnable:
        s = settings[v["workload"]]
        rt = rts[v["id"]]
        invocations[v["id"]] = invocation(v, node, s["iterations"], s["args"],
                                          warmup=s["warmup"], passes=s["passes"], rt=rt)
        commands[v["id"]] = invocations[v["id"]].argv()
        if prof.get("warmup_iterations") and warmups:
            # A warm-up round warms the host (files, binaries, caches, servers);
            # each process warms itself before its clock, so it may run a smaller N.
            wn = expr.warmup_round_n(prof["warmup_iterations"], s["iterations"])
            s["warmup_round_iterations"] = wn
            if wn != s["iterations"]:
                warm[v["id"]] = (command(v, node, wn, s["args"], warmup=s["warmup"],
                                         passes=s["passes"], rt=rt), wn)
        pts[v["id"]] = {}
        for p in points(v, s):
            # A point's timeout grows with its N (the catalog's is for the base N).
            timeout = s["timeout_s"] * max(1.0, p["iterations"] / float(s["iterations"]))
            pts[v["id"]][p["point"]] = dict(
                p, timeout_s=timeout,
                argv=command(v, node, p["iterations"], s["args"], p["concurrency"], s["warmup"],
                             s["passes"], rt))
        spec = (v.get("requires") or {}).get("server")
        if spec:
            # A server in the variant's language runs on the variant's version too.
            servers[v["id"]] = dict(spec, argv=fill(spec["argv"], node, rt if spec.get("lang") == v["lang"] else None))
            if spec.get("warm"):
                servers[v["id"]]["warm"] = dict(spec["warm"], argv=fill(spec["warm"]["argv"], node))
    startup = startup_programs(cat, runnable, node, rts)
    check_programs(list(commands.values()) + [s["argv"] for s in servers.values()]
                   + [s["warm"]["argv"] for s in servers.values() if s.get("warm")]
                   + list(startup.values()))
    plan = Plan(profile, rounds, warmups, runnable, skipped, settings, commands, servers)
    plan.warm = warm
    plan.minutes = prof.get("minutes")
    plan.calibrate = prof.get("calibrate_passes")   # calibrate.py: passes from the warm-up
    plan.points = pts
    plan.startup = startup
    plan.invocations = invocations    # {id: Invocation}: what commands renders
    plan.lockstep = prof.get("lockstep")
    return plan


def startup_programs(cat, variants, node, rts=None):
    """{key: argv} of the empty program of every language among variants
    (suite.json's startup.programs; none without it), keyed by
    catalog.runtime_key: a pinned version's start-up is its own (node@10.24.1),
    run by that version (rts: runtime()'s answers by variant id).  The runner
    runs each once per round (DESIGN section 6)."""
    progs = (cat.suite.get("startup") or {}).get("programs") or {}
    out = {}
    for v in variants:
        key = catalog_mod.runtime_key(v)
        if v["lang"] in progs and key not in out:
            out[key] = fill(progs[v["lang"]], node, (rts or {}).get(v["id"]))
    return dict(sorted(out.items()))
