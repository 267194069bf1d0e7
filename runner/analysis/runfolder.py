"""runfolder.py -- the one reader of a run folder (results/<host>/<stamp>/).

A RunFolder reads each of the folder's files once, when it is first asked
for, checks it, and keeps it: run.json, host.json and the catalog snapshot
the run ran with (catalog/), samples.csv (every row checked again against the
run's own contracts), runs.jsonl, trace.json, rounds.csv, counts.json and
counts.csv, and summary.json once it is written.  Everything that draws from
a run (render, REPORT.md, the seed tables, the charts, the README's answer,
the stopping rule's view of a run under way) takes a RunFolder and asks it,
so a run renders from what it recorded, never from today's catalog where the
run kept its own.

A file the runner writes whole (run.json, host.json, samples.csv,
trace.json, counts.json, summary.json) that does not read back is refused
with EnvError naming the file; a file a run may lack (an older run, a run without traced rounds or
counts) reads as empty.
"""
import csv
import functools
import json
import os

from ..catalog import catalog as catalog_mod
from ..catalog import catalog_check
from . import noise
from . import pairs as pairs_mod
from . import rundir as rd
from ..catalog import samples as samples_mod
from ..core import stats
from . import summary as sm
from ..core.errors import EnvError
from ..core.files import json_load, json_loads, open_text

class Each:
    """A field that is an `outer` (list or dict) whose every item (a list's)
    or value (a dict's) is of spec `inner`."""

    def __init__(self, outer, inner):
        self.outer, self.inner = outer, inner


class Items:
    """A field that is a list of exactly len(specs) items, each of its spec."""

    def __init__(self, *specs):
        self.specs = specs


class Fields:
    """A field that is an object whose keys of spec, when there, are of their
    spec (a type, a tuple of types, Each, Items or Fields)."""

    def __init__(self, spec):
        self.spec = spec


def wrong(value, spec, where):
    """(where, what) of the first part of value that differs from spec
    ("orders.entries[3]", the value there), None when none does; an int is
    never a bool."""
    if isinstance(spec, Each):
        if not isinstance(value, spec.outer):
            return where, value
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for k, v in items:
            bad = wrong(v, spec.inner, "%s[%s]" % (where, json.dumps(k)
                                                   if isinstance(k, str) else k))
            if bad:
                return bad
        return None
    if isinstance(spec, Items):
        if not isinstance(value, list) or len(value) != len(spec.specs):
            return where, value
        for i, (v, s) in enumerate(zip(value, spec.specs)):
            bad = wrong(v, s, "%s[%d]" % (where, i))
            if bad:
                return bad
        return None
    if isinstance(spec, Fields):
        if not isinstance(value, dict):
            return where, value
        for k, s in spec.spec.items():
            bad = k in value and wrong(value[k], s, "%s.%s" % (where, k))
            if bad:
                return bad
        return None
    types = spec if isinstance(spec, tuple) else (spec,)
    if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
        return where, value
    return None


_NONE = type(None)
_NUM = (int, float)
_OPT_NUM = (int, float, _NONE)
_OPT_INT = (int, _NONE)
_STRS = Each(list, str)
# A question of the extra rounds (runner/measure/sequential.py's record).
_QUESTION = Fields({"id": str, "source": str, "text": str, "kind": str, "bound": _NUM,
                    "variant": str, "against": (str, _NONE), "extra_rounds": Each(list, int),
                    "lo": _OPT_NUM, "hi": _OPT_NUM, "rounds": int, "decided": bool,
                    "decided_at": _OPT_INT, "stalled": bool})

# The fields of run.json that the summary, REPORT.md and the charts read, and
# their types: a hand-edited run.json of another shape is refused in one line
# rather than read into a wrong report or a traceback.
RUN_TYPES = {"rounds": int, "warmup_rounds": int, "seed": int, "workloads": dict,
             "skipped": list, "failures": list, "baselines": dict, "complete": (bool, _NONE),
             "stamp": str, "profile": str, "rounds_done": int, "minutes": _OPT_NUM,
             "ended": Fields({"how": str, "error": str}), "error": str,
             "variants": _STRS, "filters": _STRS, "commands": Each(dict, _STRS),
             "servers": Each(dict, _STRS), "startup": Each(dict, _STRS),
             "env": Each(dict, Each(dict, str)), "runtimes": Each(dict, str),
             "passes": Each(dict, int), "variant_rounds": Each(dict, int),
             "startup_ns": Each(dict, Each(list, _OPT_INT)), "passes_rule": str, "noise_rule": str,
             "budget_from": str, "budget_cap_s": _OPT_NUM, "planned_over_s": _OPT_NUM,
             "budget": Each(dict, Fields({"seconds": _NUM, "max_rounds": int, "for": dict})),
             "pinning": dict, "sweep": dict,
             "orders": Fields({"seed": (int, str), "warmup_rounds": int, "rounds": int,
                               "entries": Each(list, Each(list, (str, int))),
                               "blocks": (str, bool, _NONE), "extra": Each(list, _STRS)}),
             "warmup_order": Each(list, _STRS), "order": Each(list, _STRS),
             "extra_rounds": Fields({"rule": str, "about": str, "alpha": _NUM, "max": int,
                                     "minutes": _NUM, "run_minutes": _OPT_NUM,
                                     "planned_rounds": _OPT_INT, "rounds": int,
                                     "partial_rounds": int, "stopped": (str, _NONE),
                                     "questions": Each(list, _QUESTION)})}

# The fields of trace.json (runner/measure/trace.py) that REPORT.md reads, and their types.
TRACE_TYPES = {"tool": str, "method": str, "skipped": str, "interrupted": bool,
               "variants": Each(dict, Fields({
                   "iterations": int, "iterations_small": int, "skipped": str, "files": _STRS,
                   "calls_small": int, "calls": int, "total": _NUM,
                   "by_syscall": Each(dict, _NUM)}))}

# The fields of host.json that REPORT.md and the exports compute with.
_STR = (str, type(None))
HOST_TYPES = {"slug": _STR, "memory_bytes": (int, type(None)), "machine": _STR, "kernel": _STR,
              "cpu_model": _STR, "emulation": _STR, "cores": (int, type(None)), "os": _STR,
              "compiler": _STR, "libuv": _STR, "go": _STR, "node": _STR, "node_libuv": _STR,
              "uv_threadpool_size": (int, type(None)), "uv_threadpool_size_env": _STR,
              "nofile_soft": (int, type(None)), "nofile_hard": (int, type(None)),
              "governor": _STR, "cpu_frequency_policy": _STR, "page_size": (int, type(None)),
              "rosetta_translated": (bool, type(None)), "python": _STR, "git_commit": _STR}

# The fields of counts.json (`make counts RUN=...`, runner/tools/counts.py) that
# REPORT.md reads, and their types.
COUNTS_TYPES = {"stamp": str, "tool": str, "host": str, "commit": _STR, "run_commit": _STR,
                "same_sources": (bool, type(None)), "n": Each(dict, Items(int, int)),
                "left_out": list, "failed": list}


# The process's figures (wait4's) in a runs.jsonl entry, as runs before they
# were named proc_ kept them beside the program's own line.
OLD_RUNS_NAMES = {"nvcsw": "proc_nvcsw", "nivcsw": "proc_nivcsw"}


def read_object(path, types):
    """The JSON object of path, or None when the file is missing.  EnvError (one
    line naming the file) when it is there but is not JSON (or names a key
    twice in one object), not an object, or a field of types has another
    type or shape (wrong()): run.json, host.json, trace.json and counts.json
    are written whole, so anything else was edited by hand, and rendering
    from it would draw a wrong report (or die in it)."""
    if not os.path.exists(path):
        return None
    try:
        with open_text(path) as f:
            obj = json_load(f, object_pairs_hook=catalog_check.unique_keys)
    except OSError as e:
        raise EnvError("%s: cannot read it: %s" % (path, e.strerror or e))
    except catalog_check.DuplicateKey as e:
        raise EnvError("%s: %s (edited by hand: the runner writes each key once)" % (path, e))
    except ValueError as e:
        raise EnvError("%s: not JSON: %s" % (path, e))
    if not isinstance(obj, dict):
        raise EnvError("%s: a JSON object is expected, not %s" % (path, type(obj).__name__))
    for k, t in types.items():
        bad = k in obj and wrong(obj[k], t, k)
        if bad:
            raise EnvError("%s: %s has the wrong type (%s)" % (path, bad[0],
                                                              type(bad[1]).__name__))
    if "memory_bytes" in types and isinstance(obj.get("memory_bytes"), int) \
            and not 0 <= obj["memory_bytes"] < 2 ** 63:
        raise EnvError("%s: memory_bytes is out of range" % path)
    if not all(isinstance(x, dict) for x in obj.get("workloads", {}).values()):
        raise EnvError("%s: every entry of workloads must be an object" % path)
    if not all(isinstance(x, dict) for x in obj.get("failures", [])):
        raise EnvError("%s: every entry of failures must be an object" % path)
    return obj


def _baseline_table(b):
    """Whether b is run.json's baselines: {id: {key: [id, label] or None}}."""
    return isinstance(b, dict) and all(
        isinstance(rules, dict) and all(
            r is None or (isinstance(r, list) and len(r) == 2 and all(isinstance(x, str) for x in r))
            for r in rules.values())
        for rules in b.values())


def of(where):
    """A RunFolder for where (a RunFolder already, or a folder's path), or None
    for None: what a function that takes either gives its callers."""
    if where is None or isinstance(where, RunFolder):
        return where
    return RunFolder(where)


class RunFolder:
    """One run folder, each file read once (see the module doc).  path is the
    folder (results/latest, a symlink, is resolved); summary, when given, is
    the summary as summary.json holds it, for a caller that has just written
    it."""

    def __init__(self, path, summary=None):
        self.path = os.path.realpath(path)
        self.warnings = []          # what reading samples.csv left out, in words
        if summary is not None:
            self.keep_summary(summary)

    def keep_summary(self, summary):
        """summary (as summary.json holds it, just written) is this run's."""
        self.__dict__["summary"] = summary

    def file(self, name):
        return os.path.join(self.path, name)

    def check(self):
        """EnvError unless this is a run folder: a folder with samples.csv."""
        if not os.path.isdir(self.path):
            # results/latest before any run has finished, or a mistyped path.
            raise EnvError("%s is not a folder: --render takes a run folder, "
                           "results/<host>/<stamp>" % self.path)
        if not os.path.isfile(self.file("samples.csv")):
            raise EnvError("%s has no samples.csv: not a run folder" % self.path)

    # -- what the runner recorded when the run started ------------------------

    @functools.cached_property
    def recorded(self):
        """run.json as written ({} when the run has none)."""
        return read_object(self.file("run.json"), RUN_TYPES) or {}

    @functools.cached_property
    def host(self):
        """host.json, its slug the host folder's name when it does not say."""
        hinfo = read_object(self.file("host.json"), HOST_TYPES) or {}
        if not hinfo.get("slug"):
            hinfo["slug"] = os.path.basename(os.path.dirname(self.path))
        return hinfo

    def catalog(self):
        """The catalog the run ran with (catalog.for_run: its snapshot, else
        today's); raises catalog.CatalogError when it cannot be read."""
        return catalog_mod.for_run(self.path)

    def catalog_or_none(self):
        try:
            return self.catalog()
        except catalog_mod.CatalogError:
            return None

    # -- samples.csv ----------------------------------------------------------

    @functools.cached_property
    def samples(self):
        """samples.csv's rows, every one checked again as the runner checked its
        line, with the checks and flag values the run recorded (EnvError naming
        the file and line of a row the runner could not have written)."""
        try:
            contracts = samples_mod.workload_contracts(
                self.recorded, self.file("run.json"), self.catalog_or_none())
            return samples_mod.read_samples(self.file("samples.csv"), self.warnings, contracts)
        except OSError as e:
            raise EnvError("%s: cannot read it: %s" % (self.file("samples.csv"), e.strerror or e))
        except ValueError as e:
            raise EnvError(str(e))

    @functools.cached_property
    def base_samples(self):
        """The samples at the base point (a sweep's other points are other settings)."""
        return [s for s in self.samples if sm.at_base_point(s)]

    @functools.cached_property
    def processes(self):
        """One row per process at the base point, its passes' median as its
        time (summary.per_process): what every statistic takes."""
        return sm.per_process(self.base_samples)

    @functools.cached_property
    def pairs(self):
        """lockstep.csv's rows (pairs.read_pairs), [] for a run without
        lockstep; EnvError naming the file and line of a row the runner could
        not have written."""
        path = self.file("lockstep.csv")
        if not os.path.exists(path):
            return []
        try:
            return pairs_mod.read_pairs(path, self.warnings)
        except OSError as e:
            raise EnvError("%s: cannot read it: %s" % (path, e.strerror or e))
        except ValueError as e:
            raise EnvError(str(e))

    @functools.cached_property
    def sessions(self):
        """{(a, b): [(ratio, difference per operation, session, round)]} of the
        lockstep sessions (pairs.figures): one figure a process pair; only the
        pairs with at least stats.MIN_SESSIONS sessions, the fewest with an
        interval: a pair the time budget cut shorter is one of the rounds'
        (its ratio paired by round, extra rounds open to it)."""
        return {k: v for k, v in pairs_mod.figures(self.pairs).items()
                if len(v) >= stats.MIN_SESSIONS}

    @functools.cached_property
    def lock_per_op(self):
        """{variant: [ns per operation, one a lockstep process]} (pairs.per_op)."""
        return pairs_mod.per_op(self.pairs)

    def by_round(self):
        """({variant: {round: elapsed_ns}}, {variant: {round: KB above the idle
        process}}, {variant: {round: a harness's own sampled KB}}) of the ok
        processes at the base point."""
        times, mem, sampled = {}, {}, {}
        for s in self.processes:
            if s["status"] != "ok" or not s["elapsed_ns"]:
                continue
            times.setdefault(s["variant"], {})[s["round"]] = s["elapsed_ns"]
            if s.get("idle_rss_kb") is not None and s.get("proc_peak_rss_kb") is not None:
                mem.setdefault(s["variant"], {})[s["round"]] = s["proc_peak_rss_kb"] - s["idle_rss_kb"]
            if s.get("sampled_rss_kb") is not None:
                sampled.setdefault(s["variant"], {})[s["round"]] = s["sampled_rss_kb"]
        return times, mem, sampled

    # -- run.json, completed from the samples and the run's catalog ------------

    @functools.cached_property
    def run(self):
        """run.json, or what samples.csv alone tells of a run without one; its
        baselines from the run's catalog when it has none."""
        run = dict(self.recorded)
        if not run:
            run = {"stamp": os.path.basename(self.path),
                   "rounds": max([s["round"] for s in self.samples] or [0]),
                   "complete": None, "failures": []}
        run["ending"] = self.ending()
        if not _baseline_table(run.get("baselines")):
            run["baselines"] = self._catalog_baselines()
        return run

    def ending(self):
        """How the run ended early, in words ("interrupted by a signal ..."), or
        None for a run that finished (or a folder that does not say): from
        run.json's ended or error, else from its runner.lock, held while the
        runner lives (rundir.lock_holder)."""
        rec = self.recorded
        if rec.get("complete") is not False:
            return None
        done, planned = rec.get("rounds_done"), rec.get("rounds")
        after = ("after %d of %d measured rounds" % (done, planned)
                 if isinstance(done, int) and isinstance(planned, int) else "")
        ended = rec.get("ended") or {}
        if ended.get("how") == "interrupted":
            return "interrupted by a signal (Ctrl-C, a kill or a hangup) %s" % after
        if ended.get("how") == "crashed":
            return ("the runner crashed %s: %s (the traceback is in crash.txt)"
                    % (after, ended.get("error") or "no error recorded"))
        if rec.get("error"):
            return "stopped by an error of the harness %s: %s" % (after, rec["error"])
        held, who = rd.lock_holder(self.path)
        if held:
            return ("still running (pid %s on %s, started %s): these are the figures of "
                    "the %s measured rounds done so far" % (
                        who.get("pid", "?"), who.get("host", "?"), who.get("started", "?"),
                        done if isinstance(done, int) else "?"))
        if held is False:
            return ("ended without saying how, %s: the runner was killed (SIGKILL, out of "
                    "memory) or its host stopped" % after)
        return ("interrupted or crashed %s (a run from before runs recorded how they ended)"
                % after)

    def _catalog_baselines(self):
        cat = self.catalog_or_none()
        if cat is None:
            return {}
        known = [cat.find(vid) for vid in sorted({s["variant"] for s in self.samples})]
        return cat.baseline_table([v for v in known if v is not None])

    def units(self):
        """{workload: what one operation is}: run.json's, the run's catalog's
        for a workload it does not name."""
        units = {w: s.get("unit") for w, s in (self.run.get("workloads") or {}).items()}
        if all(units.get(s["workload"]) for s in self.samples):
            return units
        cat = self.catalog_or_none()
        known = {w: spec["unit"] for w, spec in cat.workloads.items()} if cat else {}
        return dict(known, **{w: u for w, u in units.items() if u})

    def targets(self):
        """{workload: [target]} of the run's catalog ({} when it cannot be read)."""
        cat = self.catalog_or_none()
        return {w: spec.get("targets") or [] for w, spec in cat.workloads.items()} if cat else {}

    # -- the other files --------------------------------------------------------

    @functools.cached_property
    def lines(self):
        """{variant id: [runs.jsonl entries of measured rounds whose status is
        ok]} at the variant's base point; {} without runs.jsonl.  A line that is
        not JSON (an interrupted write) or not of this shape is left out."""
        out = {}
        try:
            # Appended as the run goes: a line torn or not UTF-8 is left out.
            f = open_text(self.file("runs.jsonl"), errors="replace")
        except OSError:
            return out
        with f:
            for text in f:
                try:
                    e = json_loads(text)
                except ValueError:
                    continue
                if (isinstance(e, dict) and isinstance(e.get("round"), int)
                        and isinstance(e.get("variant"), str) and e.get("status") == "ok"
                        and isinstance(e.get("line"), dict) and sm.at_base_point(e)):
                    for old, new in OLD_RUNS_NAMES.items():
                        if old in e and new not in e:
                            e[new] = e.pop(old)
                    out.setdefault(e.get("variant"), []).append(e)
        return out

    @functools.cached_property
    def trace(self):
        """trace.json (the traced runs' system calls), or None when the run has
        none; EnvError when it is there but does not read (it is written whole,
        like run.json)."""
        return read_object(self.file("trace.json"), TRACE_TYPES)

    @functools.cached_property
    def rounds(self):
        """rounds.csv's rows ({column: text}), [] when the run has none."""
        return noise.read_rounds(self.path)

    @functools.cached_property
    def counts(self):
        """({variant id: counts.csv row}, counts.json) of `make counts RUN=...`,
        or ({}, None) when the run has none (runner/tools/counts.py)."""
        # counts.json is written whole, last: EnvError when it does not read.
        info = read_object(self.file("counts.json"), COUNTS_TYPES)
        if info is None:
            return {}, None
        try:
            with open_text(self.file("counts.csv"), newline="") as f:
                rows = {r["variant"]: r for r in csv.DictReader(f) if r.get("variant")}
        except (OSError, ValueError, csv.Error):
            return {}, None
        return rows, info

    @functools.cached_property
    def summary(self):
        """summary.json (EnvError when it is missing or is not a summary of this
        suite: `--render` writes it)."""
        path = self.file("summary.json")
        if not os.path.isdir(self.path):
            raise EnvError("%s is not a run folder (expected results/<host>/<stamp>/)" % self.path)
        try:
            with open_text(path) as f:
                data = json_load(f)
        except OSError:
            raise EnvError("%s is missing: run `python3 -m runner --render %s` first"
                           % (path, self.path)) from None
        except ValueError as e:
            raise EnvError("%s is not valid JSON: %s" % (path, e)) from None
        if not isinstance(data, dict) or not isinstance(data.get("variants"), list):
            raise EnvError("%s has no \"variants\" list: not a summary of this suite" % path)
        return data
