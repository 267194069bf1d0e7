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
  noisy         1 when steal_share is over STEAL_MAX, other_share over
                OTHER_MAX, or the round was throttled at all, else 0

rounds.csv in the run folder has a row per measured round with these and the
round's wall time (ROUND_COLUMNS); REPORT.md names the noisy rounds.  Where
/proc/stat cannot be read (macOS) the shares are empty, and where neither
throttling figure can be read they are empty too: nothing unknown makes a
round noisy.
"""
import csv
import glob
import os

STAT = "/proc/stat"
# A round is noisy past either share.
STEAL_MAX = 0.01
OTHER_MAX = 0.10
LOAD_RULE = ("a round is noisy when steal time is over %d%% or the host's other load (busy "
             "CPU time the run did not use) over %d%% of all the CPUs' time during it, read "
             "from /proc/stat" % (STEAL_MAX * 100, OTHER_MAX * 100))
# A rounds.csv written before the throttling columns was judged by LOAD_RULE alone.
RULE = LOAD_RULE + (", or when the run's cgroup was throttled or a CPU throttled itself for "
                    "heat during it (cpu.stat, thermal_throttle), where those can be read")
ROUND_COLUMNS = ["round", "wall_ns", "cpus", "steal_share", "other_share", "noisy",
                 "throttled_ms", "thermal_events"]
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


def snapshot(now_ns, path=STAT, cpu_stats=CPU_STATS, thermal=THERMAL):
    """What round_row() compares: (monotonic ns, /proc/stat's cpu line or None,
    own CPU s, the cgroup's throttled ns or None, thermal events or None)."""
    return (now_ns, read_stat(path), own_cpu_s(), read_throttled_ns(cpu_stats),
            read_thermal_events(thermal))


def round_row(rnd, before, after, hz=None):
    """rounds.csv's row of a round from the snapshots before and after it."""
    row = {"round": rnd, "wall_ns": after[0] - before[0], "cpus": os.cpu_count(),
           "steal_share": None, "other_share": None, "noisy": 0,
           "throttled_ms": None, "thermal_events": None}
    b = tuple(before) + (None, None)
    a = tuple(after) + (None, None)
    if b[3] is not None and a[3] is not None:
        row["throttled_ms"] = round(max(0, a[3] - b[3]) / 1e6, 3)
    if b[4] is not None and a[4] is not None:
        row["thermal_events"] = max(0, a[4] - b[4])
    throttled = bool(row["throttled_ms"]) or bool(row["thermal_events"])
    row["noisy"] = int(throttled)
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
    row["noisy"] = int(throttled or row["steal_share"] > STEAL_MAX
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
    """rounds.csv's rows ({column: text}), [] when the run has none (older runs)."""
    try:
        with open(os.path.join(rundir, "rounds.csv"), newline="", encoding="utf-8") as f:
            return list(csv.DictReader(f))
    except OSError:
        return []


def markdown(rows):
    """REPORT.md's lines on the rounds' noise (rows: rounds.csv's, as
    read_rounds gives them): which rounds were noisy, by the rule."""
    if not rows:
        return []
    rule = RULE if "throttled_ms" in rows[0] else LOAD_RULE
    out = ["## Noise", "", "Per measured round (`rounds.csv`): %s." % rule, ""]
    known = [r for r in rows if r.get("steal_share") not in (None, "")]
    throttle = [r for r in rows if r.get("throttled_ms") not in (None, "")
                or r.get("thermal_events") not in (None, "")]
    if not known and not throttle:
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
        return "round %s (%s)" % (r["round"], ", ".join(parts))
    if noisy:
        out.append("**%d of %d rounds were noisy**: %s. Their samples are kept and count like "
                   "the others; a ratio pairs both sides within a round, so load that lasts "
                   "the round falls on both." % (len(noisy), len(rows), "; ".join(
                       why(r) for r in noisy)))
    elif known:
        out.append("No round was noisy (the most: steal %s, other load %s%s)." % (
            max((pct(r, "steal_share") for r in known), key=lambda t: float(t[:-1])),
            max((pct(r, "other_share") for r in known), key=lambda t: float(t[:-1])),
            "; no throttling" if throttle else ""))
    else:
        out.append("No round was throttled; /proc/stat could not be read, so the host's other "
                   "load is not known.")
    return out + [""]
