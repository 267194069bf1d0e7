"""fmt.py -- how every table, report, chart and status line of the runner shows a
number: one rule for each kind of figure, so that the same figure reads the same
wherever it is shown.

  num(v)            a figure to three significant figures, no exponent: 1.23,
                    12.3, 123, 1234 (1,234 with grouping, as the charts show
                    it), 0.0123; 0 for zero, '-' for None (no figure)
  signed(v)         the same with its sign: +6.52, -0.120, 0
  ms(v)             a time in milliseconds: '12.3 ms'
  ns(v)             a time in nanoseconds in the unit that suits it:
                    '120 ns', '+6.52 µs' (sign=True)
  ratio(v, lo, hi)  a ratio of times and its interval, two decimals:
                    '1.93x [1.85, 2.01]', with a mark before it ('~ 1.01x
                    [0.97, 1.05]') and what stands for a missing interval
                    after it ('? 1.10x [3 rounds]') as the caller says
  seed_ratio(v)     a seed's published ratio as the seed wrote it: 0.95x, 4.8x
  text(x)           any value of a table or sentence as text, '-' for None or ''

What a row shows for a baseline, a missing ratio or an unmeasured variant
('baseline', '-', 'not measured: ...') is the caller's, around these.
"""
import math


def num(v, grouping=False):
    """v to three significant figures, never with an exponent: 123 and above
    as a whole number (with thousands separators when grouping), 12.3, 1.23,
    and below 1 as many decimals as three figures take (0.123, 0.0123); '0'
    for zero and '-' for None."""
    if v is None:
        return "-"
    a = abs(v)
    if a >= 100:
        return "{:,.0f}".format(v) if grouping else "%.0f" % v
    if a >= 10:
        return "%.1f" % v
    if a >= 1:
        return "%.2f" % v
    if a == 0:
        return "0"
    return "%.*f" % (2 - math.floor(math.log10(a)), v)


def signed(v, grouping=False):
    """num(v) with a + before a positive v: '+6.52', '-0.120', '0'."""
    return ("+" if v is not None and v > 0 else "") + num(v, grouping)


def ms(v):
    """A time in milliseconds: '12.3 ms'."""
    return "%s ms" % num(v)


# Units of a time given in ns: each used below 1000 of itself.
TIME_UNITS = (("ns", 1.0), ("µs", 1e3), ("ms", 1e6), ("s", 1e9))


def ns(v, sign=False, grouping=False):
    """A time in ns in the unit that keeps it under 1000 of it: '120 ns',
    '6.52 µs'; with sign, a + before a positive one."""
    name, scale = TIME_UNITS[0]
    for name, scale in TIME_UNITS:
        if abs(v) < 1000 * scale:
            break
    return "%s %s" % ((signed if sign else num)(v / scale, grouping), name)


def ratio(v, low=None, high=None, mark="", no_ci=""):
    """'1.93x [1.85, 2.01]': a ratio of times and its interval to two decimals;
    mark ('~' not significant, '?' untested) and a space before it; without an
    interval (low or high None), no_ci after it ('[3 rounds]'), or nothing."""
    text = "%s%.2fx" % (mark + " " if mark else "", v)
    if low is not None and high is not None:
        return "%s [%.2f, %.2f]" % (text, low, high)
    return "%s %s" % (text, no_ci) if no_ci else text


def seed_ratio(v):
    """A seed's published ratio as it would be written: two decimals near 1
    (0.95x, 1.05x), one above (4.8x)."""
    return ("%.2fx" if v < 1.1 else "%.1fx") % v


def text(x):
    """x as text (str(x)); '-' for None or '' (no value)."""
    return "-" if x in (None, "") else str(x)
