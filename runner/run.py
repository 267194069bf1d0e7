"""run.py -- the alternating runner: measure the catalog's variants, then summarise,
chart and report.  The options are in cli.py (run.py --help); the work is split
by concern, each module importing only those below it:

  cli.py       the options and their checks
  plan.py      selection, requirements (skips with reasons), per-workload settings, commands
  measure.py   the rounds: shuffle, warm-up, status of each run, samples
    launch.py    one program run through build/bin/launch (timeout, wait4 rusage)
    servers.py   a workload's server, per round
    rundir.py    the run folder, samples.csv, run.json, results/latest
    progress.py  the status line
  render.py    summaries, exports, charts, REPORT.md, cross-host charts
"""
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import cli  # noqa: E402
import measure  # noqa: E402
import plan as plan_mod  # noqa: E402
import render as render_mod  # noqa: E402
import rundir as rd  # noqa: E402
import summary as sm  # noqa: E402
import verdicts  # noqa: E402
from errors import EnvError, RenderInterrupted, UsageError  # noqa: E402


def hosts(folder):
    """--hosts: the cross-host charts of every host's newest run under folder."""
    runs = render_mod.host_runs(folder)
    for slug, rundirs in sorted(render_mod.host_runs(folder, emulated=True).items()):
        print("run.py: %s left out of the cross-host charts: emulated (%s), its timings are "
              "not the host's" % (slug, render_mod.run_emulation(rundirs[-1])), file=sys.stderr)
    if len(runs) < 2:
        raise EnvError("%s holds runs of %d host%s; the cross-host charts need two or more "
                       "(run on another machine, or label a run with --host)"
                       % (folder, len(runs), "" if len(runs) == 1 else "s"))
    dest = os.path.join(folder, "hosts")
    os.makedirs(dest, exist_ok=True)
    drawn = render_mod.draw_hosts(folder, dest)
    for p in drawn:
        print(p)
    return 0 if len(drawn) == 2 else 1


def show(summary, rundir, charts=True):
    """The end of a run's output: the tables, the verdicts, where the rest is
    (charts false: none was drawn)."""
    print(sm.terminal_table(summary["variants"]))
    text = verdicts.text(summary["variants"])
    if text:
        print("")
        print("Verdicts:")
        print(text)
        print("")
    rel = rd.shown(rundir)
    if text:
        print("every comparison, one by one: %s (All verdicts)" % os.path.join(rel, "REPORT.md"))
    if charts:
        print("charts: %s" % os.path.join(rel, "charts"))
    else:
        print("charts: not drawn (--no-charts; make plots RUN=%s draws them)" % rel)
    print("report: %s" % os.path.join(rel, "REPORT.md"))


def main(argv):
    try:
        args = cli.parse_args(argv)
        if args.hosts:
            return hosts(args.hosts)
        if args.render:
            try:
                summary, ok = render_mod.render(args.render, charts=not args.no_charts)
            except RenderInterrupted as e:
                print("run.py: interrupted %s (redraw with: make plots RUN=%s)"
                      % (e.what, rd.shown(os.path.realpath(args.render))), file=sys.stderr)
                return 130
            except OSError as e:
                raise EnvError("cannot write into %s: %s" % (args.render, e))
            show(summary, args.render, not args.no_charts)
            return 0 if ok else 1
        cat = plan_mod.load_catalog(args.catalog)
        node = plan_mod.find_node(args.node)
        plan = plan_mod.make(cat, args, node)
        seed = args.seed if args.seed is not None else time.time_ns() % (2 ** 32)
        rundir, interrupted = measure.measure(args, cat, plan, seed)
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
        print("run.py: interrupted %s; the samples are kept (redraw with: make plots RUN=%s)"
              % (e.what, rd.shown(rundir)), file=sys.stderr)
        return 130
    except EnvError as e:
        print("run.py: %s" % e, file=sys.stderr)
        return 3
    except OSError as e:
        print("run.py: cannot write the summary, charts or report in %s: %s "
              "(the samples are kept; redraw with: make plots RUN=%s)"
              % (rd.shown(rundir), e, rd.shown(rundir)), file=sys.stderr)
        return 3
    show(summary, rundir, not args.no_charts)
    if interrupted:
        return 130
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
