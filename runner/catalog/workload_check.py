"""workload_check.py -- the checks of a workload file's parts (runner/catalog/catalog.py's
module doc, <workload>.json): its flags, checks, warm-up and passes, requirements,
profiles, baseline rules and targets.  Each raises CatalogError with one line.
"""
import re

from .catalog_check import CONTRACT_FLAGS, FLAG_KEYS, MAX_TIMEOUT_S, OSES, PASSES_KEYS, PROFILE_SETTINGS, REQUIREMENTS, RULE_KEYS, SERVER_KEYS, SERVER_WARM_KEYS, TARGET_BOUNDS, TARGET_KEYS, OWN_TARGET_BOUNDS, WARMUP_KEYS, check_budget, check_described, check_integer, check_known, check_partial, check_positive, check_seconds, check_strings, check_sweep
from ..core.errors import CatalogError
from ..core.expr import MAX_ITERATIONS, evaluate, flag_key, parse_check, passes_for, warmup_expr, warmup_for
from ..core.ids import WORD, parse_id


def check_flags(flags, path):
    """The workload's flag values by check name ({"expect": "Hello, world", ...})."""
    if not isinstance(flags, dict):
        raise CatalogError("%s: flags must be an object" % path)
    values = {}
    for flag, spec in flags.items():
        where = "%s: flag %r" % (path, flag)
        if not re.match(r"--[a-z][a-z0-9-]*\Z", flag):
            raise CatalogError("%s: a flag is --lower-case-words" % where)
        if flag in CONTRACT_FLAGS:
            raise CatalogError("%s is a flag of the program contract, which the runner gives "
                               "every program itself (%s): name the workload's flag otherwise"
                               % (where, ", ".join(CONTRACT_FLAGS)))
        if not isinstance(spec, dict):
            raise CatalogError("%s must be an object" % where)
        check_known(spec, FLAG_KEYS, where)
        if not isinstance(spec.get("value"), str):
            raise CatalogError("%s: value must be a string" % where)
        if not isinstance(spec.get("path", False), bool):
            raise CatalogError("%s: path must be true or false" % where)
        if "test" in spec and not (isinstance(spec["test"], str) and spec["test"]):
            raise CatalogError("%s: test must be a non-empty string" % where)
        values[flag_key(flag)] = spec["value"]
    return values


# The sample values a check is evaluated at when the catalog is read: N and
# every integer field of the line at 1 (the contract's smallest run) and at
# 1,000, the flags at the catalog's values.
CHECK_SAMPLES = (1, 1000)


def check_checks(checks, path, names, targets, values=None):
    """The workload's checks: each of an integer field of the line (targets),
    naming only names, and giving an integer at the sample values
    (CHECK_SAMPLES, the flags at their catalog values): a check that divides
    by zero (`iterations // 0`), takes len() of a number or int() of a word,
    or gives a text would fail every run of the workload, charged to the
    program."""
    if not isinstance(checks, dict):
        raise CatalogError("%s: checks must be an object" % path)
    for field, text in checks.items():
        where = "%s: check %r" % (path, field)
        if field not in targets:
            raise CatalogError("%s: %r is not an integer field of the line" % (where, field))
        tree, used = parse_check(text, where)
        unknown = sorted(used - names)
        if unknown:
            raise CatalogError("%s: unknown name %s (known: %s)" % (
                where, ", ".join(repr(u) for u in unknown), ", ".join(sorted(names))))
        for n in CHECK_SAMPLES:
            env = dict({k: n for k in names}, **(values or {}))
            try:
                got = evaluate(tree, env)
            except ValueError as e:
                raise CatalogError("%s: %r cannot be evaluated at N = %d (every field of the "
                                   "line %d, the flags at their values): %s; it would fail "
                                   "every run" % (where, text, n, n, e)) from None
            if type(got) is not int:
                raise CatalogError("%s: %r gives %r, not an integer (the field is one)"
                                   % (where, text, got))
            if not -2 ** 63 <= got < 2 ** 63:
                # A line's integers are 64-bit; such a check fails every run,
                # and its message could not even print the figure (4,300 digits).
                raise CatalogError("%s: %r... gives a number beyond 64 bits at N = %d: no "
                                   "line can hold it" % (where, text[:40], n))


def check_warmup(w, path):
    """The workload's warmup (see the module doc) and each profile's own."""
    if "warmup" in w:
        where = "%s: warmup" % path
        spec = w["warmup"]
        check_described(spec, WARMUP_KEYS, where, '{"iterations": EXPR, "about": why}')
        warmup_expr(spec.get("iterations"), where)
    for name, s in (w.get("profiles") or {}).items():
        if isinstance(s, dict) and "warmup" in s:
            warmup_expr(s["warmup"], "%s: profile %r: warmup" % (path, name))
            if isinstance(s.get("iterations"), int):
                warmup_for(s["warmup"], s["iterations"], "%s: profile %r" % (path, name))
    if "warmup" in w:
        for name, s in (w.get("profiles") or {}).items():
            if isinstance(s, dict) and isinstance(s.get("iterations"), int) and "warmup" not in s:
                warmup_for(w["warmup"]["iterations"], s["iterations"],
                           "%s: profile %r" % (path, name))


def check_passes(w, path):
    """The workload's passes (see the module doc) and each profile's own: an
    expression over iterations giving 1 to MAX_PASSES at the profile's N."""
    spec = w.get("passes")
    if spec is not None:
        where = "%s: passes" % path
        check_described(spec, PASSES_KEYS, where, '{"count": EXPR, "about": why}')
        warmup_expr(spec.get("count"), where)
    for name, s in (w.get("profiles") or {}).items():
        if not isinstance(s, dict):
            continue
        text = s.get("passes", (spec or {}).get("count"))
        if "passes" in s:
            warmup_expr(text, "%s: profile %r: passes" % (path, name))
        if text is not None and isinstance(s.get("iterations"), int):
            passes_for(text, s["iterations"], "%s: profile %r" % (path, name))


def check_requires(req, where):
    if not isinstance(req, dict):
        raise CatalogError("%s: requires must be an object" % where)
    check_known(req, REQUIREMENTS, "%s: requires" % where)
    if "os" in req:
        for o in check_strings(req["os"], where, "requires.os"):
            if o not in OSES:
                raise CatalogError("%s: requires.os: unknown os %r (known: %s)" % (
                    where, o, ", ".join(OSES)))
    if "node" in req and not isinstance(req["node"], bool):
        raise CatalogError("%s: requires.node must be true or false" % where)
    if "probe" in req:
        check_strings(req["probe"], where, "requires.probe")
    if "server" in req:
        s = req["server"]
        check_command(s, SERVER_KEYS, "ready_timeout_s", 10, where, "requires.server")
        if not isinstance(s.get("port_flag"), str) or not s["port_flag"].startswith("--"):
            raise CatalogError("%s: requires.server.port_flag must be a --flag" % where)
        if "warm" in s:
            w = s["warm"]
            check_command(w, SERVER_WARM_KEYS, "timeout_s", 60, where, "requires.server.warm")
            if not isinstance(w.get("about"), str):
                raise CatalogError("%s: requires.server.warm.about must say why" % where)
        if not isinstance(s.get("lang"), str) or not WORD.match(s["lang"]):
            raise CatalogError("%s: requires.server.lang must name the language the server is "
                               "written in (a lower-case word), got %r" % (where, s.get("lang")))


def check_command(obj, keys, timeout_key, timeout_default, where, what):
    """A command object of requires (the server, its warm-up client): an
    object of known keys, a non-empty argv of strings, a timeout in range."""
    if not isinstance(obj, dict):
        raise CatalogError("%s: %s must be an object" % (where, what))
    check_known(obj, keys, "%s: %s" % (where, what))
    check_strings(obj.get("argv"), where, what + ".argv")
    check_seconds(obj.get(timeout_key, timeout_default), MAX_TIMEOUT_S, where,
                  "%s.%s" % (what, timeout_key))


def check_profiles(profiles, path, suite):
    if not isinstance(profiles, dict) or not profiles:
        raise CatalogError("%s: profiles must be a non-empty object" % path)
    for name, s in profiles.items():
        where = "%s: profile %r" % (path, name)
        if name not in suite["profiles"]:
            raise CatalogError("%s is not in suite.json (it has %s)" % (
                where, ", ".join(suite["profiles"])))
        if not isinstance(s, dict):
            raise CatalogError("%s must be an object" % where)
        check_known(s, PROFILE_SETTINGS, where)
        check_integer(s.get("iterations"), 1, MAX_ITERATIONS, where, "iterations")
        if "trace_iterations" in s:
            check_integer(s["trace_iterations"], 2, MAX_ITERATIONS, where, "trace_iterations")
        check_seconds(s.get("timeout_s"), MAX_TIMEOUT_S, where, "timeout_s")
        if "rounds" in s and (type(s["rounds"]) is not int or s["rounds"] < 1
                              or s["rounds"] > suite["profiles"][name]["rounds"]):
            raise CatalogError("%s: rounds must be an integer from 1 to the suite's %d" % (
                where, suite["profiles"][name]["rounds"]))
        if "budget" in s:
            check_budget(s["budget"], where)
        if "sweep" in s:
            check_sweep(s["sweep"], where)
        if "variants_of" in s:
            of = s["variants_of"]
            if not isinstance(of, dict):
                raise CatalogError("%s: variants_of must be an object {\"profile\": P, "
                                   "\"for\": {partial fields}}" % where)
            check_known(of, {"profile", "for"}, where + ": variants_of")
            if of.get("profile") not in profiles or of.get("profile") == name:
                raise CatalogError("%s: variants_of names profile %r, not another of the "
                                   "workload's profiles (%s)" % (
                                       where, of.get("profile"), ", ".join(profiles)))
            check_partial(of.get("for", {}), where, "variants_of's for")


def check_rules(rules, path):
    if not isinstance(rules, list):
        raise CatalogError("%s: baselines must be a list of rules" % path)
    for i, r in enumerate(rules):
        where = "%s: baselines[%d]" % (path, i)
        if not isinstance(r, dict):
            raise CatalogError("%s must be an object" % where)
        check_known(r, RULE_KEYS, where)
        for k in ("key", "label"):
            if not isinstance(r.get(k), str) or not r[k]:
                raise CatalogError("%s: %s must be a non-empty string" % (where, k))
        check_partial(r.get("for"), where, "for")
        check_partial(r.get("baseline"), where, "baseline")


def check_targets(targets, path, workload, methods):
    """Each target names two variant ids of this workload and one positive
    bound of the pair (TARGET_BOUNDS); or one variant id and an
    outside-the-clock bound (a time in ms and a share of the timed time, both
    positive) or one bound of its own figure (OWN_TARGET_BOUNDS).  Any may
    give at_iterations (the N it is judged at) and ops_per_iteration, both
    positive whole numbers."""
    if not isinstance(targets, list):
        raise CatalogError("%s: targets must be a list" % path)
    seen = set()
    for i, t in enumerate(targets):
        where = "%s: targets[%d]" % (path, i)
        if not isinstance(t, dict):
            raise CatalogError("%s must be an object" % where)
        check_known(t, TARGET_KEYS, where)
        outside = "max_outside_ms" in t or "max_outside_share" in t
        own = [k for k in OWN_TARGET_BOUNDS if k in t]
        names = ("id", "what", "variant") + (() if outside or own else ("against",))
        for k in names:
            if not isinstance(t.get(k), str) or not t[k]:
                raise CatalogError("%s: %s must be a non-empty string" % (where, k))
        if t["id"] in seen:
            raise CatalogError("%s: duplicate target id %r" % (where, t["id"]))
        seen.add(t["id"])
        for k in ("at_iterations", "ops_per_iteration"):
            if k in t and (type(t[k]) is not int or not 0 < t[k] < 1e12):
                raise CatalogError("%s: %s must be a positive whole number, got %r"
                                   % (where, k, t[k]))
        if "ops_per_iteration" in t and not own:
            raise CatalogError("%s: ops_per_iteration goes only with %s"
                               % (where, " or ".join(OWN_TARGET_BOUNDS)))
        if outside or own:
            _check_own_target(t, where, workload, methods, outside, own)
            continue
        for k in ("variant", "against"):
            f = parse_id(t[k], methods)
            if f is None or f["workload"] != workload:
                raise CatalogError("%s: %s %r is not a variant id of %s"
                                   % (where, k, t[k], workload))
        bounds = [k for k in TARGET_BOUNDS if k in t]
        if len(bounds) != 1:
            raise CatalogError("%s: give exactly one of %s" % (where, ", ".join(TARGET_BOUNDS)))
        check_positive(t, bounds[0], where, 1e12)


def _check_own_target(t, where, workload, methods, outside, own):
    """A target of one variant's own figure: its time outside the clock (both
    max_outside_ms and max_outside_share) or one of OWN_TARGET_BOUNDS."""
    extra = [k for k in ("against",) + TARGET_BOUNDS if k in t]
    if extra:
        raise CatalogError("%s: %s target takes no %s" % (
            where, "an outside-the-clock" if outside else "a " + own[0], extra[0]))
    if (len(own) + bool(outside)) != 1:
        raise CatalogError("%s: give exactly one of max_outside_ms (with max_outside_share), %s"
                           % (where, ", ".join(OWN_TARGET_BOUNDS)))
    f = parse_id(t["variant"], methods)
    if f is None or f["workload"] != workload:
        raise CatalogError("%s: variant %r is not a variant id of %s"
                           % (where, t["variant"], workload))
    if own:
        check_positive(t, own[0], where, 1e12)
        return
    for k, most in (("max_outside_ms", 1e9), ("max_outside_share", 100)):
        if k not in t:
            raise CatalogError("%s: %s is missing (an outside-the-clock target gives both "
                               "max_outside_ms and max_outside_share)" % (where, k))
        check_positive(t, k, where, most)
