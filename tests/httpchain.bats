#!/usr/bin/env bats
# httpchain: the C server's protocol and life cycle (and the Go and Node
# servers' end), the runner's servers (none outlives a run, Ctrl-C or the
# runner's death), and the clients' bad inputs against a deliberately wrong
# server, in every language.

load test_helper

setup() {
  cd "$ROOT"
  EXCHANGE="${ROOT}/tests/fixtures-bin/http-exchange"
  BAD="${ROOT}/tests/fixtures-bin/bad-httpchain-server"
}

teardown() {
  [ -z "${PIPE_PID:-}" ] || { kill "$PIPE_PID" 2>/dev/null; wait "$PIPE_PID" 2>/dev/null; }
  [ -z "${SERVER_PID:-}" ] || stop_server
}

# serve_piped PROGRAM... -- starts a server whose stdin is a pipe this test
# holds open (fd 9 of the test, closed by `exec 9>&-`); sets SERVER_PID and
# SERVER_PORT, fails when no {"port": N} line comes within 10 s.
serve_piped() {
  local out="${BATS_TEST_TMPDIR}/piped.out" fifo="${BATS_TEST_TMPDIR}/piped.in" k
  rm -f "$fifo"
  : > "$out"
  mkfifo "$fifo"
  "$@" < "$fifo" > "$out" 2> "$out.err" 3>&- &
  SERVER_PID=$!
  exec 9> "$fifo"
  for ((k = 0; k < 100; k++)); do
    SERVER_PORT=$(sed -n 's/^{ *"port": *\([0-9][0-9]*\) *}$/\1/p' "$out" | head -1)
    [ -z "$SERVER_PORT" ] || return 0
    sleep 0.1
  done
  echo "no port line from $1: $(cat "$out.err")" >&2
  return 1
}

# exchange [--split N] [--keep] -- the bytes of stdin (printf escapes
# interpreted) to the running server; the answer (CRLF as LF) in $output.
exchange() {
  local req
  req=$(cat)
  run bash -c 'printf "$1" | "$2" "$3" "${@:4}"' _ "$req" "$EXCHANGE" "$SERVER_PORT" "$@"
}

c_server() {
  # shellcheck disable=SC2034  # read by start_server (test_helper.bash)
  SERVER_ARGV=("${BIN}/c-httpchain-server")
  # shellcheck disable=SC2034
  SERVER_READY_S=10
  start_server
}

@test "the C server prints one JSON line with its port and listens on 127.0.0.1 only" {
  c_server
  run cat "${BATS_TEST_TMPDIR}/server.out"
  assert_output "{\"port\":${SERVER_PORT}}"
  [ "$SERVER_PORT" -gt 0 ]
  if [ -r /proc/net/tcp ]; then
    # The listening socket (state 0A) of the port, and its address: 127.0.0.1.
    hex=$(printf '%04X' "$SERVER_PORT")
    run awk -v p=":$hex" '$4 == "0A" && substr($2, length($2) - 4) == p { print $2 }' /proc/net/tcp
    assert_output "0100007F:$hex"
    run awk -v p=":$hex" '$4 == "0A" && substr($2, length($2) - 4) == p { print $2 }' /proc/net/tcp6
    assert_output ""
  fi
}

@test "the C server answers the chain's paths, 404 otherwise, and keeps the connection alive" {
  c_server
  exchange --keep <<< 'GET /a HTTP/1.1\r\nHost: x\r\n\r\n'
  assert_output $'HTTP/1.1 200 OK\nContent-Type: text/plain\nContent-Length: 2\n\n/b[open]'
  exchange --keep <<< 'GET /c HTTP/1.1\r\n\r\n'
  assert_output --partial $'\n\n/d[open]'
  exchange --keep <<< 'GET /d HTTP/1.1\r\n\r\n'
  assert_output $'HTTP/1.1 404 Not Found\nContent-Type: text/plain\nContent-Length: 9\n\nnot found[open]'
  exchange --keep <<< 'POST /a HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc'
  assert_output --partial "404 Not Found"
}

@test "the C server answers pipelined requests in order and closes after Connection: close" {
  c_server
  exchange <<< 'GET /a HTTP/1.1\r\n\r\nGET /b HTTP/1.1\r\n\r\nGET /c HTTP/1.1\r\nConnection: close\r\n\r\nGET /a HTTP/1.1\r\n\r\n'
  ok=$'HTTP/1.1 200 OK\nContent-Type: text/plain\nContent-Length: 2\n'
  # The fourth request, after Connection: close, is not answered.
  assert_output "${ok}"$'\n/b'"${ok}"$'\n/c'"${ok}"$'Connection: close\n\n/d[closed]'
  exchange <<< 'GET /a HTTP/1.1\r\nConnection: close\r\n\r\n'
  assert_output $'HTTP/1.1 200 OK\nContent-Type: text/plain\nContent-Length: 2\nConnection: close\n\n/b[closed]'
  exchange <<< 'GET /b HTTP/1.0\r\n\r\n'
  assert_output --partial $'Connection: close\n\n/c[closed]'
}

@test "the C server answers a request that arrives a byte at a time" {
  c_server
  exchange --split 1 --keep <<< 'GET /b HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /c HTTP/1.1\r\n\r\n'
  assert_output $'HTTP/1.1 200 OK\nContent-Type: text/plain\nContent-Length: 2\n\n/cHTTP/1.1 200 OK\nContent-Type: text/plain\nContent-Length: 2\n\n/d[open]'
}

@test "the C server refuses bad requests with one answer and closes" {
  c_server
  exchange <<< 'NONSENSE\r\n\r\n'
  assert_output --regexp $'^HTTP/1.1 400 Bad Request\n.*Connection: close\n\nbad request\\[closed\\]$'
  long=$(printf '/a%0300d' 0)
  exchange <<< "GET $long HTTP/1.1\r\n\r\n"
  assert_output --regexp '^HTTP/1.1 414 URI Too Long.*\[closed\]$'
  big=$(printf 'X-Fill: %09000d\\r\\n' 0)
  exchange <<< "GET /a HTTP/1.1\r\n${big}\r\n"
  assert_output --regexp '^HTTP/1.1 431 Request Header Fields Too Large.*\[closed\]$'
}

@test "a client that disconnects mid-request leaves the C server serving the others" {
  c_server
  exchange --eof <<< 'GET /a HTTP/1.1\r\nHo'          # then the client closes its side
  assert_output "[closed]"
  exchange --eof --split 7 <<< 'GET /a HTTP/1.1\r\nContent-Length: 100\r\n\r\nabc'
  assert_output "[closed]"
  exchange --keep <<< 'GET /a HTTP/1.1\r\n\r\n'
  assert_output --partial $'\n\n/b[open]'
  kill -0 "$SERVER_PID"
}

@test "the C server exits 0 on SIGTERM and on SIGINT" {
  for sig in TERM INT; do
    c_server
    kill -s "$sig" "$SERVER_PID"
    code=0
    wait "$SERVER_PID" || code=$?
    assert_equal "$sig: $code" "$sig: 0"
    SERVER_PID=""
  done
}

@test "every httpchain server exits 0 when its stdin pipe ends (the runner is gone)" {
  local servers=("${BIN}/c-httpchain-server" "${BIN}/go-httpchain-server")
  if command -v "${NODE:-node}" >/dev/null; then servers+=("${NODE:-node} node/servers/httpchain.mjs"); fi
  for s in "${servers[@]}"; do
    read -r -a argv <<<"$s"
    serve_piped "${argv[@]}"
    exec 9>&-
    for ((k = 0; k < 50; k++)); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
    code=0
    wait "$SERVER_PID" || code=$?
    assert_equal "$s: $code" "$s: 0"
    SERVER_PID=""
  done
}

@test "httpchain servers: a port in use is exit 3 with one line, a bad flag exit 2" {
  c_server
  local servers=("${BIN}/c-httpchain-server" "${BIN}/go-httpchain-server")
  if command -v "${NODE:-node}" >/dev/null; then servers+=("${NODE:-node} node/servers/httpchain.mjs"); fi
  for s in "${servers[@]}"; do
    read -r -a argv <<<"$s"
    run --separate-stderr "${argv[@]}" --port "$SERVER_PORT" < /dev/null
    assert_equal "$s: $status" "$s: 3"
    assert_output ""
    [ "${#stderr_lines[@]}" -eq 1 ]
    [[ "$stderr" == *"127.0.0.1:${SERVER_PORT}"* ]]
    run --separate-stderr "${argv[@]}" --port nine < /dev/null
    assert_equal "$s: $status" "$s: 2"
  done
}

# tagged PATTERN -- the pids of the processes whose command line matches
# PATTERN and, where /proc shows environments (Linux), that carry this test's
# tag (ASYNCSTYLES_TEST_TAG, exported by run_tagged): the files of make test
# run in parallel, and another file's servers and clients are not this test's.
tagged() {
  local pid
  for pid in $(pgrep -f "$1" 2>/dev/null); do
    if [ -r "/proc/$pid/environ" ]; then
      tr '\0' '\n' < "/proc/$pid/environ" 2>/dev/null \
        | grep -qxF "ASYNCSTYLES_TEST_TAG=${BATS_TEST_TMPDIR}" || continue
    fi
    echo "$pid"
  done
}

# runner_servers -- how many httpchain servers of this build this test's runner
# has up (elsewhere than Linux: of any runner, so the tests below then skip
# while another test has one up).
runner_servers() {
  local n=0 pid
  for pid in $(tagged "${BIN}/c-httpchain-server"); do
    [ "$pid" = "${SERVER_PID:-}" ] || n=$((n + 1))
  done
  echo "$n"
}

# run_tagged CMD... -- CMD with this test's tag in its environment, inherited
# by the servers and clients it starts.
run_tagged() {
  ASYNCSTYLES_TEST_TAG="${BATS_TEST_TMPDIR}" "$@"
}

# start_runner N -- the runner on one httpchain C variant of N chains, in the
# background (RUNNER_PID), until its server is up.
start_runner() {
  # The tag as an assignment, not run_tagged: $! must be the runner itself.
  ASYNCSTYLES_TEST_TAG="${BATS_TEST_TMPDIR}" "$PYTHON" -m runner --profile quick \
    --filter '^httpchain/c/callback-sequential@cserver' \
    --rounds 3 --warmup-rounds 0 --iterations "$1" --node none --no-charts \
    --out "${BATS_TEST_TMPDIR}/out" --host t > "${BATS_TEST_TMPDIR}/runner.log" 2>&1 3>&- &
  RUNNER_PID=$!
  for ((k = 0; k < 100; k++)); do
    [ "$(runner_servers)" -eq 0 ] || return 0
    sleep 0.1
  done
  echo "no server came up: $(cat "${BATS_TEST_TMPDIR}/runner.log")"
  return 1
}

# no_server_within S -- succeeds once no server of this test's runner runs, within S seconds.
no_server_within() {
  for ((k = 0; k < $1 * 10; k++)); do
    [ "$(runner_servers)" -ne 0 ] || return 0
    sleep 0.1
  done
  echo "a server is still running: $(tagged "${BIN}/c-httpchain-server" | tr '\n' ' ')"
  return 1
}

@test "the runner starts the server per round and leaves none running after the run" {
  [ "$(runner_servers)" -eq 0 ] || skip "another run of this checkout has a server up"
  run run_tagged "$PYTHON" -m runner --profile quick --filter '^httpchain/c/(callback|fiber)-sequential@cserver' \
    --rounds 2 --warmup-rounds 0 --iterations 20 --node none --no-charts --out "${BATS_TEST_TMPDIR}/out" --host t
  assert_success
  run "$PYTHON" -c 'import csv, sys; print(sorted({r["status"] for r in csv.DictReader(open(sys.argv[1]))}))' \
    "${BATS_TEST_TMPDIR}/out/latest/samples.csv"
  assert_output "['ok']"
  [ "$(runner_servers)" -eq 0 ]
}

@test "Ctrl-C of the runner leaves no server running" {
  [ "$(runner_servers)" -eq 0 ] || skip "another run of this checkout has a server up"
  start_runner 2000000
  kill -INT "$RUNNER_PID"
  code=0
  wait "$RUNNER_PID" || code=$?
  assert_equal "$code" 130
  no_server_within 5
}

@test "a runner killed with SIGKILL leaves no server running" {
  [ "$(runner_servers)" -eq 0 ] || skip "another run of this checkout has a server up"
  start_runner 2000000
  kill -KILL "$RUNNER_PID"
  wait "$RUNNER_PID" 2>/dev/null || true
  no_server_within 5
  # The client it was measuring goes too (the launcher's parent-death kill).
  for ((k = 0; k < 50; k++)); do [ -n "$(tagged "${BIN}/c-httpchain --variant")" ] || break; sleep 0.1; done
  run tagged "${BIN}/c-httpchain --variant"
  assert_output ""
}

@test "a server that dies or never gets ready fails the round's httpchain variants with the reason" {
  local cat="${BATS_TEST_TMPDIR}/catalog"
  mkdir -p "$cat"
  cp catalog/suite.json "$cat/"
  "$PYTHON" - "$cat/httpchain.json" <<'PY'
import json, sys
w = json.load(open("catalog/httpchain.json"))
w["requires"]["server"] = dict(w["requires"]["server"], argv=["tests/fixtures-bin/fake-server", "--die"])
w["variants"] = [e for e in w["variants"] if e["lang"] == "c" and "requires" not in e]
w.pop("claims")
json.dump(w, open(sys.argv[1], "w"))
PY
  run "$PYTHON" -m runner --catalog "$cat" --profile quick --filter 'c/callback-sequential' \
    --rounds 1 --warmup-rounds 0 --iterations 5 --node none --no-charts --out "${BATS_TEST_TMPDIR}/out" --host t
  assert_output --partial "httpchain/c/callback-sequential@cserver.keepalive failed: server fake-server exited 1 before it was ready: fake-server: cannot bind"
}

# client_ids -- every style's error path once per language: the C clients
# and the Go ones (both modes), Node's sequential styles on a keep-alive
# agent, the Rust ones, all labelled with the C server (the backend is only a
# label to a client).
client_ids() {
  contract_ids httpchain | grep -E '^httpchain/(c/.*@cserver|go/.*@cserver|node/.*-sequential@cserver.keepalive|rust/.*@cserver)'
}

# Seed 001's own program (method datenow) is CommonJS, so that it runs on the
# seed's Node 8: its child, node/httpchain/lib/seed001.cjs, takes its options
# from the environment as node/lib/wrapper.mjs hands them over.
seed001() {
  ASYNCSTYLES_OPTIONS="{\"iterations\":$2,\"warmup\":1,\"port\":\"$3\",\"stallMs\":\"${4:-10000}\",\"backend\":\"nodeserver.close\"}" \
    ASYNCSTYLES_RESULT="$BATS_TEST_TMPDIR/result.json" "$1" node/httpchain/lib/seed001.cjs "$5"
}

@test "seed 001's CommonJS program runs both its styles on the oldest pinned Node" {
  local oldest node style
  oldest=$("$PYTHON" -c 'import json, sys
v = json.load(open(sys.argv[1]))["runtimes"]["node"]["versions"]
print(min(v, key=lambda s: tuple(int(x) for x in s.split("."))))' "$CATALOG_DIR/suite.json")
  node="${BUILD_DIR}/runtimes/node/${oldest}/bin/node"
  [ -x "$node" ] || skip "node $oldest, the oldest pinned, is not installed under build/runtimes: make runtimes installs it"
  serve_piped node node/servers/httpchain.mjs
  for style in callback await; do
    run seed001 "$node" 12 "$SERVER_PORT" 10000 "$style"
    assert_success
    run "$PYTHON" -c 'import json, sys; r = json.load(open(sys.argv[1])); print(r["ok"], r["bytes"], r["elapsed_ns"] > 0)' \
      "$BATS_TEST_TMPDIR/result.json"
    assert_output "12 72 True"
  done
  run "$node" --version
  assert_output "v$oldest"
}

@test "seed 001's own program fails with one line on a wrong body (exit 1) and on no answer within --stall-ms (exit 3)" {
  local id
  serve_piped "$BAD" --wrong
  for id in httpchain/node/callback-datenow-sequential@nodeserver.close httpchain/node/await-datenow-sequential@nodeserver.close; do
    variant_argv "$id"
    run --separate-stderr "${VARIANT_ARGV[@]}" --iterations 3 --port "$SERVER_PORT" < /dev/null
    assert_failure 1
    assert_equal "$output" ""
    assert_equal "${#stderr_lines[@]}" 1
    [[ "$stderr" == "node/httpchain/lib/datenow.mjs: node/httpchain/"*"-sequential.mjs: iteration 0: chain failed: GET /a: body \"/x\", expected \"/b\"" ]]
  done
  stop_server
  serve_piped "$BAD" --silent
  run --separate-stderr "${VARIANT_ARGV[@]}" --iterations 3 --port "$SERVER_PORT" --stall-ms 300 < /dev/null
  assert_failure 3
  assert_equal "${#stderr_lines[@]}" 1
  [[ "$stderr" == *"GET /a: no complete response within 300 ms"* ]]
}

# against ROLE CODE PATTERN [FLAGS...] -- every client of client_ids, run at N=3
# against bad-httpchain-server ROLE (or none: "refused", a port nothing
# listens on), exits CODE with nothing on stdout and one line matching PATTERN.
against() {
  local role=$1 code=$2 pattern=$3 failures="" id
  shift 3
  if [ "$role" = refused ]; then
    serve_piped "${BIN}/c-httpchain-server"
    port=$SERVER_PORT
    stop_server
    SERVER_PID=""
  else
    serve_piped "$BAD" "$role"
    port=$SERVER_PORT
  fi
  guard_for 30
  for id in $(client_ids); do
    variant_argv "$id"
    run --separate-stderr ${GUARD[@]+"${GUARD[@]}"} "${VARIANT_ARGV[@]}" --iterations 3 --port "$port" "$@" < /dev/null
    if [ "$status" -ne "$code" ]; then
      failures+="$id: exit $status, wanted $code: $stderr"$'\n'
    elif [ -n "$output" ] || [ "${#stderr_lines[@]}" -ne 1 ]; then
      failures+="$id: stdout '$output', ${#stderr_lines[@]} lines on stderr: $stderr"$'\n'
    elif ! grep -Eqi -- "$pattern" <<<"$stderr"; then
      failures+="$id: stderr does not match /$pattern/: $stderr"$'\n'
    fi
  done
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
}

@test "httpchain clients: a port nothing listens on is exit 3" {
  against refused 3 "cannot connect|refused"
}

@test "httpchain clients: a server that never answers is exit 3 after --stall-ms" {
  against --silent 3 "no response within|does not answer" --stall-ms 300
}

# --stall-ms is a deadline on each whole response (DESIGN section 3), the same
# in every language: Go's client once waited for the server to close (its
# timeout ended with the headers), Node's was reset by every byte.
@test "httpchain clients: a body shorter than its Content-Length, the connection kept open, is exit 3 after --stall-ms" {
  against --short 3 "no (complete )?response within|does not answer" --stall-ms 500
}

@test "httpchain clients: a server that drips its answer a byte every 100 ms is exit 3 after --stall-ms" {
  against --drip 3 "no (complete )?response within|does not answer" --stall-ms 500
}

# The passing side of the same deadline: each response takes about 0.4 s
# (a byte every 10 ms), a chain of three 1.2 s and a run of two chains longer
# still, all above --stall-ms 1000, so a deadline on anything but each GET
# (the chain, the connection, the run) fails it.
@test "httpchain clients: a server that drips each answer a byte every 10 ms, every response within --stall-ms, passes" {
  local failures="" id
  serve_piped "$BAD" --drip-fast
  guard_for 30
  for id in $(client_ids); do
    variant_argv "$id"
    run --separate-stderr ${GUARD[@]+"${GUARD[@]}"} "${VARIANT_ARGV[@]}" --iterations 2 \
      --port "$SERVER_PORT" --stall-ms 1000 < /dev/null
    if [ "$status" -ne 0 ] || [ -n "$stderr" ]; then
      failures+="$id: exit $status, wanted 0: $stderr"$'\n'
    elif ! "$PYTHON" -m runner.catalog.contract "$id" 2 "$output" --stall-ms 1000 2>&1; then
      failures+="$id: the line breaks the contract: $output"$'\n'
    fi
  done
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
}

# A connect has the deadline too: a server whose backlog is full never
# answers it (the kernel drops the SYN and retries for about two minutes).
# C's clients once waited that long: their connects had no deadline.
@test "httpchain clients: a server that never accepts (its backlog full) is exit 3 after --stall-ms" {
  against --no-accept 3 "cannot connect|no (complete )?response within" --stall-ms 500
}

# A completion counts only if its exchange was well-formed: Go's net/http once
# logged "Unsolicited response" 90 times, reconnected, and reported ok.
@test "httpchain clients: bytes after each response's body are exit 1 with one line" {
  against --junk 1 "broke the protocol|Parse Error|malformed|not HTTP"
}

@test "httpchain clients: bytes after each response, 50 ms later, are exit 1 with one line" {
  against --junk-idle 1 "broke the protocol|Parse Error|malformed|not HTTP"
}

@test "httpchain clients: a server that closes mid-response is exit 1" {
  against --cut 1 "closed the connection|mid-response|aborted|socket hang up|ECONNRESET"
}

@test "httpchain clients: a wrong body is exit 1 naming it" {
  against --wrong 1 '/x.*expected.*/b'
}

@test "httpchain clients: a 404 is exit 1" {
  against --notfound 1 "status 404"
}

@test "httpchain clients: no --port, or a bad one, is a usage error" {
  local id failures=""
  for id in $(client_ids); do
    variant_argv "$id"
    for bad in "" "--port 0" "--port 70000" "--port x1"; do
      read -r -a extra <<<"$bad"
      run --separate-stderr "${VARIANT_ARGV[@]}" --iterations 3 ${extra[@]+"${extra[@]}"} < /dev/null
      [ "$status" -eq 2 ] && [[ "$stderr" == *"--port"* ]] && [ -z "$output" ] \
        || failures+="$id [$bad]: exit $status: $stderr"$'\n'
    done
  done
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
}
