#!/usr/bin/env bats
# The reproduction table of seed 000's claims (the claims of
# catalog/readfile.json, rendered by runner/analysis/reproduce.py) in the
# REPORT.md of a real, short runner run: present, and every measured cell
# holds a number or says in words why there is none.

load test_helper

# check_cells REPORT -- fails naming the first measured cell that has neither
# a number nor a reason.
check_cells() {
  "$PYTHON" - "$1" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
if "## Seed 000 reproduced" not in text:
    sys.exit("no '## Seed 000 reproduced' section in %s" % sys.argv[1])
section = text.split("## Seed 000 reproduced", 1)[1]
# The measured columns of each table: claims from the 4th, the others from the 2nd.
tables = {"| # |": 3, "| gap | in Node": 1, "| gap in Node |": 1}
rows = 0
lines = section.splitlines()
for header, first in tables.items():
    starts = [i for i, l in enumerate(lines) if l.startswith(header)]
    if not starts:
        sys.exit("table %r is missing" % header)
    for l in lines[starts[0] + 2:]:
        if not l.startswith("|"):
            break
        cells = [c.strip() for c in l.strip("|").split("|")]
        for c in cells[first:]:
            if not re.search(r"\d|not measured: \S|cannot tell|the same", c):
                sys.exit("cell %r of row %r has neither a number nor a reason" % (c, cells[0]))
        rows += 1
if rows < 12:
    sys.exit("only %d rows in the reproduction tables" % rows)
PY
}

@test "a short run's REPORT.md has the reproduction section with a number or a reason in every cell" {
  cd "$ROOT"
  run "$PYTHON" -m runner --profile quick --rounds 2 --warmup-rounds 0 --iterations 40 \
    --filter '^readfile/go/sync' --filter '^readfile/c/callback-(sequential|parallel)@' \
    --filter '^readfile/node/(callback|await)-(sequential|parallel)@fs\.' \
    --no-charts --out "$BATS_TEST_TMPDIR/results" --host bats-host
  assert_success
  local report
  # shellcheck disable=SC2012  # the newest of stamp-named folders
  report="$(ls -d "$BATS_TEST_TMPDIR"/results/bats-host/*/ | tail -1)REPORT.md"
  [ -f "$report" ]
  check_cells "$report"
  # With two rounds no paired CI exists, and the table says so rather than inventing one.
  grep -q "no CI: 2 paired rounds" "$report"
  # The C await variants were not selected: their cells give the reason.
  grep -Eq 'not measured: `readfile/c/await-parallel@node4` is (not in this run|not in the catalog yet)' "$report"
}

@test "the reproduction check catches a cell without a number or a reason" {
  local bad="$BATS_TEST_TMPDIR/REPORT.md"
  {
    echo "## Seed 000 reproduced"
    echo "| # | claim | seed | in-process | seed method | verdict |"
    echo "|---|---|---|---|---|---|"
    echo "| 1 | Node: x (a / b) | 4.8x | | 2.00x | holds |"
  } > "$bad"
  run check_cells "$bad"
  assert_failure
  assert_output --partial "neither a number nor a reason"
}

@test "reproduce.py prints the section for a run folder and refuses a folder without a summary" {
  cd "$ROOT"
  run "$PYTHON" -m runner.analysis.reproduce "$BATS_TEST_TMPDIR"
  assert_failure 3
  assert_output --partial "summary.json"
  run "$PYTHON" -m runner.analysis.reproduce
  assert_failure 2
}
