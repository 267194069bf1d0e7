"""errors.py -- the two ways the runner stops early, and their exit codes.

Every runner module raises these; only run.py turns them into a message on
stderr and an exit code, so that a bad argument and a broken environment read
the same whichever module found them.
"""


class UsageError(Exception):
    """The command line asked for something impossible (exit 2)."""


class RenderInterrupted(KeyboardInterrupt):
    """Ctrl-C (or SIGTERM, SIGHUP) while a run folder was rendered; what says
    what was written and what is missing, in a few words."""

    def __init__(self, what):
        KeyboardInterrupt.__init__(self, what)
        self.what = what


class EnvError(Exception):
    """The machine or the project is not ready: a program not built, a broken
    catalog, an unwritable results folder (exit 3)."""
