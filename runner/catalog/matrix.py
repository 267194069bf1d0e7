"""matrix.py -- a workload's matrix entries expanded into variants with
explicit fields (runner/catalog/catalog.py's module doc, variants), and the templates
of their commands: filled from the fields when the catalog is read, {bin} and
{node} only when a command runs (argv()).
"""
import copy
import itertools
import os
import re

from .catalog_check import BACKEND, ENTRY_KEYS, ENV_NAME, check_known, check_partial, check_strings, matches
from ..core.errors import CatalogError
from ..core.expr import warmup_expr
from ..core.ids import FIELD_DEFAULTS, FIELDS, MATRIX_FIELDS, WORD, given_concurrency, variant_id, variant_label, variant_name
from .workload_check import check_requires
from ..core import paths

ROOT = paths.ROOT
TEMPLATE = re.compile(r"\{(\w+)\}")
# Placeholders filled only when the command runs (argv()).
LATE = ("bin", "node")


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


# ---------------------------------------------------------------- matrix entries


def expand_entry(suite, w, entry, where, values):
    """The variants of one matrix entry of workload w (the product of its
    fields' values less its excludes)."""
    if not isinstance(entry, dict):
        raise CatalogError("%s must be an object" % where)
    check_known(entry, ENTRY_KEYS, where)
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
            check_field(suite, f, x, where)
        choices.append(vals)
    for k in ("argv", "profiles"):
        check_strings(entry.get(k), where, k)
    for p in entry["profiles"]:
        if p not in suite["profiles"]:
            raise CatalogError("%s: profile %r is not in suite.json (it has %s)" % (
                where, p, ", ".join(suite["profiles"])))
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
    check_requires(requires, where)
    excludes = entry.get("exclude", [])
    if not isinstance(excludes, list):
        raise CatalogError("%s: exclude must be a list of partial field objects" % where)
    for x in excludes:
        check_partial(x, where, "exclude")
    out = []
    for combo in itertools.product(*choices):
        fields = dict(zip(MATRIX_FIELDS, combo), workload=w["workload"])
        if any(matches(fields, x) for x in excludes):
            continue
        out.append(make_variant(suite, w, values, fields, entry, about, requires, where))
    if not out:
        raise CatalogError("%s: the exclusions leave no variant" % where)
    return out


def check_env(env, where):
    """A copy of an entry's env: names of [A-Z_][A-Z0-9_]* with string values."""
    if not isinstance(env, dict) or not all(
            isinstance(k, str) and ENV_NAME.match(k) and isinstance(val, str)
            for k, val in env.items()):
        raise CatalogError("%s: env must map variable names ([A-Z_][A-Z0-9_]*) to strings, "
                           "got %r" % (where, env))
    return dict(env)


def check_field(suite, f, x, where):
    if f in ("style", "mode", "method"):
        known = suite[f + "s"]
        if x not in known:
            raise CatalogError("%s: unknown %s %r (suite.json has %s)" % (
                where, f, x, ", ".join(known)))
    elif f == "backend":
        if not BACKEND.match(x):
            raise CatalogError("%s: backend %r has characters outside [A-Za-z0-9._]" % (where, x))
    elif f == "shape":
        if x and (not WORD.match(x) or x in suite["methods"]):
            raise CatalogError("%s: shape %r is not one lower-case word other than a "
                               "method's" % (where, x))
    elif not WORD.match(x):
        raise CatalogError("%s: %s %r is not a lower-case word" % (where, f, x))


def make_variant(suite, w, values, fields, entry, about, requires, where):
    """One variant of an entry: fields, id, command, requirements, checks."""
    v = {"id": variant_id(fields), "label": variant_label(fields), "name": variant_name(fields)}
    v.update((f, fields[f]) for f in FIELDS)
    v["concurrency"] = given_concurrency(fields["mode"], suite["bound"])
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
    v["env"] = check_env(entry.get("env", {}), where)
    v["threadless"] = any(matches(fields, x) for x in w["threadless"])
    if "warmup" in entry:
        # These variants' own warm-up, over the workload's and the profile's.
        v["warmup"] = warmup_expr(entry["warmup"], "%s: warmup" % where)
    if "passes" in entry:
        # These variants' own passes (a whole-process method's "1").
        v["passes"] = warmup_expr(entry["passes"], "%s: passes" % where)
    # What runner/catalog/contract.py needs to check a line of this variant on its own.
    v["checks"] = dict(w["checks"])
    v["flag_values"] = dict(values)
    v["extra_fields"] = sorted(w["fields"])
    return v
