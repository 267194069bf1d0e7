#!/usr/bin/env bats
# runner.bats -- the runner end to end: a quick run of the real catalog (every
# workload that takes part in it, each style of each language once, with its
# baselines; quick_ids), the test-only variant that does not wait
# (must be invalid), and the fake catalog folder tests/fixtures-bin/catalog:
# programs that fail, crash, hang or break the contract, requirements that are
# not met, workloads with a server, re-rendering, Ctrl-C, cross-host charts
# and the exports.  A run whose test looks at no chart draws none (--no-charts).

load test_helper

FAKE_CATALOG="${ROOT}/tests/fixtures-bin/catalog"
COLUMNS="round,order,variant,workload,lang,style,mode,backend,iterations,concurrency,status,exit_code,elapsed_ns,wall_ns,proc_user_us,proc_sys_us,proc_peak_rss_kb,ok,bytes,shape,method,label,idle_rss_kb,env,point,outside_ns,startup_ns,warmup_ns,pass,sampled_rss_kb,runtime"

# The node option the runner gets: the real node when there is one, else none.
node_opt() {
  if command -v "${NODE:-node}" >/dev/null 2>&1; then
    command -v "${NODE:-node}"
  else
    echo none
  fi
}

# The one run folder under $1 (a results folder of a single run).
run_dir() { "$PYTHON" -c 'import os,sys; print(os.path.realpath(os.path.join(sys.argv[1], "latest")))' "$1"; }

# csv_column FILE NAME -- the values of one column of a CSV, header excluded.
csv_column() {
  "$PYTHON" -c 'import csv,sys
for r in csv.DictReader(open(sys.argv[1])): print(r[sys.argv[2]])' "$1" "$2"
}

# check_png FILE -- a PNG by its magic bytes, between 10 KB and 5 MB.
check_png() {
  "$PYTHON" - "$1" <<'EOF'
import os, sys
path = sys.argv[1]
with open(path, "rb") as f:
    head = f.read(8)
size = os.path.getsize(path)
if head != b"\x89PNG\r\n\x1a\n":
    sys.exit("%s: not a PNG (starts %r)" % (path, head))
if not 10000 < size < 5000000:
    sys.exit("%s: %d bytes is not a sensible chart size" % (path, size))
EOF
}

# unbuilt PROFILE -- the built programs ({bin}/...) of PROFILE's variants that
# are missing, one a line.
unbuilt() {
  local argv profiles prog
  catalog_rows argv profiles | while IFS='|' read -r argv profiles; do
    case " $profiles " in *" $1 "*) ;; *) continue ;; esac
    case $argv in "{bin}/"*) ;; *) continue ;; esac
    prog=${argv%% *}
    prog=${prog#\{bin\}/}
    [ -x "${BIN}/${prog}" ] || echo "$prog"
  done | sort -u
}

# quick_ids -- the variants of the quick run: of every workload and language,
# one of each style (runner/catalog/cover.py --keys style) and the baselines
# those are compared with, one a line.  Every variant runs natively in
# contract.bats; the run here is about the runner over every workload,
# language and style.
quick_ids() {
  "$PYTHON" - <<'PY'
from runner.catalog.catalog import catalog, cover
cat = catalog.load()
ids = [v["id"] for v in cat.select(profile="quick")]
chosen = set(cover.cover(ids, cat, ("style",)))
for vid in list(chosen):
    chosen |= {b[0] for b in cat.baselines(cat.find(vid)).values() if b}
print("\n".join(vid for vid in ids if vid in chosen))
PY
}

setup_file() {
  # One quick run of the real catalog, shared by the tests that read it.
  export QUICK_OUT="${BATS_FILE_TMPDIR}/quick"
  local id
  local -a filters=()
  for id in $(quick_ids); do filters+=(--filter "^${id//./\\.}\$"); done
  if [ -z "$(unbuilt quick)" ]; then
    "$PYTHON" -m runner --profile quick ${filters[@]+"${filters[@]}"} --out "$QUICK_OUT" --node "$(node_opt)" \
      > "${BATS_FILE_TMPDIR}/quick.out" 2> "${BATS_FILE_TMPDIR}/quick.err"
    echo $? > "${BATS_FILE_TMPDIR}/quick.rc"
  fi
}

need_quick_run() {
  [ -f "${BATS_FILE_TMPDIR}/quick.rc" ] || skip "not built: $(unbuilt quick | tr '\n' ' ')(make all)"
  QUICK="$(run_dir "$QUICK_OUT")"
}

# quick_workloads -- the workloads of the quick run, one a line.
quick_workloads() {
  "$PYTHON" -c 'import json,sys; print("\n".join(json.load(open(sys.argv[1]))["workloads"]))' "${QUICK}/run.json"
}

@test "a quick run exits 0 and ends with a table per workload and the charts' path" {
  need_quick_run
  [ "$(cat "${BATS_FILE_TMPDIR}/quick.rc")" = 0 ] || cat "${BATS_FILE_TMPDIR}/quick.err"
  [ "$(cat "${BATS_FILE_TMPDIR}/quick.rc")" = 0 ]
  local w
  run quick_workloads
  [ "${#lines[@]}" -ge 2 ]
  # Every workload of the profile takes part, though not every variant.
  assert_equal "$(printf '%s\n' "${lines[@]}" | sort)" \
    "$(catalog ids --profile quick | cut -d/ -f1 | sort -u)"
  for w in "${lines[@]}"; do
    grep -q "^== $w (N = [0-9,]*) ==$" "${BATS_FILE_TMPDIR}/quick.out" \
      || { echo "no table for $w"; false; }
  done
  run cat "${BATS_FILE_TMPDIR}/quick.out"
  # The default table fits 100 columns: the ratio to the variant's own language's baseline.
  assert_line --regexp '^variant +n +(ns|µs|ms)/[a-z]+ +vs own baseline$'
  assert_line --regexp '^ratio: time over the baseline of the variant.s own language \('
  assert_line "Verdicts:"
  assert_line --regexp '^c/callback-sequential@node4 .* baseline( |$)'
  assert_line "charts: ${QUICK}/charts"
}

@test "samples.csv has exactly the DESIGN columns and one row per round, variant and timed pass" {
  need_quick_run
  run head -1 "${QUICK}/samples.csv"
  assert_output "$COLUMNS"
  variants=$("$PYTHON" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["variants"]))' "${QUICK}/run.json")
  # Every id of the profile but those skipped, each with its reason (node
  # missing, a probe that fails on this host).
  skipped=$("$PYTHON" -c 'import json,sys; print("\n".join(s["variant"] for s in json.load(open(sys.argv[1]))["skipped"] if s.get("reason")))' "${QUICK}/run.json")
  expected_ids=$(quick_ids | { if [ "$(node_opt)" = none ]; then grep -v '/node/'; else cat; fi; } \
    | grep -cvxF -e "${skipped:-/none/}")
  [ "$variants" -eq "$expected_ids" ]
  # A workload runs in the suite profile's rounds, or in fewer when its file says so;
  # every valid process is a row per timed pass (its catalog passes at its N),
  # numbered from 0 in the pass column.
  "$PYTHON" - "${QUICK}/run.json" "${QUICK}/samples.csv" <<'EOF'
import collections, csv, json, sys
from runner.catalog.catalog import catalog
from runner.measure.measure import plan
cat = catalog.load()
run = json.load(open(sys.argv[1]))
rounds = cat.profile("quick")["rounds"]
rows = list(csv.DictReader(open(sys.argv[2])))
assert all(r["status"] == "ok" for r in rows), [r for r in rows if r["status"] != "ok"][:3]
got = collections.Counter((r["variant"], r["round"]) for r in rows)
passes = collections.defaultdict(list)
for r in rows:
    passes[(r["variant"], r["round"])].append(int(r["pass"]))
many = 0
for vid in run["variants"]:
    v = cat.find(vid)
    s = run["workloads"][v["workload"]]
    p = plan.passes_of(v, s["passes"], s["iterations"])
    many += p > 1
    want = min(rounds, cat.settings(v["workload"], "quick").get("rounds", rounds))
    assert sorted(int(r) for (x, r) in got if x == vid) == list(range(1, want + 1)), vid
    for rnd in range(1, want + 1):
        assert passes[(vid, str(rnd))] == list(range(p)), (vid, rnd, passes[(vid, str(rnd))], p)
assert many, "no variant of the quick run ran more than one pass"
EOF
}

@test "no run of the quick profile failed" {
  need_quick_run
  # On failure, show why each bad run went wrong.
  "$PYTHON" -c 'import json,sys; [print(f) for f in json.load(open(sys.argv[1]))["failures"]]' "${QUICK}/run.json"
  run csv_column "${QUICK}/samples.csv" status
  refute_line --regexp '^(invalid|failed|timeout|crashed)$'
  assert_line ok
}

@test "summary.csv and summary.json have a row per variant with a median" {
  need_quick_run
  run csv_column "${QUICK}/summary.csv" variant
  sorted_summary=$(printf '%s\n' "${lines[@]}" | sort)
  sorted_samples=$(csv_column "${QUICK}/samples.csv" variant | sort -u)
  [ "$sorted_summary" = "$sorted_samples" ]
  "$PYTHON" - "${QUICK}/summary.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
assert {"run", "host", "variants", "headline", "verdicts", "all_verdicts"} <= set(s), s.keys()
keys = {"variant", "label", "workload", "lang", "style", "shape", "mode", "method", "backend",
        "iterations", "concurrency", "n", "statuses", "median_ms", "ci_low_ms", "ci_high_ms",
        "baseline", "ratio", "ratio_ci_low", "ratio_ci_high", "significant", "baseline_label",
        "lang_baseline", "lang_ratio", "lang_ratio_ci_low", "lang_ratio_ci_high",
        "lang_significant", "lang_baseline_label", "proc_peak_rss_kb", "proc_user_ms", "proc_sys_ms", "warnings"}
for row in s["variants"]:
    missing = keys - set(row)
    assert not missing, (row["variant"], missing)
    assert row["median_ms"] > 0, row
    assert set(row["statuses"]) == {"ok", "invalid", "failed", "timeout", "crashed"}
assert s["run"]["complete"] is True
assert s["host"]["slug"]
EOF
}

@test "every chart is a valid PNG of sensible size and REPORT.md embeds them" {
  need_quick_run
  n=0
  for png in "${QUICK}"/charts/*.png; do
    check_png "$png"
    grep -q "](charts/$(basename "$png"))" "${QUICK}/REPORT.md"
    n=$((n + 1))
  done
  [ "$n" -ge 4 ]
  for w in $(quick_workloads); do
    for chart in headline time ratio distribution cpu memory; do
      [ -f "${QUICK}/charts/${chart}-${w}.png" ] || { echo "no ${chart}-${w}.png"; false; }
    done
  done
}

@test "host.json, run.json and results/latest describe the run" {
  need_quick_run
  [ -L "${QUICK_OUT}/latest" ]
  [[ "$(readlink "${QUICK_OUT}/latest")" != /* ]]
  "$PYTHON" - "${QUICK}" <<'EOF'
import json, os, sys
d = sys.argv[1]
from runner.measure.measure import schedule
h = json.load(open(os.path.join(d, "host.json")))
for k in ("cpu_model", "cores", "memory_bytes", "os", "kernel", "compiler", "libuv",
          "uv_threadpool_size", "git_commit"):
    assert h.get(k) not in (None, ""), k
r = json.load(open(os.path.join(d, "run.json")))
warmup_orders, orders = schedule.run_orders(r)
assert len(orders) == r["rounds"] and len(warmup_orders) == r["warmup_rounds"]
# The orders are kept as their seed and entries, not as lists (DESIGN section 6).
assert set(r["orders"]) >= {"seed", "entries", "rule", "blocks"} and "order" not in r, sorted(r)
for i, order in enumerate(orders):
    # Round i holds every variant of the workloads that run that many rounds.
    want = [v for v in r["variants"]
            if i < r["workloads"][v.split("/", 1)[0]].get("rounds", r["rounds"])]
    assert sorted(order) == sorted(want), (i, order)
assert isinstance(r["seed"], int)
EOF
}

@test "the exports have hyperfine's JSON shape and Go's benchmark format" {
  need_quick_run
  "$PYTHON" - "${QUICK}" <<'EOF'
import json, os, re, sys
d = sys.argv[1]
h = json.load(open(os.path.join(d, "hyperfine.json")))
summary = json.load(open(os.path.join(d, "summary.json")))
assert [r["command"] for r in h["results"]] == [v["variant"] for v in summary["variants"]]
for r in h["results"]:
    for k in ("mean", "stddev", "median", "user", "system", "min", "max"):
        # hyperfine writes a null stddev for a single run (a workload run in one round).
        assert isinstance(r[k], float) or (k == "stddev" and r[k] is None and len(r["times"]) < 2), (k, r[k])
    assert r["min"] <= r["median"] <= r["max"]
# One time per valid run: a workload may run fewer rounds than the profile.
ns = [v["n"] for v in summary["variants"]]
assert [len(r["times"]) for r in h["results"]] == ns
bench = open(os.path.join(d, "bench.txt")).read().splitlines()
assert bench[:3] == ["goos: linux", "goarch: amd64", "pkg: asyncstyles"] or bench[0].startswith("goos: ")
lines = [l for l in bench if l.startswith("Benchmark")]
assert len(lines) == sum(ns), len(lines)
# A label (c/sync-sequential@node4) may be in two workloads: the benchmark's name has both.
n_of = {(v["workload"], v["label"]): v["iterations"] for v in summary["variants"]}
for l in lines:
    # One op is one operation: the count is N and ns/op the time per operation.
    m = re.match(r"^Benchmark([A-Z][a-z]*)/([a-z]+/[a-z-]+@[A-Za-z0-9._]+) (\d+) (\d+(\.\d+)?) ns/op "
                 r"\d+ peak-RSS-KiB$", l)
    assert m, l
    assert int(m.group(3)) == n_of[(m.group(1).lower(), m.group(2))], l
results_md = open(os.path.join(d, "results.md"), encoding="utf-8").read()
for v in summary["variants"]:
    assert "| `%s` |" % v["label"] in results_md, v["label"]
EOF
}

@test "benchstat reads the Go benchmark export" {
  need_quick_run
  # make deps builds a pinned benchstat into the build folder (deps.env names it).
  bs=$(sed -n 's/^BENCHSTAT=//p' "${BUILD_DIR}/deps.env" 2>/dev/null)
  [ -n "$bs" ] && [ -x "$bs" ] || skip "make deps could not build benchstat (see its output)"
  run "$bs" "${QUICK}/bench.txt"
  assert_success
  assert_output --partial "Readfile/c/callback-sequential@node4"
  assert_output --partial "sec/op"
  # Time per operation: a read takes microseconds per op, not a whole run's milliseconds.
  assert_line --regexp '^Readfile/c/callback-sequential@node4 +[0-9.]+(µ|n) '
}

@test "the test-only variant that does not wait for its completions is reported invalid" {
  [ -x "${BIN}/c-readfile" ] || skip "build/bin/c-readfile is not built (make all)"
  run "$PYTHON" -m runner --profile selftest --no-charts --out "${BATS_TEST_TMPDIR}/r"
  # Nothing valid was measured: exit 1, the samples kept.
  assert_failure 1
  assert_output --partial "run.py: readfile/c/callback-nowait-parallel@node4 invalid: ok is 0, expected"
  assert_line "run.py: workload readfile has no valid sample (2 runs: 2 invalid); the samples are kept, the reasons are in REPORT.md"
  d="$(run_dir "${BATS_TEST_TMPDIR}/r")"
  run csv_column "${d}/samples.csv" status
  [ "${#lines[@]}" -eq 2 ]
  assert_equal "${lines[0]}" invalid
  assert_equal "${lines[1]}" invalid
  grep -q '| `readfile/c/callback-nowait-parallel@node4` | invalid | 0 | ok is 0, expected' "${d}/REPORT.md"
}

@test "failed, crashed, hung and contract-breaking programs are recorded and the suite goes on, then exits 1 naming each variant without a valid sample" {
  run "$PYTHON" -m runner --catalog "$FAKE_CATALOG" --profile broken --no-charts --out "${BATS_TEST_TMPDIR}/r" --seed 7
  assert_failure 1
  for v in chatty-sequential crash-sequential fail-sequential hang-sequential nowait-parallel; do
    assert_line --regexp "^run\.py: readfile/fake/$v@python has no valid sample \(2 runs: 2 [a-z]+\); the samples are kept, the reasons are in REPORT\.md$"
  done
  refute_line --partial "honest-sequential@python has no valid sample"
  d="$(run_dir "${BATS_TEST_TMPDIR}/r")"
  [ $(($(wc -l < "${d}/samples.csv") - 1)) -eq 12 ]
  "$PYTHON" - "$d" <<'EOF'
import csv, json, os, sys
d = sys.argv[1]
want = {"readfile/fake/honest-sequential@python": "ok", "readfile/fake/nowait-parallel@python": "invalid",
        "readfile/fake/chatty-sequential@python": "invalid", "readfile/fake/fail-sequential@python": "failed",
        "readfile/fake/crash-sequential@python": "crashed", "readfile/fake/hang-sequential@python": "timeout"}
rows = list(csv.DictReader(open(os.path.join(d, "samples.csv"))))
for r in rows:
    assert r["status"] == want[r["variant"]], r
    if r["status"] == "crashed":
        assert r["exit_code"] == "-11", r
reasons = {f["variant"]: f["reason"] for f in json.load(open(os.path.join(d, "run.json")))["failures"]}
assert reasons["readfile/fake/fail-sequential@python"] == "exit 1: fake-readfile: iteration 3: read 0 bytes, expected 12"
assert reasons["readfile/fake/crash-sequential@python"] == "killed by SIGSEGV"
assert reasons["readfile/fake/hang-sequential@python"].startswith("no result within the timeout")
assert reasons["readfile/fake/nowait-parallel@python"] == "ok is 25, expected 50 (every completion verified)"
EOF
}

@test "the same seed gives the same order" {
  for i in 1 2; do
    "$PYTHON" -m runner --catalog "$FAKE_CATALOG" --profile quick --rounds 2 --warmup-rounds 0 \
      --iterations 5 --seed 42 --no-charts --out "${BATS_TEST_TMPDIR}/s$i" >/dev/null 2>&1
    cut -d, -f1-3 "$(run_dir "${BATS_TEST_TMPDIR}/s$i")/samples.csv" > "${BATS_TEST_TMPDIR}/order$i"
  done
  cmp "${BATS_TEST_TMPDIR}/order1" "${BATS_TEST_TMPDIR}/order2"
}

@test "Node variants are skipped with one line when there is no node" {
  [ -x "${BIN}/c-readfile" ] || skip "build/bin/c-readfile is not built (make all)"
  run "$PYTHON" -m runner --profile quick --filter '^readfile/(c|node)/callback-sequential@(node4|fs\.readFile)$' --node none \
    --rounds 1 --warmup-rounds 0 --no-charts --out "${BATS_TEST_TMPDIR}/r"
  assert_success
  assert_line "run.py: skipped readfile/node/callback-sequential@fs.readFile: needs node, and --node none was given"
  # one process, a row per timed pass (readfile's catalog passes)
  run csv_column "$(run_dir "${BATS_TEST_TMPDIR}/r")/samples.csv" variant
  [ "${#lines[@]}" -ge 1 ]
  local l
  for l in "${lines[@]}"; do [ "$l" = readfile/c/callback-sequential@node4 ]; done
}

@test "a variant whose requirement is not met is skipped with one line saying why, and the report lists it" {
  run "$PYTHON" -m runner --catalog "$FAKE_CATALOG" --profile requires --no-charts --out "${BATS_TEST_TMPDIR}/r"
  assert_success
  assert_line "run.py: skipped readfile/fake/honest-probed-sequential@python: fake: no such library here"
  assert_line --regexp "^run.py: skipped readfile/fake/honest-elsewhere-sequential@python: .*windows"
  d="$(run_dir "${BATS_TEST_TMPDIR}/r")"
  run csv_column "${d}/samples.csv" variant
  assert_equal "$(printf '%s\n' "${lines[@]}" | sort)" \
    "$(printf '%s\n' readfile/fake/honest-checked-sequential@python readfile/fake/honest-sequential@python)"
  grep -q '^- `readfile/fake/honest-probed-sequential@python`: fake: no such library here$' "${d}/REPORT.md"
  grep -q '^- `readfile/fake/honest-elsewhere-sequential@python`: .*windows' "${d}/REPORT.md"
}

@test "a workload's server runs for its rounds; one that dies or never gets ready fails only that workload's variants" {
  run "$PYTHON" -m runner --catalog "$FAKE_CATALOG" --profile served --no-charts --out "${BATS_TEST_TMPDIR}/s"
  assert_success
  run csv_column "$(run_dir "${BATS_TEST_TMPDIR}/s")/samples.csv" status
  [ "${#lines[@]}" -eq 4 ]
  refute_line --regexp '^(invalid|failed|timeout|crashed)$'
  run "$PYTHON" -m runner --catalog "$FAKE_CATALOG" --profile unserved --no-charts --out "${BATS_TEST_TMPDIR}/u"
  assert_failure 1
  assert_line "run.py: workload unserved has no valid sample (1 run: 1 failed); the samples are kept, the reasons are in REPORT.md"
  assert_line --regexp '^run.py: unserved/fake/honest-sequential@python failed: server fake-server exited 1 before it was ready: '
  assert_line --regexp '^run.py: unready/fake/honest-sequential@python failed: server fake-server printed no \{"port": N\} line within '
  "$PYTHON" - "$(run_dir "${BATS_TEST_TMPDIR}/u")/samples.csv" <<'EOF'
import csv, sys
got = {r["variant"]: r["status"] for r in csv.DictReader(open(sys.argv[1]))}
assert got == {"readfile/fake/honest-sequential@python": "ok",
               "unserved/fake/honest-sequential@python": "failed",
               "unready/fake/honest-sequential@python": "failed"}, got
EOF
}

@test "an output folder that cannot be created is refused before anything runs" {
  touch "${BATS_TEST_TMPDIR}/afile"
  run -3 "$PYTHON" -m runner --catalog "$FAKE_CATALOG" --profile quick --out "${BATS_TEST_TMPDIR}/afile/results"
  assert_output --regexp "^run.py: cannot create the results folder .*afile/results/.*: Not a directory \(choose another with --out\)$"
}

@test "bad runner options are usage errors with exit code 2" {
  run -2 "$PYTHON" -m runner --catalog "$FAKE_CATALOG" --profile nope
  assert_output "run.py: unknown profile 'nope'; the catalog has broken, budget, nodeonly, quick, requires, scaling, served, unserved"
  run -2 "$PYTHON" -m runner --catalog "$FAKE_CATALOG" --profile quick --filter '^zzz'
  assert_output "run.py: no variant of profile 'quick' matches '^zzz'"
  run -2 "$PYTHON" -m runner --catalog "$FAKE_CATALOG" --profile quick --rounds 0
  assert_output "run.py: --rounds must be between 1 and 10000, got 0"
  run -2 "$PYTHON" -m runner --catalog "$FAKE_CATALOG" --profile quick --filter '('
  assert_output --partial "run.py: --filter '(' is not a regular expression"
  run -2 "$PYTHON" -m runner
  assert_output --partial "run.py: say which profile"
}

@test "a program that is not built is named with the fix" {
  cp -R "$FAKE_CATALOG" "${BATS_TEST_TMPDIR}/cat"
  sed 's#tests/fixtures-bin/fake-readfile#tests/fixtures-bin/not-built#' "$FAKE_CATALOG/readfile.json" \
    > "${BATS_TEST_TMPDIR}/cat/readfile.json"
  run -3 "$PYTHON" -m runner --catalog "${BATS_TEST_TMPDIR}/cat" --profile quick --out "${BATS_TEST_TMPDIR}/r"
  assert_output "run.py: not built or not executable: tests/fixtures-bin/not-built (run \`make all\` first)"
  [ ! -e "${BATS_TEST_TMPDIR}/r" ]
}

@test "--render redraws summaries, charts and the report from samples.csv alone" {
  "$PYTHON" -m runner --catalog "$FAKE_CATALOG" --profile quick --rounds 6 --warmup-rounds 0 \
    --iterations 5 --no-charts --out "${BATS_TEST_TMPDIR}/r" >/dev/null 2>&1
  d="$(run_dir "${BATS_TEST_TMPDIR}/r")"
  mkdir -p "${BATS_TEST_TMPDIR}/only/h/copy"
  cp "${d}/samples.csv" "${BATS_TEST_TMPDIR}/only/h/copy/"
  run "$PYTHON" -m runner --render "${BATS_TEST_TMPDIR}/only/h/copy"
  assert_success
  assert_line --regexp '^fake/honest-sequential@python +6 '
  for f in summary.csv summary.json REPORT.md hyperfine.json bench.txt charts/time-readfile.png; do
    [ -s "${BATS_TEST_TMPDIR}/only/h/copy/$f" ]
  done
  cmp <(cut -d, -f1-5 "${d}/summary.csv") <(cut -d, -f1-5 "${BATS_TEST_TMPDIR}/only/h/copy/summary.csv")
}

@test "a write error is one clear line and leaves no half-written summary" {
  "$PYTHON" -m runner --catalog "$FAKE_CATALOG" --profile quick --rounds 6 --warmup-rounds 0 \
    --iterations 5 --no-charts --out "${BATS_TEST_TMPDIR}/r" >/dev/null 2>&1
  d="$(run_dir "${BATS_TEST_TMPDIR}/r")"
  cp "${d}/summary.csv" "${BATS_TEST_TMPDIR}/before.csv"
  # A directory where the temporary file must go makes the write fail, even as root.
  mkdir "${d}/summary.csv.tmp"
  run -3 "$PYTHON" -m runner --render "$d"
  assert_line --partial "cannot write into"
  assert_line --partial "summary.csv.tmp"
  refute_output --partial "Traceback"
  cmp "${BATS_TEST_TMPDIR}/before.csv" "${d}/summary.csv"
}

@test "--no-charts writes the summaries and REPORT.md, draws no chart and says how to draw them" {
  run -0 "$PYTHON" -m runner --catalog "$FAKE_CATALOG" --profile quick --rounds 2 --warmup-rounds 0 \
    --iterations 5 --node none --no-charts --out "${BATS_TEST_TMPDIR}/r"
  d="$(run_dir "${BATS_TEST_TMPDIR}/r")"
  assert_line "charts: not drawn (--no-charts; make plots RUN=${d} draws them)"
  for f in summary.csv summary.json REPORT.md hyperfine.json bench.txt; do
    [ -s "${d}/$f" ] || fail "no $f"
  done
  [ -z "$(find "$d" -name '*.png')" ] || fail "a chart was drawn: $(find "$d" -name '*.png')"
  grep -q '^Charts not drawn (`--no-charts`); draw them with `make plots RUN=' "${d}/REPORT.md"
  # --render draws them: the --render test above, from a --no-charts run's samples.csv.
}

@test "--render of a folder without samples.csv says so" {
  run -3 "$PYTHON" -m runner --render "${BATS_TEST_TMPDIR}"
  assert_output "run.py: ${BATS_TEST_TMPDIR} has no samples.csv: not a run folder"
  # A results/latest that points nowhere yet (no run has finished).
  ln -s h/nothing "${BATS_TEST_TMPDIR}/latest"
  run -3 "$PYTHON" -m runner --render "${BATS_TEST_TMPDIR}/latest"
  assert_output "run.py: ${BATS_TEST_TMPDIR}/h/nothing is not a folder: --render takes a run folder, results/<host>/<stamp>"
}

@test "Ctrl-C keeps the samples, marks the run incomplete and exits 130" {
  "$PYTHON" -m runner --catalog "$FAKE_CATALOG" --profile quick --rounds 500 --iterations 5 \
    --out "${BATS_TEST_TMPDIR}/r" > "${BATS_TEST_TMPDIR}/out" 2>&1 &
  pid=$!
  for _ in $(seq 1 200); do
    f=$(ls "${BATS_TEST_TMPDIR}"/r/*/*/samples.csv 2>/dev/null || true)
    if [ -n "$f" ] && [ "$(wc -l < "$f")" -ge 4 ]; then break; fi
    sleep 0.1
  done
  kill -INT "$pid"
  rc=0
  wait "$pid" || rc=$?
  [ "$rc" -eq 130 ]
  d="$(run_dir "${BATS_TEST_TMPDIR}/r")"
  rows=$(($(wc -l < "${d}/samples.csv") - 1))
  [ "$rows" -ge 3 ] && [ "$rows" -lt 1500 ]
  "$PYTHON" -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["complete"] is False, r' "${d}/run.json"
  grep -q "Incomplete run\*\*: interrupted by a signal (Ctrl-C, a kill or a hangup) after" "${d}/REPORT.md"
  grep -q "interrupted after" "${BATS_TEST_TMPDIR}/out"
  check_png "${d}/charts/time-readfile.png"
}

@test "two runs labelled as two hosts give the cross-host charts" {
  # The first run's own charts are not looked at: the second draws its own
  # and those across the two hosts.
  "$PYTHON" -m runner --catalog "$FAKE_CATALOG" --profile quick --rounds 2 --warmup-rounds 0 \
    --iterations 5 --host host-a --no-charts --out "${BATS_TEST_TMPDIR}/r" >/dev/null 2>&1
  "$PYTHON" -m runner --catalog "$FAKE_CATALOG" --profile quick --rounds 2 --warmup-rounds 0 \
    --iterations 5 --host host-b --out "${BATS_TEST_TMPDIR}/r" >/dev/null 2>&1
  run "$PYTHON" -m runner --hosts "${BATS_TEST_TMPDIR}/r"
  assert_success
  assert_line "${BATS_TEST_TMPDIR}/r/hosts/hosts-ms.png"
  assert_line "${BATS_TEST_TMPDIR}/r/hosts/hosts-ratio.png"
  check_png "${BATS_TEST_TMPDIR}/r/hosts/hosts-ms.png"
  check_png "${BATS_TEST_TMPDIR}/r/hosts/hosts-ratio.png"
  # The second run, made when two hosts existed, drew them into its own charts too.
  check_png "$(run_dir "${BATS_TEST_TMPDIR}/r")/charts/hosts-ms.png"
}

@test "cross-host charts need runs of two hosts" {
  "$PYTHON" -m runner --catalog "$FAKE_CATALOG" --profile quick --rounds 1 --warmup-rounds 0 \
    --iterations 5 --host only-one --no-charts --out "${BATS_TEST_TMPDIR}/r" >/dev/null 2>&1
  run -3 "$PYTHON" -m runner --hosts "${BATS_TEST_TMPDIR}/r"
  assert_output --partial "holds runs of 1 host; the cross-host charts need two or more"
}

@test "each chart's command explains itself and refuses a folder that is not a run" {
  for s in headline_chart time_chart ratio_chart distribution_chart cpu_chart memory_chart claims_chart gap_chart hosts_chart \
      runtimes_chart where_time_chart unit_memory_chart scaling_n_chart scaling_k_chart scaling_env_chart; do
    run -0 "$PYTHON" -m "runner.report.report.charts.${s}" --help
    assert_line --regexp "^usage: python3 -m runner\.charts\.${s}( |\$)"
  done
  run -2 "$PYTHON" -m runner.report.report.charts.time_chart "${BATS_TEST_TMPDIR}"
  assert_output "time_chart.py: ${BATS_TEST_TMPDIR}/summary.json is missing: run \`python3 -m runner --render ${BATS_TEST_TMPDIR}\` first"
}
