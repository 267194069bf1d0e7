"""schedule.py -- the order of a run's rounds and their number under a time
budget: every round's shuffled order as run.json records it (order_recipe,
expanded by expand(), read back by run_orders()), and the rounds a time budget
gives its variants after round 1 (budget_rounds, decide_budget).  measure.py
runs the rounds in these orders.
"""
import platform
import random
import sys

from ..catalog import catalog_check
from . import plan as plan_mod


def variant_rounds(plan, v, rounds_of=None):
    """In how many measured rounds v runs: rounds_of's figure (a time budget's
    decision), else its workload's."""
    return (rounds_of or {}).get(v["id"], plan.settings[v["workload"]]["rounds"])


# How run.json's "orders" gives every round's order (DESIGN section 6).  A
# recipe without "blocks" (a run before blocks) shuffles a round's entries as
# one list.
ORDER_RULE = ("round i (warm-ups first) runs the entries whose measured rounds reach it "
              "(every entry in a warm-up), in the listed order, shuffled by "
              "random.Random(seed).shuffle, one shuffle per round in turn")
BLOCK_RULE = ("in blocks: each entry's third field is its block, workload/lang/mode/method/"
              "backend; a round shuffles its workloads, then the blocks within each "
              "workload, then the entries within each block, in that order of shuffle "
              "calls, every list in its first-seen order before its shuffle, so that "
              "the variants a ratio compares run moments apart and never a whole "
              "round apart")

# The fields a variant shares with the others it is compared with (its C
# baseline is the same workload, mode, method and backend): a time budget gives
# them all the same rounds, so that their ratios pair over every round, and a
# round runs them one after another (block_key).
BUDGET_GROUP = ("workload", "lang", "mode", "method", "backend")


def block_key(v):
    """The block of variant v in a round's order: its BUDGET_GROUP fields,
    workload first ("readfile/c/sequential/inprocess/inline")."""
    return "/".join(str(v.get(k) or "") for k in BUDGET_GROUP)


def block_shuffle(rng, entries, block_of):
    """entries (a list) shuffled in blocks (BLOCK_RULE) with rng: the workloads
    in a shuffled order, within each its blocks shuffled, within each block
    its entries shuffled.  block_of(entry) gives an entry's block, whose part
    before the first "/" is its workload."""
    workloads = {}
    for e in entries:
        b = block_of(e)
        workloads.setdefault(b.split("/", 1)[0], {}).setdefault(b, []).append(e)
    order = list(workloads.values())
    rng.shuffle(order)
    out = []
    for blocks in order:
        blocks = list(blocks.values())
        rng.shuffle(blocks)
        for members in blocks:
            rng.shuffle(members)
            out += members
    return out


def order_recipe(plan, seed, rounds_of=None):
    """The orders of every round as run.json keeps them: the seed and every
    variant's entry (its id, and for a sweep's other points "id point",
    plan_mod.entry) with its measured rounds, in plan order.  expand() turns it
    into the orders; a list of every round's order was 194 MB for 20,000
    rounds.  rounds_of ({id: rounds}) lets a variant run in more (or fewer)
    rounds than its workload (a time budget); the warm-up orders do not depend
    on it, so the orders decided after the warm-ups begin with the ones
    already run."""
    pts = getattr(plan, "points", None) or {}
    entries = [[plan_mod.entry(v["id"], p), variant_rounds(plan, v, rounds_of), block_key(v)]
               for v in plan.variants for p in (pts.get(v["id"]) or {"": None})]
    return {"rule": ORDER_RULE, "blocks": BLOCK_RULE, "seed": seed,
            "warmup_rounds": plan.warmups,
            "rounds": max([plan.rounds] + [e[1] for e in entries]), "entries": entries,
            "python": platform.python_version()}


def expand(recipe):
    """Every round's order (lists of entries, warm-ups first) from order_recipe's
    record: in blocks when it has "blocks", else (a run before blocks) each
    round's entries shuffled as one list."""
    rng = random.Random(recipe["seed"])
    blocks = {e[0]: e[2] for e in recipe["entries"]} if recipe.get("blocks") else None
    out = []
    for i in range(recipe["warmup_rounds"] + recipe["rounds"]):
        rnd = i + 1 - recipe["warmup_rounds"]      # measured round number (<= 0: a warm-up)
        ids = [e[0] for e in recipe["entries"] if rnd <= 0 or rnd <= e[1]]
        if blocks is None:
            rng.shuffle(ids)
        else:
            ids = block_shuffle(rng, ids, blocks.__getitem__)
        out.append(ids)
    # Extra rounds (sequential.py) ran after the planned ones, each order as recorded.
    out += [list(ids) for ids in recipe.get("extra") or []]
    return out


def orders(plan, seed, rounds_of=None):
    """The shuffled order of every round, warm-ups first (order_recipe, expanded)."""
    return expand(order_recipe(plan, seed, rounds_of))


def run_orders(run):
    """(warm-up orders, measured orders) of a run.json: expanded from its
    "orders", or the lists a runner before it wrote ("warmup_order", "order")."""
    recipe = run.get("orders")
    if isinstance(recipe, dict):
        every = expand(recipe)
        return every[:recipe["warmup_rounds"]], every[recipe["warmup_rounds"]:]
    return run.get("warmup_order") or [], run.get("order") or []



# The share of the time the planned rounds leave before the run's deadline that
# a time budget's rounds may take: the rest is the extra rounds' (sequential.py).
BUDGET_SHARE = 0.5


def budget_rounds(plan, first_wall, spare_ns=None):
    """{id: rounds} of the variants under a time budget (their workload's
    settings have one and its `for` matches): as many rounds as fit in the
    budget's seconds at the median wall time of the ok runs of round 1 (first_wall
    {id: [wall_ns]}) of their group (BUDGET_GROUP: the variants it compares),
    at least the workload's rounds and at most the budget's max_rounds.  A group
    without an ok run in round 1 keeps its rounds.  spare_ns, when given, caps
    what the rounds added cost at round 1's wall times: the budget's seconds
    shrink by one factor for every group until they fit in it."""
    groups = _budget_groups(plan, first_wall)
    out = _fit_rounds(groups, 1.0)
    if spare_ns is None or _added_ns(groups, out) <= spare_ns:
        return out
    lo, hi = 0.0, 1.0
    for _ in range(40):
        mid = (lo + hi) / 2
        if _added_ns(groups, _fit_rounds(groups, mid)) <= spare_ns:
            lo = mid
        else:
            hi = mid
    return _fit_rounds(groups, lo)


def _budget_groups(plan, first_wall):
    """[(members, their workload's settings, the median round-1 wall ns, each
    member's round-1 wall ns in all)] of the groups under a time budget with
    an ok run in round 1."""
    groups = {}
    for v in plan.variants:
        b = plan.settings[v["workload"]].get("budget")
        if b and catalog_check.matches(v, b.get("for") or {}):
            groups.setdefault(tuple(v[k] for k in BUDGET_GROUP), []).append(v)
    out = []
    for members in groups.values():
        walls = sorted(w for v in members for w in first_wall.get(v["id"]) or [])
        if walls:
            out.append((members, plan.settings[members[0]["workload"]],
                        walls[len(walls) // 2],
                        {v["id"]: sum(first_wall.get(v["id"]) or [0]) for v in members}))
    return out


def _fit_rounds(groups, factor):
    """{id: rounds} of _budget_groups' groups with factor of their seconds."""
    out = {}
    for members, s, median, _ in groups:
        b = s["budget"]
        fit = int(factor * b["seconds"] * 1e9 // max(median, 1))
        for v in members:
            out[v["id"]] = max(s["rounds"], min(b["max_rounds"], fit))
    return out


def _added_ns(groups, rounds_of):
    """What rounds_of adds to the groups' workload rounds costs, at round 1's wall times."""
    return sum((rounds_of[vid] - s["rounds"]) * wall
               for _, s, _, walls in groups for vid, wall in walls.items())


def _pace(plan, first_wall, round1_ns, left_ns):
    """(the time the planned rounds leave before the run's deadline, in the
    runs' wall time; how far past it they end, 0 when they do not): at round
    1's pace, each variant's round-1 runs times its rounds to come, scaled by
    round 1's whole wall time over its runs' (the servers, the probes, the
    launches); left_ns is the time from now (round 1's end) to the deadline."""
    runs = sum(sum(w) for w in first_wall.values())
    scale = round1_ns / runs if runs else 1.0
    rest = scale * sum(sum(first_wall.get(v["id"]) or [0]) * (variant_rounds(plan, v) - 1)
                       for v in plan.variants)
    return max(0.0, left_ns - rest) / scale, max(0.0, rest - left_ns)


def spare_ns(plan, first_wall, round1_ns, left_ns):
    """The time the planned rounds leave before the run's deadline (_pace)."""
    return _pace(plan, first_wall, round1_ns, left_ns)[0]


def decide_budget(plan, seed, first_wall, plan_orders, run, progress, left=None):
    """After round 1: a variant under a time budget runs in as many rounds as
    fit in it at its round-1 wall time (budget_rounds), and with the run's
    deadline (left: (round 1's wall ns, ns to the deadline)) in BUDGET_SHARE of
    the time the planned rounds leave before it (_pace); the orders of the
    warm-ups and round 1 stay (expand() gives them again: every variant is in
    them).  Updates plan_orders, run's rounds, orders and variant_rounds, and
    the progress total; returns the measured rounds."""
    cap = over = None
    if left is not None:
        spare, over = _pace(plan, first_wall, *left)
        cap = BUDGET_SHARE * spare
        run["budget_cap_s"] = round(cap / 1e9, 1)
    rounds_of = budget_rounds(plan, first_wall, cap)
    if over:
        # A host slower than the budget was made for: say so, and by how much.
        run["planned_over_s"] = round(over / 1e9)
        print("run.py: at round 1's pace the planned rounds alone end about %d s past "
              "the run's time budget; no round is added" % run["planned_over_s"],
              file=sys.stderr)
    recipe = order_recipe(plan, seed, rounds_of)
    plan_orders[plan.warmups + 1:] = expand(recipe)[plan.warmups + 1:]
    rounds = len(plan_orders) - plan.warmups
    run.update(rounds=rounds, orders=recipe, variant_rounds={
        v["id"]: variant_rounds(plan, v, rounds_of) for v in plan.variants})
    progress.total = progress.done + sum(len(o) for o in plan_orders[plan.warmups + 1:])
    for w, (lo, hi) in sorted(budget_spread(plan, rounds_of).items()):
        print("run.py: the time budget gives %s's variants %s rounds"
              % (w, lo if lo == hi else "%d-%d" % (lo, hi)), file=sys.stderr)
    return rounds


def rounds_said(s):
    """A workload's rounds as the run's first line says them: "6 rounds", or
    "10 rounds (up to 40 by a time budget)" before the warm-ups decide."""
    b = s.get("budget")
    said = "%d round%s" % (s["rounds"], "" if s["rounds"] == 1 else "s")
    if b and b["max_rounds"] > s["rounds"]:
        said += " (up to %d by a time budget)" % b["max_rounds"]
    return said


def budget_spread(plan, rounds_of):
    """{workload: (fewest, most)} rounds budget_rounds gave its variants."""
    out = {}
    for v in plan.variants:
        if v["id"] in rounds_of:
            r = rounds_of[v["id"]]
            lo, hi = out.get(v["workload"], (r, r))
            out[v["workload"]] = (min(lo, r), max(hi, r))
    return out
