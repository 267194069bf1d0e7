"""verdicts.py -- the answer to "does the style cost anything?", per workload:
every style against the baseline of its own language (C against C callbacks,
Node against Node callbacks, Go against Go's baseline), from the summary rows
alone.

headline(rows) is the list summary.json keeps under "headline" (one entry per
variant that has a same-language baseline, the baseline itself included with
is_baseline true), read by the headline chart.  Two sets of sentences are made
from the same entries, in the manner of hyperfine's "X ran 1.23 ± 0.04 times
faster than Y", with the paired 95% interval in brackets and the difference
per operation:

- sentences(rows), the short verdicts read at a glance (the end of a run's
  output, REPORT.md's findings, docs/results.md): per workload an entry per
  language, or per backend for a language compared on several backends (C's
  readfile), the backends where no style differs resolvably in one entry.
  An entry names the largest differences with their intervals and gives the
  rest as the range of their ratios and differences, then how many styles are
  not resolvably different and the resolution of those comparisons: a
  sentence a part, each short (runner/core/prose.py).
- full_sentences(rows), every comparison one by one: an entry per mode of
  each workload naming each style and its baseline, a sentence a style or a
  group of them (REPORT.md's All verdicts; summary.json's "all_verdicts").

A difference is named only when it is significant (the paired interval
excludes 1 and its sign test survives the false discovery rate control over
the run's comparisons, summary.control_fdr).  A style whose interval excludes
1 but whose test does not survive is "held back": the sentence gives the
largest of them, the rounds and the family, and how many rounds would name a
difference seen in every round (stats.rounds_to_survive).  The other styles
are "not resolvably different", with the largest half-width of their
differences per operation (the smallest difference this run could have
resolved); with too few rounds for a test the sentence says so.
"""
from ..core import fmt
from . import summary as sm
from . import tables
from ..core.ratios import lang_of

# The fields a headline entry copies from its summary row.
ENTRY_FIELDS = ("workload", "mode", "lang", "style", "shape", "method", "backend", "variant",
                "label", "unit", "iterations", "per_op_ns")
# The fields it takes from the same-language ratio (named without the prefix).
ENTRY_RATIO_FIELDS = ("baseline", "baseline_label", "ratio", "ratio_ci_low", "ratio_ci_high",
                      "p_value", "significant", "rounds_paired", "diff_per_op_ns",
                      "diff_per_op_ns_ci_low", "diff_per_op_ns_ci_high", "q_value", "pairing")


def _runtime_order(key):
    """Sort key of a language or lang@version: by name, then versions in release order."""
    lang, _, version = key.partition("@")
    return (lang, tuple(int(p) for p in version.split(".")) if version else ())


def same_language_prefix(row):
    """The ratio prefix ("lang_" or "") whose baseline is of the row's own
    language, or None when neither is."""
    for _, prefix in reversed(sm.BASELINE_KEYS):
        if lang_of(row.get(prefix + "baseline")) == row["lang"]:
            return prefix
    return None


def headline(rows):
    """Every variant against its same-language baseline, in table order."""
    out = []
    for r in rows:
        prefix = same_language_prefix(r)
        if prefix is None:
            continue
        e = {k: r.get(k) for k in ENTRY_FIELDS}
        # A pinned version's variants are compared among themselves (runtimes
        # profile): their language is grouped per version.
        if r.get("runtime"):
            e["lang"] = "%s@%s" % (r["lang"], r["runtime"])
        e.update({k: r.get(prefix + k) for k in ENTRY_RATIO_FIELDS})
        e["is_baseline"] = r["variant"] == e["baseline"]
        out.append(e)
    return out


def _name(e, backends):
    """A variant's short name in a sentence: style[-shape], with @backend when
    the group mixes backends."""
    name = e["style"] + ("-" + e["shape"] if e.get("shape") else "")
    return "`%s@%s`" % (name, e["backend"]) if len(backends) > 1 else "`%s`" % name


def _x(v):
    return "%.1f" % v if v >= 10 else "%.2f" % v


def _size(e):
    """How far an entry's ratio is from 1, slower or faster alike."""
    return max(e["ratio"], 1 / e["ratio"])


def _held(entries):
    """The entries whose interval excludes 1 but whose test did not survive the
    false discovery rate control, largest first."""
    held = [e for e in entries if e["significant"] is False and sm.excludes_one(e)]
    return sorted(held, key=_size, reverse=True)


def _same(entries):
    """The entries whose interval includes 1."""
    return [e for e in entries if e["significant"] is False and not sm.excludes_one(e)]


def _rounds(es):
    ks = sorted({e["rounds_paired"] or 0 for e in es})
    return "%d" % ks[0] if len(ks) == 1 else "%d-%d" % (ks[0], ks[-1])


def _held_why(es, family):
    """Why the held-back entries es are not named, and what would name them."""
    if any(e.get("pairing") == "lockstep" for e in es):
        return ("at %s lockstep sessions %s not survive the false discovery rate control "
                "over the run's %d comparisons (q > 0.05), so %s named" % (
                    _rounds(es), "its test does" if len(es) == 1 else "their tests do",
                    family, "it is not" if len(es) == 1 else "none is"))
    return ("at %s paired rounds %s not survive the false discovery rate control over "
            "the run's %d comparisons (q > 0.05), so %s named. At %d rounds a "
            "difference seen in every round would be named" % (
                _rounds(es), "its sign test does" if len(es) == 1 else "their sign tests do",
                family, "it is not" if len(es) == 1 else "none is",
                sm.stats.rounds_to_survive(family)))


def _and(items):
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _diff(e, div, uname, unit, with_ci=True):
    d = e["diff_per_op_ns"]
    if d is None:
        return ""
    text = "%s %s" % (fmt.signed(d / div), uname)
    if with_ci and e["diff_per_op_ns_ci_low"] is not None:
        text += " [%s, %s]" % (tables.fmt_op(e["diff_per_op_ns_ci_low"], div),
                               tables.fmt_op(e["diff_per_op_ns_ci_high"], div))
    return text + " per " + unit


def _listing(names, verb, what, most=10):
    """Names in sentences of at most `most` names each (each sentence short):
    '`a` and `b` are not resolvably different (what).', or for more names
    '12 styles are not resolvably different (what). They are `a`, ... and `j`.
    So are `k` and `l`.'"""
    one = len(names) == 1
    if len(names) <= most:
        return ["%s %s %s%s" % (_and(names), "is" if one else "are", verb,
                                " (%s)" % what if what else "")]
    out = ["%d styles are %s%s" % (len(names), verb, " (%s)" % what if what else "")]
    for i in range(0, len(names), most):
        out.append("%s %s" % ("They are" if i == 0 else "So are", _and(names[i:i + most])))
    return out


def _clause(base_label, entries, div, uname, unit, family):
    """What one language's styles cost against its baseline, in one mode: the
    first sentence 'against <base>: ...', then a sentence a part."""
    backends = {e["backend"] for e in entries} | {entries[0]["baseline"].rsplit("@", 1)[-1]}
    parts = []
    for e in entries:
        if not e["significant"]:
            continue
        lo, hi, m = e["ratio_ci_low"], e["ratio_ci_high"], e["ratio"]
        if m >= 1:
            parts.append("%s ran %sx [%s, %s] slower (%s)" % (
                _name(e, backends), _x(m), _x(lo), _x(hi), _diff(e, div, uname, unit)))
        else:
            parts.append("%s ran %sx [%s, %s] faster (%s)" % (
                _name(e, backends), _x(1 / m), _x(1 / hi), _x(1 / lo),
                _diff(e, div, uname, unit)))
    held = _held(entries)
    if held:
        direction = ("slower" if all(e["ratio"] >= 1 for e in held)
                     else "faster" if all(e["ratio"] < 1 for e in held) else "slower or faster")
        names = ["%s %s" % (_name(e, backends), _ratio(e)) for e in held]
        if len(held) <= 10:
            parts.append("%s %s an interval that excludes 1 (%s)" % (
                _and(names), "has" if len(held) == 1 else "each have", direction))
        else:
            parts += _listing(names, "held back", "each interval excludes 1, %s" % direction)
        parts += [_cap(p) for p in _held_why(held, family).split(". ")]
    same = _same(entries)
    if same:
        lo = min(e["ratio_ci_low"] for e in same)
        hi = max(e["ratio_ci_high"] for e in same)
        halves = [(e["diff_per_op_ns_ci_high"] - e["diff_per_op_ns_ci_low"]) / 2 for e in same
                  if e["diff_per_op_ns_ci_low"] is not None]
        res = (", differences under about %s %s per %s not resolvable"
               % (fmt.num(max(halves) / div), uname, unit)) if halves else ""
        parts += _listing([_name(e, backends) for e in same], "not resolvably different",
                          "intervals %.2fx to %.2fx%s" % (lo, hi, res))
    untested = [e for e in entries if e["significant"] is None]
    if untested:
        k = max(e["rounds_paired"] or 0 for e in untested)
        parts += _listing(["%s %.2fx" % (_name(e, backends), e["ratio"]) for e in untested],
                          "untested", "%d paired round%s: a test needs %d" % (
                              k, "" if k == 1 else "s", sm.stats.min_samples_for_ci()))
    return " ".join(["against %s: %s." % (base_label, parts[0])]
                    + ["%s." % _cap(p) for p in parts[1:]])


def full_workload_sentences(rows, workload):
    """Every comparison of one workload: a sentence per mode naming each style."""
    entries = compared(rows, workload)
    wrows = [r for r in rows if r["workload"] == workload]
    div, uname = tables.op_scale(wrows)
    unit = tables.unit_of(wrows)
    out = []
    modes = [m for m in sm.MODES if any(e["mode"] == m for e in entries)]
    modes += sorted({e["mode"] for e in entries} - set(modes))
    for mode in modes:
        clauses = []
        for lang in _langs(entries):
            group = [e for e in entries if e["mode"] == mode and e["lang"] == lang]
            by_base = {}
            for e in group:
                by_base.setdefault((e["baseline"], e["baseline_label"]), []).append(e)
            for (base, label), es in by_base.items():
                # Several baselines of one language in one mode (a baseline per
                # backend or shape): each is named by its variant.
                if len(by_base) > 1:
                    label = "%s (`%s`)" % (label, base.split("/", 2)[-1])
                clauses.append(_clause(label, es, div, uname, unit, sm.family_size(rows)))
        out.append("In %s mode, %s" % (
            mode, " ".join([clauses[0]] + [_cap(c) for c in clauses[1:]])))
    return out


def full_sentences(rows):
    """[(workload, [sentence, ...])]: every comparison, a sentence per mode."""
    return sentences(rows, full=True)


def compared(rows, workload):
    """The headline entries of one workload that compare a style with its baseline."""
    return [e for e in headline(rows) if e["workload"] == workload
            and e["method"] == "inprocess" and not e["is_baseline"]
            and e["ratio"] is not None]


def _backend_of(vid):
    return vid.rsplit("@", 1)[-1] if "@" in vid else None


def _langs(entries):
    return list(sm.LANGS) + sorted({e["lang"] for e in entries} - set(sm.LANGS), key=_runtime_order)


def _sections(entries):
    """[(backends, entries)] in sentence order: one per language; a language
    whose baselines run on several backends gets one per backend where a style
    differs resolvably (those where a style is slower first), and one for all
    its backends where none does (backends then names them)."""
    out = []
    for lang in _langs(entries):
        group = [e for e in entries if e["lang"] == lang]
        if not group:
            continue
        bases = []
        for e in group:
            b = _backend_of(e["baseline"])
            if b not in bases:
                bases.append(b)
        if len(bases) < 2:
            out.append(([], group))
            continue
        by = {b: [e for e in group if _backend_of(e["baseline"]) == b] for b in bases}
        slower = [b for b in bases if any(e["significant"] and e["ratio"] >= 1 for e in by[b])]
        other = [b for b in bases if b not in slower
                 and any(e["significant"] is not False for e in by[b])]
        out += [([b], by[b]) for b in slower + other]
        quiet = [b for b in bases if b not in slower + other]
        if quiet:
            out.append((quiet, [e for b in quiet for e in by[b]]))
    return out


def _ratio(e):
    """'12.5x [12.1, 12.6]': the ratio over the baseline, or its inverse when faster."""
    lo, hi, m = e["ratio_ci_low"], e["ratio_ci_high"], e["ratio"]
    if m >= 1:
        return "%sx [%s, %s]" % (_x(m), _x(lo), _x(hi))
    return "%sx [%s, %s]" % (_x(1 / m), _x(1 / hi), _x(1 / lo))


def _signed(v, div):
    return fmt.signed(v / div)


def _listed(es, word, base, name, div, uname, unit, most=3):
    """The significant entries es (all slower or all faster), largest first:
    up to `most` named with ratio, interval and difference per operation, the
    rest as the range of their ratios and differences."""
    es = sorted(es, key=_size, reverse=True)
    shown = es if len(es) <= most else es[:most - 1]
    items = []
    for i, e in enumerate(shown):
        d = e["diff_per_op_ns"]
        if i == 0:
            items.append("%s ran %s %s%s%s" % (
                name(e), _ratio(e), word, " than " + base if base else "",
                " (%s %s per %s)" % (_signed(d, div), uname, unit) if d is not None else ""))
        else:
            items.append("%s %s%s" % (name(e), _ratio(e), " (%s %s)" % (_signed(d, div), uname)
                                      if d is not None else ""))
    rest = es[len(shown):]
    if rest:
        ms = [_size(e) for e in rest]
        ds = [e["diff_per_op_ns"] for e in rest if e["diff_per_op_ns"] is not None]
        items.append("%d more from %sx to %sx%s" % (
            len(rest), _x(min(ms)), _x(max(ms)),
            " (%s to %s %s)" % (_signed(min(ds, key=abs), div), _signed(max(ds, key=abs), div),
                                uname) if ds else ""))
    return _and(items)


def _group(entries):
    """(the baselines' labels joined by "or", a function naming an entry in
    the group, the significantly slower entries, the significantly faster)."""
    labels = []
    for e in entries:
        if e["baseline_label"] not in labels:
            labels.append(e["baseline_label"])
    names = {e["backend"] for e in entries} | {_backend_of(e["baseline"]) for e in entries}
    modes = {e["mode"] for e in entries}

    def name(e):
        n = _name(e, names)
        return n + " (%s)" % e["mode"] if len(modes) > 1 else n

    return (" or ".join(labels), name,
            [e for e in entries if e["significant"] and e["ratio"] >= 1],
            [e for e in entries if e["significant"] and e["ratio"] < 1])


def _short(backends, entries, div, uname, unit, family):
    """One sentence: the entries of one language (on the given backends)."""
    base, name, slower, faster = _group(entries)
    parts = []
    if slower:
        parts.append(_listed(slower, "slower", base, name, div, uname, unit))
    if faster:
        parts.append(_listed(faster, "faster", None if slower else base, name, div, uname, unit))
    held = _held(entries)
    if held:
        top = held[0]
        d = top["diff_per_op_ns"]
        word = "slower" if top["ratio"] >= 1 else "faster"
        diff = " (%s %s per %s)" % (_signed(d, div), uname, unit) if d is not None else ""
        if len(held) == 1:
            what = "%s ran %s %s%s%s" % (name(top), _ratio(top), word,
                                         "" if parts else " than " + base, diff)
        else:
            what = "%d %sstyles' intervals exclude 1%s, the largest %s %s %s%s" % (
                len(held), "other " if parts else "", "" if parts else " against " + base,
                name(top), _ratio(top), word, diff)
        parts.append("%s. %s" % (what, _cap(_held_why(held, family))))
    same = _same(entries)
    if same:
        halves = [(e["diff_per_op_ns_ci_high"] - e["diff_per_op_ns_ci_low"]) / 2 for e in same
                  if e["diff_per_op_ns_ci_low"] is not None]
        # The resolution: the largest half-width of their differences per operation.
        res = ("differences under about %s %s per %s not resolvable"
               % (fmt.num(max(halves) / div), uname, unit)) if halves else ""
        against = "" if parts else " from " + base
        if len(same) <= 3:
            parts.append("%s %s not resolvably different%s%s" % (
                _and([name(e) for e in same]), "is" if len(same) == 1 else "are", against,
                " (%s)" % res if res else ""))
        elif parts:
            parts.append("%d others are not resolvably different%s" % (
                len(same), " (%s)" % res if res else ""))
        else:
            parts.append("no style is resolvably different%s (%d comparisons%s)" % (
                against, len(same), "; " + res if res else ""))
    untested = [e for e in entries if e["significant"] is None]
    if untested:
        k = max(e["rounds_paired"] or 0 for e in untested)
        what = (_and(["%s %.2fx" % (name(e), e["ratio"]) for e in untested])
                if len(untested) <= 3 else "%d styles" % len(untested))
        parts.append("%s%s untested (%d paired round%s: a test needs %d)" % (
            what, "" if parts else " against %s," % base, k, "" if k == 1 else "s",
            sm.stats.min_samples_for_ci()))
    if backends and backends != [None]:
        parts[0] = "On %s, %s" % (_and(["`%s`" % b for b in backends]), parts[0])
    # A sentence a part, to keep each short (at most 25 words, runner/core/prose.py).
    return " ".join(_cap(p) + "." for p in parts)


def _cap(text):
    """text with its first letter a capital (a name in backticks stays as it is)."""
    return text[0].upper() + text[1:] if text else text


def workload_sentences(rows, workload):
    """The short verdicts of one workload: a sentence per language, or per
    backend for a language compared on several."""
    entries = compared(rows, workload)
    wrows = [r for r in rows if r["workload"] == workload]
    div, uname = tables.op_scale(wrows)
    unit = tables.unit_of(wrows)
    family = sm.family_size(rows)
    return [_short(b, es, div, uname, unit, family) for b, es in _sections(entries)]


def sentences(rows, full=False):
    """[(workload, [sentence, ...])]: the short verdicts of every workload with a
    comparison, or with full=True every comparison, a sentence per mode."""
    of_workload = full_workload_sentences if full else workload_sentences
    out = []
    for w in sorted({r["workload"] for r in rows}):
        s = of_workload(rows, w)
        if s:
            out.append((w, s))
    return out


def text(rows, full=False):
    """The verdicts as plain text: a line per workload, its sentences after it."""
    lines = []
    for w, ss in sentences(rows, full):
        n = next(r["iterations"] for r in rows if r["workload"] == w)
        unit = tables.unit_of([r for r in rows if r["workload"] == w])
        lines.append("%s (N = %s, each style against its own language's baseline, per %s):"
                     % (w, format(n, ","), unit))
        lines += ["  " + s for s in ss]
    return "\n".join(lines)


def markdown(rows, full=False):
    """The verdicts as Markdown: per workload a line naming it, a bullet per sentence."""
    out = []
    for w, ss in sentences(rows, full):
        wrows = [r for r in rows if r["workload"] == w]
        out += ["**%s** (N = %s, time per %s):" % (w, format(wrows[0]["iterations"], ","),
                                                   tables.unit_of(wrows)), ""]
        out += ["- " + s for s in ss] + [""]
    return out


def glance(rows):
    """The answer at a glance, in Markdown: per workload a bullet naming it, and
    under it a sentence per language: against its baseline, how many of its
    styles are resolvably slower (and faster), and the largest with its
    interval; a language where none differs gives the resolution instead
    (docs/results.md; the sentences are there too, every comparison in
    REPORT.md)."""
    out = []
    for w in sorted({r["workload"] for r in rows}):
        entries = compared(rows, w)
        if not entries:
            continue
        wrows = [r for r in rows if r["workload"] == w]
        div, uname = tables.op_scale(wrows)
        unit = tables.unit_of(wrows)
        out.append("- **%s** (N = %s, per %s):" % (w, format(wrows[0]["iterations"], ","), unit))
        for lang in _langs(entries):
            group = [e for e in entries if e["lang"] == lang]
            if not group:
                continue
            base, name, slower, faster = _group(group)
            styles = "%d style%s" % (len(group), "" if len(group) == 1 else "s")
            held = _held(group)
            if slower:
                top = max(slower, key=lambda e: e["ratio"])
                text = "Against %s, %d of %s resolvably slower, at most %s %s." % (
                    base, len(slower), styles, name(top), _ratio(top))
            elif not faster and held:
                text = ("Against %s, none of %s named. %d %s an interval that excludes 1, at "
                        "most %s %s. %s not survive the false discovery rate control at %s "
                        "paired rounds." % (
                            base, styles, len(held), "has" if len(held) == 1 else "have",
                            name(held[0]), _ratio(held[0]),
                            "It does" if len(held) == 1 else "They do", _rounds(held)))
            elif not faster:
                halves = [(e["diff_per_op_ns_ci_high"] - e["diff_per_op_ns_ci_low"]) / 2
                          for e in group if e["diff_per_op_ns_ci_low"] is not None]
                text = "Against %s, none of %s resolvably different%s." % (
                    base, styles, " (under about %s %s per %s)" % (
                        fmt.num(max(halves) / div), uname, unit) if halves else "")
            else:
                text = "Against %s, none of %s resolvably slower." % (base, styles)
            if faster:
                top = max(faster, key=lambda e: 1 / e["ratio"])
                text += " %d %s faster, at most %s %s." % (
                    len(faster), "is" if len(faster) == 1 else "are", name(top), _ratio(top))
            out.append("  - " + text)
    return out
