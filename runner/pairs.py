"""pairs.py -- lockstep.csv: the passes of two warm programs alternated in
lockstep (runner/lockstep.py, DESIGN section 6), one row a pair of passes.

Columns, in this order: session (the process pair, counted from 1 in the run),
round (the lockstep round it ran in), a and b (the two variants' ids: a the
variant, b its partner), pair (the pair's index in its session, from 0),
a_first (1 when a's pass ran first), iterations (each pass's N), a_ns and b_ns
(the two passes' elapsed_ns).  Only a session whose every pass verified and
whose two programs ended cleanly is written; a failed one is in runs.jsonl.

read_pairs refuses, with one line naming the file and the line, a file the
runner could not have written; figures() gives each pair of variants its
sessions' figures (stats.cluster_figure), the one sample a session is.
"""
import csv
import io
import re

from . import catalog
from . import stats

PAIR_COLUMNS = ["session", "round", "a", "b", "pair", "a_first", "iterations", "a_ns", "b_ns"]
INT_COLUMNS = ("session", "round", "pair", "a_first", "iterations", "a_ns", "b_ns")
POSITIVE = ("session", "round", "iterations", "a_ns", "b_ns")
INT64_MAX = 2 ** 63 - 1


def read_pairs(path, warnings=None):
    """lockstep.csv's rows as dicts (integers converted); ValueError naming
    the file and line of a row the runner could not have written: another
    header, a wrong count of columns (a short last line is an interrupted
    write: left out with a warning), a column that is not a whole number in
    its range, an id that is not a variant id, a session with two pairs of one
    index, two partners or two N."""
    with open(path, newline="", encoding="utf-8") as f:
        text = f.read()
    reader = csv.reader(io.StringIO(text))
    header = next(reader, None)
    if header != PAIR_COLUMNS:
        raise ValueError("%s: header is %r, expected the columns %s"
                         % (path, header, ",".join(PAIR_COLUMNS)))
    records = list(enumerate(reader, start=2))
    rows, seen, sessions = [], set(), {}
    for i, (lineno, rec) in enumerate(records):
        where = "%s:%d" % (path, lineno)
        if len(rec) != len(PAIR_COLUMNS):
            if i == len(records) - 1 and not text.endswith("\n") and len(rec) < len(PAIR_COLUMNS):
                if warnings is not None:
                    warnings.append("%s: a short last line (an interrupted write) was left out"
                                    % where)
                continue
            raise ValueError("%s: %d columns, expected %d" % (where, len(rec), len(PAIR_COLUMNS)))
        row = dict(zip(PAIR_COLUMNS, rec))
        for k in INT_COLUMNS:
            if not re.match(r"[0-9]{1,19}\Z", row[k]) or int(row[k]) > INT64_MAX:
                raise ValueError("%s: %s is not a whole number: %r" % (where, k, row[k][:40]))
            row[k] = int(row[k])
            if k in POSITIVE and row[k] < 1:
                raise ValueError("%s: %s is %d, below 1" % (where, k, row[k]))
        if row["a_first"] > 1:
            raise ValueError("%s: a_first is %d, not 0 or 1" % (where, row["a_first"]))
        for k in ("a", "b"):
            if catalog.parse_id(row[k]) is None:
                raise ValueError("%s: %s %r is not a variant id" % (where, k, row[k][:80]))
        key = (row["session"], row["pair"])
        if key in seen:
            raise ValueError("%s: a second pair %d of session %d" % (where, row["pair"],
                                                                     row["session"]))
        seen.add(key)
        first = sessions.setdefault(row["session"], (row["a"], row["b"], row["iterations"],
                                                     row["round"], lineno))
        if first[:4] != (row["a"], row["b"], row["iterations"], row["round"]):
            raise ValueError("%s: session %d has other variants, N or round than on line %d"
                             % (where, row["session"], first[4]))
        rows.append(row)
    return rows


def sessions(rows):
    """[(session, its rows)] in session order."""
    by_session = {}
    for r in rows:
        by_session.setdefault(r["session"], []).append(r)
    return [(k, by_session[k]) for k in sorted(by_session)]


def figures(rows):
    """{(a, b): [(ratio a/b, difference per operation in ns, session, round)]}
    of every session, in session order, and the same of (b, a) inverted, so
    that either order of a pair finds them."""
    out = {}
    for session, rs in sessions(rows):
        f = stats.cluster_figure([(r["a_ns"], r["b_ns"]) for r in rs], rs[0]["iterations"])
        if f is None:
            continue
        a, b, rnd = rs[0]["a"], rs[0]["b"], rs[0]["round"]
        out.setdefault((a, b), []).append((f[0], f[1], session, rnd))
        out.setdefault((b, a), []).append((1.0 / f[0], -f[1], session, rnd))
    return out


def per_op(rows):
    """{variant: [time per operation in ns, one a lockstep process]}: each
    session's two processes, each its passes' median over the pass's N, as a
    fresh process's value is its passes' median (summary.per_process)."""
    out = {}
    for _, rs in sessions(rows):
        n = float(rs[0]["iterations"])
        for side in ("a", "b"):
            out.setdefault(rs[0][side], []).append(
                stats.median([r[side + "_ns"] for r in rs]) / n)
    return out
