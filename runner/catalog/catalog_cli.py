"""catalog_cli.py -- the catalog's command line (runner/catalog/catalog.py is the
catalog itself).

Usage: python3 -m runner.catalog.catalog_cli [--catalog DIR] COMMAND ...
  ids [--profile P] [--lang L] [--workload W]   variant ids, one a line
  argv ID [--bin DIR] [--node PATH]             the command of one variant, one word a line
  field ID NAME                                 one field of one variant (lists and dicts
                                                as JSON; also label, name, concurrency,
                                                requires)
  workloads                                     workload names, one a line
  flags W                                       W's flags and their values, one a line each
  default ID [FLAG]                             the variant's workload flags (as `flags`),
                                                or the value of one of them
  bad-inputs                                    every bad input (suite.json's, then each
                                                workload's), a row as lines: "@@ WORKLOAD
                                                EXIT" (* for the suite's), "says ERE",
                                                "words LANG ERE"..., "flag WORD"...
  table                                         the variant tables (Markdown)
  readme [--check]                              write those tables into docs/workloads.md
                                                (--check: exit 1 if it is out of date)

Exit codes: 0 ok, 1 docs/workloads.md out of date, 2 bad call or unknown variant,
3 a broken catalog.  The bats tests and the Makefile use this CLI.
"""
import json
import sys

from . import catalog
from .catalog_docs import TABLES_DOC, markdown_table, readme_with_table
from ..core.errors import CatalogError
from ..core.files import write_atomic
from .matrix import argv


class _Usage(Exception):
    pass


def _opt(args, name, default=None):
    if name in args:
        i = args.index(name)
        if i + 1 >= len(args):
            raise _Usage("%s needs a value" % name)
        value = args[i + 1]
        del args[i:i + 2]
        return value
    return default


def _print_flags(cat, workload):
    for flag, spec in cat.workloads[workload]["flags"].items():
        print(flag)
        print(spec["value"])


def _variant_arg(cat, args, cmd):
    if len(args) < 2:
        raise _Usage("%s: which variant?" % cmd)
    v = cat.find(args[1])
    if v is None:
        raise _Usage("unknown variant %r (see: python3 -m runner.catalog.catalog_cli ids)" % args[1])
    return v


def _command(cat, args):
    cmd = args[0]
    if cmd == "ids":
        profile, lang, workload = _opt(args, "--profile"), _opt(args, "--lang"), _opt(args, "--workload")
        for v in cat.select(profile, lang, workload):
            print(v["id"])
        return 0
    if cmd == "workloads":
        print("\n".join(sorted(cat.workloads)))
        return 0
    if cmd == "flags":
        if len(args) < 2 or args[1] not in cat.workloads:
            raise _Usage("flags: which workload? (%s)" % ", ".join(sorted(cat.workloads)))
        _print_flags(cat, args[1])
        return 0
    if cmd == "argv":
        bin_dir, node = _opt(args, "--bin"), _opt(args, "--node")
        print("\n".join(argv(_variant_arg(cat, args, cmd), bin_dir, node)))
        return 0
    if cmd == "field":
        v = _variant_arg(cat, args, cmd)
        if len(args) < 3:
            raise _Usage("field: which field? (%s)" % ", ".join(v))
        val = v.get(args[2])
        print(json.dumps(val) if isinstance(val, (list, dict)) else ("" if val is None else val))
        return 0
    if cmd == "default":
        v = _variant_arg(cat, args, cmd)
        if len(args) < 3:
            _print_flags(cat, v["workload"])
            return 0
        spec = cat.workloads[v["workload"]]["flags"].get(args[2])
        if spec is None:
            raise _Usage("default: %s has no flag %r" % (v["workload"], args[2]))
        print(spec["value"])
        return 0
    if cmd == "bad-inputs":
        for workload, r in cat.bad_inputs():
            print("@@ %s %d" % (workload or "*", r["exit"]))
            print("says %s" % r["says"])
            for lang in sorted(r.get("words", {})):
                print("words %s %s" % (lang, r["words"][lang]))
            for w in r["flags"]:
                print("flag %s" % w)
        return 0
    if cmd == "table":
        print(markdown_table(cat))
        return 0
    if cmd == "readme":
        with open(TABLES_DOC, encoding="utf-8") as f:
            text = f.read()
        new = readme_with_table(text, markdown_table(cat))
        if "--check" in args:
            if new != text:
                print("docs/workloads.md: the variant tables differ from catalog/; "
                      "run: python3 -m runner.catalog.catalog_cli readme", file=sys.stderr)
                return 1
            return 0
        if new != text:
            write_atomic(TABLES_DOC, new)
        return 0
    raise _Usage("unknown command %r (try --help)" % cmd)


def main(args):
    args = list(args)
    if not args or args[0] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stdout if args else sys.stderr)
        return 0 if args else 2
    try:
        path = _opt(args, "--catalog", catalog.DIR)
        if not args:
            raise _Usage("which command? (try --help)")
        return _command(catalog.load(path), args)
    except _Usage as e:
        print("catalog_cli.py: %s" % e, file=sys.stderr)
        return 2
    except CatalogError as e:
        print("catalog_cli.py: %s" % e, file=sys.stderr)
        return 3


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
