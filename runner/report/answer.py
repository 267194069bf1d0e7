"""answer.py -- a run's answer at a glance: a sentence per language and a
summary table with a row per workload, from the summary rows alone.  The
README's first screen (runner/report/readme.py, from the reference run) and the top
of every REPORT.md (runner/report/report.py) show the same.

- sentences(rows): per language, in the summary's language order, how many of
  its variants (a style in a mode, on a backend) are resolvably slower (and
  faster) than its own baseline, and the dearest with its ratio, its workload
  and its difference per operation.
- table(rows): a Markdown row per workload and a column per language, each
  cell the language's cheapest and dearest style against its baseline: the
  ratio with its 95% interval in small print, and the style's time per
  operation.

Nothing here names a language: the columns are the languages the run
compared, each named by its baselines' labels (the catalog's "C plain",
"Node callback": the first word).  In a runtimes-profile run each language
is shown on its newest version measured, as the headline chart does.
"""
from ..core import fmt
from ..analysis import summary as sm
from ..analysis import verdicts


def _version_key(lang):
    """Sort key of lang or lang@version: versions in release order."""
    base, _, version = lang.partition("@")
    return tuple(int(p) if p.isdigit() else 0 for p in version.replace("-", ".").split(".")) \
        if version else ()


def _entries(rows):
    """{workload: [headline entries compared with their baseline]}."""
    return {w: verdicts.compared(rows, w) for w in sorted({r["workload"] for r in rows})}


def languages(rows):
    """[(lang key, display name)] of the languages compared in rows: the
    summary's order (sm.LANGS first, then the others by name); a language
    measured on pinned versions appears once, on its newest."""
    keys = {e["lang"] for es in _entries(rows).values() for e in es}
    newest = {}
    for k in keys:
        base = k.partition("@")[0]
        if base not in newest or _version_key(k) > _version_key(newest[base]):
            newest[base] = k
    order = [b for b in sm.LANGS if b in newest] + sorted(set(newest) - set(sm.LANGS))
    out = []
    for base in order:
        key = newest[base]
        labels = [e["baseline_label"] for es in _entries(rows).values() for e in es
                  if e["lang"] == key and e.get("baseline_label")]
        name = labels[0].split()[0] if labels else base
        version = key.partition("@")[2]
        out.append((key, "%s %s" % (name, version) if version else name))
    return out


def _labels(entries):
    out = []
    for e in entries:
        if e["baseline_label"] not in out:
            out.append(e["baseline_label"])
    return out


def _mark(e):
    return "~ " if e["significant"] is False else "? " if e["significant"] is None else ""


def _ratio(e):
    """'15.9x', '~ 1.00x': the ratio to three figures with its mark."""
    return "%s%sx" % (_mark(e), fmt.num(e["ratio"]))


def _interval(e):
    """'[13.0, 19.3]', '[3 rounds]' without one."""
    if e["ratio_ci_low"] is None or e["ratio_ci_high"] is None:
        k = e.get("rounds_paired") or 0
        return "[%d round%s]" % (k, "" if k == 1 else "s")
    return "[%s, %s]" % (fmt.num(e["ratio_ci_low"]), fmt.num(e["ratio_ci_high"]))


def _and(items):
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def sentences(rows):
    """A text per language compared in rows (sentences of at most 25 words, the
    figures not counted)."""
    entries = _entries(rows)
    out = []
    for key, name in languages(rows):
        group = [(w, e) for w, es in entries.items() for e in es if e["lang"] == key]
        slower = [(w, e) for w, e in group if e["significant"] and e["ratio"] >= 1]
        faster = [(w, e) for w, e in group if e["significant"] and e["ratio"] < 1]
        base = " or ".join(_labels([e for _, e in group]))
        if slower:
            w, top = max(slower, key=lambda we: we[1]["ratio"])
            d = top.get("diff_per_op_ns")
            text = ("In %s, %d of %d variants ran resolvably slower than %s, by up to %sx "
                    "(`%s` in %s%s)" % (
                        name, len(slower), len(group), base, fmt.num(top["ratio"]),
                        _style(top), w,
                        ", %s per %s" % (fmt.ns(d, sign=True), top["unit"]) if d is not None
                        else ""))
            if faster:
                text += ". %d ran resolvably faster" % len(faster)
        elif faster:
            w, top = min(faster, key=lambda we: we[1]["ratio"])
            text = ("In %s, none of %d variants ran resolvably slower than %s; %d ran faster, "
                    "by up to %sx (`%s` in %s)" % (name, len(group), base, len(faster),
                                                   fmt.num(1 / top["ratio"]), _style(top), w))
        else:
            text = ("In %s, none of %d variants ran resolvably slower or faster than %s"
                    % (name, len(group), base))
        out.append(text + ".")
    return out


def _style(e):
    return e["style"] + ("-" + e["shape"] if e.get("shape") else "")


def _ends(es):
    """The cheapest and the dearest of one language's entries in a workload,
    among the styles with a test (an untested ratio of one round is no
    answer), else among all; [] without entries, one when they are the same."""
    tested = [e for e in es if e["significant"] is not None] or es
    if not tested:
        return []
    lo = min(tested, key=lambda e: e["ratio"])
    hi = max(tested, key=lambda e: e["ratio"])
    return [hi] if lo is hi else [lo, hi]


def _cell(es):
    """The cheapest and the dearest of one language's entries in a workload."""
    ends = _ends(es)
    if not ends:
        return "-"
    backends = {e["backend"] for e in es} | {e["baseline"].rsplit("@", 1)[-1] for e in es}
    modes = {e["mode"] for e in es}

    def name(e):
        n = _style(e) + ("@" + e["backend"] if len(backends) > 1 else "")
        return "`%s`%s" % (n, " (%s)" % e["mode"] if len(modes) > 1 else "")

    def one(e):
        return "%s %s <sub>%s</sub> %s" % (name(e), _ratio(e), _interval(e),
                                          fmt.ns(e["per_op_ns"]) if e.get("per_op_ns") else "")

    if len(ends) == 1:
        return one(ends[0]).strip()
    return "cheapest %s<br>dearest %s" % (one(ends[0]).strip(), one(ends[1]).strip())


def table(rows):
    """The summary table: a row per workload with a comparison, a column per
    language; [] when nothing was compared."""
    langs = languages(rows)
    entries = _entries(rows)
    body = []
    for w, es in entries.items():
        if not es:
            continue
        wrows = [r for r in rows if r["workload"] == w]
        body.append("| **%s** <sub>N = %s, per %s</sub> | %s |" % (
            w, format(wrows[0]["iterations"], ","), es[0]["unit"],
            " | ".join(_cell([e for e in es if e["lang"] == key]).replace("|", "\\|")
                       for key, _ in langs)))
    if not body:
        return []
    head = ["| workload | " + " | ".join("%s (vs %s)" % (
        name, " or ".join(_labels([e for es in entries.values() for e in es
                                   if e["lang"] == key])))
        for key, name in langs) + " |",
        "|---|" + "---|" * len(langs)]
    return head + body


def legend(rows):
    """The lines under the table: what a cell holds, and the marks it uses."""
    langs = [key for key, _ in languages(rows)]
    marks = {_mark(e).strip() for es in _entries(rows).values() for key in langs
             for e in _ends([e for e in es if e["lang"] == key])}
    out = ["Each cell: a style's time over its language's baseline, the 95% interval in small "
           "print, then the style's time per operation."]
    if "~" in marks:
        out.append("`~`: not resolvably different from the baseline.")
    if "?" in marks:
        out.append("`?`: too few paired rounds for an interval or a test.")
    if any(not [e for e in es if e["lang"] == key] for es in _entries(rows).values() if es
           for key in langs):
        out.append("-: no style of that language was compared with its baseline.")
    return out


def markdown(rows):
    """The sentences (a line each), the table and its legend (a line a
    sentence), as Markdown lines of one paragraph, a table and one more
    paragraph; [] when the
    run compared no style with a baseline of its own language."""
    t = table(rows)
    if not t:
        return []
    return sentences(rows) + [""] + t + [""] + legend(rows)
