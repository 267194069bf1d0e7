#!/usr/bin/env bats
# The Node.js variants (node/readfile and the node --test method in
# node/nodetest): the contract line, Node's own words for bad input (that every
# program rejects bad input is badinput.bats'), and the unit tests of node/lib.  Skipped, with a reason, when node is absent.

load test_helper

setup() {
  command -v "${NODE:-node}" >/dev/null \
    || skip "node is not installed: the Node variants are skipped (install Node.js 20+ to run them)"
  cd "$ROOT"
  WRONG="$BATS_TEST_TMPDIR/wrong.txt"
  printf 'Hello, World' > "$WRONG"
}

node_ids() { catalog ids --lang node; }

@test "the catalog lists every Node program of the readfile table, both methods" {
  local name
  for name in callback-parallel callback-sequential callback-bounded promise-parallel \
      promise-sequential promise-counter-parallel await-parallel await-sequential await-bounded; do
    run catalog field "node/$name" argv
    assert_success
    assert_output "[\"{node}\", \"node/readfile/$name.mjs\"]"
  done
  run catalog ids --profile seed --lang node
  assert_line node/await-nodetest-parallel
  assert_line node/callback-nodetest-sequential
  assert_line node/promise-counter-nodetest-parallel
}

@test "every Node variant prints one contract line at N=30 and nothing on stderr" {
  expect_contract_lines 30 "$(node_ids)"
}

@test "a Node line records Node's and libuv's versions and the backend" {
  run_variant node/callback-sequential 3
  assert_success
  assert_output --regexp '"runtime":"node v[0-9]+\.[0-9]+\.[0-9]+ \(libuv [0-9]+\.[0-9]+\.[0-9]+\)"'
  assert_output --partial '"backend":"fs.readFile"'
  assert_output --partial '"concurrency":1,'
  run_variant node/await-parallel 3
  assert_output --partial '"backend":"fs.promises.readFile"'
}

@test "bounded Node variants honour --concurrency and default to 64" {
  local id
  for id in node/callback-bounded node/await-bounded; do
    run_variant "$id" 25 --concurrency 4
    assert_success
    check_result_line "$id" 25 "$output"
    assert_output --partial '"concurrency":4,'
    run_variant "$id" 3
    assert_output --partial '"concurrency":64,'
  done
}

@test "a warm-up is verified and not counted in the result" {
  run_variant node/promise-sequential 4 --warmup 6
  assert_success
  check_result_line node/promise-sequential 4 "$output"
}

@test "the node --test method keeps the test runner's output off stdout" {
  run_variant node/await-nodetest-sequential 12
  assert_success
  assert_equal "${#lines[@]}" 1
  refute_output --partial "TAP"
  check_result_line node/await-nodetest-sequential 12 "$output"
}

@test "every Node variant names each bad input of badinput.bats exactly" {
  expect_cases "$(node_ids)" <<EOF
  2 | iterations must be a positive integer | --iterations 0
  2 | iterations must be a positive integer, got "-5" | --iterations -5
  2 | iterations must be a positive integer, got "abc" | --iterations abc
  2 | unknown flag "--frobnicate" | --frobnicate 1
  3 | fixture nope/missing\\.txt is missing | --file nope/missing.txt
  3 | fixture fixtures is a directory | --file fixtures
  1 | iteration [0-9]+: read "Hello, world", expected "Goodbye" | --expect Goodbye
  1 | iteration [0-9]+: read "Hello, World", expected "Hello, world" | --file $WRONG
EOF
}

@test "an unknown flag prints the usage" {
  run --separate-stderr node node/readfile/callback-parallel.mjs --frobnicate
  assert_failure 2
  [[ "$stderr" == *"usage: node/readfile/callback-parallel.mjs"* ]]
}

@test "--help prints the usage on stdout and exits 0" {
  run --separate-stderr node node/readfile/await-bounded.mjs --help
  assert_success
  assert_line --index 0 --partial "usage: node/readfile/await-bounded.mjs"
  assert_output --partial "--concurrency K"
  assert_equal "$stderr" ""
}

@test "the node --test method rejects an unknown variant name" {
  run --separate-stderr node node/nodetest/run.mjs callback-everywhere --iterations 3
  assert_failure 2
  assert_equal "$output" ""
  [[ "$stderr" == *'unknown variant "callback-everywhere"'* ]]
}

@test "the limiter and contract unit tests pass under node --test" {
  run node --test node/lib/
  assert_success
  assert_output --partial "# fail 0"
}
