"""counts.py -- `make counts`: instructions per operation of the C, Go and
Rust variants, counted under Valgrind, exact where the clock is not.

Usage: python3 -m runner.tools.counts [--profile P] [--filter RE]... [--n N1,N2] [--repeat K]
                 [--breakdown] [--out DIR] [--host SLUG] [--into RUNDIR]

Every C, Go and Rust variant of the profile that matches a filter (all of them
without one) runs under `valgrind --tool=cachegrind --cache-sim=no` at two N, N2 a
tenth of the profile's N of its workload and N1 a tenth of N2 (Valgrind runs
a program some 50 times slower, callgrind more: Go's goroutine-per-call
asyncfib at the profile's N took over 8 minutes a run; --n gives both N for
every workload), with the same --warmup W at both (the workload's warm-up at N1),
one timed pass and the workload's own flags, as the runner would run it.  Valgrind counts
the instructions every thread of the process executed ("I refs"); the
difference between the two runs over N2 - N1 is the instructions of one
operation: start-up, the warm-up, the fixture check and the exit are the
same at both N and cancel.  Each run's line is checked as the runner checks
it (its variant, N and ok count), so a count is never of a failed pass.

--repeat K counts each variant K times at both N: the rows then say how far
the K figures lie apart.  A run's count varies by a few thousand
instructions on a quiet host and by some 30,000 on a loaded one (the
threadpool's threads meet on futexes a varying number of times, and the
loop turns a varying number of times while a read is in the pool), the
same at any N, so the difference over N2 - N1 divides it away: at N =
100,000 and 1,000,000, three counts of each cacheloop variant agree to
0.03% on a quiet host; the tests hold two counts 500,000 operations apart
to 0.1%.

--breakdown counts under callgrind instead (Go with GODEBUG=asyncpreemptoff=1:
callgrind cannot follow the signal Go preempts with) and splits each operation's
instructions by where they were spent, from each instruction's source file
and function (code a compiler inlined counts where its source is):
  alloc      malloc, free and the rest of glibc's allocator
  promise    c/lib/promise*
  microtask  c/lib/microtask*
  switch     c/lib/coro*, the switch's assembly, c/lib/fiber*
  stack      c/lib/stack* (the coroutine stacks and their pool)
  async      c/lib/async* (the stackful await) and c/lib/stackless*
  libuv      the libuv library
  program    the rest of the program (the workload, the mode skeletons, the
             harness; Go: the project's own go/ sources)
  other      the rest of libc and the dynamic loader (Go: its runtime and
             standard library, but for mallocgc, which is alloc)

Not counted: variants that need a server (httpchain's clients: the count
would need the server under Valgrind too) and the Node variants: V8's
compiler and collector threads change a run's count by millions of
instructions (cacheloop's sync at N = 10,000 and 110,000, twice: 339 and
408 instructions a load), where Go's runtime varies by some 25,000 and its
figure holds (177.4 a load both times).  Each left out says why in one line.

Writes OUT/<host>/counts-<UTC stamp>/: counts.csv (a row per variant),
counts.md (the table) and host.json; prints the table.  --into RUNDIR (make
counts RUN=RUNDIR) counts the C, Go and Rust variants of that run, in its profile,
and writes counts.csv, counts.md and counts.json (the stamp, the tool, the
commit counted, the run's, and whether their C, Go and Rust sources are the same)
into the run folder, where REPORT.md's "Instructions per operation" section
puts them beside the run's times (report.py).  Exit codes: 0 done,
1 a variant failed (the others are still counted and written), 2 usage,
3 environment (no valgrind, a program not built).
"""
import argparse
import csv
import io
import json
import os
import re
import subprocess
import sys
import time

from ..catalog import catalog as catalog_mod
from ..catalog import contract
from ..measure import host as host_mod
from ..measure import plan as plan_mod
from ..analysis import rundir as rd
from ..analysis import runfolder
from ..core.errors import EnvError, UsageError
from ..core.files import write_atomic

TIMEOUT_S = 900
IREFS = re.compile(r"^==\d+== I\s+refs:\s+([\d,]+)\s*$", re.M)
CATEGORIES = ("alloc", "promise", "microtask", "switch", "stack", "async", "libuv",
              "program", "other")
# callgrind_annotate's lines: "  1,234 (12.3%)  file:function [object]".
ANNOTATED = re.compile(r"^\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(.*?):(\S+)(?:\s+\[(.*)\])?\s*$")
ALLOCATOR = re.compile(r"^(malloc|free|calloc|realloc|cfree|_int_malloc|_int_free|"
                       r"_int_realloc|malloc_consolidate|tcache_\w+|sysmalloc|"
                       r"unlink_chunk|alloc_perturb|posix_memalign|_mid_memalign|"
                       r"aligned_alloc|__libc_\w*alloc\w*|__libc_free|runtime\.mallocgc\w*)$")
COLUMNS = ["variant", "workload", "style", "n1", "n2", "warmup", "repeat", "instr_n1",
           "instr_n2", "instr_per_op", "spread_per_op"] + ["per_op_" + c for c in CATEGORIES]


# Why the Node variants are not counted.
NOT_COUNTED = ("V8's compiler and collector threads change a run's count by millions of "
               "instructions, so a difference over N is not the operation's")


class Failure(Exception):
    """A variant's run that did not give a count (one line)."""


def category(path, function, obj):
    """The breakdown's category of an instruction from its source file path,
    function and object (callgrind's file:function [object])."""
    base = os.path.basename(path)
    if ALLOCATOR.match(function) or base in ("malloc.c", "arena.c", "hooks.c"):
        return "alloc"
    if "libuv" in (obj or "") or "/libuv" in path or base.startswith("uv"):
        return "libuv"
    if "/c/lib/" in path or path.startswith("c/lib/"):
        for prefix, cat in (("promise", "promise"), ("microtask", "microtask"),
                            ("coro", "switch"), ("fiber", "switch"), ("stack.", "stack"),
                            ("async", "async"), ("stackless", "async")):
            if base.startswith(prefix):
                return cat
        return "program"
    if "/c/" in path or path.startswith(("c/", "go/")) or function.startswith("asyncstyles/"):
        return "program"
    return "other"


def breakdown(text):
    """{category: instructions} from callgrind_annotate --inclusive=no's text."""
    out = dict.fromkeys(CATEGORIES, 0)
    for line in text.splitlines():
        m = ANNOTATED.match(line)
        if m:   # the PROGRAM TOTALS line has no file:function, so never matches
            out[category(m.group(2), m.group(3), m.group(4))] += int(m.group(1).replace(",", ""))
    return out


def instructions(stderr):
    """Valgrind's I refs from its stderr, or None."""
    m = IREFS.search(stderr)
    return int(m.group(1).replace(",", "")) if m else None


def run_one(valgrind, argv, v, n, out_file, tool):
    """Runs argv under valgrind's tool; the instruction count ({category:
    count} too for callgrind).  Failure when the program fails or its line
    is not a valid pass of v at N = n."""
    vg = [valgrind, "--tool=" + tool]
    env = dict(os.environ, **(v.get("env") or {}))
    if tool == "cachegrind":
        vg += ["--cache-sim=no", "--cachegrind-out-file=/dev/null"]
    else:
        vg += ["--callgrind-out-file=" + out_file]
        if v["lang"] == "go":
            # callgrind fails an assertion on the signal Go's scheduler
            # preempts a goroutine with (SIGURG); cachegrind does not.
            env["GODEBUG"] = ",".join(x for x in (env.get("GODEBUG"), "asyncpreemptoff=1") if x)
    try:
        p = subprocess.run(vg + argv, capture_output=True, text=True, timeout=TIMEOUT_S,
                           stdin=subprocess.DEVNULL, env=env)
    except subprocess.TimeoutExpired:
        raise Failure("%s at N = %d: no end within %d s under valgrind" % (v["id"], n, TIMEOUT_S))
    if p.returncode != 0:
        tail = [ln for ln in p.stderr.splitlines() if ln.strip() and not ln.startswith("==")]
        raise Failure("%s at N = %d: exit %d under valgrind%s" % (
            v["id"], n, p.returncode, (": " + tail[-1]) if tail else ""))
    why = contract.problem(v, n, p.stdout, concurrency=v["concurrency"])
    if why:
        raise Failure("%s at N = %d: %s" % (v["id"], n, why))
    if tool == "cachegrind":
        count = instructions(p.stderr)
        if count is None:
            raise Failure("%s at N = %d: valgrind printed no I refs" % (v["id"], n))
        return count, None
    ann = subprocess.run([os.path.join(os.path.dirname(valgrind), "callgrind_annotate"), "--inclusive=no", "--threshold=100", out_file],
                         capture_output=True, text=True, timeout=TIMEOUT_S)
    os.unlink(out_file)
    if ann.returncode != 0:
        raise Failure("%s at N = %d: callgrind_annotate failed" % (v["id"], n))
    parts = breakdown(ann.stdout)
    return sum(parts.values()), parts


def count_variant(valgrind, v, argv_at, n1, n2, repeat, tool, scratch):
    """The row of one variant: both N counted repeat times; the per-operation
    figure is the median of the repeats' differences over N2 - N1, and
    spread_per_op how far the repeats' figures lie apart."""
    per_op, firsts, parts_per_op = [], None, None
    for k in range(repeat):
        i1, b1 = run_one(valgrind, argv_at(n1), v, n1, os.path.join(scratch, "cg.%d.1" % k), tool)
        i2, b2 = run_one(valgrind, argv_at(n2), v, n2, os.path.join(scratch, "cg.%d.2" % k), tool)
        per_op.append((i2 - i1) / float(n2 - n1))
        if firsts is None:
            firsts = (i1, i2)
            if b1 is not None:
                parts_per_op = {c: (b2[c] - b1[c]) / float(n2 - n1) for c in CATEGORIES}
    per_op.sort()
    row = {"variant": v["id"], "workload": v["workload"], "style": v["style"], "n1": n1,
           "n2": n2, "repeat": repeat, "instr_n1": firsts[0], "instr_n2": firsts[1],
           "instr_per_op": per_op[len(per_op) // 2], "spread_per_op": per_op[-1] - per_op[0]}
    for c in CATEGORIES:
        row["per_op_" + c] = None if parts_per_op is None else parts_per_op[c]
    return row


def fmt(x):
    if x is None:
        return "-"
    if abs(x) < 0.05:
        return "0"
    return "{:,.1f}".format(x) if abs(x) < 1000 else "{:,.0f}".format(x)


def fmt_spread(r):
    """The repeats' spread as a share of the figure: '0.004%'; '-' for one count."""
    if r["repeat"] < 2:
        return "-"
    if not r["instr_per_op"]:
        return fmt(r["spread_per_op"])
    return "%.3f%%" % (100.0 * r["spread_per_op"] / abs(r["instr_per_op"]))


def markdown(rows, meta):
    """counts.md: a table per workload, variants in catalog order."""
    out = ["# Instructions per operation, %s, %s" % (meta["host"], meta["stamp"]), "",
           "Counted under Valgrind (%s) at two N with the same warm-up, the difference over "
           "N2 - N1: start-up, warm-up and exit cancel. Every thread of the process is counted "
           "(libuv's threadpool included); the kernel's work is not. *Spread*: how far the "
           "repeated counts of a variant lie apart, as a share of its figure." % meta["tool"], ""]
    split = any(r["per_op_alloc"] is not None for r in rows)
    for w in sorted({r["workload"] for r in rows}):
        head = ["variant", "instructions/op", "spread"] + (list(CATEGORIES) if split else [])
        n1, n2 = next((r["n1"], r["n2"]) for r in rows if r["workload"] == w)
        out += ["## %s (N = %s and %s)" % (w, format(n1, ","), format(n2, ",")), "",
                "| " + " | ".join(head) + " |",
                "|---|" + "---:|" * (len(head) - 1)]
        for r in [r for r in rows if r["workload"] == w]:
            cells = ["`%s`" % r["variant"].split("/", 1)[1], fmt(r["instr_per_op"]),
                     fmt_spread(r)]
            if split:
                cells += [fmt(r["per_op_" + c]) for c in CATEGORIES]
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
    for s in meta["left_out"]:
        out.append("- left out: %s: %s" % (s["variant"], s["reason"]))
    for s in meta["failed"]:
        out.append("- **failed**: %s" % s)
    return "\n".join(out).rstrip() + "\n"


def write_csv(rows):
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\n", extrasaction="ignore")
    w.writeheader()
    for r in rows:
        w.writerow({k: ("" if r.get(k) is None else
                        ("%.3f" % r[k] if isinstance(r[k], float) else r[k])) for k in COLUMNS})
    return buf.getvalue()


def parse_n(text):
    try:
        n1, n2 = (int(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError("--n takes two N, N1,N2 (e.g. 1000,11000)")
    if not 0 < n1 < n2 <= 10 ** 7:
        raise argparse.ArgumentTypeError("--n: give 0 < N1 < N2 <= 10,000,000, got %s" % text)
    return n1, n2


def parse_args(argv):
    ap = argparse.ArgumentParser(prog="python3 -m runner.tools.counts", description=__doc__.split("\n\n")[0])
    ap.add_argument("--profile", default="default")
    ap.add_argument("--filter", action="append", default=[], metavar="RE")
    ap.add_argument("--n", type=parse_n, default=None, metavar="N1,N2")
    ap.add_argument("--repeat", type=int, default=1, choices=range(1, 11), metavar="K")
    ap.add_argument("--breakdown", action="store_true")
    ap.add_argument("--out", default=os.path.join(plan_mod.ROOT, "results"))
    ap.add_argument("--host", default=None)
    ap.add_argument("--into", default=None, metavar="RUNDIR")
    return ap.parse_args(argv)


def into_run(args):
    """--into RUNDIR: the run's profile, and a filter of exactly its variants
    (UsageError when RUNDIR is not a run folder)."""
    try:
        run = runfolder.RunFolder(args.into).recorded
        ids = [v["id"] if isinstance(v, dict) else v for v in run["variants"]]
        profile = run["profile"]
    except (EnvError, KeyError, TypeError) as e:
        raise UsageError("--into %s: not a run folder with a readable run.json (%s)" % (
            args.into, e))
    if args.filter or args.profile != "default":
        raise UsageError("--into takes the run's profile and variants: "
                         "no --profile or --filter beside it")
    return profile, ["^%s$" % re.escape(i) for i in ids if isinstance(i, str)]


def same_sources(counted, run):
    """True when the sources counted (commit counted, or the working tree when
    it ends in -dirty) and the run's commit have the same c/ and go/ trees,
    False when not, None when git cannot tell (no repository, an unknown
    commit, a run made from a tree with changes of its own)."""
    if not counted or not run or run.endswith("-dirty"):
        return None
    trees = [run] if counted.endswith("-dirty") else [counted, run]
    try:
        p = subprocess.run(["git", "-C", plan_mod.ROOT, "diff", "--quiet"] + trees + ["--", "c", "go", "rust"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return {0: True, 1: False}.get(p.returncode)


def chosen(cat, profile, filters):
    """(variants to count, [{"variant", "reason"}] left out)."""
    picked, left, probes, others = [], [], {}, []
    for v in plan_mod.select(cat, profile, filters):
        if v["lang"] not in ("c", "go", "rust"):
            others.append(v)
        elif (v.get("requires") or {}).get("server"):
            left.append({"variant": v["id"], "reason": "needs a server, which would have to "
                         "run under Valgrind too"})
        else:
            why = plan_mod.unmet(v, None, probes)
            if why:
                left.append({"variant": v["id"], "reason": why})
            else:
                picked.append(v)
    if others:
        langs = sorted({v["lang"] for v in others})
        left.append({"variant": "%d %s variant%s" % (len(others), " and ".join(
            {"go": "Go", "node": "Node"}.get(x, x) for x in langs), "" if len(others) == 1 else "s"),
            "reason": NOT_COUNTED})
    return picked, left


def main(argv):
    args = parse_args(argv)
    say = lambda s: print("counts.py: " + s, file=sys.stderr)  # noqa: E731
    try:
        valgrind = host_mod.tool("valgrind")
        if not valgrind:
            raise EnvError("valgrind is not installed (make deps installs it)")
        cat = plan_mod.load_catalog(catalog_mod.DIR)
        profile, filters = into_run(args) if args.into else (args.profile, args.filter)
        variants, left = chosen(cat, profile, filters)
        if not variants:
            raise UsageError("no C, Go or Rust variant to count: %s" % "; ".join(
                "%s (%s)" % (s["variant"], s["reason"]) for s in left[:3]))
        settings = {}
        for v in variants:
            if v["workload"] not in settings:
                ns = argparse.Namespace(timeout=None, iterations=args.n and args.n[1], rounds=1)
                s = plan_mod.workload_settings(cat, v["workload"], profile, 1, ns)
                n2 = max(10, s["iterations"] // 10)
                s["n"] = args.n or (max(1, n2 // 10), n2)
                settings[v["workload"]] = s
        plan_mod.check_programs([plan_mod.fill(v["argv"], None) for v in variants])
        hinfo = host_mod.info(args.host)
        if args.into:
            folder = args.into
        else:
            folder, _ = rd.make_run_folder(os.path.abspath(args.out), hinfo["slug"], "counts-",
                                           charts=False)
    except UsageError as e:
        say(str(e))
        return 2
    except (EnvError, OSError) as e:
        say(str(e))
        return 3
    for s in left:
        say("left out %s: %s" % (s["variant"], s["reason"]))
    tool = "callgrind" if args.breakdown else "cachegrind"
    say("%d variants at two N each (%s) under valgrind --tool=%s, %d time%s each -> %s" % (
        len(variants), ", ".join("%s %d and %d" % (w, s["n"][0], s["n"][1])
                                 for w, s in sorted(settings.items())),
        tool, args.repeat, "" if args.repeat == 1 else "s", rd.shown(folder)))
    rows, failed = [], []
    for i, v in enumerate(variants, 1):
        s = settings[v["workload"]]
        n1, n2 = s["n"]
        warm = plan_mod.warmup_ops(v, s["warmup"], n1)

        def argv_at(n, v=v, s=s, warm=warm):
            # The warm-up as a constant expression: the same W at both N.
            return plan_mod.command(v, None, n, s["args"], warmup=str(warm), passes="1")
        try:
            row = count_variant(valgrind, v, argv_at, n1, n2, args.repeat, tool, folder)
        except Failure as e:
            failed.append(str(e))
            say("failed: %s" % e)
            continue
        row["warmup"] = warm
        rows.append(row)
        say("[%d/%d] %s: %s instructions/op" % (i, len(variants), v["id"],
                                                 fmt(row["instr_per_op"])))
    meta = {"host": hinfo["slug"], "stamp": os.path.basename(folder), "tool": tool,
            "left_out": left, "failed": failed}
    write_atomic(os.path.join(folder, "counts.csv"), write_csv(rows))
    md = markdown(rows, meta)
    write_atomic(os.path.join(folder, "counts.md"), md)
    if args.into:
        try:
            run_commit = runfolder.RunFolder(folder).host.get("git_commit")
        except EnvError:
            run_commit = None
        info = {"stamp": time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()), "tool": tool,
                "host": hinfo["slug"], "commit": hinfo.get("git_commit"), "run_commit": run_commit,
                "same_sources": same_sources(hinfo.get("git_commit"), run_commit),
                "n": {w: list(s["n"]) for w, s in sorted(settings.items())},
                "left_out": left, "failed": failed}
        write_atomic(os.path.join(folder, "counts.json"), json.dumps(info, indent=2) + "\n")
    else:
        write_atomic(os.path.join(folder, "host.json"), json.dumps(hinfo, indent=2) + "\n")
    print(md, end="")
    say("written to %s" % rd.shown(folder))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
