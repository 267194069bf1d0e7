"""test_charts.py -- the shared pieces of the charts (runner/report/charts/style.py,
layout.py, rundata.py): the check of a rendered figure finds overlapping and
clipped texts, the same-language ratio picks a baseline of the row's own
language, panels keep whole-process timings apart and the suite's style order
in every language, and times are per operation; the headline of a run with many variants stays within 1000 x 1200
px, one variant per language, style and mode, and the ratio chart keeps the
others."""
import os
import unittest

from ..catalog import catalog
from ..report import charting
from ..analysis import runfolder
from ..report.charts import figure
from ..report.charts import layout
from ..report.charts import scaling
from ..report.charts import style as st
from ..report.charts import where_time_chart as where_time


def row(vid, **kw):
    """A summary row of variant id vid (<workload>/<lang>/<style>[-...]-<mode>@<backend>)."""
    w, lang, rest = vid.split("/", 2)
    name, _, backend = rest.partition("@")
    parts = name.split("-")
    r = {"variant": vid, "label": "%s/%s" % (lang, rest), "workload": w, "lang": lang,
         "style": parts[0], "shape": "", "mode": parts[-1], "method": "inprocess",
         "backend": backend, "iterations": 1000}
    r.update(kw)
    return r


class CheckFigure(unittest.TestCase):
    def figure(self):
        fig = st.plt.figure(figsize=(st.WIDTH_IN, 3), dpi=st.DPI)
        self.addCleanup(st.plt.close, fig)
        return fig

    def test_two_texts_apart_pass(self):
        fig = self.figure()
        fig.text(0.1, 0.5, "left")
        fig.text(0.7, 0.5, "right")
        check = figure.check_figure(fig)
        self.assertEqual(check["overlaps"], [])
        self.assertEqual(check["outside"], [])
        self.assertEqual(check["texts"], 2)

    def test_two_texts_on_each_other_are_reported(self):
        fig = self.figure()
        fig.text(0.1, 0.5, "a long label here")
        fig.text(0.15, 0.5, "another")
        self.assertEqual(figure.check_figure(fig)["overlaps"], [["a long label here", "another"]])

    def test_a_text_beyond_the_edge_is_reported(self):
        fig = self.figure()
        fig.text(0.95, 0.5, "cut off at the right edge")
        self.assertEqual(figure.check_figure(fig)["outside"], ["cut off at the right edge"])

    def test_tick_labels_out_of_view_do_not_count(self):
        fig = self.figure()
        ax = fig.add_axes([0.2, 0.2, 0.6, 0.6])
        ax.set_xticks([0, 0.5, 1, 5, 10])
        ax.set_xticklabels(["0", "0.5", "1", "five", "ten"])
        ax.set_xlim(0, 1)         # after the ticks: set_xticks widens the view to them
        texts = [t.get_text() for t in figure._drawn_texts(fig, fig.canvas.get_renderer())]
        self.assertNotIn("ten", texts)
        self.assertIn("0.5", texts)

    def test_smallest_text_at_githubs_width(self):
        fig = self.figure()
        fig.text(0.1, 0.5, "small", fontsize=8)
        check = figure.check_figure(fig)
        self.assertEqual(check["width_px"], 1000)
        self.assertAlmostEqual(check["smallest_pt_at_github"], 8 * st.DPI / 96.0 * 0.88, 2)


class SameLanguage(unittest.TestCase):
    def test_node_uses_its_same_language_ratio(self):
        r = row("w/node/await-parallel@p", baseline="w/c/callback-parallel@x", ratio=4.5,
                lang_baseline="w/node/callback-parallel@y", lang_ratio=2.8, lang_ratio_ci_low=2.5,
                lang_ratio_ci_high=3.0, lang_significant=True, lang_baseline_label="Node callback")
        q = st.same_language(r)
        self.assertEqual((q["baseline"], q["ratio"], q["low"], q["label"]),
                         ("w/node/callback-parallel@y", 2.8, 2.5, "Node callback"))

    def test_c_uses_its_c_baseline(self):
        r = row("w/c/await-parallel@x", baseline="w/c/callback-parallel@x", ratio=1.01,
                significant=False, baseline_label="C callback")
        q = st.same_language(r)
        self.assertEqual((q["ratio"], q["significant"], q["is_baseline"]), (1.01, False, False))

    def test_a_baseline_of_another_language_only_gives_none(self):
        r = row("w/go/goroutine-parallel@os", baseline="w/c/callback-parallel@x", ratio=0.35)
        self.assertIsNone(st.same_language(r))


class Panels(unittest.TestCase):
    def test_whole_process_timings_get_a_panel_of_their_own(self):
        rows = [row("w/node/callback-sequential@y"),
                row("w/node/callback-nodetest-sequential@y", method="nodetest"),
                row("w/c/callback-parallel@x")]
        titles = [t for t, _ in st.panels(rows)]
        self.assertEqual(titles[0], "sequential")
        self.assertTrue(titles[1].startswith("sequential: whole process"))
        self.assertEqual(titles[2], "parallel")

    def test_every_language_in_the_suites_style_order(self):
        rows = [row("w/node/await-parallel@y"), row("w/c/await-parallel@x"),
                row("w/node/callback-parallel@y"), row("w/c/promise-parallel@x"),
                row("w/c/callback-parallel@x"), row("w/node/promise-parallel@y")]
        (_, got), = st.panels(rows)
        self.assertEqual([st.short_label(r) for r in got],
                         ["c/callback@x", "c/promise@x", "c/await@x",
                          "node/callback@y", "node/promise@y", "node/await@y"])

    def test_legend_reads_row_by_row(self):
        # 5 entries in 3 columns: a legend fills columns first, so the order it
        # is given must be 1 4 2 5 3 for rows "1 2 3" and "4 5".
        self.assertEqual(layout.row_major([1, 2, 3, 4, 5], 3), [1, 4, 2, 5, 3])


class ChartWanted(unittest.TestCase):
    """Which charts the runner draws for a workload's rows."""

    def test_the_headline_needs_a_same_language_ratio(self):
        go = row("w/go/goroutine-parallel@os", baseline="w/c/callback-parallel@x", ratio=0.3)
        self.assertIsNotNone(charting.chart_wanted("ratios:same_language", [go]))
        self.assertIsNone(charting.chart_wanted("ratios:against_baseline", [go]))
        c = row("w/c/await-parallel@x", baseline="w/c/callback-parallel@x", ratio=1.0)
        self.assertIsNone(charting.chart_wanted("ratios:same_language", [go, c]))

    def test_the_claims_chart_needs_one_claim_measured_whole(self):
        cat = catalog.load()
        claim = cat.workloads["readfile"]["claims"]["ratios"][0]
        num = row(claim["num"], n=10)
        den = row(claim["den"], n=10)
        self.assertIsNone(charting.chart_wanted("claims:ratios|absolute", [num, den]))
        self.assertRegex(charting.chart_wanted("claims:ratios", [num]), "no claim's variants")
        self.assertRegex(charting.chart_wanted("claims:ratios", [num, dict(den, n=0)]),
                         "no claim's variants")

    def test_a_summary_field(self):
        self.assertIsNone(charting.chart_wanted("user_ms", [row("w/c/sync-sequential@x",
                                                               user_ms=1.0)]))
        self.assertEqual(charting.chart_wanted("user_ms", [row("w/c/sync-sequential@x")]),
                         "no variant has a user ms")


class Units(unittest.TestCase):
    def test_per_operation(self):
        self.assertEqual(st.per_op_ns(row("w/c/sync-sequential@x", iterations=10000), 1.0), 100.0)

    def test_unit_suits_the_median(self):
        self.assertEqual(st.time_unit([50.0, 80.0, 900.0])[0], "ns")
        self.assertEqual(st.time_unit([5e3, 12e3, 130e3])[0], "µs")
        self.assertEqual(st.time_unit([2e6, 3e6])[0], "ms")


class WhereTime(unittest.TestCase):
    """where_time_chart.py's split of a variant's time on its backend."""

    def rows(self):
        acc = lambda user_ns: {"user_ns": user_ns, "cpu_ns": user_ns * 2}  # noqa: E731
        # µs per operation: floor 10 (user 2), callback 15, await 18.
        return [row("w/c/sync-sequential@node4", median_ms=10.0, accounting=acc(2000.0)),
                row("w/c/callback-sequential@node4", median_ms=15.0),
                row("w/c/await-sequential@node4", median_ms=18.0),
                row("w/c/callback-parallel@node4", median_ms=4.0),
                row("w/c/await-sequential@uring", median_ms=3.0)]

    def test_the_parts_add_up_to_the_variants_time(self):
        rows = self.rows()
        parts = where_time.split(rows[2], rows)
        self.assertAlmostEqual(parts["syscalls"], 8.0)
        self.assertAlmostEqual(parts["verify"], 2.0)
        self.assertAlmostEqual(parts["handoff"], 5.0)
        self.assertAlmostEqual(parts["style"], 3.0)
        self.assertAlmostEqual(sum(parts.values()), 18.0)

    def test_a_variant_faster_than_the_floor_shows_part_of_it(self):
        rows = self.rows()
        parts = where_time.split(rows[3], rows)
        self.assertAlmostEqual(sum(parts.values()), 4.0)
        self.assertEqual((parts["handoff"], parts["style"]), (0.0, 0.0))

    def test_without_a_floor_the_time_is_not_split(self):
        rows = self.rows()
        self.assertEqual(where_time.split(rows[4], rows)["rest"], 3.0)

    def test_a_backend_takes_the_floor_the_catalog_names_for_it(self):
        rows = self.rows() + [row("w/c/callback-sequential@fused", median_ms=12.0),
                              row("w/c/await-sequential@fused", median_ms=14.0)]
        self.assertEqual(where_time.split(rows[6], rows)["rest"], 14.0)
        parts = where_time.split(rows[6], rows, {"fused": "node4"})
        self.assertEqual(parts["rest"], 0.0)
        self.assertAlmostEqual(parts["syscalls"] + parts["verify"], 10.0)
        self.assertAlmostEqual(parts["handoff"], 2.0)
        self.assertAlmostEqual(parts["style"], 2.0)

    def test_readfile_names_node4_as_the_floor_of_fused_and_inline(self):
        self.assertEqual(where_time.floors("test", "readfile"), {"fused": "node4", "inline": "node4"})
        self.assertEqual(where_time.floors("test", "noop"), {})


class LogTicks(unittest.TestCase):
    """A narrow log axis keeps its tick labels apart."""

    def test_a_narrow_panel_of_a_wide_span_labels_ticks_60_px_apart(self):
        import json
        import tempfile
        rows = [row("w/c/callback-sequential@fused"), row("w/node/await-sequential@y")]
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "narrow.png")
            p = layout.Panels("test", out, "claims", "w", "a title", [("per op", rows)], "us")
            ax = p.axes[0]
            for k, v in enumerate((0.032, 1.3)):
                ax.plot([v], [k], marker="o")
                # A long value on the right leaves the plot about 180 px (the
                # seed run's cacheloop claims chart, where 0.05 sat on 0.1).
                p.value(0, k, "claim 0.308 us; here 0.0324 us (0.0581 us) and more words")
            layout.log_limits(ax, [0.032, 1.3], pad=1.3)
            layout.plain_log_axis(ax)
            self.assertEqual(p.finish(), 0)
            with open(os.path.join(d, "narrow.json"), encoding="utf-8") as f:
                side = json.load(f)
            ticks = [t for t in ax.get_xticks() if ax.get_xlim()[0] <= t <= ax.get_xlim()[1]]
        st.plt.close(p.fig)
        self.assertEqual((side["layout"]["overlaps"], side["layout"]["outside"]), ([], []))
        self.assertNotIn(0.05, ticks)
        self.assertGreaterEqual(len(ticks), 2)


class LinePanels(unittest.TestCase):
    """A chart of line panels (the scaling charts) passes the same check."""

    def test_variants_alike_get_other_fills(self):
        rows = [row("w/c/callback-sequential@fused"), row("w/c/callback-sequential@node4"),
                row("w/c/callback-parallel@node4"), row("w/node/callback-sequential@y")]
        self.assertEqual(list(scaling.fills(rows).values()), ["full", "none", "full", "full"])

    def test_a_chart_of_lines_lays_out_cleanly(self):
        import json
        import tempfile
        rows = [row("w/c/callback-sequential@fused"), row("w/node/await-sequential@y")]
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "lines.png")
            p = layout.Panels("test", out, "lines", "w", "a title", [("time", rows)], "N",
                          [scaling.line_handle(r, "full") for r in rows], "a note", lines=True)
            for k, r in enumerate(rows):
                p.axes[0].plot([100, 1000, 10000], [k + 1, k + 2, k + 3])
                p.point(0, r, 1.0, x=100)
            p.axes[0].set_xscale("log")
            p.axes[0].set_yscale("log")
            layout.plain_log_axis(p.axes[0], "y")
            self.assertEqual(p.finish(), 0)
            with open(os.path.join(d, "lines.json"), encoding="utf-8") as f:
                side = json.load(f)
        st.plt.close(p.fig)
        self.assertEqual(side["variants"], sorted(r["variant"] for r in rows))
        self.assertEqual((side["layout"]["overlaps"], side["layout"]["outside"]), ([], []))
        self.assertEqual(side["layout"]["width_px"], 1000)


if __name__ == "__main__":
    unittest.main()


def png_size(path):
    """(width, height) of a PNG, from its IHDR chunk."""
    import struct
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR", path
    return struct.unpack(">II", head[16:24])


def rated(vid, base, lang_base=None, ratio=1.1, **kw):
    """A measured row with its ratio to base (C's) and, for Go and Node, to
    lang_base (its own language's)."""
    r = row(vid, n=10, median_ms=1.0, baseline=base, baseline_label="C callback",
            ratio=ratio, ratio_ci_low=ratio / 1.05, ratio_ci_high=ratio * 1.05,
            significant=True, **kw)
    if lang_base:
        r.update(lang_baseline=lang_base, lang_baseline_label="own callback", lang_ratio=ratio,
                 lang_ratio_ci_low=ratio / 1.05, lang_ratio_ci_high=ratio * 1.05,
                 lang_significant=False)
    return r


def readfile_shaped():
    """A readfile-shaped run's rows: C's styles on four backends in three modes,
    Go, Node on several file readers, and Node timed as whole processes too."""
    rows = []
    for mode in ("sequential", "parallel", "bounded"):
        for backend in ("node4", "fused", "inline", "uring"):
            base = "readfile/c/callback-%s@%s" % (mode, backend)
            styles = ["callback", "promise", "await", "fiber", "stackless"]
            styles += ["sync"] if mode == "sequential" else []
            for style in styles:
                rows.append(rated("readfile/c/%s-%s@%s" % (style, mode, backend), base))
            if mode == "parallel":
                rows.append(rated("readfile/c/promise-counter-%s@%s" % (mode, backend), base,
                                  shape="counter"))
        c = "readfile/c/callback-%s@node4" % mode
        for backend in ("fs.readFile", "fs.readFile.uring"):
            nb = "readfile/node/callback-%s@%s" % (mode, backend)
            rows.append(rated(nb, c, nb))
        nb = "readfile/node/callback-%s@fs.readFile" % mode
        for style, backend in (("await", "fs.promises"), ("await", "promisify"),
                               ("promise", "fs.promises")):
            rows.append(rated("readfile/node/%s-%s@%s" % (style, mode, backend), c, nb))
        nt = "readfile/node/callback-nodetest-%s@fs.readFile" % mode
        rows.append(rated(nt, c, nt, method="nodetest"))
        rows.append(rated("readfile/node/await-nodetest-%s@fs.promises" % mode, c, nt,
                          method="nodetest"))
        go = "readfile/go/sync-%s@os.ReadFile" % mode
        rows.append(rated(go, c, go))
        rows.append(rated("readfile/go/goroutine-%s@os.ReadFile" % mode, c, go))
    return rows


class Headline(unittest.TestCase):
    """headline_chart.py: one question in at most 1000 x 1200 px, one variant
    per language, style and mode; the ratio chart keeps every variant."""

    def draw(self, chart, rows, workload="readfile"):
        import json
        import tempfile
        d = tempfile.mkdtemp()
        self.addCleanup(__import__("shutil").rmtree, d)
        out = os.path.join(d, "%s-%s.png" % (chart.PROG.split("_")[0], workload))
        chart.draw(runfolder.RunFolder(d, {"run": {}, "host": {}, "variants": rows}), workload, out)
        with open(out[:-len(".png")] + ".json", encoding="utf-8") as f:
            return png_size(out), json.load(f)

    def test_the_headline_of_many_variants_fits_and_the_ratio_chart_keeps_them(self):
        from ..report.charts import headline_chart, ratio_chart
        rows = readfile_shaped()
        self.assertGreater(len(rows), 80)
        (width, height), side = self.draw(headline_chart, rows)
        self.assertLessEqual(width, 1000)
        self.assertLessEqual(height, 1200)
        self.assertEqual(side["layout"]["overlaps"], [])
        self.assertEqual(side["layout"]["outside"], [])
        omitted = {o["variant"]: o["why"] for o in side["omitted"]}
        left_out = "readfile/c/await-sequential@uring"
        self.assertNotIn(left_out, side["variants"])
        self.assertEqual(omitted[left_out], headline_chart.OTHER_BACKENDS)
        self.assertTrue(omitted["readfile/node/await-nodetest-parallel@fs.promises"]
                        .startswith(headline_chart.OTHER_METHODS))
        # Every variant is drawn or named as left out, with its reason.
        self.assertEqual(set(side["variants"]) | set(omitted), {r["variant"] for r in rows})
        # One variant per language, style (and shape) and mode.
        by = {}
        for p in side["points"]:
            by.setdefault((p["panel"], p["row"]), []).append(p["variant"])
        self.assertTrue(all(len(v) == 1 for v in by.values()), by)
        _, ratio = self.draw(ratio_chart, rows)
        self.assertIn(left_out, ratio["variants"])
        self.assertEqual(set(ratio["variants"]), {r["variant"] for r in rows})

    def test_the_catalog_names_the_backend_else_the_baselines(self):
        from ..report.charts import headline_chart as hc
        rows = readfile_shaped()
        shown, _ = hc.choose(rows, ["node4", "fs.readFile", "fs.promises"])
        got = {v["variant"] for v in shown}
        self.assertIn("readfile/c/await-bounded@node4", got)
        self.assertIn("readfile/node/await-parallel@fs.promises", got)
        self.assertNotIn("readfile/node/await-parallel@promisify", got)
        self.assertIn("readfile/node/callback-sequential@fs.readFile", got)
        # Without a preference: the backend of the variant's baseline.
        shown, _ = hc.choose([r for r in rows if r["lang"] == "node"], [])
        got = {v["variant"] for v in shown}
        self.assertIn("readfile/node/callback-parallel@fs.readFile", got)
        self.assertNotIn("readfile/node/callback-parallel@fs.readFile.uring", got)
        # readfile's catalog file names C's node4 and Node's readers.
        self.assertEqual(hc.preferred_backends(runfolder.RunFolder("", {}), "readfile")[:1], ["node4"])

    def test_many_rows_shrink_to_fit(self):
        from ..report.charts import headline_chart
        rows = []
        for mode in ("sequential", "parallel", "bounded"):
            base = "w/c/callback-%s@x" % mode
            rows.append(rated(base, base))
            for k in range(24):
                rows.append(rated("w/c/await-s%d-%s@x" % (k, mode), base, shape="s%d" % k))
        (width, height), side = self.draw(headline_chart, rows, "w")
        self.assertLessEqual(width, 1000)
        self.assertLessEqual(height, 1200)
        self.assertEqual(side["layout"]["overlaps"], [])
        self.assertEqual(len(side["points"]), len(rows))

    def test_a_runtimes_run_shows_the_newest_version_of_each_language(self):
        from ..report.charts import headline_chart
        rows = []
        for v in ("10.24.1", "20.8.0", "24.22.3"):
            base = "readfile/node@%s/callback-parallel@fs.readFile" % v
            for style in ("callback", "promise", "await"):
                rows.append(rated("readfile/node@%s/%s-parallel@fs.readFile" % (v, style), None,
                                  base, runtime=v, lang="node",
                                  label="node@%s/%s-parallel@fs.readFile" % (v, style)))
        (width, height), side = self.draw(headline_chart, rows)
        self.assertLessEqual(width, 1000)
        self.assertLessEqual(height, 1200)
        self.assertEqual({v.split("/")[1] for v in side["variants"]}, {"node@24.22.3"})
        self.assertEqual(len(side["omitted"]), 6)
        self.assertTrue(all(o["why"].startswith(headline_chart.OTHER_RUNTIMES)
                            for o in side["omitted"]))
