#!/usr/bin/env bats
# Hostile inputs for the Go and Node programs: a stdout that cannot be
# written, failure messages for huge wrong fixtures, the count grammar and
# byte comparison, descriptor limits.  Each case names the exit code and the
# one line it must give; none depends on timing.

load test_helper

GO="$BIN/go-readfile"
NODE_VARIANT=node/readfile/callback-parallel.mjs

setup() {
  cd "$ROOT"
}

need_go() { [ -x "$GO" ] || skip "build/bin/go-readfile is not built: run make go"; }
need_node() { command -v node >/dev/null || skip "node is not on the PATH"; }

# to_full CMD... -- runs CMD with stdout on /dev/full, stderr as output.
# shellcheck disable=SC2069  # stderr to the captured output, then stdout to /dev/full
to_full() { "$@" 2>&1 >/dev/full; }

# to_closed_pipe CMD... -- runs CMD with stdout on a pipe whose reader is
# already gone, so its first write fails with EPIPE; stderr as output.
to_closed_pipe() {
  "$PYTHON" -c 'import os, subprocess, sys
r, w = os.pipe()
os.close(r)
sys.exit(subprocess.call(sys.argv[1:], stdout=w, stderr=sys.stdout))' "$@"
}

@test "Go: a result line written to /dev/full is exit 3 with one line" {
  need_go
  run -3 to_full "$GO" --iterations 3
  assert_output "go-readfile: cannot write the result to stdout: write /dev/stdout: no space left on device"
}

@test "Go: --help written to /dev/full is exit 3 with one line" {
  need_go
  run -3 to_full "$GO" --help
  assert_output "go-readfile: cannot write the usage to stdout: write /dev/stdout: no space left on device"
}

@test "Go: a result line written to a pipe without a reader is exit 3 with one line, not SIGPIPE" {
  need_go
  run -3 to_closed_pipe "$GO" --iterations 3
  assert_output "go-readfile: cannot write the result to stdout: write /dev/stdout: broken pipe"
}

@test "Node: a result line written to /dev/full is exit 3 with one line, no stack trace" {
  need_node
  run -3 to_full node "$NODE_VARIANT" --iterations 3
  assert_output "$NODE_VARIANT: cannot write the result to stdout: ENOSPC: no space left on device, write"
}

@test "Node: --help written to /dev/full is exit 3 with one line" {
  need_node
  run -3 to_full node "$NODE_VARIANT" --help
  assert_output "$NODE_VARIANT: cannot write the usage to stdout: ENOSPC: no space left on device, write"
}

@test "Node: a result line written to a pipe without a reader is exit 3 with one line" {
  need_node
  run -3 to_closed_pipe node "$NODE_VARIANT" --iterations 3
  assert_output "$NODE_VARIANT: cannot write the result to stdout: EPIPE: broken pipe, write"
}

@test "Node: the node --test method's result and usage to /dev/full are exit 3 with one line" {
  need_node
  run -3 to_full node node/lib/nodetest.mjs "$NODE_VARIANT" --iterations 3
  assert_output "node/lib/nodetest.mjs: cannot write the result to stdout: ENOSPC: no space left on device, write"
  run -3 to_full node node/lib/nodetest.mjs --help
  assert_output "node/lib/nodetest.mjs: cannot write the usage to stdout: ENOSPC: no space left on device, write"
}

# programs -- one command per language, each line the argv of a readfile
# program (the Go one and a Node one), for the tables below.
programs() {
  [ -x "$GO" ] && echo "$GO"
  command -v node >/dev/null && echo "node $NODE_VARIANT"
  return 0
}

@test "a wrong 20 MB fixture gives one failure line that quotes 40 bytes of it" {
  head -c 20000000 /dev/zero | tr '\0' 'x' > "$BATS_TEST_TMPDIR/big.txt"
  local x40
  x40=$(printf 'x%.0s' $(seq 40))
  while read -r prog; do
    # shellcheck disable=SC2086
    run -1 --separate-stderr $prog --iterations 1 --file "$BATS_TEST_TMPDIR/big.txt"
    assert_equal "$output" ""
    assert_equal "${#stderr_lines[@]}" 1
    [[ "$stderr" == *"iteration 0: read 20000000 bytes '$x40...', expected 12 bytes 'Hello, world'" ]] ||
      fail "$prog: ${stderr:0:400}"
  done < <(programs)
}

@test "a failure line escapes control bytes and bytes above 0x7e as the C programs do" {
  printf 'Hello,\tworld\r\n\\\001\377' > "$BATS_TEST_TMPDIR/odd.txt"
  while read -r prog; do
    # shellcheck disable=SC2086
    run -1 --separate-stderr $prog --iterations 1 --file "$BATS_TEST_TMPDIR/odd.txt"
    [[ "$stderr" == *"read 17 bytes 'Hello,\\tworld\\r\\n\\\\\\x01\\xff', expected 12 bytes 'Hello, world'" ]] ||
      fail "$prog: ${stderr:0:400}"
  done < <(programs)
}

@test "a file ending in \\xff fails against an --expect ending in U+FFFD: bytes are compared, not decoded text" {
  printf 'Hello, world\377' > "$BATS_TEST_TMPDIR/ff.txt"
  while read -r prog; do
    # shellcheck disable=SC2086
    run -1 --separate-stderr $prog --iterations 2 --file "$BATS_TEST_TMPDIR/ff.txt" --expect $'Hello, world\xef\xbf\xbd'
    [[ "$stderr" == *"iteration "[01]": read 13 bytes 'Hello, world\\xff', expected 15 bytes 'Hello, world\\xef\\xbf\\xbd'" ]] ||
      fail "$prog: ${stderr:0:400}"
  done < <(programs)
}

@test "counts are decimal digits only: 010 and 0010 are ten, signs, blanks, underscores and prefixes are usage errors" {
  while read -r prog; do
    for n in 010 0010; do
      # shellcheck disable=SC2086
      run -0 --separate-stderr $prog --iterations "$n"
      assert_output --partial '"iterations":10,'
    done
    for n in +10 ' 10' '10 ' 1_000 0x10 0b11 0o10 1e3 '' -0 ١٠; do
      for flag in --iterations --warmup --concurrency; do
        # shellcheck disable=SC2086
        run -2 --separate-stderr $prog $flag "$n"
        [[ "${stderr_lines[0]}" == *"$flag must be "*"integer, got"* ]] || fail "$prog $flag '$n': $stderr"
      done
    done
  done < <(programs)
}

@test "a device as --file is an environment error, exit 3" {
  while read -r prog; do
    for dev in /dev/null /dev/zero; do
      # shellcheck disable=SC2086
      run -3 --separate-stderr $prog --iterations 1 --file "$dev"
      [[ "$stderr" == *"fixture $dev is a device; --file must name a regular file" ]] || fail "$prog: ${stderr:0:400}"
    done
  done < <(programs)
}

@test "Go: ulimit -n 5 is exit 3 with one line naming the limit, not the runtime's fatal error and exit 2" {
  need_go
  run -3 --separate-stderr bash -c 'ulimit -n 5 && exec "$1" --iterations 3' _ "$GO"
  assert_equal "${#stderr_lines[@]}" 1
  [[ "$stderr" == "go-readfile: too few file descriptors ("*"): ulimit -n is 5 and "*" are free; Go's poller needs 2 and each file in flight 1: raise it to at least "* ]] ||
    fail "$stderr"
}

@test "Go: a runtime death is exit 2 with 'fatal error:' first, which never starts as a usage error does" {
  need_go
  # Under a small address-space limit the Go runtime cannot reserve its heap
  # and dies before main: nothing in the program can change that exit 2, so
  # the contract's package doc tells the two apart by the first line.
  run bash -c 'ulimit -v 100000 2>/dev/null || exit 99; exec "$1" --iterations 3' _ "$GO"
  [ "$status" -ne 99 ] || skip "this shell cannot set ulimit -v"
  run -2 --separate-stderr bash -c 'ulimit -v 100000 && exec "$1" --iterations 3' _ "$GO"
  [[ "${stderr_lines[0]}" == "fatal error: "* ]] || fail "${stderr_lines[0]}"
  run -2 --separate-stderr "$GO" --iterations 0
  [[ "${stderr_lines[0]}" == "go-readfile: "* ]] || fail "${stderr_lines[0]}"
}

@test "Go: more operations in flight than a sync.WaitGroup counts is exit 3 with one line, not a panic" {
  # 2^31 parallel operations: WaitGroup.Add panicked ("sync: negative
  # WaitGroup counter", exit 2 with goroutine stacks) in every parallel Go
  # variant; now refused before anything runs, as C refuses what it cannot
  # allocate.
  local ids="" id mode wanted
  wanted=" $(contract_ids "" go | tr '\n' ' ') "
  while IFS='|' read -r id mode; do
    [ "$mode" = parallel ] && [[ "$wanted" == *" $id "* ]] && ids+="$id "
  done < <(catalog_rows id mode)
  [ -n "$ids" ] || skip "no parallel Go variant"
  local failures=""
  for id in $ids; do
    run_variant "$id" 2147483648
    [ "$status" -eq 3 ] && [ -z "$output" ] && [ "${#stderr_lines[@]}" -eq 1 ] \
      && [[ "$stderr" == "go-${id%%/*}: 2147483648 operations in flight at once are more than a sync.WaitGroup counts (2147483647): lower N or K" ]] \
      || failures+="$id: exit $status: ${stderr:0:300}"$'\n'
  done
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
}

@test "Node: more operations in flight than a JavaScript array holds is exit 3 with one line, not a RangeError's stack" {
  # 2^32 parallel operations: new Array(n) and Promise.all throw "RangeError:
  # Invalid array length" mid-run (exit 1 with a stack trace, or a run that
  # allocates for minutes first); now refused before anything runs.
  need_node
  local ids="" id failures="" mode method wanted
  wanted=" $(contract_ids "" node | tr '\n' ' ') "
  while IFS='|' read -r id mode method; do
    [ "$mode" = parallel ] && [ "$method" = inprocess ] && [[ "$wanted" == *" $id "* ]] && ids+="$id "
  done < <(catalog_rows id mode method)
  [ -n "$ids" ] || skip "no parallel Node variant"
  for id in $ids; do
    VARIANT_TIMEOUT=20 run_variant "$id" 4294967296
    [ "$status" -eq 3 ] && [ -z "$output" ] && [ "${#stderr_lines[@]}" -eq 1 ] \
      && [[ "$stderr" == "${VARIANT_ARGV[1]}: 4294967296 operations in flight at once are more than a JavaScript array holds (4294967295): lower N or K" ]] \
      || failures+="$id: exit $status: ${stderr:0:300}"$'\n'
  done
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
}

@test "Node: N above what one Promise.all takes (2^21 - 1) is exit 3 with one line before anything runs, for every variant that joins all N" {
  # tasks/node/await-parallel at N = 2^21 made every task first (about 40 s
  # and 2 GB here) and then died of "RangeError: Too many elements passed to
  # Promise.all" with a stack trace and exit 1.
  need_node
  local id ids="" failures="" method wanted
  wanted=" $(contract_ids "" node | tr '\n' ' ') "
  while IFS='|' read -r id method; do
    [ "$method" = inprocess ] && [[ "$wanted" == *" $id "* ]] || continue
    variant_argv "$id"
    grep -q 'joinsAll: true' "${VARIANT_ARGV[1]}" && ids+="$id "
  done < <(catalog_rows id method)
  [[ " $ids " == *" tasks/node/await-parallel@setTimeout "* ]] || fail "tasks/node/await-parallel does not say joinsAll: $ids"
  for id in $ids; do
    VARIANT_TIMEOUT=20 run_variant "$id" 2097152
    [ "$status" -eq 3 ] && [ -z "$output" ] && [ "${#stderr_lines[@]}" -eq 1 ] \
      && [[ "$stderr" == "${VARIANT_ARGV[1]}: 2097152 promises joined by one Promise.all are more than V8 takes (2097151): lower N" ]] \
      || failures+="$id: exit $status: ${stderr:0:300}"$'\n'
  done
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
}

# Go and Node put /dev/null on a closed fd 1 at start-up, read-write, so the
# line once vanished with exit 0; a shell's >/dev/null opens it write-only.
# An open /dev/null is not a closed stdout: write-only it takes the line (exit
# 0), read-only the write fails (exit 3, the write's own error).  Read-write
# (Python's subprocess.DEVNULL, a shell's 1<>/dev/null) C takes the line;
# Go's and Node's runtimes leave a closed fd 1 exactly so before the program's
# first instruction (same device, same flags O_RDWR|O_LARGEFILE, same fd
# flags: /proc/self/fdinfo/1 is identical), so they cannot tell it from a
# closed one and say it is closed (DESIGN section 3).
@test "every language: stdout closed (>&-) is exit 3 with one line before anything runs, and an open /dev/null is not closed" {
  local lang id failures="" rc err extra seen=0
  for lang in c go node rust; do
    for id in $(program_ids "" "$lang"); do
      seen=$((seen + 1))
      variant_argv "$id"
      extra=()
      # The port is never dialled: the closed stdout is found first.
      [ "$(catalog field "$id" workload)" != httpchain ] || extra=(--port 1)
      rc=0
      "${VARIANT_ARGV[@]}" --iterations 5 ${extra[@]+"${extra[@]}"} </dev/null >&- 2>"$BATS_TEST_TMPDIR/err" || rc=$?
      err=$(cat "$BATS_TEST_TMPDIR/err")
      [ "$rc" -eq 3 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] \
        && [[ "$err" == *": stdout is closed: the result line cannot be written" ]] \
        || failures+="$id >&-: exit $rc: ${err:0:300}"$'\n'
      [ "${#extra[@]}" -eq 0 ] || continue
      rc=0
      "${VARIANT_ARGV[@]}" --iterations 5 </dev/null >/dev/null 2>"$BATS_TEST_TMPDIR/err" || rc=$?
      [ "$rc" -eq 0 ] || failures+="$id >/dev/null: exit $rc: $(head -c 300 "$BATS_TEST_TMPDIR/err")"$'\n'
      rc=0
      "${VARIANT_ARGV[@]}" --iterations 5 </dev/null 1</dev/null 2>"$BATS_TEST_TMPDIR/err" || rc=$?
      err=$(cat "$BATS_TEST_TMPDIR/err")
      [ "$rc" -eq 3 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] \
        && [[ "$err" == *"cannot write the result to stdout: "*[Bb]"ad file descriptor"* \
              || "$err" == *"writing the result failed: Bad file descriptor" ]] \
        || failures+="$id 1</dev/null: exit $rc: ${err:0:300}"$'\n'
      rc=0
      "${VARIANT_ARGV[@]}" --iterations 5 </dev/null 1<>/dev/null 2>"$BATS_TEST_TMPDIR/err" || rc=$?
      err=$(cat "$BATS_TEST_TMPDIR/err")
      if [ "$lang" = c ]; then
        [ "$rc" -eq 0 ] || failures+="$id 1<>/dev/null: exit $rc: ${err:0:300}"$'\n'
      else
        [ "$rc" -eq 3 ] && [[ "$err" == *": stdout is closed: the result line cannot be written" ]] \
          || failures+="$id 1<>/dev/null: exit $rc: ${err:0:300}"$'\n'
      fi
    done
  done
  [ "$seen" -gt 0 ] || skip "no program built"
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
}
