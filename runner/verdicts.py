"""verdicts.py -- the answer to "does the style cost anything?", per workload and
mode: every style against the baseline of its own language (C against C
callbacks, Node against Node callbacks, Go against Go's baseline), from the
summary rows alone.

headline(rows) is the list summary.json keeps under "headline" (one entry per
variant that has a same-language baseline, the baseline itself included with
is_baseline true), read by the headline chart.  sentences(rows) turns the same
entries into one sentence per mode of each workload, in the manner of
hyperfine's "X ran 1.23 ± 0.04 times faster than Y", with the paired 95%
interval in brackets and the difference per operation; the terminal output,
REPORT.md and the README all print these sentences.

A difference is named only when it is significant (the paired interval
excludes 1); styles whose interval includes 1 are "not resolvably different",
with the range their intervals span and the largest half-width of their
differences per operation (the smallest difference this run could have
resolved); with too few rounds for a test the sentence says so.
"""
import summary as sm

# The fields a headline entry copies from its summary row.
ENTRY_FIELDS = ("workload", "mode", "lang", "style", "shape", "method", "backend", "variant",
                "label", "unit", "iterations", "per_op_ns")
# The fields it takes from the same-language ratio (named without the prefix).
ENTRY_RATIO_FIELDS = ("baseline", "baseline_label", "ratio", "ratio_ci_low", "ratio_ci_high",
                      "p_value", "significant", "rounds_paired", "diff_per_op_ns",
                      "diff_per_op_ns_ci_low", "diff_per_op_ns_ci_high")


def lang_of(vid):
    """The language field of a variant id (workload/lang/...), or None."""
    parts = (vid or "").split("/")
    return parts[1] if len(parts) > 2 else None


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


def _and(items):
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _diff(e, div, uname, unit, with_ci=True):
    d = e["diff_per_op_ns"]
    if d is None:
        return ""
    text = "%s%s %s" % ("+" if d > 0 else "", sm.fmt_num(d / div), uname)
    if with_ci and e["diff_per_op_ns_ci_low"] is not None:
        text += " [%s, %s]" % (sm.fmt_op(e["diff_per_op_ns_ci_low"], div),
                               sm.fmt_op(e["diff_per_op_ns_ci_high"], div))
    return text + " per " + unit


def _clause(base_label, entries, div, uname, unit):
    """What one language's styles cost against its baseline, in one mode."""
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
    same = [e for e in entries if e["significant"] is False]
    if same:
        lo = min(e["ratio_ci_low"] for e in same)
        hi = max(e["ratio_ci_high"] for e in same)
        halves = [(e["diff_per_op_ns_ci_high"] - e["diff_per_op_ns_ci_low"]) / 2 for e in same
                  if e["diff_per_op_ns_ci_low"] is not None]
        res = (", differences under about %s %s per %s not resolvable"
               % (sm.fmt_num(max(halves) / div), uname, unit)) if halves else ""
        parts.append("%s %s not resolvably different (intervals %.2fx to %.2fx%s)" % (
            _and([_name(e, backends) for e in same]), "is" if len(same) == 1 else "are",
            lo, hi, res))
    untested = [e for e in entries if e["significant"] is None]
    if untested:
        k = max(e["rounds_paired"] or 0 for e in untested)
        parts.append("%s untested (%d paired round%s: a test needs %d)" % (
            _and(["%s %.2fx" % (_name(e, backends), e["ratio"]) for e in untested]),
            k, "" if k == 1 else "s", sm.stats.min_samples_for_ci()))
    return "against %s: %s" % (base_label, _and(parts) if len(parts) < 3 else "; ".join(parts))


def workload_sentences(rows, workload):
    """The sentences of one workload: one per mode that has a style to compare."""
    entries = [e for e in headline(rows) if e["workload"] == workload
               and e["method"] == "inprocess" and not e["is_baseline"]
               and e["ratio"] is not None]
    wrows = [r for r in rows if r["workload"] == workload]
    div, uname = sm.op_scale(wrows)
    unit = sm.unit_of(wrows)
    out = []
    modes = [m for m in sm.MODES if any(e["mode"] == m for e in entries)]
    modes += sorted({e["mode"] for e in entries} - set(modes))
    for mode in modes:
        clauses = []
        for lang in sm.LANGS + tuple(sorted({e["lang"] for e in entries} - set(sm.LANGS))):
            group = [e for e in entries if e["mode"] == mode and e["lang"] == lang]
            by_base = {}
            for e in group:
                by_base.setdefault((e["baseline"], e["baseline_label"]), []).append(e)
            for (base, label), es in by_base.items():
                # Several baselines of one language in one mode (a baseline per
                # backend or shape): each is named by its variant.
                if len(by_base) > 1:
                    label = "%s (`%s`)" % (label, base.split("/", 2)[-1])
                clauses.append(_clause(label, es, div, uname, unit))
        out.append("In %s mode, %s." % (mode, "; ".join(clauses)))
    return out


def sentences(rows):
    """[(workload, [sentence, ...])] for every workload with a comparison."""
    out = []
    for w in sorted({r["workload"] for r in rows}):
        s = workload_sentences(rows, w)
        if s:
            out.append((w, s))
    return out


def text(rows):
    """The verdicts as plain text: a line per workload, its sentences after it."""
    lines = []
    for w, ss in sentences(rows):
        n = next(r["iterations"] for r in rows if r["workload"] == w)
        unit = sm.unit_of([r for r in rows if r["workload"] == w])
        lines.append("%s (N = %s, each style against its own language's baseline, per %s):"
                     % (w, format(n, ","), unit))
        lines += ["  " + s for s in ss]
    return "\n".join(lines)


def markdown(rows):
    """The verdicts as Markdown: per workload a line naming it, a bullet per sentence."""
    out = []
    for w, ss in sentences(rows):
        wrows = [r for r in rows if r["workload"] == w]
        out += ["**%s** (N = %s, time per %s):" % (w, format(wrows[0]["iterations"], ","),
                                                   sm.unit_of(wrows)), ""]
        out += ["- " + s for s in ss] + [""]
    return out
