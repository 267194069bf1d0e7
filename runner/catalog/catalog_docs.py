"""catalog_docs.py -- the variant tables of docs/workloads.md, made from the
catalog (one Markdown table per workload, between the catalog-table markers):
`python3 -m runner.catalog.catalog_cli table` prints them, `readme` writes them.
"""
import os
import re
from ..core import paths

ROOT = paths.ROOT
# The variant tables live in the workloads document (the README links it).
TABLES_DOC = os.path.join(ROOT, "docs", "workloads.md")

BEGIN, END = "<!-- catalog-table:begin -->", "<!-- catalog-table:end -->"


def warmup_text(w):
    """The README's sentence on a workload's in-process warm-up (`--warmup W`,
    W as an expression of N)."""
    spec = w.get("warmup")
    shown = lambda text: re.sub(r"\biterations\b", "N", text)  # noqa: E731
    own = {p: shown(s["warmup"]) for p, s in w["profiles"].items() if "warmup" in s}
    text = "Warm-up: "
    text += "`%s`" % shown(spec["iterations"]) if spec else "none"
    if own:
        text += " (profile %s)" % ", ".join("`%s`: `%s`" % kv for kv in sorted(own.items()))
    text += ". These are untimed operations in the same process, before the timed pass."
    return text + (" %s." % _sentence(spec["about"].rstrip(".")) if spec else "")


def _sentence(text):
    """text as a sentence: its first letter a capital (a name in backticks
    stays as it is)."""
    return text[:1].upper() + text[1:] if text[:1].isalpha() else text


def markdown_table(cat):
    """One Markdown table per workload: id, backend, profiles, what it does;
    above it what the workload is and its in-process warm-up."""
    out = []
    for name in sorted(cat.workloads):
        w = cat.workloads[name]
        if out:
            out.append("")
        out += ["`%s`: %s" % (name, w["about"]), "", warmup_text(w), "",
                "| id | backend | profiles | what it does |", "|---|---|---|---|"]
        for v in w["variants"]:
            out.append("| `%s` | %s | %s | %s |" % (
                v["id"], v["backend"], ", ".join(v["profiles"]), v["about"]))
    return "\n".join(out)


def readme_with_table(text, table):
    """README text with the part between the catalog-table markers replaced."""
    a, b = text.index(BEGIN) + len(BEGIN), text.index(END)
    return text[:a] + "\n" + table + "\n" + text[b:]

