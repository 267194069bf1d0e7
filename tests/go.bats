#!/usr/bin/env bats
# The Go programs (go/cmd/<workload> -> build/bin/go-<workload>, all on
# go/internal/contract): what a Go line holds, flag forms and the usage.  Every
# Go variant's contract line is contract.bats'; Go's own words for each bad
# input are the catalog's (bad_inputs), checked by badinput.bats.  A new Go
# workload needs no edit here.

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
