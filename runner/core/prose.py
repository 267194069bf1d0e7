"""prose.py -- the sentences of a Markdown text and their length in words, for
the rule that generated prose keeps a sentence to MAX_WORDS words.

A word is a blank-separated token with a letter in it, a figure not counted:
'15.9x', '[13.0,', '+7.44', '95%' and the unit right after a figure ('µs',
'ms') read as one figure with it.  A name in backticks is one word.  Tables,
code blocks, headings, images and HTML comments are not prose; a bullet is
a paragraph of its own.  A sentence ends at '.', '!' or '?' (or one closed
by '**' or ')') before a blank
and a capital, a backtick, a bracket or a figure, and at the end of its
paragraph.

Usage: python3 -m runner.core.prose [--max N] FILE...   prints each longer
sentence with its file and word count; exits 1 when there is one.
"""
import re
import sys

MAX_WORDS = 25

FIGURE = re.compile(r"^[\[(~?+\-−<>≤≥]*[\d][\d.,:]*(x|%|th|st|nd|rd)?[\])},;:.]*$")
UNITS = {"ns", "µs", "us", "ms", "s", "KB", "KiB", "MB", "MiB", "GB", "GiB", "B", "x",
         "ns,", "µs,", "ms,", "s,", "ns)", "µs)", "ms)", "s)", "ns;", "µs;", "ms;", "s;",
         "ns).", "µs).", "ms).", "ns.", "µs.", "ms.", "s.", "ns],", "µs],", "ms],",
         "ns]", "µs]", "ms]", "KB,", "MiB,", "KB)", "MiB)"}
END = re.compile(r"(?:(?<=[.!?])|(?<=[.!?]\*\*)|(?<=[.!?]\)))\s+(?=[A-Z`\[(*\d~?-])")
LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")


def words(sentence):
    """The number of words of a sentence, by the rule above."""
    text = re.sub(r"`[^`]*`", "name", sentence)
    text = re.sub(r"<[^>]+>", " ", text)
    n, after_figure = 0, False
    for tok in text.split():
        if FIGURE.match(tok) or not re.search(r"[^\W\d_]", tok):
            after_figure = True
            continue
        if after_figure and tok in UNITS:
            after_figure = False
            continue
        after_figure = False
        n += 1
    return n


def paragraphs(markdown):
    """The prose paragraphs of a Markdown text, each as one line."""
    out, cur, fence = [], [], False
    text = re.sub(r"<!--.*?-->", "", markdown, flags=re.S)
    for line in text.split("\n"):
        s = line.strip()
        if s.startswith("```"):
            fence = not fence
            if cur:
                out.append(" ".join(cur))
                cur = []
            continue
        if fence:
            continue
        if (not s or s.startswith("|") or s.startswith("#") or s.startswith("![")
                or re.match(r"^([-*]|\d+\.) ", s) or s.startswith(">")):
            if cur:
                out.append(" ".join(cur))
            cur = []
            if re.match(r"^([-*]|\d+\.) ", s):
                cur = [re.sub(r"^([-*]|\d+\.) ", "", s)]
            elif s.startswith(">"):
                cur = [s.lstrip("> ")]
            continue
        cur.append(s)
    if cur:
        out.append(" ".join(cur))
    return [p for p in out if p.strip()]


def sentences(markdown):
    """Every sentence of the text's prose."""
    out = []
    for p in paragraphs(markdown):
        p = LINK.sub(lambda m: m.group(1), p)
        out += [s for s in END.split(p) if s.strip()]
    return out


def long_sentences(markdown, limit=MAX_WORDS):
    """[(words, sentence)] of the sentences over limit words."""
    return [(words(s), s) for s in sentences(markdown) if words(s) > limit]


def clauses_as_sentences(text):
    """Recorded text (a skip reason from run.json) with each '; ' between
    clauses made a sentence's end, the next clause's first letter a capital:
    what a run recorded is shown whole, in sentences this file counts."""
    return re.sub(r"; (\w)", lambda m: ". " + m.group(1).upper(), text)


def main(argv):
    limit = MAX_WORDS
    if argv[:1] == ["--max"] and len(argv) > 1:
        limit, argv = int(argv[1]), argv[2:]
    if not argv or any(a.startswith("-") for a in argv):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    found = 0
    for path in argv:
        with open(path, encoding="utf-8") as f:
            for n, s in long_sentences(f.read(), limit):
                found += 1
                print("%s: %d words: %s" % (path, n, s))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
