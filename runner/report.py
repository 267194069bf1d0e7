"""report.py -- REPORT.md of a run folder: host and versions, the method, the tables
with CIs and significance against both baselines (named by their labels in the
data), the charts, the skipped variants with their reasons, warnings and
failures, then the reproduction of the seeds' claims (runner/reproduce.py).
"""
import os

import reproduce
import summary as sm


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


def host_section(host):
    mem = host.get("memory_bytes")
    rows = [("host", host.get("slug")),
            ("CPU", "%s, %s cores" % (_v(host.get("cpu_model")), _v(host.get("cores")))),
            ("memory", "%.1f GiB" % (mem / 2 ** 30) if mem else None),
            ("OS / kernel", "%s / %s" % (_v(host.get("os")), _v(host.get("kernel")))),
            ("CPU governor", host.get("governor") or "not readable"),
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
        out.append("`%s`: `--iterations %s --warmup 0%s`, timeout %s s%s" % (
            w, _v(s.get("iterations")), " " + flags if flags else "", _v(s.get("timeout_s")),
            # A time budget: the variants it names ran in more rounds (n in the tables).
            ", %s rounds, and the variants under its time budget as many more as fit in "
            "%g s each at their warm-up time, at most %s (`run.json`: `variant_rounds`)"
            % (rounds, budget.get("seconds", 0), budget.get("max_rounds"))
            if isinstance(budget, dict) else
            "" if rounds in (None, run.get("rounds")) else
            ", in the first %s round%s only" % (rounds, "" if rounds == 1 else "s")))
    return out


def method_section(run):
    warm = run.get("warmup_rounds", 0)
    seed = run.get("seed")
    per_workload = _workload_runs(run)
    out = ["## Method", "",
           "- %s measured round%s after %s warm-up round%s (profile `%s`); every round runs "
           "each selected variant once, as a fresh process, in an order shuffled per round "
           "with `random.Random(%s)` (the orders are in `run.json`)."
           % (_v(run.get("rounds")), "" if run.get("rounds") == 1 else "s", warm,
              "" if warm == 1 else "s", _v(run.get("profile")), _v(seed)),
           "- Each program runs with its workload's flags (bounded variants also "
           "`--concurrency K` from the catalog) under its workload's timeout; its process "
           "group is killed when the timeout passes%s"
           % (": " + "; ".join(per_workload) + "." if per_workload else "."),
           "- A run counts only when it exits 0 and prints exactly one JSON line that meets the "
           "contract with `ok == iterations`; otherwise it is recorded as invalid, failed, "
           "timeout or crashed, and the suite goes on.",
           "- Times are the programs' own `elapsed_ns` (the timed section: start-up and "
           "set-up excluded). CPU time, peak memory and `wall_ns` come from `wait4` on the "
           "whole program process, forked from the small launcher `runner/launch.c` so that "
           "the runner's own memory does not leak into the program's peak RSS.",
           "- Statistics: median with a distribution-free 95% CI from order statistics; each "
           "ratio to a baseline (the catalog names two per variant: one across languages, one "
           "within the variant's language) is the median of per-round ratios (runs paired "
           "within a round) with its order-statistic CI; a difference with Mann-Whitney U "
           "p >= 0.05 is shown as `~`. Outliers (modified z-score over 3.5 by MAD) are "
           "counted, never dropped."]
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


def _p(x):
    return "-" if x is None else "%.3g" % x


def results_section(rows):
    out = ["## Results", ""]
    for workload in sorted({r["workload"] for r in rows}):
        wrows = [r for r in rows if r["workload"] == workload]
        cols = sm.ratio_columns(wrows)
        head = ["variant", "mode", "n", "median ms", "95% CI ms"]
        for _, header, _ in cols:
            head += [header, "p"]
        head += ["peak RSS KiB", "user ms", "sys ms", "outliers"]
        out += ["### %s (N = %s)" % (workload, _v(wrows[0]["iterations"])), "",
                "| " + " | ".join(head) + " |",
                "|---|---|---:|---:|---|" + "---|---:|" * len(cols) + "---:|---:|---:|---:|"]
        for r in wrows:
            total = sum(r["statuses"].values())
            n = str(r["n"]) if r["n"] == total else "%d of %d" % (r["n"], total)
            cells = ["`%s`" % r["label"], r["mode"], n, sm.fmt_ms(r["median_ms"]), sm.fmt_ci(r)]
            for prefix, _, labels in cols:
                cells += [sm.ratio_cell(r, prefix, labels).replace("~", "\\~"),
                          _p(r[prefix + "p_value"])]
            cells += [_v(r["peak_rss_kb"] and int(r["peak_rss_kb"])), sm.fmt_ms(r["user_ms"]),
                      sm.fmt_ms(r["sys_ms"]), str(r.get("outliers", 0))]
            out.append("| " + " | ".join(cells) + " |")
        out += ["", "`~`: not significantly different from the baseline (Mann-Whitney U, "
                "alpha 0.05). A ratio above 1 is slower than the baseline.", ""]
    return out


def charts_section(rundir, charts, note=None):
    out = ["## Charts", ""]
    if note:
        out += [note, ""]
    if not charts:
        return out + ["No charts were drawn (see the runner's output for why).", ""]
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
        text = reproduce.markdown(summary, rundir)
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
    out += host_section(host) + [""] + method_section(run) + [""]
    out += results_section(rows) + charts_section(rundir, charts, charts_note) + skipped_section(run)
    out += warnings_section(rows, failures, summary.get("warnings") or ())
    out += ["## Exports", "",
            "- `samples.csv`: every process run; `summary.csv`, `summary.json`: the tables above.",
            "- `hyperfine.json`: hyperfine's JSON export shape (times in seconds).",
            "- `bench.txt`: Go benchmark format (one op = one run of N iterations). Compare two "
            "runs with `benchstat A/bench.txt B/bench.txt`; two hosts with "
            "`benchstat -ignore host,cpu,goarch A/bench.txt B/bench.txt`.",
            ""]
    out += reproduce_section(summary, rundir)
    return "\n".join(out).rstrip() + "\n"
