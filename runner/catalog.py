"""catalog.py -- the one list of variants (runner/catalog/), read by everyone.

The catalog is a folder: suite.json (styles, modes, methods, the default bound
and the suite's profiles) and one <workload>.json per workload (its flags,
checks, requirements, per-profile N and timeout, baselines, seed claims and its
variants as a compact matrix).  load() reads and validates the folder and
expands every matrix entry into variants with explicit fields and one id:

    id    = workload "/" label
    label = lang "/" style ["-" shape] ["-" method] "-" mode "@" backend
    name  = style ["-" shape] ["-" method] "-" mode   (what --variant takes)

e.g. readfile/c/promise-counter-parallel@node4; the method is named only when
it is not inprocess (readfile/node/await-nodetest-parallel@fs.promises).

suite.json: about, styles, modes, methods (lists of words), bound (K of bounded
mode when --concurrency is not given), profiles {name: {about, rounds,
warmup_rounds[, warmup_iterations][, minutes][, extra_rounds]}} (warmup_iterations:
the N of a warm-up round's runs, an expression over iterations, N itself when
not given; minutes: the run's time budget from its first warm-up, at which the
extra rounds stop; extra_rounds {"max": R, "minutes": M}: after
the planned rounds, up to R rounds more, within M minutes, of the variants of
the targets and claims still open by runner/sequential.py's rule), optional startup {"about": .., "programs": {lang: argv}}: an
empty program of each language, run once per round so that a variant's time
outside its clock can be told from its language's own start-up (DESIGN
section 6; every language of the variants needs one), optional runtimes
{"about": .., lang: {"versions": [..], "needs": [{"for": {partial fields},
"min": version, "why": ..}]}}: the runtime versions of the seeds' day and
today's, and what a variant needs of one (runtime_unmet; DESIGN section 11).
<workload>.json:
  workload, about, unit   its name (= the file's), what it does, one operation
  flags      {"--file": {"value": "fixtures/text.txt", "path": true, "about": ..}}:
             what the runner appends (path values made absolute); every program's
             defaults equal these values
  checks     {"bytes": "iterations * len(expect)"}: a field of the line and the
             integer expression it must equal, over iterations, the line's integer
             fields and the flags' values by name (--delay-ms is delay_ms); only
             integers, names, len() (UTF-8 bytes), int(), min(), max(), + - * //
  warmup     {"iterations": "min(350, iterations)", "about": why}: the untimed
             operations every program runs in its process before the timed pass
             (--warmup W), an integer expression over iterations (the run's N);
             a profile's settings may give their own "warmup" expression; none:
             0 (DESIGN section 3)
  passes     {"count": "3", "about": why}: the timed passes of N every process runs
             after its warm-up (--passes P, each a row of samples.csv), an
             integer expression over iterations from 1 to MAX_PASSES; a profile's
             settings may give their own "passes"; none: 1 (DESIGN section 3)
  fields     {"hits": "what it counts"}: integer fields the workload's line adds
  requires   {"os": [..], "node": true, "probe": [argv], "server": {"argv": [..],
             "lang": "c", "port_flag": "--port", "ready_timeout_s": 10}}; a matrix
             entry's own requires is merged over it, and {node} in an argv implies
             node; a server's lang is the language it is written in, one of the
             catalog's variant languages (a test run limited to some languages
             leaves out the variants whose server is in another; servers.py
             with-server wraps only a C server in its --server-wrapper)
  profiles   {name: {"iterations": N, "timeout_s": S[, "rounds": R]
             [, "trace_iterations": T][, "warmup": W]}}: the suite profiles the
             workload takes part in (R: only the first R rounds; T: N of the
             traced runs that count system calls after the rounds,
             runner/trace.py; W: the profile's own warm-up expression, over
             the workload's (see warmup): a seed's own warm-up in the seed
             profile);
             optional: "budget" {"seconds": S, "max_rounds": M, "for": {partial
             fields}}: a matching variant runs in more rounds, as many as fit in
             S seconds by its warm-up time, at least R and at most M;
             "variants_of" {"profile": P, "for": {partial}}: the profile also
             takes the workload's variants of profile P that match; "passes" P:
             the profile's own passes expression, over the workload's; "sweep"
             [{"axis": "iterations" | "concurrency" | "env", "values": [...],
             "for": {partial}, "name": VAR, "default": V}]: each axis varied
             alone from the base point (N, the variant's K, no VAR set; an env
             axis's default is the value of VAR that the base point stands
             for), concurrency only in bounded mode (runner/plan.py: points)
  baselines  [{"key": "c", "label": "C callback", "for": {partial fields, a list
             = any of}, "baseline": {partial fields}}] (see Catalog.baselines)
  claims     seed claims as data (runner/reproduce.py describes them)
  targets    optional upper bounds a run is judged against (runner/targets.py):
             [{"id", "what", "variant": id, "against": id, and one of
             "max_ratio" (variant / against) or "max_diff_per_op_ns" (variant
             minus against, per operation)}], both ids of this workload; or
             [{"id", "what", "variant": id, "max_outside_ms",
             "max_outside_share"}]: the variant's time outside its clock at
             most that many ms plus that share of its timed time
  charts     optional hints for runner/charts/: "where_time": {"floor_of": {backend:
             backend}} (draw the split of C's time; a backend without a sync
             variant of its own takes the named one's as its blocking floor),
             "per_unit_memory": {"unit", "log", "marks", "note"}, "headline":
             {"backends": [backend, ...]} (the headline chart's one variant per
             language, style and mode: the first of these backends measured,
             else its baseline's; runner/charts/headline_chart.py)
  threadless optional [{partial fields}]: the variants that start no thread (no
             threadpool: the loop thread or the kernel does the work); each
             variant's field threadless says whether a rule matches.  TSan has
             no race to look for in them (scripts/sanitize.sh), and an address
             space too small for libuv's threadpool does not stop them
             (tests/hostile_c.bats)
  bad_inputs [{"flags": [..], "exit": 1 | 2 | 3, "says": ERE, "words": {lang: ERE}}]:
             what the workload's programs must refuse (also a key of suite.json,
             for every program: the contract's own flags).  A row runs its
             flags at N=5 and wants its exit code, nothing on stdout and on
             stderr the language's exact words (an extended regexp, matched
             without case) or, for a language without words, `says`.  A flag
             word {fifo}, {unreadable} or {file:TEXT} stands for a FIFO, a file
             only root can read, a regular file holding TEXT, made by the test
             (tests/badinput.bats)
  variants   matrix entries: lang, style, shape, method, mode, backend (each a
             value or a list; shape defaults to "", method to inprocess), argv
             (templates {bin} {node} {name} {workload} {lang} {style} {shape}
             {method} {mode} {backend}), profiles, about (a text, or texts keyed
             by name, mode, style or "*"; templated as argv), requires, exclude
             (partial field objects removed from the product), env ({"NAME":
             "value"}: set in the program's environment for every run of these
             variants, the probe's included, e.g. UV_USE_IO_URING for Node's
             libuv; recorded in run.json), warmup (these variants' own warm-up
             expression, over the profile's and the workload's: nodetest's "0"),
             passes (their own passes expression: a whole-process method's "1")

Anything the folder gets wrong (a duplicate id, an unknown field, style, mode
or method, a backend with bad characters, a check that is not a small integer
expression, a baseline rule naming unknown fields, a profile that suite.json
lacks) raises CatalogError with one line; the CLI prints it and exits 3.

Usage: python3 -m runner.catalog [--catalog DIR] COMMAND ...
  ids [--profile P] [--lang L] [--workload W]   variant ids, one a line
  argv ID [--bin DIR] [--node PATH]             the command of one variant, one word a line
  field ID NAME                                 one field of one variant (lists and dicts
                                                as JSON; also label, name, concurrency,
                                                requires)
  workloads                                     workload names, one a line
  flags W                                       W's flags and their values, one a line each
  default ID [FLAG]                             the variant's workload flags (as `flags`),
                                                or the value of one of them
  bad-inputs                                    every bad input (suite.json's, then each
                                                workload's), a row as lines: "@@ WORKLOAD
                                                EXIT" (* for the suite's), "says ERE",
                                                "words LANG ERE"..., "flag WORD"...
  table                                         the variant tables (Markdown)
  readme [--check]                              write those tables into docs/workloads.md
                                                (--check: exit 1 if it is out of date)

Exit codes: 0 ok, 1 docs/workloads.md out of date, 2 bad call or unknown variant,
3 a broken catalog.  The bats tests and the Makefile use this CLI; the runner,
runner/contract.py and runner/reproduce.py import it (never the reverse).
"""
import ast
import copy
import itertools
import json
import os
import platform
import re
import sys

from .files import write_atomic

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIR = os.path.join(ROOT, "runner", "catalog")
# The variant tables live in the workloads document (the README links it).
TABLES_DOC = os.path.join(ROOT, "docs", "workloads.md")

# The fields of a variant, in the order of the id; each may be a list in a
# matrix entry.  workload comes from the file.
MATRIX_FIELDS = ("lang", "style", "shape", "method", "mode", "backend")
FIELDS = ("workload",) + MATRIX_FIELDS
FIELD_DEFAULTS = {"shape": "", "method": "inprocess"}
ENTRY_KEYS = set(MATRIX_FIELDS) | {"argv", "profiles", "about", "requires", "exclude", "env", "warmup",
                                   "passes"}
WORKLOAD_KEYS = {"workload", "about", "unit", "flags", "checks", "requires", "profiles",
                 "baselines", "claims", "charts", "variants", "fields", "targets", "bad_inputs",
                 "threadless", "warmup", "passes"}
WARMUP_KEYS = {"iterations", "about"}
PASSES_KEYS = {"count", "about"}
# The most timed passes of one process (the programs' AB_PASSES_MAX,
# MaxPasses, MAX_PASSES; runner/contract.py's MAX_PASSES).
MAX_PASSES = 10000
TARGET_KEYS = {"id", "what", "variant", "against", "max_ratio", "max_diff_per_op_ns",
               "max_outside_ms", "max_outside_share"}
TARGET_BOUNDS = ("max_ratio", "max_diff_per_op_ns")
SUITE_KEYS = {"about", "modes", "methods", "styles", "bound", "profiles", "bad_inputs", "startup", "runtimes"}
RUNTIME_LANG_KEYS = {"versions", "needs"}
NEED_KEYS = {"for", "min", "why"}
VERSION = re.compile(r"[0-9]+\.[0-9]+\.[0-9]+\Z")
STARTUP_KEYS = {"about", "programs"}
BAD_INPUT_KEYS = {"flags", "exit", "says", "words"}
# A flag word of a bad input that the test makes: a FIFO, an unreadable file,
# a regular file holding TEXT.
BAD_INPUT_FILE = re.compile(r"\{(fifo|unreadable|file:[^{}]*)\}\Z")
FLAG_KEYS = {"value", "path", "about"}
RULE_KEYS = {"key", "label", "for", "baseline"}
REQUIREMENTS = {"os", "node", "probe", "server"}
SERVER_KEYS = {"argv", "lang", "port_flag", "ready_timeout_s"}
# Operating systems a requirement may name (platform.system(), lower case).
OSES = ("linux", "darwin", "freebsd", "openbsd", "netbsd", "windows")
# The integer fields of every JSON line (runner/contract.py checks them).
LINE_INTS = ("iterations", "concurrency", "ok", "bytes", "elapsed_ns", "user_us",
             "sys_us", "peak_rss_kb", "idle_rss_kb")

WORD = re.compile(r"[a-z][a-z0-9]*\Z")
# A workload's own field of the line: snake case, as the contract's are (peak_rss_kb).
FIELD = re.compile(r"[a-z][a-z0-9_]*\Z")
BACKEND = re.compile(r"[A-Za-z0-9._]+\Z")
TEMPLATE = re.compile(r"\{(\w+)\}")
ENV_NAME = re.compile(r"[A-Z_][A-Z0-9_]*\Z")
# Placeholders filled only when the command runs (argv()).
LATE = ("bin", "node")


class CatalogError(Exception):
    """A catalog that cannot be used; the message is one line naming the file,
    the variant or rule, and the problem."""


# ---------------------------------------------------------------- the id rule


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
        with open(os.path.join(DIR, "suite.json"), encoding="utf-8") as f:
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


# ---------------------------------------------------------------- checks


def _check_names(node, where):
    """The names an expression uses; CatalogError when it is more than integers,
    names, len()/int()/min()/max() calls and + - * //."""
    names = set()

    def walk(n):
        if isinstance(n, ast.Expression):
            walk(n.body)
        elif isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv)):
            walk(n.left)
            walk(n.right)
        elif isinstance(n, ast.Constant) and type(n.value) is int:
            pass
        elif isinstance(n, ast.Name):
            names.add(n.id)
        elif (isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
              and n.func.id in ("len", "int") and len(n.args) == 1 and not n.keywords):
            walk(n.args[0])
        elif (isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
              and n.func.id in ("min", "max") and len(n.args) >= 2 and not n.keywords):
            for a in n.args:
                walk(a)
        else:
            raise CatalogError("%s: only integers, names, len(), int(), min(), max(), + - * // "
                               "are allowed, not %s" % (where, type(n).__name__))
    walk(node)
    return names


def parse_check(text, where):
    """The parsed expression of a check (ast.Expression) and the names it uses."""
    if not isinstance(text, str):
        raise CatalogError("%s: a check is a string expression, got %r" % (where, text))
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as e:
        raise CatalogError("%s: %r is not an expression (%s)" % (where, text, e.msg)) from None
    return tree, _check_names(tree, where)


def evaluate(tree, env):
    """The integer value of a parsed check over env ({name: int or str}); raises
    ValueError with a sentence when a name is unknown or a type is wrong.  A tiny
    walker over the nodes parse_check allowed: never eval()."""
    def ev(n):
        if isinstance(n, ast.Expression):
            return ev(n.body)
        if isinstance(n, ast.Constant):
            return n.value
        if isinstance(n, ast.Name):
            if n.id not in env:
                raise ValueError("unknown name %r" % n.id)
            return env[n.id]
        if isinstance(n, ast.Call) and n.func.id in ("min", "max"):
            args = [ev(a) for a in n.args]
            if not all(type(a) is int for a in args):
                raise ValueError("%s() of %r: only integers" % (n.func.id, args))
            return min(args) if n.func.id == "min" else max(args)
        if isinstance(n, ast.Call):
            arg = ev(n.args[0])
            if n.func.id == "len":
                if not isinstance(arg, str):
                    raise ValueError("len() of %r, not a text" % (arg,))
                return len(arg.encode("utf-8"))
            if isinstance(arg, int):
                return arg
            if not re.match(r"-?[0-9]+\Z", str(arg)):
                raise ValueError("int() of %r, not a decimal number" % (arg,))
            return int(arg)
        left, right = ev(n.left), ev(n.right)
        if type(left) is not int or type(right) is not int:
            raise ValueError("arithmetic on %r and %r: only integers" % (left, right))
        if isinstance(n.op, ast.Add):
            return left + right
        if isinstance(n.op, ast.Sub):
            return left - right
        if isinstance(n.op, ast.Mult):
            return left * right
        if right == 0:
            raise ValueError("division by zero")
        return left // right
    return ev(tree)


def _warmup_expr(text, where):
    """A warm-up expression, over `iterations` alone (CatalogError otherwise);
    returns it."""
    _, used = parse_check(text, where)
    if used - {"iterations"}:
        raise CatalogError("%s: %r may name only iterations (the run's N), not %s"
                           % (where, text, ", ".join(sorted(used - {"iterations"}))))
    return text


def warmup_for(text, n, where="warmup"):
    """The warm-up operations an expression gives for N = n: an integer from 0 to
    MAX_ITERATIONS (CatalogError otherwise)."""
    return _count_for(text, n, where, "warmup", 0, MAX_ITERATIONS)


def passes_for(text, n, where="passes"):
    """The timed passes a process runs by an expression at N = n: an integer from 1
    to MAX_PASSES (CatalogError otherwise)."""
    return _count_for(text, n, where, "passes", 1, MAX_PASSES)


def warmup_round_n(text, n, where="warmup_iterations"):
    """The N of a warm-up round's runs by a profile's expression, for a
    workload whose N is n: an integer from 1 to n (CatalogError otherwise)."""
    return _count_for(text, n, where, "warmup_iterations", 1, n)


def _count_for(text, n, where, what, low, high):
    """What an expression over iterations gives at N = n: an integer from low
    to high (CatalogError otherwise)."""
    tree, _ = parse_check(text, where)
    try:
        w = evaluate(tree, {"iterations": n})
    except ValueError as e:
        raise CatalogError("%s: %s %r at N = %d: %s" % (where, what, text, n, e)) from None
    if type(w) is not int or not low <= w <= high:
        raise CatalogError("%s: %s %r gives %r at N = %d, not an integer from %d to %d"
                           % (where, what, text, w, n, low, high))
    return w


def flag_key(flag):
    """The name a check uses for a workload flag: --delay-ms -> delay_ms."""
    return flag.lstrip("-").replace("-", "_")


# ---------------------------------------------------------------- templates


def fill(words, values, where):
    """Each word with its {placeholders} replaced from values; {bin} and {node}
    stay for argv().  CatalogError on an unknown placeholder."""
    def one(m):
        key = m.group(1)
        if key in LATE:
            return m.group(0)
        if key not in values:
            raise CatalogError("%s: unknown placeholder {%s} in %r" % (where, key, m.string))
        return values[key]
    return [TEMPLATE.sub(one, w) for w in words]


def build_dir():
    """The build folder: $BUILD (as `make BUILD=...` exports it; relative to the
    project root unless absolute), else build/."""
    return os.path.join(ROOT, os.environ.get("BUILD") or "build")


def expand(words, bin_dir=None, node=None):
    """words with {bin} (default: build_dir()/bin) and {node} (default: node)
    filled in: a command as a list, never a shell string."""
    bin_dir = bin_dir or os.path.join(build_dir(), "bin")
    node = node or "node"
    return [w.replace("{bin}", bin_dir).replace("{node}", node) for w in words]


def argv(v, bin_dir=None, node=None):
    """The variant's command with {bin} and {node} filled in."""
    return expand(v["argv"], bin_dir, node)


def host_os():
    """This host's operating system as a requirement names it (linux, darwin, ...)."""
    return platform.system().lower()


# ---------------------------------------------------------------- loading


def _show(path):
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


def _read_object(path, allowed):
    """(the JSON object of path, path as messages show it); CatalogError when it
    is unreadable, not JSON (a key twice in one object included), not an
    object, or has a key outside allowed."""
    show = _show(path)
    try:
        with open(path, encoding="utf-8") as f:
            obj = json.load(f, object_pairs_hook=unique_keys)
    except OSError as e:
        raise CatalogError("%s: cannot read it: %s" % (show, e.strerror or e)) from None
    except DuplicateKey as e:
        raise CatalogError("%s: %s (the last would win silently)" % (show, e)) from None
    except ValueError as e:
        raise CatalogError("%s: not JSON: %s" % (show, e)) from None
    if not isinstance(obj, dict):
        raise CatalogError("%s: must be a JSON object" % show)
    _unknown(obj, allowed, show)
    return obj, show


def _positive(t, key, where, most):
    """t[key] is a number above 0 and below most, else a CatalogError."""
    b = t[key]
    if type(b) not in (int, float) or not 0 < b < most:
        raise CatalogError("%s: %s must be a positive number, got %r" % (where, key, b))


def _unknown(keys, allowed, where):
    extra = sorted(set(keys) - set(allowed))
    if extra:
        raise CatalogError("%s: unknown field %s (known: %s)" % (
            where, ", ".join(repr(k) for k in extra), ", ".join(sorted(allowed))))


# Upper bounds of the catalog's numbers: a figure beyond them is a typo, and
# json accepts NaN and Infinity (a NaN timeout made every run an instant
# timeout; a timeout beyond threading's limit killed the timer thread).
MAX_ITERATIONS = 10 ** 9
MAX_ROUNDS = 10000
MIN_TIMEOUT_S = 0.1
MAX_TIMEOUT_S = 86400
MAX_BOUND = 10 ** 6


def _integer(value, lo, hi, where, what):
    """value when it is an integer from lo to hi (not a bool); CatalogError else."""
    if type(value) is not int or not lo <= value <= hi:
        raise CatalogError("%s: %s must be an integer from %d to %d, got %r" % (where, what, lo, hi, value))
    return value


def _seconds(value, hi, where, what):
    """value when it is a number of seconds from MIN_TIMEOUT_S to hi (not a bool,
    NaN or Infinity: a tiny one made every run an instant timeout); CatalogError else."""
    if (isinstance(value, bool) or not isinstance(value, (int, float))
            or not MIN_TIMEOUT_S <= value <= hi):
        raise CatalogError("%s: %s must be a number of seconds from %g to %d, got %r"
                           % (where, what, MIN_TIMEOUT_S, hi, value))
    return value


def _described(obj, allowed, where, shape):
    """obj is an object of the allowed keys (shape shows them in the message)
    with an about that says what it is or why (a non-empty string)."""
    if not isinstance(obj, dict):
        raise CatalogError("%s must be an object %s" % (where, shape))
    _unknown(obj, allowed, where)
    if not isinstance(obj.get("about"), str) or not obj["about"]:
        raise CatalogError("%s: about must say what it is or why (a non-empty string)" % where)


def _strings(value, where, what):
    if not isinstance(value, list) or not value or not all(isinstance(s, str) and s for s in value):
        raise CatalogError("%s: %s must be a non-empty list of strings, got %r" % (where, what, value))
    return value


def _matches(fields, partial):
    """Whether fields agree with every key of partial (a list there = any of)."""
    for k, want in partial.items():
        have = fields.get(k)
        if isinstance(want, list):
            if have not in want:
                return False
        elif have != want:
            return False
    return True


def _partial(partial, where, what):
    """Checks a partial field dict (of a baseline rule or an exclude)."""
    if not isinstance(partial, dict):
        raise CatalogError("%s: %s must be an object of variant fields, got %r" % (where, what, partial))
    extra = sorted(set(partial) - set(FIELDS))
    if extra:
        raise CatalogError("%s: %s names unknown field %s (fields: %s)" % (
            where, what, ", ".join(repr(k) for k in extra), ", ".join(FIELDS)))
    return partial


RUNTIMES_PROFILE = "runtimes"


def _ids_in(x, ids, out):
    """Adds to out every string in x (claims: nested lists and objects) that is a key of ids."""
    if isinstance(x, str):
        if x in ids:
            out.add(x)
    elif isinstance(x, dict):
        for y in x.values():
            _ids_in(y, ids, out)
    elif isinstance(x, list):
        for y in x:
            _ids_in(y, ids, out)


def version_key(version):
    """A runtime version as a tuple of integers, for comparing: "10.24.1" -> (10, 24, 1)."""
    return tuple(int(p) for p in version.split("."))


def _check_runtimes(rt, where):
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
        _unknown(spec, RUNTIME_LANG_KEYS, w)
        for v in _strings(spec.get("versions"), w, "versions"):
            if not VERSION.match(v):
                raise CatalogError("%s: version %r is not MAJOR.MINOR.PATCH" % (w, v))
        for i, need in enumerate(spec.get("needs", [])):
            nw = "%s: needs[%d]" % (w, i)
            if not isinstance(need, dict):
                raise CatalogError("%s must be an object" % nw)
            _unknown(need, NEED_KEYS, nw)
            _partial(need.get("for", {}), nw, "for")
            if not isinstance(need.get("min"), str) or not VERSION.match(need["min"]):
                raise CatalogError("%s: min must be a version MAJOR.MINOR.PATCH" % nw)
            if not isinstance(need.get("why"), str) or not need["why"]:
                raise CatalogError("%s: why must say, in one line, what the version lacks" % nw)


def _check_claim_runtimes(pins, rt, where):
    """A workload's claims.runtimes: {"about": text, lang: version}, the pinned
    versions that stand for the seed's runtime (runner/byversion.py), each one
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
        if _matches(v, need.get("for", {})) and version_key(version) < version_key(need["min"]):
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


def _check_budget(b, where):
    """A time budget per variant: {"seconds": S, "max_rounds": R, "for": {partial}}."""
    where += ": budget"
    if not isinstance(b, dict):
        raise CatalogError("%s must be an object {\"seconds\": S, \"max_rounds\": R}" % where)
    _unknown(b, BUDGET_KEYS, where)
    if (isinstance(b.get("seconds"), bool) or not isinstance(b.get("seconds"), (int, float))
            or not 0 < b["seconds"] <= MAX_BUDGET_S):
        raise CatalogError("%s: seconds must be a number above 0 and at most %d, got %r"
                           % (where, MAX_BUDGET_S, b.get("seconds")))
    _integer(b.get("max_rounds"), 1, MAX_ROUNDS, where, "max_rounds")
    _partial(b.get("for", {}), where, "for")


MAX_EXTRA_MINUTES = 24 * 60


def _check_extra_rounds(x, where):
    """A profile's extra rounds (runner/sequential.py): {"max": R, "minutes": M}."""
    if not isinstance(x, dict):
        raise CatalogError('%s must be an object {"max": R, "minutes": M}' % where)
    _unknown(x, {"max", "minutes"}, where)
    _integer(x.get("max"), 1, MAX_ROUNDS, where, "max")
    _minutes(x.get("minutes"), where)


def _minutes(m, where):
    if isinstance(m, bool) or not isinstance(m, (int, float)) or not 0 < m <= MAX_EXTRA_MINUTES:
        raise CatalogError("%s: minutes must be a number above 0 and at most %d, got %r"
                           % (where, MAX_EXTRA_MINUTES, m))


def _check_sweep(sweep, where):
    """A sweep: a list of axes, each varied alone from the base point."""
    where += ": sweep"
    if not isinstance(sweep, list) or not sweep:
        raise CatalogError("%s must be a non-empty list of axes" % where)
    seen = set()
    for i, ax in enumerate(sweep):
        at = "%s[%d]" % (where, i)
        if not isinstance(ax, dict):
            raise CatalogError("%s must be an object" % at)
        _unknown(ax, SWEEP_KEYS, at)
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
                _integer(x, 1, top, at, kind)
            key = (kind,)
        _partial(ax.get("for", {}), at, "for")
        # The same axis twice is allowed for different variants (different `for`).
        key += (json.dumps(ax.get("for", {}), sort_keys=True),)
        if key in seen:
            raise CatalogError("%s: a second %s axis for the same variants" % (at, " ".join(key[:-1])))
        seen.add(key)


def _check_bad_inputs(rows, where):
    """A list of bad inputs (see the module doc).  Words may name a language the
    catalog has no variants of (a catalog cut down to some languages keeps
    suite.json's rows); they are read for the variants of that language only."""
    if not isinstance(rows, list):
        raise CatalogError("%s: bad_inputs must be a list of rows" % where)
    for i, r in enumerate(rows):
        at = "%s: bad_inputs[%d]" % (where, i)
        if not isinstance(r, dict):
            raise CatalogError("%s must be an object" % at)
        _unknown(r, BAD_INPUT_KEYS, at)
        for w in _strings(r.get("flags"), at, "flags"):
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
            try:
                re.compile(pattern)
            except re.error as e:
                raise CatalogError("%s: %s %r is not a regular expression: %s"
                                   % (at, what, pattern, e)) from None


class Catalog:
    """A loaded catalog folder; see the module doc and load()."""

    def __init__(self, path=DIR):
        self.path = path
        self.suite = self._load_suite(os.path.join(path, "suite.json"))
        self.workloads = {}
        self.variants = []
        self.runtime_variants = []   # the runtimes profile's (_add_runtime_variants)
        self._by_id = {}
        try:
            names = sorted(n for n in os.listdir(path) if n.endswith(".json") and n != "suite.json")
        except OSError as e:
            raise CatalogError("%s: cannot list it: %s" % (_show(path), e.strerror or e)) from None
        if not names:
            raise CatalogError("%s: no workload file (<workload>.json beside suite.json)" % _show(path))
        for n in names:
            self._load_workload(os.path.join(path, n))
        self._check_server_langs()
        self._check_startup_langs()
        self._add_runtime_variants()

    def _add_runtime_variants(self):
        """The runtimes profile (DESIGN section 11): every variant a workload's
        claims name, of a language suite.json's runtimes lists, once more on each
        listed version, with the version in its id.  They take part in that
        profile alone: select() gives them for it only, find() by id, and they
        are neither in self.variants nor in the workload's README table."""
        rt = self.suite.get("runtimes") or {}
        for name, w in self.workloads.items():
            _check_claim_runtimes((w.get("claims") or {}).get("runtimes"), rt,
                                  "%s: claims.runtimes" % _show(os.path.join(self.path, name + ".json")))
        if RUNTIMES_PROFILE not in self.suite["profiles"]:
            return
        for name, w in self.workloads.items():
            if RUNTIMES_PROFILE not in w["profiles"]:
                continue
            named = set()
            _ids_in(w.get("claims"), self._by_id, named)
            # With each claim variant, its own language's baseline, so that its
            # ratio to the baseline is measured on the same version.
            for v in [v for v in w["variants"] if v["id"] in named]:
                for key, b in self.baselines(v).items():
                    if b and self._by_id[b[0]]["lang"] == v["lang"]:
                        named.add(b[0])
            for v in [v for v in w["variants"] if v["id"] in named and v["lang"] in rt]:
                for version in rt[v["lang"]]["versions"]:
                    nv = copy.deepcopy(v)
                    nv["runtime"] = version
                    nv["id"], nv["label"] = variant_id(nv), variant_label(nv)
                    nv["profiles"] = [RUNTIMES_PROFILE]
                    self._by_id[nv["id"]] = nv
                    self.runtime_variants.append(nv)

    def _check_startup_langs(self):
        """With suite.json's startup, every language of the variants has its empty program."""
        progs = (self.suite.get("startup") or {}).get("programs")
        if progs is None:
            return
        missing = sorted({v["lang"] for v in self.variants} - set(progs))
        if missing:
            raise CatalogError("%s: startup.programs has no empty program of %s (a language of "
                               "the catalog's variants)" % (
                                   _show(os.path.join(self.path, "suite.json")), ", ".join(missing)))

    def _check_server_langs(self):
        """Every server's lang is a language of the catalog's variants."""
        langs = sorted({v["lang"] for v in self.variants})
        for v in self.variants:
            server = v["requires"].get("server")
            if server and server["lang"] not in langs:
                raise CatalogError("%s (%s): requires.server.lang %r is not a language of the "
                                   "catalog's variants (%s)" % (
                                       _show(os.path.join(self.path, v["workload"] + ".json")),
                                       v["id"], server["lang"], ", ".join(langs)))

    def bad_inputs(self):
        """[(workload or None for every one, row)]: suite.json's bad inputs, then
        each workload's, in file order."""
        out = [(None, r) for r in self.suite["bad_inputs"]]
        for name in sorted(self.workloads):
            out += [(name, r) for r in self.workloads[name]["bad_inputs"]]
        return out

    # -- suite.json

    def _load_suite(self, path):
        suite, path = _read_object(path, SUITE_KEYS)
        for k in ("modes", "methods", "styles"):
            for w in _strings(suite.get(k), path, k):
                if not WORD.match(w):
                    raise CatalogError("%s: %s entry %r is not a lower-case word" % (path, k, w))
        if "inprocess" not in suite["methods"]:
            raise CatalogError("%s: methods must include inprocess (the default)" % path)
        _integer(suite.get("bound"), 1, MAX_BOUND, path, "bound")
        _check_bad_inputs(suite.setdefault("bad_inputs", []), path)
        profiles = suite.get("profiles")
        if not isinstance(profiles, dict) or not profiles:
            raise CatalogError("%s: profiles must be a non-empty object" % path)
        for name, p in profiles.items():
            where = "%s: profile %r" % (path, name)
            if not isinstance(p, dict):
                raise CatalogError("%s must be an object" % where)
            _unknown(p, {"about", "rounds", "warmup_rounds", "warmup_iterations", "minutes",
                         "extra_rounds"}, where)
            _integer(p.get("rounds"), 1, MAX_ROUNDS, where, "rounds")
            _integer(p.get("warmup_rounds"), 0, MAX_ROUNDS, where, "warmup_rounds")
            if "warmup_iterations" in p:
                # Over iterations alone; 1 to N operations at N = 1 and at the largest N.
                _warmup_expr(p["warmup_iterations"], where + ": warmup_iterations")
                for n in (1, MAX_ITERATIONS):
                    warmup_round_n(p["warmup_iterations"], n, where + ": warmup_iterations")
            if "minutes" in p:
                _minutes(p["minutes"], where)
            if "extra_rounds" in p:
                _check_extra_rounds(p["extra_rounds"], where + ": extra_rounds")
            if not isinstance(p.get("about"), str):
                raise CatalogError("%s: about must be a string" % where)
        if "startup" in suite:
            s, where = suite["startup"], "%s: startup" % path
            _described(s, STARTUP_KEYS, where, '{"about": .., "programs": {lang: argv}}')
            progs = s.get("programs")
            if not isinstance(progs, dict) or not progs:
                raise CatalogError("%s: programs must map each language to its empty program's argv"
                                   % where)
            for lang, argv in progs.items():
                if not WORD.match(lang):
                    raise CatalogError("%s: %r is not a language (a lower-case word)" % (where, lang))
                _strings(argv, where, "programs.%s" % lang)
        if "runtimes" in suite:
            _check_runtimes(suite["runtimes"], "%s: runtimes" % path)
        return suite

    # -- <workload>.json

    def _load_workload(self, path):
        w, path = _read_object(path, WORKLOAD_KEYS)
        name = w.get("workload")
        stem = os.path.basename(path)[:-len(".json")]
        if name != stem or not WORD.match(stem):
            raise CatalogError("%s: workload must be %r, a lower-case word naming the file, got %r"
                               % (path, stem, name))
        for k in ("about", "unit"):
            if not isinstance(w.get(k), str) or not w[k]:
                raise CatalogError("%s: %s must be a non-empty string" % (path, k))
        w.setdefault("flags", {})
        w.setdefault("checks", {})
        w.setdefault("requires", {})
        w.setdefault("fields", {})
        w.setdefault("baselines", [])
        values = self._check_flags(w["flags"], path)
        extra = w["fields"]
        if not isinstance(extra, dict) or any(not FIELD.match(k) or k in LINE_INTS for k in extra):
            raise CatalogError("%s: fields must map new integer fields of the line (snake-case "
                               "words) to what they count, got %r" % (path, extra))
        self._check_checks(w["checks"], path, set(values) | set(LINE_INTS) | set(extra),
                           set(LINE_INTS) | set(extra))
        self._check_requires(w["requires"], path)
        self._check_warmup(w, path)
        self._check_passes(w, path)
        self._check_profiles(w.get("profiles"), path)
        self._check_rules(w["baselines"], path)
        self._check_targets(w.setdefault("targets", []), path, name)
        _check_bad_inputs(w.setdefault("bad_inputs", []), path)
        if not isinstance(w.setdefault("threadless", []), list):
            raise CatalogError("%s: threadless must be a list of partial field objects" % path)
        for x in w["threadless"]:
            _partial(x, path, "threadless")
        entries = w.get("variants")
        if not isinstance(entries, list) or not entries:
            raise CatalogError("%s: variants must be a non-empty list of matrix entries" % path)
        expanded = []
        for i, entry in enumerate(entries):
            for v in self._expand(w, entry, "%s: variants[%d]" % (path, i), values):
                if v["id"] in self._by_id:
                    raise CatalogError("%s: duplicate variant id %s" % (path, v["id"]))
                self._by_id[v["id"]] = v
                expanded.append(v)
        # A profile that takes the variants of another (variants_of) lists itself
        # in the profiles of those variants, so that select() and the README
        # tables see it like any profile named in a matrix entry.
        for pname, s in w["profiles"].items():
            of = s.get("variants_of")
            if of:
                for v in expanded:
                    if of["profile"] in v["profiles"] and pname not in v["profiles"] \
                            and _matches(v, of.get("for", {})):
                        v["profiles"].append(pname)
        w = dict(w, variants=expanded)
        self.workloads[name] = w
        self.variants += expanded

    def _check_flags(self, flags, path):
        """The workload's flag values by check name ({"expect": "Hello, world", ...})."""
        if not isinstance(flags, dict):
            raise CatalogError("%s: flags must be an object" % path)
        values = {}
        for flag, spec in flags.items():
            where = "%s: flag %r" % (path, flag)
            if not re.match(r"--[a-z][a-z0-9-]*\Z", flag):
                raise CatalogError("%s: a flag is --lower-case-words" % where)
            if not isinstance(spec, dict):
                raise CatalogError("%s must be an object" % where)
            _unknown(spec, FLAG_KEYS, where)
            if not isinstance(spec.get("value"), str):
                raise CatalogError("%s: value must be a string" % where)
            if not isinstance(spec.get("path", False), bool):
                raise CatalogError("%s: path must be true or false" % where)
            values[flag_key(flag)] = spec["value"]
        return values

    def _check_checks(self, checks, path, names, targets):
        if not isinstance(checks, dict):
            raise CatalogError("%s: checks must be an object" % path)
        for field, text in checks.items():
            where = "%s: check %r" % (path, field)
            if field not in targets:
                raise CatalogError("%s: %r is not an integer field of the line" % (where, field))
            _, used = parse_check(text, where)
            unknown = sorted(used - names)
            if unknown:
                raise CatalogError("%s: unknown name %s (known: %s)" % (
                    where, ", ".join(repr(u) for u in unknown), ", ".join(sorted(names))))

    def _check_warmup(self, w, path):
        """The workload's warmup (see the module doc) and each profile's own."""
        if "warmup" in w:
            where = "%s: warmup" % path
            spec = w["warmup"]
            _described(spec, WARMUP_KEYS, where, '{"iterations": EXPR, "about": why}')
            _warmup_expr(spec.get("iterations"), where)
        for name, s in (w.get("profiles") or {}).items():
            if isinstance(s, dict) and "warmup" in s:
                _warmup_expr(s["warmup"], "%s: profile %r: warmup" % (path, name))
                if isinstance(s.get("iterations"), int):
                    warmup_for(s["warmup"], s["iterations"], "%s: profile %r" % (path, name))
        if "warmup" in w:
            for name, s in (w.get("profiles") or {}).items():
                if isinstance(s, dict) and isinstance(s.get("iterations"), int) and "warmup" not in s:
                    warmup_for(w["warmup"]["iterations"], s["iterations"],
                               "%s: profile %r" % (path, name))

    def _check_passes(self, w, path):
        """The workload's passes (see the module doc) and each profile's own: an
        expression over iterations giving 1 to MAX_PASSES at the profile's N."""
        spec = w.get("passes")
        if spec is not None:
            where = "%s: passes" % path
            _described(spec, PASSES_KEYS, where, '{"count": EXPR, "about": why}')
            _warmup_expr(spec.get("count"), where)
        for name, s in (w.get("profiles") or {}).items():
            if not isinstance(s, dict):
                continue
            text = s.get("passes", (spec or {}).get("count"))
            if "passes" in s:
                _warmup_expr(text, "%s: profile %r: passes" % (path, name))
            if text is not None and isinstance(s.get("iterations"), int):
                passes_for(text, s["iterations"], "%s: profile %r" % (path, name))

    def _check_requires(self, req, where):
        if not isinstance(req, dict):
            raise CatalogError("%s: requires must be an object" % where)
        _unknown(req, REQUIREMENTS, "%s: requires" % where)
        if "os" in req:
            for o in _strings(req["os"], where, "requires.os"):
                if o not in OSES:
                    raise CatalogError("%s: requires.os: unknown os %r (known: %s)" % (
                        where, o, ", ".join(OSES)))
        if "node" in req and not isinstance(req["node"], bool):
            raise CatalogError("%s: requires.node must be true or false" % where)
        if "probe" in req:
            _strings(req["probe"], where, "requires.probe")
        if "server" in req:
            s = req["server"]
            if not isinstance(s, dict):
                raise CatalogError("%s: requires.server must be an object" % where)
            _unknown(s, SERVER_KEYS, "%s: requires.server" % where)
            _strings(s.get("argv"), where, "requires.server.argv")
            if not isinstance(s.get("port_flag"), str) or not s["port_flag"].startswith("--"):
                raise CatalogError("%s: requires.server.port_flag must be a --flag" % where)
            _seconds(s.get("ready_timeout_s", 10), MAX_TIMEOUT_S, where, "requires.server.ready_timeout_s")
            if not isinstance(s.get("lang"), str) or not WORD.match(s["lang"]):
                raise CatalogError("%s: requires.server.lang must name the language the server is "
                                   "written in (a lower-case word), got %r" % (where, s.get("lang")))

    def _check_profiles(self, profiles, path):
        if not isinstance(profiles, dict) or not profiles:
            raise CatalogError("%s: profiles must be a non-empty object" % path)
        for name, s in profiles.items():
            where = "%s: profile %r" % (path, name)
            if name not in self.suite["profiles"]:
                raise CatalogError("%s is not in suite.json (it has %s)" % (
                    where, ", ".join(self.suite["profiles"])))
            if not isinstance(s, dict):
                raise CatalogError("%s must be an object" % where)
            _unknown(s, PROFILE_SETTINGS, where)
            _integer(s.get("iterations"), 1, MAX_ITERATIONS, where, "iterations")
            if "trace_iterations" in s:
                _integer(s["trace_iterations"], 2, MAX_ITERATIONS, where, "trace_iterations")
            _seconds(s.get("timeout_s"), MAX_TIMEOUT_S, where, "timeout_s")
            if "rounds" in s and (type(s["rounds"]) is not int or s["rounds"] < 1
                                  or s["rounds"] > self.suite["profiles"][name]["rounds"]):
                raise CatalogError("%s: rounds must be an integer from 1 to the suite's %d" % (
                    where, self.suite["profiles"][name]["rounds"]))
            if "budget" in s:
                _check_budget(s["budget"], where)
            if "sweep" in s:
                _check_sweep(s["sweep"], where)
            if "variants_of" in s:
                of = s["variants_of"]
                if not isinstance(of, dict):
                    raise CatalogError("%s: variants_of must be an object {\"profile\": P, "
                                       "\"for\": {partial fields}}" % where)
                _unknown(of, {"profile", "for"}, where + ": variants_of")
                if of.get("profile") not in profiles or of.get("profile") == name:
                    raise CatalogError("%s: variants_of names profile %r, not another of the "
                                       "workload's profiles (%s)" % (
                                           where, of.get("profile"), ", ".join(profiles)))
                _partial(of.get("for", {}), where, "variants_of's for")

    def _check_rules(self, rules, path):
        if not isinstance(rules, list):
            raise CatalogError("%s: baselines must be a list of rules" % path)
        for i, r in enumerate(rules):
            where = "%s: baselines[%d]" % (path, i)
            if not isinstance(r, dict):
                raise CatalogError("%s must be an object" % where)
            _unknown(r, RULE_KEYS, where)
            for k in ("key", "label"):
                if not isinstance(r.get(k), str) or not r[k]:
                    raise CatalogError("%s: %s must be a non-empty string" % (where, k))
            _partial(r.get("for"), where, "for")
            _partial(r.get("baseline"), where, "baseline")

    def _check_targets(self, targets, path, workload):
        """Each target names two variant ids of this workload and one positive
        bound, or one variant id and an outside-the-clock bound (a time in ms
        and a share of the timed time, both positive)."""
        if not isinstance(targets, list):
            raise CatalogError("%s: targets must be a list" % path)
        seen = set()
        for i, t in enumerate(targets):
            where = "%s: targets[%d]" % (path, i)
            if not isinstance(t, dict):
                raise CatalogError("%s must be an object" % where)
            _unknown(t, TARGET_KEYS, where)
            outside = "max_outside_ms" in t or "max_outside_share" in t
            names = ("id", "what", "variant") + (() if outside else ("against",))
            for k in names:
                if not isinstance(t.get(k), str) or not t[k]:
                    raise CatalogError("%s: %s must be a non-empty string" % (where, k))
            if t["id"] in seen:
                raise CatalogError("%s: duplicate target id %r" % (where, t["id"]))
            seen.add(t["id"])
            if outside:
                self._check_outside_target(t, where, workload)
                continue
            for k in ("variant", "against"):
                f = parse_id(t[k], self.suite["methods"])
                if f is None or f["workload"] != workload:
                    raise CatalogError("%s: %s %r is not a variant id of %s"
                                       % (where, k, t[k], workload))
            bounds = [k for k in TARGET_BOUNDS if k in t]
            if len(bounds) != 1:
                raise CatalogError("%s: give exactly one of %s" % (where, ", ".join(TARGET_BOUNDS)))
            _positive(t, bounds[0], where, 1e12)

    def _check_outside_target(self, t, where, workload):
        extra = [k for k in ("against",) + TARGET_BOUNDS if k in t]
        if extra:
            raise CatalogError("%s: an outside-the-clock target takes no %s" % (where, extra[0]))
        f = parse_id(t["variant"], self.suite["methods"])
        if f is None or f["workload"] != workload:
            raise CatalogError("%s: variant %r is not a variant id of %s"
                               % (where, t["variant"], workload))
        for k, most in (("max_outside_ms", 1e9), ("max_outside_share", 100)):
            if k not in t:
                raise CatalogError("%s: %s is missing (an outside-the-clock target gives both "
                                   "max_outside_ms and max_outside_share)" % (where, k))
            _positive(t, k, where, most)

    # -- matrix entries

    def _expand(self, w, entry, where, values):
        if not isinstance(entry, dict):
            raise CatalogError("%s must be an object" % where)
        _unknown(entry, ENTRY_KEYS, where)
        choices = []
        for f in MATRIX_FIELDS:
            if f not in entry:
                if f not in FIELD_DEFAULTS:
                    raise CatalogError("%s: %s is missing" % (where, f))
                choices.append([FIELD_DEFAULTS[f]])
                continue
            val = entry[f]
            vals = val if isinstance(val, list) else [val]
            if not vals or not all(isinstance(x, str) for x in vals):
                raise CatalogError("%s: %s must be a string or a non-empty list of strings" % (where, f))
            for x in vals:
                self._check_field(f, x, where)
            choices.append(vals)
        for k in ("argv", "profiles"):
            _strings(entry.get(k), where, k)
        for p in entry["profiles"]:
            if p not in self.suite["profiles"]:
                raise CatalogError("%s: profile %r is not in suite.json (it has %s)" % (
                    where, p, ", ".join(self.suite["profiles"])))
            if p not in w["profiles"]:
                raise CatalogError("%s: profile %r is not among the workload's profiles (%s)" % (
                    where, p, ", ".join(w["profiles"])))
        about = entry.get("about")
        if not isinstance(about, (str, dict)) or not about:
            raise CatalogError("%s: about must be a string or an object keyed by name, mode, "
                               "style or \"*\"" % where)
        if not isinstance(entry.get("requires", {}), dict):
            raise CatalogError("%s: requires must be an object" % where)
        requires = dict(w["requires"], **entry.get("requires", {}))
        self._check_requires(requires, where)
        excludes = entry.get("exclude", [])
        if not isinstance(excludes, list):
            raise CatalogError("%s: exclude must be a list of partial field objects" % where)
        for x in excludes:
            _partial(x, where, "exclude")
        out = []
        for combo in itertools.product(*choices):
            fields = dict(zip(MATRIX_FIELDS, combo), workload=w["workload"])
            if any(_matches(fields, x) for x in excludes):
                continue
            out.append(self._variant(w, values, fields, entry, about, requires, where))
        if not out:
            raise CatalogError("%s: the exclusions leave no variant" % where)
        return out

    @staticmethod
    def _check_env(env, where):
        """A copy of an entry's env: names of [A-Z_][A-Z0-9_]* with string values."""
        if not isinstance(env, dict) or not all(
                isinstance(k, str) and ENV_NAME.match(k) and isinstance(val, str)
                for k, val in env.items()):
            raise CatalogError("%s: env must map variable names ([A-Z_][A-Z0-9_]*) to strings, "
                               "got %r" % (where, env))
        return dict(env)

    def _check_field(self, f, x, where):
        if f in ("style", "mode", "method"):
            known = self.suite[f + "s"]
            if x not in known:
                raise CatalogError("%s: unknown %s %r (suite.json has %s)" % (
                    where, f, x, ", ".join(known)))
        elif f == "backend":
            if not BACKEND.match(x):
                raise CatalogError("%s: backend %r has characters outside [A-Za-z0-9._]" % (where, x))
        elif f == "shape":
            if x and (not WORD.match(x) or x in self.suite["methods"]):
                raise CatalogError("%s: shape %r is not one lower-case word other than a "
                                   "method's" % (where, x))
        elif not WORD.match(x):
            raise CatalogError("%s: %s %r is not a lower-case word" % (where, f, x))

    def _variant(self, w, values, fields, entry, about, requires, where):
        v = {"id": variant_id(fields), "label": variant_label(fields), "name": variant_name(fields)}
        v.update((f, fields[f]) for f in FIELDS)
        v["concurrency"] = given_concurrency(fields["mode"], self.suite["bound"])
        where = "%s (%s)" % (where, v["id"])
        templ = dict(fields, name=v["name"])
        v["argv"] = fill(entry["argv"], templ, where)
        v["profiles"] = list(entry["profiles"])
        if isinstance(about, dict):
            text = next((about[k] for k in (v["name"], v["mode"], v["style"], "*") if k in about), None)
            if not isinstance(text, str):
                raise CatalogError("%s: about has no text for %s (keys: name, mode, style, \"*\")"
                                   % (where, v["name"]))
            about = text
        v["about"] = fill([about], templ, where)[0]
        req = copy.deepcopy(requires)
        if "probe" in req:
            req["probe"] = fill(req["probe"], templ, where)
        if "server" in req:
            req["server"]["argv"] = fill(req["server"]["argv"], templ, where)
            req["server"].setdefault("ready_timeout_s", 10)
        words = v["argv"] + req.get("probe", []) + req.get("server", {}).get("argv", [])
        if any("{node}" in a for a in words):
            req["node"] = True
        v["requires"] = req
        v["env"] = self._check_env(entry.get("env", {}), where)
        v["threadless"] = any(_matches(fields, x) for x in w["threadless"])
        if "warmup" in entry:
            # These variants' own warm-up, over the workload's and the profile's.
            v["warmup"] = _warmup_expr(entry["warmup"], "%s: warmup" % where)
        if "passes" in entry:
            # These variants' own passes (a whole-process method's "1").
            v["passes"] = _warmup_expr(entry["passes"], "%s: passes" % where)
        # What runner/contract.py needs to check a line of this variant on its own.
        v["checks"] = dict(w["checks"])
        v["flag_values"] = dict(values)
        v["extra_fields"] = sorted(w["fields"])
        return v

    # -- queries

    def find(self, vid):
        """The variant with id vid, or None."""
        return self._by_id.get(vid)

    def select(self, profile=None, lang=None, workload=None):
        """The variants of a profile, a language and a workload (None: any), in
        catalog order; the runtimes profile's versioned variants only when it
        is the profile asked for."""
        pool = self.variants + (self.runtime_variants if profile == RUNTIMES_PROFILE else [])
        return [v for v in pool
                if (profile is None or profile in v["profiles"])
                and (lang is None or v["lang"] == lang)
                and (workload is None or v["workload"] == workload)]

    def profile(self, profile):
        """The suite profile (about, rounds, warmup_rounds), or None if unknown."""
        return self.suite["profiles"].get(profile)

    def settings(self, workload, profile):
        """{"iterations", "timeout_s"[, "rounds"]} of a workload in a profile (a
        copy), or None when the workload does not take part in it."""
        s = self.workloads[workload]["profiles"].get(profile)
        return dict(s) if s is not None else None

    def warmup(self, workload, profile):
        """The warm-up expression of a workload in a profile (the profile's own, else
        the workload's), "0" when it has none."""
        s = self.settings(workload, profile) or {}
        if "warmup" in s:
            return s["warmup"]
        return (self.workloads[workload].get("warmup") or {}).get("iterations", "0")

    def passes(self, workload, profile):
        """The timed-passes expression of a workload in a profile (the profile's
        own, else the workload's), "1" when it has none."""
        s = self.settings(workload, profile) or {}
        if "passes" in s:
            return s["passes"]
        return (self.workloads[workload].get("passes") or {}).get("count", "1")

    def rounds(self, workload, profile):
        """In how many of the profile's rounds the workload runs (its first ones)."""
        s = self.settings(workload, profile) or {}
        return s.get("rounds", self.suite["profiles"][profile]["rounds"])

    def flag_values(self, workload):
        """The workload's flag values by check name: {"file": ..., "expect": ...}."""
        return {flag_key(f): s["value"] for f, s in self.workloads[workload]["flags"].items()}

    def workload_args(self, workload):
        """The workload's flags with the catalog's values, as the runner appends
        them: ["--file", "<root>/fixtures/text.txt", "--expect", "Hello, world"].
        Path flags are made absolute (relative to the project root)."""
        out = []
        for flag, spec in self.workloads[workload]["flags"].items():
            value = spec["value"]
            if spec.get("path") and not os.path.isabs(value):
                value = os.path.join(ROOT, value)
            out += [flag, value]
        return out

    def baselines(self, v):
        """{key: (baseline id, label) or None} for every key of v's workload's rules
        (always "c" and "lang").  The baseline under a rule is the variant whose
        fields equal v's workload, mode, method and backend with shape "", overridden
        by the rule's baseline fields; the first rule per key whose `for` matches
        wins.  A variant may be its own baseline."""
        if v.get("runtime"):
            # A variant of a pinned version: its baselines of its own language
            # on the same version (the runtimes profile runs them too, see
            # _add_runtime_variants); none of another language, which has no
            # such version.
            out = {}
            for key, b in self.baselines(self.find(unversioned_id(v))).items():
                twin = b and self.find(variant_id(dict(self.find(b[0]), runtime=v["runtime"])))
                out[key] = (twin["id"], "%s on %s" % (b[1], v["runtime"])) if twin else None
            return out
        rules = self.workloads[v["workload"]]["baselines"]
        out = {"c": None, "lang": None}
        out.update((r["key"], None) for r in rules)
        decided = set()
        for r in rules:
            if r["key"] in decided or not _matches(v, r["for"]):
                continue
            decided.add(r["key"])
            want = {"workload": v["workload"], "mode": v["mode"], "method": v["method"],
                    "backend": v["backend"], "shape": ""}
            want.update(r["baseline"])
            hits = [b for b in self.workloads[v["workload"]]["variants"]
                    if all(b[k] == want[k] for k in want)]
            if len(hits) == 1:
                out[r["key"]] = (hits[0]["id"], r["label"])
        return out

    def baseline_table(self, variants=None):
        """{id: {key: [baseline id, label] or None}} of variants (default: all), as
        JSON can hold it (a run folder keeps it, so old runs re-render alike)."""
        return {v["id"]: {k: list(b) if b else None for k, b in self.baselines(v).items()}
                for v in (self.variants if variants is None else variants)}


def load(path=DIR):
    """The catalog of folder path (suite.json and one <workload>.json per
    workload), validated and expanded; raises CatalogError (one line)."""
    if not os.path.isdir(path) or not os.path.isfile(os.path.join(path, "suite.json")):
        raise CatalogError("%s: not a catalog folder (suite.json and <workload>.json files)" % _show(path))
    return Catalog(path)


# A run folder keeps a copy of the catalog it ran with (its JSON files), so
# that its claims, targets, checks and chart hints re-render the same later.
SNAPSHOT = "catalog"
_run_catalogs = {}


def snapshot(src, rundir):
    """Copies the catalog folder src's JSON files into rundir/catalog/."""
    dest = os.path.join(rundir, SNAPSHOT)
    os.makedirs(dest, exist_ok=True)
    for name in sorted(os.listdir(src)):
        if name.endswith(".json"):
            with open(os.path.join(src, name), encoding="utf-8", newline="") as f:
                write_atomic(os.path.join(dest, name), f.read())


def for_run(rundir):
    """The catalog a run folder ran with: its snapshot, or today's (runner/
    catalog/) for a run made before runs kept one.  A snapshot today's code
    cannot read any more is replaced by today's catalog, said once on stderr.
    Loaded once per folder and process; raises CatalogError only when today's
    cannot be read either."""
    snap = os.path.join(rundir, SNAPSHOT) if rundir else None
    if not snap or not os.path.isfile(os.path.join(snap, "suite.json")):
        return _loaded(DIR)
    try:
        return _loaded(snap)
    except CatalogError as e:
        if snap not in _unreadable:
            _unreadable.add(snap)
            print("run.py: %s: the run's catalog cannot be read by today's code (%s); "
                  "today's catalog stands in" % (_show(snap), e), file=sys.stderr)
        return _loaded(DIR)


_unreadable = set()


def _loaded(path):
    key = os.path.realpath(path)
    stamp = tuple(sorted((n, os.stat(os.path.join(key, n)).st_mtime_ns)
                         for n in os.listdir(key) if n.endswith(".json")))
    got = _run_catalogs.get(key)
    if got is None or got[0] != stamp:
        got = _run_catalogs[key] = (stamp, load(path))
    return got[1]


# ---------------------------------------------------------------- README


BEGIN, END = "<!-- catalog-table:begin -->", "<!-- catalog-table:end -->"


def warmup_text(w):
    """The README's sentence on a workload's in-process warm-up (`--warmup W`,
    W as an expression of N)."""
    spec = w.get("warmup")
    shown = lambda text: re.sub(r"\biterations\b", "N", text)  # noqa: E731
    own = {p: shown(s["warmup"]) for p, s in w["profiles"].items() if "warmup" in s}
    text = "Warm-up (untimed operations in the same process before the timed pass): "
    text += "`%s`" % shown(spec["iterations"]) if spec else "none"
    if own:
        text += " (profile %s)" % ", ".join("`%s`: `%s`" % kv for kv in sorted(own.items()))
    return text + (": %s." % spec["about"].rstrip(".") if spec else ".")


def markdown_table(cat):
    """One Markdown table per workload: id, backend, profiles, what it does;
    above it what the workload is and its in-process warm-up."""
    out = []
    for name in sorted(cat.workloads):
        w = cat.workloads[name]
        if out:
            out.append("")
        out += ["`%s`: %s" % (name, w["about"]), "", warmup_text(w), "",
                "| id | backend | profiles | what it does |", "|---|---|---|---|"]
        for v in w["variants"]:
            out.append("| `%s` | %s | %s | %s |" % (
                v["id"], v["backend"], ", ".join(v["profiles"]), v["about"]))
    return "\n".join(out)


def readme_with_table(text, table):
    """README text with the part between the catalog-table markers replaced."""
    a, b = text.index(BEGIN) + len(BEGIN), text.index(END)
    return text[:a] + "\n" + table + "\n" + text[b:]


# ---------------------------------------------------------------- CLI


class _Usage(Exception):
    pass


def _opt(args, name, default=None):
    if name in args:
        i = args.index(name)
        if i + 1 >= len(args):
            raise _Usage("%s needs a value" % name)
        value = args[i + 1]
        del args[i:i + 2]
        return value
    return default


def _print_flags(cat, workload):
    for flag, spec in cat.workloads[workload]["flags"].items():
        print(flag)
        print(spec["value"])


def _variant_arg(cat, args, cmd):
    if len(args) < 2:
        raise _Usage("%s: which variant?" % cmd)
    v = cat.find(args[1])
    if v is None:
        raise _Usage("unknown variant %r (see: catalog.py ids)" % args[1])
    return v


def _command(cat, args):
    cmd = args[0]
    if cmd == "ids":
        profile, lang, workload = _opt(args, "--profile"), _opt(args, "--lang"), _opt(args, "--workload")
        for v in cat.select(profile, lang, workload):
            print(v["id"])
        return 0
    if cmd == "workloads":
        print("\n".join(sorted(cat.workloads)))
        return 0
    if cmd == "flags":
        if len(args) < 2 or args[1] not in cat.workloads:
            raise _Usage("flags: which workload? (%s)" % ", ".join(sorted(cat.workloads)))
        _print_flags(cat, args[1])
        return 0
    if cmd == "argv":
        bin_dir, node = _opt(args, "--bin"), _opt(args, "--node")
        print("\n".join(argv(_variant_arg(cat, args, cmd), bin_dir, node)))
        return 0
    if cmd == "field":
        v = _variant_arg(cat, args, cmd)
        if len(args) < 3:
            raise _Usage("field: which field? (%s)" % ", ".join(v))
        val = v.get(args[2])
        print(json.dumps(val) if isinstance(val, (list, dict)) else ("" if val is None else val))
        return 0
    if cmd == "default":
        v = _variant_arg(cat, args, cmd)
        if len(args) < 3:
            _print_flags(cat, v["workload"])
            return 0
        spec = cat.workloads[v["workload"]]["flags"].get(args[2])
        if spec is None:
            raise _Usage("default: %s has no flag %r" % (v["workload"], args[2]))
        print(spec["value"])
        return 0
    if cmd == "bad-inputs":
        for workload, r in cat.bad_inputs():
            print("@@ %s %d" % (workload or "*", r["exit"]))
            print("says %s" % r["says"])
            for lang in sorted(r.get("words", {})):
                print("words %s %s" % (lang, r["words"][lang]))
            for w in r["flags"]:
                print("flag %s" % w)
        return 0
    if cmd == "table":
        print(markdown_table(cat))
        return 0
    if cmd == "readme":
        with open(TABLES_DOC, encoding="utf-8") as f:
            text = f.read()
        new = readme_with_table(text, markdown_table(cat))
        if "--check" in args:
            if new != text:
                print("docs/workloads.md: the variant tables differ from runner/catalog/; "
                      "run: python3 -m runner.catalog readme", file=sys.stderr)
                return 1
            return 0
        if new != text:
            write_atomic(TABLES_DOC, new)
        return 0
    raise _Usage("unknown command %r (try --help)" % cmd)


def main(args):
    args = list(args)
    if not args or args[0] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stdout if args else sys.stderr)
        return 0 if args else 2
    try:
        path = _opt(args, "--catalog", DIR)
        if not args:
            raise _Usage("which command? (try --help)")
        return _command(load(path), args)
    except _Usage as e:
        print("catalog.py: %s" % e, file=sys.stderr)
        return 2
    except CatalogError as e:
        print("catalog.py: %s" % e, file=sys.stderr)
        return 3


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
