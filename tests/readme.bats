#!/usr/bin/env bats
# The README stays true: its two commands, its variant table, its links.

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
  for link in $(grep -o '](\([^)#]*\))' "$ROOT/README.md" | sed 's/^](//; s/)$//'); do
    case $link in http*|'') continue ;; esac
    [ -e "$ROOT/$link" ] || missing+=" $link"
  done
  [ -z "$missing" ] || { echo "missing:$missing"; false; }
}
