#!/usr/bin/env bats
# The lockstep protocol (DESIGN section 3) in each language's contract: after
# the warm-up a ready line; "pass" runs one timed pass and prints its line,
# "end" prints the process's figures and exits 0, a closed stdin ends it with
# exit 0, any other command is one line and exit 2, and a pass that fails to
# verify is exit 1.  The protocol is the contract's, one piece a language, so
# one program a language runs it: readfile's, whose --expect makes a pass fail.

load test_helper

# One readfile variant a language (the protocol is the language's contract's).
ids() {
  printf '%s\n' readfile/c/callback-sequential@inline readfile/go/sync-sequential@os.ReadFile \
    readfile/node/callback-sequential@fs.readFile
  # Rust's only where it was built (scripts/rust-probe.sh says why not).
  if contract_ids readfile rust | grep -qx 'readfile/rust/sync-sequential@std.fs.read'; then
    echo readfile/rust/sync-sequential@std.fs.read
  fi
}

# commands TEXT -- a file of stdin commands for run_variant (TEXT's \n are line breaks).
commands() {
  VARIANT_STDIN="$BATS_TEST_TMPDIR/stdin"
  printf '%b' "$1" > "$VARIANT_STDIN"
}

# check_protocol_output ID N PASSES -- $output is a ready line, PASSES result
# lines each valid for N (runner/catalog/contract.py), then an end line counting them.
check_protocol_output() {
  local id=$1 n=$2 passes=$3 line k=0
  [ "${#lines[@]}" -eq $((passes + 2)) ] || { echo "$id: ${#lines[@]} lines: $output"; return 1; }
  "$PYTHON" - "${lines[0]}" "${lines[$((passes + 1))]}" "$passes" <<'PY' || return 1
import json, sys
ready, end, passes = json.loads(sys.argv[1]), json.loads(sys.argv[2]), int(sys.argv[3])
assert list(ready) == ["lockstep", "warmup_ns"] and ready["lockstep"] == "ready", ready
assert isinstance(ready["warmup_ns"], int) and ready["warmup_ns"] > 0, ready
assert list(end) == ["lockstep", "passes", "user_us", "sys_us", "peak_rss_kb"], end
assert end["lockstep"] == "end" and end["passes"] == passes, end
assert all(isinstance(end[k], int) and end[k] >= 0 for k in list(end)[1:]) and end["peak_rss_kb"] > 0, end
PY
  for line in "${lines[@]:1:$passes}"; do
    k=$((k + 1))
    check_result_line "$id" "$n" "$line" || { echo "$id: pass $k"; return 1; }
  done
}

@test "lockstep: each language runs a pass per 'pass', each line the contract's, and 'end' ends it with the process's figures" {
  local id failures=""
  commands 'pass\npass\npass\nend\n'
  for id in $(ids); do
    run_variant "$id" 20 --warmup 5 --lockstep 1
    if [ "$status" -ne 0 ]; then
      failures+="$id: exit $status: $stderr"$'\n'
    elif ! why=$(check_protocol_output "$id" 20 3 2>&1); then
      failures+="$why"$'\n'
    elif [ -n "$stderr" ]; then
      failures+="$id: stderr: $stderr"$'\n'
    fi
  done
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
}

@test "lockstep: a closed stdin ends the program with exit 0 after its ready line; a bad command is one line and exit 2" {
  local id failures=""
  for id in $(ids); do
    VARIANT_STDIN=/dev/null run_variant "$id" 5 --lockstep 1
    [ "$status" -eq 0 ] && [ "${#lines[@]}" -eq 1 ] && [[ "${lines[0]}" == '{"lockstep":"ready",'* ]] ||
      failures+="$id, stdin closed: exit $status: $output $stderr"$'\n'
    commands 'pass\nfrobnicate\npass\n'
    run_variant "$id" 5 --lockstep 1
    [ "$status" -eq 2 ] && [ "${#lines[@]}" -eq 2 ] && [[ "$stderr" == *"lockstep: unknown command"*frobnicate* ]] &&
      [ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ] ||
      failures+="$id, a bad command: exit $status: $output / $stderr"$'\n'
    # A command longer than any is refused too, not read in pieces.
    commands "pass$(printf 'x%.0s' $(seq 1 300))\n"
    run_variant "$id" 5 --lockstep 1
    [ "$status" -eq 2 ] && [[ "$stderr" == *"lockstep: unknown command"* ]] ||
      failures+="$id, a long command: exit $status: $stderr"$'\n'
  done
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
}

@test "lockstep: a pass that fails to verify is exit 1 naming the pass; --passes 2 with it is a usage error" {
  local id failures=""
  commands 'pass\npass\n'
  for id in $(ids); do
    run_variant "$id" 5 --lockstep 1 --expect 'Hello, worlD'
    [ "$status" -eq 1 ] && [ "${#lines[@]}" -eq 1 ] && [[ "$stderr" == *"lockstep pass 1"*"iteration 0"* ]] ||
      failures+="$id, a wrong read: exit $status: $output / $stderr"$'\n'
    run_variant "$id" 5 --lockstep 1 --passes 2
    [ "$status" -eq 2 ] && [ -z "$output" ] && [[ "$stderr" == *"--lockstep runs one pass a command"* ]] ||
      failures+="$id, --passes 2: exit $status: $stderr"$'\n'
  done
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
}

@test "lockstep: a whole-process method refuses it" {
  commands 'pass\nend\n'
  run_variant readfile/node/callback-nodetest-sequential@fs.readFile 5 --lockstep 1
  [ "$status" -eq 2 ] && [ -z "$output" ] && [[ "$stderr" == *"--lockstep must be 0 for method nodetest"* ]] ||
    fail "exit $status: $output / $stderr"
}

@test "lockstep in a run: a profile with lockstep writes lockstep.csv, and its ratios, the Method and the Pairing check come from it" {
  local cat="$BATS_TEST_TMPDIR/catalog" out="$BATS_TEST_TMPDIR/out"
  cp -r "$CATALOG_DIR" "$cat"
  "$PYTHON" - "$cat/suite.json" <<'PY'
import json, sys
p = sys.argv[1]
suite = json.load(open(p))
suite["profiles"]["quick"]["lockstep"] = {"pass_ms": 1, "max_pass_ms": 50, "pairs": 4,
                                          "sessions": 6, "max_sessions": 8}
json.dump(suite, open(p, "w"))
PY
  run --separate-stderr "$PYTHON" -m runner --catalog "$cat" --profile quick --no-charts --no-trace \
    --filter '^readfile/c/(callback|await)-sequential@inline$' --out "$out" --seed 9
  [ "$status" -eq 0 ] || fail "exit $status: $stderr"
  folder=$(echo "$out"/*/2*)
  [ -f "$folder/lockstep.csv" ] || fail "no lockstep.csv in $folder"
  "$PYTHON" - "$folder" <<'PY'
import csv, json, os, sys
folder = sys.argv[1]
rows = list(csv.DictReader(open(os.path.join(folder, "lockstep.csv"))))
sessions = {r["session"] for r in rows}
assert 6 <= len(sessions) <= 8, len(sessions)
assert len(rows) == 4 * len(sessions), len(rows)
assert {r["a"] for r in rows} == {"readfile/c/await-sequential@inline"}, rows[0]
assert {r["b"] for r in rows} == {"readfile/c/callback-sequential@inline"}, rows[0]
assert {r["a_first"] for r in rows} == {"0", "1"}
s = json.load(open(os.path.join(folder, "summary.json")))
(row,) = [r for r in s["variants"] if r["variant"] == "readfile/c/await-sequential@inline"]
assert row["pairing"] == "lockstep" and row["sessions"] == len(sessions), row
assert row["rounds_paired"] == len(sessions) and row["ratio_ci_low"] is not None, row
assert row["fresh_rounds"] == 3 and row["fresh_ratio"] is not None, row
run = json.load(open(os.path.join(folder, "run.json")))
ls = run["lockstep"]
assert ls["sessions_run"] == len(sessions) and ls["compared"] == 1 and ls["groups"] == 1, ls
(inv,) = [v for k, v in ls["invocations"].items() if k.startswith("readfile/c/await")]
assert inv["lockstep"] is True and inv["argv"][-2:] == ["--lockstep", "1"], inv
assert "readfile/c/await-sequential@inline" in run["invocations"], run["invocations"].keys()
report = open(os.path.join(folder, "REPORT.md")).read()
assert "- Lockstep (DESIGN section 6)" in report and "## Pairing check" in report
lines = [json.loads(l) for l in open(os.path.join(folder, "runs.jsonl"))]
ends = [l for l in lines if l.get("session")]
assert len(ends) == len(sessions) and all(l["status"] == "ok" for l in ends), ends[:1]
assert all(len(l["procs"]) == 2 and all(p["end"]["passes"] == 4 for p in l["procs"].values())
           for l in ends), ends[:1]
PY
}
