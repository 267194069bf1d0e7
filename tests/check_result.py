"""check_result.py -- checks one result line against the program contract.

Usage: check_result.py VARIANT_ID N LINE [EXPECT]

Exits 0 when LINE is exactly one JSON object on one line that carries every
field of DESIGN section 3 with the right type, whose workload, lang, style,
mode, backend and variant equal the catalog entry of VARIANT_ID, and that
reports a valid run of N iterations: iterations == ok == N, bytes == N times
the byte length of EXPECT (default: the catalog's "expect"), elapsed_ns > 0.
Otherwise prints the first problem found to stderr and exits 1 (2 for a bad
invocation of this script).  Standard library only.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "runner"))
import catalog  # noqa: E402  (runner/catalog.py, found through the path above)

# The contract's fields and their JSON types, in the order of DESIGN section 3.
STRING_FIELDS = ("workload", "lang", "style", "mode", "backend", "variant")
INT_FIELDS = ("iterations", "concurrency", "ok", "bytes", "elapsed_ns",
              "user_us", "sys_us", "peak_rss_kb")
ALL_FIELDS = STRING_FIELDS + INT_FIELDS + ("runtime",)
# Fields that must equal the catalog entry of the variant.
CATALOG_FIELDS = ("workload", "lang", "style", "mode", "backend")


def problem(entry, n, line, expect, concurrency=None):
    """Returns a sentence naming the first way LINE breaks the contract, or None.
    With `concurrency`, the line must also report that many operations in flight
    (the runner passes the catalog's value, which it also gave the program)."""
    if "\n" in line.strip("\n"):
        return "expected exactly one line, got %d" % len(line.strip("\n").split("\n"))
    text = line.strip()
    if not text:
        return "the line is empty"
    try:
        obj = json.loads(text)
    except ValueError as e:
        return "not JSON (%s): %r" % (e, text[:120])
    if not isinstance(obj, dict):
        return "not a JSON object: %r" % text[:120]
    for k in ALL_FIELDS:
        if k not in obj:
            return "field %r is missing" % k
    for k in STRING_FIELDS + ("runtime",):
        if not isinstance(obj[k], str) or not obj[k]:
            return "field %r must be a non-empty string, got %r" % (k, obj[k])
    for k in INT_FIELDS:
        # bool is an int subclass in Python; true/false is not a count.
        if not isinstance(obj[k], int) or isinstance(obj[k], bool):
            return "field %r must be an integer, got %r" % (k, obj[k])
        if obj[k] < 0:
            return "field %r must not be negative, got %d" % (k, obj[k])
    if obj["variant"] != entry["id"]:
        return "variant is %r, the catalog says %r" % (obj["variant"], entry["id"])
    for k in CATALOG_FIELDS:
        if obj[k] != entry[k]:
            return "%s is %r, the catalog says %r for %s" % (k, obj[k], entry[k], entry["id"])
    if obj["iterations"] != n:
        return "iterations is %d, expected %d" % (obj["iterations"], n)
    if obj["ok"] != n:
        return "ok is %d, expected %d (every completion verified)" % (obj["ok"], n)
    want_bytes = n * len(expect.encode("utf-8"))
    if obj["bytes"] != want_bytes:
        return "bytes is %d, expected %d (%d x %d)" % (
            obj["bytes"], want_bytes, n, len(expect.encode("utf-8")))
    if concurrency is not None and obj["concurrency"] != concurrency:
        return "concurrency is %d, expected %d" % (obj["concurrency"], concurrency)
    if obj["elapsed_ns"] <= 0:
        return "elapsed_ns must be positive, got %d" % obj["elapsed_ns"]
    if obj["peak_rss_kb"] <= 0:
        return "peak_rss_kb must be positive, got %d" % obj["peak_rss_kb"]
    return None


def main(args):
    if len(args) not in (3, 4) or args[0] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    vid, n_text, line = args[0], args[1], args[2]
    try:
        n = int(n_text)
    except ValueError:
        print("check_result.py: N must be an integer, got %r" % n_text, file=sys.stderr)
        return 2
    cat = catalog.load()
    entry = catalog.find(cat, vid)
    if entry is None:
        print("check_result.py: unknown variant %r" % vid, file=sys.stderr)
        return 2
    expect = args[3] if len(args) == 4 else cat["defaults"]["expect"]
    why = problem(entry, n, line, expect)
    if why is not None:
        print("%s: %s" % (vid, why), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
