#!/usr/bin/env bats
# The program contract (DESIGN sections 3 and 4) for every variant of every
# workload in the catalog: ids by the one rule, programs that exist, one JSON
# line whose fields are the catalog's, ok == iterations and the workload's
# checks, nothing else on stdout, and defaults that are the catalog's.  A new
# workload is covered by its catalog file alone; its own assertions go at the
# end, under its name.

load test_helper

# json_list FILE KEY -- the list KEY of a JSON file, joined by | (a regexp alternation).
json_list() {
  "$PYTHON" -c 'import json,sys; print("|".join(json.load(open(sys.argv[1]))[sys.argv[2]]))' "$1" "$2"
}

# same_but_timings FILE -- the records of FILE (ID, what was given, the JSON
# line; tab separated) compared in one Python run: every line of an ID must
# equal its first but for what differs from run to run, the measurements,
# which are the fields named with a unit (elapsed_ns, user_us, peak_rss_kb, a
# workload's start_ns); prints one line per difference.
same_but_timings() {
  "$PYTHON" - "$1" <<'PY'
import json, sys
def without_timings(line):
    d = json.loads(line)
    for k in [k for k in d if k.endswith(("_ns", "_us", "_kb"))
              or k in ("nvcsw", "nivcsw", "allocs", "preclock_heap_bytes", "preclock_faults")]:
        d.pop(k)
    return d
first = {}
for record in open(sys.argv[1], encoding="utf-8", errors="replace"):
    vid, given, line = record.rstrip("\n").split("\t", 2)
    try:
        d = without_timings(line)
    except ValueError:
        print("%s with %s: not a JSON line: %s" % (vid, given, line))
        continue
    if vid not in first:
        first[vid] = d
    elif d != first[vid]:
        print("%s with %s: %s" % (vid, given, line))
PY
}

@test "every workload of the catalog has variants to run" {
  local w failures=""
  run -0 workloads
  [ "${#lines[@]}" -ge 1 ]
  for w in "${lines[@]}"; do
    [ -n "$(contract_ids "$w")" ] || failures+="$w has no variant a test can run"$'\n'
  done
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
}

@test "every id is built from its fields by the one id rule and is unique" {
  local suite="$CATALOG_DIR/suite.json" styles modes methods wl regex
  local id label name workload lang style shape mode method backend name_want want failures=""
  styles=$(json_list "$suite" styles)
  modes=$(json_list "$suite" modes)
  methods=$(json_list "$suite" methods)
  wl=$(workloads | paste -sd '|' -)
  regex="^($wl)/(c|go|node|rust)/($styles)(-[a-z][a-z0-9]*)?(-($methods))?-($modes)@[A-Za-z0-9._]+$"
  while IFS='|' read -r id label name workload lang style shape mode method backend; do
    name_want="$style${shape:+-$shape}"
    [ "$method" = inprocess ] || name_want+="-$method"
    name_want+="-$mode"
    want="$workload/$lang/$name_want@$backend"
    [ "$id" = "$want" ] || failures+="$id: the fields make $want"$'\n'
    [ "$label" = "${want#*/}" ] || failures+="$id: label is $label"$'\n'
    [ "$name" = "$name_want" ] || failures+="$id: name is $name, the fields make $name_want"$'\n'
    [[ "$id" =~ $regex ]] || failures+="$id: does not match $regex"$'\n'
    [[ "|$methods|" == *"|$method|"* ]] || failures+="$id: unknown method $method"$'\n'
  done < <(catalog_rows id label name workload lang style shape mode method backend)
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
  run -0 catalog ids
  [ "${#lines[@]}" -ge 1 ]
  assert_equal "$(printf '%s\n' "${lines[@]}" | sort | uniq -d)" ""
}

@test "every variant's program exists: a built binary or node's script files" {
  local id prog arg failures=""
  for id in $(catalog ids); do
    variant_argv "$id"
    prog="${VARIANT_ARGV[0]}"
    if [ "$prog" = "${NODE:-node}" ]; then
      # node's arguments: every script the command names (a variant file, the nodetest wrapper).
      for arg in "${VARIANT_ARGV[@]:1}"; do
        case $arg in *.mjs | *.js) [ -f "$ROOT/$arg" ] || failures+="$id: no $arg"$'\n' ;; esac
      done
      [ "${#VARIANT_ARGV[@]}" -ge 2 ] || failures+="$id: node runs no script"$'\n'
    else
      # A built program ({bin}/...) or one shipped under the root (relative).
      [ -x "$prog" ] || [ -x "$ROOT/$prog" ] || failures+="$id: $prog is not built"$'\n'
    fi
  done
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
}

@test "every variant prints one valid JSON line with the catalog's fields at N=50 after a verified warm-up, a bounded one at K=3, and nothing on stderr" {
  # One run a variant for what each must do: the line, ok == N with the
  # warm-up verified and not counted, and a bounded variant's limiter at a
  # K below N (reported as given).
  expect_contract_lines 50 "$(contract_ids)" --warmup 3
}

@test "every variant name and backend verifies N=1" {
  # N = 1 reaches the style's code for its mode and the backend's completion
  # path: the variants that cover the code (cover_ids) run it.
  expect_contract_lines 1 "$(cover_ids)"
}

# --passes P (DESIGN section 3): P timed passes in the one process, each
# verified, the line listing their times; a whole-process method (nodetest,
# perfjs, datenow) times one pass a process and refuses more as a usage error.
@test "every program runs --passes 3 after a warm-up and lists three times; the whole-process methods refuse it" {
  local failures="" id method why
  for id in $(program_ids); do
    method=$(catalog field "$id" method)
    run_variant "$id" 4 --warmup 2 --passes 3
    case $method in
      nodetest | perfjs | datenow)
        if [ "$status" -ne 2 ] || [ -n "$output" ] || [[ "$stderr" != *"--passes must be 1"* ]]; then
          failures+="$id: exit $status, wanted 2 with '--passes must be 1': $stderr"$'\n'
        fi
        continue ;;
    esac
    if [ "$status" -ne 0 ]; then
      failures+="$id: exit $status: ${stderr:0:300}"$'\n'
    elif ! why=$(check_result_line "$id" 4 "$output" --passes 3 2>&1); then
      failures+="$id: $why"$'\n'
    fi
  done
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
}

@test "bounded variants report the concurrency they were given, the suite's bound by default, and N when N is smaller" {
  # K is the program's flag parser's (shared by its variants): one bounded
  # variant of each program runs it.
  local failures="" id mode bound ids="" wanted
  bound=$("$PYTHON" -c 'import json,sys; print(json.load(open(sys.argv[1]))["bound"])' \
    "$CATALOG_DIR/suite.json")
  wanted=" $(contract_ids | tr '\n' ' ') "
  while IFS='|' read -r id mode; do
    [ "$mode" = bounded ] && [[ "$wanted" == *" $id "* ]] && ids+="$id"$'\n'
  done < <(catalog_rows id mode)
  [ -n "$ids" ] || fail "no bounded variant to run"
  for id in $(printf '%s' "$ids" | "$PYTHON" -m runner.catalog.cover --catalog "$CATALOG_DIR" --keys program); do
    run_variant "$id" 40 --concurrency 3
    [ "$status" -eq 0 ] || { failures+="$id: exit $status"$'\n'; continue; }
    [[ "$output" == *'"concurrency":3,'* ]] || failures+="$id: $output"$'\n'
    run_variant "$id" $((bound * 2))
    [[ "$output" == *"\"concurrency\":$bound,"* ]] || failures+="$id by default: $output"$'\n'
    # At most N in flight: min(K, N).
    run_variant "$id" 5 --concurrency 10
    [[ "$output" == *'"concurrency":5,'* ]] || failures+="$id at N = 5 < K = 10: $output"$'\n'
  done
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
}

@test "every program's defaults for its workload's flags are the catalog's values" {
  # Run from the project root, one variant per workload and language: with no
  # workload flags, with each flag alone at the catalog's value, and with all of
  # them, the runs agree but for the timings (a default that differs fails to
  # verify, or verifies other bytes).
  local w lang id k failures="" lines_file="$BATS_TEST_TMPDIR/defaults"
  local -a flags
  : > "$lines_file"
  # shellcheck disable=SC2034  # read by run_variant
  SERVER_KEEP=1
  for w in $(workloads); do
    workload_flags "$w"
    flags=(${WORKLOAD_FLAGS[@]+"${WORKLOAD_FLAGS[@]}"})
    for lang in c go node rust; do
      id=$(contract_ids "$w" "$lang" | head -1)
      [ -n "$id" ] || continue
      run_variant "$id" 3
      [ "$status" -eq 0 ] || { failures+="$id with its defaults: exit $status: $stderr"$'\n'; continue; }
      printf '%s\tits defaults\t%s\n' "$id" "$output" >> "$lines_file"
      run_variant "$id" 3 ${flags[@]+"${flags[@]}"}
      [ "$status" -eq 0 ] || failures+="$id with ${flags[*]}: exit $status: $output $stderr"$'\n'
      printf '%s\t%s\t%s\n' "$id" "${flags[*]}" "$output" >> "$lines_file"
      for ((k = 0; k + 1 < ${#flags[@]}; k += 2)); do
        run_variant "$id" 3 "${flags[k]}" "${flags[k + 1]}"
        [ "$status" -eq 0 ] || failures+="$id with ${flags[k]} '${flags[k + 1]}' only: exit $status: $output $stderr"$'\n'
        printf '%s\t%s only\t%s\n' "$id" "${flags[k]} '${flags[k + 1]}'" "$output" >> "$lines_file"
      done
    done
  done
  stop_kept_server
  # shellcheck disable=SC2034  # read by run_variant
  SERVER_KEEP=""
  failures+=$(same_but_timings "$lines_file")
  [ -z "$failures" ] || { printf '%s\n' "$failures"; false; }
}

# --- readfile's own assertions ------------------------------------------------

@test "readfile: a C variant reads the fixture and nothing else is on stdout" {
  local expect
  expect=$(workload_flag readfile --expect)
  run_variant readfile/c/callback-parallel@node4 10
  assert_success
  assert_equal "${#lines[@]}" 1
  assert_output --partial '"variant":"readfile/c/callback-parallel@node4"'
  assert_output --partial "\"bytes\":$((10 * ${#expect})),"
  assert_equal "$stderr" ""
}

@test "readfile: the test-only variant reports fewer completions than iterations" {
  run_variant readfile/c/callback-nowait-parallel@node4 2000
  assert_success
  run check_result_line readfile/c/callback-nowait-parallel@node4 2000 "$output"
  assert_failure 1
  assert_output --partial "ok is"
}

@test "readfile: the contract check holds a line to the --expect it was given" {
  local expect
  expect=$(workload_flag readfile --expect)
  run_variant readfile/c/sync-sequential@node4 4 --expect "$expect"
  assert_success
  check_result_line readfile/c/sync-sequential@node4 4 "$output" --expect "$expect"
  run check_result_line readfile/c/sync-sequential@node4 4 "$output" --expect "${expect}!"
  assert_failure 1
  assert_output --partial "bytes"
}

@test "readfile: the fixture is exactly the 12 bytes 'Hello, world' the catalog names" {
  local file expect
  file=$(workload_flag readfile --file)
  expect=$(workload_flag readfile --expect)
  assert_equal "$file" fixtures/text.txt
  assert_equal "$expect" "Hello, world"
  run cat "$ROOT/$file"
  assert_output "$expect"
  run wc -c < "$ROOT/$file"
  assert_output --regexp "^ *${#expect}$"
}

# --- cacheloop's own assertions -----------------------------------------------

@test "cacheloop: every program hits N - 1 times, misses once and sums N times the file, whatever the file" {
  local file="$BATS_TEST_TMPDIR/seven.txt" id failures=""
  printf 'seven!!' > "$file"
  for id in $(contract_ids cacheloop); do
    run_variant "$id" 40 --file "$file"
    [ "$status" -eq 0 ] || { failures+="$id: exit $status: $stderr"$'\n'; continue; }
    [[ "$output" == *'"bytes":280,'* && "$output" == *'"hits":39,"misses":1,"file_bytes":7'* ]] \
      || failures+="$id: $output"$'\n'
    check_result_line "$id" 40 "$output" --file "$file" >/dev/null || failures+="$id: the check refuses it"$'\n'
  done
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
}

@test "cacheloop: the contract check refuses a line whose hits, misses or bytes are off" {
  local id=cacheloop/c/fiber-sequential@node4 line
  run_variant "$id" 10
  assert_success
  line=$output
  run check_result_line "$id" 10 "${line/\"hits\":9,/\"hits\":10,}"
  assert_failure 1
  assert_output --partial hits
  run check_result_line "$id" 10 "${line/\"misses\":1,/\"misses\":2,}"
  assert_failure 1
  assert_output --partial misses
  run check_result_line "$id" 10 "${line/\"bytes\":120,/\"bytes\":108,}"
  assert_failure 1
  assert_output --partial bytes
}

# --- asyncfib's own assertions ------------------------------------------------

@test "asyncfib: at the seed's sizes every program makes 276 recursive or 10 iterative calls a repetition" {
  local id failures="" want
  for id in $(contract_ids asyncfib); do
    # Seed 004 calls fibonacci_10(i) and fibonacci_20(i) for i < 10: M = 10 in both shapes.
    case $id in
      *-recursive-*) want='"calls":1380,"checksum":715' ;;
      *) want='"calls":50,"checksum":715' ;;
    esac
    run_variant "$id" 5
    # The workload's fields follow runtime; C's per-operation counts may follow them.
    [ "$status" -eq 0 ] && [[ "$output" == *"$want"[,\}]* ]] || failures+="$id: exit $status: $output $stderr"$'\n'
  done
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
}

@test "asyncfib: M changes the calls and the checksum in every language alike" {
  local id failures="" want
  for id in $(contract_ids asyncfib); do
    case $id in
      # fib(0..14) recursively: 2 x (1 + 1 + 2 + ... + 610) - 15 calls, results sum to 1596
      *-recursive-*) want='"calls":3177,"checksum":1596' ;;
      # fib(0..77) iteratively: 78 calls; their sum is fib(79) - 1
      *) want='"calls":78,"checksum":23416728348467684' ;;
    esac
    run_variant "$id" 1 --max-recursive 15 --max-iterative 78
    [ "$status" -eq 0 ] && [[ "$output" == *"$want"[,\}]* ]] || failures+="$id: exit $status: $output $stderr"$'\n'
  done
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
}

# --- the helpers themselves, on the fake catalog (tests/fixtures-bin/catalog) --

@test "the helpers start a workload's server, pass its port and check the line by that workload's rules" {
  CATALOG_DIR="$ROOT/tests/fixtures-bin/catalog"
  run -0 contract_ids served
  assert_equal "${#lines[@]}" 2
  expect_contract_lines 5 "$(contract_ids served)"
  # The server is gone once the variant has run.
  run ! kill -0 "$SERVER_PID"
}

@test "the helpers run only TEST_LANGS's variants, and one variant a program with TEST_ONE_PER_PROGRAM" {
  local c one id prog programs="" seen=" "
  c=$(TEST_LANGS=c contract_ids)
  [ -n "$c" ]
  # The C variants, less those whose server is a Go or Node program.
  assert_equal "$c" "$(contract_ids "" c | grep -vE '@(goserver|nodeserver)\.')"
  [[ "$(contract_ids)" == *"/go/"* ]] && [[ "$c" != *"/go/"* ]]
  one=$(TEST_LANGS=c TEST_ONE_PER_PROGRAM=1 contract_ids)
  # Each C program once, by its first variant.
  c=" $(tr '\n' ' ' <<<"$c")"
  while IFS='|' read -r id prog; do
    case $c in *" $id "*) ;; *) continue ;; esac
    prog=${prog%% *}
    case $programs in *" $prog "*) continue ;; esac
    programs+=" $prog "
    seen+="$id "
  done < <(catalog_rows id argv)
  assert_equal " $(tr '\n' ' ' <<<"$one")" "$seen"
  run lang_selected go
  assert_success
  TEST_LANGS="c node" run lang_selected go
  assert_failure
}

@test "a server that never gets ready fails the variant with the reason, not the suite" {
  CATALOG_DIR="$ROOT/tests/fixtures-bin/catalog"
  run_variant unserved/fake/honest-sequential@python 3
  assert_equal "$status" 125
  assert_equal "$output" ""
  [[ "$stderr" == *"fake-server"* ]]
}

@test "a server that never says its port fails the variant within the catalog's ready timeout" {
  CATALOG_DIR="$ROOT/tests/fixtures-bin/catalog"
  SECONDS=0
  run_variant unready/fake/honest-sequential@python 3
  assert_equal "$status" 125
  [[ "$stderr" == *'never said {"port": N}'* ]]
  [ "$SECONDS" -lt 5 ]
}
