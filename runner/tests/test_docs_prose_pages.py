"""The hand-written docs pages keep every sentence to prose.MAX_WORDS words
(issue 47): docs/methodology.md, docs/hosts.md, docs/adding.md and the
hand-written parts of docs/workloads.md (its generated variant tables are
tables, which the counter skips)."""
import os
import re
import unittest

from ..core import paths
from ..core import prose

ROOT = paths.ROOT


# Generated blocks (<!-- x:begin --> ... <!-- x:end -->) are the catalog's or a
# run's words, held to the rule where they are generated, not here.
GENERATED = re.compile(r"<!-- ([\w-]+):begin -->.*?<!-- \1:end -->", re.S)


def long_in(name):
    with open(os.path.join(ROOT, "docs", name), encoding="utf-8") as f:
        return prose.long_sentences(GENERATED.sub("", f.read()))


class DocsPagesProse(unittest.TestCase):
    def check(self, name):
        found = long_in(name)
        self.assertEqual(found, [], "docs/%s has %d sentences over %d words"
                         % (name, len(found), prose.MAX_WORDS))

    def test_methodology(self):
        self.check("methodology.md")

    def test_hosts(self):
        self.check("hosts.md")

    def test_adding(self):
        self.check("adding.md")

    def test_workloads_hand_written(self):
        self.check("workloads.md")

    def test_generated_blocks_are_left_out(self):
        text = "a b\n<!-- t:begin -->\n" + "word " * 40 + "\n<!-- t:end -->\n"
        self.assertEqual(prose.long_sentences(GENERATED.sub("", text)), [])
        self.assertEqual(len(prose.long_sentences(text)), 1)


if __name__ == "__main__":
    unittest.main()


class WorkloadsWholeProse(unittest.TestCase):
    """docs/workloads.md whole, its generated variant tables' workload and
    warm-up sentences included: they are the catalog's `about` text
    (runner/catalog/catalog_docs.py), written in sentences of at most 25 words."""

    def test_workloads_whole_file(self):
        with open(os.path.join(paths.ROOT, "docs", "workloads.md"), encoding="utf-8") as f:
            text = f.read()
        self.assertGreater(len(prose.sentences(text)), 100)
        self.assertEqual(prose.long_sentences(text), [])


class FolderReadmesProse(unittest.TestCase):
    """The READMEs of node/ and of the charts keep to 25 words a sentence."""

    def test_node_and_charts_readmes(self):
        for rel in (("node", "README.md"), ("runner", "report", "charts", "README.md")):
            with open(os.path.join(paths.ROOT, *rel), encoding="utf-8") as f:
                text = f.read()
            self.assertGreater(len(prose.sentences(text)), 20, rel)
            self.assertEqual(prose.long_sentences(text), [], rel)
