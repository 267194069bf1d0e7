#!/usr/bin/env bats
# hostile_runner.bats -- the runner against a hostile user and an ordinary
# machine: out-of-range options, reserved host slugs, a low open-file limit,
# odd UV_THREADPOOL_SIZE values, concurrent runners, a broken launcher,
# absurd timings from a program and on disk, and results/latest in the way.
# Runs use the fake catalog (tests/fixtures-bin/catalog) and small N.

load test_helper

FAKE_CATALOG="${ROOT}/tests/fixtures-bin/catalog"

# fake ARGS... -- a short run of the fake catalog's quick profile.
fake() {
  "$PYTHON" -m runner --catalog "$FAKE_CATALOG" --profile quick --node none --rounds 1 \
    --warmup-rounds 0 --iterations 5 --no-charts "$@"
}

# json FILE EXPR -- prints EXPR evaluated on the parsed FILE (as `d`).
json() { "$PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

need_launcher() { [ -x "${BIN}/launch" ] || skip "build/bin/launch is not built (make all)"; }

@test "numeric options out of bounds and an empty --filter are usage errors with one line" {
  while IFS='|' read -r opt val msg; do
    run -2 "$PYTHON" -m runner --profile quick --out "${BATS_TEST_TMPDIR}/r" "$opt" "$val"
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
  run "$PYTHON" -m runner --help
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
  run -3 "$PYTHON" -m runner --catalog "${BATS_TEST_TMPDIR}/cat" --profile quick --node none \
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
    run env UV_THREADPOOL_SIZE="$given" "$PYTHON" -m runner --catalog "$FAKE_CATALOG" --profile quick \
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
18446744073709551617 1024
-18446744073709551617 1
EOF
}

@test "on Linux, the threadpool size host.json records is the number of threads libuv starts" {
  [ -d /proc/self/task ] || skip "Linux only: counts a process's threads in /proc"
  [ -x "${BIN}/c-readfile" ] || skip "build/bin/c-readfile is not built (make all)"
  local given want threads now same pid failures=""
  for given in 8 0 abc -3 4294967298 9223372036854775808 18446744073709551617 -18446744073709551617; do
    want=$("$PYTHON" -c 'import sys; from runner.measure import host; print(host.threadpool_size(sys.argv[1]))' \
      "$given")
    UV_THREADPOOL_SIZE=$given "${BIN}/c-readfile" --variant callback-sequential --iterations 2000000 \
      >/dev/null 2>&1 3>&- &
    pid=$!
    threads="" same=0
    # libuv starts every thread of its pool at the first read, one after the
    # other: the count once it holds still for 0.2 s is the loop thread and those.
    for _ in $(seq 1 500); do
      now=$(sed -n 's/^Threads:[[:space:]]*//p' "/proc/$pid/status" 2>/dev/null)
      if [ -n "$now" ] && [ "$now" -gt 1 ] && [ "$now" = "$threads" ]; then
        same=$((same + 1))
        [ "$same" -lt 20 ] || break
      else
        same=0
      fi
      threads=$now
      sleep 0.01
    done
    kill "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null || true
    [ "$threads" = $((want + 1)) ] || failures+="UV_THREADPOOL_SIZE=$given: host.json says $want, libuv ran $((threads - 1)) threads"$'\n'
  done
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
}

@test "three runners at once: every sample is ok and latest is the newest run" {
  need_launcher
  for i in 1 2 3; do
    "$PYTHON" -m runner --catalog "$FAKE_CATALOG" --profile quick --node none --rounds 2 \
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
  run -3 env BUILD="${BATS_TEST_TMPDIR}/build" "$PYTHON" -m runner --catalog "$FAKE_CATALOG" \
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
    run env LIE="$lie" "$PYTHON" -m runner --catalog "${BATS_TEST_TMPDIR}/cat" --profile quick --node none \
      --rounds 1 --warmup-rounds 0 --iterations 5 --filter sequential --host h --no-charts \
      --out "${BATS_TEST_TMPDIR}/r$i"
    assert_failure 1          # its one variant has no valid sample
    refute_output --partial Traceback
    assert_output --regexp "run\.py: readfile/fake/honest-sequential@python invalid: elapsed_ns 10+(\.\.\.\([0-9]+ digits\) is beyond any clock|[0-9]* is longer than the process's own wall time)"
  done
  # The same on disk, marked ok (a file written before the runner checked): not counted, no crash.
  d="$(cd "${BATS_TEST_TMPDIR}/r3/latest" && pwd -P)"
  sed -i.bak 's/,invalid,/,ok,/' "${d}/samples.csv"
  run "$PYTHON" -m runner --render "$d"
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

@test "under a non-UTF-8 locale (de_DE.ISO-8859-1) a run and --render print their tables, ASCII where the encoding lacks a character" {
  need_launcher
  command -v localedef >/dev/null || skip "localedef is not installed (it builds the locale for this test)"
  mkdir -p "${BATS_TEST_TMPDIR}/loc"
  localedef -i de_DE -f ISO-8859-1 "${BATS_TEST_TMPDIR}/loc/de_DE.ISO-8859-1" >/dev/null 2>&1 \
    || skip "localedef cannot build de_DE.ISO-8859-1 here (no de_DE source or ISO-8859-1 charmap)"
  export LOCPATH="${BATS_TEST_TMPDIR}/loc"
  # (bash itself cannot load it: its own warning is not the test's)
  { export LC_ALL=de_DE.ISO-8859-1; } 2>/dev/null
  [ "$("$PYTHON" -c 'import sys; print(sys.stdout.encoding)')" = iso8859-1 ] \
    || skip "Python does not take the built locale"
  run fake --host h --out "${BATS_TEST_TMPDIR}/r"
  assert_success
  refute_output --partial Traceback
  # The default table's header: µ is in ISO-8859-1.
  assert_line --regexp $'^variant +n +\xb5s/read +vs own baseline$'
  "$PYTHON" -m runner --render "${BATS_TEST_TMPDIR}/r/latest" > /dev/null 2> "${BATS_TEST_TMPDIR}/err"
  if grep -q Traceback "${BATS_TEST_TMPDIR}/err"; then cat "${BATS_TEST_TMPDIR}/err"; false; fi
  # The wide table's header: Δ is not in ISO-8859-1 and becomes "d"; µ is.
  run "$PYTHON" -m runner --render "${BATS_TEST_TMPDIR}/r/latest" --wide
  assert_success
  assert_line --regexp $'^variant +n +\xb5s/read +95% CI +vs fake honest +d \xb5s/read'
}

# last_run_took OUT MS -- OUT/latest: a run folder whose summary.json says every
# variant of the fake quick profile took MS ms of wall time at N = 5.
last_run_took() {
  mkdir -p "$1/h/20260101T000000Z"
  ln -s h/20260101T000000Z "$1/latest"
  "$PYTHON" - "$1/h/20260101T000000Z/summary.json" "$2" <<'PY'
import json, sys
ids = ["readfile/fake/honest-%s@python" % m for m in ("sequential", "parallel", "bounded")]
json.dump({"variants": [{"variant": v, "wall_ms": float(sys.argv[2]), "iterations": 5} for v in ids]},
          open(sys.argv[1], "w"))
PY
}

@test "a run estimated beyond a day is refused without --yes, one beyond an hour asks on a terminal, and run.json and summary.json keep its orders small" {
  need_launcher
  local out="${BATS_TEST_TMPDIR}/r" guard=()
  command -v timeout >/dev/null && guard=(timeout 60)
  last_run_took "$out" 10000
  # 3 variants x 20,000 rounds at 10 s each: about 7 days.
  run ${guard[@]+"${guard[@]}"} "$PYTHON" -m runner --catalog "$FAKE_CATALOG" --profile quick --node none \
    --rounds 10000 --warmup-rounds 10000 --iterations 5 --host h --out "$out" < /dev/null
  assert_failure 2
  assert_output "run.py: this run is 60,000 runs, about 6 d 22 h, more than a day: not started without --yes (fewer --rounds or a --filter, or --yes to start it anyway)"
  [ "$(ls "$out/h")" = 20260101T000000Z ]
  # On a terminal it asks (here: 3 x 2 rounds at 11 min 40 s each, 70 min), and "n" starts nothing.
  rm "$out/latest" && last_run_took "$out" 700000
  run "$PYTHON" - "$FAKE_CATALOG" "$out" <<'PY'
import os, pty, sys, time
cat, out = sys.argv[1:]
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.executable, [sys.executable, "-m", "runner", "--catalog", cat, "--profile", "quick", "--node",
             "none", "--rounds", "1", "--warmup-rounds", "1", "--iterations", "5", "--host", "h",
             "--out", out])
said = b""
for _ in range(100):
    said += os.read(fd, 4096)
    if b"[y/N]" in said:
        break
os.write(fd, b"n\n")
time.sleep(1)
try:
    said += os.read(fd, 4096)
except OSError:
    pass
print(said.decode().replace("\r", ""))
print("exit", os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
PY
  assert_line "run.py: this run is 6 runs, about 1 h 10 min."
  assert_line --partial "Start it? [y/N]"
  assert_line "run.py: not started (fewer --rounds or a --filter, or --yes to start it anyway)"
  assert_line "exit 2"
  [ "$(ls "$out/h")" = 20260101T000000Z ]
  # --yes starts the long one (stopped at once): its run.json is small, and its orders are all there.
  rm "$out/latest" && last_run_took "$out" 10000
  "$PYTHON" -m runner --catalog "$FAKE_CATALOG" --profile quick --node none --rounds 10000 \
    --warmup-rounds 10000 --iterations 5 --host h --out "$out" --yes > "${BATS_TEST_TMPDIR}/log" 2>&1 &
  pid=$!
  for _ in $(seq 1 100); do grep -q "seed" "${BATS_TEST_TMPDIR}/log" && break; sleep 0.1; done
  kill -INT "$pid"
  rc=0
  wait "$pid" || rc=$?
  [ "$rc" -eq 130 ] || { cat "${BATS_TEST_TMPDIR}/log"; false; }
  # The status line wraps at 100 columns (stderr is no terminal): joined again.
  sed -e ':a' -e 'N' -e '$!ba' -e 's/\n  / /g' "${BATS_TEST_TMPDIR}/log" |
    grep -q "^run.py: 3 variants (+10000 warm-up rounds), readfile N=5 x 10000 rounds, shuffle seed [0-9]*; 60,000 runs, about 6 d 22 h -> "
  for d in "$out"/h/2*Z; do [ "${d##*/}" = 20260101T000000Z ] || break; done
  [ "$(wc -c < "$d/run.json")" -lt 20000 ]
  "$PYTHON" - "$d/run.json" <<'PY'
import json, sys
from runner.measure import schedule
warm, measured = schedule.run_orders(json.load(open(sys.argv[1])))
assert (len(warm), len(measured)) == (10000, 10000) and all(len(o) == 3 for o in warm + measured)
PY
  # Stopped once a round was measured, it renders what it measured: summary.json,
  # which carries run.json's object, stays as small.
  rm "$out/latest" && last_run_took "$out" 10000
  "$PYTHON" -m runner --catalog "$FAKE_CATALOG" --profile quick --node none --rounds 10000 \
    --warmup-rounds 0 --iterations 5 --host h --out "$out" --yes --no-charts > "${BATS_TEST_TMPDIR}/log" 2>&1 &
  pid=$!
  for _ in $(seq 1 200); do
    [ "$(cat "$out"/h/2*Z/samples.csv 2>/dev/null | wc -l)" -gt 3 ] && break
    sleep 0.1
  done
  kill -INT "$pid"
  rc=0
  wait "$pid" || rc=$?
  [ "$rc" -eq 130 ] || { cat "${BATS_TEST_TMPDIR}/log"; false; }
  grep -q "^run.py: interrupted after [0-9]* complete round" "${BATS_TEST_TMPDIR}/log" || { cat "${BATS_TEST_TMPDIR}/log"; false; }
  for d in "$out"/h/2*Z; do [ -s "$d/samples.csv" ] && break; done
  [ -s "$d/summary.json" ]
  [ "$(wc -c < "$d/run.json")" -lt 20000 ]
  [ "$(wc -c < "$d/summary.json")" -lt 50000 ] || { wc -c "$d/summary.json"; false; }
}

@test "options that conflict, that the command would ignore, or that are given twice are usage errors with one line" {
  local d="${BATS_TEST_TMPDIR}/r/h/20260101T000000Z"
  mkdir -p "$d"
  while IFS='|' read -r args msg; do
    read -r -a argv <<<"$args"
    run -2 "$PYTHON" -m runner "${argv[@]//@D@/$d}"
    assert_output "run.py: ${msg//@D@/$d}"
  done <<'CASES'
--render @D@ --rounds 3|--render redraws a run folder from its files: --rounds would be ignored (leave it out)
--filter quick --render @D@|--render redraws a run folder from its files: --filter would be ignored (leave it out)
--render @D@ --catalog x|--render redraws a run folder from its files: --catalog would be ignored (leave it out)
--render @D@ --hosts|--render and --hosts are two commands: give one
--hosts --render @D@|--render and --hosts are two commands: give one
--hosts @D@ --profile quick|--hosts draws the cross-host charts of the runs in a folder: --profile would be ignored (leave it out)
--profile quick --rounds 3 --rounds 4|--rounds is given twice: say it once
--profile quick --profile default|--profile is given twice: say it once
--profile quick --no-trace --no-trace|--no-trace is given twice: say it once
--render @D@ --render @D@|--render is given twice: say it once
CASES
  [ ! -e "${BATS_TEST_TMPDIR}/r/h/20260101T000000Z/REPORT.md" ]
  # --filter may be repeated (any may match).
  run -0 fake --host h --out "${BATS_TEST_TMPDIR}/f" --filter sequential --filter parallel
  run -3 "$PYTHON" -m runner --hosts "${BATS_TEST_TMPDIR}/nope"
  assert_output "run.py: ${BATS_TEST_TMPDIR}/nope is not a folder: --hosts takes the results folder that holds the hosts' runs (default results)"
}

# hostile_catalog SCRIPT -- a copy of the fake catalog in $BATS_TEST_TMPDIR/cat
# whose programs are SCRIPT (a shell script written to
# $BATS_TEST_TMPDIR/hostile, given the fake program's arguments).
hostile_catalog() {
  printf '#!/bin/sh\n%s\n' "$1" > "${BATS_TEST_TMPDIR}/hostile"
  chmod +x "${BATS_TEST_TMPDIR}/hostile"
  cp -r "$FAKE_CATALOG" "${BATS_TEST_TMPDIR}/cat"
  "$PYTHON" - "${BATS_TEST_TMPDIR}/cat/readfile.json" "${BATS_TEST_TMPDIR}/hostile" <<'EOF'
import json, sys
w = json.load(open(sys.argv[1]))
for v in w["variants"]:
    v["argv"][0] = sys.argv[2]
json.dump(w, open(sys.argv[1], "w"))
EOF
}

@test "a program that signals its own process group is one crashed run, and one that leaves processes behind is warned of and they are killed" {
  need_launcher
  [ "$(uname -s)" = Linux ] || skip "the launcher counts leftovers on Linux (a subreaper)"
  # parallel: trap 'kill 0' EXIT, which once killed the launcher and stopped
  # the run; sequential: a detached sleeper (setsid), which outlived the run.
  hostile_catalog "case \"\$*\" in
  *honest-parallel*) trap 'kill 0' EXIT ;;
  *honest-sequential*) setsid sleep 300 </dev/null >/dev/null 2>&1 & echo \$! >> \"\$PIDS\" ;;
esac
\"${ROOT}/tests/fixtures-bin/fake-readfile\" \"\$@\""
  run env PIDS="${BATS_TEST_TMPDIR}/pids" "$PYTHON" -m runner --catalog "${BATS_TEST_TMPDIR}/cat" \
    --profile quick --node none --rounds 2 --warmup-rounds 0 --iterations 5 --filter '^readfile/fake/honest-' \
    --host h --no-charts --out "${BATS_TEST_TMPDIR}/r"
  refute_output --partial "without its report"
  assert_output --partial "run.py: readfile/fake/honest-parallel@python crashed: killed by SIGTERM"
  assert_output --partial "honest-sequential@python left 1 process running at its end (killed; runs.jsonl: leftovers)"
  local d
  d="$(cd "${BATS_TEST_TMPDIR}/r/latest" && pwd -P)"
  assert_equal "$(json "$d/run.json" 'd["complete"], d["rounds_done"]')" "(True, 2)"
  # every sequential run's entry records its leftover, and the sleepers are gone
  run "$PYTHON" -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
print(sorted((r["variant"].split("/")[-1], r["status"], r.get("leftovers")) for r in rows if "variant" in r))
' "$d/runs.jsonl"
  assert_output "[('honest-bounded@python', 'ok', None), ('honest-bounded@python', 'ok', None), ('honest-parallel@python', 'crashed', None), ('honest-parallel@python', 'crashed', None), ('honest-sequential@python', 'ok', 1), ('honest-sequential@python', 'ok', 1)]"
  [ "$(wc -l < "${BATS_TEST_TMPDIR}/pids")" -eq 2 ]
  while read -r pid; do
    ! kill -0 "$pid" 2>/dev/null || { kill "$pid"; false; }
  done < "${BATS_TEST_TMPDIR}/pids"
}

@test "a stdout that cannot be written (/dev/full) is one line on stderr, not a traceback, for a run and for --render" {
  need_launcher
  [ -w /dev/full ] || skip "no /dev/full here"
  run bash -c '"$@" >/dev/full' _ "$PYTHON" -m runner --catalog "$FAKE_CATALOG" --profile quick --node none \
    --rounds 1 --warmup-rounds 0 --iterations 5 --no-charts --filter '^readfile/fake/honest-sequential' \
    --host h --out "${BATS_TEST_TMPDIR}/r"
  assert_failure 1
  refute_output --partial Traceback
  assert_line --regexp "^run\.py: cannot print the tables to stdout: No space left on device; the run's files are whole \(.*/REPORT\.md\)$"
  local d
  d="$(cd "${BATS_TEST_TMPDIR}/r/latest" && pwd -P)"
  [ -s "$d/REPORT.md" ]
  run bash -c '"$@" >/dev/full' _ "$PYTHON" -m runner --render "$d" --no-charts
  assert_failure 1
  refute_output --partial Traceback
  assert_line --regexp "^run\.py: cannot print the tables to stdout: No space left on device"
}

@test "an empty program that fails (a Go start-up under ulimit -v) leaves its round's start-up unknown, and the run is rendered" {
  need_launcher
  cp -r "$FAKE_CATALOG" "${BATS_TEST_TMPDIR}/cat"
  "$PYTHON" - "${BATS_TEST_TMPDIR}/cat/suite.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
s["startup"] = {"about": "a test's: the fake language's empty program fails",
                "programs": {"fake": ["sh", "-c", "exit 2"]}}
json.dump(s, open(sys.argv[1], "w"))
EOF
  run "$PYTHON" -m runner --catalog "${BATS_TEST_TMPDIR}/cat" --profile quick --node none --rounds 2 \
    --warmup-rounds 0 --iterations 5 --no-charts --filter '^readfile/fake/honest-sequential' --host h \
    --out "${BATS_TEST_TMPDIR}/r"
  assert_success
  refute_output --partial "wrong type"
  local d
  d="$(cd "${BATS_TEST_TMPDIR}/r/latest" && pwd -P)"
  assert_equal "$(json "$d/run.json" 'd["startup_ns"]')" "{'fake': [None, None]}"
  [ -s "$d/REPORT.md" ]
  run -0 "$PYTHON" -m runner --render "$d" --no-charts
}
