#!/usr/bin/env bats
# Bad input (DESIGN section 9) for every program in the catalog: the right exit
# code, one line on stderr naming the problem, and nothing on stdout.

load test_helper

setup() {
  cd "$ROOT"
  EMPTY="$BATS_TEST_TMPDIR/empty.txt"
  WRONG="$BATS_TEST_TMPDIR/wrong.txt"
  : > "$EMPTY"
  printf 'Hello, World' > "$WRONG"
}

# expect_all CODE PATTERN FLAGS... -- every variant exits CODE, says PATTERN
# (an extended regexp) on stderr and prints nothing on stdout.
expect_all() {
  local code=$1 pattern=$2
  shift 2
  expect_variants "$code" "$pattern" "$(contract_ids)" "$@"
}

@test "N = 0 is a usage error" {
  expect_all 2 "iterations.*positive" --iterations 0
}

@test "a negative N is a usage error" {
  expect_all 2 "iterations.*positive" --iterations -5
}

@test "a non-numeric N is a usage error" {
  expect_all 2 "iterations" --iterations abc
}

@test "an unknown flag is a usage error" {
  expect_all 2 "unknown flag|not defined|unknown option" --frobnicate 1
}

@test "a negative concurrency is a usage error" {
  expect_all 2 "concurrency" --concurrency -1
}

@test "a missing fixture is an environment error naming the path" {
  expect_all 3 "nope/missing\.txt" --file nope/missing.txt
}

@test "a directory instead of a file is an environment error" {
  expect_all 3 "directory" --file fixtures
}

@test "an empty fixture fails verification at iteration 0" {
  expect_all 1 "iteration 0?.*expected" --file "$EMPTY"
}

@test "a wrong fixture fails verification and names the iteration" {
  expect_all 1 "iteration [0-9]+.*expected" --file "$WRONG"
}

@test "an unknown variant of a C driver is a usage error" {
  run --separate-stderr "$BIN/c-readfile" --variant nope-parallel
  assert_failure 2
  assert_equal "$output" ""
  [[ "$stderr" == *"unknown variant 'nope-parallel'"* ]]
}

@test "an unknown variant of a Go program is a usage error" {
  run --separate-stderr "$BIN/go-readfile" --variant nope-parallel
  assert_failure 2
  assert_equal "$output" ""
  [[ "$stderr" == *"nope-parallel"* ]]
}

@test "a FIFO as fixture is an environment error of the C driver, not a hang" {
  mkfifo "$BATS_TEST_TMPDIR/fifo"
  run --separate-stderr timeout 10 "$BIN/c-readfile" --variant callback-sequential \
    --iterations 1 --file "$BATS_TEST_TMPDIR/fifo"
  assert_failure 3
  assert_equal "$output" ""
  [[ "$stderr" == *"is a FIFO; --file must name a regular file"* ]]
}

@test "--help prints usage and exits 0" {
  run "$BIN/c-readfile" --help
  assert_success
  assert_output --partial "usage:"
  assert_output --partial "callback-parallel"
  refute_output --partial "nowait"
}

@test "an unreadable fixture is an environment error" {
  [ "$(id -u)" -ne 0 ] || skip "root reads files whatever their mode"
  local locked="$BATS_TEST_TMPDIR/locked.txt"
  printf 'Hello, world' > "$locked"
  chmod 000 "$locked"
  expect_all 3 "unreadable|not readable|permission" --file "$locked"
}

@test "a wrong --expect fails verification and names the iteration" {
  expect_all 1 "iteration [0-9]+.*expected" --expect Goodbye
}

@test "a FIFO as fixture is an environment error of every Go and Node program, not a hang" {
  command -v timeout >/dev/null || skip "no timeout command to guard against a hang"
  mkfifo "$BATS_TEST_TMPDIR/fifo"
  local id failures=""
  for id in $(contract_ids); do
    [ "$(catalog field "$id" lang)" != c ] || continue
    variant_argv "$id"
    run --separate-stderr timeout 10 "${VARIANT_ARGV[@]}" --iterations 1 --file "$BATS_TEST_TMPDIR/fifo"
    if [ "$status" -ne 3 ] || [ -n "$output" ] \
        || [[ "$stderr" != *"is a FIFO; --file must name a regular file"* ]]; then
      failures+="$id: exit $status, stdout '$output', stderr: $stderr"$'\n'
    fi
  done
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
}
