"""catalog_check.py -- what a catalog file may hold (runner/catalog/catalog.py's
module doc is the schema): the allowed keys, the upper bounds of its numbers,
a JSON object read with no key twice, the checks shared by suite.json and the
workload files, and suite.json's own.  Each raises CatalogError with one line.
"""
import json
import os
import re

from ..core.errors import CatalogError
from ..core.files import json_load, open_text
from ..core.expr import MAX_ITERATIONS, MAX_PASSES, warmup_expr, warmup_round_n
from ..core.ids import FIELDS, MATRIX_FIELDS, WORD, version_key
from ..core import paths

ROOT = paths.ROOT

ENTRY_KEYS = set(MATRIX_FIELDS) | {"argv", "profiles", "about", "requires", "exclude", "env", "warmup",
                                   "passes"}
WORKLOAD_KEYS = {"workload", "about", "unit", "flags", "checks", "requires", "profiles",
                 "baselines", "claims", "charts", "variants", "fields", "targets", "bad_inputs",
                 "threadless", "warmup", "passes"}
WARMUP_KEYS = {"iterations", "about"}
PASSES_KEYS = {"count", "about"}
TARGET_KEYS = {"id", "what", "variant", "against", "max_ratio", "max_diff_per_op_ns",
               "max_bytes_ratio", "max_outside_ms", "max_outside_share", "max_ns_per_op", "max_bytes_per_op",
               "ops_per_iteration", "at_iterations"}
TARGET_BOUNDS = ("max_ratio", "max_diff_per_op_ns", "max_bytes_ratio")  # of a pair
OWN_TARGET_BOUNDS = ("max_ns_per_op", "max_bytes_per_op")  # of the variant's own figure
SUITE_KEYS = {"about", "modes", "methods", "method_titles", "styles", "bound", "profiles", "bad_inputs", "startup", "runtimes"}
RUNTIME_LANG_KEYS = {"versions", "needs"}
NEED_KEYS = {"for", "min", "why"}
VERSION = re.compile(r"[0-9]+\.[0-9]+\.[0-9]+\Z")
STARTUP_KEYS = {"about", "programs"}
BAD_INPUT_KEYS = {"flags", "exit", "says", "words"}
# A flag word of a bad input that the test makes: a FIFO, an unreadable file,
# a regular file holding TEXT.
BAD_INPUT_FILE = re.compile(r"\{(fifo|unreadable|file:[^{}]*)\}\Z")
FLAG_KEYS = {"value", "path", "test", "about"}
RULE_KEYS = {"key", "label", "for", "baseline"}
REQUIREMENTS = {"os", "node", "probe", "server"}
SERVER_KEYS = {"argv", "lang", "port_flag", "ready_timeout_s", "warm"}
SERVER_WARM_KEYS = {"argv", "timeout_s", "about"}
# Operating systems a requirement may name (platform.system(), lower case).
OSES = ("linux", "darwin", "freebsd", "openbsd", "netbsd", "windows")
# The integer fields of every JSON line (runner/catalog/contract.py checks them).
LINE_INTS = ("iterations", "concurrency", "ok", "bytes", "elapsed_ns", "user_us",
             "sys_us", "peak_rss_kb", "idle_rss_kb")

# The flags of the program contract (DESIGN section 3), which the runner gives
# every program itself: a workload flag of one of these names would be given
# twice, and every run of the workload charged with what the catalog got wrong.
CONTRACT_FLAGS = ("--iterations", "--concurrency", "--warmup", "--passes", "--variant", "--help")

# A workload's own field of the line: snake case, as the contract's are (peak_rss_kb).
FIELD = re.compile(r"[a-z][a-z0-9_]*\Z")
BACKEND = re.compile(r"[A-Za-z0-9._]+\Z")
ENV_NAME = re.compile(r"[A-Z_][A-Z0-9_]*\Z")


def show_path(path):
    """path as a message shows it: relative to the project root when inside it."""
    rel = os.path.relpath(os.path.abspath(path), ROOT)
    return path if rel.startswith("..") else rel


class DuplicateKey(ValueError):
    """A JSON object names a key twice (unique_keys)."""


def unique_keys(pairs):
    """json's object_pairs_hook that refuses a key given twice in one object
    (ValueError naming it): json keeps the last silently, so a catalog file with
    two "--expect" keys, or a line with "ok":0,"ok":5, would say one thing and
    be read as another."""
    obj = {}
    for k, v in pairs:
        if k in obj:
            raise DuplicateKey("key %s appears twice in one object" % json.dumps(k)[:80])
        obj[k] = v
    return obj


def read_object(path, allowed):
    """(the JSON object of path, path as messages show it); CatalogError when it
    is unreadable, not JSON (a key twice in one object included), not an
    object, or has a key outside allowed."""
    show = show_path(path)
    try:
        with open_text(path) as f:
            obj = json_load(f, object_pairs_hook=unique_keys)
    except OSError as e:
        raise CatalogError("%s: cannot read it: %s" % (show, e.strerror or e)) from None
    except DuplicateKey as e:
        raise CatalogError("%s: %s (the last would win silently)" % (show, e)) from None
    except ValueError as e:
        raise CatalogError("%s: not JSON: %s" % (show, e)) from None
    if not isinstance(obj, dict):
        raise CatalogError("%s: must be a JSON object" % show)
    check_known(obj, allowed, show)
    return obj, show


def check_positive(t, key, where, most):
    """t[key] is a number above 0 and below most, else a CatalogError."""
    b = t[key]
    if type(b) not in (int, float) or not 0 < b < most:
        raise CatalogError("%s: %s must be a positive number, got %r" % (where, key, b))


def check_known(keys, allowed, where):
    extra = sorted(set(keys) - set(allowed))
    if extra:
        raise CatalogError("%s: unknown field %s (known: %s)" % (
            where, ", ".join(repr(k) for k in extra), ", ".join(sorted(allowed))))


# Upper bounds of the catalog's numbers: a figure beyond them is a typo, and
# json accepts NaN and Infinity (a NaN timeout made every run an instant
# timeout; a timeout beyond threading's limit killed the timer thread).
# The largest N, MAX_ITERATIONS, is expr.py's (warmup_for needs it).
MAX_ROUNDS = 10000
MIN_TIMEOUT_S = 0.1
MAX_TIMEOUT_S = 86400
MAX_BOUND = 10 ** 6


def regex_problem(pattern):
    """Why pattern is no regular expression Python can use, or None: re's own
    error, or nesting deeper than its parser follows (RecursionError) and a
    repeat too large for it (OverflowError), which re does not call errors."""
    try:
        re.compile(pattern)
    except re.error as e:
        return str(e)
    except (RecursionError, OverflowError, MemoryError):
        return "nested too deeply or too large for Python's re"
    return None


def check_integer(value, lo, hi, where, what):
    """value when it is an integer from lo to hi (not a bool); CatalogError else."""
    if type(value) is not int or not lo <= value <= hi:
        raise CatalogError("%s: %s must be an integer from %d to %d, got %r" % (where, what, lo, hi, value))
    return value


def check_seconds(value, hi, where, what):
    """value when it is a number of seconds from MIN_TIMEOUT_S to hi (not a bool,
    NaN or Infinity: a tiny one made every run an instant timeout); CatalogError else."""
    if (isinstance(value, bool) or not isinstance(value, (int, float))
            or not MIN_TIMEOUT_S <= value <= hi):
        raise CatalogError("%s: %s must be a number of seconds from %g to %d, got %r"
                           % (where, what, MIN_TIMEOUT_S, hi, value))
    return value


def check_described(obj, allowed, where, shape):
    """obj is an object of the allowed keys (shape shows them in the message)
    with an about that says what it is or why (a non-empty string)."""
    if not isinstance(obj, dict):
        raise CatalogError("%s must be an object %s" % (where, shape))
    check_known(obj, allowed, where)
    if not isinstance(obj.get("about"), str) or not obj["about"]:
        raise CatalogError("%s: about must say what it is or why (a non-empty string)" % where)


def check_strings(value, where, what):
    if not isinstance(value, list) or not value or not all(isinstance(s, str) and s for s in value):
        raise CatalogError("%s: %s must be a non-empty list of strings, got %r" % (where, what, value))
    return value


def matches(fields, partial):
    """Whether fields agree with every key of partial (a list there = any of)."""
    for k, want in partial.items():
        have = fields.get(k)
        if isinstance(want, list):
            if have not in want:
                return False
        elif have != want:
            return False
    return True


def check_partial(partial, where, what):
    """Checks a partial field dict (of a baseline rule or an exclude)."""
    if not isinstance(partial, dict):
        raise CatalogError("%s: %s must be an object of variant fields, got %r" % (where, what, partial))
    extra = sorted(set(partial) - set(FIELDS))
    if extra:
        raise CatalogError("%s: %s names unknown field %s (fields: %s)" % (
            where, what, ", ".join(repr(k) for k in extra), ", ".join(FIELDS)))
    return partial


def check_runtimes(rt, where):
    """suite.json's runtimes: {"about", lang: {"versions": [..], "needs": [{"for",
    "min", "why"}]}} (see runtime_unmet)."""
    if not isinstance(rt, dict) or not isinstance(rt.get("about"), str):
        raise CatalogError("%s must be an object with an about" % where)
    for lang, spec in rt.items():
        if lang == "about":
            continue
        w = "%s.%s" % (where, lang)
        if not WORD.match(lang) or not isinstance(spec, dict):
            raise CatalogError("%s: each language is a lower-case word naming an object" % w)
        check_known(spec, RUNTIME_LANG_KEYS, w)
        for v in check_strings(spec.get("versions"), w, "versions"):
            if not VERSION.match(v):
                raise CatalogError("%s: version %r is not MAJOR.MINOR.PATCH" % (w, v))
        for i, need in enumerate(spec.get("needs", [])):
            nw = "%s: needs[%d]" % (w, i)
            if not isinstance(need, dict):
                raise CatalogError("%s must be an object" % nw)
            check_known(need, NEED_KEYS, nw)
            check_partial(need.get("for", {}), nw, "for")
            if not isinstance(need.get("min"), str) or not VERSION.match(need["min"]):
                raise CatalogError("%s: min must be a version MAJOR.MINOR.PATCH" % nw)
            if not isinstance(need.get("why"), str) or not need["why"]:
                raise CatalogError("%s: why must say, in one line, what the version lacks" % nw)


def check_claim_runtimes(pins, rt, where):
    """A workload's claims.runtimes: {"about": text, lang: version}, the pinned
    versions that stand for the seed's runtime (runner/analysis/byversion.py), each one
    suite.json's runtimes list."""
    if pins is None:
        return
    if not isinstance(pins, dict) or not isinstance(pins.get("about"), str):
        raise CatalogError("%s must be an object with an about" % where)
    for lang, version in pins.items():
        if lang != "about" and version not in ((rt.get(lang) or {}).get("versions") or []):
            raise CatalogError("%s: %s %r is not a version suite.json's runtimes list for %s"
                               % (where, lang, version, lang))


def runtime_unmet(suite, v, version):
    """Why variant v cannot run on version of its language (one line), or None:
    the first of suite.json's runtimes.<lang>.needs whose for matches v and
    whose min is above version (DESIGN section 11)."""
    spec = (suite.get("runtimes") or {}).get(v["lang"]) or {}
    for need in spec.get("needs", []):
        if matches(v, need.get("for", {})) and version_key(version) < version_key(need["min"]):
            return "needs %s %s or later: %s" % (v["lang"], need["min"], need["why"])
    return None


# The keys of a workload's settings for one profile (see the module doc).
PROFILE_SETTINGS = {"iterations", "timeout_s", "rounds", "trace_iterations", "budget", "sweep",
                    "variants_of", "warmup", "passes"}
BUDGET_KEYS = {"seconds", "max_rounds", "for"}
SWEEP_KEYS = {"axis", "values", "for", "name", "default"}
SWEEP_AXES = ("iterations", "concurrency", "env")
ENV_VALUE = re.compile(r"[A-Za-z0-9._-]+\Z")
MAX_BUDGET_S = 3600


def check_budget(b, where):
    """A time budget per variant: {"seconds": S, "max_rounds": R, "for": {partial}}."""
    where += ": budget"
    if not isinstance(b, dict):
        raise CatalogError("%s must be an object {\"seconds\": S, \"max_rounds\": R}" % where)
    check_known(b, BUDGET_KEYS, where)
    if (isinstance(b.get("seconds"), bool) or not isinstance(b.get("seconds"), (int, float))
            or not 0 < b["seconds"] <= MAX_BUDGET_S):
        raise CatalogError("%s: seconds must be a number above 0 and at most %d, got %r"
                           % (where, MAX_BUDGET_S, b.get("seconds")))
    check_integer(b.get("max_rounds"), 1, MAX_ROUNDS, where, "max_rounds")
    check_partial(b.get("for", {}), where, "for")


MAX_EXTRA_MINUTES = 24 * 60


def check_calibrate(x, where):
    """A profile's passes calibration (runner/measure/calibrate.py): {"min_ms": T, "max": P}."""
    if not isinstance(x, dict):
        raise CatalogError('%s must be an object {"min_ms": T, "max": P}' % where)
    check_known(x, {"min_ms", "max"}, where)
    t = x.get("min_ms")
    if isinstance(t, bool) or not isinstance(t, (int, float)) or not 0 < t <= 60000:
        raise CatalogError("%s: min_ms must be a number of ms from 1 to 60000, got %r" % (where, t))
    check_integer(x.get("max"), 1, MAX_PASSES, where, "max")


LOCKSTEP_KEYS = {"pass_ms", "max_pass_ms", "pairs", "sessions", "max_sessions", "minutes",
                 "workloads", "session_ms", "half_width"}
# The keys of a lockstep's half_width: a language's own pairs, or "across".
HALF_WIDTH_KEYS = ("c", "go", "node", "rust", "across")


def check_lockstep(x, where):
    """A profile's lockstep phase (runner/measure/lockstep.py): {"pass_ms": T, "pairs": P,
    "sessions": S, "max_sessions": S2[, "max_pass_ms": X][, "minutes": M]
    [, "workloads": [..]][, "session_ms": R]}: a pass of about T ms where N may
    be chosen, P pairs of passes a process pair (more, up to 4 P, where P
    rounds of its passes take under R ms), S process pairs for every pair of
    variants compared and up to S2 for one still open, within M minutes; a
    pair whose pass would take more than X ms (its N kept) is left to the
    rounds; workloads, when given, the only ones; half_width ({lang or
    "across": share}), a pair's extra sessions also while its interval is
    wider than that."""
    if not isinstance(x, dict):
        raise CatalogError('%s must be an object {"pass_ms": T, "pairs": P, "sessions": S, '
                           '"max_sessions": S2}' % where)
    check_known(x, LOCKSTEP_KEYS, where)
    t = x.get("pass_ms")
    if isinstance(t, bool) or not isinstance(t, (int, float)) or not 0 < t <= 60000:
        raise CatalogError("%s: pass_ms must be a number of ms from 1 to 60000, got %r" % (where, t))
    check_integer(x.get("pairs"), 1, 10000, where, "pairs")
    check_integer(x.get("sessions"), 1, 10000, where, "sessions")
    check_integer(x.get("max_sessions"), x["sessions"], 10000, where, "max_sessions")
    if "minutes" in x:
        check_minutes(x["minutes"], where)
    m = x.get("max_pass_ms", t)
    if isinstance(m, bool) or not isinstance(m, (int, float)) or not t <= m <= 600000:
        raise CatalogError("%s: max_pass_ms must be a number of ms from pass_ms to 600000, got %r"
                           % (where, m))
    if "workloads" in x:
        check_strings(x["workloads"], where, "workloads")
    hw = x.get("half_width", {})
    if not isinstance(hw, dict) or any(
            k not in HALF_WIDTH_KEYS or isinstance(v, bool)
            or not isinstance(v, (int, float)) or not 0 < v <= 1 for k, v in hw.items()):
        raise CatalogError('%s: half_width must be an object {"c"|"go"|"node"|"rust"|"across": a share '
                           'from 0 to 1}, got %r' % (where, hw))
    s = x.get("session_ms", 0)
    if isinstance(s, bool) or not isinstance(s, (int, float)) or not 0 <= s <= 600000:
        raise CatalogError("%s: session_ms must be a number of ms from 0 to 600000, got %r"
                           % (where, s))


def check_extra_rounds(x, where):
    """A profile's extra rounds (runner/measure/sequential.py): {"max": R, "minutes": M}."""
    if not isinstance(x, dict):
        raise CatalogError('%s must be an object {"max": R, "minutes": M}' % where)
    check_known(x, {"max", "minutes"}, where)
    check_integer(x.get("max"), 1, MAX_ROUNDS, where, "max")
    check_minutes(x.get("minutes"), where)


def check_minutes(m, where):
    if isinstance(m, bool) or not isinstance(m, (int, float)) or not 0 < m <= MAX_EXTRA_MINUTES:
        raise CatalogError("%s: minutes must be a number above 0 and at most %d, got %r"
                           % (where, MAX_EXTRA_MINUTES, m))


def check_sweep(sweep, where):
    """A sweep: a list of axes, each varied alone from the base point."""
    where += ": sweep"
    if not isinstance(sweep, list) or not sweep:
        raise CatalogError("%s must be a non-empty list of axes" % where)
    seen = set()
    for i, ax in enumerate(sweep):
        at = "%s[%d]" % (where, i)
        if not isinstance(ax, dict):
            raise CatalogError("%s must be an object" % at)
        check_known(ax, SWEEP_KEYS, at)
        kind = ax.get("axis")
        if kind not in SWEEP_AXES:
            raise CatalogError("%s: axis must be one of %s, got %r" % (at, ", ".join(SWEEP_AXES), kind))
        values = ax.get("values")
        if not isinstance(values, list) or not values or len(set(values)) != len(values):
            raise CatalogError("%s: values must be a non-empty list without repeats" % at)
        if kind == "env":
            if not isinstance(ax.get("name"), str) or not ENV_NAME.match(ax["name"]):
                raise CatalogError("%s: an env axis needs a name (an environment variable, "
                                   "upper case), got %r" % (at, ax.get("name")))
            for x in values + ([ax["default"]] if "default" in ax else []):
                if isinstance(x, bool) or not (isinstance(x, int) and x >= 0
                                               or isinstance(x, str) and ENV_VALUE.match(x)):
                    raise CatalogError("%s: %r is not a value of %s (an integer or a word)"
                                       % (at, x, ax["name"]))
            key = ("env", ax["name"])
        else:
            if "name" in ax or "default" in ax:
                raise CatalogError("%s: name and default belong to an env axis" % at)
            top = MAX_ITERATIONS if kind == "iterations" else MAX_BOUND
            for x in values:
                check_integer(x, 1, top, at, kind)
            key = (kind,)
        check_partial(ax.get("for", {}), at, "for")
        # The same axis twice is allowed for different variants (different `for`).
        key += (json.dumps(ax.get("for", {}), sort_keys=True),)
        if key in seen:
            raise CatalogError("%s: a second %s axis for the same variants" % (at, " ".join(key[:-1])))
        seen.add(key)


def check_bad_inputs(rows, where):
    """A list of bad inputs (see the module doc).  Words may name a language the
    catalog has no variants of (a catalog cut down to some languages keeps
    suite.json's rows); they are read for the variants of that language only."""
    if not isinstance(rows, list):
        raise CatalogError("%s: bad_inputs must be a list of rows" % where)
    for i, r in enumerate(rows):
        at = "%s: bad_inputs[%d]" % (where, i)
        if not isinstance(r, dict):
            raise CatalogError("%s must be an object" % at)
        check_known(r, BAD_INPUT_KEYS, at)
        for w in check_strings(r.get("flags"), at, "flags"):
            if "\n" in w:
                raise CatalogError("%s: flag word %r holds a newline" % (at, w))
            if ("{" in w or "}" in w) and not BAD_INPUT_FILE.match(w):
                raise CatalogError("%s: flag word %r: the only placeholders are {fifo}, "
                                   "{unreadable} and {file:TEXT}" % (at, w))
        if r.get("exit") not in (1, 2, 3) or isinstance(r.get("exit"), bool):
            raise CatalogError("%s: exit must be 1 (a failed verification), 2 (a usage error) "
                               "or 3 (the environment), got %r" % (at, r.get("exit")))
        words = r.get("words", {})
        if not isinstance(words, dict) or not all(isinstance(k, str) and WORD.match(k)
                                                  for k in words):
            raise CatalogError("%s: words must map languages (lower-case words) to patterns"
                               % at)
        for what, pattern in [("says", r.get("says"))] + sorted(
                ("words[%r]" % k, v) for k, v in words.items()):
            if not isinstance(pattern, str) or not pattern or "\n" in pattern:
                raise CatalogError("%s: %s must be a one-line pattern, got %r" % (at, what, pattern))
            why = regex_problem(pattern)
            if why:
                raise CatalogError("%s: %s %r is not a regular expression: %s"
                                   % (at, what, pattern[:80], why))


# ---------------------------------------------------------------- suite.json


def read_suite(path):
    """The checked object of suite.json at path (see the module doc)."""
    suite, path = read_object(path, SUITE_KEYS)
    for k in ("modes", "methods", "styles"):
        for w in check_strings(suite.get(k), path, k):
            if not WORD.match(w):
                raise CatalogError("%s: %s entry %r is not a lower-case word" % (path, k, w))
    if "inprocess" not in suite["methods"]:
        raise CatalogError("%s: methods must include inprocess (the default)" % path)
    titles = suite.get("method_titles", {})
    if not isinstance(titles, dict) or any(
            k not in suite["methods"] or not isinstance(v, str) or not v.strip()
            for k, v in titles.items()):
        raise CatalogError("%s: method_titles must map methods to a panel title each, got %r"
                           % (path, titles))
    check_integer(suite.get("bound"), 1, MAX_BOUND, path, "bound")
    check_bad_inputs(suite.setdefault("bad_inputs", []), path)
    profiles = suite.get("profiles")
    if not isinstance(profiles, dict) or not profiles:
        raise CatalogError("%s: profiles must be a non-empty object" % path)
    for name, p in profiles.items():
        where = "%s: profile %r" % (path, name)
        if not WORD.match(name):
            # `make compare PROFILE=...` quotes it in a recipe, and REPORT.md's
            # Reproduce line gives it through make: a `"`, `$` or blank broke both.
            raise CatalogError("%s: a profile's name is a lower-case word (letters and "
                               "digits)" % where)
        if not isinstance(p, dict):
            raise CatalogError("%s must be an object" % where)
        check_known(p, {"about", "rounds", "warmup_rounds", "warmup_iterations", "minutes",
                     "extra_rounds", "calibrate_passes", "lockstep"}, where)
        check_integer(p.get("rounds"), 1, MAX_ROUNDS, where, "rounds")
        check_integer(p.get("warmup_rounds"), 0, MAX_ROUNDS, where, "warmup_rounds")
        if "warmup_iterations" in p:
            # Over iterations alone; 1 to N operations at N = 1 and at the largest N.
            warmup_expr(p["warmup_iterations"], where + ": warmup_iterations")
            for n in (1, MAX_ITERATIONS):
                warmup_round_n(p["warmup_iterations"], n, where + ": warmup_iterations")
        if "minutes" in p:
            check_minutes(p["minutes"], where)
        if "extra_rounds" in p:
            check_extra_rounds(p["extra_rounds"], where + ": extra_rounds")
        if "calibrate_passes" in p:
            check_calibrate(p["calibrate_passes"], where + ": calibrate_passes")
        if "lockstep" in p:
            check_lockstep(p["lockstep"], where + ": lockstep")
        if not isinstance(p.get("about"), str):
            raise CatalogError("%s: about must be a string" % where)
    if "startup" in suite:
        s, where = suite["startup"], "%s: startup" % path
        check_described(s, STARTUP_KEYS, where, '{"about": .., "programs": {lang: argv}}')
        progs = s.get("programs")
        if not isinstance(progs, dict) or not progs:
            raise CatalogError("%s: programs must map each language to its empty program's argv"
                               % where)
        for lang, argv in progs.items():
            if not WORD.match(lang):
                raise CatalogError("%s: %r is not a language (a lower-case word)" % (where, lang))
            check_strings(argv, where, "programs.%s" % lang)
    if "runtimes" in suite:
        check_runtimes(suite["runtimes"], "%s: runtimes" % path)
    return suite
