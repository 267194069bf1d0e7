"""run.py -- the alternating runner: measure the catalog's variants, then summarise,
chart and report.  The options are in cli.py (run.py --help); the work is split
by concern, each module importing only those below it:

  cli.py       the options and their checks
  plan.py      selection, requirements (skips with reasons), per-workload settings, commands
  measure.py   the rounds: shuffle, warm-up, status of each run, samples
    schedule.py  every round's order, and the rounds of a time budget
    launch.py    one program run through build/bin/launch (timeout, wait4 rusage)
    servers.py   a workload's server, per round
    rundir.py    the run folder, samples.csv, run.json, results/latest
    progress.py  the status line
  render.py    summaries, exports, charts, REPORT.md, cross-host charts
"""
import codecs
import os
import sys
import time
import traceback


from . import cli
from .measure import measure
from .measure import plan as plan_mod
from .report import render as render_mod
from .analysis import rundir as rd
from .analysis import runfolder
from .analysis import summary as sm
from .analysis import tables
from .analysis import verdicts
from .core.errors import EnvError, RenderInterrupted, UsageError
from .core import paths


# What the runner prints beyond ASCII, and the ASCII it prints instead where
# the locale's encoding lacks a character (LC_ALL=de_DE.ISO-8859-1 has µ and ±,
# not Δ or ≤): the table once died there in a UnicodeEncodeError, even with
# stdout sent to /dev/null.  Anything else becomes "?".
ASCII_FALLBACK = {"Δ": "d", "µ": "u", "μ": "u", "≤": "<=", "≥": ">=", "±": "+-", "×": "x",
                  "–": "-", "—": "-", "…": "...", "≈": "~", "→": "->", "’": "'"}


def _ascii_instead(err):
    text = err.object[err.start:err.end]
    return "".join(ASCII_FALLBACK.get(ch, "?") for ch in text), err.end


codecs.register_error("ascii-fallback", _ascii_instead)


def ascii_fallback(*streams):
    """Makes streams (text files) print ASCII_FALLBACK's text for what their
    encoding cannot say; a stream that cannot be reconfigured is left alone."""
    for stream in streams:
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="ascii-fallback")


# A run estimated longer than this asks first on a terminal; longer than a
# day it needs --yes without one (a run of 3.76 million programs once started
# silently).
ASK_S = 3600
REFUSE_S = 86400


def duration(seconds):
    """'3 d 4 h', '5 h 12 min', '9 min', '40 s'."""
    s = int(seconds)
    for unit, size, sub, subsize in (("d", 86400, "h", 3600), ("h", 3600, "min", 60)):
        if s >= size:
            return "%d %s %d %s" % (s // size, unit, s % size // subsize, sub)
    return "%d min" % (s // 60) if s >= 60 else "%d s" % s


# The committed reference runs: the estimate's figures for what no local run has.
REFERENCE = os.path.join(paths.ROOT, "results", "reference")


def listdir(path):
    """The names in the folder at path, or [] when it is none."""
    try:
        return os.listdir(path)
    except OSError:
        return []


def walls_of(rundir, profile=None):
    """{id: (median wall ms, N)} of the run folder's summary.json, or {}; with a
    profile, {} when the summary names another (a run of another profile ran
    another N: scaled from a seed run's N = 5, start-up swamps the estimate)."""
    try:
        if os.path.getsize(os.path.join(rundir, "summary.json")) > 50 * 2 ** 20:
            return {}               # a summary from before the orders were compact
    except OSError:
        return {}
    try:
        summary = runfolder.RunFolder(rundir).summary
    except EnvError:
        return {}
    run = summary.get("run")
    named = run.get("profile") if isinstance(run, dict) else None
    if None not in (profile, named) and named != profile:
        return {}
    return {r["variant"]: (r.get("wall_ms"), r.get("iterations")) for r in summary["variants"]
            if isinstance(r, dict) and isinstance(r.get("variant"), str)
            and isinstance(r.get("wall_ms"), (int, float)) and isinstance(r.get("iterations"), int)}


def previous_walls(out, profile, reference=REFERENCE):
    """{id: (median wall ms, N)}, the estimate's figures: the newest run's under
    out (out/latest's summary.json) when it was of this profile, and for a
    variant it lacks, the newest committed reference run of the same profile
    that has it (results/reference/<host>/<stamp>: a fresh clone's first run
    is estimated from them, not at start-up times)."""
    walls = walls_of(os.path.join(out, "latest"), profile)
    runs = []
    for host in sorted(listdir(reference)):
        runs += [os.path.join(reference, host, r) for r in listdir(os.path.join(reference, host))]
    for run in sorted(runs, key=os.path.basename, reverse=True):
        for vid, figures in walls_of(run, profile).items():
            walls.setdefault(vid, figures)
    return walls


def check_duration(args, plan):
    """The run's estimate in words ("2363 runs, about 9 min"); on a terminal a run
    beyond ASK_S asks first, elsewhere one beyond REFUSE_S needs --yes.
    UsageError when it is not started."""
    runs, seconds, guessed = plan_mod.estimate(plan, previous_walls(os.path.abspath(args.out), args.profile))
    text = "{:,} runs, about {}".format(runs, duration(seconds))
    if guessed:
        text += " or more (%d variant%s in no earlier run counted at a start-up's time)" % (
            guessed, "" if guessed == 1 else "s")
    minutes = getattr(plan, "minutes", None)
    if minutes and not args.rounds:
        # The profile's time budget bounds the extra rounds, not the planned ones.
        text += ("; the planned rounds alone go over the profile's %g-minute budget, so no "
                 "extra round will run" % minutes if seconds > minutes * 60 else
                 "; extra rounds fill the profile's %g-minute budget at most" % minutes)
    if args.yes or seconds <= ASK_S:
        return text
    fix = "fewer --rounds or a --filter, or --yes to start it anyway"
    if sys.stdin.isatty() and sys.stderr.isatty():
        print("run.py: this run is %s." % text, file=sys.stderr)
        try:
            answer = input("Start it? [y/N] ")
        except EOFError:
            answer = ""
        if answer.strip().lower() in ("y", "yes"):
            return text
        raise UsageError("not started (%s)" % fix)
    if seconds > REFUSE_S:
        raise UsageError("this run is %s, more than a day: not started without --yes (%s)"
                         % (text, fix))
    return text


def check_before_build(cat, args, node):
    """--check (make compare, before it builds): the profile and the filters
    select variants, and some of them can run here as far as can be told
    without the build (their OS, node; not a probe, which may need a built
    program, nor a pinned runtime, which `make runtimes` installs after the
    build).  UsageError, as the run itself would give after the build, when
    none can."""
    chosen = plan_mod.select(cat, args.profile, args.filter)
    skipped = [(v["id"], plan_mod.unmet(v, node, None, None, args.node == "none"))
               for v in chosen if not v.get("runtime")]
    skipped = [(vid, why) for vid, why in skipped if why]
    if len(skipped) == len(chosen):
        by_reason = {}
        for vid, why in skipped:
            by_reason.setdefault(why, []).append(vid)
        raise UsageError("nothing left to run: %s" % "; ".join(
            "%s %s (%s%s)" % (
                "1 variant" if len(ids) == 1 else "%d variants" % len(ids),
                why.replace("needs", "need", 1) if len(ids) > 1 else why, ids[0],
                ", and %d more" % (len(ids) - 1) if len(ids) > 1 else "")
            for why, ids in by_reason.items()))


def hosts(folder):
    """--hosts: the cross-host charts of the newest run under folder beside each
    other host's newest run of the same profile (render.host_peers); a host
    with none of that profile is named on stderr and left out."""
    if not os.path.isdir(folder):
        raise EnvError("%s is not a folder: --hosts takes the results folder that holds "
                       "the hosts' runs (default results)" % folder)
    runs = render_mod.host_runs(folder)
    for slug, rundirs in sorted(render_mod.host_runs(folder, emulated=True).items()):
        print("run.py: %s left out of the cross-host charts: emulated (%s), its timings are "
              "not the host's" % (slug, render_mod.run_emulation(rundirs[-1])), file=sys.stderr)
    if len(runs) < 2:
        raise EnvError("%s holds runs of %d host%s; the cross-host charts need two or more "
                       "(run on another machine, or label a run with --host)"
                       % (folder, len(runs), "" if len(runs) == 1 else "s"))
    newest = max((dirs[-1] for dirs in runs.values()), key=os.path.basename)
    peers = render_mod.host_peers(folder, newest)
    profile = runfolder.RunFolder(newest).recorded.get("profile")
    shown = {os.path.basename(os.path.dirname(d)) for d in peers}
    for slug in sorted(set(runs) - shown):
        print("run.py: %s left out of the cross-host charts: no run of the %s profile "
              "(the newest run, %s, is one)" % (slug, profile, newest), file=sys.stderr)
    if len(peers) < 2:
        raise EnvError("%s holds no other host's run of the %s profile of its newest run (%s); "
                       "the cross-host charts set runs of one profile side by side"
                       % (folder, profile, newest))
    dest = os.path.join(folder, "hosts")
    os.makedirs(dest, exist_ok=True)
    drawn = render_mod.draw_hosts(peers, dest)
    for p in drawn:
        print(p)
    return 0 if len(drawn) == 2 else 1


def show(summary, rundir, charts=True, wide=False):
    """The end of a run's output: the tables (compact to fit the terminal, every
    column with wide), the verdicts wrapped at the terminal's width (100 when
    stdout is not a terminal), where the rest is (charts false: none was
    drawn); then a line per workload or variant without a valid sample
    (summary's without_valid).  Returns True when there is none."""
    width = tables.output_width(sys.stdout)
    if wide:
        print(tables.terminal_table(summary["variants"]))
    else:
        print(tables.compact_table(summary["variants"], width))
    text = verdicts.text(summary["variants"])
    if text:
        print("")
        print("Verdicts:")
        for line in text.split("\n"):
            print("\n".join(tables.wrap(line, width, "  ")))
        print("")
    rel = rd.shown(rundir)
    if text:
        print("every comparison, one by one: %s (All verdicts)" % os.path.join(rel, "REPORT.md"))
    if charts:
        print("charts: %s" % os.path.join(rel, "charts"))
    else:
        print("charts: not drawn (--no-charts; %s draws them)" % rd.plots_command(rundir))
    print("report: %s" % os.path.join(rel, "REPORT.md"))
    empty = sm.without_valid(summary["variants"])
    for line in empty:
        print("run.py: %s; the samples are kept, the reasons are in REPORT.md" % line,
              file=sys.stderr)
    return not empty


def show_or_say(summary, rundir, charts, wide=False):
    """show(), where a stdout that cannot be written (a full disk, /dev/full, a
    closed pipe) is one line on stderr, not a traceback: the run's files are
    whole by then.  True when valid and shown."""
    try:
        valid = show(summary, rundir, charts, wide)
        sys.stdout.flush()
        return valid
    except OSError as e:
        # Nothing more to stdout, at exit either (its flush would fail again).
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
        print("run.py: cannot print the tables to stdout: %s; the run's files are whole "
              "(%s)" % (e.strerror or e, os.path.join(rd.shown(rundir), "REPORT.md")),
              file=sys.stderr)
        return False


def end_early(rundir, ended):
    """Records in rundir's run.json how the run ended early (rundir.note_ending)
    and drops the folder's lock; a run.json that cannot be read or written is
    left as it is (the lock's release still says the runner is gone)."""
    try:
        rd.note_ending(rundir, runfolder.RunFolder(rundir).recorded, ended)
    except (OSError, EnvError):
        pass
    rd.release(rundir)


def crashed(rundir, error):
    """The runner itself failed (a bug) while it measured: the traceback on
    stderr and in rundir/crash.txt, run.json's ended says so, the samples so far
    stay; exit 1."""
    text = traceback.format_exc()
    sys.stderr.write(text)
    try:
        with open(os.path.join(rundir, "crash.txt"), "w", encoding="utf-8") as f:
            f.write(text)
    except OSError:
        pass
    why = ("%s: %s" % (type(error).__name__, error)).splitlines()[0][:300]
    end_early(rundir, {"how": "crashed", "error": why})
    print("run.py: the runner crashed (%s); the samples measured so far are kept in %s "
          "(%s renders them)" % (why, rd.shown(rundir), rd.plots_command(rundir)),
          file=sys.stderr)
    return 1


def main(argv):
    ascii_fallback(sys.stdout, sys.stderr)
    try:
        args = cli.parse_args(argv)
        # Ctrl-C, a kill or a hangup at any phase: one line, exit 130.
        measure.interrupt_on_signals()
        if args.hosts:
            try:
                return hosts(args.hosts)
            except KeyboardInterrupt:
                print("run.py: interrupted while drawing the cross-host charts", file=sys.stderr)
                return 130
        if args.render:
            try:
                summary, ok = render_mod.render(args.render, charts=not args.no_charts)
            except RenderInterrupted as e:
                print("run.py: interrupted %s (redraw with: %s)"
                      % (e.what, rd.plots_command(os.path.realpath(args.render))), file=sys.stderr)
                return 130
            except OSError as e:
                raise EnvError("cannot write into %s: %s" % (args.render, e))
            valid = show_or_say(summary, args.render, not args.no_charts, args.wide)
            return 0 if ok and valid else 1
        cat = plan_mod.load_catalog(args.catalog)
        node = plan_mod.find_node(args.node)
        if args.check:
            check_before_build(cat, args, node)
            return 0
        plan = plan_mod.make(cat, args, node)
        plan.estimate = check_duration(args, plan)
        seed = args.seed if args.seed is not None else time.time_ns() % (2 ** 32)
        try:
            rundir, interrupted = measure.measure(args, cat, plan, seed)
        except Exception as e:
            folder = rd.made_here()
            if folder and not isinstance(e, (OSError, UsageError, EnvError)):
                return crashed(folder, e)
            rd.release(folder)
            raise
        except KeyboardInterrupt:
            # measure() keeps what a round measured; this is before the first one.
            if rd.made_here():
                end_early(rd.made_here(), {"how": "interrupted"})
            raise
        if interrupted:
            end_early(rundir, {"how": "interrupted"})
        rd.release(rundir)
    except KeyboardInterrupt:
        print("run.py: interrupted before the first round: nothing was measured",
              file=sys.stderr)
        return 130
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
        summary, ok = render_mod.render(rundir, out_root=os.path.abspath(args.out),
                                        charts=not args.no_charts)
    except RenderInterrupted as e:
        print("run.py: interrupted %s; the samples are kept (redraw with: %s)"
              % (e.what, rd.plots_command(rundir)), file=sys.stderr)
        return 130
    except EnvError as e:
        print("run.py: %s" % e, file=sys.stderr)
        return 3
    except OSError as e:
        print("run.py: cannot write the summary, charts or report in %s: %s "
              "(the samples are kept; redraw with: %s)"
              % (rd.shown(rundir), e, rd.plots_command(rundir)), file=sys.stderr)
        return 3
    valid = show_or_say(summary, rundir, not args.no_charts, args.wide)
    if interrupted:
        return 130
    return 0 if ok and valid else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
