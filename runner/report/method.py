"""method.py -- the Method section of REPORT.md (runner/report/report.py): the rounds
and their order, each workload's flags and timeout, what a valid run is, what
the clock covers, the statistics and their false discovery rate control, the
timed passes, the extra rounds and the placement on CPUs, from run.json.
"""
import json
import os

from ..core import fmt
from ..core import prose
from ..core import stats


def _workload_runs(run):
    """'readfile: `--iterations 500 --file fixtures/text.txt ...`' per workload."""
    out = []
    for w, s in sorted((run.get("workloads") or {}).items()):
        flags = " ".join(a if not a.count(" ") else "'%s'" % a for a in s.get("args", []))
        rounds = s.get("rounds")
        budget = (run.get("budget") or {}).get(w)
        passes = s.get("passes_count") or 1
        out.append("`%s`: `--iterations %s --warmup %s%s%s`, timeout %s s%s" % (
            w, fmt.text(s.get("iterations")), s.get("warmup_ops", 0),
            " --passes %d" % passes if passes > 1 else "", " " + flags if flags else "",
            fmt.text(s.get("timeout_s")),
            # A time budget: the variants it names ran in more rounds (n in the tables).
            ", %s rounds. The variants under its time budget ran as many more as fit in "
            "%g s each at their %s time, at most %s (`run.json`: `variant_rounds`).%s"
            % (rounds, budget.get("seconds", 0),
               "round-1" if run.get("budget_from") == "round 1" else "warm-up",
               budget.get("max_rounds"),
               " All of them ran in at most %s s, half the time the planned rounds left before "
               "the run's budget (`budget_cap_s`)." % fmt.text(run["budget_cap_s"])
               if isinstance(run.get("budget_cap_s"), (int, float)) else "")
            if isinstance(budget, dict) else
            "" if rounds in (None, run.get("rounds"), _planned(run)) else
            ", in the first %s round%s only" % (rounds, "" if rounds == 1 else "s")))
    return out


def _planned(run):
    """The run's planned measured rounds: its rounds less the extra ones."""
    x = run.get("extra_rounds")
    if isinstance(x, dict) and isinstance(x.get("planned_rounds"), int):
        return x["planned_rounds"]
    return run.get("rounds")


def extra_text(run):
    """The Method's sentence on extra rounds (runner/measure/sequential.py), or None
    when the profile gives none."""
    x = run.get("extra_rounds")
    if not isinstance(x, dict):
        return None
    got = [q for q in x.get("questions") or [] if q.get("extra_rounds")]
    out = ("- Extra rounds: after the planned rounds the run added rounds holding only the "
           "variants of the targets and claims still open. Once none was, they held the "
           "headline's comparisons still open: each style against its own language's "
           "baseline. At most %s within %s minutes%s, by the %s: it sets each question's "
           "per-round median against its bound. That median is of a ratio, a difference per "
           "operation, a margin to the bound, or a time or memory per operation. The "
           "confidence sequence is valid at every look: the sign test's likelihood ratios"
           " mixed uniformly over the sign's probability, with Ville's "
           "inequality. So deciding by looking at the data keeps a wrongly decided question at "
           "5%% or less. It never decides what the fixed interval does not (it is the wider). "
           "%s extra round%s ran%s; stopped by %s."
           % (fmt.text(x.get("max")), fmt.text(x.get("minutes")),
              " and by the run's %s-minute budget" % fmt.text(x["run_minutes"])
              if x.get("run_minutes") else "", x.get("rule", "?"), x.get("rounds", 0),
              "" if x.get("rounds") == 1 else "s",
              _partial(x.get("partial_rounds"), x.get("rounds")),
              x.get("stopped") or "?"))
    if got:
        done = sorted(q["decided_at"] for q in got if q.get("decided_at") is not None)
        still = [q for q in got if q.get("decided_at") is None]
        # The headline's comparisons still open are counted, not listed (a
        # hundred in the default profile).
        heads = [q for q in still if _source(q) == "headline"]
        still = [q for q in still if _source(q) != "headline"]
        out += " They were for %d question%s (`run.json`: `extra_rounds`): %s.%s%s" % (
            len(got), "" if len(got) == 1 else "s",
            "%d decided after round %s" % (len(done), done[0] if done[0] == done[-1] else
                                           "%d to %d" % (done[0], done[-1])) if done else
            "none decided",
            "".join(" Still open: %s (%s)." % (q["text"], "at [%s, %s]" % (_g(q["lo"]), _g(q["hi"]))
                                               if q.get("lo") is not None else
                                               "too few rounds to exclude any bound")
                    for q in still),
            " %s %d of the headline's comparisons." % (
                "And still open:" if still else "Still open:", len(heads)) if heads else "")
    return out


def _partial(k, rounds):
    """The rounds that held only the open questions that fit in the time left."""
    what = "the open questions whose variants fit in the time left"
    if not k:
        return ""
    if k == rounds == 1:
        return ", holding only " + what
    return " (%s of them holding only %s)" % ("all" if k == rounds else k, what)


def _source(q):
    """A question's source (target, claim, headline); from its id in a run
    folder from before the field."""
    return q.get("source") or q.get("id", "").split(" ", 1)[0]


def _g(x):
    return "%.3g" % x if isinstance(x, (int, float)) else "?"


def passes_text(run):
    """The Method's sentence on timed passes, or None when every process ran one."""
    many = sorted((w, s["passes_count"]) for w, s in (run.get("workloads") or {}).items()
                  if (s.get("passes_count") or 1) > 1)
    if not many:
        return None
    return ("- Passes: a process of %s runs that many timed passes of N after its warm-up "
            "(`--passes P`; a whole-process method one). Each is verified and timed alike, "
            "and each is a row of `samples.csv` (its `pass` column). A process's value is the "
            "median of its passes. The medians, CIs, round-paired ratios and tests above take "
            "that value, one a process. The passes of one process share its start, its CPU "
            "and its neighbours, so they are not independent samples. The intervals measure "
            "the spread between processes (rounds). The median of a process's passes keeps "
            "one interrupted pass from moving it. Every pass is in *Every sample*.%s"
            % (", ".join("`%s` %d" % ws for ws in many), calibrated_text(run)))


def calibrated_text(run):
    """' More passes: ...' when the run chose passes from its warm-up
    (calibrate.py), else ''."""
    rule = run.get("passes_rule")
    if not isinstance(rule, str):
        return ""
    raised = run.get("passes") or {}
    counts = sorted(set(raised.values()))
    # The rule as run.json recorded it, in sentences: its clauses split, its
    # symbols said in one of their own.
    rule = prose.clauses_as_sentences(rule).replace(" timed passes: P0 ",
                                                    " timed passes. Here P0 is ")
    rule = rule[:1].upper() + rule[1:]
    return (" More passes where a pass is short. %s. pyperf keeps a minimum time a value "
            "for the same reason. %s variant%s ran more (%s; `run.json`: `passes`)."
            % (rule, len(raised), "" if len(raised) == 1 else "s",
               "from %d to %d passes" % (counts[0], counts[-1]) if len(counts) > 1 else
               "%d passes" % counts[0] if counts else "none"))


def _warm_n(run):
    """' (each program at a smaller N: readfile 1,000, ...)' when the run's
    warm-up rounds ran at another N than its rounds, else ''."""
    ws = sorted((w, s["warmup_round_iterations"]) for w, s in (run.get("workloads") or {}).items()
                if isinstance(s.get("warmup_round_iterations"), int)
                and s["warmup_round_iterations"] != s.get("iterations"))
    if not ws:
        return ""
    return (" (each program at a smaller N than the rounds', %s). A warm-up round warms the "
            "host, its files and caches, and every process warms itself before its clock"
            % ", ".join("%s {:,}".format(n) % w for w, n in ws))


# How the Method section says a round's order in blocks (schedule.BLOCK_RULE).
BLOCKS_SAID = (" in blocks: the workloads in a shuffled order. Within a workload, the groups "
               "a ratio compares (language, mode, method and backend) come in a shuffled "
               "order. Within a group its variants are shuffled, so that a variant and its "
               "baseline run moments apart")


def _lockstep_workloads(run, ls):
    """Per workload, which pass rule its lockstep variants followed: how many
    chose their N (and the range), kept the workload's N, and how many pairs
    were left to the rounds."""
    chosen, kept, left = {}, {}, {}
    for vid, n in (ls.get("pass_n") or {}).items():
        w = vid.split("/", 1)[0]
        big_n = ((run.get("workloads") or {}).get(w) or {}).get("iterations")
        if isinstance(n, int) and isinstance(big_n, int) and n < big_n:
            chosen.setdefault(w, []).append(n)
        else:
            kept[w] = kept.get(w, 0) + 1
    for pair in ls.get("left_to_rounds") or []:
        if isinstance(pair, list) and pair and isinstance(pair[0], str):
            w = pair[0].split("/", 1)[0]
            left[w] = left.get(w, 0) + 1
    out = []
    for w in sorted(set(chosen) | set(kept) | set(left)):
        parts = []
        if w in chosen:
            ns = chosen[w]
            parts.append("%d variants with N chosen (%s to %s)" % (
                len(ns), format(min(ns), ","), format(max(ns), ",")))
        if w in kept:
            parts.append("%d keeping the workload's N" % kept[w])
        if w in left:
            parts.append("%d pairs left to the rounds" % left[w])
        out.append("%s %s" % (w, ", ".join(parts)))
    return out


def _half_width_text(ls):
    """The profile's half_width in words: "C 2%, Go 3%, Node 3%, across 5%"."""
    hw = ls.get("half_width")
    if not isinstance(hw, dict) or not hw:
        return "no width asked"
    names = {"c": "C", "go": "Go", "node": "Node", "rust": "Rust", "across": "across languages"}
    return ", ".join("%s %g%%" % (names.get(k, k), 100 * v) for k, v in hw.items()
                     if isinstance(v, (int, float)))


def _session_rounds_text(ls):
    """How many rounds the sessions ran: more than `pairs` where a group's
    passes were short (lockstep.session_rounds)."""
    got = [r for r in (ls.get("session_rounds") or {}).values() if isinstance(r, int)]
    more = [r for r in got if isinstance(ls.get("pairs"), int) and r > ls["pairs"]]
    if not more:
        return ""
    return (". In %d of %d groups the sessions ran up to %d rounds: as many as took about %s "
            "ms, their passes being short" % (len(more), len(got), max(more),
                                              fmt.text(ls.get("session_ms"))))


def lockstep_text(run, aa=None):
    """The Method's words on the run's lockstep phase (run.json's lockstep), or
    None without one; aa, the host's last make aa (aa_figure), is cited."""
    ls = run.get("lockstep")
    if not isinstance(ls, dict):
        return None
    left = ls.get("left_to_rounds") or []
    text = ("- Lockstep (DESIGN section 6): after the fresh rounds, the variants that a ratio, "
            "a target or a claim compares ran in lockstep sessions. They were %s pairs, in %s "
            "groups: the variants joined by compared pairs. A session starts one process of "
            "each variant of a group, each warms up, all pinned to the programs' CPU. Then they "
            "take turns, one timed pass each a round in a random order, %s rounds a "
            "session%s. So the passes of any two of them in a round ran milliseconds apart. "
            "A pass's N is the one that takes about %s ms at the variant's time per operation "
            "in the fresh rounds. It is from 1 to the workload's N (a bounded variant's at "
            "least 4 K), and the two of a pair are compared per operation. Parallel mode and a "
            "seed's whole-process method keep the workload's N, which is part of what they "
            "measure. A pair whose pass would take more than %s ms stays on the rounds. That "
            "was %d pairs here, with those the time left gave fewer than 3 sessions. "
            "Each pair was to get %s sessions, those of the targets and claims first when "
            "time was short. A pair got more once every pair had its own, up to %s, when the "
            "confidence sequence had not decided its questions. So did one whose interval was "
            "wider than the profile asks (%s). There were %s sessions in %s lockstep rounds; "
            "they stopped: %s. The passes of one session share its processes, so a session is "
            "one sample of each of its pairs. Its figure is the median of its rounds' ratios "
            "(and of their differences per operation). A ratio is the geometric mean of its "
            "sessions' figures, each session of fresh processes. Its interval is Student's t "
            "on their logarithms, with the t-test (`stats.clustered`, from 3 sessions). Where "
            "two variants ran in lockstep, the tables, verdicts, targets and claims take these "
            "figures. The fresh rounds' round-paired ratio is kept beside each as a check "
            "(*Pairing check* below). A variant's time per operation takes its lockstep "
            "processes with its fresh ones." % (
                fmt.text(ls.get("compared")), fmt.text(ls.get("groups")),
                fmt.text(ls.get("pairs")), _session_rounds_text(ls), fmt.text(ls.get("pass_ms")),
                fmt.text(ls.get("max_pass_ms", "-")), len(left),
                fmt.text(ls.get("sessions")), fmt.text(ls.get("max_sessions")),
                _half_width_text(ls), fmt.text(ls.get("sessions_run")),
                fmt.text(ls.get("rounds")), fmt.text(ls.get("stopped") or "interrupted")))
    per = _lockstep_workloads(run, ls)
    if per:
        text += " By workload:\n" + "\n".join("  - %s" % p for p in per) + "\n\n "
    if aa:
        text += (" On this host the last `make aa` (%s) put a variant against itself %s "
                 "times. %s." % (aa["folder"], aa["comparisons"],
                                 aa["said"][0].upper() + aa["said"][1:]))
    else:
        text += (" No `make aa` has run on this host yet: its figure (how often a variant "
                 "against itself comes out different) is not known here.")
    return text


def aa_figure(rundir):
    """The A/A figure of the host a run folder is of: the newest make aa beside
    it (results/<host>/aa-*/aa.json) as {"folder", "comparisons", "said"}, or
    None when there is none or it cannot be read."""
    host = os.path.dirname(os.path.realpath(rundir))
    try:
        names = sorted(n for n in os.listdir(host) if n.startswith("aa-"))
    except OSError:
        return None
    for name in reversed(names):
        try:
            with open(os.path.join(host, name, "aa.json"), encoding="utf-8") as f:
                d = json.load(f)
            cases = d["cases"]
            fp = sum(int(c["false_positives"]) for c in cases)
            n = sum(int(c["comparisons"]) for c in cases)
            worst = max(cases, key=lambda c: float(c["rate_ci_high"]))
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if not n:
            continue
        return {"folder": "[%s](../%s/aa.md)" % (name, name), "comparisons": n,
                "said": "%d of %d came out different (%.1f%%), the highest upper bound of a "
                        "case's 95%% interval %.1f%% (`%s`)%s" % (
                            fp, n, 100.0 * fp / n, 100 * float(worst["rate_ci_high"]),
                            worst["variant"], ", with --noise" if d.get("noise") else "")}
    return None


def method_section(run, fdr_tests=None, aa=None):
    warm = run.get("warmup_rounds", 0)
    seed = run.get("seed")
    per_workload = _workload_runs(run)
    out = ["## Method", "",
           "- %s measured round%s after %s warm-up round%s%s. Profile `%s`%s. Every round runs "
           "each selected variant once, as a fresh process. Its order is shuffled per round "
           "with `random.Random(%s)`%s. The orders are in `run.json`."
           % (fmt.text(run.get("rounds")), "" if run.get("rounds") == 1 else "s", warm,
              "" if warm == 1 else "s", _warm_n(run), fmt.text(run.get("profile")),
              ": its time budget %s min from the first warm-up%s" % (
                  fmt.text(run["minutes"]),
                  ", which at round 1's pace its planned rounds alone were to pass by about "
                  "%s s" % fmt.text(run["planned_over_s"]) if run.get("planned_over_s") else "")
              if run.get("minutes") else "", fmt.text(seed),
              BLOCKS_SAID if (run.get("orders") or {}).get("blocks") else ""),
           "- Each program runs with its workload's flags (bounded variants also "
           "`--concurrency K` from the catalog) under its workload's timeout. Its process "
           "group is killed when the timeout passes.%s"
           % (" Per workload:\n" + "\n".join("  - %s" % w for w in per_workload)
              if per_workload else ""),
           "- A run counts only when it exits 0 and prints exactly one JSON line that meets the "
           "contract with `ok == iterations`. Otherwise it is recorded as invalid, failed, "
           "timeout or crashed, and the suite goes on.",
           "- Times are the programs' own `elapsed_ns`. The clock starts right before a "
           "variant's first per-operation allocation. It stops when the N-th result has "
           "verified, in C, Go and Node alike (DESIGN section 3). Start-up, flag parsing, the "
           "fixture check and expected values are outside it. So are the `--warmup` "
           "operations (untimed, in the same process, before the timed pass). All of that is "
           "shown under *Time outside the clock*. CPU time, peak memory and `wall_ns` come from "
           "`wait4` on the whole program process. It is forked from the small launcher "
           "`runner/measure/launch.c`, so that the runner's own memory does not leak into the "
           "program's peak RSS.",
           "- Statistics: a median has a distribution-free 95%% CI from order statistics. "
           "The catalog names two baselines per variant: one across languages, one within the "
           "variant's language. A ratio to a baseline is the median of per-round ratios (runs "
           "paired within a round), with its order-statistic CI. The difference per operation "
           "is the median of per-round differences over N, with its CI. Each comparison is an "
           "exact sign test on the paired rounds. It rejects at 5%% exactly when the ratio's "
           "CI excludes 1. Below %d paired rounds no CI and no test exist, and the ratio is "
           "marked `?`. The run's %s tested comparisons are one family. A difference is named "
           "only when its CI excludes 1 and its test survives the false discovery rate "
           "control. Named means in the findings, the verdicts and without `~` in the tables. "
           "The control is Benjamini-Hochberg's at 5%% over the family (q <= 0.05). It keeps "
           "the expected share of false ones among the named differences at 5%% or less, "
           "however many comparisons the run makes. The intervals shown are each comparison's "
           "own 95%% CI. The seed claims' tests (the reproduction sections) are a second "
           "family, controlled the same way. Outliers (modified z-score over 3.5 by MAD) are "
           "counted, never dropped."
           % (stats.min_samples_for_ci(), fmt.text(fdr_tests))]
    if passes_text(run):
        out.append(passes_text(run))
    if lockstep_text(run, aa):
        out.append(lockstep_text(run, aa))
    if extra_text(run):
        out.append(extra_text(run))
    pin = run.get("pinning")
    if isinstance(pin, dict):
        out.append("- Placement: %s." % (
            "every measured program ran on CPU %s (pinned by the launcher), each "
            "workload's server on %s" % (
                pin.get("program_cpu"), "the same CPU" if pin.get("server_cpu") ==
                pin.get("program_cpu") else "CPU %s" % pin.get("server_cpu"))
            if pin.get("program_cpu") is not None else
            "no program was pinned to a CPU (%s)" % pin.get("why", "not possible here")))
    if run.get("complete") is False:
        out.insert(2, "- **This run is incomplete** (%s): the figures use the samples "
                      "measured before it stopped." % (run.get("ending") or "it did not finish"))
    return out
