#!/usr/bin/env bats
# hostile_render.bats -- the runner against hostile inputs and ordinary accidents
# of its own: --render of a corrupted run folder (refused with one line naming
# the file and the row, or warned about in REPORT.md), and signals (SIGHUP,
# SIGTERM, SIGKILL of the runner, Ctrl-C while the charts are drawn or during
# the warm-up).
# shellcheck disable=SC2086,SC2046  # lists of process ids, one a word

load test_helper

FAKE_CATALOG="${ROOT}/tests/fixtures-bin/catalog"

# good_run DIR -- a run folder DIR (under a host folder) with a whole samples.csv
# of two variants over three rounds, a run.json and a host.json, as the runner
# writes them; the cases below break one thing each.
good_run() {
  mkdir -p "$1"
  "$PYTHON" - "$1" <<'PY'
import csv, json, os, sys
from runner.analysis import summary as sm
d = sys.argv[1]
ids = ["readfile/c/callback-sequential@node4", "readfile/c/await-sequential@node4"]
with open(os.path.join(d, "samples.csv"), "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=sm.SAMPLE_COLUMNS, lineterminator="\n")
    w.writeheader()
    for rnd in (1, 2, 3):
        for order, vid in enumerate(ids, start=1):
            style = vid.split("/")[2].split("-")[0]
            w.writerow({"round": rnd, "order": order, "variant": vid, "workload": "readfile",
                        "lang": "c", "style": style, "mode": "sequential", "backend": "node4",
                        "iterations": 100, "concurrency": 1, "status": "ok", "exit_code": 0,
                        "elapsed_ns": 1000000 * (order + rnd), "wall_ns": 9000000,
                        "proc_user_us": 100, "proc_sys_us": 100, "proc_peak_rss_kb": 3000, "ok": 100,
                        "bytes": 1200, "shape": "", "method": "inprocess",
                        "label": vid.split("/", 1)[1]})
with open(os.path.join(d, "run.json"), "w") as f:
    json.dump({"profile": "quick", "stamp": os.path.basename(d), "seed": 1, "rounds": 3,
               "warmup_rounds": 0, "complete": True, "failures": [], "skipped": []}, f)
with open(os.path.join(d, "host.json"), "w") as f:
    json.dump({"slug": "h", "cores": 2}, f)
PY
}

# corrupt DIR CASE -- breaks the run folder DIR as CASE says.
corrupt() {
  "$PYTHON" - "$1" "$2" <<'PY'
import json, os, sys
d, case = sys.argv[1], sys.argv[2]
samples = os.path.join(d, "samples.csv")
lines = open(samples).read().splitlines()
head = lines[0].split(",")
def set_col(lineno, col, value):
    cells = lines[lineno - 1].split(",")
    cells[head.index(col)] = value
    lines[lineno - 1] = ",".join(cells)
def write_text(name, text):
    with open(os.path.join(d, name), "w") as f:
        f.write(text)
if case == "empty-round":
    set_col(3, "round", "")
elif case == "run-json-list":
    write_text("run.json", "[1, 2]")
elif case == "run-json-not-json":
    write_text("run.json", "{\"rounds\": ")
elif case == "run-json-key-twice":
    write_text("run.json", '{"rounds": 3, "rounds": 30}')
elif case == "run-json-rounds-text":
    write_text("run.json", json.dumps({"rounds": "3"}))
elif case in ("run-json-question-number", "run-json-passes-text"):
    # Fields the report reads deep inside: refused in one line, not a traceback.
    run = json.load(open(os.path.join(d, "run.json")))
    if case == "run-json-question-number":
        run["extra_rounds"] = {"rounds": 1, "questions": [{"id": "target t"}, 7]}
    else:
        run["passes"] = {"readfile/c/callback-sequential@node4": "3"}
    write_text("run.json", json.dumps(run))
elif case == "trace-json-calls-text":
    write_text("trace.json", json.dumps({"variants": {"readfile/c/callback-sequential@node4": {
        "total": 4.0, "by_syscall": "read"}}}))
elif case == "run-json-failures-text":
    write_text("run.json", json.dumps({"failures": ["exit 1"]}))
elif case == "host-json-string":
    write_text("host.json", "\"a host\"")
elif case == "counts-json-one-n":
    write_text("counts.json", json.dumps({"tool": "valgrind", "n": {"readfile": [100]}}))
elif case == "host-json-commit-number":
    write_text("host.json", json.dumps({"slug": "h", "git_commit": 1234567}))
elif case == "host-json-memory-text":
    write_text("host.json", json.dumps({"slug": "h", "memory_bytes": "8G"}))
elif case == "extra-column":
    lines[2] += ",surplus"
elif case == "short-middle-row":
    lines[2] = ",".join(lines[2].split(",")[:5])
elif case == "negative-elapsed":
    set_col(3, "elapsed_ns", "-5000000")
elif case == "huge-elapsed":
    set_col(3, "elapsed_ns", "1" + "0" * 400)
elif case == "elapsed-not-integer":
    set_col(3, "elapsed_ns", "1e9")
elif case == "unknown-status":
    set_col(3, "status", "great")
elif case == "mixed-n":
    set_col(6, "iterations", "200")
elif case == "duplicate-row":
    lines.append(lines[3])
elif case == "ok-zero-elapsed":
    set_col(3, "elapsed_ns", "0")
elif case == "ok-one-of-n":
    set_col(3, "ok", "1")
elif case == "ok-bytes-empty":
    set_col(3, "bytes", "")
elif case == "run-json-checks-bad":
    run = json.load(open(os.path.join(d, "run.json")))
    run["workloads"] = {"readfile": {"checks": {"bytes": "__import__('os')"}}}
    write_text("run.json", json.dumps(run))
elif case == "run-json-other-expect":
    # The run recorded what it gave the programs: its rows are checked with it.
    run = json.load(open(os.path.join(d, "run.json")))
    run["workloads"] = {"readfile": {"args": ["--file", "t.txt", "--expect", "Hi"],
                                     "checks": {"bytes": "iterations * len(expect)"}}}
    write_text("run.json", json.dumps(run))
elif case == "ok-bytes-wrong":
    set_col(3, "bytes", "7")
elif case == "sequential-concurrency-9":
    set_col(3, "concurrency", "9")
elif case == "ok-exit-1":
    set_col(3, "exit_code", "1")
elif case == "id-not-its-columns":
    set_col(3, "style", "promise")
elif case == "label-not-its-id":
    set_col(3, "label", "c/callback-sequential@node4")
else:
    sys.exit("corrupt: no case %r" % case)
open(samples, "w").write("\n".join(lines) + "\n")
PY
}

# The refused cases, one a row: CASE | what the one line says (an extended regexp).
REFUSED='
empty-round            | samples\.csv:3: round is empty
run-json-list          | run\.json: a JSON object is expected, not list
run-json-not-json      | run\.json: not JSON
run-json-key-twice     | run\.json: key "rounds" appears twice in one object
run-json-rounds-text   | run\.json: rounds has the wrong type
run-json-failures-text | run\.json: every entry of failures must be an object
run-json-question-number | run\.json: extra_rounds\.questions\[1\] has the wrong type \(int\)
run-json-passes-text   | run\.json: passes\["readfile/c/callback-sequential@node4"\] has the wrong type \(str\)
trace-json-calls-text  | trace\.json: variants\["readfile/c/callback-sequential@node4"\]\.by_syscall has the wrong type \(str\)
host-json-string       | host\.json: a JSON object is expected, not str
host-json-memory-text  | host\.json: memory_bytes has the wrong type
counts-json-one-n      | counts\.json: n\["readfile"\] has the wrong type \(list\)
host-json-commit-number | host\.json: git_commit has the wrong type \(int\)
extra-column           | samples\.csv:3: 32 columns, expected 31
short-middle-row       | samples\.csv:3: 5 columns, expected 31
negative-elapsed       | samples\.csv:3: elapsed_ns is -5000000, below 0
huge-elapsed           | samples\.csv:3: elapsed_ns has 401 digits
elapsed-not-integer    | samples\.csv:3: elapsed_ns is not an integer
unknown-status         | samples\.csv:3: unknown status .great.
mixed-n                | samples\.csv:6: readfile/c/callback-sequential@node4 has iterations 200 here and 100 on line 2
duplicate-row          | samples\.csv:8: a second row of readfile/c/callback-sequential@node4 in round 2 \(the first is line 4\)
ok-zero-elapsed        | samples\.csv:3: status ok, but elapsed_ns must be positive, got 0
ok-one-of-n            | samples\.csv:3: status ok, but ok is 1, expected 100 \(every completion verified\)
ok-bytes-empty         | samples\.csv:3: status ok with bytes empty
run-json-checks-bad    | run\.json: workloads\.readfile\.checks\.bytes: only integers
ok-bytes-wrong         | samples\.csv:3: status ok, but bytes is 7, expected 1200 \(iterations \* len\(expect\)\)
run-json-other-expect  | samples\.csv:2: status ok, but bytes is 1200, expected 200 \(iterations \* len\(expect\)\)
sequential-concurrency-9 | samples\.csv:3: concurrency is 9: the runner gives a sequential variant 1
ok-exit-1              | samples\.csv:3: status ok with exit_code 1
id-not-its-columns     | samples\.csv:3: variant .readfile/c/await-sequential@node4. is not what its own columns make \(readfile/c/promise-sequential@node4\)
label-not-its-id       | samples\.csv:3: label .c/callback-sequential@node4. is not its variant
'

@test "--render refuses a corrupted run folder with one line naming the file and the row, exit 3" {
  local name pattern failures="" d
  while IFS='|' read -r name pattern; do
    read -r name <<<"$name"
    [ -n "$name" ] || continue
    read -r pattern <<<"$pattern"
    d="${BATS_TEST_TMPDIR}/${name}/h/20260101T000000Z"
    good_run "$d"
    corrupt "$d" "$name"
    run "$PYTHON" -m runner --render "$d"
    if [ "$status" -ne 3 ] || [ "${#lines[@]}" -ne 1 ] || ! grep -Eq -- "$pattern" <<<"$output"; then
      failures+="$name: exit $status, wanted 3 and one line matching /$pattern/: $output"$'\n'
    fi
    [ ! -e "${d}/REPORT.md" ] || failures+="$name: wrote a REPORT.md"$'\n'
  done <<<"$REFUSED"
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
}

@test "--render of a whole folder works, and a torn last line is left out with a warning in REPORT.md" {
  d="${BATS_TEST_TMPDIR}/torn/h/20260101T000000Z"
  good_run "$d"
  run -0 "$PYTHON" -m runner --render "$d"
  assert_line --regexp '^c/await-sequential@node4 +3 '
  printf '4,1,readfile/c/callback-seq' >> "${d}/samples.csv"
  run -0 "$PYTHON" -m runner --render "$d"
  assert_line --regexp '^c/callback-sequential@node4 +3 '
  assert_line --partial "samples.csv:8: a short last line (an interrupted write) was left out"
  grep -q "samples.csv:8: a short last line" "${d}/REPORT.md"
}

# sleeper_catalog -- a copy of the fake catalog whose programs go through a
# wrapper that notes its pid (and the pid of a child it forks, which stays in
# its process group) in $BATS_TEST_TMPDIR/pids, then runs the fake program;
# prints the folder.  The hang variant then sleeps until it is killed.
# SLEEPER_PREFIX (e.g. setsid) goes before the fake program.
sleeper_catalog() {
  local cat="${BATS_TEST_TMPDIR}/cat" wrap="${BATS_TEST_TMPDIR}/wrapped-fake"
  cp -R "$FAKE_CATALOG" "$cat"
  cat > "$wrap" <<SH
#!/bin/sh
sleep 300 &
echo "\$! \$\$" >> "${BATS_TEST_TMPDIR}/pids"
exec ${SLEEPER_PREFIX:-} "${ROOT}/tests/fixtures-bin/fake-readfile" "\$@"
SH
  chmod +x "$wrap"
  sed "s#tests/fixtures-bin/fake-readfile#${wrap}#" "$FAKE_CATALOG/readfile.json" > "$cat/readfile.json"
  echo "$cat"
}

# wait_for FILE -- until FILE exists and is not empty (at most 10 s).
wait_for() {
  for _ in $(seq 1 100); do
    [ -s "$1" ] && return 0
    sleep 0.1
  done
  echo "wait_for: no $1 after 10 s" >&2
  return 1
}

# gone PID... -- succeeds when every PID has ended within 3 s (a zombie counts
# as ended: it runs no more).
gone() {
  local p alive
  for _ in $(seq 1 30); do
    alive=""
    for p in "$@"; do
      if kill -0 "$p" 2>/dev/null && [ "$(ps -o stat= -p "$p" | cut -c1)" != Z ]; then
        alive+=" $p"
      fi
    done
    [ -z "$alive" ] && return 0
    sleep 0.1
  done
  echo "still running:$alive" >&2
  ps -o pid,ppid,pgid,stat,args -p "${alive# }" >&2 || true
  kill -9 $alive 2>/dev/null || true
  return 1
}

# start_hanging_run -- the runner on the hang variant alone (a long timeout) in
# the background; sets RUNNER_PID and PIDS (the program and its child) once the
# program runs.
start_hanging_run() {
  "$PYTHON" -m runner --catalog "$(sleeper_catalog)" --profile broken --filter hang --rounds 1 \
    --warmup-rounds 0 --timeout 120 --out "${BATS_TEST_TMPDIR}/r" \
    > "${BATS_TEST_TMPDIR}/out" 2>&1 &
  RUNNER_PID=$!
  wait_for "${BATS_TEST_TMPDIR}/pids"
  PIDS=$(cat "${BATS_TEST_TMPDIR}/pids")
}

@test "SIGHUP is handled like SIGTERM: run.json written and marked incomplete, the program killed" {
  start_hanging_run
  kill -HUP "$RUNNER_PID"
  rc=0
  wait "$RUNNER_PID" || rc=$?
  [ "$rc" -eq 130 ] || { cat "${BATS_TEST_TMPDIR}/out"; false; }
  gone $PIDS
  # (no sample was measured, so latest was not moved: the one run folder)
  "$PYTHON" -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["complete"] is False, r' \
    "${BATS_TEST_TMPDIR}"/r/*/*/run.json
  grep -q "interrupted after" "${BATS_TEST_TMPDIR}/out"
}

@test "after SIGKILL of the runner the measured program and its group are gone" {
  start_hanging_run
  kill -KILL "$RUNNER_PID"
  wait "$RUNNER_PID" || true
  gone $PIDS
}

@test "Ctrl-C during the warm-up leaves latest where it was and says so" {
  mkdir -p "${BATS_TEST_TMPDIR}/r/old/run1"
  ln -s old/run1 "${BATS_TEST_TMPDIR}/r/latest"
  "$PYTHON" -m runner --catalog "$(sleeper_catalog)" --profile broken --filter hang --rounds 1 \
    --warmup-rounds 1 --timeout 120 --out "${BATS_TEST_TMPDIR}/r" > "${BATS_TEST_TMPDIR}/out" 2>&1 &
  pid=$!
  wait_for "${BATS_TEST_TMPDIR}/pids"
  kill -INT "$pid"
  rc=0
  wait "$pid" || rc=$?
  [ "$rc" -eq 130 ] || { cat "${BATS_TEST_TMPDIR}/out"; false; }
  gone $(cat "${BATS_TEST_TMPDIR}/pids")
  [ "$(readlink "${BATS_TEST_TMPDIR}/r/latest")" = old/run1 ]
  grep -q "no sample was measured; .*latest not moved" "${BATS_TEST_TMPDIR}/out"
}

@test "a closed terminal (SIGHUP, writes failing with EIO) still ends the run with run.json and REPORT.md" {
  cat_dir=$(sleeper_catalog)
  run "$PYTHON" - "$cat_dir" "$BATS_TEST_TMPDIR" <<'PY'
import os, pty, sys, time
cat, tmp = sys.argv[1:]
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.executable, [sys.executable, "-m", "runner", "--catalog", cat, "--profile", "broken",
             "--filter", "hang", "--rounds", "1", "--warmup-rounds", "0", "--timeout", "120",
             "--out", os.path.join(tmp, "r")])
pids = os.path.join(tmp, "pids")
for _ in range(100):
    if os.path.exists(pids) and open(pids).read():
        break
    time.sleep(0.1)
os.close(fd)                # the terminal is gone: the runner gets SIGHUP
for _ in range(100):        # at most 10 s
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
        print("exit", os.waitstatus_to_exitcode(status))
        break
    time.sleep(0.1)
else:
    os.kill(pid, 9)
    print("still running after 10 s")
PY
  assert_output "exit 130"
  gone $(cat "${BATS_TEST_TMPDIR}/pids")
  ls "${BATS_TEST_TMPDIR}"/r/*/*/REPORT.md
  "$PYTHON" -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["complete"] is False, r' \
    "${BATS_TEST_TMPDIR}"/r/*/*/run.json
}

@test "on Linux a program that calls setsid still dies with the runner (its parent-death signal)" {
  [ "$(uname -s)" = Linux ] && command -v setsid >/dev/null || skip "Linux with setsid(1) only"
  # setsid -w: a group leader's setsid(1) forks, and without -w its parent (the
  # program the runner started) ended at once, so the run could end before the kill.
  SLEEPER_PREFIX="setsid -w" start_hanging_run
  # The program's child (setsid's, in a session of its own) once it runs.
  child=""
  for _ in $(seq 1 50); do
    child=$(awk '{ print $1 }' "/proc/${PIDS#* }/task/${PIDS#* }/children" 2>/dev/null)
    [ -n "$child" ] && break
    sleep 0.1
  done
  [ -n "$child" ] || fail "setsid -w started no child"
  kill -KILL "$RUNNER_PID"
  wait "$RUNNER_PID" || true
  # The wrapper's child stayed in the group; the program's child left it, and
  # the launcher (a subreaper) kills it as a leftover once the runner is gone.
  gone $PIDS "$child"
}

# signal_runner_when SIGNAL PATTERN ARGS... -- starts the runner with ARGS in the
# background (output in $BATS_TEST_TMPDIR/out; as a non-interactive shell
# starts a job, with SIGINT ignored), sends it SIGNAL once a process whose
# command line matches PATTERN runs (pgrep -f), or for a PATTERN file:PATH,
# once PATH exists (at most 10 s), and waits: fails unless it exits 130.
signal_runner_when() {
  local sig=$1 pattern=$2 pid rc=0
  shift 2
  case $pattern in
    file:*) ;;
    *) command -v pgrep >/dev/null || skip "pgrep is not installed" ;;
  esac
  "$PYTHON" -m runner "$@" > "${BATS_TEST_TMPDIR}/out" 2>&1 &
  pid=$!
  for _ in $(seq 1 200); do
    case $pattern in
      file:*) [ -e "${pattern#file:}" ] && break ;;
      *) pgrep -f "$pattern" >/dev/null && break ;;
    esac
    sleep 0.05
  done
  kill "-$sig" "$pid"
  wait "$pid" || rc=$?
  [ "$rc" -eq 130 ] || { echo "exit $rc"; cat "${BATS_TEST_TMPDIR}/out"; false; }
}

@test "a signal to the runner while a chart is drawn: that chart finishes, REPORT.md lists it and says 1 drawn, exit 130" {
  d="${BATS_TEST_TMPDIR}/sig/h/20260101T000000Z"
  good_run "$d"
  # charts/ is made just before the first chart (the headline), which takes a
  # second or so: the signal comes while it is drawn, and waits for it.
  signal_runner_when INT "file:${d}/charts" --render "$d"
  grep -q "interrupted while drawing the charts: REPORT.md written with 1 of them" "${BATS_TEST_TMPDIR}/out"
  grep -q "interrupted while they were drawn (1 drawn)" "${d}/REPORT.md"
  grep -q "charts/headline-readfile.png" "${d}/REPORT.md"
  # The chart it lists is whole: its PNG and, written after it, its sidecar.
  [ "$(head -c 8 "${d}/charts/headline-readfile.png" | od -An -c | tr -d ' \n')" = '211PNG\r\n032\n' ]
  [ -s "${d}/charts/headline-readfile.json" ]
}

@test "a full disk while the charts are drawn is one line and exit 3, not a line per chart" {
  [ -w /dev/full ] || skip "no /dev/full here"
  d="${BATS_TEST_TMPDIR}/full/h/20260101T000000Z"
  good_run "$d"
  mkdir -p "${d}/charts"
  # Every chart's PNG leads to /dev/full: each write fails with ENOSPC.
  for c in headline time ratio distribution cpu memory where claims gap; do
    ln -s /dev/full "${d}/charts/${c}-readfile.png"
  done
  run -3 "$PYTHON" -m runner --render "$d"
  assert_equal "${#lines[@]}" 1
  assert_output "run.py: cannot write into ${d}: [Errno 28] No space left on device: '${d}/charts/headline-readfile.png'"
}

@test "a kill while the plan's probes run is one line and exit 130, no run folder, no traceback, no probe left" {
  # A probe whose child (a sleep named after this test) outlives a plain kill of sh.
  local nap="${BATS_TEST_TMPDIR}/probe-nap"
  cp "$(command -v sleep)" "$nap"
  cp -R "$FAKE_CATALOG" "${BATS_TEST_TMPDIR}/cat"
  sed "s#\"exit 0\"\]#\"$nap 20\"]#" "$FAKE_CATALOG/readfile.json" > "${BATS_TEST_TMPDIR}/cat/readfile.json"
  grep -q "$nap 20" "${BATS_TEST_TMPDIR}/cat/readfile.json"
  signal_runner_when TERM "$nap" --catalog "${BATS_TEST_TMPDIR}/cat" --profile requires \
    --node none --out "${BATS_TEST_TMPDIR}/r"
  run cat "${BATS_TEST_TMPDIR}/out"
  assert_output "run.py: interrupted before the first round: nothing was measured"
  [ ! -e "${BATS_TEST_TMPDIR}/r" ]
  # The probe's own child went with it.
  sleep 0.2
  run -1 pgrep -f "$nap"
}
