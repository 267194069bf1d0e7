#!/usr/bin/env bats
# The Go programs (go/cmd/<workload> -> build/bin/go-<workload>, all on
# go/internal/contract): the contract line for each variant, flag forms, and
# Go's own words for bad input (that every program rejects bad input is
# badinput.bats').  A new Go workload adds rows to the table of bad inputs.

load test_helper

setup() {
  [ -x "$BIN/go-readfile" ] || skip "build/bin/go-readfile is not built: run make go"
  cd "$ROOT"
}

go_ids() { contract_ids "${1:-}" go; }

@test "the catalog lists both Go readfile variants" {
  run go_ids readfile
  assert_line readfile/go/sync-sequential@os.ReadFile
  assert_line readfile/go/goroutine-parallel@os.ReadFile
}

@test "every Go variant prints one contract line at N=200 and nothing on stderr" {
  expect_contract_lines 200 "$(go_ids)"
}

@test "a Go line names its backend, the Go version and its concurrency" {
  run_variant readfile/go/sync-sequential@os.ReadFile 3
  assert_success
  assert_output --regexp '"runtime":"go[0-9]+\.[0-9]+'
  assert_output --partial '"shape":"","mode":"sequential","method":"inprocess","backend":"os.ReadFile"'
  assert_output --partial '"concurrency":1,'
  run_variant readfile/go/goroutine-parallel@os.ReadFile 3
  assert_output --partial '"style":"goroutine","shape":"","mode":"parallel"'
  assert_output --partial '"concurrency":0,'
}

@test "single-dash and --name=value flags work as Go's flag package allows" {
  run --separate-stderr "$BIN/go-readfile" -variant=goroutine-parallel -iterations=7 -warmup 2
  assert_success
  check_result_line readfile/go/goroutine-parallel@os.ReadFile 7 "$output"
}

@test "Go names each bad input of badinput.bats exactly" {
  local wrong="$BATS_TEST_TMPDIR/wrong.txt"
  printf 'Hello, World' > "$wrong"
  # WORKLOAD | CODE | FLAGS | PATTERN; * is every workload's Go programs.
  expect_table go <<EOF
  *        | 2 | --iterations 0          | --iterations must be a positive integer, got 0
  *        | 2 | --iterations -5         | --iterations must be a positive integer, got -5
  *        | 2 | --iterations abc        | --iterations must be a positive integer, got abc
  *        | 2 | --iterations 0x10       | --iterations must be a positive integer, got 0x10
  *        | 2 | --frobnicate 1          | flag provided but not defined: -frobnicate
  *        | 2 | --concurrency -1        | --concurrency must be zero or a positive integer, got -1
  *        | 2 | --passes 0              | --passes must be an integer from 1 to 10000, got "0"
  *        | 2 | --warmup -1             | --warmup must be zero or a positive integer, got -1
  readfile | 3 | --file nope/missing.txt | fixture nope/missing\\.txt is missing
  readfile | 3 | --file fixtures         | fixture fixtures is a directory
  readfile | 1 | --expect Goodbye        | iteration [0-9]+: read 12 bytes 'Hello, world', expected 7 bytes 'Goodbye'
  readfile | 1 | --file $wrong           | iteration [0-9]+: read 12 bytes 'Hello, World'
  doxbee   | 2 | --delay-ms x            | --delay-ms must be an integer from 0 to 86400000, got "x"
  doxbee   | 2 | --delay-ms 86400001     | --delay-ms must be an integer from 0 to 86400000, got "86400001"
  doxbee   | 2 | --queries 0             | --queries must be an integer from 1 to 1000000, got "0"
  tasks    | 2 | --sleep-ms 5s           | --sleep-ms must be an integer from 0 to 86400000, got "5s"
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

@test "--help prints the usage with the workload's own flags on stdout and exits 0" {
  run --separate-stderr "$BIN/go-readfile" --help
  assert_success
  assert_line --index 0 --partial "usage: go-readfile"
  assert_line --index 0 --partial "[--file PATH]"
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
