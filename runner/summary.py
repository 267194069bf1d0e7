"""summary.py -- from samples.csv rows to the per-variant summary (summary.json,
summary.csv) and the terminal table.

Times are the programs' own elapsed_ns (the timed section, start-up excluded);
CPU and memory are the runner's wait4 rusage of the whole process.  Only samples
with status ok count; the others are counted per status and warned about.
"""
import csv
import io
import re

from . import catalog
from . import catalog_check
from . import contract
from . import expr
from . import fmt
from . import stats
from .files import write_atomic

SAMPLE_COLUMNS = ["round", "order", "variant", "workload", "lang", "style", "mode",
                  "backend", "iterations", "concurrency", "status", "exit_code",
                  "elapsed_ns", "wall_ns", "user_us", "sys_us", "peak_rss_kb", "ok", "bytes",
                  "shape", "method", "label", "idle_rss_kb", "env", "point",
                  "outside_ns", "startup_ns", "warmup_ns", "pass", "sampled_rss_kb", "runtime"]
# samples.csv may end after any column from this one on: a file written before the
# later columns existed is read with them empty.  New columns are appended.
BASE_COLUMNS = 22
INT_COLUMNS = ("round", "order", "iterations", "concurrency", "exit_code", "elapsed_ns",
               "wall_ns", "user_us", "sys_us", "peak_rss_kb", "ok", "bytes", "idle_rss_kb",
               "outside_ns", "startup_ns", "warmup_ns", "pass", "sampled_rss_kb")
STATUSES = ("ok", "invalid", "failed", "timeout", "crashed")
MODES = ("sequential", "parallel", "bounded")
LANGS = ("c", "go", "node")
# The two baselines of a variant (runner/catalog.py: baselines): the catalog's rule keys, and the
# prefix of their fields in a summary row ("ratio", "lang_ratio", ...).
BASELINE_KEYS = (("c", ""), ("lang", "lang_"))
RATIO_FIELDS = ("baseline", "ratio", "ratio_ci_low", "ratio_ci_high", "p_value",
                "significant", "rounds_paired", "baseline_label", "diff_per_op_ns",
                "diff_per_op_ns_ci_low", "diff_per_op_ns_ci_high", "q_value")
SUMMARY_CSV_COLUMNS = ["variant", "workload", "lang", "style", "mode", "backend", "iterations",
                       "concurrency", "n", "ok", "invalid", "failed", "timeout", "crashed",
                       "median_ms", "ci_low_ms", "ci_high_ms", "baseline", "ratio",
                       "ratio_ci_low", "ratio_ci_high", "p_value", "significant",
                       "peak_rss_kb", "user_ms", "sys_ms", "outliers", "warnings",
                       "shape", "method", "label", "baseline_label", "lang_baseline",
                       "lang_ratio", "lang_ratio_ci_low", "lang_ratio_ci_high", "lang_p_value",
                       "lang_significant", "lang_baseline_label", "idle_rss_kb",
                       "mem_above_idle_kb", "unit", "per_op_ns",
                       "per_op_ns_ci_low", "per_op_ns_ci_high", "rounds_paired", "diff_per_op_ns",
                       "diff_per_op_ns_ci_low", "diff_per_op_ns_ci_high", "lang_rounds_paired",
                       "lang_diff_per_op_ns", "lang_diff_per_op_ns_ci_low",
                       "lang_diff_per_op_ns_ci_high", "point", "env", "q_value",
                       "lang_q_value", "outside_ms", "startup_ms", "own_outside_ms",
                       "outside_share", "outside_flag", "warmup_ms", "sampled_rss_kb", "runtime"]

# A variant whose time outside its clock, less its language's empty-program
# start-up and its own warm-up, is more than this share of its timed time is
# flagged (DESIGN section 6): work the clock does not see is then a large part
# of the run.
OUTSIDE_SHARE_MAX = 0.10


# Columns every row of samples.csv has (the runner always writes them); the
# others are empty when the program gave no line (elapsed_ns, ok, bytes) or the
# launcher no figure.
REQUIRED_COLUMNS = ("round", "order", "variant", "workload", "lang", "style", "mode",
                    "backend", "iterations", "concurrency", "status")
# Integer columns that are counts from 1 (the others are 0 or more; exit_code
# may be anything the launcher reported, sampled_rss_kb below 0 when a
# harness's RSS fell below its start: runner/contract.py).
POSITIVE_COLUMNS = ("round", "iterations")
SIGNED_COLUMNS = ("exit_code", "sampled_rss_kb")
INT64_MAX = 2 ** 63 - 1


def read_samples(path, warnings=None, contracts=None):
    """samples.csv as a list of dicts with integer columns converted (None when empty).

    A corrupted file is refused with ValueError, one line naming the file and
    the line: a header other than the one of DESIGN section 6, a row with the
    wrong number of columns (except a short last line: an interrupted write,
    skipped with a warning appended to warnings), an empty required column, a
    column that is not an integer or is negative (elapsed_ns < 0 would enter the
    median), an unknown status, two rows of one variant in one round (counted
    twice), one variant with two different N (iterations): a median over
    mixed N means nothing, or a row that breaks the contract (row_problem: an
    id its own columns do not make, a K the runner does not give its mode, an
    ok row that is not a valid run by the runner's own checks; contracts is
    workload_contracts() of the run, today's catalog's when not given).
    Refused rather than warned about: each is a file edited or concatenated by
    hand, never something the runner writes, and any figure drawn from it
    would be wrong."""
    if contracts is None:
        contracts = workload_contracts()
    with open(path, newline="", encoding="utf-8") as f:
        text = f.read()
    reader = csv.reader(io.StringIO(text))
    header = next(reader, None)
    if (header is None or len(header) < BASE_COLUMNS
            or header != SAMPLE_COLUMNS[:len(header)]):
        raise ValueError("%s: header is %r, expected the columns %s"
                         % (path, header, ",".join(SAMPLE_COLUMNS)))
    columns = header
    records = list(enumerate(reader, start=2))
    rows, seen, n_of = [], {}, {}
    for i, (lineno, rec) in enumerate(records):
        where = "%s:%d" % (path, lineno)
        if len(rec) != len(columns):
            last = i == len(records) - 1 and not text.endswith("\n")
            if last and len(rec) < len(columns):
                # An interrupted write leaves a short last line; keep what is whole.
                if warnings is not None:
                    warnings.append("%s: a short last line (an interrupted write) was "
                                    "left out" % where)
                continue
            raise ValueError("%s: %d columns, expected %d" % (where, len(rec), len(columns)))
        row = dict(zip(columns, rec))
        for k in SAMPLE_COLUMNS[len(columns):]:
            row[k] = ""
        # A run before --passes timed one pass a process: pass 0 everywhere.
        if row["pass"] == "":
            row["pass"] = "0"
        for k in REQUIRED_COLUMNS:
            if row[k] == "":
                raise ValueError("%s: %s is empty" % (where, k))
        for k in INT_COLUMNS:
            if row[k] == "":
                row[k] = None
                continue
            if not re.match(r"-?[0-9]+\Z", row[k]):
                raise ValueError("%s: %s is not an integer: %r" % (where, k, row[k][:40]))
            row[k] = int(row[k])
            low = 1 if k in POSITIVE_COLUMNS else 0
            if k not in SIGNED_COLUMNS and row[k] < low:
                raise ValueError("%s: %s is %d, below %d" % (where, k, row[k], low))
            if abs(row[k]) > INT64_MAX:
                raise ValueError("%s: %s has %d digits, beyond a 64-bit integer"
                                 % (where, k, len(str(abs(row[k])))))
        if row["status"] not in STATUSES:
            raise ValueError("%s: unknown status %r (known: %s)"
                             % (where, row["status"][:40], ", ".join(STATUSES)))
        # A sweep's points (the point column) are series of their own.
        shown = row["variant"] + (" at " + row["point"] if row["point"] else "")
        key = (row["variant"], row["point"], row["round"], row["pass"])
        if key in seen:
            raise ValueError("%s: a second row of %s in round %d%s (the first is line %d)"
                             % (where, shown, row["round"],
                                " pass %d" % row["pass"] if row["pass"] else "", seen[key]))
        seen[key] = lineno
        first = n_of.setdefault((row["variant"], row["point"]), (row["iterations"], lineno))
        if first[0] != row["iterations"]:
            raise ValueError("%s: %s has iterations %d here and %d on line %d: one run "
                             "has one N per variant" % (where, shown, row["iterations"],
                                                        first[0], first[1]))
        why = row_problem(row, contracts)
        if why:
            raise ValueError("%s: %s" % (where, why))
        rows.append(row)
    return [_checked(path, row) for row in rows]


def workload_contracts(run=None, where="run.json", cat=None):
    """{workload: {"checks": {field: expression}, "flag_values": {name: value}}}:
    what the runner checked every line of a workload against (the catalog's
    checks, with the flag values it gave the programs).  run (run.json's
    object) records both in its workloads (checks, args), so that a run
    re-renders the same whatever today's catalog says; what a run folder does
    not record (a run made before it did, a folder without run.json) is
    today's catalog's, and a workload neither knows has no checks.
    ValueError naming `where` when run.json's are not checks (a file edited
    by hand).  cat: the run's catalog (catalog.for_run) when the caller has
    it, else today's."""
    out = {}
    if cat is None:
        try:
            cat = catalog.load()
        except catalog.CatalogError:
            cat = None
    if cat is not None:
        for w, spec in cat.workloads.items():
            out[w] = {"checks": dict(spec.get("checks") or {}), "flag_values": cat.flag_values(w)}
    for w, s in ((run or {}).get("workloads") or {}).items():
        c = dict(out.get(w) or {"checks": {}, "flag_values": {}})
        at = "%s: workloads.%s" % (where, w)
        if "checks" in s:
            checks = s["checks"]
            if not isinstance(checks, dict) or not all(
                    isinstance(k, str) and catalog_check.FIELD.match(k) for k in checks):
                raise ValueError("%s.checks must map field names to expressions" % at)
            for k, text in checks.items():
                try:
                    expr.parse_check(text, "%s.checks.%s" % (at, k))
                except catalog.CatalogError as e:
                    raise ValueError(str(e)) from None
            c["checks"] = dict(checks)
        if "args" in s:
            args = s["args"]
            if (not isinstance(args, list) or len(args) % 2
                    or not all(isinstance(a, str) for a in args)):
                raise ValueError("%s.args must be a list of flags and their values" % at)
            c["flag_values"] = {expr.flag_key(f): v for f, v in zip(args[::2], args[1::2])}
        out[w] = c
    return out


# The figures of a program's line that samples.csv keeps (runner/measure.py:
# sample_row), beside its iterations: what --render checks again.  The others
# (the workload's own fields, the line's peak_rss_kb and concurrency) are not
# in the file: its peak_rss_kb is the launcher's, its concurrency the K given.
LINE_COLUMNS = ("ok", "bytes", "elapsed_ns", "idle_rss_kb", "warmup_ns")
# Of those, what every ok row has (idle_rss_kb and warmup_ns came later:
# an older file reads them empty).
OK_COLUMNS = ("ok", "bytes", "elapsed_ns")


def row_problem(row, contracts=None):
    """How one samples.csv row (its integer columns converted) breaks the
    contract that the runner checked when it wrote it, or None: its variant id
    must be the one its columns make by the id rule (DESIGN section 4: else
    two rows of one id tell two stories), its label the id's, its concurrency
    the K the runner gives a variant of its mode, and a row marked ok must be
    a valid run: exit 0, and the line's figures the file keeps (LINE_COLUMNS)
    pass the same checks the runner made on the line (runner/contract.py:
    figures_problem, with the workload's catalog checks from contracts, see
    workload_contracts): ok == iterations, bytes as the catalog's check says,
    a positive elapsed_ns, a positive idle_rss_kb."""
    made = catalog.variant_id(row)
    if row["variant"] != made:
        return ("variant %r is not what its own columns make (%s): a row edited by hand"
                % (row["variant"][:80], made[:80]))
    if row["label"] and row["label"] != catalog.variant_label(row):
        return "label %r is not its variant's (%s)" % (row["label"][:80], catalog.variant_label(row))
    why = catalog.given_concurrency_problem(row["mode"], row["concurrency"])
    if why:
        return why
    if row["status"] != "ok":
        return None
    if row["exit_code"] != 0:
        return "status ok with exit_code %s: an ok run exits 0" % row["exit_code"]
    empty = next((k for k in OK_COLUMNS if row.get(k) is None), None)
    if empty:
        return "status ok with %s empty: the runner writes an ok run's %s" % (empty, empty)
    fields = {k: row[k] or ("inprocess" if k == "method" else "") for k in catalog.FIELDS}
    c = (contracts if contracts is not None else workload_contracts()).get(row["workload"]) or {}
    entry = dict(fields, id=made, checks=c.get("checks") or {},
                 flag_values=c.get("flag_values") or {})
    obj = dict(fields, variant=row["variant"], iterations=row["iterations"])
    obj.update((k, row[k]) for k in LINE_COLUMNS if row.get(k) is not None)
    # Its K was checked above for every row (given_concurrency_problem), and
    # the line's own concurrency is not in the file: no K to give again.
    why = contract.figures_problem(entry, obj, row["iterations"], partial=True)
    return "status ok, but %s" % why if why else None


# A program's elapsed_ns is its timed section, inside the process's own life: it
# can never exceed the wall time the launcher measured (fork to wait4) by more
# than the clocks' granularity.  10^20 ns from a 50 ms process, or 10^400 (JSON
# has big integers; a float of it overflows), is a broken clock or a lie.
WALL_SLACK_NS = 10 * 1000 * 1000


def big(n):
    """An integer for a message: 10^400 as '1000000...(401 digits)'."""
    t = str(n)
    return t if len(t) <= 20 else "%s...(%d digits)" % (t[:8], len(t))


def elapsed_problem(elapsed_ns, wall_ns):
    """Why elapsed_ns cannot be the timed section of a process whose wall time was
    wall_ns (None when it can, or when either is unknown)."""
    if elapsed_ns is None:
        return None
    if elapsed_ns > INT64_MAX:
        return "elapsed_ns %s is beyond any clock (more than 2^63 - 1)" % big(elapsed_ns)
    if wall_ns is not None and elapsed_ns > wall_ns + WALL_SLACK_NS:
        return ("elapsed_ns %s is longer than the process's own wall time %d ns "
                "(measured by the runner)" % (big(elapsed_ns), wall_ns))
    return None


def _checked(path, row):
    """A row whose ok run reports an elapsed_ns longer than its process's wall
    time counts as invalid (a file written before the runner checked it)."""
    if row["status"] == "ok" and elapsed_problem(row["elapsed_ns"], row["wall_ns"]):
        row["status"] = "invalid"
    return row


def per_process(samples):
    """One row per process (variant, point and round) from samples.csv's rows,
    one per timed pass: the process's first row with elapsed_ns the median of
    its passes' (to the nearest ns) and passes, how many it ran.  Every
    statistic takes a process's value from here (DESIGN section 6): the
    passes of one process share its start, its placement and its neighbours,
    so they are not independent samples of the variant; the median keeps a
    pass that one interruption slowed from moving the process's value.  Rows
    of one pass (every run before --passes) come back as they are, with
    passes 1."""
    groups, order = {}, []
    for s in samples:
        key = (s["variant"], s.get("point") or "", s["round"])
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(s)
    out = []
    for key in order:
        rows = sorted(groups[key], key=lambda r: r.get("pass") or 0)
        row = dict(rows[0], passes=len(rows))
        times = [r["elapsed_ns"] for r in rows if r["elapsed_ns"] is not None]
        if len(rows) > 1 and times:
            row["elapsed_ns"] = int(round(stats.median(times)))
        out.append(row)
    return out


def workload_rounds(run, workload):
    """How many measured rounds a workload's variants ran, as text: "6", or
    "10-40" when a time budget gave its variants different counts (run.json's
    variant_rounds), else the workload's own figure, else the run's."""
    counts = [r for vid, r in (run.get("variant_rounds") or {}).items()
              if vid.split("/", 1)[0] == workload]
    if not counts:
        r = ((run.get("workloads") or {}).get(workload) or {}).get("rounds", run.get("rounds"))
        return "?" if r is None else str(r)
    lo, hi = min(counts), max(counts)
    return str(lo) if lo == hi else "%d-%d" % (lo, hi)


def is_baseline(row):
    """True for the variant that is its own C baseline (it leads its mode's rows)."""
    return row.get("baseline") == row["variant"]


def sort_key(row):
    """Tables and charts list workloads, then modes in a fixed order, the baseline
    first, then by language."""
    mode = row["mode"]
    return (row["workload"], MODES.index(mode) if mode in MODES else len(MODES), mode,
            not is_baseline(row), LANGS.index(row["lang"]) if row["lang"] in LANGS else len(LANGS),
            row["variant"])


def _ms(ns):
    return None if ns is None else ns / 1e6


def _ratio(row, prefix, key, base_key, label, ok_times, warnings):
    """Fills the row's ratio fields (prefix "" or "lang_") against the baseline,
    from the rounds both ran in (stats.paired: ratio, its interval, the sign
    test, significance exactly when the interval excludes 1, the difference per
    operation).  Keys are (variant id, point): a sweep's point pairs with the
    same point of the baseline."""
    vid, base = key[0], base_key[0]
    row[prefix + "baseline"] = base
    row[prefix + "baseline_label"] = label
    if not ok_times.get(base_key):
        if not base_key[1]:
            warnings.append("baseline %s has no valid samples in this run: no ratio" % base)
        return
    if not ok_times.get(key):
        return
    p = stats.paired(ok_times[key], ok_times[base_key], row["iterations"])
    row[prefix + "rounds_paired"] = p["rounds"]
    for k in ("ratio", "ratio_ci_low", "ratio_ci_high", "diff_per_op_ns",
              "diff_per_op_ns_ci_low", "diff_per_op_ns_ci_high"):
        row[prefix + k] = p[k]
    if p["rounds"] and p["ratio_ci_low"] is None and vid != base:
        warnings.append("ratio to %s from %d paired rounds: too few for a 95%% CI or a test "
                        "(needs %d)" % (label, p["rounds"], stats.min_samples_for_ci()))
    if vid != base:
        row[prefix + "p_value"] = p["p_value"]
        row[prefix + "significant"] = p["significant"]


def summarize(samples, baselines, units=None):
    """One summary row per variant (grouped by the full id: workloads and backends
    never merge), in table order.  baselines maps a variant id to {"c": [id,
    label] or None, "lang": [id, label] or None}, as run.json records it;
    units maps a workload to what one of its operations is ("read"), from the
    catalog's unit (run.json's workloads)."""
    by_variant = {}
    for s in per_process(samples):
        by_variant.setdefault((s["variant"], s.get("point") or ""), []).append(s)
    ok_times = {v: {s["round"]: s["elapsed_ns"] for s in rows
                    if s["status"] == "ok" and s["elapsed_ns"] is not None}
                for v, rows in by_variant.items()}
    out = []
    for (vid, point), rows in by_variant.items():
        first = rows[0]
        oks = [s for s in rows if s["status"] == "ok" and s["elapsed_ns"] is not None]
        times_ms = [_ms(s["elapsed_ns"]) for s in oks]
        d = stats.describe(times_ms)
        per_op = stats.median_ci([s["elapsed_ns"] / s["iterations"] for s in oks])
        statuses = {k: sum(1 for s in rows if s["status"] == k) for k in STATUSES}
        warnings = []
        bad = len(rows) - statuses["ok"]
        if bad:
            warnings.append("%d of %d runs not ok (%s)" % (bad, len(rows), ", ".join(
                "%d %s" % (statuses[k], k) for k in STATUSES[1:] if statuses[k])))
        warnings += [w for w in d["warnings"] if not (w == "no valid samples" and bad)]
        row = {"variant": vid, "label": first["label"], "workload": first["workload"],
               "lang": first["lang"], "style": first["style"], "shape": first["shape"],
               "mode": first["mode"], "method": first["method"], "backend": first["backend"],
               "runtime": first.get("runtime") or "",
               "iterations": first["iterations"], "concurrency": first["concurrency"],
               "n": len(oks), "statuses": statuses,
               "median_ms": d["median"], "ci_low_ms": d["ci_low"], "ci_high_ms": d["ci_high"],
               "ci_confidence": d["confidence"], "outliers": d["outliers"],
               "unit": (units or {}).get(first["workload"]) or "operation",
               "per_op_ns": (d["median"] * 1e6 / first["iterations"]
                             if d["median"] is not None else None),
               "per_op_ns_ci_low": per_op[0] if per_op else None,
               "per_op_ns_ci_high": per_op[1] if per_op else None,
               "peak_rss_kb": _median_or_none([s["peak_rss_kb"] for s in oks]),
               "idle_rss_kb": _median_or_none([s["idle_rss_kb"] for s in oks
                                               if s.get("idle_rss_kb") is not None]),
               "mem_above_idle_kb": _median_or_none([
                   max(0, s["peak_rss_kb"] - s["idle_rss_kb"]) for s in oks
                   if s.get("idle_rss_kb") is not None and s["peak_rss_kb"] is not None]),
               # A harness's own memory figure (perfjs: the largest RSS it sampled
               # less the RSS at its start), when the line gave one.
               "sampled_rss_kb": _median_or_none([s.get("sampled_rss_kb") for s in oks
                                                  if s.get("sampled_rss_kb") is not None]),
               "user_ms": _median_or_none([s["user_us"] / 1000.0 for s in oks
                                           if s["user_us"] is not None]),
               "sys_ms": _median_or_none([s["sys_us"] / 1000.0 for s in oks
                                          if s["sys_us"] is not None]),
               "wall_ms": _median_or_none([_ms(s["wall_ns"]) for s in oks
                                           if s["wall_ns"] is not None]),
               "warnings": warnings}
        row.update(outside_fields(oks, d["median"]))
        if point:
            # A sweep's point: its K (and N) are the point's, its environment too.
            row.update(point=point, env=first.get("env") or "",
                       axis=point_axis(point), x=point_x(point, first))
        for key, prefix in BASELINE_KEYS:
            for f in RATIO_FIELDS:
                row[prefix + f] = 0 if f == "rounds_paired" else None
            rule = (baselines.get(vid) or {}).get(key)
            if rule:
                _ratio(row, prefix, (vid, point), (rule[0], point), rule[1], ok_times, warnings)
        out.append(row)
    out.sort(key=sort_key)
    control_fdr(out)
    return out


def control_fdr(rows, alpha=stats.ALPHA):
    """Every comparison of a run is one family (DESIGN section 7): the sign tests
    of all the rows' ratios that could be tested (an interval exists) get their
    Benjamini-Hochberg q-values (q_value, lang_q_value), and a difference stays
    significant only when its interval excludes 1 and its q-value is at most
    alpha.  Returns the number of tests in the family."""
    cells = [(r, prefix) for r in rows for _, prefix in BASELINE_KEYS
             if r.get(prefix + "significant") is not None and r.get(prefix + "p_value") is not None]
    qs = stats.bh_adjust([r[prefix + "p_value"] for r, prefix in cells])
    for (r, prefix), q in zip(cells, qs):
        r[prefix + "q_value"] = q
        r[prefix + "significant"] = bool(r[prefix + "significant"]) and q <= alpha
    for r in rows:
        r["fdr_tests"] = len(cells)
    return len(cells)


def family_size(rows):
    """How many comparisons the run's family had (the rows carry it: fdr_tests)."""
    return max([r.get("fdr_tests") or 0 for r in rows] or [0])


def excludes_one(r, prefix=""):
    """True when the ratio's interval excludes 1 (before the false discovery rate control)."""
    lo, hi = r.get(prefix + "ratio_ci_low"), r.get(prefix + "ratio_ci_high")
    return lo is not None and (lo > 1 or hi < 1)


def without_valid(rows):
    """One sentence per workload of rows none of whose runs was valid, and per
    other variant none of whose runs was: a run that measured nothing there
    is not a result (run.py exits 1), though its samples are kept."""
    def runs(rs):
        counts = {k: sum(r["statuses"][k] for r in rs) for k in STATUSES}
        total = sum(counts.values())
        return "%d run%s: %s" % (total, "" if total == 1 else "s", ", ".join(
            "%d %s" % (counts[k], k) for k in STATUSES if counts[k]))
    out = []
    for w in sorted({r["workload"] for r in rows}):
        wrows = [r for r in rows if r["workload"] == w]
        if not any(r["n"] for r in wrows):
            out.append("workload %s has no valid sample (%s)" % (w, runs(wrows)))
            continue
        out += ["%s has no valid sample (%s)" % (r["variant"], runs([r])) for r in wrows if not r["n"]]
    return out


def point_axis(point):
    """What a sweep's point varies: "iterations", "concurrency", the name of an
    environment variable, or "" for the base point."""
    name = point.partition("=")[0]
    return "" if "=" not in point else name


def point_x(point, sample):
    """The value on the point's axis (an integer when it is one), None for the base."""
    axis = point_axis(point)
    if not axis:
        return None
    if axis in ("iterations", "concurrency"):
        return sample[axis]
    value = point.partition("=")[2]
    return int(value) if re.match(r"[0-9]+\Z", value) else value


# The label of a sweep's base point: the run's own settings.  A row of a run
# without a sweep has no point ("" in samples.csv, None in older files).
BASE_POINT = "base"


def at_base_point(row):
    """True for a row (sample, line or summary row) of the base point: a
    sweep's "base", or the only point of a run without a sweep.  Every
    statistic of the variants themselves reads these rows; a sweep's other
    points are other settings."""
    return row.get("point") in (None, "", BASE_POINT)


def split_points(rows):
    """(the rows of the variants, the rows of a sweep's points): the variants'
    rows are those of the base point (a sweep's "base", or the only one), and
    carry "sweep": {axis: number of points} and sweep_iterations,
    sweep_concurrency, sweep_env (the points on such axes, None for none) when
    the run swept; the points are
    every row of a sweep, the base included, or [] without one."""
    swept = [r for r in rows if r.get("point")]
    base = [r for r in rows if at_base_point(r)]
    if swept:
        for r in base:
            axes = {}
            for p in swept:
                if p["variant"] == r["variant"] and p["axis"]:
                    axes[p["axis"]] = axes.get(p["axis"], 1) + 1
            r["sweep"] = axes
            # What the charts of runner/render.py ask for: points on each kind of axis.
            for kind in ("iterations", "concurrency", "env"):
                n = sum(c for a, c in axes.items()
                        if a == kind or (kind == "env" and a not in ("iterations", "concurrency")))
                r["sweep_" + kind] = n or None
    return base, swept


def _outside(s):
    """A sample's time outside its clock in ns (samples.csv's outside_ns, or
    wall_ns less elapsed_ns in a file older than the column)."""
    if s.get("outside_ns") is not None:
        return s["outside_ns"]
    if s.get("wall_ns") is None or s.get("elapsed_ns") is None:
        return None
    return max(0, s["wall_ns"] - s["elapsed_ns"])


def outside_fields(oks, median_ms):
    """The summary's figures of the time outside the clock, from a variant's ok
    samples: outside_ms (median of wall_ns - elapsed_ns), startup_ms (median of
    its language's empty program in the same rounds), warmup_ms (median of the
    warm-up pass the program reported), own_outside_ms (median, round by round,
    of the first less the other two: start-up aside, what the program did
    outside its clock that is not the warm-up the runner asked for),
    outside_share (that over the timed median) and outside_flag (the share
    above OUTSIDE_SHARE_MAX; None when a figure is missing)."""
    out = _median_or_none([_outside(s) for s in oks])
    start = _median_or_none([s.get("startup_ns") for s in oks])
    warm = _median_or_none([s.get("warmup_ns") for s in oks])
    own = _median_or_none([_outside(s) - s["startup_ns"] - (s.get("warmup_ns") or 0) for s in oks
                           if _outside(s) is not None and s.get("startup_ns") is not None])
    share = own / 1e6 / median_ms if own is not None and median_ms else None
    return {"outside_ms": _ms(out), "startup_ms": _ms(start), "warmup_ms": _ms(warm),
            "own_outside_ms": _ms(own), "outside_share": share,
            "outside_flag": None if share is None else share > OUTSIDE_SHARE_MAX}


def _median_or_none(xs):
    xs = [x for x in xs if x is not None]
    return stats.median(xs) if xs else None


def write_csv(rows, path):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(SUMMARY_CSV_COLUMNS)
    for r in rows:
        flat = dict(r, **r["statuses"])
        flat["warnings"] = "; ".join(r["warnings"])
        w.writerow(["" if flat.get(k) is None else _fmt_csv(flat[k])
                    for k in SUMMARY_CSV_COLUMNS])
    write_atomic(path, buf.getvalue())


def _fmt_csv(v):
    if isinstance(v, float):
        return "%.6g" % v
    return v


# Per-operation figures are shown in the largest unit that keeps them above 1.
SCALES = ((1e6, "ms"), (1e3, "µs"), (1.0, "ns"))


def op_scale(rows):
    """(divisor from ns, unit name) for the per-operation figures of rows: the
    unit of the median of their per-operation medians."""
    values = sorted(r["per_op_ns"] for r in rows if r.get("per_op_ns"))
    typical = values[len(values) // 2] if values else 0
    for div, name in SCALES:
        if typical >= div:
            return div, name
    return SCALES[-1]


def fmt_op(v, div):
    """A per-operation figure in ns (v) in the scale div (op_scale): fmt.num."""
    return fmt.num(None if v is None else v / div)


def per_op_ci(r, div):
    """'[118, 140]' per operation in the scale div; 'n too small' without a CI."""
    if r.get("per_op_ns_ci_low") is None:
        return "n too small" if r["n"] else "-"
    return "[%s, %s]" % (fmt_op(r["per_op_ns_ci_low"], div), fmt_op(r["per_op_ns_ci_high"], div))


# The marks of a ratio: not significant, and untestable (too few paired rounds).
SAME, UNTESTED = "~", "?"


def ratio_mark(r, prefix=""):
    """'~' when the paired interval includes 1, '?' when the rounds are too few
    for an interval and a test, '' when the difference is significant."""
    if r[prefix + "significant"] is False:
        return SAME
    if r[prefix + "significant"] is None:
        return UNTESTED
    return ""


def fmt_ratio(r, prefix=""):
    """'1.93x [1.85, 2.01]', '~ 1.01x [0.97, 1.05]' when not significant (the
    interval includes 1), '? 1.10x [3 rounds]' when the paired rounds are too
    few for an interval or a test, 'baseline' for the baseline itself, '-' when
    the ratio is missing, '' when no baseline rule applies.  prefix "lang_"
    gives the same-language ratio."""
    if r.get(prefix + "baseline") is None:
        return ""
    if r["variant"] == r[prefix + "baseline"]:
        return "baseline"
    if r.get(prefix + "ratio") is None:
        return "-"
    k = r.get(prefix + "rounds_paired") or 0
    return fmt.ratio(r[prefix + "ratio"], r[prefix + "ratio_ci_low"], r[prefix + "ratio_ci_high"],
                     ratio_mark(r, prefix), "[%d round%s]" % (k, "" if k == 1 else "s"))


def fmt_diff(r, prefix, div):
    """The difference from the baseline per operation in the scale div, signed,
    with its CI: '+6.3 [2.1, 9.0]'; '' for the baseline itself or no ratio."""
    if r.get(prefix + "baseline") in (None, r["variant"]) or r.get(prefix + "diff_per_op_ns") is None:
        return ""
    text = fmt.signed(r[prefix + "diff_per_op_ns"] / div)
    if r.get(prefix + "diff_per_op_ns_ci_low") is not None:
        text += " [%s, %s]" % (fmt_op(r[prefix + "diff_per_op_ns_ci_low"], div),
                               fmt_op(r[prefix + "diff_per_op_ns_ci_high"], div))
    return text


def baseline_labels(rows, prefix=""):
    """The labels of one baseline column (catalog order of first use)."""
    labels = []
    for r in rows:
        label = r.get(prefix + "baseline_label")
        if label and label not in labels:
            labels.append(label)
    return labels


def ratio_columns(rows):
    """[(prefix, header, labels)] of the ratio columns a table of rows needs: one per
    baseline key that some row has, headed by its labels from the data."""
    cols = []
    for _, prefix in BASELINE_KEYS:
        labels = baseline_labels(rows, prefix)
        if labels:
            cols.append((prefix, "vs " + " / ".join(labels), labels))
    return cols


def ratio_cell(r, prefix, labels):
    """fmt_ratio, naming the baseline when the column mixes several."""
    text = fmt_ratio(r, prefix)
    if len(labels) > 1 and text not in ("", "baseline", "-"):
        text += " (%s)" % r[prefix + "baseline_label"]
    return text


def unit_of(rows):
    """The workload's operation ('read') from its rows."""
    return next((r.get("unit") for r in rows if r.get("unit")), "operation")


def legend(rows):
    """The lines under a table that explain its marks (only the marks it uses)."""
    marks = {ratio_mark(r, p) for r in rows for _, p in BASELINE_KEYS
             if r.get(p + "ratio") is not None and r[p + "baseline"] != r["variant"]}
    out = ["ratios: time over the baseline's, median of the rounds paired in this run, "
           "with its 95% CI; Δ: the difference per operation, with its CI"]
    if SAME in marks:
        out.append("~ : no significant difference (the paired 95% CI includes 1; sign test "
                   "p >= 0.05)")
        lost = sum(1 for r in rows for _, p in BASELINE_KEYS
                   if r.get(p + "significant") is False and excludes_one(r, p))
        if lost:
            out.append("~ before an interval that excludes 1: the sign test does not survive the "
                       "false discovery rate control over the run's %d comparisons "
                       "(Benjamini-Hochberg, q > 0.05), so no difference is named"
                       % family_size(rows))
    if UNTESTED in marks:
        out.append("? : too few paired rounds for a CI or a test (%d needed): no verdict "
                   "either way" % stats.min_samples_for_ci())
    return out


def table_cells(wrows):
    """(head, body rows, scale) of one workload's table: variant, n, time per
    operation with its CI, then per baseline column the ratio and the
    difference per operation.  The terminal table, REPORT.md and the markdown
    export all format the same cells."""
    div, uname = op_scale(wrows)
    unit = unit_of(wrows)
    cols = ratio_columns(wrows)
    head = ["variant", "n", "%s/%s" % (uname, unit), "95% CI"]
    for _, header, _ in cols:
        head += [header, "Δ %s/%s" % (uname, unit)]
    body = []
    for r in wrows:
        n = "%d" % r["n"]
        if r["n"] != sum(r["statuses"].values()):
            n += "/%d" % sum(r["statuses"].values())
        cells = [r["label"], n, fmt_op(r.get("per_op_ns"), div), per_op_ci(r, div)]
        for prefix, _, labels in cols:
            cells += [ratio_cell(r, prefix, labels), fmt_diff(r, prefix, div)]
        body.append(cells)
    return head, body, (div, uname)


def terminal_table(rows):
    """The table printed at the end of a run: a block per workload with its own
    header (time per operation; the ratio columns are named by the catalog's
    baseline labels, each with the difference per operation beside it), a
    section per mode, and the legend of its marks."""
    lines = []
    for workload in sorted({r["workload"] for r in rows}):
        wrows = [r for r in rows if r["workload"] == workload]
        head, body, _ = table_cells(wrows)
        widths = [max([len(head[i])] + [len(b[i]) for b in body]) for i in range(len(head))]
        align = [str.ljust, str.rjust, str.rjust, str.ljust] + [str.ljust] * (len(head) - 4)

        def line(cells):
            return "  ".join(align[i](c, widths[i]) for i, c in enumerate(cells)).rstrip()
        if lines:
            lines.append("")
        lines.append("== %s (N = %s) ==" % (workload, wrows[0]["iterations"]))
        lines.append(line(head))
        mode = None
        for r, b in zip(wrows, body):
            if r["mode"] != mode:
                mode = r["mode"]
                lines.append("-- %s " % mode + "-" * max(0, sum(widths[:4]) + 6 - len(mode)))
            lines.append(line(b))
    lines += legend(rows)
    return "\n".join(lines)
