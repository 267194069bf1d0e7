"""servers.py -- the server a workload's clients talk to (runner/catalog/catalog.py's module doc, requires.server).

A server is started once per round, before the first variant of that round
that needs it, and must print one JSON line {"port": N} on stdout within
ready_timeout_s (default 10).  A spec with "warm" {"argv": [...]} then has
that client run against it once (`<port_flag> N` appended), untimed, so that
no measured client meets a cold server.  Each client then gets `<port_flag> N` (default
--port) appended to its command.  After the round it gets SIGTERM (SIGKILL for
its process group when it lingers).  A server that dies or never becomes ready
fails that round's variants with the reason; the run goes on.

Per round, not per run: each round gets a fresh server on a fresh port, so a
server that crashed, leaked or slowed down in one round cannot spoil the
others, and the connections a round closed (TIME_WAIT on loopback, many with
Connection: close clients) are not on the next round's port.

No server outlives the runner: it is stopped after every round and on Ctrl-C
(measure.py), and its stdin is a pipe whose other end only the runner holds,
so when the runner dies however it dies (SIGKILL, a crash) the pipe ends and
a server that watches its stdin (the C, Go and Node httpchain servers do)
exits; on Linux the C server also asks for a parent-death signal.

    servers = Servers()
    port, why = servers.port(spec)      # starts it on first use in the round
    ...
    servers.stop_all()                  # at the end of every round
"""
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time

from ..catalog import catalog as catalog_mod
from . import launch
from ..core.files import json_loads
from ..core import paths

ROOT = paths.ROOT
READY_TIMEOUT_S = 10
STOP_GRACE_S = 5


class ServerError(Exception):
    """One line saying why a server cannot serve this round."""


def _first_line(f):
    """launch.first_line of what the server wrote to f so far."""
    f.seek(0)
    return launch.first_line(f.read(1 << 14))


class Server:
    """One started server process; raises ServerError when it is not ready."""

    def __init__(self, spec):
        self.argv = list(spec["argv"])
        self.name = os.path.basename(self.argv[0])
        self.err = tempfile.TemporaryFile()
        self.port = self.drainer = None
        self.why = ""
        try:
            self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=self.err, cwd=ROOT,
                                         start_new_session=True)
        except OSError as e:
            self.err.close()
            raise ServerError("server %s cannot start: %s" % (self.name, e.strerror or e))
        try:
            self.port = self._ready(float(spec.get("ready_timeout_s", READY_TIMEOUT_S)))
            if spec.get("cpu") is not None:
                # Its own CPU, never the client's (launch.pin_rule): every thread
                # it has started by now, and so the ones they start.
                launch.pin_process(self.proc.pid, spec["cpu"])
            if spec.get("warm"):
                self._warm(spec)
        except BaseException:
            # Not ready, or Ctrl-C / SIGTERM (KeyboardInterrupt) while waiting:
            # nobody else holds this server yet, so it is stopped here, or it
            # would outlive the runner when it does not watch its stdin.
            self.stop()
            raise
        # Keep reading whatever else it prints, so a chatty server never blocks on a
        # full pipe mid-round.
        self.drainer = threading.Thread(target=self._drain, daemon=True)
        self.drainer.start()

    def _ready(self, timeout_s):
        """The port of the readiness line {"port": N}."""
        deadline = time.monotonic() + timeout_s
        fd = self.proc.stdout.fileno()
        buf = b""
        while b"\n" not in buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise ServerError("server %s printed no {\"port\": N} line within %g s"
                                  % (self.name, timeout_s))
            readable, _, _ = select.select([fd], [], [], left)
            if not readable:
                continue
            chunk = os.read(fd, 4096)
            if not chunk:
                code = self.proc.wait()
                why = _first_line(self.err)
                raise ServerError("server %s exited %s before it was ready%s"
                                  % (self.name, code, ": " + why if why else ""))
            buf += chunk
        line = buf.split(b"\n", 1)[0].decode("utf-8", "replace").strip()
        try:
            port = json_loads(line).get("port")
        except (ValueError, AttributeError):
            port = None
        if not isinstance(port, int) or isinstance(port, bool) or not 0 < port < 65536:
            raise ServerError("server %s: the readiness line is %r, not {\"port\": N}"
                              % (self.name, line[:100]))
        return port

    def _warm(self, spec):
        """Runs the spec's warm-up client against the new server, once, before
        any measured client talks to it: a server is started each round, and a
        JIT-compiled one (Node's) answers its first few thousand requests
        several times slower than the rest, which would fall on whichever
        client the round's shuffle put first.  Its output is dropped; a
        warm-up that fails or overruns fails the server for the round."""
        w = spec["warm"]
        argv = list(w["argv"]) + [spec.get("port_flag", "--port"), str(self.port)]
        timeout = float(w.get("timeout_s", 60))
        # A session of its own, as every program the runner starts: what it
        # signals as its group (a shell's `kill 0`) reaches neither the runner
        # nor the server, and its leftovers go with its group.
        try:
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.PIPE, cwd=ROOT, start_new_session=True)
        except OSError as e:
            raise ServerError("server %s: its warm-up client cannot start: %s"
                              % (self.name, e.strerror or e))
        try:
            _, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise ServerError("server %s: its warm-up client took more than %g s"
                              % (self.name, timeout))
        finally:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            proc.wait()
            if proc.stderr:
                proc.stderr.close()
        if proc.returncode != 0:
            why = err.decode("utf-8", "replace").strip().splitlines()
            raise ServerError("server %s: its warm-up client exited %s%s" % (
                self.name, proc.returncode, ": " + why[0][:200] if why else ""))

    def _drain(self):
        try:
            while self.proc.stdout.read(4096):
                pass
        except (OSError, ValueError):
            pass

    def dead(self):
        """None while it runs, else why it is gone (one line)."""
        code = self.proc.poll()
        if code is None:
            return None
        why = _first_line(self.err)
        return "server %s died (exit %s)%s" % (self.name, code, ": " + why if why else "")

    def stop(self, grace_s=STOP_GRACE_S):
        """SIGTERM to the server, SIGKILL to its group when it lingers grace_s.  Ctrl-C
        during the grace period (KeyboardInterrupt) cuts it short but still
        kills the group before it propagates: a hung server that ignores
        SIGTERM and no longer reads its stdin would otherwise outlive the runner."""
        try:
            if self.proc.poll() is None:
                try:
                    os.killpg(self.proc.pid, signal.SIGTERM)
                except (ProcessLookupError, PermissionError):
                    pass
                try:
                    self.proc.wait(grace_s)
                except subprocess.TimeoutExpired:
                    pass
        finally:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)    # its leftovers, or itself
            except (ProcessLookupError, PermissionError):
                pass
        self.proc.wait()
        if self.drainer is not None:
            self.drainer.join(STOP_GRACE_S)     # it reads to the end of the pipe
        self.proc.stdout.close()
        self.proc.stdin.close()
        self.why = _first_line(self.err)
        self.err.close()


class Servers:
    """The servers of one round, keyed by their command line."""

    def __init__(self):
        self.running = {}
        self.failed = {}

    def port(self, spec):
        """(port, None) when the server of spec is up, else (None, why).  Starts
        it on first use; a server that failed once this round is not retried."""
        key = tuple(spec["argv"])
        if key in self.failed:
            return None, self.failed[key]
        server = self.running.get(key)
        if server is None:
            try:
                server = self.running[key] = Server(spec)
            except ServerError as e:
                self.failed[key] = str(e)
                return None, str(e)
        why = server.dead()
        if why:
            self.failed[key] = why
            return None, why
        return server.port, None

    def died(self, spec):
        """Why the server of spec, started this round, is gone now (one line),
        or None while it runs or when it was never started."""
        server = self.running.get(tuple(spec["argv"]))
        return server.dead() if server is not None else None

    def stop_all(self):
        """Stops every server of the round; a Ctrl-C while one stops does not
        skip the others (they get no grace period then, and it is raised once
        all are stopped)."""
        running, self.running, self.failed = list(self.running.values()), {}, {}
        interrupted = None
        for server in running:
            try:
                server.stop(STOP_GRACE_S if interrupted is None else 0)
            except KeyboardInterrupt as e:
                interrupted = e
        if interrupted is not None:
            raise interrupted


# ---------------------------------------------------------------- CLI

USAGE = """usage: python3 -m runner.measure.servers with-server ID [--bin DIR] [--server-wrapper 'WORDS'] -- COMMAND...

Runs COMMAND with `<port_flag> N` appended, against the server that variant ID
of the catalog requires, started for it and stopped after it (a variant
without a server: COMMAND as it is), without the server's warm-up client
(nothing here is timed).  {bin} in the server's command is DIR
(default build/bin), or build/bin when DIR lacks that program; WORDS (split
on blanks) go before the command of a server written in C (its catalog lang),
e.g. valgrind and its options: the tools are for the C code, and a Go or
Node server under valgrind reports its runtime, not this project.
Exits with COMMAND's code; 97 with one line when COMMAND succeeded but the
server did not exit 0 when stopped (a sanitizer's report); 3 when the server
never became ready; 2 on a bad call.  scripts/sanitize.sh and the bats tests
use it."""


def with_server(args):
    if "--" not in args or not args[:args.index("--")]:
        print(USAGE, file=sys.stderr)
        return 2
    head, command = args[:args.index("--")], args[args.index("--") + 1:]
    vid, opts = head[0], head[1:]
    bin_dir, wrapper = None, []
    while opts:
        if opts[0] == "--bin" and len(opts) > 1:
            bin_dir = opts[1]
        elif opts[0] == "--server-wrapper" and len(opts) > 1:
            wrapper = opts[1].split()
        else:
            print(USAGE, file=sys.stderr)
            return 2
        opts = opts[2:]
    if not command:
        print(USAGE, file=sys.stderr)
        return 2
    try:
        v = catalog_mod.load().find(vid)
    except catalog_mod.CatalogError as e:
        print("servers.py: %s" % e, file=sys.stderr)
        return 3
    if v is None:
        print("servers.py: unknown variant %r" % vid, file=sys.stderr)
        return 2
    spec = (v.get("requires") or {}).get("server")
    if not spec:
        return subprocess.call(command, cwd=ROOT)
    argv = catalog_mod.expand(spec["argv"], bin_dir)
    if not os.path.exists(argv[0]) and "{bin}" in spec["argv"][0]:
        argv = catalog_mod.expand(spec["argv"])
    if not os.path.isabs(argv[0]) and os.sep in argv[0]:
        argv[0] = os.path.join(ROOT, argv[0])
    if spec["lang"] != "c":
        wrapper = []
    # No warm-up client: it is there so that timed clients never meet a cold
    # server, and nothing here is timed (under valgrind its 2,000 chains would
    # cost minutes).
    spec = {k: val for k, val in spec.items() if k != "warm"}
    try:
        server = Server(dict(spec, argv=wrapper + argv))
    except ServerError as e:
        print("servers.py: %s" % e, file=sys.stderr)
        return 3
    try:
        code = subprocess.call(command + [spec["port_flag"], str(server.port)], cwd=ROOT)
    finally:
        server.stop()
    if code == 0 and server.proc.returncode != 0:
        print("servers.py: server %s exited %s when stopped: %s"
              % (server.name, server.proc.returncode, server.why or "(nothing on stderr)"),
              file=sys.stderr)
        return 97
    return code


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "with-server":
        sys.exit(with_server(sys.argv[2:]))
    print(USAGE, file=sys.stderr)
    sys.exit(2)
