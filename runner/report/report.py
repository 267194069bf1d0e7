"""report.py -- REPORT.md of a run folder, the answer first: the summary table
(runner/report/answer.py), the targets, the short verdicts (runner/analysis/verdicts.py), the
command that reproduces the run, the method (runner/report/method.py), the host and
versions, the tables (per workload and mode, at most six columns so that they fit an issue comment: time per operation with
its CI, the ratio to each baseline with the difference per operation, the
warnings folded into a notes column; then memory and CPU), every verdict one
by one, the charts, the reproduction of the seeds' claims
(runner/analysis/reproduce.py), the skipped variants, warnings and failures.
"""
import os

from ..analysis import accounting
from . import answer
from ..analysis import byversion
from ..core import fmt
from ..core import prose
from ..analysis import ladder
from . import method
from .rerun import reproduce_command
from ..analysis import noise
from ..core import ratios
from ..analysis import reproduce
from ..core import stats
from ..analysis import summary as sm
from ..analysis import tables
from ..analysis import targets
from ..analysis import verdicts


def _threadpool(host):
    """libuv's threadpool size, with the variable when it says something else."""
    used, raw = host.get("uv_threadpool_size"), host.get("uv_threadpool_size_env")
    if raw is not None and str(raw) != str(used):
        return "%s (UV_THREADPOOL_SIZE=%r)" % (fmt.text(used), raw)
    return used


def _nofile(host):
    """'1024 / 524288' from host.json; '-' in a host.json older than the field."""
    if "nofile_soft" not in host and "nofile_hard" not in host:
        return None
    lim = lambda x: "unlimited" if x is None else str(x)  # noqa: E731
    return "%s / %s" % (lim(host.get("nofile_soft")), lim(host.get("nofile_hard")))


def _freq_policy(host):
    """host.json's cpu_frequency_policy in words; '-' in a host.json older than it."""
    if "cpu_frequency_policy" not in host:
        return None
    p = host["cpu_frequency_policy"]
    if not isinstance(p, dict):
        return "not readable"
    return ", ".join("%s %s" % (k.replace("_", " "), v) for k, v in sorted(p.items()) if v is not None)


def host_section(host):
    mem = host.get("memory_bytes")
    rows = [("host", host.get("slug")),
            ("CPU", "%s, %s cores" % (fmt.text(host.get("cpu_model")),
                                      fmt.text(host.get("cores")))),
            ("memory", "%.1f GiB" % (mem / 2 ** 30) if mem else None),
            ("OS / kernel", "%s / %s" % (fmt.text(host.get("os")), fmt.text(host.get("kernel")))),
            ("CPU governor", host.get("governor") or "not readable"),
            ("CPU frequency policy", _freq_policy(host)),
            ("page size", "%d KiB" % (host["page_size"] // 1024) if host.get("page_size") else None),
            ("emulation", "%s: these timings are the emulator's too" % host["emulation"]
             if host.get("emulation") else "none (native)" if "emulation" in host else None),
            ("C compiler", host.get("compiler")),
            ("libuv (C programs)", host.get("libuv")),
            ("Go", host.get("go")),
            ("Node.js (its libuv)",
             "%s (libuv %s)" % (host["node"], fmt.text(host.get("node_libuv")))
             if host.get("node") else "not found"),
            ("UV_THREADPOOL_SIZE", _threadpool(host)),
            ("open files (soft / hard limit)", _nofile(host)),
            ("Python (runner)", host.get("python")),
            ("git commit", host.get("git_commit"))]
    out = ["## Host and versions", "", "| | |", "|---|---|"]
    out += ["| %s | %s |" % (k, fmt.text(v)) for k, v in rows]
    return out


def skipped_section(run):
    """The variants this run skipped, one line each with the reason."""
    skipped = run.get("skipped") or []
    if not skipped:
        return []
    out = ["## Skipped variants", "",
           "Not measured because a requirement of the catalog was not met on this host:", ""]
    for s in skipped:
        if isinstance(s, dict):
            out.append("- `%s`: %s" % (s.get("variant"),
                                        prose.clauses_as_sentences(str(s.get("reason")))))
        else:
            out.append("- %s" % s)
    return out + [""]


def _cell(text):
    """A Markdown table cell: '~' escaped (GitHub reads ~x~ as strike-through), '|' too."""
    return text.replace("|", "\\|").replace("~", "\\~")


def results_table(wrows):
    """One mode's rows as a Markdown table of at most six columns: variant, n,
    time per operation [CI], one column per baseline (ratio [CI], Δ per
    operation [CI]), notes (the row's warnings)."""
    head, body, _ = tables.table_cells(wrows)
    k = (len(head) - 4) // 2
    cols = ["variant", "n", "%s [95%% CI]" % head[2]]
    cols += ["%s (%s)" % (head[4 + 2 * i], head[5 + 2 * i]) for i in range(k)]
    cols.append("notes")
    out = ["| " + " | ".join(cols) + " |", "|---|---:|---:|" + "---|" * k + "---|"]
    for r, b in zip(wrows, body):
        cells = ["`%s`" % b[0], b[1], "%s %s" % (b[2], b[3] if b[3].startswith("[")
                                                 else "(%s)" % b[3])]
        for i in range(k):
            ratio, diff = b[4 + 2 * i], b[5 + 2 * i]
            cells.append(_cell(ratio + ("; Δ " + diff if diff else "")))
        cells.append(_cell("; ".join(r["warnings"])) or "-")
        out.append("| " + " | ".join(cells) + " |")
    return out


def _mib(kb):
    return "-" if kb is None else "%.1f" % (kb / 1024.0)


def resources_table(wrows):
    """Memory and CPU of each variant: the runner's wait4 figures, medians."""
    out = ["| variant | peak RSS MiB | above idle MiB | user ms | sys ms | outliers |",
           "|---|---:|---:|---:|---:|---:|"]
    for r in wrows:
        out.append("| `%s` | %s | %s | %s | %s | %d |" % (
            r["label"], _mib(r.get("proc_peak_rss_kb")), _mib(r.get("mem_above_idle_kb")),
            fmt.num(r.get("proc_user_ms")), fmt.num(r.get("proc_sys_ms")), r.get("outliers") or 0))
    return out


def results_section(rows):
    out = ["## Results", ""]
    for workload in sorted({r["workload"] for r in rows}):
        wrows = [r for r in rows if r["workload"] == workload]
        out += ["### %s (N = %s per run)" % (workload, format(wrows[0]["iterations"], ",")), ""]
        modes = []
        for r in wrows:
            if r["mode"] not in modes:
                modes.append(r["mode"])
        for mode in modes:
            out += ["#### %s" % mode, ""] + results_table([r for r in wrows if r["mode"] == mode])
            out.append("")
        out += ["%s. A ratio above 1 is slower than the baseline."
                % ". ".join(tables.legend(wrows)),
                "", "Memory and CPU (the whole process, from `wait4`; medians):", ""]
        out += resources_table(wrows) + [""]
    return out


def _float(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def _spread(c, instr):
    """A counts.csv row's spread as a share of its figure: '0.004%'; '-' for one count."""
    spread = _float(c.get("spread_per_op"))
    if spread is None or not instr or (_float(c.get("repeat")) or 1) < 2:
        return "-"
    share = 100.0 * spread / abs(instr)
    return "{:,.0f}%".format(share) if share >= 100 else "%.3g%%" % share


def counts_section(folder, rows):
    """Instructions per operation (Valgrind, `make counts RUN=rundir`) beside
    the run's time per operation, a table per workload; [] without counts."""
    counted, info = folder.counts
    if not counted or info is None:
        return []
    same = info.get("same_sources")
    whose = ("the run's C and Go sources" if same else
             "**C and Go sources that differ from the run's**" if same is False else
             "sources git could not compare with the run's")
    out = ["## Instructions per operation", "",
           "Counted under Valgrind (%s) by `make counts RUN=...` (%s, commit `%s`, %s; the run's "
           "commit `%s`). A figure is the difference of two N over their difference, so "
           "start-up, warm-up and exit cancel. *Spread*: how far repeated counts of a variant "
           "lie apart, as a share of its figure (`COUNTS_ARGS=--repeat K`; - for one count). A "
           "count is exact where its spread is small, and settles a difference the times cannot "
           "resolve. Where the operations go through libuv's threadpool, the count includes the "
           "loop's and the threads' waits. Those vary with scheduling, and the spread says by how "
           "much. Node is not counted (V8's own threads vary a count by millions of "
           "instructions); nor is a variant that needs a server." % (
               info.get("tool"), info.get("stamp"), (info.get("commit") or "?")[:7], whose,
               (info.get("run_commit") or "?")[:7]), ""]
    for workload in sorted({r["workload"] for r in rows}):
        wrows = [r for r in rows if r["variant"] in counted and r["workload"] == workload]
        if not wrows:
            continue
        div, unit = tables.op_scale(wrows)
        n = (info.get("n") or {}).get(workload) or ["?", "?"]
        out += ["### %s (counted at N = %s and %s)" % (workload, *[format(x, ",") if isinstance(
                    x, int) else x for x in n]), "",
                "| variant | instructions/op | spread | %s/op here [95%% CI] | instructions per ns |"
                % unit, "|---|---:|---:|---:|---:|"]
        for r in wrows:
            instr = _float(counted[r["variant"]].get("instr_per_op"))
            per_op = r.get("per_op_ns")
            out.append("| `%s` | %s | %s | %s %s | %s |" % (
                r["label"], "-" if instr is None else
                ("{:,.1f}".format(instr) if abs(instr) < 1000 else "{:,.0f}".format(instr)),
                _spread(counted[r["variant"]], instr),
                tables.fmt_op(per_op, div), tables.per_op_ci(r, div),
                "-" if not per_op or instr is None else "%.2f" % (instr / per_op)))
        out.append("")
    return out


def outside_section(rows):
    """The time outside the clock (DESIGN section 6): every variant's wall time
    less its timed section, its language's empty-program start-up in the same
    rounds, its warm-up pass, and what is left, the variant's own; a variant
    whose own share is over OUTSIDE_SHARE_MAX of its timed time is flagged,
    listed first."""
    known = [r for r in rows if r.get("outside_ms") is not None]
    if not known:
        return []
    limit = "%d%%" % round(sm.OUTSIDE_SHARE_MAX * 100)
    flagged = [r for r in known if r.get("outside_flag")]
    out = ["## Time outside the clock", "",
           "Every process's wall time (the launcher's) less its timed section (`elapsed_ns`), "
           "medians. It holds start-up, flag parsing, the fixture check, what a variant prepares "
           "before its clock, the warm-up and its exit. *Start-up* is the wall time of an empty "
           "program of the variant's language in the same rounds. Those programs are "
           "`c-empty`, `go-empty` and `node node/lib/empty.mjs`. *Warm-up* is the `--warmup` "
           "pass as the program timed it, and *own* is the rest, round by round. A variant "
           "whose own time outside the clock is over %s of its timed time is flagged. There, "
           "what the clock leaves out is a large part of the run." % limit, ""]
    if flagged:
        out.append("**Flagged** (own time outside the clock over %s of the timed time):" % limit)
        out += ["- `%s`: %s ms outside (start-up %s ms, warm-up %s ms, own %s ms) against "
                "%s ms timed: %s"
                % (r["variant"], fmt.num(r["outside_ms"]), fmt.num(r.get("startup_ms")),
                   fmt.num(r.get("warmup_ms")), fmt.num(r.get("own_outside_ms")),
                   fmt.num(r["median_ms"]), _share(r)) for r in flagged]
    else:
        out.append("No variant's own time outside the clock is over %s of its timed time."
                   % limit)
    out.append("")
    for workload in sorted({r["workload"] for r in known}):
        out += ["### %s" % workload, "",
                "| variant | timed ms | outside ms | start-up ms | warm-up ms | own ms (of timed) |",
                "|---|---:|---:|---:|---:|---:|"]
        for r in [r for r in known if r["workload"] == workload]:
            out.append("| `%s` | %s | %s | %s | %s | %s (%s) |" % (
                r["label"], fmt.num(r.get("median_ms")), fmt.num(r["outside_ms"]),
                fmt.num(r.get("startup_ms")), fmt.num(r.get("warmup_ms")),
                fmt.num(r.get("own_outside_ms")),
                _share(r) + (" **over %s**" % limit if r.get("outside_flag") else "")))
        out.append("")
    return out


def _share(r):
    return "-" if r.get("outside_share") is None else "%.0f%%" % (100 * r["outside_share"])


def pairing_section(rows):
    """## Pairing check: where a ratio came from lockstep sessions, how wide
    its intervals were by the languages it compares, and the ratios whose
    round-paired figure from the fresh processes disagrees with it (neither
    interval reaches the other); [] for a run without lockstep."""
    locked = [(r, p) for r in rows for _, p in sm.BASELINE_KEYS
              if r.get(p + "pairing") == "lockstep" and r.get(p + "ratio_ci_low") is not None]
    if not locked:
        return []
    groups = {}
    for r, p in locked:
        langs = "%s vs %s" % (r["lang"], ratios.lang_of(r[p + "baseline"]))
        half = (r[p + "ratio_ci_high"] - r[p + "ratio_ci_low"]) / 2.0 / r[p + "ratio"]
        groups.setdefault(langs, []).append(half)
    out = ["## Pairing check", "",
           "%d ratios came from lockstep process pairs (Method). Their 95%% intervals' "
           "half-widths, as a share of the ratio:" % len(locked), "",
           "| compared | ratios | median half-width | at most 2% | at most 5% |",
           "|---|---:|---:|---:|---:|"]
    for k in sorted(groups):
        hs = groups[k]
        out.append("| %s | %d | %.1f%% | %d | %d |" % (
            k, len(hs), 100 * stats.median(hs), sum(1 for h in hs if h <= 0.02),
            sum(1 for h in hs if h <= 0.05)))
    both = [(r, p) for r, p in locked if r.get(p + "disagree") is not None]
    bad = [(r, p) for r, p in both if r.get(p + "disagree")]
    out += ["", "The fresh processes' round-paired ratio of the same pair is the check: %d of "
            "%d ratios with an interval from both disagree (neither interval reaches the "
            "other)%s" % (len(bad), len(both), ":" if bad else "."), ""]
    for r, p in bad:
        out.append("- `%s` over `%s`: lockstep %s, fresh rounds %s" % (
            r["variant"], r[p + "baseline"], fmt.ratio(r[p + "ratio"], r[p + "ratio_ci_low"],
                                                        r[p + "ratio_ci_high"]),
            fmt.ratio(r[p + "fresh_ratio"], r[p + "fresh_ratio_ci_low"],
                         r[p + "fresh_ratio_ci_high"])))
    if len(both) < len(locked):
        out.append("%s%d ratios had too few fresh rounds for an interval of their own (%d "
                   "needed): no check of their own." % ("\n" if bad else "",
                                                       len(locked) - len(both),
                                                       stats.min_samples_for_ci()))
    # Over the whole run: the fresh rounds' ratio over the lockstep one, pair by
    # pair, where the fresh rounds gave one: a method that moved every ratio
    # one way (a partner sharing the CPU's caches, warm processes) shows here.
    rel = sorted(r[p + "fresh_ratio"] / r[p + "ratio"] for r, p in locked
                 if r.get(p + "fresh_ratio") and r.get(p + "ratio"))
    if len(rel) >= 4:
        q = lambda f: rel[min(len(rel) - 1, int(f * len(rel)))]
        outside = sum(1 for r, p in locked if r.get(p + "fresh_ratio") and not (
            r[p + "ratio_ci_low"] <= r[p + "fresh_ratio"] <= r[p + "ratio_ci_high"]))
        out += ["", "Over the run, take the fresh rounds' ratio (the median of %s) over the "
                "lockstep ratio of the same pair. Its median is %.3f, the middle half %.3f to "
                "%.3f, over %d pairs. %d fresh ratios lie outside their lockstep interval. The "
                "fresh rounds' own spread is wider: they are seconds apart." % (
                    "its rounds", stats.median(rel), q(0.25), q(0.75),
                    len(rel), outside)]
    return out + [""]


def summary_section(rows):
    """The answer at a glance (runner/report/answer.py): a sentence per language and the
    summary table, as the README's first screen shows the reference run's."""
    md = answer.markdown(rows)
    if not md:
        return []
    return ["## Summary", ""] + md + [""]


def findings_section(rows, charts):
    """The short verdicts first, with the headline charts when they were drawn."""
    locked = any(r.get(p + "pairing") == "lockstep" for r in rows for _, p in sm.BASELINE_KEYS)
    out = ["## Findings", "",
           "Each style against the baseline of its own language. "
           "A ratio is %s, with its 95%% CI. "
           "A difference is named only when the CI excludes 1 and it survives the false "
           "discovery rate control over the run's comparisons (see Method). "
           "Every comparison, one by one, is under [All verdicts](#all-verdicts)."
           % ("the geometric mean of lockstep sessions' figures (a round-paired median where "
              "a pair ran no lockstep)" if locked else "a round-paired median"), ""]
    md = verdicts.markdown(rows)
    out += md if md else ["No variant has a baseline of its own language in this run.", ""]
    for title, rel in charts:
        if os.path.basename(rel).startswith("headline"):
            out += ["![%s](%s)" % (title, rel), ""]
    return out


def all_verdicts_section(rows):
    """Every style against its own language's baseline, mode by mode, one by one."""
    md = verdicts.markdown(rows, full=True)
    if not md:
        return []
    return ["## All verdicts", "",
            "Every style against the baseline of its own language, mode by mode, each "
            "baseline named. Brackets hold the 95% CI of the ratio, then of the difference per "
            "operation.", ""] + md


def charts_section(folder, charts, note=None):
    out = ["## Charts", ""]
    if note:
        out += [note, ""]
    if not charts:
        return out if note else out + ["No charts were drawn (see the runner's output for why).", ""]
    for title, rel in charts:
        if os.path.exists(folder.file(rel)):
            out += ["### %s" % title, "", "![%s](%s)" % (title, rel), ""]
    return out


def warnings_section(rows, failures, file_warnings=()):
    out = ["## Warnings", ""]
    warned = ["- `%s`: %s" % (v, w) for v, w in
              [(r["variant"], w) for r in rows for w in r["warnings"]]]
    out += ["- %s" % w for w in file_warnings] + warned or ["None."]
    out += ["", "## Failures", ""]
    if not failures:
        out.append("None: every run met the contract.")
    else:
        out += ["| round | variant | status | exit | reason |", "|---|---|---|---:|---|"]
        for f in failures:
            out.append("| %s | `%s` | %s | %s | %s |" % (
                fmt.text(f.get("round")), f.get("variant"), f.get("status"),
                fmt.text(f.get("exit_code")),
                (f.get("reason") or "").replace("|", "\\|")))
    return out + [""]


def reproduce_section(summary, folder=None):
    """The Markdown of runner/analysis/reproduce.py for this run (folder: its RunFolder)."""
    try:
        text = reproduce.markdown(summary, folder, more=(byversion.section,))
    except Exception as e:  # a broken reproduction table must not lose the report
        return ["## Reproduction", "", "runner/analysis/reproduce.py failed: %s" % e, ""]
    return [text.rstrip(), ""] if text else []


def markdown(folder, summary, charts, failures, charts_note=None):
    """REPORT.md of the run folder (a runfolder.RunFolder) from its summary."""
    run, host, rows = summary["run"], summary["host"], summary["variants"]
    workloads = ", ".join(sorted({r["workload"] for r in rows})) or "no samples"
    title = "# %s on %s, %s" % (workloads, fmt.text(host.get("slug")), fmt.text(run.get("stamp")))
    out = [title, ""]
    if run.get("complete") is False:
        out += ["> **Incomplete run**: %s." % (run.get("ending") or "it did not finish"), ""]
    out += summary_section(rows)
    out += targets.markdown(summary.get("targets") or [])
    out += findings_section(rows, charts)
    out += reproduce_command(run, host, folder.path)
    out += method.method_section(run, sm.family_size(rows), method.aa_figure(folder.path))
    out += [""] + host_section(host) + [""]
    out += results_section(rows) + pairing_section(rows) + counts_section(folder, rows)
    out += outside_section(rows) + noise.markdown(folder.rounds)
    out += all_verdicts_section(rows)
    out += accounting.markdown(rows, folder.trace)
    out += charts_section(folder, charts, charts_note)
    out += reproduce_section(summary, folder)
    out += ladder.report_section(folder)
    out += skipped_section(run)
    out += warnings_section(rows, failures, summary.get("warnings") or ())
    out += ["## Exports", "",
            "- `samples.csv`: every process run (a row per timed pass); `summary.csv`, `summary.json`: the tables above "
            "(summary.json's `headline` holds each style against its own language's baseline).",
            "- `results.md`: the tables as Markdown, in the manner of hyperfine's "
            "`--export-markdown`.",
            "- `hyperfine.json`: hyperfine's JSON export shape (times in seconds).",
            "- `bench.txt`: Go benchmark format, one op = one operation (ns/op is the time per "
            "operation). Compare two runs with `benchstat A/bench.txt B/bench.txt`; two hosts "
            "with `benchstat -ignore host,cpu,goarch A/bench.txt B/bench.txt`.",
            ""]
    return "\n".join(out).rstrip() + "\n"
