#!/usr/bin/env bats
# scaling.bats -- sweeps and time budgets end to end, on the fake catalog
# (tests/fixtures-bin/catalog): its scaling profile sweeps N, K (bounded only)
# and UV_THREADPOOL_SIZE (parallel only, default 4) over the three honest fakes
# with tiny N; its budget profile gives the sequential fake more rounds.

load test_helper

FAKE_CATALOG="${ROOT}/tests/fixtures-bin/catalog"

run_dir() { "$PYTHON" -c 'import os,sys; print(os.path.realpath(os.path.join(sys.argv[1], "latest")))' "$1"; }

@test "a sweep runs every point of every variant in every round, each a row with its N, K and environment" {
  # Unset, so that only the sweep's points set it.
  # Its charts are charts.bats' (the same sweep, drawn and checked there).
  run env -u UV_THREADPOOL_SIZE "$PYTHON" -m runner --catalog "$FAKE_CATALOG" --profile scaling --node none --seed 5 \
    --no-charts --out "${BATS_TEST_TMPDIR}/r"
  assert_success
  d="$(run_dir "${BATS_TEST_TMPDIR}/r")"
  "$PYTHON" - "$d" <<'EOF'
import collections, csv, json, os, sys
d = sys.argv[1]
rows = list(csv.DictReader(open(os.path.join(d, "samples.csv"))))
cols = list(rows[0])
assert "env" in cols and cols[cols.index("env") + 1] == "point", cols
got = collections.Counter((r["variant"].split("/")[2], r["point"], r["iterations"], r["concurrency"], r["env"])
                          for r in rows)
want = {("honest-sequential@python", "base", "20", "1", ""),
        ("honest-sequential@python", "iterations=5", "5", "1", ""),
        ("honest-sequential@python", "iterations=40", "40", "1", ""),
        ("honest-parallel@python", "base", "20", "0", ""),
        ("honest-parallel@python", "iterations=5", "5", "0", ""),
        ("honest-parallel@python", "iterations=40", "40", "0", ""),
        ("honest-parallel@python", "UV_THREADPOOL_SIZE=1", "20", "0", "UV_THREADPOOL_SIZE=1"),
        ("honest-parallel@python", "UV_THREADPOOL_SIZE=2", "20", "0", "UV_THREADPOOL_SIZE=2"),
        ("honest-bounded@python", "base", "20", "8", ""),
        ("honest-bounded@python", "iterations=5", "5", "8", ""),
        ("honest-bounded@python", "iterations=40", "40", "8", ""),
        ("honest-bounded@python", "concurrency=1", "20", "1", ""),
        ("honest-bounded@python", "concurrency=3", "20", "3", "")}
# N = 20 and K = 8 are the base's; UV_THREADPOOL_SIZE=4 is the default, so the base too.
assert set(got) == want, sorted(set(got) ^ want)
assert set(got.values()) == {2}, got          # every point in both rounds
assert all(r["status"] == "ok" for r in rows), [r for r in rows if r["status"] != "ok"]
# The environment reached the program (the fake says so on stderr).
runs = [json.loads(l) for l in open(os.path.join(d, "runs.jsonl"))]
for r in runs:
    env = r.get("point", "") if r.get("point", "").startswith("UV_") else None
    assert r["stderr"] == ("fake-readfile: " + env if env else None), r
s = json.load(open(os.path.join(d, "summary.json")))
assert sorted(r["variant"] for r in s["variants"]) == sorted({r["variant"] for r in rows})
assert {r["n"] for r in s["variants"]} == {2}
assert len(s["points"]) == 13, len(s["points"])
by = {(p["variant"].split("/")[2], p["point"]): p for p in s["points"]}
assert by[("honest-bounded@python", "concurrency=3")]["x"] == 3
assert by[("honest-parallel@python", "UV_THREADPOOL_SIZE=2")]["axis"] == "UV_THREADPOOL_SIZE"
assert by[("honest-sequential@python", "iterations=40")]["iterations"] == 40
par = [r for r in s["variants"] if r["mode"] == "parallel"][0]
assert (par["sweep_iterations"], par["sweep_concurrency"], par["sweep_env"]) == (3, None, 3), par
assert len(list(csv.DictReader(open(os.path.join(d, "points.csv"))))) == 13
EOF
}

@test "a scaling chart of a run without a sweep exits 1 with one line" {
  "$PYTHON" -m runner --catalog "$FAKE_CATALOG" --profile quick --rounds 1 --warmup-rounds 0 \
    --iterations 5 --node none --no-charts --out "${BATS_TEST_TMPDIR}/r" >/dev/null 2>&1
  d="$(run_dir "${BATS_TEST_TMPDIR}/r")"
  for c in scaling_n_chart scaling_k_chart scaling_env_chart; do
    run "$PYTHON" -m "runner.report.charts.${c}" "$d" -o "${BATS_TEST_TMPDIR}/x.png"
    assert_failure 1
    assert_output --partial "has no sweep"
    [ "${#lines[@]}" -eq 1 ]
  done
}

@test "a time budget gives the cheap variants it names more rounds, the others keep theirs" {
  run "$PYTHON" -m runner --catalog "$FAKE_CATALOG" --profile budget --node none --seed 9 \
    --no-charts --out "${BATS_TEST_TMPDIR}/r"
  assert_success
  d="$(run_dir "${BATS_TEST_TMPDIR}/r")"
  "$PYTHON" - "$d" <<'EOF'
import csv, json, os, sys
d = sys.argv[1]
from runner.measure import schedule
rounds = {}
for r in csv.DictReader(open(os.path.join(d, "samples.csv"))):
    rounds.setdefault(r["variant"].split("/")[2], []).append(int(r["round"]))
# budget 5 s, at most 5 rounds, for the sequential fake only (it takes well under 1 s)
assert sorted(rounds["honest-sequential@python"]) == [1, 2, 3, 4, 5], rounds
assert sorted(rounds["honest-parallel@python"]) == [1, 2], rounds
assert sorted(rounds["honest-bounded@python"]) == [1, 2], rounds
run = json.load(open(os.path.join(d, "run.json")))
warmup_orders, orders = schedule.run_orders(run)
assert run["rounds"] == 5 and len(orders) == 5, run
assert run["variant_rounds"]["readfile/fake/honest-sequential@python"] == 5
assert [len(o) for o in orders] == [3, 3, 1, 1, 1], orders
assert len(warmup_orders) == 1 and len(warmup_orders[0]) == 3
# The warm-up round ran at the profile's smaller N (max(1, iterations // 2) of 10); the
# rounds at N; the budget was decided from round 1; the run's minutes recorded.
runs = [json.loads(l) for l in open(os.path.join(d, "runs.jsonl"))]
warm = [r for r in runs if r["round"] == "w1" and r.get("variant")]
assert len(warm) == 3 and all(r["line"]["iterations"] == 5 for r in warm), warm
assert all(r["line"]["iterations"] == 10 for r in runs if isinstance(r["round"], int) and r.get("variant"))
assert run["workloads"]["readfile"]["warmup_round_iterations"] == 5
assert run["budget_from"] == "round 1" and run["minutes"] == 30, run
# The budget's rounds were capped by half of what the planned rounds left of the 30 minutes.
assert 0 < run["budget_cap_s"] <= 900, run
# The orders run.json gives are the ones that ran (samples.csv's round and order).
ran = {}
for r in csv.DictReader(open(os.path.join(d, "samples.csv"))):
    ran.setdefault(int(r["round"]), {})[int(r["order"])] = r["variant"]
assert [[ran[i + 1][k + 1] for k in range(len(o))] for i, o in enumerate(orders)] == orders, (ran, orders)
EOF
  grep -q "timeout 20 s, 2 rounds. The variants under its time budget ran as many more as fit in 5 s each at their round-1 time, at most 5 (\`run.json\`: \`variant_rounds\`). All of them ran in at most [0-9.]* s, half the time the planned rounds left before the run's budget" "${d}/REPORT.md"
  grep -q "after 1 warm-up round (each program at a smaller N than the rounds', readfile 5). A warm-up round warms the host" "${d}/REPORT.md"
  grep -q "its time budget 30 min from the first warm-up" "${d}/REPORT.md"
}

@test "--rounds overrides a time budget" {
  run "$PYTHON" -m runner --catalog "$FAKE_CATALOG" --profile budget --node none --rounds 2 \
    --no-charts --out "${BATS_TEST_TMPDIR}/r"
  assert_success
  d="$(run_dir "${BATS_TEST_TMPDIR}/r")"
  [ "$(($(wc -l < "${d}/samples.csv") - 1))" -eq 6 ]
}

@test "the scaling profile of the real catalog sweeps N, K and the threadpool's size" {
  run "$PYTHON" -m runner.catalog.catalog_cli ids --profile scaling
  assert_success
  [ "${#lines[@]}" -ge 6 ]
  "$PYTHON" - <<'EOF'
from runner.catalog import catalog
cat = catalog.load()
s = cat.settings("readfile", "scaling")
axes = {a["axis"]: a for a in s["sweep"]}
n_axes = [a for a in s["sweep"] if a["axis"] == "iterations"]
assert [a["values"] for a in n_axes] == [[100, 1000, 10000, 100000], [100, 1000, 10000]]
# parallel stops at 10,000: 100,000 reads in flight need 100,000 open files
assert n_axes[1]["for"] == {"mode": "parallel"}
assert axes["concurrency"]["values"] == [1, 4, 16, 64, 256]
assert axes["env"]["name"] == "UV_THREADPOOL_SIZE" and axes["env"]["values"] == [1, 2, 4, 8, 16]
# The threadpool axis is data: the catalog names the threadpool backends.
assert "node4" in axes["env"]["for"]["backend"] and "uring" not in axes["env"]["for"]["backend"]
assert cat.profile("scaling")["rounds"] >= 1
EOF
}

# Bad sweep and budget settings: each refused with one line naming the problem.
bad_catalog() {
  mkdir -p "${BATS_TEST_TMPDIR}/cat"
  cp "${FAKE_CATALOG}/suite.json" "${BATS_TEST_TMPDIR}/cat/"
  "$PYTHON" - "${FAKE_CATALOG}/readfile.json" "${BATS_TEST_TMPDIR}/cat/readfile.json" "$1" <<'EOF'
import json, sys
w = json.load(open(sys.argv[1]))
w["profiles"]["scaling"].update(json.loads(sys.argv[3]))
json.dump(w, open(sys.argv[2], "w"))
EOF
}

@test "bad sweep, budget and variants_of settings are refused with one line (exit 3)" {
  while IFS='|' read -r settings message; do
    bad_catalog "$settings"
    run "$PYTHON" -m runner.catalog.catalog_cli --catalog "${BATS_TEST_TMPDIR}/cat" ids
    [ "$status" -eq 3 ] || { echo "settings $settings: exit $status"; false; }
    [ "${#lines[@]}" -eq 1 ] || { echo "settings $settings: $output"; false; }
    [[ "$output" == *"$message"* ]] || { echo "settings $settings: $output"; false; }
  done <<'TABLE'
{"sweep": []}|sweep must be a non-empty list of axes
{"sweep": [{"axis": "k", "values": [1]}]}|axis must be one of iterations, concurrency, env
{"sweep": [{"axis": "iterations", "values": []}]}|values must be a non-empty list without repeats
{"sweep": [{"axis": "iterations", "values": [5, 5]}]}|values must be a non-empty list without repeats
{"sweep": [{"axis": "iterations", "values": [0]}]}|iterations must be an integer from 1
{"sweep": [{"axis": "concurrency", "values": ["4"]}]}|concurrency must be an integer from 1
{"sweep": [{"axis": "env", "values": [1]}]}|an env axis needs a name
{"sweep": [{"axis": "env", "name": "lower", "values": [1]}]}|an env axis needs a name
{"sweep": [{"axis": "env", "name": "X", "values": ["a b"]}]}|is not a value of X
{"sweep": [{"axis": "iterations", "name": "X", "values": [1]}]}|name and default belong to an env axis
{"sweep": [{"axis": "iterations", "values": [1]}, {"axis": "iterations", "values": [2]}]}|a second iterations axis for the same variants
{"sweep": [{"axis": "iterations", "values": [1], "for": {"colour": "red"}}]}|names unknown field 'colour'
{"sweep": [{"axis": "iterations", "values": [1], "step": 2}]}|unknown field 'step'
{"budget": {"seconds": 0, "max_rounds": 5}}|seconds must be a number above 0
{"budget": {"seconds": true, "max_rounds": 5}}|seconds must be a number above 0
{"budget": {"seconds": 1, "max_rounds": 0}}|max_rounds must be an integer from 1
{"budget": {"seconds": 1}}|max_rounds must be an integer from 1
{"budget": 4}|budget must be an object
{"variants_of": {"profile": "nosuch"}}|variants_of names profile 'nosuch'
{"variants_of": {"profile": "scaling"}}|variants_of names profile 'scaling'
{"variants_of": "quick"}|variants_of must be an object
TABLE
}
