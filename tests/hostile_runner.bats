#!/usr/bin/env bats
# hostile_runner.bats -- the runner against a hostile user and an ordinary
# machine: out-of-range options, reserved host slugs, a low open-file limit,
# odd UV_THREADPOOL_SIZE values, concurrent runners, a broken launcher,
# absurd timings from a program and on disk, and results/latest in the way.
# Runs use the fake catalog (tests/fixtures-bin/catalog) and small N.

load test_helper

RUN="${ROOT}/runner/run.py"
FAKE_CATALOG="${ROOT}/tests/fixtures-bin/catalog"

# fake ARGS... -- a short run of the fake catalog's quick profile.
fake() {
  "$PYTHON" "$RUN" --catalog "$FAKE_CATALOG" --profile quick --node none --rounds 1 \
    --warmup-rounds 0 --iterations 5 --no-charts "$@"
}

# json FILE EXPR -- prints EXPR evaluated on the parsed FILE (as `d`).
json() { "$PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

need_launcher() { [ -x "${BIN}/launch" ] || skip "build/bin/launch is not built (make all)"; }

@test "numeric options out of bounds and an empty --filter are usage errors with one line" {
  while IFS='|' read -r opt val msg; do
    run -2 "$PYTHON" "$RUN" --profile quick --out "${BATS_TEST_TMPDIR}/r" "$opt" "$val"
    assert_output "run.py: ${msg}"
  done <<'EOF'
--timeout|1e10|--timeout must be between 0.1 and 86400 seconds, got 1e+10
--timeout|1e-9|--timeout must be between 0.1 and 86400 seconds, got 1e-09
--timeout|nan|--timeout must be between 0.1 and 86400 seconds, got nan
--rounds|1000000000|--rounds must be between 1 and 10000, got 1000000000
--warmup-rounds|20000|--warmup-rounds must be between 0 and 10000, got 20000
--iterations|0|--iterations must be between 1 and 1000000000, got 0
--seed|-1|--seed must be between 0 and 18446744073709551615, got -1
--filter||--filter '' is empty and would match every variant; leave --filter out to run them all
EOF
  [ ! -e "${BATS_TEST_TMPDIR}/r" ]
  run "$PYTHON" "$RUN" --help
  assert_success
  assert_output --partial "--timeout 0.1 s to 86400 s (24 h)"
}

@test "a catalog timeout out of the bounds is a catalog error (exit 3) before anything runs" {
  cp -r "$FAKE_CATALOG" "${BATS_TEST_TMPDIR}/cat"
  "$PYTHON" - "${BATS_TEST_TMPDIR}/cat/readfile.json" <<'EOF'
import json, sys
w = json.load(open(sys.argv[1]))
w["profiles"]["quick"]["timeout_s"] = 0.000000001
json.dump(w, open(sys.argv[1], "w"))
EOF
  run -3 "$PYTHON" "$RUN" --catalog "${BATS_TEST_TMPDIR}/cat" --profile quick --node none \
    --out "${BATS_TEST_TMPDIR}/r"
  assert_output "run.py: ${BATS_TEST_TMPDIR}/cat/readfile.json: profile 'quick': timeout_s must be a number of seconds from 0.1 to 86400, got 1e-09"
  [ ! -e "${BATS_TEST_TMPDIR}/r" ]
}

@test "host slugs the runner uses in the results folder are refused" {
  for h in latest hosts LATEST; do
    run -2 fake --host "$h" --out "${BATS_TEST_TMPDIR}/r"
    assert_output "run.py: --host '${h}': the runner uses that name in the results folder; choose another host slug"
  done
  run -2 fake --host "../up" --out "${BATS_TEST_TMPDIR}/r"
  assert_output --partial "use letters, digits, '.', '_' and '-' only"
  [ ! -e "${BATS_TEST_TMPDIR}/r" ]
}

@test "host.json and REPORT.md record the open-file limits the run had" {
  need_launcher
  (ulimit -Sn 512 && fake --host h --out "${BATS_TEST_TMPDIR}/r" >/dev/null 2>&1)
  d="${BATS_TEST_TMPDIR}/r/latest"
  assert_equal "$(json "${d}/host.json" 'd["nofile_soft"]')" 512
  hard="$(ulimit -Hn)"
  [ "$hard" = unlimited ] && hard=None
  assert_equal "$(json "${d}/host.json" 'd["nofile_hard"]')" "$hard"
  grep -q "^| open files (soft / hard limit) | 512 / " "${d}/REPORT.md"
}

@test "UV_THREADPOOL_SIZE is recorded as libuv uses it, with the value given" {
  need_launcher
  while read -r given used; do
    run env UV_THREADPOOL_SIZE="$given" "$PYTHON" "$RUN" --catalog "$FAKE_CATALOG" --profile quick \
      --node none --rounds 1 --warmup-rounds 0 --iterations 5 --host h --no-charts --out "${BATS_TEST_TMPDIR}/r"
    assert_success
    refute_output --partial Traceback
    assert_equal "$(json "${BATS_TEST_TMPDIR}/r/latest/host.json" '(d["uv_threadpool_size"], d["uv_threadpool_size_env"])')" "($used, '$given')"
  done <<'EOF'
abc 1
0 1
-3 1024
5000 1024
8 8
EOF
}

@test "three runners at once: every sample is ok and latest is the newest run" {
  need_launcher
  for i in 1 2 3; do
    "$PYTHON" "$RUN" --catalog "$FAKE_CATALOG" --profile quick --node none --rounds 2 \
      --warmup-rounds 0 --iterations 5 --host h --no-charts --out "${BATS_TEST_TMPDIR}/r" \
      > "${BATS_TEST_TMPDIR}/out$i" 2>&1 &
    eval "pid$i=\$!"
  done
  wait "$pid1"; wait "$pid2"; wait "$pid3"     # each must exit 0 (set -e)
  "$PYTHON" - "${BATS_TEST_TMPDIR}/r" <<'EOF'
import csv, os, sys
out = sys.argv[1]
runs = sorted(os.listdir(os.path.join(out, "h")), key=lambda n: (n.split("-")[0], int((n.split("-") + ["1"])[1])))
assert len(runs) == 3, runs
for r in runs:
    rows = list(csv.DictReader(open(os.path.join(out, "h", r, "samples.csv"))))
    assert rows and all(x["status"] == "ok" for x in rows), (r, rows)
assert os.readlink(os.path.join(out, "latest")) == os.path.join("h", runs[-1]), os.readlink(os.path.join(out, "latest"))
EOF
}

@test "a launcher that cannot run is the runner's environment error, not a failed program" {
  mkdir -p "${BATS_TEST_TMPDIR}/build/bin"
  printf '#!/nonexistent/interpreter\n' > "${BATS_TEST_TMPDIR}/build/bin/launch"
  chmod +x "${BATS_TEST_TMPDIR}/build/bin/launch"
  run -3 env BUILD="${BATS_TEST_TMPDIR}/build" "$PYTHON" "$RUN" --catalog "$FAKE_CATALOG" \
    --profile quick --node none --rounds 1 --warmup-rounds 0 --iterations 5 --host h \
    --out "${BATS_TEST_TMPDIR}/r"
  # The last line says why; no line charges a program with a failure.
  assert_line --index $((${#lines[@]} - 1)) --regexp "^run\.py: cannot start the launcher .*build/bin/launch: No such file or directory \(run \`make all\`\)$"
  refute_output --partial " failed: "
  [ ! -e "${BATS_TEST_TMPDIR}/r/latest" ]
  [ "$(cat "${BATS_TEST_TMPDIR}"/r/h/*/samples.csv | wc -l)" -eq 1 ]
}

@test "an elapsed time beyond the process's wall time is invalid, and rendering copes" {
  need_launcher
  # A wrapper around the fake program that reports an absurd elapsed_ns.
  cat > "${BATS_TEST_TMPDIR}/liar" <<EOF
#!/bin/sh
"${ROOT}/tests/fixtures-bin/fake-readfile" "\$@" | sed 's/"elapsed_ns": *[0-9]*/"elapsed_ns": '"\$LIE"'/'
EOF
  chmod +x "${BATS_TEST_TMPDIR}/liar"
  cp -r "$FAKE_CATALOG" "${BATS_TEST_TMPDIR}/cat"
  "$PYTHON" - "${BATS_TEST_TMPDIR}/cat/readfile.json" "${BATS_TEST_TMPDIR}/liar" <<'EOF'
import json, sys
w = json.load(open(sys.argv[1]))
for v in w["variants"]:
    v["argv"][0] = sys.argv[2]
json.dump(w, open(sys.argv[1], "w"))
EOF
  i=0
  for lie in 1"$(printf '0%.0s' $(seq 400))" 100000000000000000000 1000000000000; do
    i=$((i + 1))
    run env LIE="$lie" "$PYTHON" "$RUN" --catalog "${BATS_TEST_TMPDIR}/cat" --profile quick --node none \
      --rounds 1 --warmup-rounds 0 --iterations 5 --filter sequential --host h --no-charts \
      --out "${BATS_TEST_TMPDIR}/r$i"
    assert_success
    refute_output --partial Traceback
    assert_output --regexp "run\.py: readfile/fake/honest-sequential@python invalid: elapsed_ns 10+(\.\.\.\([0-9]+ digits\) is beyond any clock|[0-9]* is longer than the process's own wall time)"
  done
  # The same on disk, marked ok (a file written before the runner checked): not counted, no crash.
  d="$(cd "${BATS_TEST_TMPDIR}/r3/latest" && pwd -P)"
  sed -i.bak 's/,invalid,/,ok,/' "${d}/samples.csv"
  run "$PYTHON" "$RUN" --render "$d"
  refute_output --partial Traceback
  refute_output --partial OverflowError
  assert_equal "$(json "${d}/summary.json" '[v["n"] for v in d["variants"]]')" "[0]"
}

@test "a file named results/latest is refused before the run and left as it was" {
  mkdir -p "${BATS_TEST_TMPDIR}/r"
  echo mine > "${BATS_TEST_TMPDIR}/r/latest"
  run -3 fake --host h --out "${BATS_TEST_TMPDIR}/r"
  assert_output "run.py: ${BATS_TEST_TMPDIR}/r/latest is a file, not the link the runner keeps at the newest run: move it away, or use --out DIR"
  assert_equal "$(cat "${BATS_TEST_TMPDIR}/r/latest")" mine
  [ ! -e "${BATS_TEST_TMPDIR}/r/h" ]
}
