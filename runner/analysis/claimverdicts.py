"""claimverdicts.py -- what a figure of claimrun.py's Run says about a seed claim,
in words: a measured ratio, time or memory difference as a table cell (with
its CI, or why it has none), and the verdict on the claim (DESIGN section 7):
a difference is named only when its interval excludes 1 (0 for memory) and its
test survives the false discovery rate control over the report's family
(lost()); then its direction, then the claimed figure.  reproduce.py lays the
cells out in tables.
"""
from ..core import fmt
from ..core import stats


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
    if row.get("proc_peak_rss_kb") is not None:
        return row["proc_peak_rss_kb"], "peak RSS"
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
