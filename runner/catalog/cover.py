"""python3 -m runner.catalog.cover [--catalog DIR] [--keys K,K...] < IDS -- the variant ids
of stdin (one a line) that a check needs when it is about the code a variant
runs and not about the variant's name: an id is kept when it is the first to
bring one of these keys (by default the first four):

  program        the program it starts (a C or Go driver, a Node script)
  name           its workload, language and name (style, shape, mode): the
                 style's own code for that mode
  backend+mode   its workload, language, backend and mode: the backend under
                 one operation in flight, all of them, or a bound of them
  backend+style  its workload, language, backend and style: how that style
                 takes the backend's completions (inline and uring complete in
                 the loop thread, node4 and fused from the threadpool)
  style          its workload, language and style: the style's file
  backend        its workload, language and backend: the backend's file
  style+mode     its language, style and mode: the runtime's code for that
                 style in that mode (c/lib/modes*.c), whatever the workload

Parallel variants are looked at first (every operation in flight at once: the
most of a style's handling of completions in one run), the others in their
order; the ids kept are printed in the order of stdin, and ids not in the
catalog are kept.

By default every variant name runs once (on the first backend that has it),
and every other backend under each mode and with each style once: only
variants that differ by backend alone from ones kept are left out (readfile's
fused, inline and uring rows: its 66 C variants become 38 today).  With
--keys program,style,backend,style+mode each style file and backend file of
each program runs once, and each style's code for each mode once (the 120 C
variants of the emulated contract table become 44 today).

Used by scripts/sanitize.sh (asan and tsan with the default keys, memcheck
with the fewer) and, through cover_ids and TEST_VARIANT_COVER in
tests/test_helper.bash, by tests/hostile_c.bats and the emulated contract
table of scripts/test-aarch64.sh.
"""
import sys

from . import catalog

DEFAULT_KEYS = ("program", "name", "backend+mode", "backend+style")
KNOWN_KEYS = DEFAULT_KEYS + ("style", "backend", "style+mode")


def keys(v, which=DEFAULT_KEYS):
    """The coverage keys of variant V named in WHICH (see the module's text)."""
    argv = v["argv"]
    program = " ".join(argv[:2] if argv[0] == "{node}" else argv[:1])
    where = (v["workload"], v["lang"])
    every = {"program": (program,),
             "name": where + (v["name"],),
             "backend+mode": where + (v["backend"], v["mode"]),
             "backend+style": where + (v["backend"], v["style"]),
             "style": where + (v["style"],),
             "backend": where + (v["backend"],),
             "style+mode": (v["lang"], v["style"], v["mode"])}
    return [(k,) + every[k] for k in which]


def cover(ids, cat, which=DEFAULT_KEYS):
    """The ids of IDS (in their order) that bring a key no other kept id brought."""
    by_id = {v["id"]: v for v in cat.variants}
    known = [vid for vid in ids if vid in by_id]
    known.sort(key=lambda vid: by_id[vid]["mode"] != "parallel")  # stable
    seen, chosen = set(), set()
    for vid in known:
        ks = keys(by_id[vid], which)
        if any(k not in seen for k in ks):
            seen.update(ks)
            chosen.add(vid)
    return [vid for vid in ids if vid in chosen or vid not in by_id]


def main(args):
    path, which = catalog.DIR, DEFAULT_KEYS
    while len(args) >= 2 and args[0] in ("--catalog", "--keys"):
        if args[0] == "--catalog":
            path = args[1]
        else:
            which = tuple(args[1].split(","))
        args = args[2:]
    if args or not all(k in KNOWN_KEYS for k in which):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    ids = [line.strip() for line in sys.stdin if line.strip()]
    for vid in cover(ids, catalog.load(path), which):
        print(vid)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
