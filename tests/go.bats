#!/usr/bin/env bats
# The Go programs (go/cmd/readfile -> build/bin/go-readfile): the contract
# line for each variant, flag forms, and Go's own words for bad input (that
# every program rejects bad input is badinput.bats').

load test_helper

setup() {
  [ -x "$BIN/go-readfile" ] || skip "build/bin/go-readfile is not built: run make go"
  cd "$ROOT"
  WRONG="$BATS_TEST_TMPDIR/wrong.txt"
  printf 'Hello, World' > "$WRONG"
}

go_ids() { catalog ids --lang go; }

@test "the catalog lists both Go variants" {
  run go_ids
  assert_line go/sync-sequential
  assert_line go/goroutine-parallel
}

@test "every Go variant prints one contract line at N=200 and nothing on stderr" {
  expect_contract_lines 200 "$(go_ids)"
}

@test "a Go line names os.ReadFile, the Go version and its concurrency" {
  run_variant go/sync-sequential 3
  assert_success
  assert_output --regexp '"runtime":"go[0-9]+\.[0-9]+'
  assert_output --partial '"backend":"os.ReadFile"'
  assert_output --partial '"concurrency":1,'
  run_variant go/goroutine-parallel 3
  assert_output --partial '"style":"goroutine","mode":"parallel"'
  assert_output --partial '"concurrency":0,'
}

@test "single-dash and --name=value flags work as Go's flag package allows" {
  run --separate-stderr "$BIN/go-readfile" -variant=goroutine-parallel -iterations=7 -warmup 2
  assert_success
  check_result_line go/goroutine-parallel 7 "$output"
}

@test "Go names each bad input of badinput.bats exactly" {
  expect_cases "$(go_ids)" <<EOF
  2 | iterations must be a positive integer, got 0 | --iterations 0
  2 | iterations must be a positive integer, got -5 | --iterations -5
  2 | invalid value "abc" for flag -iterations | --iterations abc
  2 | flag provided but not defined: -frobnicate | --frobnicate 1
  2 | concurrency must be zero | --concurrency -1
  2 | warmup must be zero or a positive integer | --warmup -1
  3 | fixture nope/missing\\.txt is missing | --file nope/missing.txt
  3 | fixture fixtures is a directory | --file fixtures
  1 | iteration [0-9]+: read 12 bytes "Hello, world", expected 7 bytes "Goodbye" | --expect Goodbye
  1 | iteration [0-9]+: read 12 bytes "Hello, World" | --file $WRONG
EOF
}

@test "an unknown flag prints the usage" {
  run --separate-stderr "$BIN/go-readfile" --frobnicate
  assert_failure 2
  [[ "$stderr" == *"usage: go-readfile"* ]]
}

@test "an unknown variant is a usage error listing the variants" {
  run --separate-stderr "$BIN/go-readfile" --variant callback-parallel --iterations 3
  assert_failure 2
  assert_equal "$output" ""
  [[ "$stderr" == *'unknown variant "callback-parallel"'*goroutine-parallel*sync-sequential* ]]
}

@test "a stray argument is a usage error" {
  run --separate-stderr "$BIN/go-readfile" --iterations 3 extra
  assert_failure 2
  [[ "$stderr" == *'unexpected argument "extra"'* ]]
}

@test "--help prints the usage on stdout and exits 0" {
  run --separate-stderr "$BIN/go-readfile" --help
  assert_success
  assert_line --index 0 --partial "usage: go-readfile"
  assert_output --partial "goroutine-parallel"
  assert_equal "$stderr" ""
}

@test "make go with an absolute BUILD puts go-readfile in that folder, not under the project" {
  local go_bin
  go_bin=$(sed -n 's/^GO=//p' "${BUILD_DIR}/deps.env" 2>/dev/null)
  [ -n "$go_bin" ] || go_bin=$(command -v go) || skip "no go"
  local out="$BATS_TEST_TMPDIR/b"
  run make --no-print-directory -C "$ROOT" "$out/bin/go-readfile" BUILD="$out" GO="$go_bin"
  assert_success
  [ -x "$out/bin/go-readfile" ]
  [ ! -e "$ROOT/${out#/}" ]
}
