"""reproduce.py -- a workload's seed claims beside the figures of one run.

The claims are data: the "claims" object of a workload's catalog file
(runner/catalog/<workload>.json) names the seed, the host and N it measured
on, and three lists of variant ids: ratio claims ("NodeJS: 4.8x faster if we
go back to callbacks!" is await-parallel over callback-parallel, with the seed
4.8), absolute claims (a variant's time in ms), and a decomposition that splits
each gap into the cost of the style itself (the same pair of styles in C on the
same backend) and the cost of one language's implementation of it.  The
runner's REPORT.md ends with markdown(summary, run_dir): one section per
workload of the run that has claims, each a table of the claims beside what
this run measured, with a 95% confidence interval, and the decomposition.

Every ratio is a ratio of elapsed times, slower over faster as the claim puts
it, so a claim of "4.8x faster" is checked against a measured ratio near 4.8.
With run_dir (the run folder) the ratios and their CIs come from the rounds in
which all the variants involved ran (round-paired, so slow drift of the
machine cancels), summarised by the median and an order-statistic CI
(runner/stats.py).  Without it, or without samples.csv there, the table falls
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

Where a figure cannot be measured -- a variant not in the catalog yet, not in
this run's profile, skipped because node is missing, or without a valid run --
the cell says so in words.

The claims object (all text fields are Markdown; {iterations}, {host} and {n}
are filled in):
  title, seed, source, host, iterations   the seed and what it measured on
  runtimes   (optional) {about, lang: version}: the pinned versions that stand
             for the seed's runtime (runner/byversion.py; DESIGN section 11)
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
             process (a run's peak_rss_kb - idle_rss_kb), of num, or of num
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

Usage: python3 -m runner.reproduce RUNDIR   prints the sections for a run folder.
"""
import json
import math
import os
import sys

from . import catalog as catalog_mod
from . import contract as contract_mod
from . import fmt
from . import stats
from . import summary as summary_mod


class Run:
    """What the sections need from one run: the summary rows, the catalog, and
    the valid elapsed times per variant and round when samples.csv is at hand
    (samples: its rows as summary.read_samples gives them, when the caller has
    read them already; else they are read from run_dir)."""

    def __init__(self, summary, run_dir=None, catalog=None, samples=None):
        self.info = summary.get("run") or {}
        self.host = summary.get("host") or {}
        self.rows = {r["variant"]: r for r in summary.get("variants", [])}
        self.catalog = catalog
        # The family of tests the sections' verdicts rest on: {key: p}, and once
        # every section has been drawn, their Benjamini-Hochberg q-values.
        self.tests = {}
        self.q = None
        self.times = None  # {variant: {round: elapsed_ns}} of valid runs
        self.mem = None
        self.sampled = None
        self.samples_note = "no run folder was given"
        if run_dir:
            path = os.path.join(run_dir, "samples.csv")
            try:
                if samples is None:
                    samples = summary_mod.read_samples(
                        path, contracts=summary_mod.workload_contracts(self.info, cat=catalog))
            except (OSError, ValueError) as e:
                self.samples_note = "samples.csv unreadable (%s)" % e
            else:
                self.times = {}
                self.mem = {}  # {variant: {round: KB above the idle process}}
                self.sampled = {}  # {variant: {round: a harness's own figure, KB}}
                for s in summary_mod.per_process(samples):   # its passes' median
                    # The base point only: a sweep's other points are other settings.
                    if not summary_mod.at_base_point(s):
                        continue
                    if s["status"] == "ok" and s["elapsed_ns"]:
                        self.times.setdefault(s["variant"], {})[s["round"]] = s["elapsed_ns"]
                        if s.get("idle_rss_kb") is not None and s.get("peak_rss_kb") is not None:
                            self.mem.setdefault(s["variant"], {})[s["round"]] = (
                                s["peak_rss_kb"] - s["idle_rss_kb"])
                        if s.get("sampled_rss_kb") is not None:
                            self.sampled.setdefault(s["variant"], {})[s["round"]] = (
                                s["sampled_rss_kb"])

    def why_missing(self, vid):
        """None when vid has valid samples in this run, else the reason in words."""
        row = self.rows.get(vid)
        if row is not None and row.get("n"):
            return None
        if row is not None:
            st = row.get("statuses") or {}
            bad = ", ".join("%d %s" % (v, k) for k, v in sorted(st.items()) if v and k != "ok")
            return "`%s` had no valid run%s" % (vid, " (%s)" % bad if bad else "")
        for skip in self.info.get("skipped") or []:
            # {"variant", "reason"} per skipped variant; older runs kept one
            # line per group of skipped variants, with the reason before a colon.
            if isinstance(skip, dict):
                if skip.get("variant") == vid:
                    return "`%s` was skipped: %s" % (vid, skip.get("reason"))
            elif vid in str(skip):
                return "`%s` was skipped: %s" % (vid, str(skip).split(":")[0])
        v = self.catalog.find(vid)
        if v is None:
            return "`%s` is not in the catalog yet" % vid
        if vid in (self.info.get("variants") or []):
            if self.info.get("complete") is False:
                return "the run was interrupted before `%s` ran" % vid
            return "`%s` has no samples in this run" % vid
        if v["requires"].get("node") and not self.host.get("node"):
            return "node was not found on this host"
        return "`%s` is not in this run (profile %s%s)" % (
            vid, self.info.get("profile", "?"), ", filtered" if self.info.get("filters") else "")

    def iterations(self, workload):
        """The N this run gave the workload (from its rows), or None."""
        ns = [r.get("iterations") for r in self.rows.values() if r.get("workload") == workload]
        ns = [n for n in ns if isinstance(n, int)]
        return max(set(ns), key=ns.count) if ns else None

    def median_ms(self, vid):
        return self.rows[vid]["median_ms"]

    def ratio(self, num, den):
        """A product-ratio prod(num) / prod(den) of elapsed times, as a dict with
        value, low, high (None when no CI), rounds and how it was computed, or
        {"missing": reason}."""
        for vid in list(num) + list(den):
            why = self.why_missing(vid)
            if why:
                return {"missing": why}
        if self.times is not None:
            rounds = set.intersection(*(set(self.times.get(v, {})) for v in list(num) + list(den)))
            per_round = []
            for r in sorted(rounds):
                top = math.prod(self.times[v][r] for v in num)
                bottom = math.prod(self.times[v][r] for v in den)
                if bottom > 0:
                    per_round.append(top / bottom)
            if per_round:
                m, lo, hi = stats.ratio_ci(per_round)
                return {"value": m, "low": lo, "high": hi, "rounds": len(per_round), "paired": True,
                        "key": ("ratio", tuple(num), tuple(den)),
                        "p": stats.sign_test(per_round) if lo is not None else None}
        top = math.prod(self.median_ms(v) for v in num)
        bottom = math.prod(self.median_ms(v) for v in den)
        if not bottom:
            return {"missing": "a median of 0 ms"}
        return {"value": top / bottom, "low": None, "high": None, "rounds": 0, "paired": False}


    def memory(self, num, den=None, figure="kernel"):
        """Memory of num, minus den's when given, in KB: a dict like ratio()'s
        (value, low, high, rounds, paired) or {"missing": why}.  figure "kernel"
        is the memory above the idle process (the kernel's peak less the RSS
        before the timed pass), "sampled" a harness's own figure (the line's
        sampled_rss_kb: perfjs's largest RSS sampled less the RSS at its start)."""
        for vid in [num] + ([den] if den else []):
            why = self.why_missing(vid)
            if why:
                return {"missing": why}
        per_round = self.sampled if figure == "sampled" else self.mem
        if per_round is not None:
            rounds = set(per_round.get(num, {}))
            if den:
                rounds &= set(per_round.get(den, {}))
            diffs = [per_round[num][r] - (per_round[den][r] if den else 0) for r in sorted(rounds)]
            if diffs:
                m, lo, hi = stats.ratio_ci(diffs)
                return {"value": m, "low": lo, "high": hi, "rounds": len(diffs), "paired": True,
                        "key": ("memory", num, den) if figure == "kernel" else (figure, num, den),
                        "p": stats.sign_test_around(diffs, 0) if lo is not None else None}
        field = "sampled_rss_kb" if figure == "sampled" else "mem_above_idle_kb"
        vals = [self.rows[v].get(field) for v in [num] + ([den] if den else [])]
        if any(v is None for v in vals):
            if figure == "sampled":
                return {"missing": "no harness memory figure in this run (no sampled_rss_kb)"}
            return {"missing": "no memory above the idle process in this run (no idle_rss_kb)"}
        return {"value": vals[0] - (vals[1] if den else 0), "low": None, "high": None,
                "rounds": 0, "paired": False}


    def share(self, node, c):
        """The share of Node's gap node = [num, den] that the same styles keep in C
        (c = [num, den]), on a log scale: ln(C ratio) / ln(Node ratio) in percent,
        round by round over the rounds all four ran, as (median, low, high) with
        its order-statistic interval (low, high None with too few rounds), or
        None without paired samples."""
        if self.times is None:
            return None
        vids = list(node) + list(c)
        rounds = set.intersection(*(set(self.times.get(v, {})) for v in vids))
        shares = []
        for r in sorted(rounds):
            t = [self.times[v][r] for v in vids]
            if min(t) <= 0 or t[0] == t[1]:
                continue
            shares.append(100.0 * math.log(t[2] / t[3]) / math.log(t[0] / t[1]))
        return stats.ratio_ci(shares) if shares else None

    def q_of(self, r):
        """The q-value of a measured figure's test (registering the test in the
        family), or None: no test, or the family is still being gathered."""
        if r.get("p") is None:
            return None
        self.tests[r["key"]] = r["p"]
        return None if self.q is None else self.q.get(r["key"])

    def close_family(self):
        """Every verdict's test is registered: their q-values from now on."""
        keys = sorted(self.tests, key=repr)
        self.q = dict(zip(keys, stats.bh_adjust([self.tests[k] for k in keys])))


def lost(q, null="1"):
    """The verdict of a test whose interval excludes the null (1 for a ratio, 0 for
    a difference) but whose q-value is above 5% (None when it survives or has no
    q-value)."""
    if q is None or q <= stats.ALPHA:
        return None
    return ("**does not hold here**: taken alone its CI excludes %s, but its test does not "
            "survive the false discovery rate control over this report's claims (q = %.2f)"
            % (null, q))


def fmt_kb(r):
    if "missing" in r:
        return "not measured: %s" % r["missing"]
    if r["low"] is not None:
        return "%+.0f KB [%+.0f, %+.0f]" % (r["value"], r["low"], r["high"])
    if r["paired"]:
        return "%+.0f KB (no CI: %d paired rounds, %d needed)" % (
            r["value"], r["rounds"], stats.min_samples_for_ci())
    return "%+.0f KB (of medians, no CI)" % r["value"]


def verdict_kb(r, seed_kb, q=None):
    """Whether a measured memory difference supports a claimed one, in words: a
    difference at all first (the CI excludes 0 and the test survives, q), then
    its direction, then whether the CI holds the claimed figure."""
    if "missing" in r:
        return "cannot tell: not measured"
    v, lo, hi = r["value"], r["low"], r["high"]
    if lo is None:
        return "no CI; %+.0f KB here against the claimed %+.0f KB" % (v, seed_kb)
    if lo <= 0 <= hi:
        return "**does not hold here**: no significant difference (the CI includes 0)"
    if lost(q):
        return lost(q, "0")
    if lo <= seed_kb <= hi:
        return "**holds**: the CI includes %+.0f KB" % seed_kb
    if (v > 0) != (seed_kb > 0):
        return "**reversed**: %+.0f KB here, claimed %+.0f KB" % (v, seed_kb)
    return "**direction holds, %s here**: %+.0f KB, claimed %+.0f KB" % (
        "smaller" if abs(v) < abs(seed_kb) else "larger", v, seed_kb)


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


def fmt_ratio(r):
    """A measured ratio (Run.ratio) with its CI, or why it has none."""
    if "missing" in r:
        return "not measured: %s" % r["missing"]
    if r["paired"]:
        no_ci = "(no CI: %d paired rounds, %d needed)" % (r["rounds"], stats.min_samples_for_ci())
    else:
        no_ci = "(ratio of medians, no CI: samples.csv not read)"
    return fmt.ratio(r["value"], r["low"], r["high"], no_ci=no_ci)


def fmt_ms(run, vid):
    """A variant's median time for N operations with its CI, or why it has none."""
    why = run.why_missing(vid)
    if why:
        return "not measured: %s" % why
    row = run.rows[vid]
    if row.get("ci_low_ms") is not None and row.get("ci_high_ms") is not None:
        return "%s [%s, %s]" % (fmt.ms(row["median_ms"]), fmt.num(row["ci_low_ms"]),
                                fmt.num(row["ci_high_ms"]))
    return "%s (no CI: %d runs)" % (fmt.ms(row["median_ms"]), row.get("n") or 0)


def verdict_ratio(r, seed, q=None):
    """Whether a measured ratio supports a claimed one (seed None: only that
    the ratio is above 1), in words: a difference at all first (the CI
    excludes 1 and the test survives, q), then its direction, then the figure."""
    if "missing" in r:
        return "cannot tell: not measured"
    v, lo, hi = r["value"], r["low"], r["high"]
    if lo is None:
        if seed is None:
            return "no CI; the median ratio is %.2fx" % v
        return "no CI; the median ratio %.2fx is %s the claimed %.1fx" % (
            v, "below" if v < seed else "above", seed)
    if lo <= 1 <= hi:
        return "**does not hold here**: no significant difference (the CI includes 1)"
    if lost(q):
        return lost(q)
    if hi < 1:
        return "**reversed**: the claimed faster side is slower here"
    if seed is None:
        return "**holds**: %.2fx faster here" % v
    if lo <= seed <= hi:
        return "**holds**: the CI includes %.1fx" % seed
    # The CI excludes the claimed figure: the direction holds, the magnitude does not.
    return "**direction holds, magnitude does not**: %.1fx here (CI %s), claimed %.1fx" % (
        v, "below it" if hi < seed else "above it", seed)


def verdict_ms(run, claims, vid, seed_ms):
    """Whether a measured time matches an absolute claim, in words."""
    if run.why_missing(vid):
        return "cannot tell: not measured"
    n = run.rows[vid].get("iterations")
    if n != claims["iterations"]:
        return "not comparable: this run %s, the claim is for %s" % (
            claims["count"].format(n=format(n, ",") if isinstance(n, int) else "?"),
            format(claims["iterations"], ","))
    row = run.rows[vid]
    lo, hi = row.get("ci_low_ms"), row.get("ci_high_ms")
    if lo is not None and lo <= seed_ms <= hi:
        return "the same here (CI includes %s); another host" % fmt.ms(seed_ms)
    return "%.1fx %s here; another host, so a scale, not a check" % (
        max(row["median_ms"], seed_ms) / min(row["median_ms"], seed_ms),
        "slower" if row["median_ms"] > seed_ms else "faster")


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


def methods_apart(run, r):
    """'; in-process over this: 1.52x [1.40, 1.61]': the suite's figure over the
    seed's method's, round by round, after a seed's-method cell; `~` before it
    when the two are not told apart (the CI holds 1, or its test does not
    survive the family's control); '' when it cannot be measured."""
    if "missing" in r:
        return ""
    same = r["low"] is None or r["low"] <= 1 <= r["high"] or lost(run.q_of(r))
    return "; in-process over this: %s%s" % ("~ " if same and r["low"] is not None else "",
                                             fmt_ratio(r))


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
    out = ["", "Every variant both ways (the in-process figure over the seed's method's, round "
           "by round, after the two times; memory above the idle process, in-process / "
           "seed's method, from the kernel's peak%s):" % (
               "; the harness's own memory figure: the largest RSS it sampled less the RSS at "
               "its start, `-` where this run has none" if sampled else ""), "",
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


def memory_kb(row, figure="kernel"):
    """(KiB, what it is) of a summary row: memory above the idle process when
    the row has it, else peak RSS; (None, why) when it has neither.  figure
    "sampled": the harness's own figure (sampled_rss_kb), or (None, why)."""
    if figure == "sampled":
        if row.get("sampled_rss_kb") is not None:
            return row["sampled_rss_kb"], "sampled by the harness"
        return None, "no harness memory figure"
    if row.get("mem_above_idle_kb") is not None:
        return row["mem_above_idle_kb"], "above idle"
    if row.get("peak_rss_kb") is not None:
        return row["peak_rss_kb"], "peak RSS"
    return None, "no memory figure"


def memory_claim(run, vid, among, figure="kernel"):
    """(this run's cell, verdict) of a claim that vid uses the least memory of
    itself and among: it holds only when vid's memory above the idle process
    (figure "sampled": the harness's own figure, Run.memory) is below each
    other's by a round-paired difference whose CI excludes 0 and whose test
    survives the family's control; without paired samples the medians are
    compared, and the verdict says it has no CI."""
    figures = {}
    for v in [vid] + list(among):
        why = run.why_missing(v)
        if why:
            return "not measured: %s" % why, "cannot tell: not measured"
        kb, what = memory_kb(run.rows[v], figure)
        if kb is None:
            return "not measured: `%s` has %s" % (v, what), "cannot tell: not measured"
        figures[v] = (kb, what)
    cell = "; ".join("`%s` %.1f MiB %s" % (v, kb / 1024.0, what) for v, (kb, what) in figures.items())
    diffs = {v: run.memory(vid, v, figure) for v in among}
    if diffs and all("missing" not in d and d["low"] is not None for d in diffs.values()):
        less = [v for v, d in diffs.items() if d["low"] > 0 and not lost(run.q_of(d))]
        if less:
            return cell, "**does not hold here**: `%s` uses less" % less[0]
        same = [v for v, d in diffs.items() if d["high"] >= 0 or lost(run.q_of(d))]
        if same:
            return cell, ("**does not hold here**: no significant difference from `%s` "
                          "(the paired CI of the difference includes 0, or its test does not "
                          "survive the false discovery rate control)" % same[0])
        return cell, "**holds**: the smallest here, below each by a paired CI that excludes 0"
    mine = figures[vid][0]
    others = sorted((kb, v) for v, (kb, _) in figures.items() if v != vid)
    if not others or mine < others[0][0]:
        return cell, "no CI; the smallest median here"
    if mine == others[0][0]:
        return cell, "no CI; the same median as `%s`" % others[0][1]
    return cell, "no CI; `%s` has a smaller median" % others[0][1]


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


def named_above_one(run, r):
    """True when a measured ratio names a difference above 1: its CI lies above 1
    and its test survives the family's control."""
    return ("missing" not in r and r["low"] is not None and r["low"] > 1
            and not lost(run.q_of(r)))


def share_cell(run, d, node, c):
    """The style's share of a decomposition row's gap, in words: given only when
    Node's ratio and C's both name a difference above 1, with the round-paired
    interval of the share; what the C ratio is when it is not a style's cost."""
    if "missing" in node or "missing" in c:
        return "not measured: %s" % (node.get("missing") or c.get("missing"))
    # Both tests are part of the family whether or not a share is given.
    named = [named_above_one(run, node), named_above_one(run, c)]
    if d.get("c_is"):
        return "none: %s" % d["c_is"]
    if node["low"] is None or c["low"] is None:
        return "cannot tell: Node's or C's ratio has no CI here"
    if not named[0]:
        return "none: Node's ratio names no gap here"
    if not named[1]:
        return "none: C's ratio names no gap here (the style costs C nothing resolvable)"
    m, lo, hi = run.share(d["node"], d["c"])
    if lo is None:
        return "%.0f%% (no CI: too few paired rounds)" % m
    return "%.0f%% [%.0f, %.0f]" % (m, lo, hi)


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
            "" if info.get("complete", True) else " (**incomplete**: it was interrupted)",
            run.host.get("cpu_model") or run.host.get("slug") or "this host",
            run.host.get("node") or "absent", (run.host.get("go") or "absent").replace("go version ", "")))
    out.append("")
    out.append("%s Brackets are 95%% confidence intervals of the median %s.%s" % (
        claims["reading"],
        "of round-paired ratios" if run.times is not None
        else "(none here: %s, so ratios are of medians)" % run.samples_note,
        (" A verdict names a difference only when its CI excludes 1 (0 for memory) and its "
         "sign test survives the Benjamini-Hochberg control of the false discovery rate at 5%%"
         " over the %d tests of this report's seed sections." % len(run.tests))
        if run.tests else ""))
    if isinstance(n, int) and n < seed_n:
        out.append("")
        out.append("With N = %s instead of the seed's %s, what a pass pays once (its first, "
                   "cold operations) weighs more in every ratio than in the seed's runs: read "
                   "the verdicts as this run's, not as a check of the seed's conditions."
                   % (format(n, ","), format(seed_n, ",")))
    elif isinstance(n, int) and n > seed_n:
        out.append("")
        out.append("With N = %s instead of the seed's %s, what a pass pays once weighs less in "
                   "every ratio than in the seed's runs, and what grows with N (memory held, "
                   "garbage collection) more: read the verdicts as this run's, not as a check "
                   "of the seed's conditions." % (format(n, ","), format(seed_n, ",")))
    out.append("")
    out += claims_table(run, claims)
    out += twins_table(run, workload, claims.get("method_twins"))
    if claims.get("methods_differ"):
        out += ["", "Where the two methods differ (the figure after a seed's-method cell is the "
                "in-process figure over the seed's method's, round by round; `~` when the two "
                "are not told apart): %s" % claims["methods_differ"]]
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


def markdown(summary, run_dir=None, catalog=None, more=()):
    """The reproduction sections of REPORT.md for one run (see the module doc):
    one per workload that has claims and took part in the run.  summary is the
    summary.json dict; run_dir the run folder, whose samples.csv gives
    round-paired ratios with confidence intervals; catalog a loaded catalog
    (default: the run's, catalog.for_run); more, functions like section(run, workload,
    claims) whose lines follow each workload's section (byversion.section),
    their tests in the same family."""
    if catalog is None:
        try:
            catalog = catalog_mod.for_run(run_dir)
        except catalog_mod.CatalogError as e:
            return "## Seed claims reproduced\n\nNot shown: %s\n" % e
    run = Run(summary, run_dir, catalog)
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
    path = os.path.join(args[0], "summary.json")
    try:
        with open(path, encoding="utf-8") as f:
            summary = json.load(f)
    except (OSError, ValueError) as e:
        print("reproduce.py: cannot read %s: %s" % (path, e), file=sys.stderr)
        return 3
    print(markdown(summary, args[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
