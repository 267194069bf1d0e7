"""render.py -- everything drawn from a run folder's samples.csv: summary.json and
summary.csv, the exports, the charts per workload, REPORT.md, and the charts
across hosts.

The baselines come from run.json (their ids and labels were recorded when the
run started), so a run renders the same whatever today's catalog says; only a
folder without run.json falls back to the catalog.

The charts (runner/charts/) are drawn in this process, one function call
each, from the summary as summary.json holds it and the samples already read
(runner/charting.py: which charts, and drawing each); matplotlib is imported
when the first chart is drawn, never for a run with --no-charts.
"""
import json
import os
import sys

from . import accounting
from . import catalog as catalog_mod
from . import catalog_check
from . import charting
from . import export
from . import report
from . import rundir as rd
from . import summary as sm
from . import targets
from . import verdicts
from .errors import EnvError, RenderInterrupted
from .files import write_atomic


def catalog_baselines(samples, rundir=None):
    """{variant id: {"c": [id, label], "lang": ...}} from the run's catalog, for a run
    folder that has no run.json; variants the catalog no longer has get none."""
    try:
        cat = catalog_mod.for_run(rundir)
    except catalog_mod.CatalogError:
        return {}
    known = [cat.find(vid) for vid in sorted({s["variant"] for s in samples})]
    return cat.baseline_table([v for v in known if v is not None])


def catalog_units(rundir=None):
    """{workload: what one operation is} from the run's catalog, for a run folder
    whose run.json does not say; {} when the catalog cannot be read."""
    try:
        return {w: spec["unit"] for w, spec in catalog_mod.for_run(rundir).workloads.items()}
    except catalog_mod.CatalogError:
        return {}


def catalog_targets(rundir=None):
    """{workload: [target]} from the run's catalog (its snapshot: the bounds it
    ran with; today's for a run made before runs kept one); {} when the
    catalog cannot be read."""
    try:
        cat = catalog_mod.for_run(rundir)
    except catalog_mod.CatalogError:
        return {}
    return {w: spec.get("targets") or [] for w, spec in cat.workloads.items()}


# The fields of run.json that the summary and REPORT.md read, and their types.
RUN_TYPES = {"rounds": int, "warmup_rounds": int, "seed": int, "workloads": dict,
             "skipped": list, "failures": list, "baselines": dict, "complete": (bool, type(None)),
             "stamp": str, "profile": str}


# The fields of host.json that REPORT.md and the exports compute with.
_STR = (str, type(None))
HOST_TYPES = {"slug": _STR, "memory_bytes": (int, type(None)), "machine": _STR, "kernel": _STR,
              "cpu_model": _STR, "emulation": _STR}


def _baseline_table(b):
    """Whether b is run.json's baselines: {id: {key: [id, label] or None}}."""
    return isinstance(b, dict) and all(
        isinstance(rules, dict) and all(
            r is None or (isinstance(r, list) and len(r) == 2 and all(isinstance(x, str) for x in r))
            for r in rules.values())
        for rules in b.values())


def read_object(path, types):
    """The JSON object of path, or None when the file is missing.  EnvError (one
    line naming the file) when it is there but is not JSON (or names a key
    twice in one object), not an object, or a field of types has another
    type: run.json and host.json are written whole
    by the runner, so anything else was edited by hand, and rendering from it
    would draw a wrong report (or die in it)."""
    if not os.path.exists(path):
        return None
    try:
        with open(path, encoding="utf-8") as f:
            obj = json.load(f, object_pairs_hook=catalog_check.unique_keys)
    except OSError as e:
        raise EnvError("%s: cannot read it: %s" % (path, e.strerror or e))
    except catalog_check.DuplicateKey as e:
        raise EnvError("%s: %s (edited by hand: the runner writes each key once)" % (path, e))
    except ValueError as e:
        raise EnvError("%s: not JSON: %s" % (path, e))
    if not isinstance(obj, dict):
        raise EnvError("%s: a JSON object is expected, not %s" % (path, type(obj).__name__))
    for k, t in types.items():
        if k in obj and (not isinstance(obj[k], t) or (t is int and isinstance(obj[k], bool))):
            raise EnvError("%s: %s has the wrong type (%s)" % (path, k, type(obj[k]).__name__))
    if "memory_bytes" in types and isinstance(obj.get("memory_bytes"), int) \
            and not 0 <= obj["memory_bytes"] < 2 ** 63:
        raise EnvError("%s: memory_bytes is out of range" % path)
    for k in ("workloads",):
        if not all(isinstance(x, dict) for x in obj.get(k, {}).values()):
            raise EnvError("%s: every entry of %s must be an object" % (path, k))
    for k in ("failures",):
        if not all(isinstance(x, dict) for x in obj.get(k, [])):
            raise EnvError("%s: every entry of %s must be an object" % (path, k))
    return obj


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


def _run_catalog(rundir):
    try:
        return catalog_mod.for_run(rundir)
    except catalog_mod.CatalogError:
        return None


def _render(rundir, out_root, draw_charts=True):
    samples_path = os.path.join(rundir, "samples.csv")
    if not os.path.isdir(rundir):
        # results/latest before any run has finished, or a mistyped path.
        raise EnvError("%s is not a folder: --render takes a run folder, "
                       "results/<host>/<stamp>" % rundir)
    if not os.path.isfile(samples_path):
        raise EnvError("%s has no samples.csv: not a run folder" % rundir)
    file_warnings = []
    run_path = os.path.join(rundir, "run.json")
    run = read_object(run_path, RUN_TYPES) or {}
    try:
        # Every row is checked again as the runner checked its line, with the
        # checks and flag values the run recorded (today's catalog's before).
        contracts = sm.workload_contracts(run, run_path, _run_catalog(rundir))
        samples = sm.read_samples(samples_path, file_warnings, contracts)
    except ValueError as e:
        raise EnvError(str(e))
    for w in file_warnings:
        print("run.py: warning: %s" % w, file=sys.stderr)
    hinfo = read_object(os.path.join(rundir, "host.json"), HOST_TYPES) or {}
    if not hinfo.get("slug"):
        hinfo["slug"] = os.path.basename(os.path.dirname(os.path.abspath(rundir)))
    if not run:
        # samples.csv alone: recover what it can tell.
        run = {"stamp": os.path.basename(os.path.abspath(rundir)),
               "rounds": max([s["round"] for s in samples] or [0]),
               "complete": None, "failures": []}
    if not _baseline_table(run.get("baselines")):
        run["baselines"] = catalog_baselines(samples, rundir)
    units = {w: s.get("unit") for w, s in (run.get("workloads") or {}).items()}
    if not all(units.get(s["workload"]) for s in samples):
        units = dict(catalog_units(rundir), **{w: u for w, u in units.items() if u})
    rows, points = sm.split_points(sm.summarize(samples, run["baselines"], units))
    accounting.attach(rundir, rows)      # per operation: CPU, counts, system calls
    base = [s for s in samples if sm.at_base_point(s)]
    summary = {"run": run, "host": hinfo, "variants": rows,
               "headline": verdicts.headline(rows), "verdicts": dict(verdicts.sentences(rows)),
               "all_verdicts": dict(verdicts.full_sentences(rows)),
               "targets": targets.evaluate(base, catalog_targets(rundir))}
    if points:
        # A sweep (the scaling profile): every point's row, the base included;
        # the variants' rows above are the base point's.
        summary["points"] = points
        sm.write_csv(points, os.path.join(rundir, "points.csv"))
    if file_warnings:
        summary["warnings"] = file_warnings
    # Written once; the charts read this text back, the summary as the file holds it.
    summary_text = rd.json_text(summary)
    write_atomic(os.path.join(rundir, "summary.json"), summary_text)
    sm.write_csv(rows, os.path.join(rundir, "summary.csv"))
    # One time a process (its passes' median), as every statistic takes it.
    export.write(rundir, sm.per_process([s for s in samples if sm.at_base_point(s)]),
                 rows, hinfo)

    charts, all_drawn, across = [], True, []
    if not draw_charts:
        note = ("Charts not drawn (`--no-charts`); draw them with `make plots RUN=%s`."
                % rd.shown(rundir))
        write_atomic(os.path.join(rundir, "REPORT.md"),
                     report.markdown(rundir, summary, charts, run.get("failures") or [], note))
        return summary, all_drawn
    charts_dir = os.path.join(rundir, "charts")
    os.makedirs(charts_dir, exist_ok=True)
    workloads = sorted({r["workload"] for r in rows})
    try:
        all_drawn = charting.draw_charts(rundir, rows, workloads, charts,
                                 (json.loads(summary_text), samples))
        # Cross-host charts when the results folder holds runs of more than one host.
        out_root = out_root or os.path.dirname(os.path.dirname(os.path.abspath(rundir)))
        if len(host_runs(out_root)) > 1:
            draw_hosts(out_root, charts_dir, across)
    except KeyboardInterrupt:
        charts += [("Across hosts", os.path.relpath(path, rundir)) for path in across]
        note = ("**Charts missing**: the run was interrupted while they were drawn (%d drawn); "
                "redraw them with `make plots RUN=%s`." % (len(charts), rd.shown(rundir)))
        write_atomic(os.path.join(rundir, "REPORT.md"),
                     report.markdown(rundir, summary, charts, run.get("failures") or [], note))
        raise RenderInterrupted("while drawing the charts: REPORT.md written with %d of them"
                                % len(charts)) from None
    charts += [("Across hosts", os.path.relpath(path, rundir)) for path in across]
    write_atomic(os.path.join(rundir, "REPORT.md"),
                 report.markdown(rundir, summary, charts, run.get("failures") or []))
    return summary, all_drawn




def run_emulation(rundir):
    """How the run in rundir was emulated (host.json's emulation: Rosetta,
    qemu-user), or None for a native run or one recorded before the field."""
    return (read_object(os.path.join(rundir, "host.json"), HOST_TYPES) or {}).get("emulation")


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


def draw_hosts(out_root, dest, drawn=None):
    """Cross-host charts of the newest run of each host into dest; the PNG paths
    drawn, appended to drawn (a list) as they are, so that an interruption
    (ChartInterrupted) leaves the ones already drawn there."""
    newest = [v[-1] for v in host_runs(out_root).values()]
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
