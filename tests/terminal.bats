#!/usr/bin/env bats
# terminal.bats -- what a run prints at its end fits the terminal: the default
# table of a real run folder (the committed reference run, re-rendered in a
# copy) is at most 100 columns wide (the lines that name a path aside), the verdicts wrap at the terminal's width
# (100 when the output is not one), --wide prints every column, and a
# re-rendered reference run's summary.json and samples.csv stay as committed.

load test_helper

# width FILE -- the widest line of FILE, in characters (not bytes: µ is two),
# leaving out the lines that end with a path (where the run folder is: the
# test's own temporary folder is long).
width() {
  "$PYTHON" -c 'import re, sys; print(max(len(l) for l in open(sys.argv[1], encoding="utf-8").read().split("\n") if not re.match("(every comparison, one by one|charts|report): ", l)))' "$1"
}

setup_file() {
  local first
  first=$(sed -n 's|.*reference-runs: \([^ ]*\) .*|\1|p' "$ROOT/README.md")
  [ -n "$first" ] || return 1
  REF="$ROOT/$first"
  COPY="${BATS_FILE_TMPDIR}/h/$(basename "$first")"
  export REF COPY
  mkdir -p "${BATS_FILE_TMPDIR}/h"
  cp -R "$REF" "$COPY"
}

@test "the default table of the reference run fits 100 columns, and the verdicts with it" {
  env -u COLUMNS "$PYTHON" -m runner --render "$COPY" --no-charts > "${BATS_TEST_TMPDIR}/out"
  run width "${BATS_TEST_TMPDIR}/out"
  assert_success
  [ "$output" -le 100 ] || { echo "the output is $output columns wide"; false; }
  # It is the compact table: one ratio a row, every variant of the run in it.
  run grep -c '  vs own baseline$' "${BATS_TEST_TMPDIR}/out"
  assert_output "$("$PYTHON" -c 'import json, sys; print(len({r["workload"] for r in json.load(open(sys.argv[1]))["variants"]}))' "$REF/summary.json")"
  run "$PYTHON" "$ROOT/tests/reader_check.py" table "${BATS_TEST_TMPDIR}/out" "$REF/summary.csv"
  assert_success
  grep -qx "Verdicts:" "${BATS_TEST_TMPDIR}/out"
}

@test "COLUMNS narrows the verdicts' lines; --wide prints every column, wider than 100" {
  COLUMNS=70 "$PYTHON" -m runner --render "$COPY" --no-charts > "${BATS_TEST_TMPDIR}/narrow"
  run sh -c "sed -n '/^Verdicts:/,/^every comparison/p' '${BATS_TEST_TMPDIR}/narrow' > '${BATS_TEST_TMPDIR}/v'"
  run grep -c '^    ' "${BATS_TEST_TMPDIR}/v"
  [ "$output" -gt 0 ]
  [ -s "${BATS_TEST_TMPDIR}/v" ]
  run width "${BATS_TEST_TMPDIR}/v"
  [ "$output" -le 70 ] || { echo "the verdicts are $output columns wide at COLUMNS=70"; false; }
  env -u COLUMNS "$PYTHON" -m runner --render "$COPY" --no-charts --wide > "${BATS_TEST_TMPDIR}/wide"
  run width "${BATS_TEST_TMPDIR}/wide"
  [ "$output" -gt 100 ] || { echo "the wide table is only $output columns wide"; false; }
  grep -q 'Δ ' "${BATS_TEST_TMPDIR}/wide"
  run "$PYTHON" "$ROOT/tests/reader_check.py" table "${BATS_TEST_TMPDIR}/wide" "$REF/summary.csv"
  assert_success
}

@test "--render takes --wide, and a run's own options still are refused beside it" {
  run "$PYTHON" -m runner --render "$COPY" --wide --rounds 3
  assert_failure 2
  assert_output --partial "--rounds would be ignored"
}

@test "re-rendering the reference run leaves its summary.json and samples.csv as committed" {
  env -u COLUMNS "$PYTHON" -m runner --render "$COPY" --no-charts > /dev/null
  cmp "$REF/samples.csv" "$COPY/samples.csv"
  cmp "$REF/summary.json" "$COPY/summary.json"
}
