"""charting.py -- the charts of a run folder (runner/report/render.py draws them):
which charts a workload gets (CHARTS, chart_wanted), the loop that draws each
of them, and the drawing of one chart in this process (draw): its stderr kept
from the runner's output, a signal waiting for it to be whole, a full disk
stopping the drawing with one line.

matplotlib is imported when the first chart is drawn (runner/report/charts/), never
for a run with --no-charts.
"""
import contextlib
import errno
import io
import os
import re
import signal
import sys
import threading

from ..catalog import catalog as catalog_mod
from ..core import ratios
from ..analysis import rundir as rd
from ..analysis import summary as sm
from ..core.errors import ChartError

# (chart module of runner/report/charts/, file prefix, title in REPORT.md, what a workload needs for the
# chart: a summary field some variant has, "ratios:<pick>" for a ratio that
# runner/core/ratios.py picks, "claims:<key>[|<key>...]" for keys of the
# workload's seed claims in the catalog, or "versions:claims" for ratio claims
# and a measured variant of a pinned runtime version), drawn per workload.  Each chart writes
# beside its PNG a JSON of what it plotted (charts/<prefix>-<workload>.json).  A
# title with %s names the baselines, from the data.
CHARTS = [("headline_chart", "headline", "Does the style cost anything? Each style against "
           "callbacks of its own language", "ratios:same_language"),
          ("time_chart", "time", "Time per operation with 95% CI", "median_ms"),
          ("ratio_chart", "ratio", "Ratio to the %s of the same mode",
           "ratios:against_baseline"),
          ("distribution_chart", "distribution", "Every sample", "median_ms"),
          ("cpu_chart", "cpu", "CPU time beside wall time", "proc_user_ms"),
          ("memory_chart", "memory", "Memory above the idle process (or peak)", "proc_peak_rss_kb"),
          ("claims_chart", "claims", "Seed claims against this host",
           "claims:ratios|absolute"),
          ("gap_chart", "gap", "Node's gap to C split into runtime, style and file reader",
           "claims:decomposition"),
          # Only in a run of the runtimes profile: a claim per line across versions.
          ("runtimes_chart", "runtimes", "Seed claims on each runtime version",
           "versions:claims"),
          # Only in a run of the seed profile: each claim's ladder (runner/analysis/ladder.py).
          ("ladder_chart", "ladder", "Each claim from the seed's figure to the suite's, one "
           "change at a time", "ladder:claims"),
          # Only for a workload whose catalog file asks for it (charts.where_time:
          # the split needs a blocking floor and backends, as readfile has).
          ("where_time_chart", "where", "Where the time of one operation goes", "median_ms",
           "where_time"),
          # Drawn only when the run swept (the scaling profile): log-log, one line
          # per variant, against N, against K, against the threadpool's size.
          ("scaling_n_chart", "scaling-n", "Scaling with N: time per operation, "
           "ratio to the C baseline, peak memory", "sweep_iterations"),
          ("scaling_k_chart", "scaling-k", "Scaling with K (bounded): time per "
           "operation and peak memory", "sweep_concurrency"),
          ("scaling_env_chart", "scaling-env", "Scaling with the threadpool's size: "
           "time per operation and peak memory", "sweep_env"),
          # Only for a workload whose catalog file asks for it (charts.per_unit_memory).
          ("unit_memory_chart", "unit-memory", "Memory per suspended operation", "proc_peak_rss_kb",
           "per_unit_memory")]


def chart_wanted(needs, rows, folder=None):
    """Why a chart is not drawn for rows (one workload's summary rows), or None
    when it is: needs is a summary field one row must have, ratios:<pick>
    (runner/core/ratios.py) that one row must have, or claims:<key>,
    a key of the workload's seed claims in the run's catalog of which one claim
    (or decomposition row) has every variant it names measured in this run."""
    if needs.startswith("claims:"):
        keys = needs.split(":", 1)[1]
        measured = {r["variant"] for r in rows if r.get("n")}
        claims = claims_of(rows[0]["workload"], folder) or {}
        for key in keys.split("|"):
            entries = claims.get(key) or []
            if key == "decomposition":
                entries = entries.get("rows", []) if isinstance(entries, dict) else []
            for e in entries:
                ids = [v for k in ("num", "den", "variant", "node", "c") if k in e
                       for v in (e[k] if isinstance(e[k], list) else [e[k]])]
                if ids and set(ids) <= measured:
                    return None
        return "no claim's variants (%s) were all measured in this run" % keys
    if needs == "ladder:claims":
        if folder is None or folder.recorded.get("profile") != catalog_mod.SEED_PROFILE:
            return "a ladder is drawn from a run of the seed profile"
        cat = _catalog(folder)
        if cat is not None and not any((w.get("claims") or {}).get("ladder")
                                       for w in cat.workloads.values()):
            cat = _catalog(None)    # a run older than the ladders: today's rungs (ladder.runs_for)
        w = cat.workloads.get(rows[0]["workload"]) if cat is not None else None
        if not ((w or {}).get("claims") or {}).get("ladder"):
            return "the catalog has no ladder of this workload's claims"
        return None
    if needs == "versions:claims":
        if folder is not None and folder.recorded.get("profile") == catalog_mod.SEED_PROFILE:
            return "a seed run's versioned variants are its ladders' rungs (the ladder chart)"
        if not any(r.get("runtime") and r.get("n") for r in rows):
            return "no variant of a pinned runtime version was measured in this run"
        return None if (claims_of(rows[0]["workload"], folder) or {}).get("ratios") else "no ratio claims"
    if needs.startswith("ratios:"):
        pick = needs.split(":", 1)[1]
        return None if ratios.has_ratio(rows, pick) else "no variant has a ratio (%s)" % pick
    if any(r.get(needs) is not None for r in rows):
        return None
    return "no variant has a %s" % needs.replace("_", " ")


def _catalog(folder):
    """The run folder's catalog (today's without a folder), None when it
    cannot be read."""
    if folder is not None:
        return folder.catalog_or_none()
    try:
        return catalog_mod.for_run(None)
    except catalog_mod.CatalogError:
        return None


def claims_of(workload, folder=None):
    """The seed claims of a workload in the run's catalog (catalog.for_run:
    its snapshot, else today's), or None."""
    cat = _catalog(folder)
    if cat is None:
        return None
    w = cat.workloads.get(workload)
    return w.get("claims") if w else None


def draw_charts(folder, rows, workloads, charts):
    """Draws every chart of every workload of the run folder (a
    runfolder.RunFolder, what the charts draw from), appending (title, path)
    to charts; True when every one was drawn."""
    all_drawn = True
    for name, prefix, title, needs, *hint in CHARTS:
        for w in workloads:
            if hint and not chart_hint(w, hint[0], folder):
                continue
            wrows = [r for r in rows if r["workload"] == w]
            why = chart_wanted(needs, wrows, folder)
            if why:
                if needs.startswith(("sweep_", "versions:", "ladder:")):
                    continue        # a sweep's or the runtimes profile's chart, not this run's
                if not needs.startswith("claims:"):
                    print("run.py: no %s chart for %s: %s" % (prefix, w, why), file=sys.stderr)
                continue
            rel = os.path.join("charts", "%s-%s.png" % (prefix, w))
            text = title
            if "%s" in title:
                text = title % " / ".join(sm.baseline_labels(wrows))

            def chart(name=name, w=w, path=folder.file(rel)):
                chart_module(name).draw(folder, w, path)
            try:
                ok = draw(folder.file(rel), chart)
            except ChartInterrupted as e:
                if e.drawn:
                    charts.append(("%s (%s)" % (text, w), rel))
                raise
            all_drawn &= ok
            if ok:
                charts.append(("%s (%s)" % (text, w), rel))
    return all_drawn


def chart_module(name):
    """The module of runner/report/charts/ that draws chart name (CHARTS' first column,
    or hosts_chart)."""
    from .charts import claims_chart, cpu_chart, distribution_chart, gap_chart, headline_chart, hosts_chart, ladder_chart, memory_chart, ratio_chart, runtimes_chart, scaling_env_chart, scaling_k_chart, scaling_n_chart, time_chart, unit_memory_chart, where_time_chart
    return {"claims_chart": claims_chart, "cpu_chart": cpu_chart,
            "distribution_chart": distribution_chart, "gap_chart": gap_chart,
            "headline_chart": headline_chart, "hosts_chart": hosts_chart,
            "ladder_chart": ladder_chart, "memory_chart": memory_chart, "ratio_chart": ratio_chart,
            "runtimes_chart": runtimes_chart, "scaling_env_chart": scaling_env_chart,
            "scaling_k_chart": scaling_k_chart, "scaling_n_chart": scaling_n_chart,
            "time_chart": time_chart, "unit_memory_chart": unit_memory_chart,
            "where_time_chart": where_time_chart}[name]


def chart_hint(workload, name, folder=None):
    """The run's catalog's charts.<name> of a workload (None when it has none or
    the catalog cannot be read)."""
    cat = _catalog(folder)
    if cat is None:
        return None
    return ((cat.workloads.get(workload) or {}).get("charts") or {}).get(name)


# A chart that failed with one of these could not write into the run folder
# (a full disk, a quota, a read-only mount): drawing stops there with one
# line, not one per chart.
FOLDER_ERRNOS = (errno.ENOSPC, errno.EDQUOT, errno.EROFS)


class ChartInterrupted(KeyboardInterrupt):
    """Ctrl-C (or SIGTERM, SIGHUP) while a chart was drawn; drawn says whether
    its PNG was written whole all the same."""

    def __init__(self, drawn):
        KeyboardInterrupt.__init__(self)
        self.drawn = drawn


# The signals that end a run (measure.interrupt_on_signals) and that wait, while a
# chart is drawn, for it to be whole.
HELD_SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP")


@contextlib.contextmanager
def signals_held():
    """While the block runs, the first SIGINT, SIGTERM or SIGHUP whose handler is
    Python's waits for it to end; a second one is handled at once (Ctrl-C twice
    does not wait).  After the block, the held signal's own handler runs (the
    runner's raises KeyboardInterrupt).  Only in the main thread, where Python
    handles signals."""
    held, old = [], {}

    def hold(signum, frame):
        if held:
            old[signum](signum, frame)
        held.append((signum, frame))
    if threading.current_thread() is threading.main_thread():
        for name in HELD_SIGNALS:
            sig = getattr(signal, name, None)
            if sig is not None and callable(signal.getsignal(sig)):
                old[sig] = signal.signal(sig, hold)
    try:
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)
    if held:
        signum, frame = held[0]
        old[signum](signum, frame)


def draw(path, call):
    """Draws one chart, call() (a chart module's draw), in this process; True when
    it drew its PNG.  What the chart says on stderr (its layout warnings,
    matplotlib's) is kept from the runner's output, as it was when a chart was
    a process of its own; a chart that cannot be drawn is one line naming it
    (path, its PNG) and why.  A signal that ends the run waits for the chart in
    progress to be whole (signals_held), then raises ChartInterrupted, which
    says whether it was: REPORT.md once said '0 drawn' beside a complete PNG."""
    ok, why = False, None
    try:
        with signals_held():
            try:
                with contextlib.redirect_stderr(io.StringIO()):
                    call()
                ok = True
            except KeyboardInterrupt:
                raise
            except Exception as e:     # a chart's bug is its failure, not the run's
                why = str(e) if isinstance(e, ChartError) else "%s: %s" % (type(e).__name__, e)
                why = (why.strip().splitlines() or [type(e).__name__])[-1]
                full = re.search(r"\[Errno (\d+)\]", why)
                code = e.errno if isinstance(e, OSError) and e.errno else \
                    int(full.group(1)) if full else None
                if code in FOLDER_ERRNOS:
                    # The folder, not the chart: every other chart would fail alike.
                    raise OSError(code, os.strerror(code), path)
            finally:
                _close_figures()
    except KeyboardInterrupt:
        raise ChartInterrupted(ok) from None
    if not ok:
        print("run.py: %s failed: %s" % (rd.shown(path), why), file=sys.stderr)
    return ok


def _close_figures():
    """Closes every matplotlib figure a chart left open (one that failed midway)."""
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is not None:
        pyplot.close("all")
