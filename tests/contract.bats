#!/usr/bin/env bats
# The program contract (DESIGN section 3) for every variant in the catalog: one
# JSON line with every field, ok == iterations, nothing else on stdout.

load test_helper

@test "every catalog variant prints one valid JSON line at N=50 and nothing on stderr" {
  expect_contract_lines 50 "$(contract_ids)"
}

@test "every catalog variant verifies N=1 and a warm-up" {
  local failures="" id
  for id in $(contract_ids); do
    run_variant "$id" 1 --warmup 3
    [ "$status" -eq 0 ] && check_result_line "$id" 1 "$output" \
      || failures+="$id: exit $status: $stderr"$'\n'
  done
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
}

@test "bounded variants report the concurrency they were given" {
  local failures="" id
  for id in $(contract_ids); do
    [ "$(catalog field "$id" mode)" = bounded ] || continue
    run_variant "$id" 40 --concurrency 3
    [ "$status" -eq 0 ] || { failures+="$id: exit $status"$'\n'; continue; }
    [[ "$output" == *'"concurrency":3,'* ]] || failures+="$id: $output"$'\n'
  done
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
}

@test "a C variant reads the fixture and nothing else is on stdout" {
  run_variant c/callback-parallel 10
  assert_success
  assert_equal "${#lines[@]}" 1
  assert_output --partial '"variant":"c/callback-parallel"'
  assert_output --partial '"bytes":120,'
  assert_equal "$stderr" ""
}

@test "the test-only variant reports fewer completions than iterations" {
  run_variant c/callback-nowait-parallel 2000
  assert_success
  run "$PYTHON" "$ROOT/tests/check_result.py" c/callback-nowait-parallel 2000 "$output"
  assert_failure
}

@test "the catalog's ids follow <lang>/<style>-<mode> and point at existing programs" {
  local id prog
  for id in $(catalog ids); do
    [[ "$id" =~ ^(c|go|node)/[a-z]+(-[a-z]+)*-(sequential|parallel|bounded)$ ]]
    variant_argv "$id"
    prog="${VARIANT_ARGV[0]}"
    if [ "$prog" = node ] || [ "$prog" = "${NODE:-node}" ]; then
      [ -f "$ROOT/${VARIANT_ARGV[1]}" ]
    else
      [ -x "$prog" ]
    fi
  done
}

@test "the fixture is exactly the 12 bytes 'Hello, world'" {
  run cat "$FIXTURE"
  assert_output "Hello, world"
  run wc -c < "$FIXTURE"
  assert_output --regexp '^ *12$'
}
