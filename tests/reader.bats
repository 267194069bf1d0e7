#!/usr/bin/env bats
# reader.bats -- what a reader sees equals the data: the table run.py prints,
# REPORT.md's tables and the generated blocks of docs/results.md against summary.csv
# (tests/reader_check.py reads the printed text, not the runner's code), every
# `~` against its interval, the verdict sentences at the end of a run, and `?`
# instead of `~` when the rounds are too few for a test.

load test_helper

CHECK="${ROOT}/tests/reader_check.py"
# A few C and Node variants of readfile: C callbacks against C styles, Node
# callbacks against Node await.
FILTERS=(--filter '^readfile/c/(callback|await)-(sequential|parallel)@node4$'
         --filter '^readfile/node/(callback|await)-sequential@fs\.')

node_opt() {
  if command -v "${NODE:-node}" >/dev/null 2>&1; then command -v "${NODE:-node}"; else echo none; fi
}

setup_file() {
  export READER_OUT="${BATS_FILE_TMPDIR}/r"
  if [ -x "${BIN}/c-readfile" ]; then
    "$PYTHON" -m runner --profile quick --rounds 6 --warmup-rounds 0 --iterations 200 --seed 5 \
      "${FILTERS[@]}" --node "$(node_opt)" --no-charts --out "$READER_OUT" \
      > "${BATS_FILE_TMPDIR}/out" 2> "${BATS_FILE_TMPDIR}/err"
    echo $? > "${BATS_FILE_TMPDIR}/rc"
  fi
}

need_run() {
  [ -f "${BATS_FILE_TMPDIR}/rc" ] || skip "build/bin/c-readfile is not built (make all)"
  [ "$(cat "${BATS_FILE_TMPDIR}/rc")" = 0 ] || cat "${BATS_FILE_TMPDIR}/err"
  D="$("$PYTHON" -c 'import os,sys; print(os.path.realpath(sys.argv[1]))' "${READER_OUT}/latest")"
}

@test "the printed table's numbers and marks equal summary.csv" {
  need_run
  run "$PYTHON" "$CHECK" table "${BATS_FILE_TMPDIR}/out" "${D}/summary.csv"
  assert_success
  assert_output --regexp '^[0-9]+ cells agree with '
}

@test "REPORT.md's tables equal summary.csv, and they fit an issue comment" {
  need_run
  run "$PYTHON" "$CHECK" report "${D}/REPORT.md" "${D}/summary.csv"
  assert_success
  # Every table of the report has at most six columns.
  run awk -F'|' '/^\|/ && NF - 2 > 6 { print }' "${D}/REPORT.md"
  assert_output ""
  # Findings first (the verdicts, the targets), then the command that
  # reproduces the run, then the method and the host.
  run sh -c "grep '^## ' '${D}/REPORT.md' | grep -v '^## Targets$' | head -4"
  assert_output "$(printf '## Summary\n## Findings\n## Reproduce\n## Method')"
  # The summary table first, then the targets (when the run judges any), then the findings.
  run sh -c "grep '^## ' '${D}/REPORT.md' | head -3 | grep -n '^## Findings$'"
  assert_output --regexp '^(2|3):## Findings$'
  run grep -c '^| \*\*readfile\*\* ' "${D}/REPORT.md"
  assert_output 1
  grep -q "make compare PROFILE=quick ARGS='--seed 5 --rounds 6 --warmup-rounds 0 --iterations 200" "${D}/REPORT.md"
}

@test "the run ends with the verdicts, each style against its own language" {
  need_run
  # The verdicts wrap at 100 columns (stdout is no terminal): a line that goes on
  # is indented two more; read each sentence whole.
  awk '/^    / { sub(/^ +/, " "); printf "%s", $0; next } NR > 1 { print "" } { printf "%s", $0 }
       END { print "" }' "${BATS_FILE_TMPDIR}/out" > "${BATS_FILE_TMPDIR}/out.whole"
  run "$PYTHON" -c 'import re, sys; [print(l) for l in open(sys.argv[1], encoding="utf-8").read().split("\n") if len(l) > 100 and not re.match("(every comparison, one by one|charts|report): ", l)]' "${BATS_FILE_TMPDIR}/out"
  assert_output ""
  run cat "${BATS_FILE_TMPDIR}/out.whole"
  assert_line "Verdicts:"
  # The short verdicts: one sentence for the C styles, both modes in it.
  assert_line --regexp '^  `await` \((sequential|parallel)\) .*C callback'
  run grep -c -e '`await` (sequential)' -e '`await` (parallel)' "${BATS_FILE_TMPDIR}/out.whole"
  assert_output 1
  grep -q '`await` (sequential).*`await` (parallel)\|`await` (parallel).*`await` (sequential)' \
    "${BATS_FILE_TMPDIR}/out.whole"
  run cat "${BATS_FILE_TMPDIR}/out.whole"
  refute_line --regexp '^  In (sequential|parallel) mode'
  assert_line --regexp "^every comparison, one by one: .*/REPORT.md \(All verdicts\)$"
  assert_line --regexp "^report: .*/REPORT.md$"
  # REPORT.md: the short verdicts under Findings, every comparison under All verdicts.
  run sed -n '/^## All verdicts$/,/^## /p' "${D}/REPORT.md"
  assert_line --regexp '^- In sequential mode, against C callback: .*`await`'
  assert_line --regexp '^- In parallel mode, against C callback: .*`await`'
  run sed -n '/^## Findings$/,/^## /p' "${D}/REPORT.md"
  assert_line --regexp '^- `await` \((sequential|parallel)\) .*C callback'
  refute_line --regexp '^- In (sequential|parallel) mode'
  # summary.json: the headline entries compare within one language only.
  "$PYTHON" - "${D}/summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
h = s["headline"]
assert h and all(e["baseline"].split("/")[1] == e["lang"] for e in h), h
assert any(e["lang"] == "c" and e["style"] == "await" and not e["is_baseline"] for e in h)
for e in h:
    if not e["is_baseline"] and e["ratio_ci_low"] is not None:
        assert e["significant"] == ((e["ratio_ci_low"] > 1 or e["ratio_ci_high"] < 1)
                                    and e["q_value"] <= 0.05), e
assert s["verdicts"]["readfile"], s["verdicts"]
full = s["all_verdicts"]["readfile"]
assert [v.split(",")[0] for v in full][:2] == ["In sequential mode", "In parallel mode"], full
# Short: at most a sentence per language and backend of its baselines.
pairs = {(e["lang"], e["baseline"].rsplit("@", 1)[-1]) for e in h if not e["is_baseline"]}
assert len(s["verdicts"]["readfile"]) <= len(pairs), (s["verdicts"], pairs)
PY
}

@test "a number or a mark that disagrees with the summary is caught" {
  need_run
  # A time per operation one unit off.
  "$PYTHON" - "${BATS_FILE_TMPDIR}/out" "${BATS_TEST_TMPDIR}/num" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
line = next(l for l in text.splitlines() if l.startswith("c/await-sequential@"))
cells = re.split(r"(\s{2,})", line)
cells[4] = str(float(cells[4]) + 1)
open(sys.argv[2], "w", encoding="utf-8").write(text.replace(line, "".join(cells)))
PY
  run "$PYTHON" "$CHECK" table "${BATS_TEST_TMPDIR}/num" "${D}/summary.csv"
  assert_failure
  assert_output --partial "table row c/await-sequential@node4 time per operation: shown"
  # A `~` taken off (or put on) a ratio.
  sed -e 's/~ \([0-9]\)/\1/' -e 't' -e 's/  \([0-9][0-9.]*x \[\)/  ~ \1/' \
    "${BATS_FILE_TMPDIR}/out" > "${BATS_TEST_TMPDIR}/mark"
  run ! cmp -s "${BATS_FILE_TMPDIR}/out" "${BATS_TEST_TMPDIR}/mark"
  run "$PYTHON" "$CHECK" table "${BATS_TEST_TMPDIR}/mark" "${D}/summary.csv"
  assert_failure
  assert_output --regexp "(no '~' beside|'~' beside) .* interval that (includes|excludes) 1"
}

@test "too few rounds for a test print '?', never '~'" {
  [ -x "${BIN}/c-readfile" ] || skip "build/bin/c-readfile is not built (make all)"
  run "$PYTHON" -m runner --profile quick --rounds 3 --warmup-rounds 0 --iterations 50 \
    --filter '^readfile/c/(callback|await)-sequential@node4$' --no-charts --out "${BATS_TEST_TMPDIR}/q"
  assert_success
  assert_line --regexp '^c/await-sequential@node4 .* \? [0-9.]+x \[3 rounds\]'
  assert_line "? : too few paired rounds for a CI or a test (6 needed): no verdict either way"
  refute_output --regexp '(^| )~ [0-9]'
  assert_line --regexp '^  `await` [0-9.]+x against C callback, untested \(3 paired rounds: a test needs 6\)\.$'
}

@test "the committed reference runs' table in docs/results.md and REPORT.md equal their summaries" {
  local r
  for r in "$ROOT"/results/reference/*/*/; do
    [ -f "${r}summary.csv" ] || continue
    run "$PYTHON" "$CHECK" report "${r}REPORT.md" "${r}summary.csv"
    assert_success
  done
  sed -n '/reference-results:begin/,/reference-results:end/p' "$ROOT/docs/results.md" \
    > "${BATS_TEST_TMPDIR}/block"
  r=$(grep -o 'results/reference/[^]`)]*/REPORT.md' "${BATS_TEST_TMPDIR}/block" | head -1)
  [ -n "$r" ]
  run "$PYTHON" "$CHECK" table "${BATS_TEST_TMPDIR}/block" "$ROOT/$(dirname "$r")/summary.csv"
  assert_success
}
