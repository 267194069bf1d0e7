"""reproduce.py -- seed 000's claims beside the figures of one run.

The runner's REPORT.md ends with the Markdown of markdown(summary, run_dir):
a table that puts each quantitative claim of seed 000 ("NodeJS: 4.8x faster
if we go back to callbacks!") beside what this run measured, with a 95%
confidence interval, and a second table that splits each gap into the cost of
the async style itself (the same style in C on the same backend) and the cost
of Node's implementation of it.

Every ratio is a ratio of elapsed times, slower over faster as the claim puts
it, so a claim of "4.8x faster" is checked against a measured ratio near 4.8.
With run_dir (the run folder) the ratios and their CIs come from the rounds in
which all the variants involved ran (round-paired, so slow drift of the
machine cancels), summarised by the median and an order-statistic CI
(runner/stats.py).  Without it, or without samples.csv there, the table falls
back to the ratio of the summary's medians and says that it has no CI.

Where a figure cannot be measured -- a variant not in the catalog yet, not in
this run's profile, skipped because node is missing, or without a valid run --
the cell says so in words.

Usage: reproduce.py RUNDIR   prints the section for a run folder.
"""
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)
import catalog as catalog_mod  # noqa: E402
import stats  # noqa: E402
import summary as summary_mod  # noqa: E402

SEED_ITERATIONS = 10000
SEED_HOST = "Node 20.8.1 and Go 1.21.0 on an Apple M1 Pro"

# The claims.  A ratio claim reads "num takes `seed` times as long as den";
# seed_method names the same pair timed the way the seed did (a whole
# `node --test` process per Node variant, Go timed inside its program).
CLAIMS = [
    {"id": "await-callback-parallel", "whose": "Node",
     "claim": "callbacks are 4.8x faster than async/await in parallel "
              "(the article's body says 5.8x)",
     "seed": 4.8, "num": "node/await-parallel", "den": "node/callback-parallel",
     "seed_method": ("node/await-nodetest-parallel", "node/callback-nodetest-parallel")},
    {"id": "await-callback-sequential", "whose": "Node",
     "claim": "callbacks are only 1.9x faster than async/await sequentially",
     "seed": 1.9, "num": "node/await-sequential", "den": "node/callback-sequential",
     "seed_method": ("node/await-nodetest-sequential", "node/callback-nodetest-sequential")},
    {"id": "promise-callback-parallel", "whose": "Node",
     "claim": "callbacks are 4.7x faster than promises in parallel",
     "seed": 4.7, "num": "node/promise-parallel", "den": "node/callback-parallel",
     "seed_method": ("node/promise-nodetest-parallel", "node/callback-nodetest-parallel")},
    {"id": "callback-go-sequential", "whose": "Node vs Go",
     "claim": "Go is 4.9x faster than Node's sequential callbacks",
     "seed": 4.9, "num": "node/callback-sequential", "den": "go/sync-sequential",
     "seed_method": ("node/callback-nodetest-sequential", "go/sync-sequential")},
    {"id": "await-go-sequential", "whose": "Node vs Go",
     "claim": "Node's async/await is 9.2x slower than Go "
              "(sequential: 9.2 x 58.9 ms matches its sequential async/await time)",
     "seed": 9.2, "num": "node/await-sequential", "den": "go/sync-sequential",
     "seed_method": ("node/await-nodetest-sequential", "go/sync-sequential")},
]

ABSOLUTE_CLAIMS = [
    {"id": "go-10000", "whose": "Go",
     "claim": "Go reads the file 10,000 times in 58.9 ms", "seed_ms": 58.9,
     "variant": "go/sync-sequential", "seed_method": "go/sync-sequential"},
    {"id": "promise-sequential-10000", "whose": "Node",
     "claim": "the sequential .then chain (the article's update) takes 532.8 ms",
     "seed_ms": 532.8, "variant": "node/promise-sequential",
     "seed_method": "node/promise-nodetest-sequential"},
]

# The decomposition: each Node gap beside the same pair of styles in C on the
# node4 backend (open, fstat, read, close as four libuv requests, as
# fs.readFile does), and for await the split inside Node between the style
# (await on promisified fs.readFile) and the backend (fs.promises.readFile).
DECOMPOSITION = [
    {"gap": "await / callback, parallel", "node": ("node/await-parallel", "node/callback-parallel"),
     "c": ("c/await-parallel", "c/callback-parallel"),
     "style_in_node": ("node/await-promisify-parallel", "node/callback-parallel"),
     "backend_in_node": ("node/await-parallel", "node/await-promisify-parallel")},
    {"gap": "await / callback, sequential", "node": ("node/await-sequential", "node/callback-sequential"),
     "c": ("c/await-sequential", "c/callback-sequential"),
     "style_in_node": ("node/await-promisify-sequential", "node/callback-sequential"),
     "backend_in_node": ("node/await-sequential", "node/await-promisify-sequential")},
    {"gap": "promise / callback, parallel (Promise.all)",
     "node": ("node/promise-parallel", "node/callback-parallel"),
     "c": ("c/promise-parallel", "c/callback-parallel")},
    {"gap": "promise / callback, parallel (a .then per read)",
     "node": ("node/promise-counter-parallel", "node/callback-parallel"),
     "c": ("c/promise-counter-parallel", "c/callback-parallel")},
    {"gap": "promise / callback, sequential (.then chain)",
     "node": ("node/promise-sequential", "node/callback-sequential"),
     "c": ("c/promise-sequential", "c/callback-sequential")},
    {"gap": "Node sequential callbacks / Go", "node": ("node/callback-sequential", "go/sync-sequential"),
     "c": ("c/callback-sequential", "go/sync-sequential")},
    {"gap": "Node sequential async/await / Go", "node": ("node/await-sequential", "go/sync-sequential"),
     "c": ("c/await-sequential", "go/sync-sequential")},
]


class Run:
    """What the section needs from one run: the summary rows, the catalog, and
    the valid elapsed times per variant and round when samples.csv is at hand."""

    def __init__(self, summary, run_dir=None, catalog=None):
        self.info = summary.get("run") or {}
        self.host = summary.get("host") or {}
        self.rows = {r["variant"]: r for r in summary.get("variants", [])}
        if catalog is None:
            try:
                catalog = catalog_mod.load()
            except (OSError, ValueError):
                catalog = {"variants": []}
        self.catalog_ids = {v["id"] for v in catalog.get("variants", [])}
        self.times = None  # {variant: {round: elapsed_ns}} of valid runs
        self.samples_note = "no run folder was given"
        if run_dir:
            path = os.path.join(run_dir, "samples.csv")
            try:
                samples = summary_mod.read_samples(path)
            except (OSError, ValueError) as e:
                self.samples_note = "samples.csv unreadable (%s)" % e
            else:
                self.times = {}
                for s in samples:
                    if s["status"] == "ok" and s["elapsed_ns"]:
                        self.times.setdefault(s["variant"], {})[s["round"]] = s["elapsed_ns"]

    def why_missing(self, vid):
        """None when vid has valid samples in this run, else the reason in words."""
        row = self.rows.get(vid)
        if row is not None and row.get("n"):
            return None
        if row is not None:
            st = row.get("statuses") or {}
            bad = ", ".join("%d %s" % (v, k) for k, v in sorted(st.items()) if v and k != "ok")
            return "`%s` had no valid run%s" % (vid, " (%s)" % bad if bad else "")
        for line in self.info.get("skipped") or []:
            if vid in str(line):
                return "`%s` was skipped: %s" % (vid, str(line).split(":")[0])
        if vid not in self.catalog_ids:
            return "`%s` is not in the catalog yet" % vid
        if vid in (self.info.get("variants") or []):
            if self.info.get("complete") is False:
                return "the run was interrupted before `%s` ran" % vid
            return "`%s` has no samples in this run" % vid
        if vid.startswith("node/") and not self.host.get("node"):
            return "node was not found on this host"
        return "`%s` is not in this run (profile %s%s)" % (
            vid, self.info.get("profile", "?"), ", filtered" if self.info.get("filters") else "")

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
                return {"value": m, "low": lo, "high": hi, "rounds": len(per_round), "paired": True}
        top = math.prod(self.median_ms(v) for v in num)
        bottom = math.prod(self.median_ms(v) for v in den)
        if not bottom:
            return {"missing": "a median of 0 ms"}
        return {"value": top / bottom, "low": None, "high": None, "rounds": 0, "paired": False}


def fmt_ratio(r):
    if "missing" in r:
        return "not measured: %s" % r["missing"]
    if r["low"] is not None:
        return "%.2fx [%.2f, %.2f]" % (r["value"], r["low"], r["high"])
    if r["paired"]:
        return "%.2fx (no CI: %d paired rounds, %d needed)" % (
            r["value"], r["rounds"], stats.min_samples_for_ci())
    return "%.2fx (ratio of medians, no CI: samples.csv not read)" % r["value"]


def fmt_ms(run, vid):
    why = run.why_missing(vid)
    if why:
        return "not measured: %s" % why
    row = run.rows[vid]
    if row.get("ci_low_ms") is not None and row.get("ci_high_ms") is not None:
        return "%.1f ms [%.1f, %.1f]" % (row["median_ms"], row["ci_low_ms"], row["ci_high_ms"])
    return "%.1f ms (no CI: %d runs)" % (row["median_ms"], row.get("n") or 0)


def verdict_ratio(r, seed):
    """Whether a measured ratio supports a claimed one, in words."""
    if "missing" in r:
        return "cannot tell: not measured"
    v, lo, hi = r["value"], r["low"], r["high"]
    if lo is None:
        return "no CI; the median ratio %.2fx is %s the claimed %.1fx" % (
            v, "below" if v < seed else "above", seed)
    if hi < 1:
        return "**reversed**: the claimed faster side is slower here"
    if lo <= 1:
        return "**does not hold here**: no significant difference (the CI includes 1)"
    if lo <= seed <= hi:
        return "**holds**: the CI includes %.1fx" % seed
    if hi < seed:
        return "**direction holds, smaller**: %.1fx here, not %.1fx" % (v, seed)
    return "**holds, larger here**: %.1fx, claimed %.1fx" % (v, seed)


def verdict_ms(run, vid, seed_ms):
    if run.why_missing(vid):
        return "cannot tell: not measured"
    n = run.rows[vid].get("iterations")
    if n != SEED_ITERATIONS:
        return "not comparable: this run read the file %s times, the claim is for %s" % (
            format(n, ",") if isinstance(n, int) else "?", format(SEED_ITERATIONS, ","))
    row = run.rows[vid]
    lo, hi = row.get("ci_low_ms"), row.get("ci_high_ms")
    if lo is not None and lo <= seed_ms <= hi:
        return "the same here (CI includes %.1f ms); another host" % seed_ms
    return "%.1fx %s here; another host, so a scale, not a check" % (
        max(row["median_ms"], seed_ms) / min(row["median_ms"], seed_ms),
        "slower" if row["median_ms"] > seed_ms else "faster")


def log_share(small, big):
    """The share of a gap `big` (a ratio) that a part `small` explains, on a log
    scale so parts multiply: ln(small) / ln(big), as a percentage."""
    if small is None or big is None or big <= 1 or small <= 0:
        return None
    return 100.0 * math.log(small) / math.log(big)


def claims_table(run):
    out = ["| # | whose claim | seed 000 says | pair measured (slower / faster) | seed | "
           "this run, in-process timing | this run, seed's method | verdict (in-process) |",
           "|---|---|---|---|---:|---|---|---|"]
    for i, c in enumerate(CLAIMS, 1):
        suite = run.ratio([c["num"]], [c["den"]])
        sm_num, sm_den = c["seed_method"]
        seedm = run.ratio([sm_num], [sm_den])
        out.append("| %d | %s | %s | `%s` / `%s` | %.1fx | %s | %s | %s |" % (
            i, c["whose"], c["claim"], c["num"], c["den"], c["seed"], fmt_ratio(suite),
            fmt_ratio(seedm), verdict_ratio(suite, c["seed"])))
    for j, c in enumerate(ABSOLUTE_CLAIMS, len(CLAIMS) + 1):
        out.append("| %d | %s | %s | `%s` | %.1f ms | %s | %s | %s |" % (
            j, c["whose"], c["claim"], c["variant"], c["seed_ms"], fmt_ms(run, c["variant"]),
            fmt_ms(run, c["seed_method"]) if c["seed_method"] != c["variant"]
            else "the same (Go was timed inside its program)",
            verdict_ms(run, c["variant"], c["seed_ms"])))
    return out


def decomposition_table(run):
    out = ["| gap | in Node | same styles in C (node4 backend): the style's own cost | "
           "Node's implementation (Node / C) | style's share of the gap |",
           "|---|---|---|---|---|"]
    for d in DECOMPOSITION:
        node = run.ratio([d["node"][0]], [d["node"][1]])
        c = run.ratio([d["c"][0]], [d["c"][1]])
        own = run.ratio([d["node"][0], d["c"][1]], [d["node"][1], d["c"][0]])
        share = None
        if "missing" not in node and "missing" not in c:
            share = log_share(c["value"], node["value"])
        if share is not None:
            share_text = "%.0f%%" % max(0.0, min(100.0, share))
        elif "missing" in node or "missing" in c:
            share_text = "not measured: %s" % (node.get("missing") or c.get("missing"))
        else:
            share_text = "no gap to share out: Node's ratio is %.2fx" % node["value"]
        out.append("| %s | %s | %s | %s | %s |" % (
            d["gap"], fmt_ratio(node), fmt_ratio(c), fmt_ratio(own), share_text))
    return out


def split_table(run):
    out = ["| gap in Node | total | style alone: await on promisified `fs.readFile` / callbacks | "
           "backend alone: `fs.promises.readFile` / promisified `fs.readFile`, both awaited |",
           "|---|---|---|---|"]
    for d in DECOMPOSITION:
        if "style_in_node" not in d:
            continue
        out.append("| %s | %s | %s | %s |" % (
            d["gap"], fmt_ratio(run.ratio([d["node"][0]], [d["node"][1]])),
            fmt_ratio(run.ratio([d["style_in_node"][0]], [d["style_in_node"][1]])),
            fmt_ratio(run.ratio([d["backend_in_node"][0]], [d["backend_in_node"][1]]))))
    return out


def markdown(summary, run_dir=None):
    """The reproduction section of REPORT.md for one run (see the module doc).
    summary is the summary.json dict; run_dir the run folder, whose samples.csv
    gives round-paired ratios with confidence intervals."""
    run = Run(summary, run_dir)
    info = run.info
    n = info.get("iterations")
    out = ["## Seed 000 reproduced", ""]
    out.append(
        "Seed 000 read a 12-byte file %s times per variant with %s, timing each Node "
        "variant as one whole `node --test <file>` process and Go inside its program. "
        "This run: profile `%s`, N = %s, %s rounds%s, on %s (Node %s, Go %s)." % (
            format(SEED_ITERATIONS, ","), SEED_HOST, info.get("profile", "?"),
            format(n, ",") if isinstance(n, int) else "?", info.get("rounds", "?"),
            "" if info.get("complete", True) else " (**incomplete**: it was interrupted)",
            run.host.get("cpu_model") or run.host.get("slug") or "this host",
            run.host.get("node") or "absent", (run.host.get("go") or "absent").replace("go version ", "")))
    out.append("")
    out.append(
        "Each ratio is the slower variant's elapsed time over the faster one's, so it "
        "reads like the claim. Claims 1-3 are about Node alone; 4 and 5 compare Node with "
        "Go; 6 is Go's absolute time and 7 Node's. *In-process timing* is the suite's "
        "method (the clock runs from the first read to the last verified completion); "
        "the *seed's method* column times the `node/*-nodetest-*` variants, whole "
        "`node --test` processes (start-up, module loading and the test runner included: "
        "see node/README.md), and is measured only in the `seed` and `full` profiles. "
        "Brackets are 95%% confidence intervals of the median %s." % (
            "of round-paired ratios" if run.times is not None
            else "(none here: %s, so ratios are of medians)" % run.samples_note))
    if isinstance(n, int) and n != SEED_ITERATIONS:
        out.append("")
        out.append("With N = %s instead of %s, fixed costs weigh more in every ratio: read "
                   "the verdicts as this run's, not as a check of the seed's conditions."
                   % (format(n, ","), format(SEED_ITERATIONS, ",")))
    out.append("")
    out += claims_table(run)
    out += ["", "### Where the gaps come from", ""]
    out.append(
        "The same pair of styles in C on libuv with the `node4` backend (open, fstat, read "
        "and close as four threadpool requests, as `fs.readFile` does) shows what the style "
        "itself costs when implemented cheaply. *Node's implementation* is the Node ratio "
        "divided by the C ratio, paired round by round: 1.00x would mean the whole gap is "
        "the style's own cost. The style's share is ln(C ratio) / ln(Node ratio), the part "
        "of the gap, on a log scale, that remains in C.")
    out.append("")
    out += decomposition_table(run)
    out += ["", "Inside Node, the await gaps split into the promise and await machinery "
            "(the same `fs.readFile` behind `util.promisify`) and the backend "
            "(`fs.promises.readFile`, which goes through a `FileHandle` and more JavaScript "
            "per read than `fs.readFile`); the two parts multiply to the total.", ""]
    out += split_table(run)
    out.append("")
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
