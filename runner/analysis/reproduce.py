"""reproduce.py -- a workload's seed claims beside the figures of one run.

The claims are data: the "claims" object of a workload's catalog file
(catalog/<workload>.json) names the seed, the host and N it measured
on, and three lists of variant ids: ratio claims ("NodeJS: 4.8x faster if we
go back to callbacks!" is await-parallel over callback-parallel, with the seed
4.8), absolute claims (a variant's time in ms), and a decomposition that splits
each gap into the cost of the style itself (the same pair of styles in C on the
same backend) and the cost of one language's implementation of it.  The
runner's REPORT.md ends with markdown(summary, folder): one section per
workload of the run that has claims, each a table of the claims beside what
this run measured, with a 95% confidence interval, and the decomposition.

Every ratio is a ratio of elapsed times, slower over faster as the claim puts
it, so a claim of "4.8x faster" is checked against a measured ratio near 4.8.
With folder (the run folder) the ratios and their CIs come from the rounds in
which all the variants involved ran (round-paired, so slow drift of the
machine cancels), summarised by the median and an order-statistic CI
(runner/core/stats.py).  Without it, or without samples.csv there, the table falls
back to the ratio of the summary's medians and says that it has no CI.

Only what the interval supports is said (DESIGN section 7).  Every verdict
rests on an exact sign test over the paired rounds (ratios around 1, memory
differences around 0), and the tests of all the sections of one report are
one family: a verdict names a difference only when its interval excludes 1
(0 for memory) and its test survives the Benjamini-Hochberg control of the
false discovery rate at 5% over the family.  A memory claim is tested against
0 before its figure is looked at; a style's share of a gap is given only when
both its ratios name a difference, with its own interval, and the text about
N and fixed costs follows the direction N differs in.

The figures of the run are claimrun.py's (Run: paired ratios, memory
differences, shares and the family of tests), each cell and verdict in words
claimverdicts.py's; this module lays them out in the sections' tables.

Where a figure cannot be measured -- a variant not in the catalog yet, not in
this run's profile, skipped because node is missing, or without a valid run --
the cell says so in words.

The claims object (all text fields are Markdown; {iterations}, {host} and {n}
are filled in):
  title, seed, source, host, iterations   the seed and what it measured on
  runtimes   (optional) {about, lang: version}: the pinned versions that stand
             for the seed's runtime (runner/analysis/byversion.py; DESIGN section 11)
  method, reading                         the section's opening paragraphs
  methods_differ                          (optional) why the two methods' figures
                                          differ, printed after the claims table
  method_twins                            (optional) the seed's method (perfjs):
                                          every variant of the workload timed by
                                          it, beside its in-process twin, in a
                                          table of their own when the run has one
  count                                   "read the file {n} times": this run's N
  same_method                             the seed's-method cell of an absolute
                                          claim timed the same way by both
  ratios     [{id, whose, claim, seed, num, den, seed_method?: [num, den]}]
  absolute   [{id, whose, claim, seed_ms, variant, seed_method?}]
             (without seed_method the seed's-method cell says same_method)
  memory     [{id, whose, claim, seed_kb, num, den?}]: memory above the idle
             process (a run's proc_peak_rss_kb - idle_rss_kb), of num, or of num
             minus den's (a claimed difference, negative for a saving); from
             the rounds in which both ran, with a CI, else of the summary's
             medians (mem_above_idle_kb)
             (ratios: seed null when the claim names no figure, only which is
             faster)
  smallest_memory [{id, whose, claim, variant, among: [ids]}]: variant has the
             smallest memory of itself and `among` (median memory above the
             idle process, or peak RSS where a row has no idle figure)
  smallest_memory entries may name seed_method: {variant, among}: the same
             claim over the seed's method's variants (its own column), judged
             on the method's own memory figure when its lines give one
             (sampled_rss_kb: bluebird's harness's largest RSS sampled less
             the RSS at its start), else on the memory above the idle process
  decomposition {title, about, c_column, rows: [{gap, node: [num, den],
                 c: [num, den], style_in_node?: [..], backend_in_node?: [..],
                 c_is?: text}]}: the node and c pairs must be measured alike
                 (the same connection mode: never a Node close-mode ratio
                 over a C keep-alive one); c_is says what the C ratio is when
                 it is not a style's own cost (C on node4 against Go's blocking
                 read is node4's threadpool trips), and then no share is given
  split      {about, style_column, backend_column}   (rows with style_in_node)

Usage: python3 -m runner.analysis.reproduce RUNDIR   prints the sections for a run folder.
"""
import sys

from ..catalog import catalog as catalog_mod
from ..catalog import contract as contract_mod
from ..core import fmt
from . import runfolder
from . import summary as summary_mod
from .claimrun import Run
from ..core.errors import EnvError
from .claimverdicts import fmt_kb, fmt_ms, fmt_ratio, memory_claim, methods_apart, share_cell, verdict_kb, verdict_ms, verdict_ratio


def memory_table(run, claims):
    out = ["| # | whose claim | seed %s says | measured (above the idle process) | seed | "
           "this run | verdict |" % claims["seed"],
           "|---|---|---|---|---:|---|---|"]
    for i, c in enumerate(claims.get("memory", []), 1):
        r = run.memory(c["num"], c.get("den"))
        pair = "`%s` - `%s`" % (c["num"], c["den"]) if c.get("den") else "`%s`" % c["num"]
        out.append("| %d | %s | %s | %s | %+d KB | %s | %s |" % (
            i, c["whose"], c["claim"], pair, c["seed_kb"], fmt_kb(r),
            verdict_kb(r, c["seed_kb"], run.q_of(r))))
    return out


def claims_table(run, claims):
    out = ["| # | claim (pair measured: slower / faster) | seed | "
           "this run, in-process timing | this run, seed's method | verdict (in-process) |",
           "|---|---|---:|---|---|---|"]
    ratios = claims.get("ratios", [])
    for i, c in enumerate(ratios, 1):
        suite = run.ratio([c["num"]], [c["den"]])
        if c.get("seed_method"):
            sm_num, sm_den = c["seed_method"]
            seedm = fmt_ratio(run.ratio([sm_num], [sm_den]))
            if [sm_num, sm_den] != [c["num"], c["den"]]:
                seedm += methods_apart(run, run.ratio([c["num"], sm_den], [c["den"], sm_num]))
        else:
            seedm = claims["same_method"]
        # A claim near 1 ("about 2% slower": 1.02) keeps its second decimal.
        out.append("| %d | %s: %s (`%s` / `%s`) | %s | %s | %s | %s |" % (
            i, c["whose"], c["claim"], c["num"], c["den"],
            "faster" if c["seed"] is None else fmt.seed_ratio(c["seed"]), fmt_ratio(suite),
            seedm, verdict_ratio(suite, c["seed"], run.q_of(suite))))
    for j, c in enumerate(claims.get("absolute", []), len(ratios) + 1):
        sm = c.get("seed_method", c["variant"])
        out.append("| %d | %s: %s (`%s`) | %s | %s | %s | %s |" % (
            j, c["whose"], c["claim"], c["variant"], fmt.ms(c["seed_ms"]), fmt_ms(run, c["variant"]),
            fmt_ms(run, sm) + methods_apart(run, run.ratio([c["variant"]], [sm]))
            if sm != c["variant"] else claims["same_method"],
            verdict_ms(run, claims, c["variant"], c["seed_ms"])))
    first = len(ratios) + len(claims.get("absolute", [])) + 1
    for k, c in enumerate(claims.get("smallest_memory", []), first):
        cell, verdict = memory_claim(run, c["variant"], c["among"])
        sm = c.get("seed_method")
        if sm:
            # The seed's method's own memory figure (bluebird's harness: the
            # largest RSS sampled less the RSS at its start) when its lines
            # gave it, else the same kernel figure as this run's column.
            sm_ids = [sm["variant"]] + list(sm["among"])
            figure = "sampled" if all(
                run.why_missing(v) is None and run.rows[v].get("sampled_rss_kb") is not None
                for v in sm_ids) else "kernel"
            sm_cell, sm_verdict = memory_claim(run, sm["variant"], sm["among"], figure)
            seedm = "%s (%s)" % (sm_cell, sm_verdict.replace("**", ""))
        else:
            seedm = "no timing: memory is read from the kernel at the end"
        out.append("| %d | %s: %s (`%s` against %s) | smallest | %s | %s | %s |" % (
            k, c["whose"], c["claim"], c["variant"], ", ".join("`%s`" % v for v in c["among"]),
            cell, seedm, verdict))
    return out


def twins_table(run, workload, method):
    """Every variant of the workload that the seed's `method` times, beside the
    same variant timed in-process: both times, the in-process one over the
    seed's method's round by round (methods_apart), both memories above the
    idle process and, for a method whose lines carry one (contract.py's
    SAMPLED_METHODS: perfjs), that method's own memory figure (sampled_rss_kb,
    `-` where the run has none).  [] without a method or when the run timed
    none by it."""
    if not method:
        return []
    pairs = [(catalog_mod.variant_id(dict(v, method="inprocess")), v["id"])
             for v in run.catalog.workloads[workload]["variants"] if v["method"] == method]
    if not any(run.why_missing(sm) is None for _, sm in pairs):
        return []
    sampled = method in contract_mod.SAMPLED_METHODS
    out = ["", "Every variant both ways. After the two times comes the in-process figure over "
           "the seed's method's, round by round. Memory is above the idle process, "
           "in-process / seed's method, from the kernel's peak.%s" % (
               " The harness's own memory figure is the largest RSS it sampled less the RSS at "
               "its start, `-` where this run has none." if sampled else ""), "",
           "| variant | in-process | seed's method (`%s`) | memory above idle |%s" % (
               method, " the harness's own memory figure |" if sampled else ""),
           "|---|---|---|---|%s" % ("---|" if sampled else "")]

    def mib(v, field):
        kb = None if run.why_missing(v) else run.rows[v].get(field)
        return "-" if kb is None else "%.1f" % (kb / 1024.0)

    for vid, sm in pairs:
        mems = [mib(vid, "mem_above_idle_kb"), mib(sm, "mem_above_idle_kb")]
        own = mib(sm, "sampled_rss_kb")
        out.append("| `%s` | %s | %s%s | %s MiB |%s" % (
            vid, fmt_ms(run, vid), fmt_ms(run, sm), methods_apart(run, run.ratio([vid], [sm])),
            " / ".join(mems), (" %s |" % (own if own == "-" else own + " MiB")) if sampled else ""))
    return out


def decomposition_table(run, dec):
    out = ["| gap | in Node | %s | "
           "Node's implementation (Node / C) | style's share of the gap |" % dec["c_column"],
           "|---|---|---|---|---|"]
    for d in dec["rows"]:
        node = run.ratio([d["node"][0]], [d["node"][1]])
        c = run.ratio([d["c"][0]], [d["c"][1]])
        own = run.ratio([d["node"][0], d["c"][1]], [d["node"][1], d["c"][0]])
        out.append("| %s | %s | %s | %s | %s |" % (
            d["gap"], fmt_ratio(node), fmt_ratio(c), fmt_ratio(own), share_cell(run, d, node, c)))
    return out


def split_table(run, dec, split):
    out = ["| gap in Node | total | %s | %s |" % (split["style_column"], split["backend_column"]),
           "|---|---|---|---|"]
    for d in dec["rows"]:
        if "style_in_node" not in d:
            continue
        out.append("| %s | %s | %s | %s |" % (
            d["gap"], fmt_ratio(run.ratio([d["node"][0]], [d["node"][1]])),
            fmt_ratio(run.ratio([d["style_in_node"][0]], [d["style_in_node"][1]])),
            fmt_ratio(run.ratio([d["backend_in_node"][0]], [d["backend_in_node"][1]]))))
    return out


def run_warmup(info, workload):
    """', no warm-up' or ', after a warm-up of 350': the in-process warm-up this
    run gave the workload's programs (run.json's warmup_ops; a variant's own,
    such as a whole-process method's 0, is not shown); '' for a run that did
    not record it."""
    w = ((info.get("workloads") or {}).get(workload) or {}).get("warmup_ops")
    if not isinstance(w, int):
        return ""
    return ", no warm-up" if w == 0 else ", after a warm-up of %s" % format(w, ",")


def section(run, workload, claims):
    """The Markdown lines of one workload's claims beside this run."""
    info = run.info
    n = run.iterations(workload)
    if n is None and isinstance(info.get("iterations"), int):
        n = info["iterations"]
    seed_n = claims["iterations"]
    out = ["## %s" % claims["title"], ""]
    out.append(
        "%s This run: profile `%s`, N = %s%s, %s rounds%s, on %s (Node %s, Go %s)." % (
            claims["method"].format(iterations=format(seed_n, ","), host=claims["host"]),
            info.get("profile", "?"), format(n, ",") if isinstance(n, int) else "?",
            run_warmup(info, workload),
            summary_mod.workload_rounds(info, workload),
            "" if info.get("complete", True) else " (**incomplete**: %s)" % (
                info.get("ending") or "it did not finish"),
            run.host.get("cpu_model") or run.host.get("slug") or "this host",
            run.host.get("node") or "absent", (run.host.get("go") or "absent").replace("go version ", "")))
    out.append("")
    out.append("%s Brackets are 95%% confidence intervals %s.%s" % (
        claims["reading"],
        ("of the median of round-paired ratios. Where the two variants of a ratio ran in "
         "lockstep, they are of the geometric mean of the sessions' figures instead" if run.sessions
         else "of the median of round-paired ratios")
        if run.times is not None
        else "(none here: %s, so ratios are of medians)" % run.samples_note,
        (" A verdict names a difference only when its CI excludes 1 (0 for memory) and its "
         "sign test survives the false discovery rate control. That control is "
         "Benjamini-Hochberg's at 5%% over the %d tests of this report's seed sections."
         % len(run.tests))
        if run.tests else ""))
    if isinstance(n, int) and n < seed_n:
        out.append("")
        out.append("With N = %s instead of the seed's %s, what a pass pays once (its first, "
                   "cold operations) weighs more in every ratio than in the seed's runs. Read "
                   "the verdicts as this run's, not as a check of the seed's conditions."
                   % (format(n, ","), format(seed_n, ",")))
    elif isinstance(n, int) and n > seed_n:
        out.append("")
        out.append("With N = %s instead of the seed's %s, what a pass pays once weighs less in "
                   "every ratio than in the seed's runs. What grows with N (memory held, "
                   "garbage collection) counts for more. Read the verdicts as this run's, not as a "
                   "check of the seed's conditions." % (format(n, ","), format(seed_n, ",")))
    out.append("")
    out += claims_table(run, claims)
    out += twins_table(run, workload, claims.get("method_twins"))
    if claims.get("methods_differ"):
        out += ["", "Where the two methods differ. The figure after a seed's-method cell is the "
                "in-process figure over the seed's method's, round by round. It is `~` when the "
                "two are not told apart. %s" % claims["methods_differ"]]
    if claims.get("memory"):
        out += ["", "Memory, in KB above each program's RSS just before its timed section:", ""]
        out += memory_table(run, claims)
    dec = claims.get("decomposition")
    if dec:
        out += ["", "### %s" % dec["title"], "", dec["about"], ""]
        out += decomposition_table(run, dec)
        split = claims.get("split")
        if split and any("style_in_node" in d for d in dec["rows"]):
            out += ["", split["about"], ""]
            out += split_table(run, dec, split)
    out.append("")
    return out


def markdown(summary, folder=None, catalog=None, more=()):
    """The reproduction sections of REPORT.md for one run (see the module doc):
    one per workload that has claims and took part in the run.  summary is the
    summary.json dict; folder the run folder (a runfolder.RunFolder or its
    path), whose samples.csv gives
    round-paired ratios with confidence intervals; catalog a loaded catalog
    (default: the run's, catalog.for_run); more, functions like section(run, workload,
    claims) whose lines follow each workload's section (byversion.section),
    their tests in the same family."""
    if catalog is None:
        try:
            folder = runfolder.of(folder)
            catalog = folder.catalog() if folder else catalog_mod.for_run(None)
        except catalog_mod.CatalogError as e:
            return "## Seed claims reproduced\n\nNot shown: %s\n" % e
    run = Run(summary, folder, catalog)
    ran = set(run.info.get("variants") or []) | set(run.rows)
    # A workload's variants of the host's runtimes or of a pinned version ran.
    took_part = {vid.split("/", 1)[0] for vid in ran}
    names = [name for name in sorted(catalog.workloads)
             if catalog.workloads[name].get("claims") and name in took_part]

    def draw(name):
        claims = catalog.workloads[name]["claims"]
        lines = []
        if any(v["id"] in ran for v in catalog.workloads[name]["variants"]):
            lines += section(run, name, claims)
        for f in more:
            lines += f(run, name, claims)
        return lines
    # Twice: the first drawing gathers the family of tests, the second uses
    # their q-values (every section's verdicts rest on the one family).
    for name in names:
        draw(name)
    run.close_family()
    out = []
    for name in names:
        out += draw(name)
    return "\n".join(out)


def main(args):
    if len(args) != 1 or args[0] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    folder = runfolder.RunFolder(args[0])
    try:
        summary = folder.summary
    except EnvError as e:
        print("reproduce.py: %s" % e, file=sys.stderr)
        return 3
    print(markdown(summary, folder))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

