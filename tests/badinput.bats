#!/usr/bin/env bats
# Bad input (DESIGN section 9) for every program of every workload in the
# catalog: the right exit code, one line on stderr naming the problem, and
# nothing on stdout.  The bad inputs are catalog rows (bad_inputs in
# suite.json and in each workload's file), each with the exact words of each
# language; a usage or environment error runs one variant of each program
# (program_ids): every program parses its flags, and checks its input, in code
# its variants share, before any variant's own code runs; a failed
# verification runs on the variants that cover the code (cover_ids).  --help
# and unknown variants run once a program; contract.bats runs every variant.
# A new workload adds rows to its catalog file and nothing here.

load test_helper

setup() {
  cd "$ROOT"
}

# drivers -- one variant id a line for each C, Go or Rust program that takes
# --variant (the first of the catalog's variants it runs).
drivers() {
  local seen=" " id lang argv prog
  while IFS='|' read -r id lang argv; do
    case $lang in c | go | rust) ;; *) continue ;; esac
    lang_selected "$lang" || continue
    case $argv in *" --variant "*) ;; *) continue ;; esac
    prog=${argv%% *}
    built "$prog" || continue
    case $seen in *" $prog "*) continue ;; esac
    seen+="$prog "
    echo "$id"
  done < <(catalog_rows id lang argv)
}

# C once answered --iterations=5 with "needs a value" while Go and Node took it.
@test "every program takes --flag=VALUE as --flag VALUE, for the contract's flags and its workload's" {
  local id failures="" k eq why
  for id in $(program_ids); do
    eq=()
    id_parts "$id"
    workload_flags "$ID_WORKLOAD"
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

# built PROG -- PROG ({bin}/name) is there; a Rust program is not where no cargo
# could build it (build/bin/rust.skip, the Rust variants' probe: skipped then).
built() {
  case $1 in '{bin}/rust-'*) [ -x "${1/\{bin\}/$BIN}" ] ;; *) true ;; esac
}

@test "--help of every C, Go and Rust driver lists its variants and none of the test-only ones" {
  local id lang name argv profiles prog="" words failures="" seen=0
  while IFS='|' read -r id lang name argv profiles; do
    case $lang in c | go | rust) ;; *) continue ;; esac
    lang_selected "$lang" || continue
    case $argv in *" --variant "*) ;; *) continue ;; esac
    built "${argv%% *}" || continue
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

@test "an unknown variant of every C, Go and Rust driver is a usage error naming it" {
  local id lang failures="" seen=0 k
  for id in $(drivers); do
    seen=$((seen + 1))
    id_parts "$id"
    lang=$ID_LANG
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
    elif [ "$lang" != c ] && [[ "$stderr" != *'unknown variant "nope-parallel"'* ]]; then
      failures+="${VARIANT_ARGV[0]}: $stderr"$'\n'
    fi
  done
  [ "$seen" -gt 0 ] || failures+="no C or Go driver in the catalog"$'\n'
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
}

# --- the catalog's bad inputs ------------------------------------------------
# suite.json's rows (the contract's own flags, for every program) and each
# workload's (catalog/<workload>.json: bad_inputs), with each
# language's exact words: a new workload adds rows to its catalog file and
# nothing here (expect_bad_inputs in test_helper.bash).

@test "each bad input of the catalog gets the right exit code and words from every program" {
  expect_bad_inputs
}

@test "an unreadable input is an environment error" {
  [ "$(id -u)" -ne 0 ] || skip "root reads files whatever their mode"
  expect_bad_inputs unreadable
}
