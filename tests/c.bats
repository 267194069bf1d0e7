#!/usr/bin/env bats
# The C drivers (c/<workload>/ on c/lib/harness -> build/bin/c-<workload>):
# C's own words for bad input (that every program rejects bad input is
# badinput.bats'), backends and the usage.  A new C workload adds rows to the
# table of bad inputs.

load test_helper

setup() {
  cd "$ROOT"
}

# c_drivers -- one variant id a line for each C program the catalog runs with
# --variant and --backend (the first of its variants).
c_drivers() {
  local seen=" " id argv prog
  while IFS='|' read -r id argv; do
    case $argv in *" --variant "*" --backend "*) ;; *) continue ;; esac
    prog=${argv%% *}
    case $seen in *" $prog "*) continue ;; esac
    seen+="$prog "
    echo "$id"
  done < <(catalog_rows id argv | grep -E '^[^|]*/c/')
}

@test "C names each bad input of badinput.bats exactly" {
  local wrong="$BATS_TEST_TMPDIR/wrong.txt"
  printf 'Hello, World' > "$wrong"
  # WORKLOAD | CODE | FLAGS | PATTERN; * is every workload's C programs.
  expect_table c <<EOF
  *        | 2 | --iterations 0          | --iterations must be a positive integer, got '0'
  *        | 2 | --iterations -5         | --iterations must be a positive integer, got '-5'
  *        | 2 | --iterations abc        | --iterations must be a positive integer, got 'abc'
  *        | 2 | --frobnicate 1          | unknown flag '--frobnicate'
  *        | 2 | --concurrency -1        | --concurrency must be a non-negative integer, got '-1'
  *        | 2 | --passes 0              | --passes must be an integer from 1 to 10000, got '0'
  *        | 2 | --warmup -1             | --warmup must be a non-negative integer, got '-1'
  *        | 2 | extra                   | unexpected argument 'extra'
  readfile | 3 | --file nope/missing.txt | fixture 'nope/missing\\.txt': No such file or directory \\(run from the project root, or pass --file PATH\\)
  readfile | 3 | --file fixtures         | fixture 'fixtures' is a directory; --file must name a regular file
  readfile | 1 | --expect Goodbye        | iteration [0-9]+: read 12 bytes 'Hello, world', expected 7 bytes 'Goodbye'
  readfile | 1 | --file $wrong           | iteration [0-9]+: read 12 bytes 'Hello, World', expected 12 bytes 'Hello, world'
  doxbee   | 2 | --delay-ms x            | --delay-ms must be an integer from 0 to 86400000, got 'x'
  doxbee   | 2 | --delay-ms 86400001     | --delay-ms must be an integer from 0 to 86400000, got '86400001'
  doxbee   | 2 | --queries 0             | --queries must be an integer from 1 to 1000000, got '0'
  tasks    | 2 | --sleep-ms 5s           | --sleep-ms must be an integer from 0 to 86400000, got '5s'
EOF
}

@test "an unknown backend of every C driver is a usage error naming it, with the usage" {
  local id failures="" seen=0 k
  for id in $(c_drivers); do
    seen=$((seen + 1))
    variant_argv "$id"
    # The driver's own command with the name after --backend replaced.
    for ((k = 1; k < ${#VARIANT_ARGV[@]}; k++)); do
      [ "${VARIANT_ARGV[k - 1]}" != --backend ] || VARIANT_ARGV[k]=nope
    done
    run --separate-stderr "${VARIANT_ARGV[@]}" --iterations 3
    if [ "$status" -ne 2 ] || [ -n "$output" ] || [[ "$stderr" != *"unknown backend 'nope'"*"usage:"* ]]; then
      failures+="${VARIANT_ARGV[0]}: exit $status, stdout '$output', stderr: $stderr"$'\n'
    fi
  done
  [ "$seen" -gt 0 ] || failures+="no C driver in the catalog"$'\n'
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
}

@test "--help of every C driver names its backends and its workload's flags with the catalog's defaults" {
  local id w backend k failures=""
  for id in $(c_drivers); do
    variant_argv "$id"
    w=$(catalog field "$id" workload)
    backend=$(catalog field "$id" backend)
    run --separate-stderr "${VARIANT_ARGV[0]}" --help
    [ "$status" -eq 0 ] || { failures+="$id: --help exits $status"$'\n'; continue; }
    [[ "$output" == *"--backend NAME"*"$backend"* ]] || failures+="$id: --help names no backend $backend"$'\n'
    workload_flags "$w"
    for ((k = 0; k + 1 < ${#WORKLOAD_FLAGS[@]}; k += 2)); do
      [[ "$output" == *"${WORKLOAD_FLAGS[k]} "*"(default '${WORKLOAD_FLAGS[k + 1]}')"* ]] \
        || failures+="$id: --help lacks ${WORKLOAD_FLAGS[k]} with default '${WORKLOAD_FLAGS[k + 1]}'"$'\n'
    done
  done
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
}
