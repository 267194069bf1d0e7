"""invocation.py -- one run of a program, resolved once (DESIGN section 6): the
Invocation record and the one place its command line is rendered.  plan.py makes
them from the catalog; calibration, tracing and lockstep derive new ones with
replace(), and run.json keeps each as record() gives it.
"""
import os

from ..core import paths

ROOT = paths.ROOT


class Invocation(tuple):
    """One run of a program, resolved (DESIGN section 6): the variant's id, its
    program (the catalog's command filled in: the runtime's binary and flags),
    N, the in-process warm-up, the timed passes, the workload's own flags, the
    bound (bounded mode only, else None), and whether it runs in lockstep.  argv()
    renders its command, the one place a command line is made; replace() derives
    another (a lockstep pass's N, a traced run's), never by editing text."""
    __slots__ = ()
    FIELDS = ("variant", "program", "iterations", "warmup", "passes", "workload_args",
              "concurrency", "lockstep")

    def __new__(cls, variant, program, iterations, warmup=0, passes=1, workload_args=(),
                concurrency=None, lockstep=False):
        return tuple.__new__(cls, (variant, tuple(program), int(iterations), int(warmup),
                                   int(passes), tuple(workload_args),
                                   None if concurrency is None else int(concurrency),
                                   bool(lockstep)))

    def __getattr__(self, name):
        try:
            return self[Invocation.FIELDS.index(name)]
        except ValueError:
            raise AttributeError(name)

    def replace(self, **changes):
        fields = dict(zip(Invocation.FIELDS, self))
        fields.update(changes)
        return Invocation(**fields)

    def argv(self):
        """The command: the program, then the contract's flags (--passes only
        above 1, every program's default, and never in lockstep), the
        workload's own flags, the bound in bounded mode, --lockstep 1 last."""
        out = list(self.program) + ["--iterations", str(self.iterations),
                                    "--warmup", str(self.warmup)]
        if self.passes > 1 and not self.lockstep:
            out += ["--passes", str(self.passes)]
        out += list(self.workload_args)
        if self.concurrency is not None:
            out += ["--concurrency", str(self.concurrency)]
        if self.lockstep:
            out += ["--lockstep", "1"]
        return out

    def record(self):
        """As run.json keeps it: a dict of the fields, and the argv rendered,
        every path under the project's root relative to it (relative())."""
        out = dict(zip(Invocation.FIELDS, (list(x) if isinstance(x, tuple) else x
                                           for x in self)))
        out["program"] = relative(self.program)
        out["workload_args"] = relative(self.workload_args)
        out["argv"] = relative(self.argv())
        return out


def relative(argv):
    """argv with every absolute path under the project's root made relative to
    it, as run.json keeps commands (a checkout moved keeps its meaning)."""
    return [os.path.relpath(a, ROOT) if os.path.isabs(a) and a.startswith(ROOT + os.sep) else a
            for a in argv]
