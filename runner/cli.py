"""cli.py -- the runner's command line: the options, their checks, the usage text.

Usage:
  python3 -m runner --profile PROFILE [--rounds R] [--warmup-rounds W] [--filter REGEX]...
                    [--iterations N] [--out DIR] [--host SLUG] [--seed S] [--timeout S]
                    [--catalog DIR] [--node PATH|none] [--no-trace] [--no-charts] [--wide] [--yes]
                    [--check] [--no-extra-rounds] [--no-lockstep] [--noise]
  python3 -m runner --render RUNDIR [--no-charts] [--wide]
                              redraw summaries, charts, exports and REPORT.md from
                              RUNDIR/samples.csv (run.json and host.json when present)
  python3 -m runner --hosts [DIR]
                              cross-host charts from every run under DIR (default
                              results) into DIR/hosts/

Each round runs every selected variant once, as a fresh process, in an order
shuffled per round with random.Random(seed), in blocks (a workload's variants
together, within it the variants a ratio compares); W warm-up rounds come first and are
not recorded in samples.csv.  N and the timeout of a program run are the
workload's own for the profile (catalog/<workload>.json); --iterations
and --timeout override them for every workload.  A workload that lists fewer
rounds than the profile runs only in the first of them.  A variant whose
requirement is not met (its OS, node, a probe) is skipped with one line saying
why.  Every sample is appended to samples.csv as it arrives, so Ctrl-C keeps
what was measured (the run is marked incomplete and the runner exits 130).  A
new run folder is made under OUT/<host>/<UTC stamp>/; an existing one is never
overwritten, and OUT/latest points at the newest.  After the rounds, on Linux
with strace, each variant runs twice more under strace to count its system
calls per operation (runner/measure/trace.py; --no-trace skips it).  --no-charts writes
the summaries, exports and REPORT.md without drawing a chart (about a second
each; `make plots RUN=DIR` draws them later).  A profile with extra_rounds
(suite.json) adds rounds after its planned ones for the targets and claims still
open, then for the headline's comparisons still open (runner/measure/sequential.py); --no-extra-rounds runs the planned rounds only,
and so does --rounds.  A profile with lockstep (suite.json) then runs every pair of
variants a ratio compares as process pairs alternated pass by pass
(runner/measure/lockstep.py), and its ratios are theirs; --no-lockstep leaves it out.
--noise runs a load on the programs' CPU, on and off at random every 50 to
500 ms, through the measured rounds and the lockstep (runner/measure/load.py): noise
any user can repeat.

Before it starts, the run's duration is estimated (at the wall times of the
newest run under OUT, or at a program's start-up time for a variant it did
not run) and said on the first line; beyond an hour a terminal is asked
first, and beyond a day a run that cannot ask is refused unless --yes.

Bounds: --rounds and --warmup-rounds at most %(MAX_ROUNDS)d, --iterations 1 to
%(MAX_ITERATIONS)d, --timeout %(MIN_TIMEOUT)g s to %(MAX_TIMEOUT)d s (24 h), --seed 0 to 2^64 - 1;
--filter must not be empty; --host must not be a name the runner uses in the
results folder (%(RESERVED)s).

Exit codes: 0 the run finished (failed runs are recorded, not fatal); 1 the
charts could not be drawn, or a workload or a variant has no valid sample
(every one of its runs failed; the samples are kept), or the runner itself
crashed (a bug: run.json and REPORT.md say so, crash.txt keeps the
traceback, the samples are kept); 2 usage error (or a
long run not started); 3
environment error (unwritable output folder, a program or build/bin/launch
not built, a bad catalog); 130 interrupted.
"""
import argparse
import os
import re

from .catalog import catalog_check
from .core import expr
from .core.errors import UsageError
from .core import paths

# Every numeric option is bounded: a huge --timeout overflows the timer thread
# (a hung program then hangs the runner), a tiny one makes every run an
# instant timeout, and a huge --rounds sits building the order.
# The catalog's own figures have the same upper bounds (runner/catalog/catalog_check.py, runner/core/expr.py).
MAX_ROUNDS = catalog_check.MAX_ROUNDS
MAX_ITERATIONS = expr.MAX_ITERATIONS
MIN_TIMEOUT = catalog_check.MIN_TIMEOUT_S
MAX_TIMEOUT = catalog_check.MAX_TIMEOUT_S
MAX_SEED = 2 ** 64 - 1
# Names the runner itself uses directly under the results folder: a host slug
# must be none of them (--host latest put the run inside the previous run and
# made latest a link to itself; --host hosts hid the run from `make hosts`).
RESERVED_HOSTS = ("latest", "hosts", "reference")
HOST_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")

ROOT = paths.ROOT
CATALOG_DIR = paths.CATALOG


class _Once(argparse.Action):
    """Stores an option's value, or its presence (nargs=0), and refuses it given
    a second time: argparse would keep the last silently.  Every option given
    goes into the namespace's `given` list, in command-line order."""

    def __init__(self, option_strings, dest, const=None, nargs=None, **kw):
        self.flag = const is True and nargs is None
        super().__init__(option_strings, dest, nargs=0 if self.flag else nargs,
                         const=None if self.flag else const, **kw)

    def __call__(self, parser, namespace, values, option_string=None):
        given = getattr(namespace, "given", None)
        if given is None:
            given = []
            setattr(namespace, "given", given)
        if self.dest in [d for d, _ in given]:
            raise UsageError("%s is given twice: say it once" % self.option_strings[0])
        if values == "":
            # Often an unset shell variable: --out "" put the run folder and a
            # `latest` link into the current folder, --node "" meant any node.
            raise UsageError("%s '' is empty: give a value, or leave %s out"
                             % (self.option_strings[0], self.option_strings[0]))
        given.append((self.dest, option_string))
        setattr(namespace, self.dest, True if self.flag else values)


class _Repeatable(argparse._AppendAction):
    """--filter: may be given again (any of them may match); noted as given."""

    def __call__(self, parser, namespace, values, option_string=None):
        given = getattr(namespace, "given", None)
        if given is None:
            given = []
            setattr(namespace, "given", given)
        given.append((self.dest, option_string))
        super().__call__(parser, namespace, values, option_string)


def parse_args(argv):
    """The options as an argparse namespace; raises UsageError for a bad value,
    an option given twice, or options that the command would ignore (--render
    takes only --no-charts and --wide of a run's options, --hosts none)."""
    doc = __doc__ % {"MAX_ROUNDS": MAX_ROUNDS, "MAX_ITERATIONS": MAX_ITERATIONS,
                     "MIN_TIMEOUT": MIN_TIMEOUT, "MAX_TIMEOUT": MAX_TIMEOUT,
                     "RESERVED": ", ".join(RESERVED_HOSTS)}
    p = argparse.ArgumentParser(prog="python3 -m runner", description=doc.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=doc.split("\n\n", 1)[1])
    p.add_argument("--profile", action=_Once,
                   help="suite profile (quick, default, full, seed, selftest)")
    p.add_argument("--rounds", action=_Once, type=int,
                   help="measured rounds (overrides the profile)")
    p.add_argument("--warmup-rounds", action=_Once, type=int, help="unrecorded warm-up rounds")
    p.add_argument("--filter", action=_Repeatable, default=[], metavar="REGEX",
                   help="keep variants whose id matches (repeatable: any may match)")
    p.add_argument("--iterations", action=_Once, type=int,
                   help="N per program run, for every workload")
    p.add_argument("--out", action=_Once, default=os.path.join(ROOT, "results"),
                   help="results folder")
    p.add_argument("--host", action=_Once,
                   help="host slug for the run folder (default: detected)")
    p.add_argument("--seed", action=_Once, type=int,
                   help="shuffle seed (default: from the clock, recorded)")
    p.add_argument("--timeout", action=_Once, type=float,
                   help="seconds per program run, for every workload")
    p.add_argument("--catalog", action=_Once, default=CATALOG_DIR,
                   help="catalog folder: suite.json and one file per workload "
                        "(tests use a fake one)")
    p.add_argument("--no-trace", action=_Once, const=True, default=False,
                   help="skip the traced runs that count system calls per operation "
                        "after the rounds (runner/measure/trace.py)")
    p.add_argument("--no-charts", action=_Once, const=True, default=False,
                   help="draw no chart: the summaries, exports and REPORT.md only "
                        "(make plots RUN=DIR draws them later)")
    p.add_argument("--no-extra-rounds", action=_Once, const=True, default=False,
                   help="run the planned rounds only, even where the profile gives extra "
                        "rounds for the questions still open (runner/measure/sequential.py)")
    p.add_argument("--no-lockstep", action=_Once, const=True, default=False,
                   help="leave out the profile's lockstep phase: every ratio from the "
                        "fresh processes' rounds (runner/measure/lockstep.py)")
    p.add_argument("--noise", action=_Once, const=True, default=False,
                   help="a load on the programs' CPU, switched on and off at random every "
                        "50 to 500 ms, while the run measures (runner/measure/load.py)")
    p.add_argument("--node", action=_Once,
                   help="Node.js executable, or 'none' to skip Node variants")
    p.add_argument("--check", action=_Once, const=True, default=False,
                   help="check the options, the profile and the filters against the "
                        "catalog, and that a variant is left to run (its OS, node), then "
                        "exit (make compare does, before it builds)")
    p.add_argument("--yes", action=_Once, const=True, default=False,
                   help="start a run estimated longer than an hour without asking, "
                        "and one longer than a day at all when not on a terminal")
    p.add_argument("--wide", action=_Once, const=True, default=False,
                   help="print every column of the tables at the end (the CIs, both "
                        "baselines, the differences per operation), as REPORT.md has them; "
                        "by default the table fits 100 columns")
    p.add_argument("--render", action=_Once, metavar="RUNDIR",
                   help="redraw a run folder from its samples.csv")
    p.add_argument("--hosts", action=_Once, nargs="?", const=os.path.join(ROOT, "results"),
                   metavar="DIR", help="draw the cross-host charts from every run under DIR")
    a = p.parse_args(argv)
    given = getattr(a, "given", [])
    a.given = given
    if a.render and a.hosts:
        raise UsageError("--render and --hosts are two commands: give one")
    for command, what in (("render", "--render redraws a run folder from its files"),
                          ("hosts", "--hosts draws the cross-host charts of the runs in a folder")):
        if getattr(a, command):
            # --render takes --no-charts and --wide; nothing else of a run's.
            other = next((opt for dest, opt in given if dest != command
                          and not (command == "render" and dest in ("no_charts", "wide"))),
                         None)
            if other:
                raise UsageError("%s: %s would be ignored (leave it out)" % (what, other))
    if a.render or a.hosts:
        return a
    if not a.profile:
        raise UsageError("say which profile, e.g. --profile quick (or --render RUNDIR)")
    bounds = {"rounds": (1, MAX_ROUNDS), "warmup_rounds": (0, MAX_ROUNDS),
              "iterations": (1, MAX_ITERATIONS), "seed": (0, MAX_SEED)}
    for name, (lo, hi) in bounds.items():
        v = getattr(a, name)
        if v is not None and not lo <= v <= hi:
            raise UsageError("--%s must be between %d and %d, got %d"
                             % (name.replace("_", "-"), lo, hi, v))
    # float() takes "nan" and "inf": nan made every run an instant timeout.
    if a.timeout is not None and not (MIN_TIMEOUT <= a.timeout <= MAX_TIMEOUT):
        raise UsageError("--timeout must be between %g and %d seconds, got %g"
                         % (MIN_TIMEOUT, MAX_TIMEOUT, a.timeout))
    if a.host is not None:
        check_host(a.host, "--host ")
    for f in a.filter:
        if f == "":
            # An empty pattern (often an unset shell variable) matches every variant.
            raise UsageError("--filter '' is empty and would match every variant; "
                             "leave --filter out to run them all")
        if "\n" in f or "\r" in f:
            # No id holds one, and REPORT.md's Reproduce line could not give it
            # through make (a recipe ends at a newline).
            raise UsageError("--filter %r holds a line break; an id never does" % f[:80])
        why = catalog_check.regex_problem(f)
        if why:
            raise UsageError("--filter %r is not a regular expression: %s" % (f[:80], why))
    a.plan_options = plan_options(a)
    return a


# The options that shape what a run runs (the plan), in the order a command
# that repeats the run gives them: run.json records them as given
# (plan_options), and REPORT.md's Reproduce line gives them again.  --profile
# is run.json's profile; --out, --host, --yes, --no-charts and --wide change where the
# run goes, whether it asks and what is drawn or printed, never what runs.
PLAN_OPTIONS = ("seed", "rounds", "warmup_rounds", "iterations", "timeout", "filter", "catalog",
                "node", "no_extra_rounds", "no_trace", "no_lockstep", "noise")


def plan_options(a):
    """The PLAN_OPTIONS the command line gave, as option words
    (["--filter", "c/", "--no-trace"]), in PLAN_OPTIONS's order."""
    given = {dest for dest, _ in a.given}
    out = []
    for dest in PLAN_OPTIONS:
        if dest not in given:
            continue
        flag = "--" + dest.replace("_", "-")
        value = getattr(a, dest)
        if value is True:
            out.append(flag)
        else:
            for v in value if isinstance(value, list) else [value]:
                out += [flag, repr(v) if isinstance(v, float) else str(v)]
    return out


def check_host(slug, what=""):
    """UsageError unless slug is a usable folder name under the results folder."""
    if not HOST_RE.match(slug):
        raise UsageError("%s%r: use letters, digits, '.', '_' and '-' only (at most 100, "
                         "starting with a letter or digit)" % (what, slug))
    if slug.lower() in RESERVED_HOSTS:
        raise UsageError("%s%r: the runner uses that name in the results folder; "
                         "choose another host slug" % (what, slug))
