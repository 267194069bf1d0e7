"""readme.py -- the generated parts of the README and of docs/results.md, from the
committed reference runs.

Usage: python3 -m runner.report.readme [--check] [--readme FILE] [--results FILE]
                                [RUNDIR [SEED_RUNDIR [RUNTIMES_RUNDIR [AT_N_RUNDIR]]]]

RUNDIR is the reference run of the default profile (`make compare`),
SEED_RUNDIR an optional run of the `seed` profile (each seed's own N, warm-up
and method beside the suite's), RUNTIMES_RUNDIR an optional run of the
`runtimes` profile (the seeds' claims on each pinned Node and Go version:
the answer gets a sentence per claim whose verdict changes between versions,
runner/analysis/byversion.py), AT_N_RUNDIR an optional run that judges the targets
given at another N than the default's (at_iterations: the tasks bounds at N =
1,000,000, `make compare PROFILE=full ARGS="--filter ^tasks/ --rounds 10"`; one
that judges no such target is refused with one line, exit 2).  A run folder outside results/reference/ (a fresh
results/latest) is first copied to results/reference/<host>/<stamp>/, where
committed reference runs live (everything else under results/ is ignored by
git), and its summaries and report are redrawn from its samples.csv.  Then the
generated blocks are rewritten from the runs' summary.json:

  answer             (README.md) a sentence per language and the summary
                     table, a row per workload (runner/report/answer.py), where the
                     run was made, and how many seed claims change between
                     runtime versions: the first screen of the README
  headline-chart     (README.md, after the two commands) one headline chart:
                     the workload that compares the most languages
  reference-results  (docs/results.md) the glance (a bullet per workload, a
                     sentence per language, runner/analysis/verdicts.py), every
                     headline chart, the terminal table (wide), the verdict
                     sentences, the charts, the
                     catalog's targets judged (runner/analysis/targets.py), the seeds'
                     claims beside the run (runner/analysis/reproduce.py), the
                     seed-profile run's, the runtimes run's and the targets
                     of the run at another N; its links lead one folder up

The runs used are recorded in the README (a `reference-runs` comment), so that
`readme.py` without a folder regenerates from the same runs, and `readme.py
--check` (what tests/readme.bats runs) exits 1 when either file differs from
what it would write.  --readme FILE and --results FILE work on other copies of
the two (run folders stay relative to the project).  Re-making the reference after a change is one command:

  make compare && make compare PROFILE=seed && make compare PROFILE=runtimes
  make compare PROFILE=full ARGS="--filter ^tasks/ --rounds 10"
  python3 -m runner.report.readme RUN1 RUN2 RUN3 RUN4     # copy, redraw, rewrite the README
"""
import datetime
import os
import re
import shutil
import sys
from ..core import paths

ROOT = paths.ROOT

from . import answer
from ..analysis import byversion
from ..core import fmt
from ..analysis import ladder
from . import method
from ..analysis import noise
from . import render
from . import report
from ..analysis import runfolder
from ..analysis import summary as sm
from ..analysis import tables
from ..analysis import targets
from ..analysis import verdicts
from ..core.files import write_atomic

README = os.path.join(ROOT, "README.md")
RESULTS = os.path.join(ROOT, "docs", "results.md")
REFERENCE = os.path.join(ROOT, "results", "reference")
# Each generated block, the file it is in, and what its links are prefixed
# with to reach the project's root from that file.
BLOCKS = (("answer", "readme", ""), ("headline-chart", "readme", ""),
          ("reference-results", "results", "../"),
          ("ladder-steps", "readme", ""), ("ladders", "results", "../"))
LINK_RE = re.compile(r"\]\((?!https?:|#|mailto:)([^)]+)\)")
RUNS_RE = re.compile(r"<!-- reference-runs: ([^>]*) -->")


def begin(name):
    return "<!-- %s:begin -->" % name


def end(name):
    return "<!-- %s:end -->" % name


def demote(lines, levels=1):
    """Headings deeper, so the run's sections nest under the README's (lines may
    hold several lines each, as report.reproduce_section's do)."""
    lines = "\n".join(lines).split("\n") if lines else []
    return ["#" * levels + l if l.startswith("#") else l for l in lines]


_folders = {}


def folder(rel):
    """The run folder at rel (from the project's root), read once."""
    if rel not in _folders:
        _folders[rel] = runfolder.RunFolder(os.path.join(ROOT, rel))
    return _folders[rel]


def load(rel):
    return folder(rel).summary


def charts(rel, prefix):
    """The run's charts whose file name starts with prefix, sorted."""
    d = os.path.join(ROOT, rel, "charts")
    try:
        names = sorted(n for n in os.listdir(d) if n.startswith(prefix) and n.endswith(".png"))
    except OSError:
        return []
    return ["%s/charts/%s" % (rel, n) for n in names]


def describe_run(rel, summary, what="The run"):
    """Which run, how it was made and on what, in short sentences, the first
    starting with `what` ("The reference run is [`rel`](...), ...")."""
    run, host = summary["run"], summary["host"]
    sizes = ["%s N = %s in %s" % (w, format(s.get("iterations"), ","), sm.workload_rounds(run, w))
             for w, s in sorted((run.get("workloads") or {}).items())]
    out = ["%s is [`%s`](%s/REPORT.md), of the `%s` profile, on %s (%s cores), %s, at commit "
           "`%s`." % (what, rel, rel, run.get("profile"), host.get("cpu_model"), host.get("cores"),
                      host.get("os"), (host.get("git_commit") or "?")[:7]),
           "It ran %s warm-up round%s first." % (
               run.get("warmup_rounds"), "" if run.get("warmup_rounds") == 1 else "s")]
    for i in range(0, len(sizes), 7):
        out.append("%s: %s." % ("Rounds per workload" if i == 0 else "More rounds",
                                ", ".join(sizes[i:i + 7])))
    ls = run.get("lockstep")
    if isinstance(ls, dict) and ls.get("sessions_run"):
        out.append("Then came %s lockstep sessions of %s groups of the variants compared." % (
            ls.get("sessions_run"), ls.get("groups")))
    out.append("Its shuffle seed was %s." % run.get("seed"))
    out.append("Versions: libuv %s, %s, Node %s (libuv %s)." % (
        host.get("libuv"), (host.get("go") or "").replace("go version ", "Go "), host.get("node"),
        host.get("node_libuv")))
    return " ".join(out)


def host_line(rel):
    """How noisy the reference host was while the run measured (its rounds'
    fixed loop and noisy rounds, rounds.csv) and its A/A figure (the last make
    aa beside the run, method.aa_figure), in one sentence."""
    path = os.path.join(ROOT, rel)
    rows = noise.read_rounds(path)
    parts = []
    probes = [float(r["probe_ms"]) for r in rows if r.get("probe_ms") not in (None, "")]
    if probes:
        noisy = sum(1 for r in rows if r.get("noisy") == "1")
        parts.append("How noisy the reference host was: a fixed loop on the programs' CPU took "
                     "%s to %s ms at the ends of its %d fresh rounds." % (
                         fmt.num(min(probes)), fmt.num(max(probes)), len(rows)))
        parts.append("%d of those rounds were noisy by the rule of the report's Noise section."
                     % noisy)
    aa = method.aa_figure(path)
    if aa:
        parts.append("`make aa` on it: %s." % aa["said"])
    else:
        parts.append("No `make aa` of this host is committed beside the run.")
    return " ".join(parts)


def versions_block(rel):
    """docs/results.md's lines on runtime versions: a bullet per seed with a
    claim whose verdict changes between versions of a runtimes-profile run."""
    changed = byversion.run_changes(folder(rel))
    out = ["Seed claims whose verdict changes from one Node or Go version to another "
           "([the runtimes run](%s/REPORT.md)):" % rel, ""]
    if not changed:
        return out + ["- No claim's verdict changes between the versions measured.", ""]
    for name, claims, sentences in changed:
        out.append("- Seed %s (%s): %s" % (claims["seed"], name, " ".join(sentences)))
    return out + [""]


def versions_line(rel):
    """The answer's one line on runtime versions: how many seed claims change
    verdict between the versions of a runtimes-profile run, per seed; the
    sentences are in docs/results.md (versions_block)."""
    changed = byversion.run_changes(folder(rel))
    head = "- **Across runtime versions** ([the runtimes run](%s/REPORT.md)): " % rel
    if not changed:
        return head + "no seed claim's verdict changes between the Node and Go versions measured."
    return head + ("some seed claims change verdict from one Node or Go version to another. "
                   "They are those of %s. Each is told version by version [below](#%s)." % (
                       _and_list(["seed %s (%s: %d claim%s)" % (
                           claims["seed"], name, len(sentences), "" if len(sentences) == 1 else "s")
                           for name, claims, sentences in changed]), VERSIONS_ANCHOR))


VERSIONS_ANCHOR = "across-runtime-versions"


def _and_list(items):
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def answer_block(rel, summary, rt_rel=None, rt_summary=None):
    """The README's answer (runner/report/answer.py): a sentence per language, the
    summary table with a row per workload, then one line on where it was
    measured and where the rest is (docs/results.md)."""
    rows = summary["variants"]
    md = answer.markdown(rows)
    if not md:
        return ["(no comparison in this run)"]
    host = summary["host"]
    go = (host.get("go") or "").split()
    go = go[2][2:] if len(go) > 2 and go[:2] == ["go", "version"] else " ".join(go) or "?"
    out = md + ["Measured in [the reference run](%s/REPORT.md) on %s (%s cores), %s, with Go %s "
                "and Node %s." % (rel, host.get("cpu_model"), host.get("cores"), host.get("os"),
                                  go, host.get("node")),
                "How it was measured, every verdict and every chart: "
                "[docs/results.md](docs/results.md#%s)." % GLANCE_ANCHOR]
    if rt_rel:
        changed = byversion.run_changes(folder(rt_rel))
        n = sum(len(sentences) for _, _, sentences in changed)
        out.append("On older Node and Go versions, %d seed claim%s change%s verdict "
                   "([across runtime versions](docs/results.md#%s))." % (
                       n, "" if n == 1 else "s", "s" if n == 1 else "", VERSIONS_ANCHOR)
                   if n else "No seed claim changes verdict across the Node and Go versions "
                   "measured.")
    return out


GLANCE_ANCHOR = "the-reference-run-at-a-glance"


def headline_chart(rel, summary):
    """The README's one chart: the headline chart of the workload that compares
    the most languages (then the most styles, then by name)."""
    rows = summary["variants"]
    best = None
    for w in sorted({r["workload"] for r in rows}):
        es = verdicts.compared(rows, w)
        key = (len({e["lang"] for e in es}), len(es))
        png = "%s/charts/headline-%s.png" % (rel, w)
        if es and os.path.isfile(os.path.join(ROOT, png)) and (best is None or key > best[0]):
            best = (key, w, png)
    if best is None:
        return ["(no headline chart in the reference run)"]
    return ["![%s: each style against its own language's baseline](%s)" % (best[1], best[2]),
            "", "The other workloads' charts are in [docs/results.md](docs/results.md#%s)."
            % GLANCE_ANCHOR]


def glance_block(rel, summary, rt_rel=None):
    """docs/results.md's first section: how the figures were made, the glance
    (verdicts.glance) with a line on runtime versions, the host's noise, the
    headline charts of every workload."""
    rows = summary["variants"]
    locked = any(r.get("pairing") == "lockstep" or r.get("lang_pairing") == "lockstep"
                 for r in rows)
    how = ("from warm processes alternated in lockstep, one sample a session. Where a pass is "
           "too long for that, they are round-paired" if locked else "from round-paired runs")
    out = ["#### The reference run at a glance", "",
           "Each style against the baseline of its own language. "
           "The 95%% confidence intervals come %s. "
           "A difference counts only when its interval excludes 1 and it survives the false "
           "discovery rate control. "
           "The sentences are [below](#the-verdicts), and every comparison is in the report's "
           "[All verdicts](%s/REPORT.md#all-verdicts)." % (how, rel), ""]
    out += verdicts.glance(rows) or ["(no comparison in this run)"]
    if rt_rel:
        out.append(versions_line(rt_rel))
    out += ["", host_line(rel), ""]
    for png in charts(rel, "headline"):
        out += ["![Each style against its own language's baseline (%s)](%s)"
                % (os.path.basename(png)[:-4], png), ""]
    return out


def results_block(rel, summary, seed_rel=None, seed_summary=None, rt_rel=None, rt_summary=None,
                  at_rel=None, at_summary=None):
    rows = summary["variants"]
    out = glance_block(rel, summary, rt_rel)
    out += ["#### The run and its table", "",
            "%s Timings on this shared 2-core VM are noisy. Read the medians, the intervals "
            "and the ratios, not single times." % describe_run(rel, summary, "The reference run"),
            "",
            "Below is what `make compare ARGS=--wide` prints at the end. "
            "It gives the time per operation, median and 95%% CI. "
            "Then come the ratios to each variant's two baselines, named in the header. "
            "Each has the difference per operation beside it. "
            "The ratios come %s." % (
                "from lockstep process pairs (round-paired where a pass was too long for them)"
                if any(r.get("pairing") == "lockstep" or r.get("lang_pairing") == "lockstep"
                       for r in rows) else "from round-paired runs"),
            "", "```"]
    out += tables.terminal_table(rows).rstrip("\n").split("\n")
    out += ["```", "", "#### The verdicts", "",
            "Each style against the baseline of its own language, in sentences. "
            "The glance above gives a line per language.", ""]
    out += verdicts.markdown(rows) or ["(no comparison in this run)", ""]
    for prefix, title in (("time", "Time per operation"),
                          ("ratio", "Ratio to the baselines"),
                          ("memory", "Memory")):
        for png in charts(rel, prefix + "-"):
            out += ["![%s (%s)](%s)" % (title, os.path.basename(png)[:-4], png), ""]
    out += demote(targets.markdown(summary.get("targets") or []), 2)
    out += demote(report.reproduce_section(summary, folder(rel)), 2)
    if seed_rel:
        out += ["", "#### Each seed's own method: the seed-profile run", "",
                "The `seed` profile (`make compare PROFILE=seed`) runs each seed at its own N, "
                "warm-up and timing. It runs each by its own method beside the suite's: seed "
                "000's whole `node --test` process, seed 002's cache shape, seed 003's bluebird "
                "harness. %s" % describe_run(seed_rel, seed_summary, "Its run"), ""]
        sec = report.reproduce_section(seed_summary, folder(seed_rel))
        out += demote(sec, 3)
    if rt_rel:
        out += ["", "#### Across runtime versions", ""]
        out += versions_block(rt_rel)
        out += ["", "#### The seeds' claims on each runtime version: the runtimes-profile run", "",
                "The `runtimes` profile (`make compare PROFILE=runtimes`) runs every Node and Go "
                "variant a seed's claim names, with its baseline. It runs them on each pinned "
                "version (DESIGN section 11). %s" % describe_run(rt_rel, rt_summary, "Its run"),
                ""]
        for png in charts(rt_rel, "runtimes-"):
            out += ["![Seed claims on each runtime version (%s)](%s)"
                    % (os.path.basename(png)[:-4], png), ""]
        out += demote(report.reproduce_section(rt_summary, folder(rt_rel)), 3)
    if at_rel:
        out += ["", "#### Targets at another N", "",
                "Targets given at another N than the default profile's are judged in a run at "
                "that N. They are the catalog's `at_iterations`: the bytes a suspended task at "
                "N = 1,000,000. %s" % describe_run(at_rel, at_summary, "That run"), ""]
        out += targets.markdown(at_summary.get("targets") or [])[2:]   # under this heading
        for png in charts(at_rel, "unit-memory-"):
            out += ["![Bytes per operation in flight (%s)](%s)"
                    % (os.path.basename(png)[:-4], png), ""]
    return out


def seed_ladders(seed_rel):
    """ladder.runs_for of the seed-profile reference run, rung 6 from the
    newest default-profile run beside it (the same host), or None."""
    if not seed_rel:
        return None
    seed = folder(seed_rel)
    return ladder.runs_for(seed, ladder.default_beside(seed))


def seed_minutes(seed_rel, runs):
    """The seed profile's minutes, in words, from the run's own start and end."""
    run = folder(seed_rel).run
    try:
        start = datetime.datetime.fromisoformat(run["started_utc"])
        end = datetime.datetime.fromisoformat(run["finished_utc"])
        took = "took %.0f minutes" % ((end - start).total_seconds() / 60)
    except (KeyError, TypeError, ValueError):
        took = "does not record its minutes"
    text = "The reference seed-profile run (%s) %s." % (os.path.basename(seed_rel), took)
    if runs.get("older"):
        return text + (" It predates the seed-shape programs and rung 2, so today's figure is "
                       "pending a fresh run.")
    return text


def ladder_steps_block(seed_rel):
    """The README's sentence per seed: the step of its ladder that moved the
    figure most (runner/analysis/ladder.py), and the seed profile's minutes."""
    runs = seed_ladders(seed_rel)
    if runs is None:
        return ["(No seed-profile reference run: no ladder.)"]
    out = ["Each claim's ladder ([docs/results.md](docs/results.md#each-claims-ladder-the-"
           "seeds-figure-to-the-suites-one-change-at-a-time)) walks from the seed's figure to the "
           "suite's, one change at a time. Per seed, its first claim:"]
    out += ["- %s" % sentence for _, sentence in ladder.most_moved(runs)]
    return out + ["- %s" % seed_minutes(seed_rel, runs)]


def ladders_block(seed_rel):
    """docs/results.md's ladder tables, one per claim (runner/analysis/ladder.py)."""
    runs = seed_ladders(seed_rel)
    if runs is None:
        return ["(No seed-profile reference run: no ladder.)"]
    out = ladder.markdown(runs, level=3)
    for png in charts(seed_rel, "ladder-"):
        out += ["![Each claim's ladder (%s)](%s)" % (os.path.basename(png)[:-4], png), ""]
    return out


def at_n_targets(rel):
    """The ids of the run's judged targets that are given at an N (at_iterations)."""
    given = {t["id"] for ts in folder(rel).targets().values() for t in ts if "at_iterations" in t}
    return [e["id"] for e in load(rel).get("targets") or [] if e["id"] in given]


def adopt(rundir):
    """The run folder's path relative to the project, copied under
    results/reference/<host>/<stamp>/ (and redrawn) unless it is there already."""
    real = os.path.realpath(rundir)
    if not os.path.isfile(os.path.join(real, "samples.csv")):
        raise SystemExit("readme.py: %s has no samples.csv: not a run folder" % rundir)
    if not real.startswith(os.path.realpath(REFERENCE) + os.sep):
        host = os.path.basename(os.path.dirname(real))
        dest = os.path.join(REFERENCE, host, os.path.basename(real))
        if not os.path.exists(dest):
            shutil.copytree(real, dest, symlinks=True)
        real = dest
        render.render(real)
    return os.path.relpath(real, ROOT)


def generate(texts, runs):
    """texts: {"readme": text, "results": text}; the same with their blocks
    rewritten from runs."""
    summary = load(runs[0])
    seed = (runs[1], load(runs[1])) if len(runs) > 1 else (None, None)
    rt = (runs[2], load(runs[2])) if len(runs) > 2 else (None, None)
    at = (runs[3], load(runs[3])) if len(runs) > 3 else (None, None)
    blocks = {"answer": answer_block(runs[0], summary, *rt),
              "headline-chart": headline_chart(runs[0], summary),
              "reference-results": results_block(runs[0], summary, *(seed + rt + at)),
              "ladder-steps": ladder_steps_block(seed[0]),
              "ladders": ladders_block(seed[0])}
    out = dict(texts)
    for name, doc, prefix in BLOCKS:
        text = out[doc]
        a, b = text.index(begin(name)) + len(begin(name)), text.index(end(name))
        body = "\n".join(blocks[name]).rstrip("\n")
        if prefix:
            body = LINK_RE.sub(lambda m: "](%s%s)" % (prefix, m.group(1)), body)
        if name == "answer":
            body = "<!-- reference-runs: %s -->\n%s" % (" ".join(runs), body)
        out[doc] = text[:a] + "\n" + body + "\n" + text[b:]
    return out


def main(args):
    check = "--check" in args
    args = [a for a in args if a != "--check"]
    paths = {"readme": README, "results": RESULTS}
    for doc in ("readme", "results"):
        flag = "--" + doc
        if flag in args:
            i = args.index(flag)
            if i + 1 >= len(args):
                print("readme.py: %s needs a file" % flag, file=sys.stderr)
                return 2
            paths[doc] = args[i + 1]
            del args[i:i + 2]
    if len(args) > 4 or any(a.startswith("-") for a in args):
        print(__doc__.strip(), file=sys.stderr)
        return 0 if args and args[0] in ("-h", "--help") else 2
    texts = {}
    for doc, path in paths.items():
        with open(path, encoding="utf-8") as f:
            texts[doc] = f.read()
    text = texts["readme"]
    if args:
        if check:
            runs = [os.path.relpath(os.path.realpath(a), ROOT) for a in args]
        else:
            runs = [adopt(a) for a in args]
    else:
        m = RUNS_RE.search(text)
        if not m:
            print("readme.py: README.md names no reference run; give one: readme.py RUNDIR",
                  file=sys.stderr)
            return 2
        runs = m.group(1).split()
    for r in runs:
        if not os.path.isfile(os.path.join(ROOT, r, "summary.json")):
            print("readme.py: %s has no summary.json: not a run folder" % r, file=sys.stderr)
            return 3
    if len(runs) > 3 and not at_n_targets(runs[3]):
        print("readme.py: %s judges no target given at its N (at_iterations): the fourth run "
              "is a run at another N than the default's" % runs[3], file=sys.stderr)
        return 2
    new = generate(texts, runs)
    if check:
        differ = [os.path.relpath(paths[d], ROOT) for d in paths if new[d] != texts[d]]
        if differ:
            print("%s: the generated blocks differ from %s; run: python3 -m runner.report.readme"
                  % (" and ".join(differ), " and ".join(runs)), file=sys.stderr)
            return 1
        return 0
    for doc, path in paths.items():
        if new[doc] != texts[doc]:
            write_atomic(path, new[doc])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
