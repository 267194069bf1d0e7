#!/usr/bin/env bats
# micro.bats -- `make micro`'s programs and table, with tiny N: the line format
# of the C, Node and Go micro programs (--tsv), their usage errors, and
# runner/tools/micro.py's alternated run, its files and its refusals.  Figures are
# never checked, only that they are there and well formed.

load test_helper

TSV='^[a-z][a-z0-9_.]*	[0-9]+\.[0-9]+	[0-9]+\.[0-9]+	(thread|process)$'

# ids PROGRAM ARGS... -- the figure ids a program prints with --tsv, sorted, one a line;
# fails when a line is not a figure.
ids() {
  "$@" > "${BATS_TEST_TMPDIR}/out"
  if grep -Evq "$TSV" "${BATS_TEST_TMPDIR}/out"; then
    echo "not a figure: $(grep -Ev "$TSV" "${BATS_TEST_TMPDIR}/out" | head -1)" >&2
    return 1
  fi
  cut -f1 "${BATS_TEST_TMPDIR}/out" | sort
}

@test "the C micro programs print one figure a line with --tsv, on the thread clock" {
  [ -x "${BIN}/micro-promise_bench" ] || skip "build/bin/micro-* not built (make all)"
  run ids "${BIN}/micro-promise_bench" 300 --tsv
  assert_success
  assert_equal "$(echo "$output" | tr '\n' ' ')" "microtask nexttick promise.chain_link promise.resolved_then promise.step promise.step_batched "
  run ids "${BIN}/micro-coro_bench" --tsv 300
  assert_success
  assert_equal "$(echo "$output" | tr '\n' ' ')" "async.empty await.settled await.settled_stackless switch.one_way switch.raw "
  [ "$(cut -f4 "${BATS_TEST_TMPDIR}/out" | sort -u)" = thread ]
  # Without --tsv: the lines for people, no tab.
  run "${BIN}/micro-coro_bench" 300
  assert_success
  refute_output --partial "	"
  assert_output --partial "await settled, stackful"
}

@test "the Node micro program prints the V8 figures; the thread clock only with the addon" {
  command -v "${NODE:-node}" >/dev/null || skip "node not installed"
  run ids "${NODE:-node}" "${ROOT}/node/micro/micro.mjs" 300 --tsv
  assert_success
  assert_equal "$(echo "$output" | tr '\n' ' ')" "async.empty await.settled microtask nexttick promise.chain_link promise.resolved_then promise.step_batched "
  [ "$(cut -f4 "${BATS_TEST_TMPDIR}/out" | sort -u)" = process ]
  addon=$("$PYTHON" -c 'import sys; from runner.tools import micro
print(micro.build_addon(sys.argv[1], sys.argv[2]) or "")' "${NODE:-node}" "${BATS_TEST_TMPDIR}")
  if [ -n "$addon" ]; then
    MICRO_THREADCPU="$addon" run ids "${NODE:-node}" "${ROOT}/node/micro/micro.mjs" 300 --tsv
    assert_success
    [ "$(cut -f4 "${BATS_TEST_TMPDIR}/out" | sort -u)" = thread ]
  fi
  MICRO_THREADCPU=/nonexistent.node run "${NODE:-node}" "${ROOT}/node/micro/micro.mjs" 100 --tsv
  assert_success
  [[ "${lines[0]}" == *"/nonexistent.node"*"process CPU instead"* ]]
}

@test "the Go micro program prints the channel and Gosched switches" {
  [ -x "${BIN}/go-micro" ] || skip "build/bin/go-micro not built (make all)"
  run ids "${BIN}/go-micro" 300 --tsv
  assert_success
  assert_equal "$(echo "$output" | tr '\n' ' ')" "switch.chan_pingpong switch.gosched "
}

@test "bad arguments of the micro programs are usage errors (exit 2, one line)" {
  [ -x "${BIN}/micro-coro_bench" ] || skip "build/bin/micro-* not built (make all)"
  progs=("${BIN}/micro-promise_bench" "${BIN}/micro-coro_bench")
  [ -x "${BIN}/go-micro" ] && progs+=("${BIN}/go-micro")
  for p in "${progs[@]}"; do
    for bad in 0 -5 x 12x 5 --json; do
      args=("$bad"); [ "$bad" = 5 ] && args=(5 6)
      run "$p" "${args[@]}"
      [ "$status" -eq 2 ] || { echo "$p ${args[*]}: exit $status"; false; }
      [ "${#lines[@]}" -eq 1 ] && [[ "$output" == *usage* ]] || { echo "$p ${args[*]}: $output"; false; }
    done
  done
  if command -v "${NODE:-node}" >/dev/null; then
    run "${NODE:-node}" "${ROOT}/node/micro/micro.mjs" 0
    assert_failure 2
    assert_output --partial usage
  fi
}

@test "make micro's run: every program in every round, the table with CIs and both ratios" {
  [ -x "${BIN}/micro-coro_bench" ] || skip "build/bin/micro-* not built (make all)"
  command -v "${NODE:-node}" >/dev/null || skip "node not installed"
  [ -x "${BIN}/go-micro" ] || skip "build/bin/go-micro not built (make all)"
  run "$PYTHON" -m runner.tools.micro --rounds 6 --n 200 --seed 3 --bin "$BIN" --node "${NODE:-node}" \
    --out "${BATS_TEST_TMPDIR}/r" --host testhost
  assert_success
  d=$(echo "${BATS_TEST_TMPDIR}"/r/testhost/micro-*)
  [ -d "$d" ]
  "$PYTHON" - "$d" <<'EOF'
import collections, csv, os, sys
d = sys.argv[1]
samples = list(csv.DictReader(open(os.path.join(d, "samples.csv"))))
per = collections.Counter(s["program"] for s in samples)
# 6 rounds of 4 programs; figures per program: C promise 6, C coro 5, node 7, go 2
assert per == {"micro-promise_bench": 36, "micro-coro_bench": 30, "node/micro/micro.mjs": 42,
               "go-micro": 12}, per
for r in range(1, 7):
    assert sorted(int(s["order"]) for s in samples if s["round"] == str(r) and s["figure"] in
                  ("microtask", "switch.gosched", "async.empty")) != [], r
rows = list(csv.DictReader(open(os.path.join(d, "micro.csv"))))
by = {(r["target"], r["figure"]): r for r in rows}
step = by[("c", "promise.step_batched")]
assert step["n"] == "6" and step["cpu_ns_low"] and step["c_node_cpu"] and step["c_node_wall"], step
assert not step["c_go_cpu"]
sw = by[("c", "switch.one_way")]
assert sw["c_go_cpu"] and sw["c_go_wall"] and not sw["c_node_cpu"], sw
assert by[("node", "await.settled")]["clock"] in ("thread", "process")
assert by[("go", "switch.gosched")]["clock"] == "process"
assert not by[("node", "await.settled")]["c_node_cpu"]
EOF
  grep -q '^| operation | target: figure | wall ns \[95% CI\] | CPU ns \[95% CI\] | CPU clock | C/V8 CPU | C/V8 wall | C/Go CPU | C/Go wall |$' "$d/micro.md"
  grep -q '^| await of a settled promise | C: await settled (C: stackful coroutine) | [0-9.]* \[[0-9.]*, [0-9.]*\] | ' "$d/micro.md"
  grep -q '^| switch, one way | Go: unbuffered channel hand-over | .* | process CPU (getrusage), GOMAXPROCS=1 |' "$d/micro.md"
  [ -s "$d/host.json" ]
  # The table is also what it printed.
  [[ "$output" == *"| nextTick enqueue + run | V8: nextTick enqueue+run |"* ]]
}

@test "a micro program that fails or prints something else stops the run with one line naming it" {
  mkdir -p "${BATS_TEST_TMPDIR}/bin"
  while IFS='|' read -r body message; do
    printf '#!/bin/sh\n%s\n' "$body" > "${BATS_TEST_TMPDIR}/bin/micro-fake"
    chmod +x "${BATS_TEST_TMPDIR}/bin/micro-fake"
    run "$PYTHON" -m runner.tools.micro --rounds 2 --n 10 --bin "${BATS_TEST_TMPDIR}/bin" --node none \
      --out "${BATS_TEST_TMPDIR}/r"
    [ "$status" -eq 1 ] || { echo "$body: exit $status"; false; }
    [[ "${lines[${#lines[@]}-1]}" == *"micro-fake"*"$message"* ]] || { echo "$body: $output"; false; }
  done <<'TABLE'
echo 'nope'|printed 'nope', not a figure
printf 'x\t1.0\t1.0\tthread\nx\t1.0\t1.0\tthread\n'|printed figure x twice
printf 'x\t1.0\t1.0\twall\n'|not a figure
printf 'x\t0\t1.0\tthread\n'|not a figure
true|printed nothing
echo 'broken' >&2; exit 1|exited 1: broken
TABLE
}

@test "micro.py without C programs, or with bad options, says so" {
  mkdir -p "${BATS_TEST_TMPDIR}/empty"
  run "$PYTHON" -m runner.tools.micro --bin "${BATS_TEST_TMPDIR}/empty" --node none --out "${BATS_TEST_TMPDIR}/r"
  assert_failure 3
  assert_output --partial "no C micro program"
  run "$PYTHON" -m runner.tools.micro --rounds 0
  assert_failure 2
  run "$PYTHON" -m runner.tools.micro --n x
  assert_failure 2
}
