#!/usr/bin/env bats
# Bad input (DESIGN section 9) for every program of every workload in the
# catalog: the right exit code, one line on stderr naming the problem, and
# nothing on stdout.  The generic flags' cases and --help run one variant of
# each program (program_ids): every program parses its flags, and checks its
# input, in code its variants share, before any variant's own code runs;
# contract.bats runs every variant.  Each workload's own bad inputs are rows
# of the tables at the end, keyed by workload (expect_table: a failed
# verification runs on every variant), so a new workload adds rows and
# nothing else.

load test_helper

setup() {
  cd "$ROOT"
}

# expect_all CODE PATTERN FLAGS... -- every program of every workload (one
# variant of each) exits CODE, says PATTERN (an extended regexp) on stderr and
# prints nothing on stdout.
expect_all() {
  local code=$1 pattern=$2
  shift 2
  expect_variants "$code" "$pattern" "$(program_ids)" "$@"
}

# drivers -- one variant id a line for each C or Go program that takes
# --variant (the first of the catalog's variants it runs).
drivers() {
  local seen=" " id lang argv prog
  while IFS='|' read -r id lang argv; do
    case $lang in c | go) ;; *) continue ;; esac
    lang_selected "$lang" || continue
    case $argv in *" --variant "*) ;; *) continue ;; esac
    prog=${argv%% *}
    case $seen in *" $prog "*) continue ;; esac
    seen+="$prog "
    echo "$id"
  done < <(catalog_rows id lang argv)
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

@test "P = 0, a negative P and a P past the most are usage errors" {
  expect_all 2 "passes must be an integer from 1 to 10000" --passes 0
  expect_all 2 "passes must be an integer from 1 to 10000" --passes -2
  expect_all 2 "passes must be an integer from 1 to 10000" --passes 10001
}

@test "an unknown flag is a usage error" {
  expect_all 2 "unknown flag|not defined|unknown option" --frobnicate 1
}

@test "a negative concurrency is a usage error" {
  expect_all 2 "concurrency" --concurrency -1
}

# C once answered --iterations=5 with "needs a value" while Go and Node took it.
@test "every program takes --flag=VALUE as --flag VALUE, for the contract's flags and its workload's" {
  local id failures="" k eq why
  for id in $(program_ids); do
    eq=()
    workload_flags "$(catalog field "$id" workload)"
    for ((k = 0; k + 1 < ${#WORKLOAD_FLAGS[@]}; k += 2)); do
      eq+=("${WORKLOAD_FLAGS[k]}=${WORKLOAD_FLAGS[k + 1]}")
    done
    # The later --iterations=7 wins over run_variant's --iterations 5.
    run_variant "$id" 5 --iterations=7 --warmup=1 ${eq[@]+"${eq[@]}"}
    if [ "$status" -ne 0 ]; then
      failures+="$id: exit $status: ${stderr:0:300}"$'\n'
    elif ! why=$(check_result_line "$id" 7 "$output" 2>&1); then
      failures+="$id: $why"$'\n'
    fi
  done
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
}

@test "--help of every program prints its usage on stdout and exits 0" {
  local id failures=""
  for id in $(program_ids); do
    variant_argv "$id"
    run --separate-stderr "${VARIANT_ARGV[@]}" --help
    if [ "$status" -ne 0 ] || [[ "$output" != *"usage:"* ]]; then
      failures+="$id: exit $status, stdout: $output, stderr: $stderr"$'\n'
    fi
  done
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
}

@test "--help of every C and Go driver lists its variants and none of the test-only ones" {
  local id lang name argv profiles prog="" words failures="" seen=0
  while IFS='|' read -r id lang name argv profiles; do
    case $lang in c | go) ;; *) continue ;; esac
    lang_selected "$lang" || continue
    case $argv in *" --variant "*) ;; *) continue ;; esac
    seen=$((seen + 1))
    if [ "$prog" != "${argv%% *}" ]; then
      prog=${argv%% *}
      run --separate-stderr "${prog/\{bin\}/$BIN}" --help
      [ "$status" -eq 0 ] || failures+="$prog --help: exit $status: $stderr"$'\n'
      words=" $(tr -cs 'A-Za-z0-9-' ' ' <<<"$output") "
    fi
    case " $profiles " in
      *" selftest "*) [[ "$words" != *" $name "* ]] || failures+="$prog --help lists the test-only $name"$'\n' ;;
      *) [[ "$words" == *" $name "* ]] || failures+="$prog --help does not list $name"$'\n' ;;
    esac
  done < <(catalog_rows id lang name argv profiles)
  [ "$seen" -gt 0 ] || failures+="no C or Go driver in the catalog"$'\n'
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
}

@test "an unknown variant of every C and Go driver is a usage error naming it" {
  local id lang failures="" seen=0 k
  for id in $(drivers); do
    seen=$((seen + 1))
    lang=$(catalog field "$id" lang)
    variant_argv "$id"
    # The driver's own command with the name after --variant replaced.
    for ((k = 1; k < ${#VARIANT_ARGV[@]}; k++)); do
      [ "${VARIANT_ARGV[k - 1]}" != --variant ] || VARIANT_ARGV[k]=nope-parallel
    done
    run --separate-stderr "${VARIANT_ARGV[@]}" --iterations 3
    if [ "$status" -ne 2 ] || [ -n "$output" ]; then
      failures+="${VARIANT_ARGV[0]}: exit $status, stdout '$output'"$'\n'
    elif [ "$lang" = c ] && [[ "$stderr" != *"unknown variant 'nope-parallel'"* ]]; then
      failures+="${VARIANT_ARGV[0]}: $stderr"$'\n'
    elif [ "$lang" = go ] && [[ "$stderr" != *'unknown variant "nope-parallel"'* ]]; then
      failures+="${VARIANT_ARGV[0]}: $stderr"$'\n'
    fi
  done
  [ "$seen" -gt 0 ] || failures+="no C or Go driver in the catalog"$'\n'
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
}

# --- each workload's own bad inputs -------------------------------------------
# One case a row: WORKLOAD | CODE | FLAGS | PATTERN (see expect_table in
# test_helper.bash).  A new workload with flags or inputs of its own adds its
# rows here; one without (noop) adds none.

# workload_bad_inputs -- the rows every user can check.
workload_bad_inputs() {
  # readfile's inputs, made from the catalog's fixture and text.
  local fixture expect empty="$BATS_TEST_TMPDIR/empty.txt" wrong="$BATS_TEST_TMPDIR/wrong.txt"
  local fifo="$BATS_TEST_TMPDIR/fifo"
  fixture=$(workload_flag readfile --file)
  expect=$(workload_flag readfile --expect)
  : > "$empty"
  printf '%s' "$expect" | tr '[:lower:]' '[:upper:]' > "$wrong"
  mkfifo "$fifo"
  cat <<EOF
readfile | 3 | --file nope/missing.txt     | nope/missing\\.txt
readfile | 3 | --file $(dirname "$fixture") | directory
readfile | 3 | --file $fifo               | is a FIFO; --file must name a regular file
readfile | 1 | --file $empty              | iteration 0?.*expected
readfile | 1 | --file $wrong              | iteration [0-9]+.*expected
readfile | 1 | --expect Goodbye           | iteration [0-9]+.*expected
cacheloop | 3 | --file nope/missing.txt     | nope/missing\\.txt
cacheloop | 3 | --file $(dirname "$fixture") | directory
cacheloop | 3 | --file $fifo               | regular file
cacheloop | 3 | --file $empty              | is empty
asyncfib | 2 | --max-recursive 0          | max-recursive must be an integer from 1 to 40
asyncfib | 2 | --max-recursive 41         | max-recursive must be an integer from 1 to 40
asyncfib | 2 | --max-iterative 79         | max-iterative must be an integer from 1 to 78
asyncfib | 2 | --max-iterative abc        | max-iterative
asyncfib | 2 | --max-recursive -3         | max-recursive
doxbee   | 2 | --delay-ms x               | delay-ms
doxbee   | 2 | --delay-ms -1              | delay-ms
doxbee   | 2 | --delay-ms 86400001        | delay-ms
doxbee   | 2 | --queries 0                | queries
doxbee   | 2 | --queries 2x               | queries
tasks    | 2 | --sleep-ms x               | sleep-ms
tasks    | 2 | --sleep-ms 86400001        | sleep-ms
httpchain | 2 | --stall-ms 0              | --stall-ms
httpchain | 2 | --backend nowhere.keepalive | backend
EOF
}

# workload_unreadable_inputs -- the rows that need a user whom file modes stop.
workload_unreadable_inputs() {
  local locked="$BATS_TEST_TMPDIR/locked.txt"
  cp "$(workload_flag readfile --file)" "$locked"
  chmod 000 "$locked"
  cat <<EOF
readfile | 3 | --file $locked | unreadable|not readable|permission
cacheloop | 3 | --file $locked | unreadable|not readable|permission
EOF
}

@test "each workload's own bad inputs get the right exit code and words from every program of it" {
  workload_bad_inputs | expect_table
}

@test "an unreadable input is an environment error" {
  [ "$(id -u)" -ne 0 ] || skip "root reads files whatever their mode"
  workload_unreadable_inputs | expect_table
}
