"""catalog.py -- the one list of variants (runner/catalog.json), read by everyone.

Usage:
  catalog.py ids [--profile P] [--lang L] [--workload W]   variant ids, one a line
  catalog.py argv ID [--bin DIR] [--node PATH]             the command of one variant
  catalog.py field ID NAME                                 one field of one variant
  catalog.py table                                         the README's variant table (Markdown)
  catalog.py readme [--check]                              write that table into README.md
                                                           (--check: exit 1 if it is out of date)

The bats tests and the Makefile use this CLI; the runner imports it.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from files import write_atomic  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PATH = os.path.join(ROOT, "runner", "catalog.json")


def load(path=PATH):
    """Returns the parsed catalog, with every variant checked for required fields."""
    with open(path, encoding="utf-8") as f:
        cat = json.load(f)
    required = ("id", "workload", "lang", "style", "mode", "backend", "argv",
                "concurrency", "profiles", "about")
    seen = set()
    for v in cat["variants"]:
        missing = [k for k in required if k not in v]
        if missing:
            raise ValueError("catalog: variant %r lacks %s" % (v.get("id"), ", ".join(missing)))
        if v["id"] in seen:
            raise ValueError("catalog: duplicate variant id %r" % v["id"])
        expected = "%s/%s-%s" % (v["lang"], v["style"], v["mode"])
        if not v["id"].startswith(v["lang"] + "/") or (
                v["id"] != expected and not v["id"].endswith("-" + v["mode"])):
            raise ValueError("catalog: id %r does not follow <lang>/<style>-<mode>" % v["id"])
        seen.add(v["id"])
    return cat


def variants(cat, profile=None, lang=None, workload=None):
    """The variants of a profile (all when None), in catalog order."""
    out = []
    for v in cat["variants"]:
        if profile is not None and profile not in v["profiles"]:
            continue
        if lang is not None and v["lang"] != lang:
            continue
        if workload is not None and v["workload"] != workload:
            continue
        out.append(v)
    return out


def find(cat, vid):
    for v in cat["variants"]:
        if v["id"] == vid:
            return v
    return None


def build_dir():
    """The build folder: $BUILD (as `make BUILD=...` exports it; relative to the
    project root unless absolute), else build/."""
    return os.path.join(ROOT, os.environ.get("BUILD") or "build")


def argv(v, bin_dir=None, node=None):
    """The variant's command with {bin} and {node} filled in (a list, never a shell string)."""
    bin_dir = bin_dir or os.path.join(build_dir(), "bin")
    node = node or "node"
    return [a.replace("{bin}", bin_dir).replace("{node}", node) for a in v["argv"]]


def markdown_table(cat):
    rows = ["| variant | workload | backend | profiles | what it does |",
            "|---|---|---|---|---|"]
    for v in cat["variants"]:
        rows.append("| `%s` | %s | %s | %s | %s |" % (
            v["id"], v["workload"], v["backend"], ", ".join(v["profiles"]), v["about"]))
    return "\n".join(rows)


README = os.path.join(ROOT, "README.md")
BEGIN, END = "<!-- catalog-table:begin -->", "<!-- catalog-table:end -->"


def readme_with_table(text, table):
    """README text with the part between the catalog-table markers replaced."""
    a, b = text.index(BEGIN) + len(BEGIN), text.index(END)
    return text[:a] + "\n" + table + "\n" + text[b:]


def _opt(args, name, default=None):
    if name in args:
        i = args.index(name)
        if i + 1 >= len(args):
            sys.exit("catalog.py: %s needs a value" % name)
        return args[i + 1]
    return default


def main(args):
    if not args or args[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if args else 2
    cat = load()
    cmd = args[0]
    if cmd == "ids":
        for v in variants(cat, _opt(args, "--profile"), _opt(args, "--lang"),
                          _opt(args, "--workload")):
            print(v["id"])
        return 0
    if cmd in ("argv", "field"):
        if len(args) < 2:
            sys.exit("catalog.py %s: which variant?" % cmd)
        v = find(cat, args[1])
        if v is None:
            print("catalog.py: unknown variant %r" % args[1], file=sys.stderr)
            return 2
        if cmd == "argv":
            print("\n".join(argv(v, _opt(args, "--bin"), _opt(args, "--node"))))
        else:
            val = v.get(args[2]) if len(args) > 2 else None
            print(json.dumps(val) if isinstance(val, (list, dict)) else ("" if val is None else val))
        return 0
    if cmd == "table":
        print(markdown_table(cat))
        return 0
    if cmd == "readme":
        with open(README, encoding="utf-8") as f:
            text = f.read()
        new = readme_with_table(text, markdown_table(cat))
        if "--check" in args:
            if new != text:
                print("README.md: the variant table differs from runner/catalog.json; "
                      "run: python3 runner/catalog.py readme", file=sys.stderr)
                return 1
            return 0
        if new != text:
            write_atomic(README, new)
        return 0
    print("catalog.py: unknown command %r (try --help)" % cmd, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
