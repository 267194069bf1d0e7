#!/usr/bin/env bats
# The Node.js variants (node/<workload>/ on node/lib/contract.mjs, and the
# seeds' own methods: seed 000's node --test in node/lib/nodetest.mjs, seed
# 003's bluebird harness in node/lib/perfjs.mjs and its own programs on
# bluebird's fakes in node/doxbee/lib/fakes.mjs, seed 002's shape in
# node/cacheloop/lib/objkey.mjs, seed 001's CommonJS program in
# node/httpchain/lib/datenow.mjs, seed 004's measurement in
# node/asyncfib/lib/rssclock.mjs): what a Node line holds, the methods, the
# usage and the unit tests of node/lib.  Skipped, with a reason, when node is
# absent.  Every Node variant's contract line (and its default bound) is
# contract.bats'; Node's own words for each bad input are the catalog's
# (bad_inputs), checked by badinput.bats.  A new Node workload needs no edit
# here.

load test_helper

setup() {
  command -v "${NODE:-node}" >/dev/null \
    || skip "node is not installed: the Node variants are skipped (install Node.js 20+ to run them)"
  cd "$ROOT"
}

@test "the catalog lists every Node program of the readfile table, both methods" {
  local pair id file
  # label (the id without the workload) and the file of node/readfile/ it runs.
  for pair in callback-parallel@fs.readFile:callback-parallel \
      callback-sequential@fs.readFile:callback-sequential \
      callback-bounded@fs.readFile:callback-bounded \
      promise-parallel@fs.promises:promise-parallel \
      promise-sequential@fs.promises:promise-sequential \
      promise-counter-parallel@fs.promises:promise-counter-parallel \
      await-parallel@fs.promises:await-parallel \
      await-sequential@fs.promises:await-sequential \
      await-bounded@fs.promises:await-bounded \
      await-workers-bounded@fs.promises:await-workers-bounded \
      await-parallel@promisify:await-promisify-parallel \
      await-sequential@promisify:await-promisify-sequential; do
    id="readfile/node/${pair%%:*}"
    file="node/readfile/${pair#*:}.mjs"
    run catalog field "$id" argv
    assert_success
    assert_output "[\"{node}\", \"$file\"]"
  done
  run catalog ids --profile seed --lang node
  assert_line readfile/node/await-nodetest-parallel@fs.promises
  assert_line readfile/node/callback-nodetest-sequential@fs.readFile
  assert_line readfile/node/promise-counter-nodetest-parallel@fs.promises
  run catalog field readfile/node/promise-counter-nodetest-parallel@fs.promises argv
  assert_output '["{node}", "node/lib/nodetest.mjs", "node/readfile/promise-counter-parallel.mjs"]'
}

@test "every Node variant script hands its variant to contract.mjs's main(), which parses the flags and sets up the workload" {
  # What lets the bad-input and --help checks run one script of a folder
  # (program_ids): no script parses a flag or checks an input of its own.
  local id argv script word failures="" seen=0
  while IFS='|' read -r id argv; do
    case $argv in "{node} "*) ;; *) continue ;; esac
    # The variant's own script: the last .mjs of its command (the first is
    # the node --test wrapper's, when there are two).
    for word in $argv; do case $word in *.mjs) script=$word ;; esac; done
    seen=$((seen + 1))
    grep -qx "import { main } from '../lib/contract.mjs';" "$script" \
      && grep -qx 'main(variant, import.meta.url);' "$script" \
      && ! grep -q 'process\.argv' "$script" \
      || failures+="$id: $script does not hand its variant to main()"$'\n'
  done < <(catalog_rows id argv)
  [ "$seen" -gt 0 ] || failures+="no Node variant in the catalog"$'\n'
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
}

@test "a Node line records Node's and libuv's versions and the backend" {
  run_variant readfile/node/callback-sequential@fs.readFile 3
  assert_success
  assert_output --regexp '"runtime":"node v[0-9]+\.[0-9]+\.[0-9]+ \(V8 [0-9][0-9a-z.-]*, libuv [0-9]+\.[0-9]+\.[0-9]+\)"'
  assert_output --partial '"method":"inprocess","backend":"fs.readFile"'
  assert_output --partial '"concurrency":1,'
  run_variant readfile/node/await-parallel@fs.promises 3
  assert_output --partial '"backend":"fs.promises"'
  run_variant readfile/node/await-parallel@promisify 3
  assert_output --partial '"style":"await","shape":"","mode":"parallel","method":"inprocess","backend":"promisify"'
}

@test "a warm-up is verified and not counted in the result" {
  run_variant readfile/node/promise-sequential@fs.promises 4 --warmup 6
  assert_success
  check_result_line readfile/node/promise-sequential@fs.promises 4 "$output"
}

@test "the node --test method keeps the test runner's output off stdout" {
  run_variant readfile/node/await-nodetest-sequential@fs.promises 12
  assert_success
  assert_equal "${#lines[@]}" 1
  refute_output --partial "TAP"
  assert_output --partial '"method":"nodetest"'
  check_result_line readfile/node/await-nodetest-sequential@fs.promises 12 "$output"
}

@test "seed 003's harness method prints one contract line from its child process, for both shapes" {
  local id
  run catalog field doxbee/node/promise-parallel-perfjs-parallel@native argv
  assert_output '["{node}", "node/lib/perfjs.mjs", "node/doxbee/promise-parallel-parallel.mjs"]'
  for id in doxbee/node/promise-parallel-perfjs-parallel@native doxbee/node/callback-sequential-perfjs-parallel@setTimeout; do
    run_variant "$id" 40 --warmup 12 --delay-ms 0 --queries 3
    assert_success
    assert_equal "${#lines[@]}" 1
    assert_output --partial '"method":"perfjs"'
    assert_output --partial "\"variant\":\"$id\""
    check_result_line "$id" 40 "$output"
  done
}

@test "seed 003's harness method fails with the child's reason, and refuses a file that is not a variant" {
  run --separate-stderr node node/lib/perfjs.mjs node/readfile/callback-parallel.mjs --iterations 5 --expect Goodbye
  assert_failure 1
  assert_equal "$output" ""
  [[ "$stderr" == "node/lib/perfjs.mjs: node/readfile/callback-parallel.mjs: iteration "*"expected 7 bytes 'Goodbye'" ]]
  run --separate-stderr node node/lib/perfjs.mjs node/readfile/workload.mjs --iterations 3
  assert_failure 2
  [[ "$stderr" == *'unknown variant "node/readfile/workload.mjs"'* ]]
  run --separate-stderr node node/lib/perfjs.mjs --help
  assert_success
  assert_line --index 0 "usage: node/lib/perfjs.mjs node/<workload>/<file>.mjs [its flags]"
}

@test "seed 001's own program runs both styles in a child process against Node's server, seed and full profiles only" {
  local id ids
  run catalog ids --profile default --workload httpchain
  refute_output --partial -datenow-
  run catalog ids --profile seed --workload httpchain --lang node
  # the host's Node; the seed profile also has them on Node 8.17.0, the ladders' rung 2
  assert_line httpchain/node@8.17.0/await-datenow-sequential@nodeserver.close
  ids=$(printf '%s\n' "${lines[@]}" | grep -- '-datenow-' | grep -v -- /node@ | sort)
  assert_equal "$(printf '%s\n' "$ids" | tr '\n' ' ')" \
    "httpchain/node/await-datenow-sequential@nodeserver.close httpchain/node/callback-datenow-sequential@nodeserver.close "
  run catalog field httpchain/node/await-datenow-sequential@nodeserver.close argv
  assert_output '["{node}", "node/httpchain/lib/datenow.mjs", "node/httpchain/await-sequential.mjs", "--backend", "nodeserver.close"]'
  for id in $ids; do
    run_variant "$id" 20 --warmup 3
    assert_success
    assert_output --partial '"method":"datenow"'
    check_result_line "$id" 20 "$output"
  done
}

@test "seed 002's shape runs every Node cacheloop style in-process and says its method" {
  local id
  run catalog ids --profile seed --workload cacheloop --lang node
  assert_equal "$(printf '%s\n' "${lines[@]}" | grep -c -- '-objkey-')" 5
  for id in $(printf '%s\n' "${lines[@]}" | grep -- '-objkey-'); do
    run_variant "$id" 2000
    assert_success
    assert_output --partial '"method":"objkey"'
    check_result_line "$id" 2000 "$output"
  done
  run --separate-stderr node node/cacheloop/lib/objkey.mjs node/readfile/callback-parallel.mjs --iterations 3
  assert_failure 2
  [[ "$stderr" == *"is a variant of readfile; seed 002's shape is cacheloop's"* ]]
}

@test "seed 000's node --test method fails with one line on a wrong result" {
  run --separate-stderr node node/lib/nodetest.mjs node/readfile/callback-sequential.mjs --iterations 5 --expect Goodbye
  assert_failure 1
  assert_equal "$output" ""
  assert_equal "$stderr" "node/lib/nodetest.mjs: node/readfile/callback-sequential.mjs: iteration 0: read 12 bytes 'Hello, world', expected 7 bytes 'Goodbye'"
}

@test "seed 002's shape fails with one line when a load answers wrong from its plain-object cache" {
  # The seed's cache and key (the wrapper's pass.objkey), a hit cut short on the fourth load.
  cat > "$BATS_TEST_TMPDIR/sync-sequential.mjs" <<EOF
import fs from 'fs';
import { cacheKey, cacheloop, newCache, settle } from '$ROOT/node/cacheloop/workload.mjs';
export const variant = { workload: cacheloop, style: 'sync', mode: 'sequential', backend: 'fs.readFileSync',
  run(pass, done) {
    const cache = newCache(pass);
    const key = cacheKey(pass);
    const load = (name, i) => {
      const res = cache.get(name);
      if (res) { cache.hits++; return i === 3 ? res.subarray(1) : res; }
      cache.misses++;
      cache.set(name, fs.readFileSync(name));
      return cache.get(name);
    };
    pass.begin();
    for (let i = 0; i < pass.n; i++) pass.check(i, null, load(key(), i));
    settle(pass, cache);
    done();
  } };
EOF
  run --separate-stderr node node/cacheloop/lib/objkey.mjs "$BATS_TEST_TMPDIR/sync-sequential.mjs" --iterations 6
  assert_failure 1
  assert_equal "$output" ""
  assert_equal "$stderr" "node/cacheloop/lib/objkey.mjs: iteration 3: load returned 11 bytes, expected the file's 12"
}

@test "seed 003's own programs on bluebird's fakes run under the harness and in-process, seed and full profiles only" {
  local id ids
  run catalog ids --profile default --workload doxbee
  refute_output --partial @fakes.
  run catalog ids --profile seed --workload doxbee --lang node
  # the host's Node; the ladders' rung 2 runs four of them on Node 10.24.1 too
  assert_equal "$(printf '%s\n' "${lines[@]}" | grep -- '@fakes\.' | grep -c -- /node@10.24.1/)" 4
  ids=$(printf '%s\n' "${lines[@]}" | grep -- '@fakes\.' | grep -v -- /node@ | sort)
  assert_equal "$(printf '%s\n' "$ids" | grep -c -- -perfjs-)" 6
  assert_equal "$(printf '%s\n' "$ids" | grep -vc -- -perfjs-)" 6
  run catalog field doxbee/node/await-sequential-perfjs-parallel@fakes.native argv
  assert_output '["{node}", "node/lib/perfjs.mjs", "node/doxbee/await-sequential-parallel-fakes-native.mjs"]'
  for id in $ids; do
    run_variant "$id" 40 --warmup 12 --delay-ms 0 --queries 3
    assert_success
    assert_output --partial "\"variant\":\"$id\""
    check_result_line "$id" 40 "$output"
  done
}

@test "seed 003's own programs fail with one line when a fake answers wrong, by either method" {
  # The native sequential program on a lifter whose every answer is 7, where
  # bluebird's fakes answer nothing.
  cat > "$BATS_TEST_TMPDIR/promise-sequential-parallel.mjs" <<EOF
import { main } from '$ROOT/node/lib/contract.mjs';
import { nativeLifter, runSeedUploads, thenSequential } from '$ROOT/node/doxbee/lib/fakes.mjs';
import { doxbee } from '$ROOT/node/doxbee/workload.mjs';
const wrong = (fake) => {
  const lifted = nativeLifter(fake);
  return function answerSeven() { return lifted.apply(this, arguments).then(() => 7); };
};
export const variant = { workload: doxbee, style: 'promise', shape: 'sequential', mode: 'parallel', backend: 'fakes.native',
  run(pass, done) {
    runSeedUploads(pass, done, false, wrong,
      thenSequential((a, b, fn) => Promise.all([a, b]).then((both) => fn(both[0], both[1]))));
  } };
main(variant, import.meta.url);
EOF
  run --separate-stderr node node/lib/perfjs.mjs "$BATS_TEST_TMPDIR/promise-sequential-parallel.mjs" --iterations 5 --delay-ms 0
  assert_failure 1
  assert_equal "$output" ""
  assert_equal "$stderr" "node/lib/perfjs.mjs: $BATS_TEST_TMPDIR/promise-sequential-parallel.mjs: iteration 0: upload failed: blob put answered 7, expected undefined"
  run --separate-stderr node "$BATS_TEST_TMPDIR/promise-sequential-parallel.mjs" --iterations 5 --delay-ms 0
  assert_failure 1
  assert_equal "$output" ""
  assert_equal "$stderr" "$BATS_TEST_TMPDIR/promise-sequential-parallel.mjs: iteration 0: upload failed: blob put answered 7, expected undefined"
}

@test "seed 004's measurement runs the seed's five Node programs in-process, seed and full profiles only, and says its method" {
  local id ids
  run catalog ids --profile default --workload asyncfib
  refute_output --partial -rssclock-
  run catalog ids --profile seed --workload asyncfib --lang node
  # the host's Node; the ladders' rung 2 runs all five on Node 18.15.0 too
  assert_equal "$(printf '%s\n' "${lines[@]}" | grep -- '-rssclock-' | grep -c -- /node@18.15.0/)" 5
  ids=$(printf '%s\n' "${lines[@]}" | grep -- '-rssclock-' | grep -v -- /node@ | sort)
  assert_equal "$(printf '%s\n' "$ids" | tr '\n' ' ')" \
    "asyncfib/node/await-iterative-rssclock-sequential@none asyncfib/node/await-recursive-rssclock-sequential@none asyncfib/node/promise-iterative-rssclock-sequential@none asyncfib/node/sync-iterative-rssclock-sequential@none asyncfib/node/sync-recursive-rssclock-sequential@none "
  run catalog field asyncfib/node/await-recursive-rssclock-sequential@none argv
  assert_output '["{node}", "node/asyncfib/lib/rssclock.mjs", "node/asyncfib/await-recursive-sequential.mjs"]'
  for id in $ids; do
    run_variant "$id" 5 --warmup 1
    assert_success
    assert_output --partial '"method":"rssclock"'
    check_result_line "$id" 5 "$output"
  done
}

@test "seed 004's measurement fails with one line on a wrong fib, and refuses a file of another workload" {
  # A variant whose fib(7) is 20, not 21: a wrong result the measurement must catch.
  cat > "$BATS_TEST_TMPDIR/wrong-recursive-sequential.mjs" <<EOF
import { asyncfib, counter, plainPass } from '$ROOT/node/asyncfib/workload.mjs';
function fib(num) {
  counter.calls++;
  if (num === 7) return 20;
  return num <= 1 ? 1 : fib(num - 1) + fib(num - 2);
}
export const variant = { workload: asyncfib, style: 'sync', shape: 'recursive', mode: 'sequential',
  backend: 'none', fib, run(pass, done) { plainPass(pass, 'recursive', fib); done(); } };
EOF
  run --separate-stderr node node/asyncfib/lib/rssclock.mjs "$BATS_TEST_TMPDIR/wrong-recursive-sequential.mjs" --iterations 3
  assert_failure 1
  assert_equal "$output" ""
  assert_equal "$stderr" "node/asyncfib/lib/rssclock.mjs: iteration 0: fib(7) returned 20, expected 21"
  run --separate-stderr node node/asyncfib/lib/rssclock.mjs node/readfile/callback-parallel.mjs --iterations 3
  assert_failure 2
  [[ "$stderr" == *"is not an asyncfib variant with its fib; seed 004's measurement is asyncfib's"* ]]
}

@test "an unknown flag prints the usage" {
  run --separate-stderr node node/readfile/callback-parallel.mjs --frobnicate
  assert_failure 2
  [[ "$stderr" == *"usage: node/readfile/callback-parallel.mjs"* ]]
}

@test "--help prints the usage with the workload's own flags on stdout and exits 0" {
  run --separate-stderr node node/readfile/await-bounded.mjs --help
  assert_success
  assert_line --index 0 --partial "usage: node/readfile/await-bounded.mjs"
  assert_output --partial "--concurrency K"
  assert_output --partial "--file PATH"
  assert_equal "$stderr" ""
}

@test "the node --test method rejects a file that is not a variant" {
  run --separate-stderr node node/lib/nodetest.mjs node/readfile/callback-everywhere.mjs --iterations 3
  assert_failure 2
  assert_equal "$output" ""
  [[ "$stderr" == *'unknown variant "node/readfile/callback-everywhere.mjs"'* ]]
  run --separate-stderr node node/lib/nodetest.mjs node/readfile/workload.mjs --iterations 3
  assert_failure 2
  assert_equal "$output" ""
  [[ "$stderr" == *'unknown variant "node/readfile/workload.mjs"'* ]]
}

@test "the limiter and contract unit tests pass under node --test" {
  run node --test node/lib/
  assert_success
  assert_output --partial "# fail 0"
}
