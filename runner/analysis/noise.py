"""noise.py -- what else the host did during each measured round (DESIGN section 6).

Before and after every measured round the runner reads the kernel's CPU
counters (the "cpu" line of /proc/stat: time of all CPUs by state, in clock
ticks) and its own CPU time with its children's (os.times: the runner, the
launchers, the programs and the servers they reaped).  Over the round:

  steal_share   time the hypervisor gave to other guests (steal) over all the
                CPUs' time
  other_share   busy time (user, nice, system, irq, softirq) that neither the
                runner nor anything it started used, over all the CPUs' time:
                the host's other load
  throttled_ms  time the CPU controller of the run's cgroup held its tasks
                back (cpu.stat: v2's throttled_usec, v1's throttled_time), or
                empty where no cpu.stat can be read
  thermal_events  the CPUs' thermal throttle events (the sum of
                thermal_throttle/*_throttle_count under
                /sys/devices/system/cpu), or empty where the kernel shows none
  probe_ms      how long a fixed loop (probe_ns: PROBE_STEPS steps of integer
                arithmetic, the fastest of PROBE_TRIES) took on the programs'
                CPU at the round's end: the CPU's speed as the programs saw it
  speed_change  the probe's time at the round's start over its time at the
                end, less 1: +0.12 when the CPU ran 12% faster at the end.  A
                shared host's CPU can change speed with no steal time and no
                load this guest can see (a neighbour on the same core, the
                host's power management), which the shares above miss
  noisy         1 when steal_share is over STEAL_MAX, other_share over
                OTHER_MAX, the speed changed by more than SPEED_MAX either
                way, or the round was throttled at all, else 0

rounds.csv in the run folder has a row per measured round with these and the
round's wall time (ROUND_COLUMNS); REPORT.md names the noisy rounds.  Where
/proc/stat cannot be read (macOS) the shares are empty, and where neither
throttling figure can be read they are empty too: nothing unknown makes a
round noisy.
"""
import csv
import glob
import math
import os
import statistics
import time

from ..core.files import open_text

STAT = "/proc/stat"
# A round is noisy past either share, or past this change of the CPU's speed.
STEAL_MAX = 0.01
OTHER_MAX = 0.10
SPEED_MAX = 0.10
# The speed probe: about 5 ms of interpreted integer arithmetic a try on a
# 2020s server core; the fastest of its tries (an interrupt only slows one).
PROBE_STEPS = 40000
PROBE_TRIES = 3
LOAD_RULE = ("a round is noisy when steal time is over %d%% or the host's other load (busy "
             "CPU time the run did not use) over %d%% of all the CPUs' time during it, read "
             "from /proc/stat" % (STEAL_MAX * 100, OTHER_MAX * 100))
# A rounds.csv written before the throttling columns was judged by LOAD_RULE alone.
THROTTLE_RULE = LOAD_RULE + (", or when the run's cgroup was throttled or a CPU throttled "
                             "itself for heat during it (cpu.stat, thermal_throttle), where "
                             "those can be read")
RULE = THROTTLE_RULE + (", or when the programs' CPU ran a fixed loop over %d%% faster or "
                        "slower at the round's end than at its start (its speed changed "
                        "under the round)" % (SPEED_MAX * 100))
ROUND_COLUMNS = ["round", "wall_ns", "cpus", "steal_share", "other_share", "noisy",
                 "throttled_ms", "thermal_events", "probe_ms", "speed_change"]
# The cpu.stat of the runner's cgroup: v2's unified file, then v1's cpu controller.
CPU_STATS = ("/sys/fs/cgroup/cpu.stat", "/sys/fs/cgroup/cpu/cpu.stat",
             "/sys/fs/cgroup/cpu,cpuacct/cpu.stat")
THERMAL = "/sys/devices/system/cpu/cpu[0-9]*/thermal_throttle/*_throttle_count"
# /proc/stat's cpu line: user nice system idle iowait irq softirq steal [guest guest_nice]
BUSY = (0, 1, 2, 5, 6)
STEAL = 7


def read_stat(path=STAT):
    """The aggregate cpu line of /proc/stat as a list of ints (ticks), or None."""
    try:
        with open(path) as f:
            for line in f:
                if line.startswith("cpu "):
                    # guest and guest_nice are counted in user and nice already
                    return [int(x) for x in line.split()[1:9]]
    except (OSError, ValueError):
        return None
    return None


def read_throttled_ns(paths=CPU_STATS):
    """The time the cgroup's CPU controller throttled its tasks, in ns, from the
    first cpu.stat that has it (v2: throttled_usec; v1: throttled_time, ns),
    or None."""
    for path in paths:
        try:
            with open(path) as f:
                fields = dict(line.split()[:2] for line in f if len(line.split()) >= 2)
        except OSError:
            continue
        try:
            if "throttled_usec" in fields:
                return int(fields["throttled_usec"]) * 1000
            if "throttled_time" in fields:
                return int(fields["throttled_time"])
        except ValueError:
            continue
    return None


def read_thermal_events(pattern=THERMAL):
    """The sum of the CPUs' thermal throttle counters, or None without any."""
    total, seen = 0, False
    for path in glob.glob(pattern):
        try:
            with open(path) as f:
                total += int(f.read().strip())
            seen = True
        except (OSError, ValueError):
            continue
    return total if seen else None


def own_cpu_s():
    """CPU seconds of the runner and of every child it has reaped."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def probe_ns(cpu=None, steps=PROBE_STEPS, tries=PROBE_TRIES):
    """The fastest of `tries` runs of a fixed loop, in ns, on CPU `cpu` (the
    calling thread moves there for it and back; None, or a host without
    sched_setaffinity: where it runs)."""
    old = None
    if cpu is not None and hasattr(os, "sched_setaffinity"):
        try:
            old = os.sched_getaffinity(0)
            os.sched_setaffinity(0, {cpu})
        except OSError:
            old = None
    try:
        best = None
        for _ in range(tries):
            x = 1
            t0 = time.perf_counter_ns()
            for _ in range(steps):
                x = (x * 1103515245 + 12345) & 0x7fffffff
            t = time.perf_counter_ns() - t0
            best = t if best is None else min(best, t)
        return best
    finally:
        if old is not None:
            os.sched_setaffinity(0, old)


def snapshot(now_ns, path=STAT, cpu_stats=CPU_STATS, thermal=THERMAL, probe=None):
    """What round_row() compares: (monotonic ns, /proc/stat's cpu line or None,
    own CPU s, the cgroup's throttled ns or None, thermal events or None, the
    speed probe's ns (probe_ns, run by the caller just before) or None)."""
    return (now_ns, read_stat(path), own_cpu_s(), read_throttled_ns(cpu_stats),
            read_thermal_events(thermal), probe)


def round_row(rnd, before, after, hz=None):
    """rounds.csv's row of a round from the snapshots before and after it."""
    row = {"round": rnd, "wall_ns": after[0] - before[0], "cpus": os.cpu_count(),
           "steal_share": None, "other_share": None, "noisy": 0,
           "throttled_ms": None, "thermal_events": None, "probe_ms": None,
           "speed_change": None}
    b = tuple(before) + (None, None, None)
    a = tuple(after) + (None, None, None)
    if b[3] is not None and a[3] is not None:
        row["throttled_ms"] = round(max(0, a[3] - b[3]) / 1e6, 3)
    if b[4] is not None and a[4] is not None:
        row["thermal_events"] = max(0, a[4] - b[4])
    if a[5]:
        row["probe_ms"] = round(a[5] / 1e6, 3)
        if b[5]:
            row["speed_change"] = round(b[5] / float(a[5]) - 1, 4)
    throttled = bool(row["throttled_ms"]) or bool(row["thermal_events"])
    unsteady = row["speed_change"] is not None and abs(row["speed_change"]) > SPEED_MAX
    row["noisy"] = int(throttled or unsteady)
    if before[1] is None or after[1] is None:
        return row
    d = [a - b for a, b in zip(after[1], before[1])]
    total = sum(d)
    if total <= 0:
        return row
    hz = hz or os.sysconf("SC_CLK_TCK")
    busy_s = sum(d[i] for i in BUSY) / float(hz)
    other_s = max(0.0, busy_s - (after[2] - before[2]))
    row["steal_share"] = round(d[STEAL] / float(total), 4)
    row["other_share"] = round(min(1.0, other_s / (total / float(hz))), 4)
    row["noisy"] = int(throttled or unsteady or row["steal_share"] > STEAL_MAX
                       or row["other_share"] > OTHER_MAX)
    return row


class RoundLog:
    """rounds.csv of a run folder, a row appended and flushed per measured round."""

    def __init__(self, rundir):
        self.f = open(os.path.join(rundir, "rounds.csv"), "w", newline="", encoding="utf-8")
        self.w = csv.DictWriter(self.f, fieldnames=ROUND_COLUMNS)
        self.w.writeheader()
        self.f.flush()

    def add(self, row):
        self.w.writerow(row)
        self.f.flush()

    def close(self):
        self.f.close()


def read_rounds(rundir):
    """rounds.csv's rows ({column: text}), [] when the run has none (older runs).
    The file is appended a row a round, so a row that is not all numbers (a
    torn last line, a hand edit) is left out."""
    try:
        with open_text(os.path.join(rundir, "rounds.csv"), newline="") as f:
            return [r for r in csv.DictReader(f) if _numbers(r)]
    except (OSError, csv.Error, UnicodeDecodeError):
        return []


def _numbers(row):
    """Whether a rounds.csv row's round is an integer and its every other cell
    a finite number or empty."""
    if None in row or not (row.get("round") or "").isdigit():
        return False
    for v in row.values():
        if v in ("", None):
            continue
        try:
            if not math.isfinite(float(v)):
                return False
        except ValueError:
            return False
    return True


def rule_bullets(rule):
    """The conditions of a noise rule (RULE, THROTTLE_RULE, LOAD_RULE as run.json
    records them), one a bullet, so that each reads as a short sentence; joined
    back they give the rule."""
    head = "a round is noisy when "
    body = rule[len(head):] if rule.startswith(head) else rule
    out = []
    for i, part in enumerate(body.split(", or when ")):
        if i == 0 and " or the host's other load" in part:
            a, b = part.split(" or the host's other load", 1)
            out += [a, "the host's other load" + b]
        else:
            out.append(part)
    return out


def markdown(rows):
    """REPORT.md's lines on the rounds' noise (rows: rounds.csv's, as
    read_rounds gives them): which rounds were noisy, by the rule."""
    if not rows:
        return []
    rule = (RULE if "speed_change" in rows[0] else
            THROTTLE_RULE if "throttled_ms" in rows[0] else LOAD_RULE)
    out = ["## Noise", "", "Per measured round (`rounds.csv`), a round is noisy when one of "
           "these holds:", ""] + ["- %s" % b for b in rule_bullets(rule)] + [""]
    known = [r for r in rows if r.get("steal_share") not in (None, "")]
    throttle = [r for r in rows if r.get("throttled_ms") not in (None, "")
                or r.get("thermal_events") not in (None, "")]
    probed = [r for r in rows if r.get("speed_change") not in (None, "")]
    if not known and not throttle and not probed:
        return out + ["/proc/stat could not be read on this host: no round's noise is known.", ""]
    noisy = [r for r in rows if r.get("noisy") == "1"]

    def pct(r, k):
        return "-" if r.get(k) in (None, "") else "%.1f%%" % (100 * float(r[k]))

    def why(r):
        parts = ["steal %s, other load %s" % (pct(r, "steal_share"), pct(r, "other_share"))]
        if r.get("throttled_ms") not in (None, "") and float(r["throttled_ms"]) > 0:
            parts.append("throttled %s ms" % r["throttled_ms"])
        if r.get("thermal_events") not in (None, "") and int(r["thermal_events"]) > 0:
            parts.append("%s thermal throttle events" % r["thermal_events"])
        if (r.get("speed_change") not in (None, "")
                and abs(float(r["speed_change"])) > SPEED_MAX):
            parts.append("CPU speed %+.0f%%" % (100 * float(r["speed_change"])))
        return "round %s (%s)" % (r["round"], ", ".join(parts))
    if noisy:
        out += ["**%d of %d rounds were noisy**:" % (len(noisy), len(rows)), ""]
        out += ["- %s" % why(r) for r in noisy]
        out += ["", "Their samples are kept and count like the others. A ratio pairs both sides "
                "within a round, so load that lasts the round falls on both."]
    elif known:
        out.append("No round was noisy (the most: steal %s, other load %s%s%s)." % (
            max((pct(r, "steal_share") for r in known), key=lambda t: float(t[:-1])),
            max((pct(r, "other_share") for r in known), key=lambda t: float(t[:-1])),
            "; no throttling" if throttle else "",
            "; CPU speed change at most %.0f%%" % (100 * max(abs(float(r["speed_change"]))
                                                            for r in probed)) if probed else ""))
    elif probed:
        out.append("No round's CPU speed changed by more than %d%%; /proc/stat could not be "
                   "read, so the host's other load is not known." % (SPEED_MAX * 100))
    else:
        out.append("No round was throttled; /proc/stat could not be read, so the host's other "
                   "load is not known.")
    probes = [float(r["probe_ms"]) for r in rows if r.get("probe_ms") not in (None, "")]
    if probes:
        mid = statistics.median(probes)
        out += ["", "CPU speed: the probe is a fixed loop on the programs' CPU, the fastest of %d "
                "tries, at every round's end. It took %.2f ms (median; from %.2f to %.2f over %d "
                "rounds). The slowest round's end was %.0f%% slower than the median, the "
                "fastest %.0f%% faster. A ratio pairs two programs of one round, so a speed "
                "that lasts the round falls on both; a change within a round does not." % (
                    PROBE_TRIES, mid, min(probes), max(probes), len(probes),
                    100 * (max(probes) / mid - 1), 100 * (1 - min(probes) / mid))]
    return out + [""]
