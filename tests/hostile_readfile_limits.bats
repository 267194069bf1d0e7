#!/usr/bin/env bats
# Hostile inputs for the C programs: a read is the whole file or fails
# (c/readfile/node4.c), and the open-file limit (c/lib/harness.c).

load test_helper

setup() {
  cd "$ROOT"
  TMP=$(mktemp -d)
}

teardown() {
  rm -rf "$TMP"
}

# c_readfile_variants -- every variant c-readfile lists in its usage.
c_readfile_variants() {
  "$BIN/c-readfile" --help | sed -n 's/^variants: //p' | tr ' ' '\n'
}

@test "node4: a sparse file of 4 GiB + 12 bytes starting with the expected text fails in every style, sync included" {
  truncate -s 4294967308 "$TMP/big" || skip "no sparse files here"
  printf 'Hello, world' | dd of="$TMP/big" conv=notrunc status=none
  local v n=0
  for v in $(c_readfile_variants); do
    run -1 "$BIN/c-readfile" --variant "$v" --iterations 3 --file "$TMP/big"
    assert_output --regexp "^.*c-readfile: iteration [0-2]: read failed: file too large( \(EFBIG\))?$"
    n=$((n + 1))
  done
  [ "$n" -ge 10 ]
}

@test "node4: a file reporting size 0 (/proc/version) is read to EOF and verified in full" {
  [ -r /proc/version ] && [ "$(stat -c %s /proc/version)" = 0 ] || skip "no /proc/version of size 0"
  local full prefix v
  full="$(cat /proc/version; echo x)"
  full=${full%x}
  [ "${#full}" -gt 64 ] || skip "/proc/version is too short to tell"
  prefix=$(head -c 64 /proc/version)
  for v in sync-sequential callback-sequential callback-parallel promise-parallel await-tasks-parallel stackless-bounded; do
    run -0 "$BIN/c-readfile" --variant "$v" --iterations 3 --file /proc/version --expect "$full"
    assert_output --partial "\"ok\":3,\"bytes\":$((3 * ${#full}))"
    run -1 "$BIN/c-readfile" --variant "$v" --iterations 3 --file /proc/version --expect "$prefix"
    assert_output --regexp "iteration [0-2]: read ${#full} bytes '"
    assert_output --partial "expected 64 bytes"
  done
}

# low_nofile CMD... -- runs CMD under a soft open-file limit of 64 and a
# hard one of 200 (lowering either needs no privilege).
low_nofile() {
  bash -c 'ulimit -Sn 64 && ulimit -Hn 200 && exec "$@"' low_nofile "$@"
}

@test "open-file limit: the C parallel and bounded variants raise the soft limit to the hard one, and exit 3 before timing when even that is too low" {
  local v n=0 extra
  for v in $(c_readfile_variants); do
    case $v in *-parallel) extra=() ;; *-bounded) extra=(--concurrency 150) ;; *) continue ;; esac
    # 150 reads in flight: more than the soft 64, within the hard 200.
    run -0 low_nofile "$BIN/c-readfile" --variant "$v" --iterations 150 "${extra[@]}"
    assert_output --partial '"ok":150,'
    [ "${extra[*]}" ] && extra=(--concurrency 500)
    # 500 in flight cannot fit under 200: exit 3 with the number needed.
    run -3 low_nofile "$BIN/c-readfile" --variant "$v" --iterations 500 "${extra[@]}"
    assert_output --regexp "c-readfile: open-file limit too low: 500 operations in flight need 5[0-9][0-9] open files \(500 for them, 8 spare, the rest open already\), the limit is 200 \(hard 200\); raise it \(ulimit -n 5[0-9][0-9]\) or lower N$"
    n=$((n + 1))
  done
  [ "$n" -ge 8 ]
}

@test "open-file limit: a sequential variant needs one fd in flight, whatever N" {
  local v
  for v in sync-sequential callback-sequential await-sequential; do
    run -0 low_nofile "$BIN/c-readfile" --variant "$v" --iterations 500
    assert_output --partial '"ok":500,'
  done
}

@test "open-file limit: the warm-up counts too" {
  run -3 low_nofile "$BIN/c-readfile" --variant callback-parallel --iterations 10 --warmup 500
  assert_output --partial "500 operations in flight need"
}
