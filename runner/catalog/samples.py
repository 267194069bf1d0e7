"""samples.py -- reading samples.csv: its columns, every row checked again as
the runner checked the program's line when it wrote it (read_samples,
row_problem), with the checks and flag values the run recorded
(workload_contracts).

A file the runner could not have written is refused with one line naming the
file and the line; runner/analysis/summary.py makes the statistics of what is read.
"""
import csv
import io
import re

from . import catalog
from . import catalog_check
from . import contract
from ..core import expr
from ..core.files import open_text

# The launcher's (wait4's) figures of the whole process are proc_ columns; a
# file written before they were named so has them under the line's names.
OLD_NAMES = {"user_us": "proc_user_us", "sys_us": "proc_sys_us", "peak_rss_kb": "proc_peak_rss_kb"}
SAMPLE_COLUMNS = ["round", "order", "variant", "workload", "lang", "style", "mode",
                  "backend", "iterations", "concurrency", "status", "exit_code",
                  "elapsed_ns", "wall_ns", "proc_user_us", "proc_sys_us", "proc_peak_rss_kb", "ok", "bytes",
                  "shape", "method", "label", "idle_rss_kb", "env", "point",
                  "outside_ns", "startup_ns", "warmup_ns", "pass", "sampled_rss_kb", "runtime"]
# samples.csv may end after any column from this one on: a file written before the
# later columns existed is read with them empty.  New columns are appended.
BASE_COLUMNS = 22
INT_COLUMNS = ("round", "order", "iterations", "concurrency", "exit_code", "elapsed_ns",
               "wall_ns", "proc_user_us", "proc_sys_us", "proc_peak_rss_kb", "ok", "bytes", "idle_rss_kb",
               "outside_ns", "startup_ns", "warmup_ns", "pass", "sampled_rss_kb")
STATUSES = ("ok", "invalid", "failed", "timeout", "crashed")

# Columns every row of samples.csv has (the runner always writes them); the
# others are empty when the program gave no line (elapsed_ns, ok, bytes) or the
# launcher no figure.
REQUIRED_COLUMNS = ("round", "order", "variant", "workload", "lang", "style", "mode",
                    "backend", "iterations", "concurrency", "status")
# Integer columns that are counts from 1 (the others are 0 or more; exit_code
# may be anything the launcher reported, sampled_rss_kb below 0 when a
# harness's RSS fell below its start: runner/catalog/contract.py).
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
    with open_text(path, newline="") as f:
        text = f.read()
    reader = csv.reader(io.StringIO(text))
    try:
        header = next(reader, None)
        records = list(enumerate(reader, start=2))
    except csv.Error as e:
        # A field past csv's limit (128 KiB: no row the runner writes holds one).
        raise ValueError("%s:%d: %s" % (path, reader.line_num, e)) from None
    if header is not None:
        header = [OLD_NAMES.get(c, c) for c in header]
    if (header is None or len(header) < BASE_COLUMNS
            or header != SAMPLE_COLUMNS[:len(header)]):
        raise ValueError("%s: header is %r, expected the columns %s"
                         % (path, header, ",".join(SAMPLE_COLUMNS)))
    columns = header
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


# The figures of a program's line that samples.csv keeps (runner/measure/measure.py:
# sample_row), beside its iterations: what --render checks again.  The others
# (the workload's own fields, the line's user_us, sys_us, peak_rss_kb and
# concurrency) are not in the file: its proc_ columns are the launcher's
# (wait4's), its concurrency the K given.
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
    pass the same checks the runner made on the line (runner/catalog/contract.py:
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

