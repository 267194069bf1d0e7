"""errors.py -- the two ways the runner stops early, and their exit codes; and
how a chart says that it cannot be drawn.

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


class CatalogError(Exception):
    """A catalog that cannot be used; the message is one line naming the file,
    the variant or rule, and the problem."""


class ChartError(Exception):
    """A chart (runner/report/charts/) that cannot be drawn: its one line, "<chart>:
    why", and the exit code of the chart's own command (2 bad input, 1 nothing
    to draw, 3 the catalog).  charting.py says the line and draws the others;
    run.py then exits 1."""

    def __init__(self, prog, msg, code=2):
        Exception.__init__(self, "%s: %s" % (prog, msg))
        self.code = code
