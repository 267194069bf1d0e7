"""render.py -- everything drawn from a run folder's samples.csv: summary.json and
summary.csv, the exports, the charts per workload, REPORT.md, and the charts
across hosts.

The baselines come from run.json (their ids and labels were recorded when the
run started), so a run renders the same whatever today's catalog says; only a
folder without run.json falls back to the catalog.

The charts (runner/report/charts/) are drawn in this process, one function call
each, from the summary as summary.json holds it and the samples already read
(runner/report/charting.py: which charts, and drawing each); matplotlib is imported
when the first chart is drawn, never for a run with --no-charts.
"""
import json
import os
import sys

from ..analysis import accounting
from . import charting
from . import export
from . import report
from ..analysis import rundir as rd
from ..analysis import runfolder
from ..analysis import summary as sm
from ..analysis import targets
from ..analysis import verdicts
from ..core.errors import RenderInterrupted
from ..core.files import write_atomic


def render(rundir, out_root=None, charts=True):
    """Summaries, exports, charts (none when charts is false: REPORT.md says
    so) and REPORT.md from RUNDIR/samples.csv.  Returns (summary dict, True
    when every chart was drawn).

    Ctrl-C (KeyboardInterrupt) while the charts are drawn stops the drawing;
    REPORT.md is still written, with the charts drawn so far and a line saying
    the others are missing, and RenderInterrupted says so.  Ctrl-C before the
    summaries are written raises RenderInterrupted naming what is missing (the
    files are written whole or not at all)."""
    rundir = os.path.realpath(rundir)       # results/latest is a symlink
    try:
        return _render(rundir, out_root, charts)
    except RenderInterrupted:
        raise
    except KeyboardInterrupt:
        raise RenderInterrupted("before the summaries and REPORT.md were written") from None


def _render(rundir, out_root, draw_charts=True):
    folder = runfolder.RunFolder(rundir)
    folder.check()
    samples, run, hinfo = folder.samples, folder.run, folder.host
    for w in folder.warnings:
        print("run.py: warning: %s" % w, file=sys.stderr)
    rows, points = sm.split_points(sm.summarize(samples, run["baselines"], folder.units(),
                                                folder.sessions, folder.lock_per_op))
    accounting.attach(folder, rows)      # per operation: CPU, counts, system calls
    summary = {"run": run, "host": hinfo, "variants": rows,
               "headline": verdicts.headline(rows), "verdicts": dict(verdicts.sentences(rows)),
               "all_verdicts": dict(verdicts.full_sentences(rows)),
               "targets": targets.evaluate(folder.base_samples, folder.targets(),
                                           folder.sessions)}
    if points:
        # A sweep (the scaling profile): every point's row, the base included;
        # the variants' rows above are the base point's.
        summary["points"] = points
        sm.write_csv(points, os.path.join(rundir, "points.csv"))
    if folder.warnings:
        summary["warnings"] = folder.warnings
    # Written once; the charts read this text back, the summary as the file holds it.
    summary_text = rd.json_text(summary)
    write_atomic(os.path.join(rundir, "summary.json"), summary_text)
    sm.write_csv(rows, os.path.join(rundir, "summary.csv"))
    # One time a process (its passes' median), as every statistic takes it.
    export.write(rundir, folder.processes, rows, hinfo)
    # The charts and REPORT.md read the summary as the file holds it.
    folder.keep_summary(json.loads(summary_text))

    charts, all_drawn, across = [], True, []
    if not draw_charts:
        note = ("Charts not drawn (`--no-charts`); draw them with `%s`."
                % rd.plots_command(rundir))
        write_atomic(os.path.join(rundir, "REPORT.md"),
                     report.markdown(folder, summary, charts, run.get("failures") or [], note))
        return summary, all_drawn
    charts_dir = os.path.join(rundir, "charts")
    os.makedirs(charts_dir, exist_ok=True)
    workloads = sorted({r["workload"] for r in rows})
    try:
        all_drawn = charting.draw_charts(folder, rows, workloads, charts)
        # Cross-host charts when the results folder holds runs of more than one host.
        out_root = out_root or os.path.dirname(os.path.dirname(os.path.abspath(rundir)))
        peers = host_peers(out_root, rundir)
        if len(peers) > 1:
            draw_hosts(peers, charts_dir, across)
    except KeyboardInterrupt:
        charts += [("Across hosts", os.path.relpath(path, rundir)) for path in across]
        note = ("**Charts missing**: the run was interrupted while they were drawn (%d drawn); "
                "redraw them with `%s`." % (len(charts), rd.plots_command(rundir)))
        write_atomic(os.path.join(rundir, "REPORT.md"),
                     report.markdown(folder, summary, charts, run.get("failures") or [], note))
        raise RenderInterrupted("while drawing the charts: REPORT.md written with %d of them"
                                % len(charts)) from None
    charts += [("Across hosts", os.path.relpath(path, rundir)) for path in across]
    write_atomic(os.path.join(rundir, "REPORT.md"),
                 report.markdown(folder, summary, charts, run.get("failures") or []))
    return summary, all_drawn


def run_emulation(rundir):
    """How the run in rundir was emulated (host.json's emulation: Rosetta,
    qemu-user), or None for a native run or one recorded before the field."""
    return runfolder.RunFolder(rundir).host.get("emulation")


def host_runs(out_root, emulated=False):
    """{host slug: [run folders with a summary.json, oldest first]} under out_root:
    the native runs, or with emulated the emulated ones (never drawn beside
    native timings: they measure the emulator too)."""
    found = {}
    try:
        hosts = sorted(os.listdir(out_root))
    except OSError:
        return found
    for h in hosts:
        hdir = os.path.join(out_root, h)
        if h in ("latest", "hosts", "reference") or os.path.islink(hdir) or not os.path.isdir(hdir):
            continue
        runs = sorted(d for d in os.listdir(hdir)
                      if not os.path.islink(os.path.join(hdir, d))
                      and os.path.isfile(os.path.join(hdir, d, "summary.json"))
                      and bool(run_emulation(os.path.join(hdir, d))) == emulated)
        if runs:
            found[h] = [os.path.join(hdir, d) for d in runs]
    return found


def host_peers(out_root, rundir):
    """The runs a run folder's own cross-host charts put side by side: itself,
    and of each other host under out_root its newest native run of the same
    profile (a seed-profile run beside a default one would set other N and
    other methods side by side as if they were hosts); [] for an emulated run.
    In host order, as host_runs gives them."""
    if run_emulation(rundir):
        return []
    profile = runfolder.RunFolder(rundir).recorded.get("profile")
    mine = os.path.basename(os.path.dirname(os.path.abspath(rundir)))
    peers = {mine: rundir}
    for slug, dirs in host_runs(out_root).items():
        same = [d for d in dirs if runfolder.RunFolder(d).recorded.get("profile") == profile]
        if slug != mine and same:
            peers[slug] = same[-1]
    return [peers[slug] for slug in sorted(peers)]


def draw_hosts(newest, dest, drawn=None):
    """Cross-host charts of the runs newest (one a host: host_peers, or the
    newest of each host for --hosts) into dest; the PNG paths drawn, appended
    to drawn (a list) as they are, so that an interruption (ChartInterrupted)
    leaves the ones already drawn there."""
    runs = []           # their summaries, read for the first chart
    drawn = [] if drawn is None else drawn
    for kind in ("ms", "ratio"):
        path = os.path.join(dest, "hosts-%s.png" % kind)

        def chart(kind=kind, path=path):
            if not runs:
                runs.extend(charting.chart_module("hosts_chart").load(newest))
            charting.chart_module("hosts_chart").draw(runs, newest, kind, path)
        try:
            ok = charting.draw(path, chart)
        except charting.ChartInterrupted as e:
            if e.drawn:
                drawn.append(path)
            raise
        if ok:
            drawn.append(path)
    return drawn
