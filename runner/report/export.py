"""export.py -- a run in the formats other tools read.

- hyperfine.json: hyperfine's --export-json shape, {"results": [{"command",
  "mean", "stddev", "median", "user", "system", "min", "max", "times",
  "exit_codes"}]}, times in seconds; "command" is the variant's full id.  hyperfine's own plot scripts
  (plot_whisker.py, plot_histogram.py, ...) accept it.  "times" are the
  programs' elapsed_ns (what the suite compares), user/system the mean CPU time
  of the whole process from wait4.
- bench.txt: Go benchmark format, one line per valid sample, e.g.
  `BenchmarkReadfile/c/callback-parallel@node4 10000 9301.2345 ns/op` (the
  workload, then the variant's label; the iteration count is N and ns/op the
  time per operation, elapsed_ns / N, as `go test -bench` reports it), under
  goos/goarch/pkg/cpu/host headers, so that `benchstat old.txt new.txt`
  compares two runs per operation (two hosts: `benchstat -ignore
  host,cpu,goarch a.txt b.txt`, since benchstat splits tables on configuration
  lines that differ).  Peak RSS is a per-process figure, so it is given per
  run as `peak-RSS-KiB` (benchstat divides nothing: a custom unit is taken as
  it is).
- results.md: the tables of tables.table_cells as Markdown, one per workload
  and mode, in the manner of hyperfine's --export-markdown (time per
  operation with its CI, the ratio to each baseline with the difference per
  operation).
"""
import json
import math
import os
import platform

from ..core import stats
from ..analysis import tables
from ..core.files import write_atomic

GOARCH = {"x86_64": "amd64", "amd64": "amd64", "aarch64": "arm64", "arm64": "arm64",
          "i686": "386", "armv7l": "arm"}


def _by_variant(samples):
    out = {}
    for s in samples:
        if s["status"] == "ok" and s["elapsed_ns"] is not None:
            out.setdefault(s["variant"], []).append(s)
    return out


def hyperfine(samples, rows):
    """The hyperfine-compatible dict, variants in the summary's order."""
    groups = _by_variant(samples)
    results = []
    for r in rows:
        runs = groups.get(r["variant"])
        if not runs:
            continue
        times = [s["elapsed_ns"] / 1e9 for s in runs]
        mean = sum(times) / len(times)
        stddev = (math.sqrt(sum((t - mean) ** 2 for t in times) / (len(times) - 1))
                  if len(times) > 1 else None)
        results.append({
            "command": r["variant"],
            "mean": mean,
            "stddev": stddev,
            "median": stats.median(times),
            "user": sum((s["proc_user_us"] or 0) for s in runs) / len(runs) / 1e6,
            "system": sum((s["proc_sys_us"] or 0) for s in runs) / len(runs) / 1e6,
            "min": min(times),
            "max": max(times),
            "times": times,
            "exit_codes": [s["exit_code"] for s in runs],
            "parameters": dict({k: r[k] for k in ("workload", "lang", "style", "shape",
                                                  "mode", "method", "backend")},
                               iterations=str(r["iterations"])),
        })
    return {"results": results}


def bench_name(workload, label):
    """BenchmarkReadfile/c/callback-parallel@node4: Go benchmark names have no spaces."""
    return "Benchmark%s/%s" % (workload[:1].upper() + workload[1:], label.replace(" ", "_"))


def gobench(samples, rows, host):
    """The Go benchmark format text (str)."""
    machine = (host or {}).get("machine") or platform.machine()
    kernel = ((host or {}).get("kernel") or platform.system()).split()[0].lower()
    lines = ["goos: %s" % ("darwin" if kernel == "darwin" else kernel),
             "goarch: %s" % GOARCH.get(machine, machine),
             "pkg: asyncstyles"]
    if host and host.get("cpu_model"):
        lines.append("cpu: %s" % host["cpu_model"])
    if host and host.get("slug"):
        lines.append("host: %s" % host["slug"])
    groups = _by_variant(samples)
    for r in rows:
        runs = groups.get(r["variant"])
        if not runs:
            continue
        name = bench_name(r["workload"], r["label"])
        for s in runs:
            extra = ""
            if s["proc_peak_rss_kb"] is not None:
                extra = " %d peak-RSS-KiB" % s["proc_peak_rss_kb"]
            lines.append("%s %d %s ns/op%s" % (name, s["iterations"],
                                               _per_op(s["elapsed_ns"], s["iterations"]), extra))
    return "\n".join(lines) + "\n"


def _per_op(elapsed_ns, n):
    """elapsed_ns / n with the digits the division has (no float rounding of
    large times): '9301.2345'."""
    whole, rest = divmod(elapsed_ns, n)
    if rest == 0:
        return str(whole)
    return ("%.4f" % (elapsed_ns / n)).rstrip("0").rstrip(".")


def markdown(rows):
    """results.md: a table per workload and mode (hyperfine's --export-markdown manner)."""
    out = []
    for workload in sorted({r["workload"] for r in rows}):
        wrows = [r for r in rows if r["workload"] == workload]
        head, body, _ = tables.table_cells(wrows)
        modes = []
        for r in wrows:
            if r["mode"] not in modes:
                modes.append(r["mode"])
        for mode in modes:
            out += ["## %s, %s (N = %s)" % (workload, mode, wrows[0]["iterations"]), "",
                    "| " + " | ".join(head) + " |",
                    "|:---|---:|---:|:---|" + ":---|---:|" * ((len(head) - 4) // 2)]
            for r, b in zip(wrows, body):
                if r["mode"] == mode:
                    cells = ["`%s`" % b[0]] + [c.replace("~", "\\~") for c in b[1:]]
                    out.append("| " + " | ".join(cells) + " |")
            out.append("")
        out += tables.legend(wrows) + [""]
    return "\n".join(out)


def write(rundir_path, samples, rows, host):
    """Writes hyperfine.json, bench.txt and results.md into the run folder."""
    write_atomic(os.path.join(rundir_path, "hyperfine.json"),
                 json.dumps(hyperfine(samples, rows), indent=2) + "\n")
    write_atomic(os.path.join(rundir_path, "bench.txt"), gobench(samples, rows, host))
    write_atomic(os.path.join(rundir_path, "results.md"), markdown(rows))
