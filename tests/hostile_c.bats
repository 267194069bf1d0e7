#!/usr/bin/env bats
# Hostile conditions for the C programs (c/lib/harness.c): standard
# descriptors closed, stdout that cannot take the result, numbers that only
# look decimal, devices given as the input file, resources too short to start
# libuv's threadpool.  Each case: the exit code and one line on stderr.
# Which variants: what the harness does before or after the variant's run
# (a closed stdout found first, the result line written, the input checked by
# the workload's setup) runs once a program; a whole run under a changed
# environment (closed descriptors, a short address space) runs on the
# variants that cover the code (cover_ids: every variant name, every backend
# under each mode and with each style).

load test_helper

setup() {
  cd "$ROOT"
}

# c_ids -- every contract C variant of every workload.
c_ids() { contract_ids "" c; }

# c_cover -- the C variants that cover the code (cover_ids).
c_cover() { cover_ids "" c; }

# c_programs -- one variant id a line for each C program (the first of its
# variants): the flags are the harness's, parsed alike by every variant.
c_programs() { program_ids "" c; }

# serve_variant -- after variant_argv: starts the server the variant's workload
# needs, if any, and sets PORT_ARGS to the port flag the runner would append
# (empty without a server); fails with the reason in $BATS_TEST_TMPDIR/err.
# unserve_variant stops it.
serve_variant() {
  PORT_ARGS=()
  [ "${#SERVER_ARGV[@]}" -gt 0 ] || return 0
  start_server 2>"$BATS_TEST_TMPDIR/err" || return 1
  PORT_ARGS=("$SERVER_PORT_FLAG" "$SERVER_PORT")
}
unserve_variant() {
  [ "${#SERVER_ARGV[@]}" -eq 0 ] || stop_server
}

# each_c CODE PATTERN REDIRECT IDS -- runs each C variant of IDS at N = 5 with
# the shell redirection REDIRECT (e.g. '0<&-') applied to it (not to the server
# its workload needs, started first as run_variant does), and expects exit CODE
# and stderr matching PATTERN (an extended regexp; empty: anything); lists
# every failure at the end.
each_c() {
  local code=$1 pattern=$2 redirect=$3 ids=$4 id failures="" err rc
  [ -n "$ids" ] || { echo "no C variant to run"; return 1; }
  for id in $ids; do
    variant_argv "$id"
    serve_variant || { failures+="$id: $(cat "$BATS_TEST_TMPDIR/err")"$'\n'; continue; }
    rc=0
    eval '"${VARIANT_ARGV[@]}" --iterations 5 ${PORT_ARGS[@]+"${PORT_ARGS[@]}"} >/dev/null 2>"$BATS_TEST_TMPDIR/err" '"$redirect" \
      || rc=$?
    unserve_variant
    err=$(cat "$BATS_TEST_TMPDIR/err")
    if [ "$rc" -ne "$code" ]; then
      failures+="$id $redirect: exit $rc, wanted $code: $err"$'\n'
    elif [ -n "$pattern" ] && ! grep -Eq -- "$pattern" <<<"$err"; then
      failures+="$id $redirect: stderr does not match /$pattern/: $err"$'\n'
    elif [ -n "$pattern" ] && [ "$(printf '%s\n' "$err" | wc -l)" -ne 1 ]; then
      failures+="$id $redirect: more than one line on stderr: $err"$'\n'
    fi
  done
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
}

# --- item: writing the result ------------------------------------------------

@test "C: a closed stdin changes nothing (libuv gets no descriptor 0)" {
  each_c 0 "" '0<&-' "$(c_cover)"
}

@test "C: a closed stderr changes nothing either" {
  each_c 0 "" '2>&-' "$(c_cover)"
}

@test "C: with stderr closed a failure keeps its exit code (3 for a missing file)" {
  local id failures="" rc
  for id in $(program_ids readfile c); do
    variant_argv "$id"
    rc=0
    "${VARIANT_ARGV[@]}" --iterations 5 --file nope/missing.txt >/dev/null 2>&- || rc=$?
    [ "$rc" -eq 3 ] || failures+="$id: exit $rc"$'\n'
  done
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
}

@test "C: a closed stdout is exit 3 with one line, before anything runs" {
  local id failures="" rc err
  for id in $(c_programs); do
    variant_argv "$id"
    rc=0
    "${VARIANT_ARGV[@]}" --iterations 5 >&- 2>"$BATS_TEST_TMPDIR/err" || rc=$?
    err=$(cat "$BATS_TEST_TMPDIR/err")
    [ "$rc" -eq 3 ] && [ "$err" = "${VARIANT_ARGV[0]}: stdout is closed: the result line cannot be written" ] \
      || failures+="$id: exit $rc: $err"$'\n'
  done
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
}

@test "C: stdout and stderr both closed is still exit 3" {
  each_c 3 "" '>&- 2>&-' "$(c_programs)"
}

@test "C: a result line that does not fit on /dev/full is exit 3 with one line" {
  [ -w /dev/full ] || skip "no /dev/full here"
  each_c 3 "writing the result failed: No space left on device" '>/dev/full' "$(c_programs)"
}

@test "C: a reader gone (EPIPE) is exit 3 with one line, not death by SIGPIPE" {
  local id failures="" got
  for id in $(c_programs); do
    variant_argv "$id"
    serve_variant || { failures+="$id: $(cat "$BATS_TEST_TMPDIR/err")"$'\n'; continue; }
    # A pipe whose read end is closed before the program starts.
    got=$("$PYTHON" - "${VARIANT_ARGV[@]}" --iterations 5 ${PORT_ARGS[@]+"${PORT_ARGS[@]}"} <<'PY'
import os, subprocess, sys
r, w = os.pipe()
os.close(r)
p = subprocess.run(sys.argv[1:], stdout=w, stderr=subprocess.PIPE)
print(p.returncode, p.stderr.decode().strip().replace("\n", "|"))
PY
    )
    unserve_variant
    case $got in
      "3 ${VARIANT_ARGV[0]}: writing the result failed: Broken pipe") ;;
      *) failures+="$id: $got"$'\n' ;;
    esac
  done
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
}

@test "C: --help to /dev/full or a closed stdout is exit 3, not 0" {
  local id failures="" prog rc err ids
  [ -w /dev/full ] || skip "no /dev/full here"
  ids=$(c_programs)
  [ -n "$ids" ] || failures+="no C program in the catalog"$'\n'
  for id in $ids; do
    variant_argv "$id"
    prog=${VARIANT_ARGV[0]}
    rc=0
    "$prog" --help >/dev/full 2>"$BATS_TEST_TMPDIR/err" || rc=$?
    err=$(cat "$BATS_TEST_TMPDIR/err")
    [ "$rc" -eq 3 ] && [ "$err" = "$prog: writing the usage failed: No space left on device" ] \
      || failures+="$prog --help >/dev/full: exit $rc: $err"$'\n'
    rc=0
    "$prog" --help >&- 2>"$BATS_TEST_TMPDIR/err" || rc=$?
    err=$(cat "$BATS_TEST_TMPDIR/err")
    [ "$rc" -eq 3 ] && [ "$err" = "$prog: writing the usage failed: stdout is closed" ] \
      || failures+="$prog --help >&-: exit $rc: $err"$'\n'
  done
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
}

# --- item: one number grammar, decimal digits only ---------------------------

@test "C: numbers are decimal digits only: ' 10', '+10', '10 ' are usage errors" {
  local id failures="" flag value
  for id in $(c_programs); do
    variant_argv "$id"
    for flag in --iterations --warmup --concurrency; do
      for value in ' 10' '+10' '10 ' $'\t10' '-0' '1e3' '0x10'; do
        run --separate-stderr "${VARIANT_ARGV[@]}" "$flag" "$value" < /dev/null
        if [ "$status" -ne 2 ] || [ -n "$output" ] \
          || [[ "$stderr" != *"$flag must be a "*"integer, got '$value'"* ]]; then
          failures+="$id $flag '$value': exit $status: ${stderr%%$'\n'*}"$'\n'
        fi
      done
    done
  done
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
}

@test "C: plain decimal numbers, leading zeros included, are still taken" {
  run_variant "$(c_ids | head -1)" 010 --warmup 00 --concurrency 007
  assert_success
  [[ "$output" == *'"iterations":10,'* ]]
}

# --- item: devices as the input file -----------------------------------------

@test "C: a device as --file is exit 3 with one line, like a FIFO" {
  local ids dev failures=""
  ids=$(program_ids readfile c)
  [ -n "$ids" ] || skip "no C readfile variant"
  for dev in /dev/null /dev/zero; do
    [ -c "$dev" ] || continue
    expect_variants 3 "^[^ ]+: fixture '$dev' is a character device; --file must name a regular file$" \
      "$ids" --file "$dev" || failures+="--file $dev"$'\n'
  done
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
}

# --- item: resources too short to start libuv's threadpool -------------------

@test "C: a threadpool libuv cannot start (ulimit -v) is exit 3 with one line, not SIGABRT" {
  local ids failures="" id rc err threadless=" " t
  # XNU refuses RLIMIT_AS below the address space in use (EINVAL).
  (ulimit -v 24000) 2>/dev/null || skip "this shell cannot set ulimit -v 24000 (macOS refuses it)"
  ids=$(cover_ids readfile c)
  [ -n "$ids" ] || skip "no C readfile variant"
  # The variants the catalog marks threadless start no threadpool at all.
  while IFS='|' read -r id t; do
    [ "$t" != True ] || threadless+="$id "
  done < <(catalog_rows id threadless)
  # 24 MB of address space: room for the program, not for 4 threads of 8 MiB.
  for id in $ids; do
    variant_argv "$id"
    rc=0
    (ulimit -v 24000 && UV_THREADPOOL_SIZE=4 exec "${VARIANT_ARGV[@]}" --iterations 5) \
      >/dev/null 2>"$BATS_TEST_TMPDIR/err" || rc=$?
    err=$(cat "$BATS_TEST_TMPDIR/err")
    case $threadless in
      *" $id "*)  # no threadpool at all: still runs
        [ "$rc" -eq 0 ] || failures+="$id: exit $rc: $err"$'\n' ;;
      *)
        [ "$rc" -eq 3 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] \
          && [[ "$err" == "${VARIANT_ARGV[0]}: cannot start libuv's threadpool: thread "*" of 4 (8 MiB stack): "* ]] \
          || failures+="$id: exit $rc: $err"$'\n' ;;
    esac
  done
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
}

# --- item: too few file descriptors for libuv's loop --------------------------

@test "C: ulimit -n 5 is exit 3 with one line naming the limit, not libuv's silent SIGABRT" {
  # uv_loop_init() opens 6 descriptors on Linux and calls abort() when the
  # process-wide signal pipe cannot be made; every C program, the httpchain
  # server and readfile's probe check first (ab_loop_fds_check).
  local id failures="" rc err progs=() prog
  for id in $(c_programs); do
    variant_argv "$id"
    progs+=("${VARIANT_ARGV[*]} --iterations 3")
  done
  [ -x "$BIN/c-httpchain-server" ] && progs+=("$BIN/c-httpchain-server --port 0")
  [ -x "$BIN/c-readfile-probe" ] && progs+=("$BIN/c-readfile-probe inline")
  [ "${#progs[@]}" -gt 2 ] || fail "no C program found"
  for prog in "${progs[@]}"; do
    rc=0
    # The redirections first: under the limit bats's own descriptors may
    # leave none free for them.
    # shellcheck disable=SC2086 # the words of one command, no blanks inside
    (exec </dev/null >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" && close_above_2 \
      && ulimit -n 5 && exec ${prog}) || rc=$?
    err=$(cat "$BATS_TEST_TMPDIR/err")
    [ "$rc" -eq 3 ] && [ ! -s "$BATS_TEST_TMPDIR/out" ] \
      && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] \
      && [[ "$err" =~ ^"${prog%% *}: too few file descriptors ("[^\)]*"): ulimit -n is 5 (hard 5) and "[0-2]" are free; libuv's loop needs "[67]": raise it to at least "[0-9]+$ ]] \
      || failures+="$prog: exit $rc: $err"$'\n'
  done
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
}
