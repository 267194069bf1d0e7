"""tune.py -- `make tune`: what on this host moves timings between runs, what
it should be for a measurement, and, only when asked, the change.

Usage: python3 -m runner.tools.tune [--apply | --reset] [--root DIR]

Checked (Linux; elsewhere it says there is nothing it can check):
  governor  each CPU's cpufreq scaling_governor: "performance", so a CPU does
            not change its clock with the load between one program and the next
  turbo     boost above the base clock off (cpufreq/boost = 0, or intel_pstate's
            no_turbo = 1): how far a CPU boosts depends on its temperature and
            on the other CPUs' load, which a benchmark does not control
  aslr      kernel.randomize_va_space = 2, full randomisation, left ON: each
            program is a fresh process, so its layout is drawn anew every
            round and layout effects average out over the rounds; turning it
            off would give every round the same layout, and its luck or bad
            luck to every sample

Without an option it prints each setting, what it is, what it should be, and
"would change" or "as it should be"; it changes nothing.  --apply writes
what differs (as root), after saving what was there to .tune-restore.json
in the project's root (git-ignored, and out of build/, which `make clean`
removes with the only record of the host's own settings); a second --apply
merges what it changes into that file, never replaces it; --reset writes back
what the file saved.  A setting
this host does not show (a VM without cpufreq) is listed as "not exposed
here" and left alone.  Exit codes: 0 done (or nothing to do), 1 a write
failed, 2 usage, 3 --reset without a saved state.
"""
import argparse
import glob
import json
import os
import platform
import sys
from ..core import paths

ROOT = paths.ROOT


def settings(root="/"):
    """[(name, path, now or None, wanted, why)] of every setting this host
    shows under root ("/" on a real host; a fake tree in tests)."""
    def at(p):
        return os.path.join(root, p.lstrip("/"))
    out = []
    for path in sorted(glob.glob(at("/sys/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_governor")),
                       key=_cpu_order):
        cpu = path.split(os.sep)[-3]
        out.append(("governor " + cpu, path, _read(path), "performance",
                    "a fixed clock rather than one that follows the load"))
    boost = at("/sys/devices/system/cpu/cpufreq/boost")
    no_turbo = at("/sys/devices/system/cpu/intel_pstate/no_turbo")
    if os.path.exists(boost):
        out.append(("turbo", boost, _read(boost), "0", "no boost above the base clock"))
    elif os.path.exists(no_turbo):
        out.append(("turbo", no_turbo, _read(no_turbo), "1", "no boost above the base clock"))
    aslr = at("/proc/sys/kernel/randomize_va_space")
    if os.path.exists(aslr):
        out.append(("aslr", aslr, _read(aslr), "2",
                    "full randomisation, so layout effects average out over the rounds"))
    return out


def _cpu_order(path):
    name = path.split(os.sep)[-3]
    return int(name[3:]) if name[3:].isdigit() else 0


def _read(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return None


def _write(path, value):
    """None when written, else why not (one line)."""
    try:
        with open(path, "w") as f:
            f.write(value + "\n")
    except OSError as e:
        return "%s: %s" % (path, e.strerror or e)
    return None


def report(items):
    """The lines that say each setting's state; the names of the missing ones."""
    lines = []
    shown = {name.split()[0] for name, *_ in items}
    for name, _path, now, want, why in items:
        state = "as it should be" if now == want else "would change to %s" % want
        lines.append("%-14s %-12s %s (%s)" % (name, now if now is not None else "unreadable",
                                               state, why))
    for name in ("governor", "turbo", "aslr"):
        if name not in shown:
            lines.append("%-14s not exposed here%s" % (
                name, " (no cpufreq: a VM's host sets the clock)" if name != "aslr" else ""))
    return lines


def restore_file(state=None):
    """Where --apply keeps the host's settings: the project's root (or state)."""
    return os.path.join(state or ROOT, ".tune-restore.json")


def legacy_restore_file(build=None):
    """Where --apply kept them before: build/, which `make clean` removes."""
    return os.path.join(build or os.path.join(ROOT, "build"), "tune-restore.json")


def _load(path):
    """The settings a restore file saved ({path: value}); {} when there is none.
    ValueError naming the file when it is not such a map (edited by hand)."""
    try:
        with open(path) as f:
            saved = json.load(f)
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as e:
        raise ValueError("%s cannot be read (%s)" % (path, e))
    if not isinstance(saved, dict) or not all(isinstance(v, str) for v in saved.values()):
        raise ValueError("%s is not a map of paths to settings" % path)
    return saved


def saved_state(saved_path, legacy_path):
    """What the restore file and the legacy one (build/'s) saved, merged; the
    restore file's entry wins over the legacy one's (it is the newer)."""
    return dict(_load(legacy_path), **_load(saved_path))


def _save(saved_path, saved):
    """Writes the map whole (a temporary file renamed over it: never half)."""
    os.makedirs(os.path.dirname(saved_path) or ".", exist_ok=True)
    tmp = saved_path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(saved, f, indent=2, sort_keys=True)
    os.replace(tmp, saved_path)


def apply(items, saved_path, legacy_path):
    """Writes each wanted value that differs, after saving the old ones.  The
    save merges: a setting that differs now is the host's (never saved, or
    changed by someone since the last --apply) and is saved over its entry;
    every other entry stays, so that --reset restores all that any --apply
    changed.  The legacy file is merged in and removed.  [(line, failed)];
    ValueError when the saved state cannot be read or written (nothing is
    changed then)."""
    todo = [(n, p, now, w) for n, p, now, w, _ in items if now is not None and now != w]
    if todo:
        saved = saved_state(saved_path, legacy_path)
        saved.update({p: now for _, p, now, _ in todo})
        try:
            _save(saved_path, saved)
        except OSError as e:
            raise ValueError("cannot save the host's settings to %s (%s); nothing was changed"
                             % (saved_path, e.strerror or e))
        if os.path.exists(legacy_path):
            os.unlink(legacy_path)
    out = []
    for name, path, now, want in todo:
        why = _write(path, want)
        out.append(("%s: %s -> %s" % (name, now, want) if why is None
                    else "%s: not changed: %s" % (name, why), why is not None))
    return out


def reset(saved_path, legacy_path):
    """Writes back what apply() saved, then removes the files; [(line, failed)],
    or None when nothing was saved.  ValueError when a file cannot be read."""
    saved = saved_state(saved_path, legacy_path)
    if not saved:
        return None
    out = []
    for path, value in sorted(saved.items()):
        why = _write(path, value)
        out.append(("%s <- %s" % (path, value) if why is None
                    else "not restored: %s" % why, why is not None))
    if not any(failed for _, failed in out):
        for p in (saved_path, legacy_path):
            if os.path.exists(p):
                os.unlink(p)
    return out


def main(argv):
    ap = argparse.ArgumentParser(prog="python3 -m runner.tools.tune", description=__doc__.split("\n\n")[0])
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--apply", action="store_true", help="write what differs (as root)")
    g.add_argument("--reset", action="store_true", help="write back what --apply saved")
    ap.add_argument("--root", default="/", help=argparse.SUPPRESS)   # a fake tree, for tests
    ap.add_argument("--build", default=None, help=argparse.SUPPRESS)  # the legacy file's folder
    ap.add_argument("--state", default=None, help=argparse.SUPPRESS)  # the restore file's folder
    args = ap.parse_args(argv)
    saved, legacy = restore_file(args.state), legacy_restore_file(args.build)
    if args.reset:
        try:
            done = reset(saved, legacy)
        except ValueError as e:
            print("tune.py: %s; nothing was restored" % e, file=sys.stderr)
            return 3
        if done is None:
            print("tune.py: nothing to reset: %s holds no saved state" % os.path.relpath(saved),
                  file=sys.stderr)
            return 3
        for line, _ in done:
            print(line)
        return 1 if any(f for _, f in done) else 0
    if platform.system() != "Linux" and args.root == "/":
        print("tune.py: nothing to check on %s: governor, turbo and ASLR are read from Linux's "
              "/sys and /proc" % platform.system())
        return 0
    items = settings(args.root)
    for line in report(items):
        print(line)
    if not args.apply:
        if any(now is not None and now != want for _, _, now, want, _ in items):
            print("tune.py: nothing was changed; `make tune TUNE_ARGS=--apply` (as root) makes "
                  "these changes, `TUNE_ARGS=--reset` undoes them")
        return 0
    try:
        done = apply(items, saved, legacy)
    except ValueError as e:
        print("tune.py: %s" % e, file=sys.stderr)
        return 1
    for line, _ in done:
        print(line)
    if not done:
        print("tune.py: nothing to change")
    return 1 if any(f for _, f in done) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
