"""stats.py -- the statistics behind every number the runner prints.

Benchmark times are skewed and have outliers, so nothing here assumes a normal
distribution, in the manner of benchstat:

- median() and median_ci(): the median with a distribution-free confidence
  interval built from order statistics.  The number of samples below the true
  median is Binomial(n, 1/2), so [x(k), x(n+1-k)] covers it with probability
  1 - 2 P(B <= k-1); we take the narrowest such interval that still reaches the
  asked confidence.  Below 6 samples no interval reaches 95%.
- paired_ratios() and ratio_ci(): a variant's time over its baseline's time,
  taken round by round (both ran in the same round, so slow drift of the
  machine cancels), then summarised by the median and its order-statistic CI.
- paired(): the verdict on a variant against its baseline from the same
  round-paired data as the ratio: the ratio's interval, the difference per
  operation with its interval, and significance.  A difference is significant
  exactly when the paired 95% interval of the ratio excludes 1; the p-value
  shown beside it is the exact two-sided sign test on the per-round ratios
  (ratios equal to 1 count on both sides), which rejects at the interval's own
  level exactly when the interval excludes 1, so a `~` and its interval can
  never disagree.  Below min_samples_for_ci() paired rounds (6) no interval
  and no test is possible: significant is None and the tables say "too few
  rounds" instead of `~`.  The signed-rank test would be more powerful but
  tests another quantity (the pseudo-median) than the interval of the median,
  and the two could disagree.
- bh_adjust(): the Benjamini-Hochberg adjusted p-values (q-values) of a
  family of tests.  A run makes many comparisons (every variant against two
  baselines, every seed claim), each tested at ALPHA; taken alone, about one
  in twenty of those with no real difference would be named anyway.  A
  difference is named only when its q-value is at most ALPHA, which holds the
  expected share of false discoveries among the named ones at ALPHA
  (Benjamini and Hochberg, 1995), whatever the number of tests.
- bound_verdict(): a measured interval against an upper bound: met only when
  the whole interval is within it, missed when the whole interval is beyond
  it, otherwise not resolvable, with the run's resolution (half the width of
  the interval) as the smallest difference it could tell.
- mann_whitney(): the two-sided Mann-Whitney U test of two unpaired samples;
  exact for small samples without ties, the normal approximation with tie and
  continuity corrections otherwise.  Kept for unpaired comparisons (two runs,
  two hosts); the tables use paired().
- mad_outliers(): samples whose modified z-score (0.6745 |x - median| / MAD)
  exceeds 3.5 (Iglewicz and Hoaglin).  They are counted, never dropped.
"""
import math

ALPHA = 0.05
CONFIDENCE = 0.95
WIDE_CI = 0.05          # warn when the CI half-width exceeds 5% of the median
OUTLIER_Z = 3.5


def median(xs):
    """The median of a non-empty sequence (mean of the two middle values when even)."""
    s = sorted(xs)
    n = len(s)
    if n == 0:
        raise ValueError("median of no samples")
    mid = n // 2
    return float(s[mid]) if n % 2 else (s[mid - 1] + s[mid]) / 2.0


def _binom_cdf_half(k, n):
    """P(B <= k) for B ~ Binomial(n, 1/2)."""
    if k < 0:
        return 0.0
    return sum(math.comb(n, i) for i in range(0, min(k, n) + 1)) / 2.0 ** n


def min_samples_for_ci(confidence=CONFIDENCE):
    """The smallest n whose widest order-statistic interval reaches `confidence`."""
    n = 1
    while 1 - 2 * _binom_cdf_half(0, n) < confidence:
        n += 1
    return n


def median_ci(xs, confidence=CONFIDENCE):
    """Returns (low, high, achieved) for the median of xs, or None when n is too
    small for any order-statistic interval to reach `confidence`.  `achieved` is
    the interval's exact coverage, which is >= confidence."""
    s = sorted(xs)
    n = len(s)
    best = None
    # k is the 1-based rank of the lower bound; larger k gives a narrower interval.
    for k in range(1, n // 2 + 1):
        cover = 1 - 2 * _binom_cdf_half(k - 1, n)
        if cover >= confidence:
            best = (float(s[k - 1]), float(s[n - k]), cover)
        else:
            break
    return best


def paired_ratios(values, baseline):
    """Per-round ratios value/baseline for the rounds both dicts {round: time} share
    (rounds where the baseline time is 0 are skipped), in round order."""
    out = []
    for r in sorted(set(values) & set(baseline)):
        if baseline[r] > 0:
            out.append(values[r] / baseline[r])
    return out


def ratio_ci(ratios, confidence=CONFIDENCE):
    """(median, low, high) of per-round ratios; low/high None when n is too small."""
    if not ratios:
        return None, None, None
    ci = median_ci(ratios, confidence)
    m = median(ratios)
    return (m, ci[0], ci[1]) if ci else (m, None, None)


def sign_test(ratios):
    """Exact two-sided sign test of "the median ratio is 1" over per-round ratios:
    2 P(B <= m), B ~ Binomial(n, 1/2), m the smaller of the counts of ratios
    <= 1 and >= 1 (a ratio of exactly 1 counts on both sides, which keeps the
    test conservative and in step with the order-statistic interval).  None
    for no ratios."""
    n = len(ratios)
    if n == 0:
        return None
    below = sum(1 for r in ratios if r <= 1)
    above = sum(1 for r in ratios if r >= 1)
    return min(1.0, 2 * _binom_cdf_half(min(below, above), n))


def sign_test_around(values, center):
    """sign_test() of "the median of values is center" (a difference: center 0)."""
    return sign_test([v - center + 1 for v in values])


def rounds_to_survive(family, alpha=ALPHA):
    """The fewest paired rounds at which a sign test with every round on one
    side (p = 2^(1-n)) survives the Benjamini-Hochberg control over a family
    of that many tests whatever the other tests show (at rank 1 it needs
    p <= alpha / family)."""
    n = 1
    while 2.0 ** (1 - n) > alpha / max(family, 1):
        n += 1
    return n


def bh_adjust(pvalues):
    """Benjamini-Hochberg adjusted p-values of a family of tests, in the order
    given: q(i) = min over the p-values ranked at or above p(i) of p * m / rank,
    m the number of tests.  None entries (no test) stay None and are not counted.
    A test survives the false discovery rate control at ALPHA when q <= ALPHA."""
    tested = sorted((p, i) for i, p in enumerate(pvalues) if p is not None)
    m = len(tested)
    out = [None] * len(pvalues)
    q = 1.0
    for rank in range(m, 0, -1):
        p, i = tested[rank - 1]
        q = min(q, p * m / rank)
        out[i] = q
    return out


def paired(values, baseline, iterations, confidence=CONFIDENCE):
    """Variant against baseline from their times per round ({round: ns}).

    Returns a dict: rounds (paired), ratio, ratio_ci_low, ratio_ci_high (the
    median of per-round ratios and its order-statistic CI; None below 6
    rounds), p_value (sign test), significant (True / False, None when the
    rounds are too few for a test), diff_per_op_ns, diff_per_op_ns_ci_low,
    diff_per_op_ns_ci_high (the median per-round difference divided by
    iterations, in ns per operation, and its CI)."""
    rounds = sorted(r for r in set(values) & set(baseline) if baseline[r] > 0)
    n = max(1, iterations or 1)
    return paired_figures([values[r] / baseline[r] for r in rounds],
                          [(values[r] - baseline[r]) / n for r in rounds], confidence)


def paired_figures(ratios, diffs, confidence=CONFIDENCE):
    """paired()'s dict from one paired figure a sample, independent of the
    others: a round's ratio and difference per operation, or a process pair's
    (cluster_figure); "rounds" counts them."""
    out = {"rounds": len(ratios), "ratio": None, "ratio_ci_low": None, "ratio_ci_high": None,
           "p_value": None, "significant": None, "diff_per_op_ns": None,
           "diff_per_op_ns_ci_low": None, "diff_per_op_ns_ci_high": None}
    if not ratios:
        return out
    out["ratio"], out["ratio_ci_low"], out["ratio_ci_high"] = ratio_ci(ratios, confidence)
    out["diff_per_op_ns"] = median(diffs)
    ci = median_ci(diffs, confidence)
    if ci:
        out["diff_per_op_ns_ci_low"], out["diff_per_op_ns_ci_high"] = ci[0], ci[1]
    out["p_value"] = sign_test(ratios)
    if out["ratio_ci_low"] is not None:
        out["significant"] = out["ratio_ci_low"] > 1 or out["ratio_ci_high"] < 1
    return out


def cluster_figure(pairs, n):
    """One process pair's figure (DESIGN section 7, lockstep): from its pairs of
    pass times [(a_ns, b_ns)] at n operations a pass, (ratio, difference per
    operation in ns): the median of its pairs' ratios a/b and of their
    differences over n; None without a pair.  The pairs of one process pair
    share their two processes, so they are one sample of the comparison, not
    many: the median keeps the interrupted pair from moving it."""
    ok = [(a, b) for a, b in pairs if a and b and b > 0]
    if not ok:
        return None
    n = max(1, n or 1)
    return median([a / float(b) for a, b in ok]), median([(a - b) / float(n) for a, b in ok])


def _betacf(a, b, x):
    """The continued fraction of the incomplete beta function (Lentz)."""
    tiny, qab, qap, qam = 1e-300, a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        for aa in (m * (b - m) * x / ((qam + m2) * (a + m2)),
                   -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):
            d = 1.0 + aa * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + aa / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-14:
            break
    return h


def t_sf2(t, df):
    """P(|T| >= |t|) for Student's t with df degrees of freedom."""
    x = df / (df + t * t)
    if x <= 0:
        return 0.0
    a, b = df / 2.0, 0.5
    lbeta = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
    front = math.exp(lbeta + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1) / (a + b + 2):
        return min(1.0, front * _betacf(a, b, x) / a)
    return min(1.0, 1.0 - front * _betacf(b, a, 1 - x) / b)


def t_quantile(p, df):
    """The two-sided quantile: the t with P(|T| >= t) = 1 - p (bisection)."""
    lo, hi = 0.0, 1e3
    for _ in range(200):
        mid = (lo + hi) / 2
        if t_sf2(mid, df) > 1 - p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def t_mean(xs, confidence=CONFIDENCE):
    """(mean, low, high, two-sided p-value against 0) of xs by Student's t, the
    interval and p None below 2 values or with no spread and a mean of 0."""
    n = len(xs)
    m = sum(xs) / float(n)
    if n < 2:
        return m, None, None, None
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1))
    se = sd / math.sqrt(n)
    half = t_quantile(confidence, n - 1) * se
    if se == 0:
        return m, m, m, (1.0 if m == 0 else 0.0)
    return m, m - half, m + half, t_sf2(m / se, n - 1)


# The fewest lockstep sessions with an interval (clustered): Student's t needs
# no more than 2, and is exact for normal figures (a session's is a median of its
# rounds); at 3 it is wide (t = 4.30) but honest, where the order-statistic
# interval of rounds needs 6.  A pair the time budget cut at 3 to 5 sessions
# keeps an interval.
MIN_SESSIONS = 3


def clustered(figures, confidence=CONFIDENCE):
    """paired()'s dict from the lockstep sessions' figures [(ratio, diff per
    op)] (cluster_figure's, one a session: its rounds share its processes, so
    a session is one sample).  Each session's figure is the median of its
    rounds, so it is near normal whatever the passes' tails; across the
    sessions, which are independent (fresh processes each), the ratio is the
    geometric mean with Student's t interval on the log (and the difference
    per operation the mean with its t interval), the p-value the t-test's,
    which rejects at 5% exactly when the interval excludes 1.  Below
    MIN_SESSIONS sessions: no interval and no test."""
    figures = [f for f in figures if f is not None and f[0] > 0]
    out = {"rounds": len(figures), "ratio": None, "ratio_ci_low": None, "ratio_ci_high": None,
           "p_value": None, "significant": None, "diff_per_op_ns": None,
           "diff_per_op_ns_ci_low": None, "diff_per_op_ns_ci_high": None}
    if not figures:
        return out
    m, lo, hi, p = t_mean([math.log(f[0]) for f in figures], confidence)
    dm, dlo, dhi, _ = t_mean([f[1] for f in figures], confidence)
    out["ratio"], out["diff_per_op_ns"] = math.exp(m), dm
    if len(figures) < MIN_SESSIONS or lo is None:
        return out
    out.update(ratio_ci_low=math.exp(lo), ratio_ci_high=math.exp(hi), p_value=p,
               diff_per_op_ns_ci_low=dlo, diff_per_op_ns_ci_high=dhi)
    out["significant"] = out["ratio_ci_low"] > 1 or out["ratio_ci_high"] < 1
    return out


MET, MISSED, UNRESOLVED, UNTESTED = "met", "missed", "not resolvable on this host", "untested"


def bound_verdict(low, high, bound):
    """(verdict, resolution) of a measured interval [low, high] against an upper
    bound: MET when high <= bound, MISSED when low > bound, else UNRESOLVED;
    UNTESTED without an interval.  resolution is half the interval's width
    (None without one): the smallest difference this run could resolve, in
    the interval's own unit."""
    if low is None or high is None:
        return UNTESTED, None
    resolution = (high - low) / 2.0
    if high <= bound:
        return MET, resolution
    if low > bound:
        return MISSED, resolution
    return UNRESOLVED, resolution


def _exact_u_distribution(n1, n2):
    """counts[u] = number of arrangements of n1 + n2 distinct values giving U = u."""
    # f(i, j) over U values, built up by adding one element at a time:
    # the largest element belongs to sample 1 (adds j to U) or to sample 2.
    table = {(0, j): [1] for j in range(n2 + 1)}
    for i in range(1, n1 + 1):
        table[(i, 0)] = [1]
        for j in range(1, n2 + 1):
            a = table[(i - 1, j)]      # largest from sample 1: it beats all j of sample 2
            b = table[(i, j - 1)]
            size = i * j + 1
            c = [0] * size
            for u, cnt in enumerate(a):
                c[u + j] += cnt
            for u, cnt in enumerate(b):
                c[u] += cnt
            table[(i, j)] = c
    return table[(n1, n2)]


def mann_whitney(xs, ys):
    """Two-sided Mann-Whitney U test of xs against ys.  Returns (U, p) where U is
    the statistic of xs (pairs x > y count 1, ties 1/2).  p is exact when both
    samples are small (n1 + n2 <= 40) and there are no ties, else the normal
    approximation with tie and continuity corrections.  Empty input: (None, None)."""
    n1, n2 = len(xs), len(ys)
    if n1 == 0 or n2 == 0:
        return None, None
    pooled = sorted([(v, 0) for v in xs] + [(v, 1) for v in ys])
    ranks = [0.0] * len(pooled)
    tie_term = 0.0
    i = 0
    while i < len(pooled):
        j = i
        while j + 1 < len(pooled) and pooled[j + 1][0] == pooled[i][0]:
            j += 1
        avg = (i + j) / 2.0 + 1
        for k in range(i, j + 1):
            ranks[k] = avg
        t = j - i + 1
        tie_term += t ** 3 - t
        i = j + 1
    r1 = sum(r for r, (_, g) in zip(ranks, pooled) if g == 0)
    u1 = r1 - n1 * (n1 + 1) / 2.0
    mean = n1 * n2 / 2.0
    if tie_term == 0 and n1 + n2 <= 40:
        counts = _exact_u_distribution(n1, n2)
        total = float(sum(counts))
        lo = min(u1, n1 * n2 - u1)
        tail = sum(counts[: int(lo) + 1]) / total
        return u1, min(1.0, 2 * tail)
    n = n1 + n2
    var = n1 * n2 / 12.0 * ((n + 1) - tie_term / (n * (n - 1)))
    if var <= 0:
        return u1, 1.0           # every value equal: no evidence of a difference
    z = (abs(u1 - mean) - 0.5) / math.sqrt(var)
    z = max(z, 0.0)
    p = math.erfc(z / math.sqrt(2))
    return u1, min(1.0, p)


OUTLIER_MIN_N = 6        # below this the median and MAD are too rough to judge a sample


def mad_outliers(xs, threshold=OUTLIER_Z):
    """Indexes of samples whose modified z-score exceeds `threshold`.  Nothing is
    flagged with fewer than OUTLIER_MIN_N samples, or with a MAD of 0 (more than
    half the samples equal)."""
    if len(xs) < OUTLIER_MIN_N:
        return []
    m = median(xs)
    mad = median([abs(x - m) for x in xs])
    if mad == 0:
        return []
    return [i for i, x in enumerate(xs) if 0.6745 * abs(x - m) / mad > threshold]


def describe(xs, confidence=CONFIDENCE):
    """Median, CI and warnings for one variant's times.  Returns a dict with
    median, ci_low, ci_high (None when n is too small), confidence (the exact
    coverage), outliers (count) and warnings (list of sentences)."""
    warnings = []
    if not xs:
        return {"median": None, "ci_low": None, "ci_high": None, "confidence": None,
                "outliers": 0, "warnings": ["no valid samples"]}
    m = median(xs)
    ci = median_ci(xs, confidence)
    if ci is None:
        warnings.append("n=%d is too small for a %d%% CI (needs %d)"
                        % (len(xs), round(confidence * 100), min_samples_for_ci(confidence)))
        lo = hi = cover = None
    else:
        lo, hi, cover = ci
        if m > 0 and (hi - lo) / 2.0 > WIDE_CI * m:
            warnings.append("wide CI: half-width %.1f%% of the median (over %d%%)"
                            % (100.0 * (hi - lo) / 2.0 / m, round(WIDE_CI * 100)))
    out = mad_outliers(xs)
    if out:
        warnings.append("%d outlier%s by MAD (kept)" % (len(out), "" if len(out) == 1 else "s"))
    return {"median": m, "ci_low": lo, "ci_high": hi, "confidence": cover,
            "outliers": len(out), "warnings": warnings}
