"""micro.py -- `make micro`: the C micro-benchmarks (c/micro/) beside the same
operations in Node (node/micro/micro.mjs) and Go (go/cmd/micro), in one
alternated run, and the table that compares them.

Usage: python3 -m runner.tools.micro [--rounds R] [--n N] [--seed S] [--out DIR] [--host SLUG]
                [--bin DIR] [--node PATH|none]

Each round runs every micro program once, as a fresh process, in an order
shuffled per round with random.Random(seed) (as the runner shuffles variants);
a program prints one line per figure with --tsv (id, wall ns, CPU ns per
operation, and which CPU clock: "thread" or "process"), each figure the median
of the program's own 7 timed passes of N operations after an untimed one.  The
rounds are the samples: per figure the median and its distribution-free 95%
CI over the rounds (stats.median_ci), and the ratios C/V8 and C/Go taken
round by round (the programs of one round ran side by side), then their
median and CI (stats.ratio_ci).  CPU clocks: C, the thread's
(CLOCK_THREAD_CPUTIME_ID); Node, the JavaScript thread's through the addon
node/micro/threadcpu.c, built here against Node's headers, or the whole
process's (process.cpuUsage) when it cannot be built; Go, the process's
(getrusage; goroutines are not bound to a thread) with GOMAXPROCS=1.

Writes OUT/<host>/micro-<UTC stamp>/: samples.csv (one row per program run and
figure), micro.csv and micro.md (the table), host.json; prints the table.
A program that fails, or prints a line that is not a figure, stops the run
with one line naming it (exit 1); a missing node or go program is left out
with one line.  Exit codes: 0 done, 1 a program failed, 2 usage, 3 environment.
"""
import argparse
import csv
import io
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time

from ..catalog import catalog as catalog_mod
from ..core import fmt
from ..measure import host as host_mod
from ..analysis import rundir as rd
from ..core import stats
from ..analysis import targets
from ..core.errors import EnvError
from ..core.files import write_atomic
from ..core import paths

ROOT = paths.ROOT
TIMEOUT_S = 600
LINE = re.compile(r"([a-z][a-z0-9_.]*)\t([0-9]+(?:\.[0-9]+)?)\t([0-9]+(?:\.[0-9]+)?)\t(thread|process)\Z")
CLOCKS = {"c": "thread CPU (CLOCK_THREAD_CPUTIME_ID)",
          "node": "JavaScript thread CPU (addon, CLOCK_THREAD_CPUTIME_ID)",
          "node-process": "process CPU (process.cpuUsage: every thread of node)",
          "go": "process CPU (getrusage), GOMAXPROCS=1"}
TARGETS = ("c", "node", "go")
NAMES = {"c": "C", "node": "V8", "go": "Go"}

# The table: one group per operation; the first figure of a target is the one
# the ratios use.  Figures a program does not print are left out.
GROUPS = [
    ("promise step: new + then + resolve + reaction",
     {"c": ["promise.step_batched", "promise.step"], "node": ["promise.step_batched"]}),
    ("Promise.resolve(x).then(step)",
     {"c": ["promise.resolved_then"], "node": ["promise.resolved_then"]}),
    ("one link of a chain of N .then()s",
     {"c": ["promise.chain_link"], "node": ["promise.chain_link"]}),
    ("await of a settled promise",
     {"c": ["await.settled", "await.settled_stackless"], "node": ["await.settled"]}),
    ("async function that returns at once",
     {"c": ["async.empty"], "node": ["async.empty"]}),
    ("microtask enqueue + run", {"c": ["microtask"], "node": ["microtask"]}),
    ("nextTick enqueue + run", {"c": ["nexttick"], "node": ["nexttick"]}),
    ("switch, one way",
     {"c": ["switch.one_way", "switch.raw"], "go": ["switch.chan_pingpong", "switch.gosched"]}),
]
FIGURES = {
    "promise.step": "create+then+settle+reaction, drained each time",
    "promise.step_batched": "create+then+settle+reaction, bursts of 256",
    "promise.resolved_then": "resolved().then, drained each time",
    "promise.chain_link": "then chain link",
    "await.settled": "await settled (C: stackful coroutine)",
    "await.settled_stackless": "await settled, stackless frame",
    "async.empty": "async function, empty",
    "microtask": "microtask enqueue+run",
    "nexttick": "nextTick enqueue+run",
    "switch.one_way": "resume/yield, one way",
    "switch.raw": "raw asm switch, one way",
    "switch.chan_pingpong": "unbuffered channel hand-over",
    "switch.gosched": "runtime.Gosched switch",
}
# What the Node program's figures are, where the words differ from C's.
NODE_FIGURES = {
    "promise.step_batched": "new Promise + then + resolve + reaction, bursts of 256",
    "promise.resolved_then": "Promise.resolve(x).then(step), bursts of 256",
    "await.settled": "await of a settled promise in an async function",
}

# The targets of DESIGN section 10 the micro figures judge: (what, C figure,
# bound in ns, bound on C/V8 or None), on the CPU clock (C's thread's, V8's
# JavaScript thread's).
MICRO_TARGETS = [
    ("promise create, then, settle and reaction", "promise.step_batched", 15.0, 0.6),
    ("await of a settled promise, stackful", "await.settled", 15.0, 0.6),
    ("await of a settled promise, stackless", "await.settled_stackless", 8.0, None),
    ("async function that returns at once, stackful", "async.empty", 10.0, None),
    ("coroutine switch, one way", "switch.one_way", 5.0, None),
]


class Failure(Exception):
    """A micro program failed or broke the line format: exit 1."""


class Env(Exception):
    """Something this machine lacks (exit 3)."""


def parse_lines(name, text):
    """{figure id: (wall ns, cpu ns, clock)} of one program's --tsv output;
    Failure naming the program and the first line that is not a figure."""
    out = {}
    lines = text.splitlines()
    if not lines:
        raise Failure("%s printed nothing" % name)
    for ln in lines:
        m = LINE.match(ln)
        if not m or float(m.group(2)) <= 0 or float(m.group(3)) < 0:
            raise Failure("%s printed %r, not a figure (id TAB wall ns TAB cpu ns TAB clock)"
                          % (name, ln[:120]))
        if m.group(1) in out:
            raise Failure("%s printed figure %s twice" % (name, m.group(1)))
        out[m.group(1)] = (float(m.group(2)), float(m.group(3)), m.group(4))
    return out


def node_headers(node):
    """The folder of Node's node_api.h, or None."""
    try:
        guess = subprocess.run([node, "-p", 'require("path").join(process.execPath, "..", "..", '
                                '"include", "node")'], capture_output=True, text=True,
                               timeout=30).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        guess = ""
    for d in (guess, "/usr/include/node", "/usr/local/include/node", "/opt/homebrew/include/node"):
        if d and os.path.isfile(os.path.join(d, "node_api.h")):
            return d
    return None


def build_addon(node, build):
    """Builds node/micro/threadcpu.c into BUILD/micro/threadcpu.node; its path,
    or None with a line on stderr saying why Node's CPU figures are the process's."""
    inc = node_headers(node)
    if not inc:
        print("micro.py: Node's headers (node_api.h) not found: Node's CPU figures are the "
              "whole process's (Debian: apt-get install libnode-dev)", file=sys.stderr)
        return None
    out = os.path.join(build, "micro", "threadcpu.node")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    shared = ["-bundle", "-undefined", "dynamic_lookup"] if sys.platform == "darwin" else ["-shared"]
    cmd = [os.environ.get("CC") or "cc", "-std=c11", "-O2", "-fPIC", "-Wall", "-Wextra",
           "-D_GNU_SOURCE", "-I" + inc] + shared + ["-o", out,
                                                    os.path.join(ROOT, "node", "micro", "threadcpu.c")]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        print("micro.py: the thread-CPU addon did not build (%s): Node's CPU figures are the "
              "whole process's" % (p.stderr.strip().splitlines() or ["?"])[-1], file=sys.stderr)
        return None
    return out


def programs(bin_dir, node, n, addon):
    """[(target, name, argv, env)] of the micro programs this machine has."""
    out = []
    for f in sorted(os.listdir(bin_dir)) if os.path.isdir(bin_dir) else []:
        if f.startswith("micro-") and os.access(os.path.join(bin_dir, f), os.X_OK):
            out.append(("c", f, [os.path.join(bin_dir, f), str(n), "--tsv"], {}))
    if not out:
        raise Env("no C micro program in %s (run `make all` first)" % bin_dir)
    if node:
        env = {"MICRO_THREADCPU": addon} if addon else {}
        out.append(("node", "node/micro/micro.mjs",
                    [node, os.path.join(ROOT, "node", "micro", "micro.mjs"), str(n), "--tsv"], env))
    else:
        print("micro.py: no node: the V8 figures are left out", file=sys.stderr)
    go = os.path.join(bin_dir, "go-micro")
    if os.access(go, os.X_OK):
        out.append(("go", "go-micro", [go, str(n), "--tsv"], {}))
    else:
        print("micro.py: %s is not built: the Go figures are left out" % go, file=sys.stderr)
    return out


def run_program(name, argv, env):
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT_S, cwd=ROOT,
                           env=dict(os.environ, **env))
    except OSError as e:
        raise Failure("%s cannot run: %s" % (name, e.strerror or e))
    except subprocess.TimeoutExpired:
        raise Failure("%s did not finish within %d s" % (name, TIMEOUT_S))
    if p.returncode != 0:
        why = p.stderr.strip().splitlines()
        raise Failure("%s exited %d: %s" % (name, p.returncode, why[0] if why else "(no message)"))
    return parse_lines(name, p.stdout)


def measure(progs, rounds, seed, log=None):
    """samples: [{"round", "order", "target", "program", "figure", "wall_ns",
    "cpu_ns", "clock"}] of `rounds` rounds of every program, shuffled per round."""
    rng = random.Random(seed)
    samples = []
    for rnd in range(1, rounds + 1):
        order = list(progs)
        rng.shuffle(order)
        for pos, (target, name, argv, env) in enumerate(order, start=1):
            if log:
                log("round %d/%d  %s" % (rnd, rounds, name))
            for fig, (wall, cpu, clock) in run_program(name, argv, env).items():
                samples.append({"round": rnd, "order": pos, "target": target, "program": name,
                                "figure": fig, "wall_ns": wall, "cpu_ns": cpu, "clock": clock})
    return samples


def _series(samples, target, fig, key):
    return {s["round"]: s[key] for s in samples if s["target"] == target and s["figure"] == fig}


def _ratio(samples, num, den, key):
    """(median, low, high) of the per-round ratios num/den ((target, figure)) by key."""
    a, b = _series(samples, num[0], num[1], key), _series(samples, den[0], den[1], key)
    return stats.ratio_ci(stats.paired_ratios(a, b))


def table_rows(samples):
    """The rows of the table: per group and figure present, its medians and CIs,
    its CPU clock, and for C rows the ratios to V8's and Go's first figure of the
    group (CPU and wall, paired by round)."""
    have = {(s["target"], s["figure"]) for s in samples}
    rows = []
    for op, figs in GROUPS:
        first = {t: next((f for f in figs.get(t, []) if (t, f) in have), None) for t in TARGETS}
        for t in TARGETS:
            for f in figs.get(t, []):
                if (t, f) not in have:
                    continue
                mine = [s for s in samples if s["target"] == t and s["figure"] == f]
                row = {"operation": op, "target": t, "figure": f, "n": len(mine),
                       "clock": mine[0]["clock"]}
                for key in ("wall_ns", "cpu_ns"):
                    xs = [s[key] for s in mine]
                    ci = stats.median_ci(xs)
                    row[key] = stats.median(xs)
                    row[key + "_low"], row[key + "_high"] = (ci[0], ci[1]) if ci else (None, None)
                for other in ("node", "go"):
                    for key in ("cpu_ns", "wall_ns"):
                        r = (None, None, None)
                        if t == "c" and first[other]:
                            r = _ratio(samples, (t, f), (other, first[other]), key)
                        pre = "c_%s_%s" % (other, key.split("_")[0])
                        row[pre], row[pre + "_low"], row[pre + "_high"] = r
                rows.append(row)
    return rows


CSV_COLUMNS = ["operation", "target", "figure", "n", "clock",
               "wall_ns", "wall_ns_low", "wall_ns_high", "cpu_ns", "cpu_ns_low", "cpu_ns_high",
               "c_node_cpu", "c_node_cpu_low", "c_node_cpu_high",
               "c_node_wall", "c_node_wall_low", "c_node_wall_high",
               "c_go_cpu", "c_go_cpu_low", "c_go_cpu_high",
               "c_go_wall", "c_go_wall_low", "c_go_wall_high"]
SAMPLE_COLUMNS = ["round", "order", "target", "program", "figure", "wall_ns", "cpu_ns", "clock"]


def _csv(rows, columns):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(columns)
    for r in rows:
        w.writerow(["" if r.get(c) is None else ("%.6g" % r[c] if isinstance(r[c], float) else r[c])
                    for c in columns])
    return buf.getvalue()


def fmt_ns(m, lo, hi):
    """A figure in ns with its CI: '3.42 [3.40, 3.45]', '[n too small]' without one."""
    if m is None:
        return "-"
    ci = "[%s, %s]" % (fmt.num(lo), fmt.num(hi)) if lo is not None else "[n too small]"
    return "%s %s" % (fmt.num(m), ci)


def fmt_ratio(m, lo, hi):
    """C over V8 or Go with its CI; '' when the pair was not measured."""
    return "" if m is None else fmt.ratio(m, lo, hi, no_ci="[n too small]")


def figure_name(row):
    if row["target"] == "node" and row["figure"] in NODE_FIGURES:
        return NODE_FIGURES[row["figure"]]
    return FIGURES.get(row["figure"], row["figure"])


def clock_name(row):
    if row["target"] == "node":
        return CLOCKS["node" if row["clock"] == "thread" else "node-process"]
    return CLOCKS[row["target"]]


def markdown(rows, meta):
    """The table as Markdown, with what each CPU clock is."""
    out = ["# Micro figures: C beside V8 and Go", "",
           "%s rounds of every micro program in shuffled order (shuffle seed %s), N = %s operations "
           "per pass; each sample is a program's median of 7 timed passes, each figure the "
           "median over the rounds with its distribution-free 95%% CI; ratios are C over V8 or "
           "Go, paired round by round. Host %s, %s." % (
               meta["rounds"], meta["seed"], "{:,}".format(meta["n"]), meta["host"], meta["stamp"]),
           "", "| operation | target: figure | wall ns [95% CI] | CPU ns [95% CI] | CPU clock "
           "| C/V8 CPU | C/V8 wall | C/Go CPU | C/Go wall |",
           "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        out.append("| %s | %s: %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["operation"], NAMES[r["target"]], figure_name(r),
            fmt_ns(r["wall_ns"], r["wall_ns_low"], r["wall_ns_high"]),
            fmt_ns(r["cpu_ns"], r["cpu_ns_low"], r["cpu_ns_high"]), clock_name(r),
            fmt_ratio(r["c_node_cpu"], r["c_node_cpu_low"], r["c_node_cpu_high"]),
            fmt_ratio(r["c_node_wall"], r["c_node_wall_low"], r["c_node_wall_high"]),
            fmt_ratio(r["c_go_cpu"], r["c_go_cpu_low"], r["c_go_cpu_high"]),
            fmt_ratio(r["c_go_wall"], r["c_go_wall_low"], r["c_go_wall_high"])))
    out += ["", "A ratio below 1 means C is faster. The CPU ratio against Go compares C's "
            "thread clock with Go's process clock (GOMAXPROCS=1): read the wall ratio beside it. "
            "Against V8 the CPU ratio is thread against thread when the clock column says so."]
    out += targets_markdown(rows)
    return "\n".join(out) + "\n"


def judge(rows):
    """[(what, measured, bound, verdict)] of MICRO_TARGETS whose C figure the
    rows hold: each bound by stats.bound_verdict on the figure's CPU interval
    (met only when the whole interval is within it)."""
    out = []
    for what, fig, ns, ratio in MICRO_TARGETS:
        r = next((r for r in rows if r["target"] == "c" and r["figure"] == fig), None)
        if r is None:
            continue
        checks = [(fmt_ns(r["cpu_ns"], r["cpu_ns_low"], r["cpu_ns_high"]) + " ns",
                   "≤ %s ns" % fmt.num(ns), r["cpu_ns_low"], r["cpu_ns_high"], ns)]
        if ratio is not None and r["c_node_cpu"] is not None:
            checks.append((fmt_ratio(r["c_node_cpu"], r["c_node_cpu_low"], r["c_node_cpu_high"])
                           + " of V8", "≤ %.2fx V8" % ratio, r["c_node_cpu_low"],
                           r["c_node_cpu_high"], ratio))
        for measured, bound, lo, hi, b in checks:
            verdict, res = stats.bound_verdict(lo, hi, b)
            verdict = targets.verdict_text(verdict, res is not None and fmt.num(res),
                                           "too few rounds for an interval")
            out.append(("%s (C: %s)" % (what, FIGURES[fig]), measured, bound, verdict))
    return out


def targets_markdown(rows):
    """The Targets section of micro.md (nothing when no target's figure ran)."""
    judged = judge(rows)
    if not judged:
        return []
    out = ["", "## Targets", "",
           "DESIGN section 10's bounds on these figures, on the CPU clock. *Met* only when the "
           "whole 95% interval is within the bound, *missed* when it is entirely beyond it, "
           "otherwise *not resolvable on this host*.", "",
           "| target | measured | bound | verdict |", "|---|---|---|---|"]
    out += ["| %s | %s | %s | **%s** |" % j for j in judged]
    return out


def parse_args(argv):
    p = argparse.ArgumentParser(prog="python3 -m runner.tools.micro", description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=10)
    p.add_argument("--n", type=int, default=1000000)
    p.add_argument("--seed", type=int)
    p.add_argument("--out", default=os.path.join(ROOT, "results"))
    p.add_argument("--host")
    p.add_argument("--bin", default=None)
    p.add_argument("--node", default=None)
    args = p.parse_args(argv)
    if not 1 <= args.rounds <= 1000:
        p.error("--rounds must be from 1 to 1000")
    if not 1 <= args.n <= 10 ** 9:
        p.error("--n must be from 1 to 1000000000")
    return args


def main(argv):
    args = parse_args(argv)
    bin_dir = args.bin or os.path.join(catalog_mod.build_dir(), "bin")
    node = None
    if args.node != "none":
        node = shutil.which(args.node) if args.node else host_mod.tool("node")
    seed = args.seed if args.seed is not None else time.time_ns() % (2 ** 32)
    try:
        addon = build_addon(node, os.path.dirname(os.path.abspath(bin_dir))) if node else None
        progs = programs(bin_dir, node, args.n, addon)
        hinfo = host_mod.info(args.host)
        folder, stamp = rd.make_run_folder(os.path.abspath(args.out), hinfo["slug"], "micro-",
                                           charts=False)
    except Env as e:
        print("micro.py: %s" % e, file=sys.stderr)
        return 3
    except EnvError as e:
        print("micro.py: %s" % e, file=sys.stderr)
        return 3
    except OSError as e:
        print("micro.py: cannot make the results folder: %s" % e, file=sys.stderr)
        return 3
    print("micro.py: %d programs x %d rounds, N = %d, shuffle seed %d -> %s"
          % (len(progs), args.rounds, args.n, seed, rd.shown(folder)), file=sys.stderr)
    try:
        samples = measure(progs, args.rounds, seed,
                          lambda s: print("micro.py: " + s, file=sys.stderr))
    except Failure as e:
        print("micro.py: %s" % e, file=sys.stderr)
        return 1
    rows = table_rows(samples)
    meta = {"rounds": args.rounds, "seed": seed, "n": args.n, "host": hinfo["slug"], "stamp": stamp}
    write_atomic(os.path.join(folder, "samples.csv"), _csv(samples, SAMPLE_COLUMNS))
    write_atomic(os.path.join(folder, "micro.csv"), _csv(rows, CSV_COLUMNS))
    md = markdown(rows, meta)
    write_atomic(os.path.join(folder, "micro.md"), md)
    write_atomic(os.path.join(folder, "host.json"), json.dumps(hinfo, indent=2) + "\n")
    print(md, end="")
    print("micro.py: written to %s" % rd.shown(folder), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
