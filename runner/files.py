"""files.py -- the one way the runner writes a whole file.

write_atomic() writes through a temporary file in the same folder and renames
it over the target, so a reader, an interruption or a full disk never leaves
half a summary or report behind: either the old file or the new one is there.
"""
import os


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
