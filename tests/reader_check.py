"""reader_check.py -- what a reader sees, checked against the run's data.

Usage:
  reader_check.py table OUTPUT SUMMARY_CSV   the table run.py printed (or a README
                                             block holding it) against summary.csv
  reader_check.py report REPORT_MD SUMMARY_CSV  REPORT.md's result tables against it

Each number shown (runs, time per operation and its CI, every ratio and its
CI) must equal the summary's figure to the digits shown, and every mark must
agree with its interval and its q-value: no mark only when the interval excludes
1 and the q-value (the false discovery rate control over the run's comparisons)
is at most 0.05, `~` otherwise, `?` only without an interval.  Exits 1 naming the first
cell that disagrees; prints how many cells it checked.  Parses the text
independently of runner/analysis/tables.py: it reads what is printed.
"""
import csv
import re
import sys

SCALE = {"ns": 1.0, "µs": 1e3, "ms": 1e6}
# '1.93x [1.85, 2.01]' (the wide table, REPORT.md) or '1.93x [1.85-2.01]', '221x
# [206-237]' (the default terminal table's compact interval).
RATIO = re.compile(r"^(?P<mark>[~?] )?(?P<r>\d+(?:\.\d+)?)x "
                   r"(\[(?P<lo>\d+(?:\.\d+)?)(?:, |-)(?P<hi>\d+(?:\.\d+)?)\]"
                   r"|\[(?P<k>\d+) rounds?\])")
checked = 0


def fail(msg):
    sys.exit("reader_check: " + msg)


def close(shown, value, what):
    """shown (text as printed) equals value to the digits shown; '-' that the
    summary has no value."""
    global checked
    checked += 1
    if shown == "-":
        if value not in ("", None):
            fail("%s: '-' shown but the summary says %s" % (what, value))
        return
    if value is None or value == "":
        fail("%s: %r shown but the summary has none" % (what, shown))
    digits = len(shown.split(".")[1]) if "." in shown else 0
    if abs(float(shown) - float(value)) > 0.5 * 10 ** -digits + 1e-9:
        fail("%s: shown %s, the summary says %s" % (what, shown, value))


def check_ratio(cell, row, prefix, what):
    """A ratio cell against the row's ratio fields (prefix '' or 'lang_')."""
    global checked
    if cell == "-":
        if row[prefix + "ratio"] not in ("", None):
            fail("%s: '-' but the summary has the ratio %s" % (what, row[prefix + "ratio"]))
        checked += 1
        return
    if cell == "baseline":
        if row[prefix + "baseline"] != row["variant"]:
            fail("%s: 'baseline' but the baseline is %s" % (what, row[prefix + "baseline"]))
        return
    m = RATIO.match(cell)
    if not m:
        fail("%s: %r is not a ratio" % (what, cell))
    close(m.group("r"), row[prefix + "ratio"], what + " ratio")
    mark = (m.group("mark") or "").strip()
    sig = row[prefix + "significant"]
    if m.group("lo"):
        lo, hi = float(m.group("lo")), float(m.group("hi"))
        close(m.group("lo"), row[prefix + "ratio_ci_low"], what + " CI low")
        close(m.group("hi"), row[prefix + "ratio_ci_high"], what + " CI high")
        # The printed interval (rounded) decides the mark a reader checks.
        lo_raw, hi_raw = float(row[prefix + "ratio_ci_low"]), float(row[prefix + "ratio_ci_high"])
        includes = lo_raw <= 1 <= hi_raw
        # A difference is named only when its interval excludes 1 and its sign
        # test survives the run's false discovery rate control (DESIGN section
        # 7): an interval that excludes 1 with a q-value above 0.05 is a '~'.
        q = row.get(prefix + "q_value")
        survives = q not in ("", None) and float(q) <= 0.05
        named = not includes and survives
        if mark == "~" and named:
            fail("%s: '~' beside %s, an interval that excludes 1 and q = %s" % (what, cell, q))
        if mark == "" and not named:
            fail("%s: no '~' beside %s, %s" % (what, cell, "an interval that includes 1" if includes
                                                else "whose q-value %s is above 0.05" % q))
        if mark == "?":
            fail("%s: '?' beside an interval" % what)
        if (sig == "True") != named or sig == "":
            fail("%s: summary.csv says significant=%r for [%s, %s], q = %s" % (what, sig, lo, hi, q))
    elif mark != "?" or sig not in ("", None):
        fail("%s: a ratio without an interval must be marked '?' and untested" % what)
    checked += 1


def per_op(row, key, unit):
    """A per-operation figure of summary.csv in the table's unit (None when empty)."""
    return float(row[key]) / unit if row[key] not in ("", None) else None


def summary_rows(path):
    """{workload: {label: row}}: a label (c/sync-sequential@node4) may be in
    several workloads."""
    out = {}
    for r in csv.DictReader(open(path, encoding="utf-8")):
        out.setdefault(r["workload"], {})[r["label"]] = r
    return out


def own_prefix(row):
    """The prefix of the row's ratio to its own language's baseline (the compact
    table's one ratio), else the first baseline it has."""
    lang = row["variant"].split("/")[1].split("@")[0]
    for p in ("lang_", ""):
        if row[p + "baseline"] and row[p + "baseline"].split("/")[1].split("@")[0] == lang:
            return p
    return next(p for p in ("", "lang_") if row[p + "baseline"])


def table(text, by_workload):
    """The terminal table: blocks '== w (N = n) ==', a header, '-- mode --' lines,
    rows; the wide one (time per operation with its CI, a ratio per baseline)
    or the compact one (header '... vs own baseline': time per operation, the
    ratio to the variant's own language's baseline)."""
    unit, rows, compact = None, {}, False
    for line in text.splitlines():
        m = re.match(r"^== (\S+) \(N = ", line)
        if m:
            rows = by_workload.get(m.group(1), {})
            continue
        if line.startswith("variant ") and "/" in line.split()[2]:
            unit = SCALE[line.split()[2].split("/")[0]]
            compact = line.rstrip().endswith("vs own baseline")
            continue
        cells = re.split(r"\s{2,}", line.strip())
        if unit is None or not cells or cells[0] not in rows:
            continue
        row = rows[cells[0]]
        what = "table row %s" % cells[0]
        total = sum(int(row[k] or 0) for k in ("ok", "invalid", "failed", "timeout", "crashed"))
        if cells[1] != (row["n"] if int(row["n"]) == total else "%s/%d" % (row["n"], total)):
            fail("%s: n %s, the summary says %s of %d" % (what, cells[1], row["n"], total))
        close(cells[2], per_op(row, "per_op_ns", unit), what + " time per operation")
        if compact:
            if len(cells) != 4:
                fail("%s: %d cells, the compact table has 4" % (what, len(cells)))
            check_ratio(re.sub(r" \([^)]*\)$", "", cells[3]), row, own_prefix(row), what)
            continue
        ci = re.match(r"^\[(\S+), (\S+)\]$", cells[3])
        if ci:
            close(ci.group(1), per_op(row, "per_op_ns_ci_low", unit), what + " CI low")
            close(ci.group(2), per_op(row, "per_op_ns_ci_high", unit), what + " CI high")
        ratios = [c for c in cells[4:] if c in ("baseline", "-") or RATIO.match(c)]
        prefixes = [p for p in ("", "lang_") if row[p + "baseline"]]
        if len(ratios) != len(prefixes):
            fail("%s: %d ratios shown, the summary has %d baselines" % (what, len(ratios),
                                                                       len(prefixes)))
        for cell, p in zip(ratios, prefixes):
            check_ratio(re.sub(r" \([^)]*\)$", "", cell), row, p, what)


def report(text, by_workload):
    """REPORT.md's result tables: '| `label` | n | t [lo, hi] | ratio; Δ d | ... | notes |'."""
    unit, rows = None, {}
    for line in text.splitlines():
        m = re.match(r"^### (\S+) \(N = ", line)
        if m:
            rows = by_workload.get(m.group(1), {})
            continue
        if line.startswith("| variant | n | "):
            unit = SCALE[line.split("|")[3].strip().split("/")[0]]
            continue
        m = re.match(r"^\| `([^`]+)` \| (\d+(?:/\d+)?) \| (\S+) (\[\S+, \S+\]|\(n too small\)|\(-\)) \|(.*)$",
                     line)
        if unit is None or not m or m.group(1) not in rows:
            continue
        row = rows[m.group(1)]
        what = "REPORT.md row %s" % m.group(1)
        close(m.group(3), per_op(row, "per_op_ns", unit), what + " time per operation")
        cells = [c.strip().replace("\\~", "~") for c in m.group(5).split("|")[:-1]]
        prefixes = [p for p in ("", "lang_") if row[p + "baseline"]]
        shown = [c.split("; Δ")[0] for c in cells[:-1] if c]
        if len(shown) != len(prefixes):
            fail("%s: %d ratios shown, the summary has %d baselines" % (what, len(shown),
                                                                       len(prefixes)))
        for cell, p in zip(shown, prefixes):
            check_ratio(re.sub(r" \([^)]*\)$", "", cell), row, p, what)


def main(argv):
    if len(argv) != 3 or argv[0] not in ("table", "report"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    text = open(argv[1], encoding="utf-8").read()
    rows = summary_rows(argv[2])
    (table if argv[0] == "table" else report)(text, rows)
    if not checked:
        fail("no cell of %s matched a variant of %s" % (argv[1], argv[2]))
    print("%d cells agree with %s" % (checked, argv[2]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
