"""ids.py -- the id rule of a variant (runner/catalog/catalog.py's module doc):
its fields, its name, label and id, and the fields back from an id; the K the
runner gives a variant by its mode; runtime versions compared.  Imports no
other runner module: everyone may use it, the catalog included.
"""
import json
import os
import re
from . import paths

# The project's own suite.json (its methods split an id, suite_methods()).
SUITE_JSON = os.path.join(paths.CATALOG, "suite.json")

# The fields of a variant, in the order of the id; each may be a list in a
# matrix entry.  workload comes from the file.
MATRIX_FIELDS = ("lang", "style", "shape", "method", "mode", "backend")
FIELDS = ("workload",) + MATRIX_FIELDS
FIELD_DEFAULTS = {"shape": "", "method": "inprocess"}
WORD = re.compile(r"[a-z][a-z0-9]*\Z")


def variant_name(fields):
    """style[-shape][-method]-mode: what a driver's --variant takes (the method
    only when it is not inprocess; an empty one, as in a samples.csv row written
    before the column existed, is inprocess)."""
    parts = [fields["style"]]
    if fields.get("shape"):
        parts.append(fields["shape"])
    if (fields.get("method") or "inprocess") != "inprocess":
        parts.append(fields["method"])
    parts.append(fields["mode"])
    return "-".join(parts)


def variant_label(fields):
    """lang[@runtime]/name@backend: the id without the workload.  runtime is a
    pinned version of the language (DESIGN section 11), named only when the
    variant runs on it rather than on the host's own node or go."""
    lang = fields["lang"] + ("@" + fields["runtime"] if fields.get("runtime") else "")
    return "%s/%s@%s" % (lang, variant_name(fields), fields["backend"])


def variant_id(fields):
    """workload/lang[@runtime]/name@backend, e.g. readfile/c/promise-counter-parallel@node4,
    doxbee/node@10.24.1/promise-parallel-parallel@bluebird."""
    return "%s/%s" % (fields["workload"], variant_label(fields))


def unversioned_id(fields):
    """The id of the variant on the host's own runtime: what a program's line
    names whatever version runs it (the version is the runner's, DESIGN
    section 11)."""
    return variant_id(dict(fields, runtime=None))


def runtime_key(fields):
    """lang, or lang@version for a variant of a pinned version: what keys a
    language's start-up and its runtime's description in a run."""
    return fields["lang"] + ("@" + fields["runtime"] if fields.get("runtime") else "")


# The K the runner gives a variant by its mode (DESIGN section 3): one at a time
# sequential, all N at once parallel (0); a bounded variant gets the suite's
# bound, or a sweep point's K, at least 1 either way (--concurrency, bounded
# mode only).
MODE_CONCURRENCY = {"sequential": 1, "parallel": 0}


def given_concurrency(mode, bound):
    """The K the runner gives a variant of mode (bound: the suite's, for bounded)."""
    return MODE_CONCURRENCY.get(mode, bound)


def given_concurrency_problem(mode, k):
    """Why K cannot be what the runner gave a variant of mode, or None."""
    want = MODE_CONCURRENCY.get(mode)
    if want is None:
        if k >= 1:
            return None
        return "concurrency is %d: the runner gives a %s variant a bound of 1 or more" % (k, mode)
    if k != want:
        return "concurrency is %d: the runner gives a %s variant %d" % (k, mode, want)
    return None


_SUITE_METHODS = []


def suite_methods():
    """The methods of the project's own suite.json (read once)."""
    if not _SUITE_METHODS:
        with open(SUITE_JSON, encoding="utf-8") as f:
            _SUITE_METHODS.extend(json.load(f)["methods"])
    return list(_SUITE_METHODS)


def parse_id(vid, methods=None):
    """The fields of an id (the inverse of variant_id), or None when vid does not
    follow the rule.  methods are the catalog's (default: suite_methods()); a
    shape is never one of them and every part is a single word, so the split is
    unambiguous."""
    if methods is None:
        methods = suite_methods()
    m = re.match(r"([a-z][a-z0-9]*)/([a-z][a-z0-9]*)(?:@([0-9]+\.[0-9]+\.[0-9]+))?/([a-z0-9-]+)@([A-Za-z0-9._]+)\Z",
                 vid)
    if not m:
        return None
    words = m.group(4).split("-")
    if len(words) < 2 or not all(WORD.match(w) for w in words):
        return None
    method = "inprocess"
    if len(words) >= 3 and words[-2] != "inprocess" and words[-2] in methods:
        method = words[-2]
        del words[-2]
    if len(words) > 3 or (len(words) == 3 and words[1] in methods):
        return None
    out = {"workload": m.group(1), "lang": m.group(2), "style": words[0],
           "shape": words[1] if len(words) == 3 else "", "method": method,
           "mode": words[-1], "backend": m.group(5)}
    if m.group(3):
        out["runtime"] = m.group(3)
    return out


def version_key(version):
    """A runtime version as a tuple of integers, for comparing: "10.24.1" -> (10, 24, 1)."""
    return tuple(int(p) for p in version.split("."))
