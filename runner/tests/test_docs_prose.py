"""docs/DESIGN.md keeps each sentence to 25 words (issue 47), by the count of
runner/core/prose.py, and keeps the numbered sections code and tests cite as
"DESIGN section N"."""
import os
import re
import unittest

from ..core import paths
from ..core import prose

DESIGN = os.path.join(paths.ROOT, "docs", "DESIGN.md")


def design():
    with open(DESIGN, encoding="utf-8") as f:
        return f.read()


class DesignProseTest(unittest.TestCase):
    def test_no_sentence_of_the_design_is_long(self):
        text = design()
        self.assertGreaterEqual(len(prose.sentences(text)), 500)
        long = ["%d words: %s" % (n, s) for n, s in prose.long_sentences(text)]
        self.assertEqual(long, [], "\n".join(long))

    def test_the_cited_sections_keep_their_numbers(self):
        numbers = [int(n) for n in re.findall(r"^## (\d+)\. ", design(), re.M)]
        self.assertEqual(numbers, list(range(1, 12)))


if __name__ == "__main__":
    unittest.main()
