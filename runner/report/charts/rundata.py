"""rundata.py -- what a chart of runner/report/charts/ reads, and what makes it a
command of its own: the run folder (a runfolder.RunFolder: its summary as
summary.json holds it, its samples, the catalog it ran with), the workload a
chart draws and its output path, die() for bad input, and cli() (RUNDIR, -o,
--workload).

A chart module has draw(data, workload, out): data is a RunFolder, workload None
for the run's only one, out None for charts/<chart>-<workload>.png.  It draws
the PNG and its sidecar, or raises ChartError (die()) naming why it cannot.
render.py calls it for every chart of a run, in its own process and with the
summary it has just written; `python3 -m runner.report.charts.<chart> RUNDIR` reads
the folder and calls it alike.
"""
import argparse
import os
import sys

from ...analysis import runfolder
from ...core.errors import ChartError, EnvError


def die(prog, msg, code=2):
    """The chart cannot be drawn: ChartError, msg its line."""
    raise ChartError(prog, msg, code)


def samples(prog, data):
    """The run's samples (data: a runfolder.RunFolder), or die naming why
    samples.csv cannot be read."""
    try:
        return data.samples
    except EnvError as e:
        die(prog, str(e))


def folder(prog, rundir):
    """The RunFolder of rundir with its summary read, or die naming why it
    cannot be."""
    data = runfolder.RunFolder(rundir)
    try:
        data.summary
    except EnvError as e:
        die(prog, str(e))
    return data


def pick_workload(prog, rows, workload):
    names = sorted({r["workload"] for r in rows})
    if not names:
        die(prog, "the run has no variants to draw")
    if workload is None:
        if len(names) > 1:
            die(prog, "the run has workloads %s: choose one with --workload" % ", ".join(names))
        workload = names[0]
    if workload not in names:
        die(prog, "no workload %r in this run (it has %s)" % (workload, ", ".join(names)))
    return workload, [r for r in rows if r["workload"] == workload]


def parser(prog, doc):
    """The argument parser of a chart's command (python3 -m runner.report.charts.<chart>,
    prog its file's name): its docstring is the --help."""
    p = argparse.ArgumentParser(prog="python3 -m runner.report.charts.%s" % prog[:-len(".py")],
                                description=doc.split("\n\n")[0],
                                epilog=doc.split("\n\n", 1)[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    return p


def output_path(prog, rundir, out, default_name):
    """out, or RUNDIR/charts/default_name when out is None; dies when its folder
    does not exist."""
    out = out or os.path.join(rundir, "charts", default_name)
    d = os.path.dirname(os.path.abspath(out))
    if not os.path.isdir(d):
        die(prog, "output folder %s does not exist" % d)
    return out


def cli(prog, doc, prefix, argv, draw):
    """A per-run chart as a command: RUNDIR, -o, --workload; reads the run's
    summary.json and calls draw(data, workload, out).  Returns the exit code:
    0 drawn, else ChartError's code with its line on stderr."""
    p = parser(prog, doc)
    p.add_argument("rundir", help="a run folder, e.g. results/latest")
    p.add_argument("-o", "--output",
                   help="PNG to write (default: RUNDIR/charts/%s-<workload>.png)" % prefix)
    p.add_argument("--workload", help="which workload (default: the only one)")
    args = p.parse_args(argv)
    return command(lambda: draw(folder(prog, args.rundir), args.workload, args.output))


def command(call):
    """call() (a chart's drawing) as a command's exit code: 0, or the code of the
    ChartError it raised, its line on stderr."""
    try:
        call()
    except ChartError as e:
        print(e, file=sys.stderr)
        return e.code
    return 0


def run_rows(prog, prefix, data, workload, out, needs=None):
    """(workload, its rows that have `needs`, output path) of a per-run chart:
    the only workload when workload is None, RUNDIR/charts/<prefix>-<workload>.png
    when out is None; dies (exit 1) when no row has `needs`."""
    workload, rows = pick_workload(prog, data.summary["variants"], workload)
    if needs:
        rows = [r for r in rows if r.get(needs) is not None]
        if not rows:
            die(prog, "no variant of %s has a %s to draw" % (workload, needs.replace("_", " ")), 1)
    return workload, rows, output_path(prog, data.path, out, "%s-%s.png" % (prefix, workload))
