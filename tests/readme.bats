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
        | grep -E '^(c|go|node|runner|tests|plots|fixtures|scripts)/[^<>{}*@]*\.[a-z]+$' | sort -u); do
      [ -e "$ROOT/$path" ] || missing+=" $doc:$path"
    done
  done
  [ -z "$missing" ] || { echo "missing:$missing"; false; }
}

@test "the README's generated blocks are generated from the reference runs they link" {
  local r
  r=$(sed -n '/reference-results:begin/,/reference-results:end/p' "$ROOT/README.md" \
    | grep -o 'results/reference/[^]`)]*/REPORT.md' | head -1)
  [ -n "$r" ] || { echo "the README links no reference run under results/reference/"; false; }
  run "$PYTHON" "$ROOT/runner/readme.py" --check
  assert_success
  # The first screen answers: the generated verdicts come before the two commands.
  run grep -n -m1 -e '<!-- answer:begin -->' -e '^## Two commands' "$ROOT/README.md"
  assert_output --partial 'answer:begin'
}

@test "readme.py --check fails when a generated block was edited by hand" {
  sed 's/ran \([0-9]\)/ran 9\1/' "$ROOT/README.md" > "${BATS_TEST_TMPDIR}/README.md"
  run ! cmp -s "$ROOT/README.md" "${BATS_TEST_TMPDIR}/README.md"
  run "$PYTHON" "$ROOT/runner/readme.py" --check --readme "${BATS_TEST_TMPDIR}/README.md"
  assert_failure 1
  assert_output --partial "the generated blocks differ"
}

@test "the README's prose outside the generated blocks quotes no measured ratio" {
  # Figures of a run belong in the generated blocks (checked above); the seeds'
  # own claims are in the seeds' table.
  run awk '/<!-- (answer|reference-results|catalog-table):begin -->/ { skip = 1 }
           !skip && !/^\| 00[0-9] \|/ && /[0-9]\.[0-9]+x( |\]|,|$)/ { print FILENAME ":" NR ": " $0 }
           /<!-- (answer|reference-results|catalog-table):end -->/ { skip = 0 }' "$ROOT/README.md"
  assert_output ""
}

@test "every seed is named once, with its title and claim, in the seeds' table" {
  local n
  for n in 000 001 002 003 004; do
    run grep -c "^| $n | " "$ROOT/README.md"
    assert_output 1
  done
}

@test "the README names no path outside the repository" {
  run grep -n -e '\.\./' "$ROOT/README.md"
  assert_output ""
}

@test "every runner option is documented in the README" {
  local opt missing=""
  for opt in $("$PYTHON" "$ROOT/runner/run.py" --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
    [ "$opt" = --help ] && continue
    grep -q -- "\`$opt" "$ROOT/README.md" || missing+=" $opt"
  done
  [ -z "$missing" ] || { echo "undocumented:$missing"; false; }
}
