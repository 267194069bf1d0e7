"""byversion.py -- the seeds' claims on each runtime version (DESIGN section 11).

A run of the runtimes profile measures every Node and Go variant a seed's
claim names, with its own language's baseline, once more on each version of
suite.json's runtimes, the version in the id (readfile/node@10.24.1/...).
For each workload whose claims have such variants, REPORT.md gets:

- a table per seed: claim | the seed's figure (its runtime and host) | the
  seed's runtime here | today's runtime here, each cell a ratio with its 95%
  interval and the verdict its interval supports;
- the claim on every version, in release order (the chart runtimes-<w>.png
  draws the same figures);
- for docs/results.md, a sentence for each claim whose verdict changes
  from one version to another (the README's answer counts them).

The seed's runtime is the claims' "runtimes" ({lang: version}: the pinned
version that stands for the one the seed measured); today's is the newest
version of each language that has rows in the run.  Only ratio claims whose
variants are all of versioned languages are compared (a claim with a C side
is about C, which has no versions: it is in the default run).  On the
version axis the claim's first variant's language varies; another language
in the claim (readfile's Node against Go) stays at the seed's version, or at
today's when the seed names none.  Ratios are round-paired and tested as in
reproduce.py, in the report's one family of tests.
"""
from ..catalog import catalog as catalog_mod
from ..core import fmt
from ..core import prose
from . import claimrun
from . import claimverdicts


def versions_in(run):
    """{lang: [versions with rows in the run, in release order]}."""
    out = {}
    for vid, row in run.rows.items():
        version = row.get("runtime") or (catalog_mod.parse_id(vid) or {}).get("runtime")
        if version:
            out.setdefault(row.get("lang") or catalog_mod.parse_id(vid)["lang"], set()).add(version)
    return {lang: sorted(vs, key=catalog_mod.version_key) for lang, vs in sorted(out.items())}


def on(cat, vid, pins):
    """The id of base variant vid on pins[its language], or None when its
    language has no version in pins."""
    v = cat.find(vid)
    if v is None or v["lang"] not in pins:
        return None
    return catalog_mod.variant_id(dict(v, runtime=pins[v["lang"]]))


def compared(cat, claims, langs):
    """The ratio claims whose variants are all of languages in langs."""
    out = []
    for c in claims.get("ratios", []):
        vs = [cat.find(c["num"]), cat.find(c["den"])]
        if all(v is not None and v["lang"] in langs for v in vs):
            out.append(c)
    return out


def seed_pins(claims):
    """The claims' pinned versions of the seed's runtime: {lang: version}."""
    return {k: v for k, v in (claims.get("runtimes") or {}).items() if k != "about"}


def today_pins(versions):
    return {lang: vs[-1] for lang, vs in versions.items() if vs}


def ratio_on(run, c, pins):
    """The claim's ratio with every variant on pins, or {"missing": why}."""
    cat = run.catalog
    num, den = on(cat, c["num"], pins), on(cat, c["den"], pins)
    if num is None or den is None:
        return {"missing": "no version pinned for %s" % ", ".join(
            sorted({cat.find(x)["lang"] for x in (c["num"], c["den"])} - set(pins)))}
    return run.ratio([num], [den])


def axis(cat, c, versions, seed, today):
    """[(version of the varying language, pins)] for the claim's row of the
    table of every version: the first variant's language varies, the others
    stay at the seed's version (today's when the seed names none)."""
    lang = cat.find(c["num"])["lang"]
    fixed = dict(today)
    fixed.update(seed)
    return lang, [(ver, dict(fixed, **{lang: ver})) for ver in versions.get(lang, [])]


def short_verdict(r, seed, q=None):
    """The verdict of a ratio in a few words (claimverdicts.verdict_ratio's head)."""
    if "missing" in r:
        return "not measured"
    if r["low"] is None:
        return "no CI"
    if r["low"] <= 1 <= r["high"]:
        return "no difference"
    if claimverdicts.lost(q):
        return "not significant (FDR)"
    if r["high"] < 1:
        return "reversed"
    if seed is None or r["low"] <= seed <= r["high"]:
        return "holds"
    return "direction holds, %s" % ("smaller" if r["high"] < seed else "larger")


SKIPPED = " was skipped: "


def cell(run, r, seed, notes):
    """A cell of the seed's table: the ratio, its CI and verdict, or why it is
    missing; a skip's reason, the same for every claim of a version, goes once
    into notes (a list of reasons) and the cell names its note."""
    if "missing" in r:
        if SKIPPED not in r["missing"]:
            return "not measured: %s" % r["missing"]
        reason = r["missing"].split(SKIPPED, 1)[1]
        if reason not in notes:
            notes.append(reason)
        return "skipped (note %d)" % (notes.index(reason) + 1)
    return "%s, %s" % (claimverdicts.fmt_ratio(r), short_verdict(r, seed, run.q_of(r)))


def short_cell(run, r, seed):
    """A cell of the table of every version: 22.10x [21.50, 23.00], its verdict
    (the figures as the seed's table gives them)."""
    if "missing" in r:
        return "skipped" if SKIPPED in r["missing"] else "not measured"
    if r["low"] is None:
        return "%.2fx, no CI" % r["value"]
    return "%.2fx [%.2f, %.2f], %s" % (r["value"], r["low"], r["high"],
                                        short_verdict(r, seed, run.q_of(r)))


def pins_text(pins):
    return ", ".join("%s %s" % ({"node": "Node", "go": "Go"}.get(lang, lang), ver)
                     for lang, ver in sorted(pins.items())) or "none pinned"


def seed_figure(c):
    if c["seed"] is None:
        return "faster"
    return fmt.seed_ratio(c["seed"])


def section(run, workload, claims):
    """The Markdown lines of one workload's claims per version, [] when the
    run has none of its versioned variants."""
    cat = run.catalog
    if run.info.get("profile") == catalog_mod.SEED_PROFILE:
        return []   # its versioned variants are ladders' rungs (runner/analysis/ladder.py)
    versions = versions_in(run)
    rows = compared(cat, claims, versions)
    if not rows or not any(catalog_mod.parse_id(v)["workload"] == workload
                           for v in run.rows if (catalog_mod.parse_id(v) or {}).get("runtime")):
        return []
    langs = {cat.find(c[k])["lang"] for c in rows for k in ("num", "den")}
    seed = {k: v for k, v in seed_pins(claims).items() if k in langs}
    today = {k: v for k, v in today_pins(versions).items() if k in langs}
    out = ["## %s: on each runtime version" % claims["title"], ""]
    about = (claims.get("runtimes") or {}).get("about")
    out.append("Seed %s measured on %s. Here the seed's runtime is %s%s. Today's is the newest "
               "version measured, %s. Each cell is the claim's ratio (slower over faster, as "
               "the claim puts it) with its 95%% CI. Its rounds are paired within this run, and "
               "the verdict is the one its interval supports." % (
                   claims["seed"], claims["host"], pins_text(seed) if seed else "not pinned",
                   ": %s" % prose.clauses_as_sentences(about) if about else "",
                   pins_text(today)))
    methods = any(c.get("seed_method") for c in rows)
    out += ["", "| # | claim (slower / faster) | seed's figure | seed's runtime here (%s) | "
            "today's runtime here (%s) |%s" % (
                pins_text(seed) if seed else "none", pins_text(today),
                " the seed's method, on the seed's runtime |" if methods else ""),
            "|---|---|---:|---|---|%s" % ("---|" if methods else "")]
    notes = []
    for i, c in enumerate(rows, 1):
        seed_cell = (cell(run, ratio_on(run, c, dict(today, **seed)), c["seed"], notes) if seed
                     else "not pinned: %s" % (about or "no version of the seed's runtime runs here"))
        method_cell = ""
        if methods:
            sm = c.get("seed_method")
            method_cell = (" %s |" % (cell(run, ratio_on(run, {"num": sm[0], "den": sm[1]},
                                                         dict(today, **seed)), c["seed"], notes)
                                      if seed else "not pinned")
                           if sm else " the suite's method |")
        out.append("| %d | %s: %s (`%s` / `%s`) | %s | %s | %s |%s" % (
            i, c["whose"], c["claim"], c["num"], c["den"], seed_figure(c), seed_cell,
            cell(run, ratio_on(run, c, today), c["seed"], notes), method_cell))
    if notes:
        out.append("")
        out += ["- Note %d: not measured, the variant was skipped: %s"
                % (k, prose.clauses_as_sentences(reason))
                for k, reason in enumerate(notes, 1)]
    out += ["", "Every version, in release order (%s):" % (
        "the other language of a claim stays at the seed's version" if len(versions) > 1
        else "the claim's ratio on each"), ""]
    lang, cols = axis(cat, rows[0], versions, seed, today)
    heads = [ver for ver, _ in cols]
    out.append("| # | %s |" % " | ".join(
        "%s %s%s" % ({"node": "Node", "go": "Go"}.get(lang, lang), v,
                     " (seed's)" if seed.get(lang) == v else "") for v in heads))
    out.append("|---|%s" % ("---|" * len(heads)))
    for i, c in enumerate(rows, 1):
        clang, ccols = axis(cat, c, versions, seed, today)
        if clang != lang:
            continue
        cells = [short_cell(run, ratio_on(run, c, pins), c["seed"]) for _, pins in ccols]
        out.append("| %d | %s |" % (i, " | ".join(cells)))
    out.append("")
    return out


def runs_of(seen):
    """[(verdict, "10.24.1 to 12.22.12")] of consecutive versions that share a
    verdict, in release order: a verdict that flickers shows as such."""
    out = []
    for ver, _, verdict in seen:
        if out and out[-1][0] == verdict:
            out[-1][2] = ver
        else:
            out.append([verdict, ver, ver])
    return [(v, a if a == b else "%s to %s" % (a, b)) for v, a, b in out]


def changes(run, claims):
    """[(claim, [(version, ratio dict, verdict)], sentence)] of the claims
    whose verdict differs between two versions measured with a CI."""
    cat = run.catalog
    versions = versions_in(run)
    seed, today = seed_pins(claims), today_pins(versions)
    out = []
    for c in compared(cat, claims, versions):
        lang, cols = axis(cat, c, versions, seed, today)
        seen = []
        for ver, pins in cols:
            r = ratio_on(run, c, pins)
            if "missing" in r or r["low"] is None:
                continue
            seen.append((ver, r, short_verdict(r, c["seed"], run.q_of(r))))
        if len({v for _, _, v in seen}) < 2:
            continue
        first, last = seen[0], seen[-1]
        name = {"node": "Node", "go": "Go"}.get(lang, lang)
        # In sentences of at most 25 words: the claim, its two ends, then its
        # verdicts by version, three stretches a sentence.
        stretches = ["\"%s\" on %s" % (verdict, span) for verdict, span in runs_of(seen)]
        sentence = "%s: %s (seed %s: %s). It is %s on %s %s and %s on %s %s. %s" % (
            c["whose"], c["claim"], claims["seed"], seed_figure(c),
            claimverdicts.fmt_ratio(first[1]), name, first[0],
            claimverdicts.fmt_ratio(last[1]), name, last[0],
            " ".join("%s %s." % ("By version:" if i == 0 else "Then", ", ".join(stretches[i:i + 3]))
                     for i in range(0, len(stretches), 3)))
        out.append((c, seen, sentence))
    return out


def run_changes(folder):
    """[(workload, claims, [sentence])] of a runtimes-profile run (its
    runfolder.RunFolder): changes() of every workload with claims, after its
    sections registered the run's family of tests (so verdicts read as
    REPORT.md's)."""
    cat = folder.catalog()
    run = claimrun.Run(folder.summary, folder, cat)
    names = [n for n in sorted(cat.workloads) if cat.workloads[n].get("claims")]
    for n in names:
        section(run, n, cat.workloads[n]["claims"])
    run.close_family()
    out = []
    for n in names:
        claims = cat.workloads[n]["claims"]
        found = [s for _, _, s in changes(run, claims)]
        if found:
            out.append((n, claims, found))
    return out
