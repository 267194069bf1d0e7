"""rundir.py -- the run folder OUT/<host>/<UTC stamp>/ and the files in it.

A new folder per run (never an existing one), OUT/latest as a relative link to
the newest, whole files (run.json, host.json, summaries) written atomically
through files.write_atomic, and the two files that grow while the run goes:
samples.csv (the columns of samples.SAMPLE_COLUMNS, one row per measured
process run, flushed as it arrives) and runs.jsonl (every run, warm-ups
included, with its JSON line and the reason when it was not ok).

While the runner that made a folder lives, it holds an exclusive lock
(flock) on the folder's runner.lock, which names its pid, host and start: the
kernel drops the lock when the process ends, however it ends (SIGKILL, out of
memory), so a reader tells a run still going from one that ended without a
word (runfolder.RunFolder.ending).  How a run ended early is recorded in
run.json's ended (note_ending): interrupted by a signal, or crashed, with the
error (and crash.txt, the traceback).
"""
import csv
import datetime
import json
import os
import re
import shlex
import socket
import sys

from ..core.errors import EnvError
from ..core.files import open_text, write_atomic
from ..catalog.samples import SAMPLE_COLUMNS


def utc_stamp():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")


def utc_now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat()


def make_run_folder(out, host_slug, prefix="", charts=True):
    """Creates OUT/<host>/<prefix><stamp>/ and, with charts, its charts/
    (never an existing folder: -2, -3 ... after a stamp of the same second);
    returns (path, name) or raises EnvError.  micro.py and counts.py make
    theirs with a prefix, micro- and counts-."""
    parent = os.path.join(out, host_slug)
    try:
        os.makedirs(parent, exist_ok=True)
    except OSError as e:
        raise EnvError("cannot create the results folder %s: %s (choose another with --out)"
                       % (parent, e.strerror or e))
    if not os.access(parent, os.W_OK | os.X_OK):
        raise EnvError("results folder %s is not writable (fix its permissions or use --out DIR)"
                       % parent)
    stamp = prefix + utc_stamp()
    for i in range(1, 100):
        name = stamp if i == 1 else "%s-%d" % (stamp, i)
        path = os.path.join(parent, name)
        try:
            os.mkdir(path)
        except FileExistsError:
            continue
        except OSError as e:
            raise EnvError("cannot create %s: %s (use --out DIR)" % (path, e.strerror or e))
        if charts:
            os.mkdir(os.path.join(path, "charts"))
        _hold(path)
        return path, name
    raise EnvError("too many runs in the same second under %s" % parent)


LOCK = "runner.lock"
# {run folder: its runner.lock, open and locked} of the folders this process made.
_held = {}


def _hold(path):
    """Locks path/runner.lock for as long as this process lives (or release)."""
    try:
        import fcntl
    except ImportError:
        return                      # no flock: a reader cannot tell, and says so
    # A bare descriptor: it stays open until release or the process's end.
    fd = os.open(os.path.join(path, LOCK), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    os.write(fd, ("pid=%d host=%s started=%s\n"
                  % (os.getpid(), socket.gethostname(), utc_now())).encode("utf-8"))
    _held[path] = fd


def made_here():
    """The newest run folder this process made and still holds, or None."""
    return list(_held)[-1] if _held else None


def release(path):
    """Drops this process's lock on path (the run is over, however it ended)."""
    fd = _held.pop(path, None)
    if fd is not None:
        os.close(fd)


def lock_holder(path):
    """(held, {"pid", "host", "started"}) of path/runner.lock: held when a live
    process holds its lock; (None, {}) without the file (a run from before
    runs kept one) or without flock."""
    try:
        import fcntl
        f = open_text(os.path.join(path, LOCK), errors="replace")   # never a FIFO's wait
    except (ImportError, OSError):
        return None, {}
    with f:
        words = dict(w.split("=", 1) for w in f.read(4096).split() if "=" in w)
        try:
            fcntl.flock(f, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            return True, words
        fcntl.flock(f, fcntl.LOCK_UN)
    return False, words


def note_ending(path, run, ended):
    """Writes run (run.json's object) back with ended, how the run ended early:
    {"how": "interrupted"} or {"how": "crashed", "error": "..."}."""
    write_json(os.path.join(path, "run.json"), dict(run, ended=ended))


def stamp_key(name):
    """Orders run folder names by their UTC stamp, then the -2, -3 ... of runs
    started in the same second; None for a name that is not a stamp."""
    m = re.match(r"^(\d{8}T\d{6}Z)(?:-(\d+))?$", name or "")
    return (m.group(1), int(m.group(2) or 1)) if m else None


def check_latest(out):
    """EnvError when OUT/latest exists and is not a link (the runner would have to
    replace someone's file or folder to point it at the new run)."""
    link = os.path.join(out, "latest")
    if os.path.lexists(link) and not os.path.islink(link):
        raise EnvError("%s is a %s, not the link the runner keeps at the newest run: "
                       "move it away, or use --out DIR"
                       % (link, "folder" if os.path.isdir(link) else "file"))


def point_latest(out, rundir):
    """OUT/latest -> <host>/<stamp>, a relative symlink replaced atomically, and
    only when no newer run (by its stamp) already holds it: concurrent runners
    leave it at the newest run, not at whichever finished last.  A file or
    folder named latest that is not a link is left alone, with one line."""
    link = os.path.join(out, "latest")
    tmp = os.path.join(out, ".latest.%d" % os.getpid())
    lockf = None
    try:
        try:
            lockf = open(os.path.join(out, ".latest.lock"), "a")
            import fcntl
            fcntl.flock(lockf, fcntl.LOCK_EX)
        except (OSError, ImportError):
            pass                    # no lock: the stamp check below still holds mostly
        if os.path.lexists(link) and not os.path.islink(link):
            print("run.py: %s is not a link; left it alone (this run is in %s)"
                  % (link, shown(rundir)), file=sys.stderr)
            return
        mine = stamp_key(os.path.basename(rundir))
        if os.path.islink(link):
            theirs = stamp_key(os.path.basename(os.readlink(link).rstrip("/")))
            if (mine and theirs and theirs > mine
                    and os.path.isdir(os.path.join(out, os.readlink(link)))):
                return              # a newer run already finished
        os.symlink(os.path.relpath(rundir, out), tmp)
        os.replace(tmp, link)
    except OSError as e:
        print("run.py: could not point %s at the run: %s" % (link, e), file=sys.stderr)
    finally:
        if lockf:
            lockf.close()


def make_word(text):
    """text as one word of a make command line given to a shell: make expands
    `$` in a variable's value (ARGS='--filter c/$' lost the `$`), so each is
    doubled, then the whole is quoted for the shell."""
    return shlex.quote(text.replace("$", "$$"))


def plots_command(path):
    """`make plots RUN=...` for the run folder at path, as the user pastes it
    (a folder under --out '/tmp/my $dir' lost its `$dir` and split at the blank)."""
    return "make plots RUN=%s" % make_word(shown(path))


def shown(path):
    """A path as the user should see it: relative when under the current folder."""
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel


def json_text(obj):
    """obj as the run folder's JSON files hold it."""
    return json.dumps(obj, indent=2) + "\n"


def write_json(path, obj):
    write_atomic(path, json_text(obj))


class SampleLog:
    """samples.csv and runs.jsonl of a run folder, appended and flushed row by row
    so that an interrupted run keeps everything measured before."""

    def __init__(self, rundir):
        self.samples = open(os.path.join(rundir, "samples.csv"), "w", newline="",
                            encoding="utf-8")
        self.runs = open(os.path.join(rundir, "runs.jsonl"), "w", encoding="utf-8")
        self.writer = csv.DictWriter(self.samples, fieldnames=SAMPLE_COLUMNS,
                                     lineterminator="\n")
        self.writer.writeheader()
        self.samples.flush()

    def run(self, record):
        """One line of runs.jsonl (every run, warm-ups included)."""
        self.runs.write(json.dumps(record) + "\n")
        self.runs.flush()

    def sample(self, row):
        """One row of samples.csv (a measured run): a dict of SAMPLE_COLUMNS."""
        self.writer.writerow(row)
        self.samples.flush()

    def close(self):
        self.samples.close()
        self.runs.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
