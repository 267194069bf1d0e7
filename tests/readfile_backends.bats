#!/usr/bin/env bats
# readfile's backends (c/readfile/readfile.h): every C style on node4, fused,
# inline and uring through --backend, bad --backend values, the accounting
# fields of the C line, uring unavailable (simulated with AB_URING_DISABLE=1,
# which makes the backend refuse to start as a kernel without io_uring, or a
# seccomp filter, would) as exit 3 and as a skipped variant in a run, and
# Node's io_uring backend (UV_USE_IO_URING=1) named in its line.

load test_helper

setup() {
  cd "$ROOT"
  [ -x "${BIN}/c-readfile" ] || skip "build/bin/c-readfile is not built (make all)"
}

uring_here() {
  "${BIN}/c-readfile-probe" uring 2>/dev/null
}

@test "a bad --backend value is a usage error naming it, with the usage" {
  local value failures=""
  for value in "" NODE4 "uring " node4,fused none threadpool; do
    run --separate-stderr "${BIN}/c-readfile" --variant callback-sequential --backend "$value" --iterations 3
    if [ "$status" -ne 2 ] || [ -n "$output" ] || [[ "$stderr" != *"unknown backend '$value'"*"usage:"* ]]; then
      failures+="--backend '$value': exit $status, stdout '$output', stderr: $stderr"$'\n'
    fi
  done
  run --separate-stderr "${BIN}/c-readfile" --variant callback-sequential --backend
  [ "$status" -eq 2 ] && [[ "$stderr" == *"--backend needs a value"* ]] \
    || failures+="--backend without a value: exit $status: $stderr"$'\n'
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
}

@test "every C variant verifies every read on every backend, its id carrying the backend" {
  local b v failures="" backends="node4 fused inline"
  if uring_here; then backends+=" uring"; fi
  for b in $backends; do
    for v in sync-sequential callback-sequential callback-parallel callback-bounded \
             promise-sequential promise-parallel promise-counter-parallel promise-bounded \
             await-sequential await-parallel await-tasks-parallel await-bounded \
             stackless-sequential stackless-parallel stackless-tasks-parallel stackless-bounded; do
      run --separate-stderr "${BIN}/c-readfile" --variant "$v" --backend "$b" --iterations 40 \
        --concurrency 8
      [ "$status" -eq 0 ] && [[ "$output" == *"\"variant\":\"readfile/c/$v@$b\","*"\"ok\":40,\"bytes\":480,"* ]] \
        || failures+="$v@$b: exit $status: $stderr $output"$'\n'
    done
  done
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
}

@test "the C line counts the threadpool round trips of each backend: 4 per read on node4, 1 on fused, none on inline and uring" {
  local b want failures=""
  for b in node4:400 fused:100 inline:0 uring:0; do
    want=${b#*:} b=${b%%:*}
    [ "$b" != uring ] || uring_here || continue
    run --separate-stderr "${BIN}/c-readfile" --variant callback-parallel --backend "$b" --iterations 100
    [ "$status" -eq 0 ] && [[ "$output" == *"\"threadpool_trips\":$want,\"allocs\":"*",\"nivcsw\":"*"}" ]] \
      || failures+="$b: exit $status: $output"$'\n'
  done
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
}

@test "uring unavailable exits 3 with one line saying why and prints nothing" {
  AB_URING_DISABLE=1 run --separate-stderr "${BIN}/c-readfile" --variant callback-parallel --backend uring --iterations 5
  assert_equal "$status" 3
  assert_equal "$output" ""
  [ "${#stderr_lines[@]}" -eq 1 ]
  [[ "$stderr" == *"backend uring is not available: io_uring is disabled (AB_URING_DISABLE is set)"* ]]
  AB_URING_DISABLE=1 run --separate-stderr "${BIN}/c-readfile-probe" uring
  assert_equal "$status" 3
  [[ "$stderr" == "backend uring is not available: io_uring is disabled (AB_URING_DISABLE is set): "* ]]
  run --separate-stderr "${BIN}/c-readfile-probe" nope
  assert_equal "$status" 2
  [[ "$stderr" == *"node4 fused inline"* ]]
}

@test "a run skips the uring variants with the probe's reason where io_uring is unavailable, and the report lists them" {
  AB_URING_DISABLE=1 run "$PYTHON" -m runner --profile quick --node none \
    --filter '^readfile/c/callback-sequential@(inline|uring)$' --rounds 1 --warmup-rounds 0 \
    --no-charts --out "${BATS_TEST_TMPDIR}/r"
  assert_success
  assert_line "run.py: skipped readfile/c/callback-sequential@uring: backend uring is not available: io_uring is disabled (AB_URING_DISABLE is set): function not implemented"
  d=$(cd "${BATS_TEST_TMPDIR}/r/latest" && pwd -P)
  # One process ran (its passes are rows of their own): the inline variant only.
  run "$PYTHON" -c 'import csv,sys; print(" ".join(sorted({r["variant"] for r in csv.DictReader(open(sys.argv[1]))})))' "${d}/samples.csv"
  assert_output readfile/c/callback-sequential@inline
  grep -q '^- `readfile/c/callback-sequential@uring`: backend uring is not available: io_uring is disabled' "${d}/REPORT.md"
}

@test "Node with UV_USE_IO_URING=1 is its own backend, and its line says so" {
  command -v "${NODE:-node}" >/dev/null || skip "node is not installed"
  UV_USE_IO_URING=1 run --separate-stderr "${NODE:-node}" node/readfile/callback-sequential.mjs --iterations 5
  assert_success
  [[ "$output" == *'"backend":"fs.readFile.uring","variant":"readfile/node/callback-sequential@fs.readFile.uring",'* ]]
  [[ "$output" == *'"runtime":"node '*', UV_USE_IO_URING=1)"'* ]]
  run check_result_line readfile/node/callback-sequential@fs.readFile.uring 5 "$output"
  assert_success
  run --separate-stderr "${NODE:-node}" node/readfile/callback-sequential.mjs --iterations 5
  [[ "$output" == *'"backend":"fs.readFile",'* ]]
}

@test "after the rounds, strace counts each variant's system calls per read into trace.json and REPORT.md" {
  command -v strace >/dev/null || skip "strace is not installed"
  strace -f -o /dev/null true 2>/dev/null || skip "strace cannot trace here (ptrace refused)"
  run "$PYTHON" -m runner --profile default --node none \
    --filter '^readfile/c/callback-sequential@inline$' --rounds 1 --warmup-rounds 0 \
    --iterations 300 --no-charts --out "${BATS_TEST_TMPDIR}/r"
  assert_success
  assert_line "run.py: counting system calls with strace (run.py --no-trace skips it)"
  d=$(cd "${BATS_TEST_TMPDIR}/r/latest" && pwd -P)
  # Open, fstat, read and close once per read: the start-up cancels out.
  run "$PYTHON" -c 'import json, sys
v = json.load(open(sys.argv[1]))["variants"]["readfile/c/callback-sequential@inline"]
by = v["by_syscall"]
print(v["iterations"], by.get("openat"), by.get("close"), by.get("read"), v["total"] >= 4)' "${d}/trace.json"
  assert_output "200 1.0 1.0 1.0 True"
  [ -f "${d}/strace/readfile_c_callback-sequential_inline-n200.txt" ]
  grep -q '^| `c/callback-sequential@inline` |.*| 0.00 | 0.00 (0.00) |.*(.*openat 1.0' "${d}/REPORT.md"
  run "$PYTHON" -m runner --profile default --node none --no-trace \
    --filter '^readfile/c/callback-sequential@inline$' --rounds 1 --warmup-rounds 0 \
    --iterations 300 --no-charts --out "${BATS_TEST_TMPDIR}/q"
  assert_success
  refute_line --partial "counting system calls"
}
