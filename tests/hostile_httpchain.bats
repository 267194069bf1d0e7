#!/usr/bin/env bats
# Hostile conditions for the httpchain clients and servers in every language:
# an open-file limit below the connections a bounded variant keeps in flight.
# Each case: the exit code of the contract (3, the environment) and one line
# on stderr naming the limit, never a verification failure (exit 1) or a
# signal.  None depends on timing.

load test_helper

setup() {
  cd "$ROOT"
}

# bounded_ids -- the httpchain variants in bounded mode that this host runs.
bounded_ids() {
  local id mode wanted
  wanted=" $(contract_ids httpchain | tr '\n' ' ') "
  while IFS='|' read -r id mode; do
    [ "$mode" = bounded ] && [[ "$wanted" == *" $id "* ]] && echo "$id"
  done < <(catalog_rows id mode)
  return 0
}

@test "httpchain: a bounded client under ulimit -n 40 (64 connections) is exit 3 with one line naming the limit" {
  local id failures="" rc err ids
  ids=$(bounded_ids)
  [ -n "$ids" ] || skip "no bounded httpchain variant"
  for id in $ids; do
    variant_argv "$id"
    start_server || { failures+="$id: no server"$'\n'; continue; }
    rc=0
    # The server keeps its own limit: only the client is short of descriptors.
    bash -c 'ulimit -n 40 && exec "$@"' _ "${VARIANT_ARGV[@]}" --iterations 200 \
      "$SERVER_PORT_FLAG" "$SERVER_PORT" </dev/null >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" || rc=$?
    stop_server
    err=$(cat "$BATS_TEST_TMPDIR/err")
    [ "$rc" -eq 3 ] && [ ! -s "$BATS_TEST_TMPDIR/out" ] \
      && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] \
      && grep -Eq "open-file limit too low|too many open files" <<<"$err" \
      || failures+="$id: exit $rc: ${err:0:300}"$'\n'
  done
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
}

@test "httpchain: a client's line about a port nothing listens on starts with its program's name, as every other line does" {
  local id failures="" lang want
  for id in $(TEST_ONE_PER_PROGRAM=1 contract_ids httpchain); do
    variant_argv "$id"
    id_parts "$id"
    lang=$ID_LANG
    case $lang in
      c) want=${VARIANT_ARGV[0]} ;;
      go) want=go-httpchain ;;
      node) want=${VARIANT_ARGV[1]} ;;
      rust) want=rust-httpchain ;;
    esac
    run --separate-stderr "${VARIANT_ARGV[@]}" --iterations 3 "$SERVER_PORT_FLAG" 1
    [ "$status" -eq 3 ] && [ -z "$output" ] && [ "${#stderr_lines[@]}" -eq 1 ] \
      && [[ "$stderr" == "$want: "*"cannot connect to 127.0.0.1:1"* ]] \
      || failures+="$id: exit $status: ${stderr:0:300}"$'\n'
  done
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
}

@test "httpchain servers in C and Go: ulimit -n 5 or 6 is exit 3 with one line naming the limit, not SIGABRT or the Go runtime's death" {
  # Node's own server is left out: node itself dies of a signal below about
  # 17 descriptors, before any script runs.
  local srv n rc err failures="" seen=0
  for srv in "$BIN/c-httpchain-server" "$BIN/go-httpchain-server"; do
    [ -x "$srv" ] || continue
    seen=$((seen + 1))
    for n in 5 6; do
      rc=0
      # A limit this small leaves the server nothing to serve with: it exits.
      (exec </dev/null >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" && close_above_2 \
        && ulimit -n "$n" && exec "$srv" --port 0) || rc=$?
      err=$(cat "$BATS_TEST_TMPDIR/err")
      [ "$rc" -eq 3 ] && [ ! -s "$BATS_TEST_TMPDIR/out" ] \
        && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] \
        && [[ "$err" == "${srv##*/}: too few file descriptors ("*"): ulimit -n is $n "*"raise it to at least "* \
          || "$err" == "$srv: too few file descriptors ("*"): ulimit -n is $n "*"raise it to at least "* ]] \
        || failures+="${srv##*/} under ulimit -n $n: exit $rc: ${err:0:300}"$'\n'
    done
  done
  [ "$seen" -gt 0 ] || skip "no httpchain server built"
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
}
