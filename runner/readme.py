"""readme.py -- write the README's reference results from a committed run folder.

Usage: readme.py [--check] RUNDIR

Replaces the part of README.md between the reference-results markers with the
run's terminal table, its time and ratio charts, and its reproduction of the seeds'
claims, all generated from RUNDIR/summary.json (and samples.csv for the
paired ratios), so the README says exactly what the committed run says.
--check exits 1 when README.md differs from what it would write.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import report  # noqa: E402
import summary as sm  # noqa: E402
from files import write_atomic  # noqa: E402

README = os.path.join(ROOT, "README.md")
BEGIN, END = "<!-- reference-results:begin -->", "<!-- reference-results:end -->"


def demote(lines):
    """Headings one level deeper, so the run's sections nest under the README's."""
    return ["#" + l if l.startswith("#") else l for l in lines]


def section(rundir):
    with open(os.path.join(rundir, "summary.json"), encoding="utf-8") as f:
        summary = json.load(f)
    run, host, rows = summary["run"], summary["host"], summary["variants"]
    rel = os.path.relpath(os.path.abspath(rundir), ROOT)
    workloads = run.get("workloads") or {}
    sizes = ", ".join("%s N = %s" % (w, format(s.get("iterations"), ","))
                      for w, s in sorted(workloads.items()))
    out = [
        "The committed reference run [`%s`](%s/REPORT.md): `make compare` (profile `%s`, "
        "%s measured rounds after %s warm-up, %s, seed %s) on %s, %s cores, %s, "
        "libuv %s, %s, Node %s (libuv %s), at commit `%s`. Timings on this shared 2-core "
        "VM are noisy: read the medians, the intervals and the ratios, not single times."
        % (rel, rel, run.get("profile"), run.get("rounds"), run.get("warmup_rounds"),
           sizes, run.get("seed"), host.get("cpu_model"),
           host.get("cores"), host.get("os"), host.get("libuv"),
           (host.get("go") or "").replace("go version ", "Go "), host.get("node"),
           host.get("node_libuv"), (host.get("git_commit") or "?")[:7]),
        "",
        "What `make compare` printed at the end (time of the N operations per run, median "
        "and 95% CI; the ratios to each variant's two baselines, named in the header, "
        "from round-paired runs, `~` when not significant):",
        "",
        "```",
    ]
    out += sm.terminal_table(rows).rstrip("\n").split("\n")
    out += ["```", ""]
    for name, title in (("ms", "Median time per run of N operations"),
                        ("ratio", "Ratio to the C callback of the same mode and backend"),
                        ("memory", "Peak memory")):
        for workload in sorted({r["workload"] for r in rows}):
            png = "%s/charts/%s-%s.png" % (rel, name, workload)
            if os.path.exists(os.path.join(ROOT, png)):
                out += ["![%s (%s)](%s)" % (title, workload, png), ""]
    repro = report.reproduce_section(summary, rundir)
    out += demote(repro)
    return "\n".join(out).rstrip("\n")


def main(args):
    check = "--check" in args
    args = [a for a in args if a != "--check"]
    if len(args) != 1 or args[0] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    rundir = args[0]
    if not os.path.exists(os.path.join(rundir, "summary.json")):
        print("readme.py: %s has no summary.json: not a run folder" % rundir, file=sys.stderr)
        return 3
    with open(README, encoding="utf-8") as f:
        text = f.read()
    a, b = text.index(BEGIN) + len(BEGIN), text.index(END)
    new = text[:a] + "\n" + section(rundir) + "\n" + text[b:]
    if check:
        if new != text:
            print("README.md: the reference results differ from %s; run: "
                  "python3 runner/readme.py %s" % (rundir, rundir), file=sys.stderr)
            return 1
        return 0
    write_atomic(README, new)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
