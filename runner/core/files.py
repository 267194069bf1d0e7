"""files.py -- the one way the runner writes a whole file.

write_atomic() writes through a temporary file in the same folder and renames
it over the target, so a reader, an interruption or a full disk never leaves
half a summary or report behind: either the old file or the new one is there.

open_text() opens a file the runner reads but did not just write (a run
folder's files, a catalog's) as UTF-8 text, refusing what is no regular file:
a FIFO named run.json or rounds.csv once hung `make plots` for ever, waiting
for a writer.

json_loads() and json_load() are the one way the runner reads JSON that a
program or a user wrote (a program's line, a server's readiness line, a
catalog file, a run folder's files): json's own, except that text nested
deeper than Python's parser can follow (5,000 `[` then 5,000 `]`) is a
ValueError like any other malformed text, never a RecursionError that ends
the runner.
"""
import errno
import json
import os
import stat


def open_text(path, newline=None, errors="strict"):
    """path opened for reading as UTF-8 text; OSError (ENODEV, "not a regular
    file") for a FIFO, a device or a socket, found without blocking on it."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.ENODEV, "not a regular file", path)
        return os.fdopen(fd, encoding="utf-8", newline=newline, errors=errors)
    except BaseException:
        os.close(fd)
        raise


def json_loads(text, **kw):
    """json.loads(text, **kw); ValueError, not RecursionError, for text nested
    too deeply (see the module doc)."""
    try:
        return json.loads(text, **kw)
    except RecursionError:
        raise ValueError("nested too deeply (arrays or objects inside one another, "
                         "hundreds of levels down)") from None


def json_load(f, **kw):
    """json_loads of an open text file's content."""
    return json_loads(f.read(), **kw)


def write_atomic(path, text):
    """Writes `text` (str) to `path` atomically; raises OSError on failure, and
    then removes the temporary file."""
    tmp = path + ".tmp"
    try:
        with open(tmp, "w", encoding="utf-8", newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
