"""pairs.py -- lockstep.csv: the passes of two warm programs alternated in
lockstep (runner/measure/lockstep.py, DESIGN section 6), one row a pair of passes.

Columns, in this order: session (the group of warm processes, counted from 1 in
the run: two or more, one a variant, alternated in lockstep), round (the lockstep
round it ran in), a and b (the two variants' ids: a the variant, b its partner),
pair (the round of passes, from 0), a_first (1 when a's pass ran before b's),
a_iterations and b_iterations (each one's pass N), a_ns and b_ns (the two passes'
elapsed_ns).  A pair of variants of a session is written only when both of its
programs verified every pass and ended cleanly; a failure is in runs.jsonl.

read_pairs refuses, with one line naming the file and the line, a file the
runner could not have written; figures() gives each pair of variants its
sessions' figures (stats.cluster_figure), the one sample a session is.
"""
import csv
import io
import re

from ..catalog import catalog
from ..core import stats

PAIR_COLUMNS = ["session", "round", "a", "b", "pair", "a_first", "a_iterations",
                "b_iterations", "a_ns", "b_ns"]
INT_COLUMNS = ("session", "round", "pair", "a_first", "a_iterations", "b_iterations", "a_ns",
               "b_ns")
POSITIVE = ("session", "round", "a_iterations", "b_iterations", "a_ns", "b_ns")
INT64_MAX = 2 ** 63 - 1


def read_pairs(path, warnings=None):
    """lockstep.csv's rows as dicts (integers converted); ValueError naming
    the file and line of a row the runner could not have written: another
    header, a wrong count of columns (a short last line is an interrupted
    write: left out with a warning), a column that is not a whole number in
    its range, an id that is not a variant id, a pair of variants with two rows
    of one round of passes in a session, or two N or lockstep rounds."""
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
        key = (row["session"], row["a"], row["b"], row["pair"])
        if key in seen:
            raise ValueError("%s: a second pair %d of %s and %s in session %d" % (
                where, row["pair"], row["a"], row["b"], row["session"]))
        seen.add(key)
        first = sessions.setdefault((row["session"], row["a"], row["b"]), (
            row["a_iterations"], row["b_iterations"], row["round"], lineno))
        if first[:3] != (row["a_iterations"], row["b_iterations"], row["round"]):
            raise ValueError("%s: %s and %s have other N or another round in session %d than "
                             "on line %d" % (where, row["a"], row["b"], row["session"], first[3]))
        rows.append(row)
    return rows


def sessions(rows):
    """[((session, a, b), its rows)] in session order."""
    by = {}
    for r in rows:
        by.setdefault((r["session"], r["a"], r["b"]), []).append(r)
    return [(k, by[k]) for k in sorted(by)]


def figures(rows):
    """{(a, b): [(ratio a/b, difference per operation in ns, session, round)]}
    of every session, in session order, and the same of (b, a) inverted, so
    that either order of a pair finds them: a session's figure is the median
    over its rounds of passes of the two passes' times per operation's ratio
    (stats.cluster_figure; each pass's N may differ)."""
    out = {}
    for (session, a, b), rs in sessions(rows):
        f = stats.cluster_figure([(r["a_ns"] / float(r["a_iterations"]),
                                   r["b_ns"] / float(r["b_iterations"])) for r in rs], 1)
        if f is None:
            continue
        rnd = rs[0]["round"]
        out.setdefault((a, b), []).append((f[0], f[1], session, rnd))
        out.setdefault((b, a), []).append((1.0 / f[0], -f[1], session, rnd))
    return out


def per_op(rows):
    """{variant: [time per operation in ns, one a lockstep process]}: each
    process of each session (a variant paired with several partners in one
    session is one process), its passes' median over its pass's N, as a fresh
    process's value is its passes' median (summary.per_process)."""
    passes = {}
    for r in rows:
        for side in ("a", "b"):
            key = (r["session"], r[side])
            passes.setdefault(key, {})[r["pair"]] = r[side + "_ns"] / float(r[side + "_iterations"])
    out = {}
    for (session, vid) in sorted(passes):
        out.setdefault(vid, []).append(stats.median(list(passes[(session, vid)].values())))
    return out
