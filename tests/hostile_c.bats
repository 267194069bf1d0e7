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
