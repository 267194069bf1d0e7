#!/usr/bin/env bats
# charts.bats -- what a reader sees in the charts, checked from the charts
# themselves: the committed reference runs (of each host under results/, the
# newest run of the default profile, every workload's charts, and of each
# other profile, its seed claims' charts, or a runtimes run's claims on each
# version, or every chart when its workloads ask no claim), a made-up wide workload
# (tests/fixtures-bin/chart-run), a run of the fake catalog and a sweep of its
# scaling profile are drawn into a scratch folder,
# and every chart's sidecar JSON (charts/<chart>-<workload>.json: what it
# plotted, and the check of its rendered figure: text boxes measured by the
# renderer after drawing) is held against the run's summary and the catalog.

load test_helper

setup_file() {
  export RUNS="${BATS_FILE_TMPDIR}/runs"
  mkdir -p "$RUNS"
  # The committed runs (results/<host>/<stamp>/, or under results/reference/),
  # copied without their charts: of each host the newest of each profile
  # (newest_runs).  Committed: git's list, so that a local run in the same
  # folders (ignored by git) is not taken.  The default profile's is redrawn
  # whole: every workload, as a reader of the README sees them; another
  # profile's (seed) only its seed claims' charts, the rest being the same
  # charts of fewer workloads.
  local profile newest dest
  if git -C "$ROOT" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git -C "$ROOT" ls-files -- results | sed "s|^|${ROOT}/|"
  else
    find "${ROOT}/results" -mindepth 3 -maxdepth 4 -name samples.csv
  fi | grep '/samples\.csv$' | grep -v -e '/latest/' -e '/micro-' \
    | sed 's|/samples.csv$||' | newest_runs | while read -r profile newest; do
    dest="${RUNS}/$(basename "$(dirname "$newest")")/$(basename "$newest")"
    mkdir -p "$dest"
    cp "${newest}"/samples.csv "${newest}"/*.json "$dest"/
    # A run of another profile whose workloads ask no seed claim (the tasks run
    # at N = 1,000,000 that docs/results.md shows) is redrawn whole too.
    if [ "$profile" = default ] || ! "$PYTHON" -c 'import json, sys
ws = json.load(open(sys.argv[1]))["workloads"]
sys.exit(0 if any(json.load(open("%s/catalog/%s.json" % (sys.argv[2], w))).get("claims")
                  for w in ws) else 1)' "$dest/run.json" "$ROOT"; then
      "$PYTHON" -m runner --render "$dest" > "${dest}.out" 2>&1 || echo "render failed: $dest" >> "${RUNS}/failures"
      continue
    fi
    "$PYTHON" -m runner --render "$dest" --no-charts > "${dest}.out" 2>&1 || echo "render failed: $dest" >> "${RUNS}/failures"
    mkdir -p "$dest/charts"
    # Each chart's command for each workload, in one process (a process each
    # spent most of its time starting Python and matplotlib).  A workload
    # without such claims has no such chart: its command says so and returns 1.
    PYTHONPATH="$ROOT" "$PYTHON" - "$dest" >> "${dest}.out" 2>&1 <<'PY' || echo "claims charts failed: $dest" >> "${RUNS}/failures"
import json, sys
from runner.report import charting
dest = sys.argv[1]
for w in sorted(json.load(open(dest + "/run.json"))["workloads"]):
    for chart in ("claims", "gap", "runtimes"):
        charting.chart_module(chart + "_chart").main(
            [dest, "--workload", w, "-o", "%s/charts/%s-%s.png" % (dest, chart, w)])
PY
    # A runtimes-profile run has its claims on each version (runtimes-*), no other.
    compgen -G "$dest/charts/claims-*.png" >/dev/null || compgen -G "$dest/charts/runtimes-*.png" >/dev/null \
      || echo "no claims chart of $dest" >> "${RUNS}/failures"
  done
  # A made-up wide workload: three backends, shapes, whole-process timings, ns.
  "$PYTHON" "${ROOT}/tests/fixtures-bin/chart-run" "${RUNS}/made-up/manyrows"
  "$PYTHON" -m runner --render "${RUNS}/made-up/manyrows" > "${RUNS}/made-up.out" 2>&1 \
    || echo "render failed: made-up" >> "${RUNS}/failures"
  # The same made-up run's summary as a second host's, and the charts across the two.
  mkdir -p "${RUNS}/across/made-up-too/manyrows" "${RUNS}/across/hosts/charts"
  "$PYTHON" -c 'import json, sys
s = json.load(open(sys.argv[1])); s["host"]["slug"] = "made-up-too"
json.dump(s, open(sys.argv[2], "w"))' "${RUNS}/made-up/manyrows/summary.json" \
    "${RUNS}/across/made-up-too/manyrows/summary.json"
  for kind in ms ratio; do
    "$PYTHON" -m runner.report.charts.hosts_chart "${RUNS}/made-up/manyrows" "${RUNS}/across/made-up-too/manyrows" \
      --kind "$kind" -o "${RUNS}/across/hosts/charts/hosts-${kind}.png" \
      || echo "hosts chart failed: $kind" >> "${RUNS}/failures"
  done
  # A run of the fake catalog: other languages, one variant per mode.
  if [ -x "${BIN}/launch" ]; then
    "$PYTHON" -m runner --catalog "${ROOT}/tests/fixtures-bin/catalog" --profile quick --rounds 6 \
      --warmup-rounds 0 --iterations 5 --host fake-host --out "${RUNS}/fake" > "${RUNS}/fake.out" 2>&1 \
      || echo "fake run failed" >> "${RUNS}/failures"
    rm -f "${RUNS}/fake/latest"
    # The fake catalog's scaling profile: a sweep of N, K and the threadpool's
    # size, for the scaling charts.
    "$PYTHON" -m runner --catalog "${ROOT}/tests/fixtures-bin/catalog" --profile scaling --node none \
      --seed 5 --host fake-sweep --out "${RUNS}/sweep" > "${RUNS}/sweep.out" 2>&1 \
      || echo "fake sweep failed" >> "${RUNS}/failures"
    rm -f "${RUNS}/sweep/latest"
  fi
}

# newest_runs -- of the run folders on stdin (one a line), the newest of each
# host (its parent folder) and profile (its run.json), one "PROFILE FOLDER" a line.
newest_runs() {
  "$PYTHON" -c 'import json, os, sys
newest = {}
for d in sorted(l.strip() for l in sys.stdin if l.strip()):
    try:
        profile = json.load(open(os.path.join(d, "run.json"))).get("profile") or "default"
    except (OSError, ValueError):
        profile = "default"
    newest[(os.path.dirname(d), profile)] = d
for (_, profile), d in sorted(newest.items()):
    print(profile, d)'
}

# sidecars -- every chart's sidecar JSON of the redrawn runs, one a line.
sidecars() { find "$RUNS" -path '*/charts/*.json' | sort; }

@test "every run was redrawn and every chart has its sidecar" {
  [ ! -f "${RUNS}/failures" ] || { cat "${RUNS}/failures"; false; }
  n=0
  while IFS= read -r png; do
    [ -f "${png%.png}.json" ] || { echo "no sidecar for $png"; false; }
    n=$((n + 1))
  done < <(find "$RUNS" -path '*/charts/*.png')
  [ "$n" -ge 6 ]
  # The sweep's three scaling charts were drawn, and its REPORT.md shows them.
  if [ -d "${RUNS}/sweep" ]; then
    for c in scaling-n scaling-k scaling-env; do
      ls "${RUNS}"/sweep/fake-sweep/*/charts/"${c}-readfile.json" >/dev/null
      grep -q "](charts/${c}-readfile.png)" "${RUNS}"/sweep/fake-sweep/*/REPORT.md
    done
  fi
}

@test "every chart is a PNG of sensible size that REPORT.md shows, and every workload of a redrawn reference run has the charts of every run" {
  run -0 "$PYTHON" - "$RUNS" <<'EOF'
import glob, json, os, sys
runs = sys.argv[1]
n = 0
for png in glob.glob(os.path.join(runs, "**", "charts", "*.png"), recursive=True):
    with open(png, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n", png
    assert 10000 < os.path.getsize(png) < 5000000, (png, os.path.getsize(png))
    n += 1
whole = 0
for report in glob.glob(os.path.join(runs, "**", "REPORT.md"), recursive=True):
    rundir = os.path.dirname(report)
    text = open(report, encoding="utf-8").read()
    if "Charts not drawn" in text:
        continue                # a run only some of whose charts this file draws
    whole += 1
    for png in glob.glob(os.path.join(rundir, "charts", "*.png")):
        if not os.path.basename(png).startswith("hosts-"):
            assert "](charts/%s)" % os.path.basename(png) in text, (report, png)
    workloads = json.load(open(os.path.join(rundir, "summary.json")))["run"].get("workloads") or {}
    for w in workloads:
        for chart in ("headline", "time", "ratio", "distribution", "cpu", "memory"):
            assert os.path.exists(os.path.join(rundir, "charts", "%s-%s.png" % (chart, w))), (rundir, chart, w)
print("%d charts, %d whole runs" % (n, whole))
EOF
  assert_output --regexp '^[0-9]+ charts, [1-9][0-9]* whole runs$'
}

@test "a run without a sweep draws no scaling chart, writes no points.csv and says nothing about it" {
  [ -d "${RUNS}/fake" ] || skip "build/bin/launch is not built (make all)"
  local d
  d=$(ls -d "${RUNS}"/fake/fake-host/*/)
  [ -s "${d}charts/time-readfile.png" ]
  [ -z "$(ls "${d}"charts/scaling-* 2>/dev/null)" ]
  [ ! -e "${d}points.csv" ]
  run ! grep -Ei 'scaling|sweep' "${RUNS}/fake.out"
}

@test "every variant of a run appears in each chart that should show it" {
  # shellcheck disable=SC2046  # one argument a sidecar; the test made their paths (no blanks)
  run -0 "$PYTHON" - $(sidecars) <<'EOF'
import json, os, sys
from runner.catalog import catalog
from runner.report import charting
cat = catalog.load()
needs = {prefix: need for _, prefix, _, need, *_ in charting.CHARTS}
for path in sys.argv[1:]:
    side = json.load(open(path))
    rundir = os.path.dirname(os.path.dirname(path))
    if side["chart"].startswith("hosts-"):
        continue        # across runs: its own test
    rows = [r for r in json.load(open(os.path.join(rundir, "summary.json")))["variants"]
            if r["workload"] == side["workload"]]
    plotted = set(side["variants"])
    omitted = {o["variant"]: o["why"] for o in side["omitted"]}
    assert all(omitted.values()), "%s: an omitted variant without a reason" % path
    assert not plotted & set(omitted), "%s: plotted and omitted: %s" % (path, plotted & set(omitted))
    assert plotted == {p["variant"] for p in side["points"]}, path
    need = needs.get(side["chart"])
    assert need, "%s: chart %s is not in charting.CHARTS" % (path, side["chart"])
    measured = {r["variant"] for r in rows if r.get("n")}
    if need == "versions:claims":
        # The claims on each version: measured variants of pinned versions only.
        assert plotted and plotted <= measured, "%s: drawn but not measured: %s" % (path, plotted - measured)
        assert all("@" in v.split("/")[1] for v in plotted), (path, plotted)
        continue
    if need.startswith("claims:"):
        claims = cat.workloads[side["workload"]]["claims"]
        want = set()
        if side["chart"] == "claims":
            for c in claims.get("ratios", []):
                if {c["num"], c["den"]} <= measured:
                    want |= {c["num"], c["den"]}
            for c in claims.get("absolute", []):
                if c["variant"] in measured:
                    want.add(c["variant"])
        else:
            for d in claims["decomposition"]["rows"]:
                ids = set(d["node"] + d["c"])
                langs = ({v.split("/")[1] for v in d["node"]}, {v.split("/")[1] for v in d["c"]})
                if ids <= measured and len(langs[0]) == len(langs[1]) == 1 and langs[0] != langs[1]:
                    want |= ids
        missing = want - plotted
        assert not missing, "%s: measured but not drawn: %s" % (path, sorted(missing))
        assert plotted <= measured, "%s: drawn but not measured: %s" % (path, plotted - measured)
    else:
        # A ratio chart names each variant it cannot draw (no baseline to divide by).
        if need.startswith("ratios:"):
            need = "median_ms"
        want = {r["variant"] for r in rows if r.get(need) is not None}
        shown = plotted | set(omitted)
        assert shown == want, "%s: missing %s, extra %s" % (path, sorted(want - shown),
                                                            sorted(shown - want))
        # Only a chart of ratios may leave a variant out (no baseline to divide
        # by), the split of C's time every variant but C's, and a sweep's chart a
        # variant with fewer than two points.
        lang = {r["variant"]: r["lang"] for r in rows}
        if side["chart"] == "where":
            assert {v for v in want if lang[v] != "c"} == set(omitted), (path, omitted)
        elif side["chart"].startswith("scaling-"):
            assert all(w.startswith("fewer than two points") for w in omitted.values()), path
        else:
            assert not omitted or needs[side["chart"]].startswith("ratios:"), (path, omitted)
print("checked %d charts" % (len(sys.argv) - 1))
EOF
  assert_output --regexp "^checked [0-9]+ charts$"
}

@test "no two texts of a chart overlap and none leaves the figure" {
  # shellcheck disable=SC2046  # one argument a sidecar; the test made their paths (no blanks)
  run -0 "$PYTHON" - $(sidecars) <<'EOF'
import json, sys
bad = []
for path in sys.argv[1:]:
    side = json.load(open(path))
    lay = side["layout"]
    # A chart with nothing to draw says so in a few texts (where: no C variant).
    assert lay["texts"] > (5 if side["variants"] else 3), (path, lay["texts"])
    for a, b in lay["overlaps"]:
        bad.append("%s: %r overlaps %r" % (path, a, b))
    for t in lay["outside"]:
        bad.append("%s: %r leaves the figure" % (path, t))
print("\n".join(bad) or "ok")
sys.exit(1 if bad else 0)
EOF
  assert_output "ok"
}

@test "every chart is at most 1200 px wide and its smallest text is 11.5 pt or more at GitHub's 880 px" {
  # shellcheck disable=SC2046  # one argument a sidecar; the test made their paths (no blanks)
  run -0 "$PYTHON" - $(sidecars) <<'EOF'
import json, struct, sys
for path in sys.argv[1:]:
    lay = json.load(open(path))["layout"]
    with open(path[:-len(".json")] + ".png", "rb") as f:
        head = f.read(24)
    width, height = struct.unpack(">II", head[16:24])      # the PNG's IHDR
    assert (width, height) == (lay["width_px"], lay["height_px"]), (path, width, height)
    assert width <= 1200, "%s: %d px wide" % (path, width)
    assert lay["smallest_pt_at_github"] >= 11.5, "%s: smallest text %s pt at 880 px" % (
        path, lay["smallest_pt_at_github"])
print("ok")
EOF
  assert_output "ok"
}

@test "the headline chart compares each variant with a baseline of its own language" {
  # shellcheck disable=SC2046  # one argument a sidecar; the test made their paths (no blanks)
  run -0 "$PYTHON" - $(sidecars | grep '/headline-') <<'EOF'
import json, sys
n = 0
for path in sys.argv[1:]:
    for p in json.load(open(path))["points"]:
        assert p["baseline"].split("/")[1] == p["variant"].split("/")[1], (path, p)
        n += 1
print("points %d" % n)
EOF
  assert_output --regexp "^points [1-9][0-9]*$"
}

@test "every headline chart is at most 1000 x 1200 px, one variant a cell, and the ratio chart has the variants it leaves out" {
  # shellcheck disable=SC2046  # one argument a sidecar; the test made their paths (no blanks)
  run -0 "$PYTHON" - $(sidecars | grep '/headline-') <<'EOF'
import json, os, struct, sys
n = 0
for path in sys.argv[1:]:
    with open(path[:-len(".json")] + ".png", "rb") as f:
        width, height = struct.unpack(">II", f.read(24)[16:24])      # the PNG's IHDR
    assert width <= 1000 and height <= 1200, (path, width, height)
    side = json.load(open(path))
    cells = [(p["panel"], p["row"]) for p in side["points"]]
    assert len(cells) == len(set(cells)), path
    ratio = path.replace("/headline-", "/ratio-")
    if os.path.exists(ratio):
        r = json.load(open(ratio))
        drawn = set(r["variants"]) | {o["variant"] for o in r["omitted"]}
        for o in side["omitted"]:
            assert o["variant"] in drawn, (path, o)
    n += 1
print("headlines %d" % n)
EOF
  assert_output --regexp "^headlines [1-9][0-9]*$"
}

@test "within a panel, every language lists its styles in suite.json's order" {
  # shellcheck disable=SC2046  # one argument a sidecar; the test made their paths (no blanks)
  run -0 "$PYTHON" - "$ROOT" $(sidecars) <<'EOF'
import json, os, sys
styles = json.load(open(os.path.join(sys.argv[1], "catalog", "suite.json")))["styles"]
for path in sys.argv[2:]:
    side = json.load(open(path))
    # claims, gap and runtimes charts list claims in their catalog order, not styles
    if side["chart"] in ("claims", "gap", "runtimes") or side["chart"].startswith("hosts-"):
        continue
    rundir = os.path.dirname(os.path.dirname(path))
    rows = {r["variant"]: r for r in json.load(open(os.path.join(rundir, "summary.json")))["variants"]}
    for panel in side["panels"]:
        seq = [rows[p["variant"]] for p in side["points"] if p["panel"] == panel]
        for lang in {r["lang"] for r in seq}:
            order = [styles.index(r["style"]) for r in seq if r["lang"] == lang and r["style"] in styles]
            assert order == sorted(order), (path, panel, lang, order)
print("ok")
EOF
  assert_output "ok"
}

@test "the charts across hosts show every variant of each host" {
  run -0 "$PYTHON" - "$RUNS" <<'EOF'
import json, os, sys
runs = sys.argv[1]
want = set()
for host, folder in (("made-up", "made-up"), ("made-up-too", "across/made-up-too")):
    want |= {(host, r["variant"]) for r in json.load(open(os.path.join(
        runs, folder, "manyrows", "summary.json")))["variants"]}
for kind in ("ms", "ratio"):
    side = json.load(open(os.path.join(runs, "across", "hosts", "charts", "hosts-%s.json" % kind)))
    got = {(p["host"], p["variant"]) for p in side["points"]}
    assert got == want, (kind, sorted(want - got)[:5], sorted(got - want)[:5])
print("ok")
EOF
  assert_output "ok"
}

@test "a significant ratio is bold and solid, a ~ one faded, never the reverse" {
  # shellcheck disable=SC2046  # one argument a sidecar; the test made their paths (no blanks)
  run -0 "$PYTHON" - $(sidecars | grep -E '/(headline|ratio)-') <<'EOF'
import json, sys
seen = {"bold": 0, "faded": 0}
for path in sys.argv[1:]:
    side = json.load(open(path))
    for v in side["values"]:
        if v["text"].startswith("~"):
            assert v["weight"] == "normal" and v["alpha"] < 1, (path, v)
            seen["faded"] += 1
        elif v["text"][0].isdigit():
            assert v["weight"] == "bold" and v["alpha"] == 1, (path, v)
            seen["bold"] += 1
    # Each ratio's value text says what the summary says of its significance.
    text = {(v["panel"], v["row"]): v for v in side["values"]}
    for p in side["points"]:
        v = text[(p["panel"], p["row"])]
        if p["significant"] is False:
            assert v["text"].startswith("~ ") and v["weight"] == "normal", (path, p, v)
        elif p["significant"] is True:
            assert v["text"][0].isdigit() and v["weight"] == "bold", (path, p, v)
print("bold %(bold)d faded %(faded)d" % seen)
EOF
  assert_output --regexp "^bold [1-9][0-9]* faded [1-9][0-9]*$"
}
