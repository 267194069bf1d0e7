"""report.py -- REPORT.md of a run folder, findings first: the short verdicts
(runner/verdicts.py), the command that reproduces the run, the method, the
host and versions, the tables (per workload and mode, at most six columns so
that they fit an issue comment: time per operation with its CI, the ratio to
each baseline with the difference per operation, the warnings folded into a
notes column; then memory and CPU), every verdict one by one, the charts, the
reproduction of the seeds' claims (runner/reproduce.py), the skipped variants,
warnings and failures.
"""
import csv
import json
import os
import shlex

from . import accounting
from . import byversion
from . import fmt
from . import noise
from . import reproduce
from . import summary as sm
from . import tables
from . import targets
from . import verdicts
from . import trace as trace_mod


def _v(x):
    return "-" if x in (None, "") else str(x)


def _threadpool(host):
    """libuv's threadpool size, with the variable when it says something else."""
    used, raw = host.get("uv_threadpool_size"), host.get("uv_threadpool_size_env")
    if raw is not None and str(raw) != str(used):
        return "%s (UV_THREADPOOL_SIZE=%r)" % (_v(used), raw)
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
            ("CPU", "%s, %s cores" % (_v(host.get("cpu_model")), _v(host.get("cores")))),
            ("memory", "%.1f GiB" % (mem / 2 ** 30) if mem else None),
            ("OS / kernel", "%s / %s" % (_v(host.get("os")), _v(host.get("kernel")))),
            ("CPU governor", host.get("governor") or "not readable"),
            ("CPU frequency policy", _freq_policy(host)),
            ("page size", "%d KiB" % (host["page_size"] // 1024) if host.get("page_size") else None),
            ("emulation", "%s: these timings are the emulator's too" % host["emulation"]
             if host.get("emulation") else "none (native)" if "emulation" in host else None),
            ("C compiler", host.get("compiler")),
            ("libuv (C programs)", host.get("libuv")),
            ("Go", host.get("go")),
            ("Node.js (its libuv)", "%s (libuv %s)" % (host["node"], _v(host.get("node_libuv")))
             if host.get("node") else "not found"),
            ("UV_THREADPOOL_SIZE", _threadpool(host)),
            ("open files (soft / hard limit)", _nofile(host)),
            ("Python (runner)", host.get("python")),
            ("git commit", host.get("git_commit"))]
    out = ["## Host and versions", "", "| | |", "|---|---|"]
    out += ["| %s | %s |" % (k, _v(v)) for k, v in rows]
    return out


def _workload_runs(run):
    """'readfile: `--iterations 500 --file fixtures/text.txt ...`' per workload."""
    out = []
    for w, s in sorted((run.get("workloads") or {}).items()):
        flags = " ".join(a if not a.count(" ") else "'%s'" % a for a in s.get("args", []))
        rounds = s.get("rounds")
        budget = (run.get("budget") or {}).get(w)
        passes = s.get("passes_count") or 1
        out.append("`%s`: `--iterations %s --warmup %s%s%s`, timeout %s s%s" % (
            w, _v(s.get("iterations")), s.get("warmup_ops", 0),
            " --passes %d" % passes if passes > 1 else "", " " + flags if flags else "",
            _v(s.get("timeout_s")),
            # A time budget: the variants it names ran in more rounds (n in the tables).
            ", %s rounds, and the variants under its time budget as many more as fit in "
            "%g s each at their %s time, at most %s (`run.json`: `variant_rounds`)"
            % (rounds, budget.get("seconds", 0),
               "round-1" if run.get("budget_from") == "round 1" else "warm-up",
               budget.get("max_rounds"))
            if isinstance(budget, dict) else
            "" if rounds in (None, run.get("rounds"), _planned(run)) else
            ", in the first %s round%s only" % (rounds, "" if rounds == 1 else "s")))
    return out


def _planned(run):
    """The run's planned measured rounds: its rounds less the extra ones."""
    x = run.get("extra_rounds")
    if isinstance(x, dict) and isinstance(x.get("planned_rounds"), int):
        return x["planned_rounds"]
    return run.get("rounds")


def extra_text(run):
    """The Method's sentence on extra rounds (runner/sequential.py), or None
    when the profile gives none."""
    x = run.get("extra_rounds")
    if not isinstance(x, dict):
        return None
    got = [q for q in x.get("questions") or [] if q.get("extra_rounds")]
    out = ("- Extra rounds: after the planned rounds the run added rounds holding only the "
           "variants of the targets and claims still open, at most %s within %s minutes, "
           "by the %s: for each question the per-round figure's median (a ratio, a "
           "difference per operation, a margin to the bound) against its bound, with a "
           "confidence sequence valid at every look (the sign test's likelihood ratios "
           "mixed uniformly over the sign's probability, with Ville's inequality), so that "
           "deciding by looking at the data keeps a wrongly decided question at 5%% or "
           "less. It never decides what the fixed interval does not (it is the wider). "
           "%s extra round%s ran; stopped by %s."
           % (_v(x.get("max")), _v(x.get("minutes")) + (
               " and by the run's %s-minute budget" % _v(x["run_minutes"])
               if x.get("run_minutes") else ""), x.get("rule", "?"), x.get("rounds", 0),
              "" if x.get("rounds") == 1 else "s", x.get("stopped") or "?"))
    if got:
        done = sorted(q["decided_at"] for q in got if q.get("decided_at") is not None)
        still = [q for q in got if q.get("decided_at") is None]
        out += " They were for %d question%s (`run.json`: `extra_rounds`): %s%s." % (
            len(got), "" if len(got) == 1 else "s",
            "%d decided after round %s" % (len(done), done[0] if done[0] == done[-1] else
                                           "%d to %d" % (done[0], done[-1])) if done else
            "none decided",
            "; still open: " + "; ".join(
                "%s (%s)" % (q["text"], "at [%s, %s]" % (_g(q["lo"]), _g(q["hi"]))
                             if q.get("lo") is not None else
                             "too few rounds to exclude any bound")
                for q in still) if still else "")
    return out


def _g(x):
    return "%.3g" % x if isinstance(x, (int, float)) else "?"


def passes_text(run):
    """The Method's sentence on timed passes, or None when every process ran one."""
    many = sorted((w, s["passes_count"]) for w, s in (run.get("workloads") or {}).items()
                  if (s.get("passes_count") or 1) > 1)
    if not many:
        return None
    return ("- Passes: a process of %s runs that many timed passes of N after its warm-up "
            "(`--passes P`; a whole-process method one), each verified and timed alike and "
            "each a row of `samples.csv` (its `pass` column). A process's value is the median "
            "of its passes, and the medians, CIs, round-paired ratios and tests above take "
            "that value, one a process: the passes of one process share its start, its CPU "
            "and its neighbours, so they are not independent samples, and the intervals "
            "measure the spread between processes (rounds); the median of a process's passes "
            "keeps one interrupted pass from moving it. Every pass is in *Every sample*."
            % ", ".join("`%s` %d" % ws for ws in many))


def _warm_n(run):
    """' (each program at a smaller N: readfile 1,000, ...)' when the run's
    warm-up rounds ran at another N than its rounds, else ''."""
    ws = sorted((w, s["warmup_round_iterations"]) for w, s in (run.get("workloads") or {}).items()
                if isinstance(s.get("warmup_round_iterations"), int)
                and s["warmup_round_iterations"] != s.get("iterations"))
    if not ws:
        return ""
    return (" (each program at a smaller N than the rounds', %s: a warm-up round warms the "
            "host, its files and caches, and every process warms itself before its clock)"
            % ", ".join("%s {:,}".format(n) % w for w, n in ws))


def method_section(run, fdr_tests=None):
    warm = run.get("warmup_rounds", 0)
    seed = run.get("seed")
    per_workload = _workload_runs(run)
    out = ["## Method", "",
           "- %s measured round%s after %s warm-up round%s%s (profile `%s`%s); every round runs "
           "each selected variant once, as a fresh process, in an order shuffled per round "
           "with `random.Random(%s)` (the orders are in `run.json`)."
           % (_v(run.get("rounds")), "" if run.get("rounds") == 1 else "s", warm,
              "" if warm == 1 else "s", _warm_n(run), _v(run.get("profile")),
              ", its time budget %s min from the first warm-up" % _v(run["minutes"])
              if run.get("minutes") else "", _v(seed)),
           "- Each program runs with its workload's flags (bounded variants also "
           "`--concurrency K` from the catalog) under its workload's timeout; its process "
           "group is killed when the timeout passes%s"
           % (": " + "; ".join(per_workload) + "." if per_workload else "."),
           "- A run counts only when it exits 0 and prints exactly one JSON line that meets the "
           "contract with `ok == iterations`; otherwise it is recorded as invalid, failed, "
           "timeout or crashed, and the suite goes on.",
           "- Times are the programs' own `elapsed_ns`: the clock starts right before a "
           "variant's first per-operation allocation and stops when the N-th result has "
           "verified, in C, Go and Node alike (DESIGN section 3); start-up, flag parsing, the "
           "fixture check, expected values and the `--warmup` operations (untimed, in the same "
           "process, before the timed pass) are outside, and shown under *Time outside the "
           "clock*. CPU time, peak memory and `wall_ns` come from `wait4` on the "
           "whole program process, forked from the small launcher `runner/launch.c` so that "
           "the runner's own memory does not leak into the program's peak RSS.",
           "- Statistics: median with a distribution-free 95%% CI from order statistics; each "
           "ratio to a baseline (the catalog names two per variant: one across languages, one "
           "within the variant's language) is the median of per-round ratios (runs paired "
           "within a round) with its order-statistic CI, and the difference per operation "
           "the median of per-round differences over N with its CI. Each comparison is an "
           "exact sign test on the paired rounds, which rejects at 5%% exactly when the "
           "ratio's CI excludes 1; below %d paired rounds no CI and no test exist and the "
           "ratio is marked `?`. The run's %s tested comparisons are one family: a "
           "difference is named (in the findings, the verdicts and without `~` in the "
           "tables) only when its CI excludes 1 and its test survives the Benjamini-Hochberg "
           "control of the false discovery rate at 5%% over the family (q <= 0.05), which "
           "keeps the expected share of false ones among the named differences at 5%% or "
           "less however many comparisons the run makes; the intervals shown are each "
           "comparison's own 95%% CI. The seed claims' tests (the reproduction sections) are "
           "a second family, controlled the same way. Outliers (modified z-score over 3.5 "
           "by MAD) are counted, never dropped." % (sm.stats.min_samples_for_ci(), _v(fdr_tests))]
    if passes_text(run):
        out.append(passes_text(run))
    if extra_text(run):
        out.append(extra_text(run))
    pin = run.get("pinning")
    if isinstance(pin, dict):
        out.append("- Placement: %s." % (
            "every measured program ran on CPU %s alone (pinned by the launcher), each "
            "workload's server on CPU %s" % (pin.get("program_cpu"), pin.get("server_cpu"))
            if pin.get("program_cpu") is not None else
            "no program was pinned to a CPU (%s)" % pin.get("why", "not possible here")))
    if run.get("complete") is False:
        out.insert(2, "- **This run is incomplete** (interrupted): the figures use the "
                      "samples measured before the interruption.")
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
            out.append("- `%s`: %s" % (s.get("variant"), s.get("reason")))
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
            r["label"], _mib(r.get("peak_rss_kb")), _mib(r.get("mem_above_idle_kb")),
            fmt.num(r.get("user_ms")), fmt.num(r.get("sys_ms")), r.get("outliers") or 0))
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
        out += ["%s. A ratio above 1 is slower than the baseline." % "; ".join(tables.legend(wrows)),
                "", "Memory and CPU (the whole process, from `wait4`; medians):", ""]
        out += resources_table(wrows) + [""]
    return out


def read_counts(rundir):
    """({variant id: counts.csv row}, counts.json) of `make counts RUN=rundir`,
    or ({}, None) when the run has none (runner/counts.py)."""
    try:
        with open(os.path.join(rundir, "counts.json")) as f:
            info = json.load(f)
        with open(os.path.join(rundir, "counts.csv"), newline="") as f:
            rows = {r["variant"]: r for r in csv.DictReader(f) if r.get("variant")}
    except (OSError, ValueError, csv.Error):
        return {}, None
    return rows, info if isinstance(info, dict) else None


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


def counts_section(rundir, rows):
    """Instructions per operation (Valgrind, `make counts RUN=rundir`) beside
    the run's time per operation, a table per workload; [] without counts."""
    counted, info = read_counts(rundir)
    if not counted or info is None:
        return []
    same = info.get("same_sources")
    whose = ("the run's C and Go sources" if same else
             "**C and Go sources that differ from the run's**" if same is False else
             "sources git could not compare with the run's")
    out = ["## Instructions per operation", "",
           "Counted under Valgrind (%s) by `make counts RUN=...` (%s, commit `%s`, %s; the run's "
           "commit `%s`): the difference of two N over their difference, so start-up, "
           "warm-up and exit cancel. *Spread*: how far repeated counts of a variant lie "
           "apart, as a share of its figure (`COUNTS_ARGS=--repeat K`; - for one count). A "
           "count is exact, and settles a difference the times cannot resolve, where its "
           "spread is small; where the operations go through libuv's threadpool, the count "
           "includes the loop's and the threads' waits, which vary with scheduling, and its "
           "spread says by how much. Node is not counted (V8's own threads vary a count by "
           "millions of instructions); nor is a variant that needs a server." % (
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
           "medians: start-up, flag parsing, the fixture check, what a variant prepares before "
           "its clock, the warm-up and its exit. *Start-up* is the wall time of an empty "
           "program of the variant's language in the same rounds (`c-empty`, `go-empty`, "
           "`node node/lib/empty.mjs`); *warm-up* the `--warmup` pass as the program timed "
           "it; *own* is the rest, round by round. A variant whose own time outside the clock "
           "is over %s of its timed time is flagged: there, what the clock leaves out is a "
           "large part of the run." % limit, ""]
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


def findings_section(rows, charts):
    """The short verdicts first, with the headline charts when they were drawn."""
    out = ["## Findings", "",
           "Each style against the baseline of its own language (ratios are round-paired "
           "medians with their 95% CI; a difference is named only when the CI excludes 1 "
           "and it survives the false discovery rate control over the run's comparisons "
           "(see Method); every comparison, one by one, is under [All verdicts](#all-verdicts)):", ""]
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
            "baseline named (brackets: the 95% CI of the ratio, then of the difference per "
            "operation):", ""] + md


def reproduce_command(run, host):
    """The command that repeats the run: the profile, the seed of the shuffle and
    every setting run.json recorded, at the commit of host.json."""
    args = ["--seed", str(run.get("seed"))] if run.get("seed") is not None else []
    # --rounds only when the run was given it: it fixes every workload's rounds,
    # so it would repeat neither the workloads' own counts nor a time budget's.
    # A run.json from before rounds_override was recorded: its rounds, unless a
    # budget (or a workload's own count) decided them.
    if "rounds_override" in run:
        rounds = run["rounds_override"]
    else:
        rounds = None if run.get("budget") or run.get("variant_rounds") else run.get("rounds")
    if rounds is not None:
        args += ["--rounds", str(rounds)]
    if run.get("warmup_rounds") is not None:
        args += ["--warmup-rounds", str(run["warmup_rounds"])]
    for opt, key in (("--iterations", "iterations_override"), ("--timeout", "timeout_override")):
        if run.get(key) is not None:
            args += [opt, str(run[key])]
    for f in run.get("filters") or []:
        args += ["--filter", f]
    cmd = "make compare PROFILE=%s ARGS=%s" % (
        shlex.quote(str(run.get("profile") or "default")), shlex.quote(" ".join(
            shlex.quote(a) for a in args)))
    commit = (host.get("git_commit") or "unknown")[:12]
    return ["## Reproduce", "",
            "`%s` at commit `%s` (the shuffle of every round follows from the seed; the "
            "timings depend on the host)." % (cmd, commit), ""]


def charts_section(rundir, charts, note=None):
    out = ["## Charts", ""]
    if note:
        out += [note, ""]
    if not charts:
        return out if note else out + ["No charts were drawn (see the runner's output for why).", ""]
    for title, rel in charts:
        if os.path.exists(os.path.join(rundir, rel)):
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
                _v(f.get("round")), f.get("variant"), f.get("status"), _v(f.get("exit_code")),
                (f.get("reason") or "").replace("|", "\\|")))
    return out + [""]


def reproduce_section(summary, rundir=None):
    """The Markdown of runner/reproduce.py for this run."""
    try:
        text = reproduce.markdown(summary, rundir, more=(byversion.section,))
    except Exception as e:  # a broken reproduction table must not lose the report
        return ["## Reproduction", "", "runner/reproduce.py failed: %s" % e, ""]
    return [text.rstrip(), ""] if text else []


def markdown(rundir, summary, charts, failures, charts_note=None):
    run, host, rows = summary["run"], summary["host"], summary["variants"]
    workloads = ", ".join(sorted({r["workload"] for r in rows})) or "no samples"
    title = "# %s on %s, %s" % (workloads, _v(host.get("slug")), _v(run.get("stamp")))
    out = [title, ""]
    if run.get("complete") is False:
        out += ["> **Incomplete run**: interrupted before every round finished.", ""]
    out += findings_section(rows, charts)
    out += targets.markdown(summary.get("targets") or [])
    out += reproduce_command(run, host)
    out += method_section(run, sm.family_size(rows)) + [""] + host_section(host) + [""]
    out += results_section(rows) + counts_section(rundir, rows)
    out += outside_section(rows) + noise.markdown(rundir)
    out += all_verdicts_section(rows)
    out += accounting.markdown(rows, trace_mod.load(rundir))
    out += charts_section(rundir, charts, charts_note)
    out += reproduce_section(summary, rundir)
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
