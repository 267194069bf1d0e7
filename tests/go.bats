#!/usr/bin/env bats
# The Go programs (go/cmd/readfile -> build/bin/go-readfile): the contract
# line for each variant, flag forms, and bad input with exit codes and messages.

load test_helper

setup() {
  [ -x "$BIN/go-readfile" ] || skip "build/bin/go-readfile is not built: run make go"
  cd "$ROOT"
  WRONG="$BATS_TEST_TMPDIR/wrong.txt"
  printf 'Hello, World' > "$WRONG"
}

go_ids() { catalog ids --lang go; }

# expect_go CODE PATTERN FLAGS... -- every Go variant exits CODE with nothing on
# stdout and PATTERN on stderr (see expect_variants in test_helper.bash).
expect_go() {
  local code=$1 pattern=$2
  shift 2
  expect_variants "$code" "$pattern" "$(go_ids)" "$@"
}

@test "the catalog lists both Go variants" {
  run go_ids
  assert_line go/sync-sequential
  assert_line go/goroutine-parallel
}

@test "every Go variant prints one contract line at N=200 and nothing on stderr" {
  local id
  for id in $(go_ids); do
    run_variant "$id" 200
    assert_success
    assert_equal "${#lines[@]}" 1
    assert_equal "$stderr" ""
    check_result_line "$id" 200 "$output"
  done
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

@test "N = 0 is a usage error" {
  expect_go 2 "iterations must be a positive integer, got 0" --iterations 0
}

@test "a negative N is a usage error" {
  expect_go 2 "iterations must be a positive integer, got -5" --iterations -5
}

@test "a non-numeric N is a usage error" {
  expect_go 2 'invalid value "abc" for flag -iterations' --iterations abc
}

@test "an unknown flag is a usage error that prints the usage" {
  expect_go 2 "flag provided but not defined: -frobnicate" --frobnicate 1
  run --separate-stderr "$BIN/go-readfile" --frobnicate
  [[ "$stderr" == *"usage: go-readfile"* ]]
}

@test "a negative concurrency or warm-up is a usage error" {
  expect_go 2 "concurrency must be zero" --concurrency -1
  expect_go 2 "warmup must be zero or a positive integer" --warmup -1
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

@test "a missing fixture is an environment error naming the path" {
  expect_go 3 "fixture nope/missing\.txt is missing" --file nope/missing.txt
}

@test "a directory instead of a file is an environment error" {
  expect_go 3 "fixture fixtures is a directory" --file fixtures
}

@test "an unreadable fixture is an environment error" {
  [ "$(id -u)" -ne 0 ] || skip "root reads files whatever their mode"
  local locked="$BATS_TEST_TMPDIR/locked.txt"
  printf 'Hello, world' > "$locked"
  chmod 000 "$locked"
  expect_go 3 "is unreadable" --file "$locked"
}

@test "a wrong --expect fails verification and names the iteration" {
  expect_go 1 'iteration [0-9]+: read 12 bytes "Hello, world", expected 7 bytes "Goodbye"' --expect Goodbye
}

@test "a wrong fixture fails verification and names the iteration" {
  expect_go 1 'iteration [0-9]+: read 12 bytes "Hello, World"' --file "$WRONG"
}

@test "--help prints the usage on stdout and exits 0" {
  run --separate-stderr "$BIN/go-readfile" --help
  assert_success
  assert_line --index 0 --partial "usage: go-readfile"
  assert_output --partial "goroutine-parallel"
  assert_equal "$stderr" ""
}
