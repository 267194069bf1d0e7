"""rerun.py -- the command that repeats a run (REPORT.md's Reproduce line): the
profile and every option that shaped its plan, as run.json recorded them, quoted
for a shell at the root of a checkout of the run's commit.
"""
import os
import shlex

from ..analysis import rundir as rd
from ..core import paths

ROOT = paths.ROOT
# The catalog a run takes unless told otherwise, as run.json records it: catalog/,
# or runner/catalog/ where it lived before (the reference runs of that day).
DEFAULT_CATALOGS = ("catalog", "runner/catalog")


def reproduce_command(run, host, folder=None):
    """The command that repeats the run, pasted into a shell at the root of a
    checkout of host.json's commit: the profile and every option that shaped
    the plan as run.json recorded them (options: the filters, --node,
    --no-extra-rounds, --no-trace, ...), the seed of the shuffle, and a catalog
    other than the project's as the copy the run folder keeps (folder: its
    path)."""
    options = run.get("options")
    if isinstance(options, list) and all(isinstance(o, str) for o in options):
        args = _options_again(options, run, folder)
    else:
        args = _settings_again(run, folder)
    cmd = "make compare PROFILE=%s ARGS=%s" % (
        rd.make_word(str(run.get("profile") or "default")),
        rd.make_word(" ".join(shlex.quote(a) for a in args)))
    commit = host.get("git_commit")
    if not commit:
        where = "at the commit of the run (host.json does not say which: not a git checkout)"
    elif commit.endswith("-dirty"):
        where = ("at commit `%s`, with the changes the run had and git does not hold: files "
                 "that differed from it or that it does not track" % commit[:-len("-dirty")])
    else:
        where = "at commit `%s`" % commit
    # A fence longer than any run of backticks in the command (a filter may hold some).
    fence = "`" * max(3, 1 + max([len(run) for run in _backtick_runs(cmd)] or [0]))
    return ["## Reproduce", "",
            "At the root of a checkout, %s (the shuffle of every round follows from the seed; "
            "the timings depend on the host):" % where, "",
            fence + "sh", cmd, fence, ""]


def _backtick_runs(text):
    """The runs of backticks in text ("a``b`" -> ["``", "`"])."""
    return [m for m in "".join(c if c == "`" else " " for c in text).split() if m]


def _catalog_again(run, folder):
    """The --catalog of the command, or None for the project's own: the copy in
    the run folder (folder) of a catalog of the run's own, which may be gone."""
    recorded = run.get("catalog")
    if not isinstance(recorded, str) or recorded.rstrip("/") in DEFAULT_CATALOGS:
        return None
    if folder and os.path.isfile(os.path.join(folder, "catalog", "suite.json")):
        path = os.path.join(folder, "catalog")
        rel = os.path.relpath(path, ROOT)
        return path if rel.startswith("..") else rel
    return recorded


def _options_again(options, run, folder):
    """The recorded options with --catalog the one _catalog_again gives and the
    seed the run drew when none was given."""
    args, i = [], 0
    while i < len(options):
        if options[i] == "--catalog" and i + 1 < len(options):
            i += 2
            continue
        args.append(options[i])
        i += 1
    catalog = _catalog_again(run, folder)
    if catalog:
        args += ["--catalog", catalog]
    if "--seed" not in args and run.get("seed") is not None:
        args = ["--seed", str(run["seed"])] + args
    return args


def _settings_again(run, folder):
    """The options of a run.json from before it recorded them, from its settings."""
    args = ["--seed", str(run.get("seed"))] if run.get("seed") is not None else []
    # --rounds only when the run was given it: it fixes every workload's rounds,
    # so it would repeat neither the workloads' own counts nor a time budget's.
    # A run.json from before rounds_override was recorded: its rounds, unless a
    # budget (or a workload's own count) decided them.
    if "rounds_override" in run:
        rounds = run["rounds_override"]
    else:
        rounds = None if run.get("budget") or run.get("variant_rounds") else run.get("rounds")
    if rounds is not None:
        args += ["--rounds", str(rounds)]
    if run.get("warmup_rounds") is not None:
        args += ["--warmup-rounds", str(run["warmup_rounds"])]
    for opt, key in (("--iterations", "iterations_override"), ("--timeout", "timeout_override")):
        if run.get(key) is not None:
            args += [opt, str(run[key])]
    for f in run.get("filters") or []:
        args += ["--filter", f]
    catalog = _catalog_again(run, folder)
    if catalog:
        args += ["--catalog", catalog]
    return args
