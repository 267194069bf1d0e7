#!/usr/bin/env bats
# make aa (runner/tools/aa.py, DESIGN section 7): a variant against itself in
# lockstep, compared many times; at a size that fits the test run, with the
# check that fails when the false positives are beyond what a 5% rate gives.

load test_helper

@test "aa: a C variant against itself, 30 comparisons of 6 process pairs, is within the check; aa.json and aa.md say what ran" {
  run --separate-stderr "$PYTHON" -m runner.tools.aa --case 'noop/c/sync-sequential@none:0.2' \
    --comparisons 30 --sessions 6 --pairs 4 --check --seed 5 --out "$BATS_TEST_TMPDIR/out" --node none
  [ "$status" -eq 0 ] || fail "exit $status: $stderr"
  [[ "$output" == *'| `noop/c/sync-sequential@none` | 0.2 ms (N = '* ]] || fail "$output"
  folder=$(echo "$BATS_TEST_TMPDIR"/out/*/aa-*)
  [ -f "$folder/aa.md" ] && [ -f "$folder/host.json" ] || fail "no aa.md or host.json in $folder"
  "$PYTHON" - "$folder/aa.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["comparisons"] == 30 and d["sessions"] == 6 and d["pairs"] == 4 and d["seed"] == 5, d
(c,) = d["cases"]
assert c["variant"] == "noop/c/sync-sequential@none" and c["comparisons"] == 30, c
assert 0 <= c["false_positives"] <= 30 and c["rate"] == c["false_positives"] / 30, c
assert c["rate_ci_low"] <= c["rate"] <= c["rate_ci_high"], c
assert c["check_failed"] is False and c["pass_n"] >= 1, c
PY
}

@test "aa: a bad case is a usage error in one line" {
  run --separate-stderr "$PYTHON" -m runner.tools.aa --case 'nosuch/c/x-sequential@y' --comparisons 1 \
    --out "$BATS_TEST_TMPDIR/out" --node none
  [ "$status" -eq 2 ] && [[ "$stderr" == "aa: no variant nosuch/c/x-sequential@y in the catalog" ]] ||
    fail "exit $status: $stderr"
  run --separate-stderr "$PYTHON" -m runner.tools.aa --case 'noop/c/sync-sequential@none:x' --out "$BATS_TEST_TMPDIR/out"
  [ "$status" -eq 2 ] && [[ "$stderr" == *"must be a number of ms"* ]] || fail "exit $status: $stderr"
}
