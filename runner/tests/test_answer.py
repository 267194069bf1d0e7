"""Unit tests of runner/report/answer.py (the summary table and a sentence per
language), runner/core/prose.py (sentence length), and the compact terminal table
and output width of runner/analysis/tables.py, on hand-made rows and on the committed
reference runs."""
import glob
import io
import json
import os
import re
import unittest
from unittest import mock

from ..report import answer
from ..core import prose
from ..report import report
from ..analysis import summary as sm
from ..analysis import tables
from .test_summary import CB, baselines, sample
from ..core import paths

ROOT = paths.ROOT
REFERENCE = sorted(glob.glob(os.path.join(ROOT, "results", "reference", "*", "*",
                                          "summary.json")))
AW = "readfile/c/await-sequential@node4"
SY = "readfile/c/sync-sequential@node4"
NCB = "readfile/node/callback-sequential@fs.readFile"
NAW = "readfile/node/await-sequential@fs.promises"
RCB = "readfile/rust/callback-sequential@std"
RAW = "readfile/rust/await-sequential@tokio"


def rows_of(spec, rounds=10):
    """Summary rows of variants whose time per round is base(round) * factor; a
    rust variant is compared with the rust callback (a language the runner's
    code names nowhere)."""
    table = baselines([v for v, _ in spec])
    for vid in table:
        if "/rust/" in vid:
            table[vid]["lang"] = [RCB, "Rust callback"]
    samples = [sample(r, v, (10 + r % 3) * f) for r in range(1, rounds + 1) for v, f in spec]
    return sm.summarize(samples, table)


def reference():
    """(path, summary) of every committed reference run."""
    for path in REFERENCE:
        with open(path, encoding="utf-8") as f:
            yield path, json.load(f)


def width(text):
    return max(len(line) for line in text.split("\n"))


class AnswerTest(unittest.TestCase):
    def test_a_language_the_code_does_not_name_is_a_column_and_a_sentence(self):
        rows = rows_of([(CB, 1), (AW, 2), (NCB, 3), (NAW, 6), (RCB, 1), (RAW, 1.5)])
        self.assertEqual([n for _, n in answer.languages(rows)], ["C", "Node", "Rust"])
        head, rule, row = answer.table(rows)
        self.assertEqual(head, "| workload | C (vs C callback) | Node (vs Node callback) | "
                               "Rust (vs Rust callback) |")
        self.assertEqual(rule, "|---|---|---|---|")
        self.assertEqual(row.count(" | "), 3)
        self.assertEqual(row.rstrip(" |").split(" | ")[-1],
                         "`await@tokio` 1.50x <sub>[1.50, 1.50]</sub> 165 µs")
        said = answer.sentences(rows)
        self.assertEqual(len(said), 3)
        self.assertEqual(said[2], "In Rust, 1 of 1 variants ran resolvably slower than Rust "
                                  "callback, by up to 1.50x (`await` in readfile, +55.0 µs per "
                                  "operation).")

    def test_a_cell_gives_the_cheapest_and_the_dearest_with_ratio_interval_and_time(self):
        pr = "readfile/c/promise-sequential@node4"
        rows = rows_of([(CB, 1), (AW, 2), (pr, 4), (SY, 1.0)])
        (_, _, row), = [answer.table(rows)]
        cell = row.rstrip(" |").split(" | ")[1]
        self.assertEqual(cell, "cheapest `sync` ~ 1.00x <sub>[1.00, 1.00]</sub> 110 µs<br>"
                               "dearest `promise` 4.00x <sub>[4.00, 4.00]</sub> 440 µs")
        self.assertIn("`~`: not resolvably different from the baseline.", answer.legend(rows))
        self.assertEqual(answer.sentences(rows), [
            "In C, 2 of 3 variants ran resolvably slower than C callback, by up to 4.00x "
            "(`promise` in readfile, +330 µs per operation)."])

    def test_a_language_without_a_comparison_in_a_workload_is_a_dash(self):
        rows = rows_of([(CB, 1), (AW, 2), (NCB, 3)])
        self.assertEqual([n for _, n in answer.languages(rows)], ["C"])
        rows += [dict(r, workload="other") for r in rows_of([(NCB, 1), (NAW, 2)])]
        lines = answer.table(rows)
        self.assertEqual(len(lines), 4)
        self.assertTrue(lines[3].startswith("| **readfile**") and lines[3].endswith("| - |"),
                        lines[3])
        self.assertIn("-: no style of that language was compared with its baseline.",
                      answer.legend(rows))

    def test_nothing_compared_is_no_summary(self):
        self.assertEqual(answer.markdown(rows_of([(CB, 1), (NCB, 2)])), [])
        self.assertEqual(report.summary_section(rows_of([(CB, 1)])), [])

    def test_the_reference_runs_summary_has_a_row_per_workload_compared(self):
        for path, s in reference():
            rows = s["variants"]
            compared = {e["workload"] for e in s["headline"] if not e["is_baseline"]
                        and e["method"] == "inprocess" and e["ratio"] is not None}
            t = answer.table(rows)
            if not compared:
                self.assertEqual(t, [], path)
                continue
            self.assertEqual(sorted(re.findall(r"^\| \*\*(\S+)\*\*", "\n".join(t), re.M)),
                             sorted(compared), path)
            for text in answer.sentences(rows):
                self.assertEqual(prose.long_sentences(text), [], text)


class ProseTest(unittest.TestCase):
    def test_a_long_sentence_is_found_and_a_short_one_is_not(self):
        long = " ".join(["word"] * 26) + "."
        self.assertEqual(prose.long_sentences(long), [(26, long)])
        self.assertEqual(prose.long_sentences(" ".join(["word"] * 25) + "."), [])

    def test_figures_tables_code_and_headings_are_not_words(self):
        self.assertEqual(prose.words("`promise` ran 15.9x [13.0, 19.3] slower (+7.44 µs per "
                                     "repetition)."), 5)
        text = "\n".join(["# " + "heading " * 30, "", "| " + "cell " * 30 + "|", "",
                          "```", "code " * 30, "```", "", "One. Two three. " + "X " * 3])
        self.assertEqual(prose.sentences(text), ["One.", "Two three.", "X X X"])
        self.assertEqual(prose.long_sentences(text), [])

    def test_bullets_and_questions_end_sentences(self):
        text = "**Is it?** Yes it is.\n- first\n  - second one"
        self.assertEqual(prose.sentences(text), ["**Is it?**", "Yes it is.", "first",
                                                 "second one"])

    def test_the_command_line_exits_1_on_a_long_sentence(self):
        import tempfile
        with tempfile.NamedTemporaryFile("w", suffix=".md", delete=False) as f:
            f.write(" ".join(["word"] * 30) + ".\n")
        try:
            with mock.patch("sys.stdout", io.StringIO()) as out:
                self.assertEqual(prose.main([f.name]), 1)
            self.assertIn("30 words", out.getvalue())
            with mock.patch("sys.stdout", io.StringIO()):
                self.assertEqual(prose.main(["--max", "30", f.name]), 0)
        finally:
            os.unlink(f.name)


class GeneratedProseTest(unittest.TestCase):
    """The README's answer and the opening of every reference run's REPORT.md
    (the summary, the targets and the findings) keep each sentence to 25 words."""

    def test_the_readme_answer_has_no_long_sentence(self):
        with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
            text = f.read()
        top = text[:text.index("## Two commands")]
        self.assertIn("<!-- answer:begin -->", top)
        self.assertGreaterEqual(len(prose.sentences(top)), 5)
        self.assertEqual(prose.long_sentences(top), [])

    def test_no_sentence_of_the_readme_is_long(self):
        with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
            self.assertEqual(prose.long_sentences(f.read()), [])

    def test_the_reports_opening_has_no_long_sentence(self):
        seen = 0
        for path, _ in reference():
            with open(os.path.join(os.path.dirname(path), "REPORT.md"), encoding="utf-8") as f:
                text = f.read()
            opening = text[:text.index("\n## Reproduce")]
            self.assertEqual(prose.long_sentences(opening), [], path)
            seen += 1
        self.assertGreaterEqual(seen, 1)


def _strings(value):
    """Every string inside a JSON value."""
    if isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)
    elif isinstance(value, str):
        yield value


def recorded_sentences(catalog_dir):
    """The sentences of the claims' text in a catalog folder (a run's snapshot,
    or catalog/), placeholders filled as reproduce.py fills them: text a run
    recorded, which its REPORT.md shows verbatim."""
    out = set()
    for path in glob.glob(os.path.join(catalog_dir, "*.json")):
        with open(path, encoding="utf-8") as f:
            claims = json.load(f).get("claims")
        if not isinstance(claims, dict):
            continue
        fill = {"{iterations}": format(claims.get("iterations", 0), ","),
                "{host}": str(claims.get("host"))}
        for text in _strings(claims):
            for k, v in fill.items():
                text = text.replace(k, v)
            out.update(prose.sentences(text))
    return out


REPORTS = sorted(glob.glob(os.path.join(ROOT, "results", "reference", "*", "*", "REPORT.md")))


class WholeReportProseTest(unittest.TestCase):
    """Every sentence of every reference REPORT.md and of docs/results.md keeps
    to 25 words, the claims' text of the runs' catalog snapshots included (the
    older runs' snapshots carry today's wording of the same claims)."""

    def test_every_sentence_of_every_reference_report(self):
        self.assertGreaterEqual(len(REPORTS), 3)
        for path in REPORTS:
            with open(path, encoding="utf-8") as f:
                text = f.read()
            self.assertEqual(prose.long_sentences(text), [], path)

    def test_every_sentence_of_docs_results(self):
        with open(os.path.join(ROOT, "docs", "results.md"), encoding="utf-8") as f:
            text = f.read()
        self.assertGreaterEqual(len(prose.sentences(text)), 100)
        self.assertEqual(prose.long_sentences(text), [])

    def test_todays_catalog_claims_have_no_long_sentence(self):
        recorded = recorded_sentences(os.path.join(ROOT, "catalog"))
        self.assertGreaterEqual(len(recorded), 50)
        self.assertEqual([s for s in recorded if prose.words(s) > prose.MAX_WORDS], [])

    def test_recorded_clauses_are_shown_as_sentences_whole(self):
        # A skip reason run.json recorded before its catalog text was split.
        why = ("needs node 10.12.0 or later: the programs are ES modules that use import.meta, "
               "a BigInt clock (process.hrtime.bigint) and createRequireFromPath; Node 8's "
               "flagged ES modules have no import.meta (SyntaxError: Unexpected token .) and "
               "Node 8 has no BigInt")
        self.assertEqual(len(prose.long_sentences(why)), 1)
        shown = prose.clauses_as_sentences(why)
        self.assertEqual(shown.replace(". Node 8's", "; Node 8's"), why)
        self.assertEqual(prose.long_sentences(shown), [])
        self.assertEqual(prose.clauses_as_sentences("no clause at all"), "no clause at all")

    def test_the_check_fails_on_a_long_sentence_in_a_report(self):
        long = "The seed profile " + " ".join(["runs"] * 30) + "."
        text = "## Method\n\n- %s Short one.\n\n| %s |\n" % (long, long)
        self.assertEqual(prose.long_sentences(text), [(33, long)])
        with open(REPORTS[0], encoding="utf-8") as f:
            report = f.read()
        self.assertEqual(prose.long_sentences(report + "\n\n%s\n" % long), [(33, long)])


class CompactTableTest(unittest.TestCase):
    def test_the_reference_runs_default_table_fits_100_columns(self):
        seen = 0
        for path, s in reference():
            rows = s["variants"]
            compact = tables.compact_table(rows, 100)
            self.assertLessEqual(width(compact), 100, path)
            labels = [line.split()[0] for line in compact.split("\n")
                      if line.split() and "/" in line.split()[0] and "@" in line.split()[0]]
            self.assertEqual(sorted(labels), sorted(r["label"] for r in rows), path)
            seen += 1
        # The wide table of the same run does not fit: the test tells them apart.
        rows = json.load(open(REFERENCE[0], encoding="utf-8"))["variants"]
        self.assertGreater(width(tables.terminal_table(rows)), 100)
        self.assertGreaterEqual(seen, 1)

    def test_a_row_shows_variant_n_time_and_its_own_languages_ratio(self):
        rows = rows_of([(CB, 1), (AW, 2), (NCB, 3), (NAW, 6)])
        text = tables.compact_table(rows, 100)
        self.assertRegex(text, r"(?m)^variant +n +µs/operation +vs own baseline$")
        self.assertRegex(text, r"(?m)^node/await-sequential@fs\.promises +10 +660 +"
                               r"2\.00x \[2\.00-2\.00\]$")
        self.assertRegex(text, r"(?m)^c/await-sequential@node4 +10 +220 +2\.00x \[2\.00-2\.00\]$")
        self.assertIn("ratio: time over the baseline of the variant's own language (C callback, "
                      "Node callback)", text)

    def test_the_legend_wraps_at_the_width_given(self):
        rows = rows_of([(CB, 1), (AW, 2)])
        for w in (40, 60, 100):
            legend = tables.compact_table(rows, w).split("\n")[-3:]
            self.assertLessEqual(width("\n".join(legend)), w)

    def test_the_output_width_is_columns_then_the_terminal_then_100(self):
        class Pipe(io.StringIO):
            def isatty(self):
                return False
        with mock.patch.dict(os.environ, {"COLUMNS": "72"}):
            self.assertEqual(tables.output_width(Pipe()), 72)
        env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
        with mock.patch.dict(os.environ, env, clear=True):
            self.assertEqual(tables.output_width(Pipe()), 100)
        with mock.patch.dict(os.environ, {"COLUMNS": "junk"}):
            self.assertEqual(tables.output_width(Pipe()), 100)

    def test_a_wrapped_line_keeps_its_indent_and_its_words(self):
        line = "  " + " ".join("w%d" % i for i in range(60))
        out = tables.wrap(line, 50, "  ")
        self.assertTrue(all(len(l) <= 50 for l in out))
        self.assertTrue(out[0].startswith("  w0") and all(l.startswith("    ") for l in out[1:]))
        self.assertEqual(" ".join(l.strip() for l in out), line.strip())


if __name__ == "__main__":
    unittest.main()
