#!/usr/bin/env bats
# The README stays true: its two commands, its variant tables (one per
# workload, from runner/catalog/), its links and the files it names.

load test_helper

@test "the README's variant table is the catalog's" {
  run catalog readme --check
  assert_success
}

@test "the README shows the two commands and the test command is what CI runs" {
  run grep -c -e 'make compare' -e 'make test' "$ROOT/README.md"
  assert_success
  grep -q 'make test' "$ROOT/.ci/run"
}

@test "every relative link of the README points at a file" {
  local link missing=""
  # shellcheck disable=SC2013  # links hold no blanks: one a word
  for link in $(grep -o '](\([^)#]*\))' "$ROOT/README.md" | sed 's/^](//; s/)$//'); do
    case $link in http*|'') continue ;; esac
    [ -e "$ROOT/$link" ] || missing+=" $link"
  done
  [ -z "$missing" ] || { echo "missing:$missing"; false; }
}

@test "every file the READMEs name in backticks exists (no runner/catalog.json, no moved file)" {
  local doc path missing=""
  for doc in README.md node/README.md; do
    for path in $(grep -o '`[^` ]*`' "$ROOT/$doc" | tr -d '`' \
        | grep -E '^(c|go|node|runner|tests|plots|fixtures|scripts)/[^<>{}*]*\.[a-z]+$' | sort -u); do
      [ -e "$ROOT/$path" ] || missing+=" $doc:$path"
    done
  done
  [ -z "$missing" ] || { echo "missing:$missing"; false; }
}

@test "the README's reference results are generated from the run they link" {
  local run
  run=$(sed -n '/reference-results:begin/,/reference-results:end/p' "$ROOT/README.md" \
    | grep -o 'results/[^]`)]*/REPORT.md' | head -1)
  [ -n "$run" ] || { echo "the README links no reference run"; false; }
  run "$PYTHON" "$ROOT/runner/readme.py" --check "$ROOT/$(dirname "$run")"
  assert_success
}
