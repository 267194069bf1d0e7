"""contract.py -- checks one result line against the program contract.

Usage: python3 -m runner.catalog.contract [--catalog DIR] ID N LINE [--FLAG VALUE ...] [--concurrency K] [--passes P]

Exits 0 when LINE is exactly one JSON object on one line that carries the
fields of DESIGN section 3 in their order, each of its type (a workload's own
integer fields may follow `runtime`), whose workload, lang, style, shape, mode,
method, backend and variant equal the catalog entry of ID, and that reports a
valid run of N iterations: iterations == ok == N, elapsed_ns and peak_rss_kb
positive, 0 < idle_rss_kb <= peak_rss_kb (the peak before the timed section), and every check of the workload's catalog file true (readfile:
bytes == iterations * len(expect)).  The checks see the workload's flags with
the catalog's values unless a --FLAG VALUE says otherwise (e.g. --expect
'Hello'); --concurrency K also requires the line's concurrency to be K, or N
when N is smaller (the most in flight).  passes_elapsed_ns, every timed
pass's time, is a list of P positive integers whose first is elapsed_ns: P is
--passes (1 when not given: the programs' default), and the field may be
missing only when P is 1.  sampled_rss_kb, a harness's memory figure
(the largest RSS sampled less idle_rss_kb), is an integer from -idle_rss_kb to
peak_rss_kb - idle_rss_kb, and a perfjs line must carry it.
Otherwise prints "ID: the first problem found" to stderr and exits 1; a bad
call exits 2, a broken catalog 3.  The runner imports problem(), and --render
(runner/catalog/samples.py: row_problem) figures_problem(), its checks of the figures,
for the figures a samples.csv row keeps.
"""
import functools
import sys

from . import catalog
from . import catalog_check
from ..core import expr
from ..core.files import json_loads

# The contract's fields in the order of DESIGN section 3, with their JSON types.
STRING_FIELDS = ("workload", "lang", "style", "shape", "mode", "method", "backend", "variant")
INT_FIELDS = catalog_check.LINE_INTS
ORDER = STRING_FIELDS + INT_FIELDS + ("runtime",)
# Optional counts of the timed pass (the C harness writes the first five,
# c/lib/counters.h; runner/analysis/accounting.py reads them; every language writes what
# the pass did before its clock and how long its warm-up took, DESIGN section
# 3): integers >= 0 when present.
OPTIONAL_INTS = ("threadpool_trips", "allocs", "pool_gets", "nvcsw", "nivcsw",
                 "preclock_heap_bytes", "preclock_faults", "warmup_ns")
# A whole-process harness's own memory figure, in KiB: the largest RSS it
# sampled (after its start loop and at every completion) less the RSS at its
# start (idle_rss_kb), as bluebird's benchmark/performance.js reports it.  A
# line of a method in SAMPLED_METHODS must carry it; any line that does holds
# it from -idle_rss_kb to peak_rss_kb - idle_rss_kb (RSS may fall below the
# start, never below 0 nor above the peak).  It may be negative.
SAMPLED_FIELD = "sampled_rss_kb"
SAMPLED_METHODS = ("perfjs",)
# Every timed pass's time (--passes P: P positive integers, the first being
# elapsed_ns); every program writes it, and a line without it ran one pass.
PASSES_FIELD = "passes_elapsed_ns"
# The most passes a program runs (C's AB_PASSES_MAX, Go's MaxPasses, Node's MAX_PASSES).
MAX_PASSES = 10000
# Strings that may be empty: a variant without a shape prints "".
MAY_BE_EMPTY = ("shape",)
# Fields that must equal the catalog entry of the variant.
CATALOG_FIELDS = catalog.FIELDS


def _is_int(x):
    # bool is an int subclass in Python; true/false is not a count.
    return isinstance(x, int) and not isinstance(x, bool)


def _parse(line):
    """(object, None) for one JSON object on one line, else (None, the problem)."""
    if "\n" in line.strip("\n"):
        return None, "expected exactly one line, got %d" % len(line.strip("\n").split("\n"))
    text = line.strip()
    if not text:
        return None, "the line is empty"
    try:
        obj = json_loads(text, object_pairs_hook=catalog_check.unique_keys)
    except catalog_check.DuplicateKey as e:
        return None, "%s: the line must say each field once" % e
    except ValueError as e:
        return None, "not JSON (%s): %r" % (e, text[:120])
    if not isinstance(obj, dict):
        return None, "not a JSON object: %r" % text[:120]
    return obj, None


def _shape_problem(obj, extra):
    """The first field missing, out of order or of the wrong type, or None."""
    for k in ORDER + tuple(extra):
        if k not in obj:
            return "field %r is missing" % k
    keys = list(obj)
    if keys[:len(ORDER)] != list(ORDER):
        got = [k for k in keys if k in ORDER]
        i = next((i for i, (a, b) in enumerate(zip(got, ORDER)) if a != b), None)
        if i is None:   # the contract's fields in order, another one among them
            i = next(i for i, k in enumerate(keys) if k not in ORDER)
            return "field %r comes before %r: a workload's own fields follow runtime" % (
                keys[i], ORDER[i])
        return "fields out of order: %r where %r belongs (DESIGN section 3's order)" % (got[i], ORDER[i])
    for k in STRING_FIELDS + ("runtime",):
        if not isinstance(obj[k], str) or (not obj[k] and k not in MAY_BE_EMPTY):
            return "field %r must be a %sstring, got %r" % (
                k, "" if k in MAY_BE_EMPTY else "non-empty ", obj[k])
    for k in INT_FIELDS + tuple(extra) + tuple(k for k in OPTIONAL_INTS if k in obj):
        if not _is_int(obj[k]):
            return "field %r must be an integer, got %r" % (k, obj[k])
        if obj[k] < 0:
            return "field %r must not be negative, got %d" % (k, obj[k])
    return None


@functools.lru_cache(maxsize=256)
def _parsed(text, field):
    """expr.parse_check of a check, parsed once (--render checks every row)."""
    return expr.parse_check(text, "check %r" % field)


def _check_problem(entry, obj, n, values, partial=False):
    """The first of the workload's checks that the line fails, or None.  With
    partial (obj holds only some of the line's fields), a check on a field obj
    does not hold, or naming one, is not made."""
    env = {k: v for k, v in obj.items() if _is_int(v)}
    env["iterations"] = n
    env.update(values)
    for field, text in entry["checks"].items():
        tree, names = _parsed(text, field)
        if partial and (field not in obj or not names <= set(env)):
            continue
        try:
            want = expr.evaluate(tree, env)
        except ValueError as e:
            return "check %s == %s cannot be evaluated: %s" % (field, text, e)
        if not _is_int(want):
            # The catalog refuses such a check; a run.json edited by hand may hold one.
            return "check %s == %s gives %r, not an integer" % (field, text[:80], want)
        if not -2 ** 63 <= want < 2 ** 63:
            return "check %s == %s... gives a number beyond 64 bits" % (field, text[:40])
        if obj[field] != want:
            return "%s is %d, expected %d (%s)" % (field, obj[field], want, text)
    return None


def _passes_problem(obj, passes):
    """The first way the line's passes_elapsed_ns breaks the contract for a run
    of `passes` timed passes, or None."""
    if PASSES_FIELD not in obj:
        return None if passes == 1 else "field %r is missing (a run of %d passes)" % (
            PASSES_FIELD, passes)
    times = obj[PASSES_FIELD]
    if not isinstance(times, list) or not all(_is_int(t) for t in times):
        return "field %r must be a list of integers, got %r" % (PASSES_FIELD, times)
    if len(times) != passes:
        return "%s has %d %s, expected %d (one a timed pass)" % (
            PASSES_FIELD, len(times), "entry" if len(times) == 1 else "entries", passes)
    bad = next((t for t in times if t <= 0), None)
    if bad is not None:
        return "%s must hold positive times, got %d" % (PASSES_FIELD, bad)
    if times[0] != obj["elapsed_ns"]:
        return "%s starts with %d, not elapsed_ns %d (the first timed pass)" % (
            PASSES_FIELD, times[0], obj["elapsed_ns"])
    return None


def problem(entry, n, line, workload_values=None, concurrency=None, passes=1):
    """Returns a sentence naming the first way LINE breaks the contract for the
    catalog variant `entry` run with N iterations, or None when it keeps it.
    workload_values ({"expect": ..., ...}, by check name) overrides the catalog's
    flag values the checks see; with `concurrency`, the K the runner gave, the
    line must report that many operations in flight (figures_problem);
    `passes` is the --passes P the program was given (1, its default, when not)."""
    obj, why = _parse(line)
    if why:
        return why
    if entry.get("runtime"):
        # A pinned version (DESIGN section 11): the program names the variant
        # as on any runtime, and its runtime must be the version of the id.
        why = runtime_problem(entry, obj.get("runtime"))
        if why:
            return why
        entry = dict(entry, id=catalog.unversioned_id(entry))
    why = _shape_problem(obj, entry.get("extra_fields", ()))
    if why:
        return why
    why = figures_problem(entry, obj, n, workload_values, concurrency)
    if why:
        return why
    why = _sampled_problem(obj)
    if why:
        return why
    return _passes_problem(obj, passes)


# How each language's line names its runtime's version (node: "node v20.8.0
# (V8 ..., libuv ...)", Go: runtime.Version(), "go1.21.13").
RUNTIME_NAMES = {"node": "node v%s", "go": "go%s"}


def runtime_problem(entry, runtime):
    """Why a line's runtime is not the version of the variant's id (a variant of
    a pinned version), or None."""
    want = RUNTIME_NAMES.get(entry["lang"], entry["lang"] + " %s") % entry["runtime"]
    if not isinstance(runtime, str) or not (runtime == want or runtime.startswith(want + " ")):
        return "runtime is %r: the id %s names %s" % (runtime, entry["id"], want)
    return None


def figures_problem(entry, obj, n, workload_values=None, concurrency=None, partial=False):
    """The first way the figures of a run of the catalog variant `entry` with N
    iterations break the contract, or None.  obj is a line's object (every
    field there, of its type: problem() checked them first) or, with partial,
    the line's figures that a samples.csv row keeps (runner/catalog/samples.py:
    row_problem): then a check on a field obj does not hold (a workload's own
    fields, peak_rss_kb, the line's concurrency) is not made.  The one logic
    both the runner (on every line) and --render (on every row) apply.

    The variant, its catalog fields, iterations == ok == N, every check of the
    workload's catalog file (readfile: bytes == iterations * len(expect)),
    elapsed_ns and peak_rss_kb positive, 0 < idle_rss_kb <= peak_rss_kb.
    `concurrency` is the K the runner gave: it must be the one it gives a
    variant of the mode (catalog.given_concurrency), and the line must report
    the most operations in flight, K or N when N is smaller."""
    if obj["variant"] != entry["id"]:
        return "variant is %r, the catalog says %r" % (obj["variant"], entry["id"])
    for k in CATALOG_FIELDS:
        if k in obj and obj[k] != entry[k]:
            return "%s is %r, the catalog says %r for %s" % (k, obj[k], entry[k], entry["id"])
    if obj["iterations"] != n:
        return "iterations is %d, expected %d" % (obj["iterations"], n)
    if obj["ok"] != n:
        return "ok is %d, expected %d (every completion verified)" % (obj["ok"], n)
    values = dict(entry.get("flag_values", {}))
    values.update(workload_values or {})
    why = _check_problem(entry, obj, n, values, partial)
    if why:
        return why
    if concurrency is not None:
        # The line reports the most in flight: K, or N when N is smaller.
        if "concurrency" in obj and obj["concurrency"] != min(concurrency, n):
            return "concurrency is %d, expected %d" % (obj["concurrency"], min(concurrency, n))
        why = catalog.given_concurrency_problem(entry["mode"], concurrency)
        if why:
            return why
    if obj["elapsed_ns"] <= 0:
        return "elapsed_ns must be positive, got %d" % obj["elapsed_ns"]
    peak = obj.get("peak_rss_kb")
    if peak is not None and peak <= 0:
        return "peak_rss_kb must be positive, got %d" % peak
    idle = obj.get("idle_rss_kb")
    if idle is not None and not (0 < idle and (peak is None or idle <= peak)):
        if peak is None:
            return "idle_rss_kb must be positive, got %d" % idle
        return ("idle_rss_kb must be positive and at most peak_rss_kb (%d), got %d"
                % (peak, idle))
    return None


def _sampled_problem(obj):
    """The first way the line's sampled_rss_kb breaks the contract, or None."""
    if SAMPLED_FIELD not in obj:
        if obj["method"] in SAMPLED_METHODS:
            return "field %r is missing: a %s line carries its harness's memory figure" % (
                SAMPLED_FIELD, obj["method"])
        return None
    v = obj[SAMPLED_FIELD]
    if not _is_int(v):
        return "field %r must be an integer, got %r" % (SAMPLED_FIELD, v)
    low, high = -obj["idle_rss_kb"], obj["peak_rss_kb"] - obj["idle_rss_kb"]
    if not low <= v <= high:
        return ("%s is %d: the RSS it samples lies between 0 and the peak, so it is from %d "
                "to %d (peak_rss_kb - idle_rss_kb)" % (SAMPLED_FIELD, v, low, high))
    return None


class _Usage(Exception):
    pass


def _call(args):
    """(catalog dir, id, n, line, workload values, concurrency, passes) of a command line."""
    path = catalog.DIR
    rest, flags, concurrency, passes = [], {}, None, "1"
    i = 0
    while i < len(args):
        a = args[i]
        if a.startswith("--") and len(a) > 2:
            if i + 1 >= len(args):
                raise _Usage("%s needs a value" % a)
            if a == "--catalog":
                path = args[i + 1]
            elif a == "--concurrency":
                concurrency = args[i + 1]
            elif a == "--passes":
                passes = args[i + 1]
            else:
                flags[a] = args[i + 1]
            i += 2
        else:
            rest.append(a)
            i += 1
    if len(rest) != 3:
        raise _Usage("expected ID N LINE, got %d arguments" % len(rest))
    vid, n_text, line = rest
    if not n_text.isdigit() or int(n_text) < 1:
        raise _Usage("N must be a positive integer, got %r" % n_text)
    if concurrency is not None:
        if not concurrency.isdigit():
            raise _Usage("--concurrency must be an integer >= 0, got %r" % concurrency)
        concurrency = int(concurrency)
    if not passes.isdigit() or not 1 <= int(passes) <= MAX_PASSES:
        raise _Usage("--passes must be an integer from 1 to %d, got %r" % (MAX_PASSES, passes))
    return path, vid, int(n_text), line, flags, concurrency, int(passes)


def main(args):
    if not args or args[0] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stdout if args else sys.stderr)
        return 0 if args else 2
    try:
        path, vid, n, line, flags, concurrency, passes = _call(list(args))
        cat = catalog.load(path)
        entry = cat.find(vid)
        if entry is None:
            raise _Usage("unknown variant %r (see: python3 -m runner.catalog.catalog_cli ids)" % vid)
        known = cat.workloads[entry["workload"]]["flags"]
        for flag in flags:
            if flag not in known:
                raise _Usage("%s has no flag %s (its flags: %s)" % (
                    entry["workload"], flag, ", ".join(known) or "none"))
        values = {expr.flag_key(f): v for f, v in flags.items()}
    except _Usage as e:
        print("contract.py: %s" % e, file=sys.stderr)
        return 2
    except catalog.CatalogError as e:
        print("contract.py: %s" % e, file=sys.stderr)
        return 3
    why = problem(entry, n, line, values, concurrency, passes)
    if why is not None:
        print("%s: %s" % (vid, why), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
