"""catalog.py -- the one list of variants (catalog/), read by everyone.

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
warmup_rounds[, warmup_iterations][, minutes][, extra_rounds][, calibrate_passes]}} (warmup_iterations:
the N of a warm-up round's runs, an expression over iterations, N itself when
not given; minutes: the run's time budget from its first warm-up, at which the
extra rounds stop; extra_rounds {"max": R, "minutes": M}: after
the planned rounds, up to R rounds more, within M minutes, of the variants of
the targets and claims still open by runner/measure/sequential.py's rule, once none
is of the headline's comparisons still open; calibrate_passes
{"min_ms": T, "max": P}: a variant of more than one pass runs enough for T ms
a process by its warm-up, at most P, runner/measure/calibrate.py), optional startup {"about": .., "programs": {lang: argv}}: an
empty program of each language, run once per round so that a variant's time
outside its clock can be told from its language's own start-up (DESIGN
section 6; every language of the variants needs one), optional runtimes
{"about": .., lang: {"versions": [..], "needs": [{"for": {partial fields},
"min": version, "why": ..}]}}: the runtime versions of the seeds' day and
today's, and what a variant needs of one (catalog_check.runtime_unmet; DESIGN section 11).
<workload>.json:
  workload, about, unit   its name (= the file's), what it does, one operation
  flags      {"--file": {"value": "fixtures/text.txt", "path": true, "about": ..}}:
             what the runner appends (path values made absolute); every program's
             defaults equal these values; "test": a value scripts/sanitize.sh
             runs every variant with, where the catalog's only costs time
             (tasks' --sleep-ms)
  checks     {"bytes": "iterations * len(expect)"}: a field of the line and the
             integer expression it must equal, over iterations, the line's integer
             fields and the flags' values by name (--delay-ms is delay_ms); only
             integers, names, len() (UTF-8 bytes), int(), min(), max(), + - * //,
             at most 50 levels deep (expr.MAX_DEPTH)
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
             runner/measure/trace.py; W: the profile's own warm-up expression, over
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
             for), concurrency only in bounded mode (runner/measure/plan.py: points)
  baselines  [{"key": "c", "label": "C callback", "for": {partial fields, a list
             = any of}, "baseline": {partial fields}}] (see Catalog.baselines)
  claims     seed claims as data (runner/analysis/reproduce.py describes them)
  targets    optional upper bounds a run is judged against (runner/analysis/targets.py):
             [{"id", "what", "variant": id, "against": id, and one of
             "max_ratio" (variant / against), "max_diff_per_op_ns" (variant
             minus against, per operation) or "max_bytes_ratio" (variant's
             memory above idle per operation / against's, paired by round)}],
             both ids of this workload; or
             [{"id", "what", "variant": id, "max_outside_ms",
             "max_outside_share"}]: the variant's time outside its clock at
             most that many ms plus that share of its timed time; or
             [{"id", "what", "variant": id, "max_ns_per_op" (with
             "ops_per_iteration", default 1) or "max_bytes_per_op" (above
             the idle process)}]: its own time or memory per operation.  Any
             may give "at_iterations": judged only in a run at that N
  charts     optional hints for runner/report/charts/: "where_time": {"floor_of": {backend:
             backend}} (draw the split of C's time; a backend without a sync
             variant of its own takes the named one's as its blocking floor),
             "per_unit_memory": {"unit", "log", "marks", "note"}, "headline":
             {"backends": [backend, ...]} (the headline chart's one variant per
             language, style and mode: the first of these backends measured,
             else its baseline's; runner/report/charts/headline_chart.py)
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
or method, a backend with bad characters, a workload flag named like a flag of
the program contract (catalog_check.CONTRACT_FLAGS), a check that is not a
small integer expression or that gives no integer at N = 1 and 1,000 (every
field of the line at N, the flags at their values: `iterations // 0`), a baseline rule naming unknown fields, a profile that suite.json
lacks) raises CatalogError with one line; the CLI prints it and exits 3.

Its command line is runner/catalog/catalog_cli.py (`python3 -m runner.catalog.catalog_cli`);
the runner, runner/catalog/contract.py and runner/analysis/reproduce.py import this module
(never the reverse).
"""
import copy
import os
import platform
import sys

from .catalog_check import FIELD, LINE_INTS, WORKLOAD_KEYS, check_bad_inputs, check_claim_runtimes, check_partial, matches, read_object, read_suite, show_path
from .variant_check import check_port_flag, check_server_langs, check_startup_langs
from ..core.errors import CatalogError
from ..core.expr import flag_key
from ..core.files import write_atomic
from ..core.ids import WORD, unversioned_id, variant_id, variant_label
from .ladder_check import add_variants as add_ladder_variants, check_ladder
from .matrix import expand_entry
from .workload_check import check_checks, check_flags, check_passes, check_profiles, check_requires, check_rules, check_targets, check_warmup
# Read by many modules as catalog.<name>, though they belong to the id rule
# (runner/core/ids.py) and to the commands' templates (runner/catalog/matrix.py).
from ..core.ids import FIELDS, given_concurrency, given_concurrency_problem, parse_id, runtime_key, variant_name, version_key
from .matrix import argv, build_dir, expand  # noqa: F401
from ..core import paths

ROOT = paths.ROOT
DIR = paths.CATALOG
RUNTIMES_PROFILE = "runtimes"
SEED_PROFILE = "seed"


def host_os():
    """This host's operating system as a requirement names it (linux, darwin, ...)."""
    return platform.system().lower()


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


class Catalog:
    """A loaded catalog folder; see the module doc and load()."""

    def __init__(self, path=DIR):
        self.path = path
        self.suite = read_suite(os.path.join(path, "suite.json"))
        self.workloads = {}
        self.variants = []
        self.runtime_variants = []   # the runtimes profile's (_add_runtime_variants)
        self._by_id = {}
        try:
            names = sorted(n for n in os.listdir(path) if n.endswith(".json") and n != "suite.json")
        except OSError as e:
            raise CatalogError("%s: cannot list it: %s" % (show_path(path), e.strerror or e)) from None
        if not names:
            raise CatalogError("%s: no workload file (<workload>.json beside suite.json)" % show_path(path))
        for n in names:
            self._load_workload(os.path.join(path, n))
        check_server_langs(self.variants, self.path)
        check_startup_langs(self.suite, self.variants, self.path)
        for name, w in self.workloads.items():
            check_ladder(w.get("claims") or {}, self.find,
                         "%s: claims.ladder" % show_path(os.path.join(self.path, name + ".json")))
        self._add_runtime_variants()
        self._add_ladder_variants()

    def _add_runtime_variants(self):
        """The runtimes profile (DESIGN section 11): every variant a workload's
        claims name, of a language suite.json's runtimes lists, once more on each
        listed version, with the version in its id.  They take part in that
        profile alone: select() gives them for it only, find() by id, and they
        are neither in self.variants nor in the workload's README table."""
        rt = self.suite.get("runtimes") or {}
        for name, w in self.workloads.items():
            check_claim_runtimes((w.get("claims") or {}).get("runtimes"), rt,
                                  "%s: claims.runtimes" % show_path(os.path.join(self.path, name + ".json")))
        if RUNTIMES_PROFILE not in self.suite["profiles"]:
            return
        for name, w in self.workloads.items():
            if RUNTIMES_PROFILE not in w["profiles"]:
                continue
            named = set()
            # The ladder's seed-shape variants are not the claims' own: they
            # run on the seed's version alone, in the seed profile
            # (_add_ladder_variants), not on every version.
            _ids_in({k: x for k, x in (w.get("claims") or {}).items() if k != "ladder"},
                    self._by_id, named)
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

    def _add_ladder_variants(self):
        """The seed profile's rung 2 of each claim's ladder (ladder_check.add_variants)."""
        add_ladder_variants(self, SEED_PROFILE)

    def bad_inputs(self):
        """[(workload or None for every one, row)]: suite.json's bad inputs, then
        each workload's, in file order."""
        out = [(None, r) for r in self.suite["bad_inputs"]]
        for name in sorted(self.workloads):
            out += [(name, r) for r in self.workloads[name]["bad_inputs"]]
        return out

    # -- <workload>.json

    def _load_workload(self, path):
        w, path = read_object(path, WORKLOAD_KEYS)
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
        values = check_flags(w["flags"], path)
        extra = w["fields"]
        if not isinstance(extra, dict) or any(not FIELD.match(k) or k in LINE_INTS for k in extra):
            raise CatalogError("%s: fields must map new integer fields of the line (snake-case "
                               "words) to what they count, got %r" % (path, extra))
        check_checks(w["checks"], path, set(values) | set(LINE_INTS) | set(extra),
                     set(LINE_INTS) | set(extra), values)
        check_requires(w["requires"], path)
        check_warmup(w, path)
        check_passes(w, path)
        check_profiles(w.get("profiles"), path, self.suite)
        check_rules(w["baselines"], path)
        check_targets(w.setdefault("targets", []), path, name, self.suite["methods"])
        check_bad_inputs(w.setdefault("bad_inputs", []), path)
        if not isinstance(w.setdefault("threadless", []), list):
            raise CatalogError("%s: threadless must be a list of partial field objects" % path)
        for x in w["threadless"]:
            check_partial(x, path, "threadless")
        entries = w.get("variants")
        if not isinstance(entries, list) or not entries:
            raise CatalogError("%s: variants must be a non-empty list of matrix entries" % path)
        expanded = []
        for i, entry in enumerate(entries):
            for v in expand_entry(self.suite, w, entry, "%s: variants[%d]" % (path, i), values):
                if v["id"] in self._by_id:
                    raise CatalogError("%s: duplicate variant id %s" % (path, v["id"]))
                check_port_flag(v, w["flags"], path)
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
                            and matches(v, of.get("for", {})):
                        v["profiles"].append(pname)
        w = dict(w, variants=expanded)
        self.workloads[name] = w
        self.variants += expanded

    # -- queries

    def find(self, vid):
        """The variant with id vid, or None."""
        return self._by_id.get(vid)

    def select(self, profile=None, lang=None, workload=None):
        """The variants of a profile, a language and a workload (None: any), in
        catalog order; the runtimes profile's versioned variants only when it
        is the profile asked for."""
        # A versioned variant is in the profiles it names: the runtimes
        # profile's every version, the seed profile's ladder rungs.
        pool = self.variants + (self.runtime_variants if profile is not None else [])
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

    def test_args(self, workload):
        """The flags a workload's flags name a "test" value for, with it:
        ["--sleep-ms", "10"], what scripts/sanitize.sh runs every variant with
        (the same code as the catalog's value, in less time)."""
        return [word for flag, spec in self.workloads[workload]["flags"].items()
                if "test" in spec for word in (flag, spec["test"])]

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
            if r["key"] in decided or not matches(v, r["for"]):
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
        raise CatalogError("%s: not a catalog folder (suite.json and <workload>.json files)" % show_path(path))
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
    """The catalog a run folder ran with: its snapshot, or today's (catalog/)
    for a run made before runs kept one.  A snapshot today's code
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
                  "today's catalog stands in" % (show_path(snap), e), file=sys.stderr)
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


