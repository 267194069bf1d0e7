# test_helper.bash -- loaded by every .bats file: finds the project root, loads
# bats-support and bats-assert, and offers helpers over the catalog
# (catalog/) that take the workload as a parameter.  Nothing here names
# a workload, a fixture or a variant: a new workload is tested by its catalog
# file and the table rows it adds to the .bats files, with no edit here.
# Bash 3.2 (macOS) compatible: no mapfile, no associative arrays.

bats_require_minimum_version 1.5.0

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# The build folder: BUILD as `make BUILD=...` exports it (relative to ROOT unless absolute).
case "${BUILD:-build}" in
  /*) BUILD_DIR=$BUILD ;;
  *) BUILD_DIR="${ROOT}/${BUILD:-build}" ;;
esac
BIN="${BUILD_DIR}/bin"
# The runner is a package, run as `"$PYTHON" -m runner` (and its modules as
# `-m runner.<layer>.<module>`) from any folder, and imported as `from runner.<layer> import ...`
# by the Python programs the tests write.
export PYTHONPATH="${ROOT}${PYTHONPATH:+:${PYTHONPATH}}"

# PYTHON and BATS_LIB_PATH come from `make deps` (build/deps.env) unless set.
if [ -f "${BUILD_DIR}/deps.env" ]; then
  : "${PYTHON:=$(sed -n 's/^PYTHON=//p' "${BUILD_DIR}/deps.env")}"
  : "${BATS_LIB_PATH:=$(sed -n 's/^BATS_LIB_PATH=//p' "${BUILD_DIR}/deps.env")}"
fi
: "${PYTHON:=python3}"
export PYTHON
for _d in ${BATS_LIB_PATH:-} /usr/lib/bats /usr/local/lib /opt/homebrew/lib; do
  if [ -f "${_d}/bats-support/load.bash" ]; then
    load "${_d}/bats-support/load.bash"
    load "${_d}/bats-assert/load.bash"
    break
  fi
done

# The catalog folder every helper reads: catalog/ unless CATALOG_DIR
# names another (a test of the helpers themselves uses the fake one in
# tests/fixtures-bin/catalog).
: "${CATALOG_DIR:=${ROOT}/catalog}"

# catalog ARGS... -- the catalog CLI (runner/catalog/catalog.py).
catalog() { "$PYTHON" -m runner.catalog.catalog_cli --catalog "$CATALOG_DIR" "$@"; }

# workloads -- the catalog's workloads, one a line.
workloads() { catalog workloads; }

# workload_flags W -- fills the array WORKLOAD_FLAGS with W's flags and their
# catalog values, flag then value (`catalog flags W`; empty for a workload
# without flags).
workload_flags() {
  WORKLOAD_FLAGS=()
  local line
  while IFS= read -r line; do WORKLOAD_FLAGS+=("$line"); done < <(catalog flags "$1")
}

# workload_flag W FLAG -- prints the catalog's value of one flag of W; fails
# when W has no such flag.
workload_flag() {
  local k
  workload_flags "$1"
  for ((k = 0; k + 1 < ${#WORKLOAD_FLAGS[@]}; k += 2)); do
    if [ "${WORKLOAD_FLAGS[k]}" = "$2" ]; then
      printf '%s\n' "${WORKLOAD_FLAGS[k + 1]}"
      return 0
    fi
  done
  echo "workload $1 has no flag $2 in the catalog" >&2
  return 1
}

# catalog_rows FIELD... -- one line per catalog variant, in catalog order, with
# the named fields (runner/catalog/catalog.py: id, label, name, workload, lang, style, shape,
# mode, method, backend, concurrency, argv, profiles, ...) separated by |
# (lists joined by spaces).  One Python call where `catalog field` would take
# one per variant and field.
catalog_rows() {
  "$PYTHON" - "$CATALOG_DIR" "$@" <<'PY'
import sys
from runner.catalog import catalog
for v in catalog.load(sys.argv[1]).variants:
    print("|".join(" ".join(map(str, v[k])) if isinstance(v[k], list) else str(v[k])
                   for k in sys.argv[2:]))
PY
}

# TEST_LANGS -- the languages whose programs the tests run, blank-separated
# (all when unset; a variant needing a server of another language is left out
# too): scripts/test-aarch64.sh sets c, its cross build has only
# C programs.  lang_selected L succeeds when L is one of them.
# TEST_ONE_PER_PROGRAM=1 -- contract_ids keeps the first variant of each
# program (what a flag parser shared by its variants needs): a C or Go
# binary, or for Node a workload's folder of variant scripts (or the node --test wrapper),
# whose flags and setup node/lib/contract.mjs's main() does for each.
# TEST_VARIANT_COVER=1 -- contract_ids keeps the variants that
# runner/catalog/cover.py keeps: every program, every variant name, every
# backend under each mode and with each style; TEST_VARIANT_COVER=K,K... the
# ones it keeps with --keys K,K... (the emulated run of the contract table
# uses program,style,backend,style+mode).
lang_selected() {
  case " ${TEST_LANGS:-$1} " in *" $1 "*) return 0 ;; esac
  return 1
}

# contract_ids [W [L]] -- the catalog variants (of workload W, of language L)
# a test should run: not the test-only ones (profile selftest), which must
# break the contract, and not those whose requirements this machine does not
# meet (an os, node, a probe), by the runner's own rule (runner/measure/plan.py);
# only those of TEST_LANGS, one a program with TEST_ONE_PER_PROGRAM, those
# that cover the code with TEST_VARIANT_COVER.
contract_ids() {
  case ${TEST_VARIANT_COVER:-0} in
    0) ;;
    1)
      TEST_VARIANT_COVER=0 contract_ids "$@" \
        | "$PYTHON" -m runner.catalog.cover --catalog "$CATALOG_DIR"
      return ;;
    *)
      TEST_VARIANT_COVER=0 contract_ids "$@" \
        | "$PYTHON" -m runner.catalog.cover --catalog "$CATALOG_DIR" --keys "$TEST_VARIANT_COVER"
      return ;;
  esac
  "$PYTHON" - "$CATALOG_DIR" "${1:-}" "${2:-}" "$(command -v "${NODE:-node}")" \
    "${TEST_LANGS:-}" "${TEST_ONE_PER_PROGRAM:-}" <<'PY'
import sys
from runner.catalog import catalog
from runner.measure import plan
workload, lang, node = (a or None for a in sys.argv[2:5])
langs, one_per_program = sys.argv[5].split(), sys.argv[6] == "1"
probes, programs = {}, set()
for v in catalog.load(sys.argv[1]).select(workload=workload, lang=lang):
    if langs and v["lang"] not in langs:
        continue
    # A server of another language (its catalog lang: httpchain's Go and Node
    # servers) counts too.
    server = (v.get("requires") or {}).get("server")
    if langs and server and server["lang"] not in langs:
        continue
    if "selftest" not in v["profiles"] and plan.unmet(v, node, probes) is None:
        if one_per_program:
            # A Node program's flags and setup are node/lib/contract.mjs's for
            # every variant script of a folder (node.bats checks that each hands
            # its variant to main()): one program per workload and folder.
            argv = v["argv"]
            program = ("%s {node} %s" % (v["workload"], argv[1].rsplit("/", 1)[0])
                       if argv[0] == "{node}" else argv[0])
            if program in programs:
                continue
            programs.add(program)
        print(v["id"])
PY
}

# program_ids [W [L]] -- contract_ids, one variant a program: for a check of
# what the program's variants share (its flag parser, its workload's setup).
program_ids() { TEST_ONE_PER_PROGRAM=1 contract_ids "$@"; }

# cover_ids [W [L]] -- contract_ids, only the variants that cover the code
# (TEST_VARIANT_COVER=1, or the keys TEST_VARIANT_COVER already names): for a
# check of a whole run whose outcome depends on the code run and not on the
# variant's name.
cover_ids() {
  local keys=${TEST_VARIANT_COVER:-0}
  [ "$keys" != 0 ] || keys=1
  TEST_VARIANT_COVER=$keys contract_ids "$@"
}

# id_parts ID -- sets ID_WORKLOAD, ID_LANG and ID_BACKEND from a variant id,
# without a process (workload/lang/name@backend: the one id rule, which
# contract.bats checks).  For other fields read catalog_rows once, not
# `catalog field` a variant (a Python start each).
# shellcheck disable=SC2034  # ID_WORKLOAD and ID_BACKEND are for the callers
id_parts() {
  ID_WORKLOAD=${1%%/*}
  ID_LANG=${1#*/}
  ID_LANG=${ID_LANG%%/*}
  ID_BACKEND=${1##*@}
}

# variant_argv ID -- fills the array VARIANT_ARGV with the variant's command,
# and SERVER_ARGV, SERVER_PORT_FLAG and SERVER_READY_S with the server its
# workload needs started first (SERVER_ARGV empty when none; runner/catalog/catalog.py's
# requires.server).
# A variant with an env of its own in the catalog (Node's io_uring rows:
# UV_USE_IO_URING=1) gets it exported here, and the previous variant's unset,
# so that running VARIANT_ARGV runs it as the runner does.
variant_argv() {
  VARIANT_ARGV=()
  SERVER_ARGV=()
  SERVER_PORT_FLAG=""
  SERVER_READY_S=10
  local line part=argv name
  for name in ${VARIANT_ENV_NAMES[@]+"${VARIANT_ENV_NAMES[@]}"}; do unset "$name"; done
  VARIANT_ENV_NAMES=()
  variant_file "$1" || { echo "no variant $1 in the catalog" >&2; return 0; }
  while IFS= read -r line; do
    case $part/$line in
      argv/--env--) part='env' ;;
      argv/--server-- | env/--server--) part=flag ;;
      argv/*) VARIANT_ARGV+=("$line") ;;
      env/*) VARIANT_ENV_NAMES+=("${line%%=*}"); export "${line?}" ;;
      flag/*) SERVER_PORT_FLAG=$line part=ready ;;
      ready/*) SERVER_READY_S=$line part=server ;;
      server/*) SERVER_ARGV+=("$line") ;;
    esac
  done < "$VARIANT_FILE"
  [ "${#VARIANT_ARGV[@]}" -gt 0 ] || echo "no variant $1 in the catalog" >&2
}

# variant_record ID -- variant_argv's lines for ID: its command, its env after
# --env--, its server after --server--.
variant_record() { variant_file "$1" && cat "$VARIANT_FILE"; }

# variant_file ID -- sets VARIANT_FILE to the file of variant_record's lines
# for ID; fails when the catalog has no such variant.  Every variant's file is
# written once per test file and catalog (one Python run, not one per call:
# the tests ask for hundreds of variants) into a folder in BATS_FILE_TMPDIR,
# and found without starting a process.
variant_file() {
  local src="$CATALOG_DIR|$BIN|${NODE:-node}" dir
  if [ "$src" != "${VARIANT_CACHE_OF:-}" ]; then
    VARIANT_CACHE_OF=$src
    VARIANT_CACHE="${BATS_FILE_TMPDIR:-${BATS_TMPDIR:-/tmp}}/variants.$(printf '%s' "$src" | cksum | tr ' ' '-')"
  fi
  dir=$VARIANT_CACHE
  if [ ! -d "$dir" ]; then
    rm -rf "$dir.$$"
    mkdir -p "$dir.$$"
    "$PYTHON" - "$CATALOG_DIR" "$BIN" "${NODE:-node}" "$dir.$$" <<'PY' || return 1
import os, sys
from runner.catalog import catalog
bin_dir, node, out = sys.argv[2:5]
for v in catalog.load(sys.argv[1]).variants:
    lines = catalog.argv(v, bin_dir, node)
    if v.get("env"):
        lines += ["--env--"] + ["%s=%s" % kv for kv in sorted(v["env"].items())]
    server = (v.get("requires") or {}).get("server")
    if server:
        lines += ["--server--", server.get("port_flag", "--port"),
                  "%d" % -(-float(server.get("ready_timeout_s", 10)) // 1)]
        lines += catalog.expand(server["argv"], bin_dir, node)
    with open(os.path.join(out, v["id"].replace("/", "%")), "w") as f:
        f.write("\n".join(lines) + "\n")
PY
    mv "$dir.$$" "$dir" 2>/dev/null || rm -rf "$dir.$$"
  fi
  VARIANT_FILE="$dir/${1//\//%}"
  [ -f "$VARIANT_FILE" ]
}

# start_server -- starts SERVER_ARGV from the project root and waits
# (SERVER_READY_S at most) for its line {"port": N}; sets SERVER_PID and
# SERVER_PORT, or says why not on stderr and fails.
start_server() {
  local out="${BATS_TEST_TMPDIR}/server.out" k
  cd "$ROOT" || return 1
  # The previous server's port line must not be read as this one's: the
  # redirection below truncates the file only once the child has started.
  : > "$out"
  # fd 3 closed: bats waits for whoever holds it.
  "${SERVER_ARGV[@]}" > "$out" 2> "$out.err" < /dev/null 3>&- &
  SERVER_PID=$!
  # Polled every 20 ms: the tests start a server per variant run.
  for ((k = 0; k < SERVER_READY_S * 50; k++)); do
    SERVER_PORT=$(sed -n 's/^{ *"port": *\([0-9][0-9]*\) *}$/\1/p' "$out" | head -1)
    [ -z "$SERVER_PORT" ] || return 0
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.02
  done
  stop_server
  echo "server ${SERVER_ARGV[0]} never said {\"port\": N}: $(head -1 "$out.err")" >&2
  return 1
}

# stop_server -- ends the server start_server started.
stop_server() {
  kill "$SERVER_PID" 2>/dev/null
  wait "$SERVER_PID" 2>/dev/null
  return 0
}

# guard_for SECONDS -- sets the array GUARD to the command that stops a
# program after SECONDS: coreutils' timeout, or gtimeout (Homebrew's coreutils
# on macOS, which has neither); empty without them, so that the test still
# runs.  Use it as ${GUARD[@]+"${GUARD[@]}"} (bash 3.2 with an empty array).
guard_for() {
  GUARD=()
  if command -v timeout >/dev/null; then GUARD=(timeout "$1")
  elif command -v gtimeout >/dev/null; then GUARD=(gtimeout "$1"); fi
}

# run_variant ID N [flags...] -- runs one variant from the project root with
# stdout in $output and stderr in $stderr, its workload's server (if any)
# started before and stopped after, its port flag appended as the runner
# does (a server that never gets ready: status 125, the reason in $stderr).
# With SERVER_KEEP=1 the server is left running for the next variant that
# needs the same one, as the runner shares a round's server among a
# workload's variants (the loops below; stop_kept_server ends it).
# The workload's own flags are left to the program's defaults unless given.
# Guarded (guard_for, where there is a timeout) so that a program that hangs
# fails its test instead of the suite.
run_variant() {
  local id=$1 n=$2 port=()
  shift 2
  variant_argv "$id"
  cd "$ROOT" || return 1
  guard_for "${VARIANT_TIMEOUT:-60}"
  if [ "${#SERVER_ARGV[@]}" -gt 0 ]; then
    if ! server_for_variant 2> "${BATS_TEST_TMPDIR}/server.why"; then
      status=125 output="" lines=() stderr=$(cat "${BATS_TEST_TMPDIR}/server.why")
      return 0
    fi
    port=("$SERVER_PORT_FLAG" "$SERVER_PORT")
  fi
  run --separate-stderr ${GUARD[@]+"${GUARD[@]}"} "${VARIANT_ARGV[@]}" --iterations "$n" "$@" \
    ${port[@]+"${port[@]}"} < "${VARIANT_STDIN:-/dev/null}"
  [ "${#SERVER_ARGV[@]}" -eq 0 ] || [ -n "${SERVER_KEEP:-}" ] || stop_server
}

# server_for_variant -- after variant_argv: the kept server when it is the one
# SERVER_ARGV names (same command and variant environment) and still runs,
# else a new one (start_server), kept with SERVER_KEEP=1.
server_for_variant() {
  local key="${SERVER_ARGV[*]}|${VARIANT_ENV_NAMES[*]-}"
  if [ -n "${SERVER_KEPT:-}" ]; then
    if [ "$SERVER_KEPT" = "$key" ] && kill -0 "$SERVER_PID" 2>/dev/null; then return 0; fi
    stop_kept_server
  fi
  start_server || return 1
  [ -z "${SERVER_KEEP:-}" ] || SERVER_KEPT=$key
}

# stop_kept_server -- ends the server SERVER_KEEP kept, if any.
stop_kept_server() {
  [ -z "${SERVER_KEPT:-}" ] || stop_server
  SERVER_KEPT=""
}

# check_result_line ID N LINE [--flag VALUE...] -- succeeds when LINE is the
# contract's JSON line of a valid run of N (runner/catalog/contract.py: the fields,
# ok == N and the workload's checks, with the catalog's flag values unless
# given); otherwise prints the problem.
check_result_line() {
  "$PYTHON" -m runner.catalog.contract --catalog "$CATALOG_DIR" "$@"
}

# line_head WORKLOAD LANG STYLE SHAPE MODE METHOD BACKEND ID -- how a variant's
# JSON line begins: its fields in the order of DESIGN section 3.
line_head() {
  printf '{"workload":"%s","lang":"%s","style":"%s","shape":"%s","mode":"%s","method":"%s","backend":"%s","variant":"%s",' "$@"
}

# expect_variants CODE PATTERN "ID..." FLAGS... -- every listed variant, run at
# N=5 with FLAGS, exits CODE, prints nothing on stdout and says PATTERN (an
# extended regexp, case-insensitive) on stderr; lists every failure at the end.
expect_variants() {
  local code=$1 pattern=$2 ids=$3 failures="" id
  shift 3
  [ -n "$ids" ] || { echo "no variant to run"; return 1; }
  local keep_here=""
  if [ -z "${SERVER_KEEP:-}" ]; then SERVER_KEEP=1 keep_here=1; fi
  for id in $ids; do
    run_variant "$id" 5 "$@"
    if [ "$status" -ne "$code" ]; then
      failures+="$id: exit $status, wanted $code: $stderr"$'\n'
    elif [ -n "$output" ]; then
      failures+="$id: printed on stdout: $output"$'\n'
    elif ! grep -Eqi -- "$pattern" <<<"$stderr"; then
      failures+="$id: stderr does not match /$pattern/: $stderr"$'\n'
    fi
  done
  # A server its caller keeps stays for the caller.
  if [ -n "$keep_here" ]; then stop_kept_server; SERVER_KEEP=""; fi
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
}

# expect_contract_lines N "ID..." [FLAG...] -- every listed variant, run at N
# with its workload's defaults and FLAGS (a bounded one also with
# --concurrency $CONTRACT_K, default 3: fewer than N in flight, so that its
# limiter waits), exits 0 with nothing on stderr and exactly one line on stdout
# that begins with the catalog's fields of the variant (in the order of DESIGN
# section 3) and passes runner/catalog/contract.py (a bounded one reporting that K);
# lists every failure at the end.  The lines are checked in one Python run.
expect_contract_lines() {
  # shellcheck disable=SC2086,SC2116,SC2155  # echo joins the ids by single blanks
  local n=$1 ids=" $(echo $2) " failures="" seen=0 row k
  local id workload lang style shape mode method backend
  local lines_file="${BATS_TEST_TMPDIR:-${TMPDIR:-/tmp}}/contract-lines.$$"
  local -a rows=() bound=()
  shift 2
  while IFS= read -r row; do rows+=("$row"); done \
    < <(catalog_rows id workload lang style shape mode method backend)
  : > "$lines_file"
  local keep_here=""
  if [ -z "${SERVER_KEEP:-}" ]; then SERVER_KEEP=1 keep_here=1; fi
  for row in "${rows[@]}"; do
    IFS='|' read -r id workload lang style shape mode method backend <<<"$row"
    case $ids in *" $id "*) ;; *) continue ;; esac
    seen=$((seen + 1))
    k="" bound=()
    if [ "$mode" = bounded ]; then k=${CONTRACT_K:-3} bound=(--concurrency "$k"); fi
    run_variant "$id" "$n" "$@" ${bound[@]+"${bound[@]}"}
    if [ "$status" -ne 0 ] || [ "${#lines[@]}" -ne 1 ] || [ -n "$stderr" ]; then
      failures+="$id: exit $status, ${#lines[@]} lines on stdout, stderr: $stderr"$'\n'
      continue
    fi
    # One record a line: id, N, K (empty: any), the line's expected head, the line.
    printf '%s\t%s\t%s\t%s\t%s\n' "$id" "$n" "$k" \
      "$(line_head "$workload" "$lang" "$style" "$shape" "$mode" "$method" "$backend" "$id")" \
      "$output" >> "$lines_file"
  done
  if [ -n "$keep_here" ]; then stop_kept_server; SERVER_KEEP=""; fi
  [ "$seen" -gt 0 ] || failures+="no variant to run"$'\n'
  failures+=$(check_result_lines "$lines_file")
  rm -f "$lines_file"
  [ -z "$failures" ] || { printf '%s\n' "$failures"; false; }
}

# check_result_lines FILE -- the records of FILE (ID, N, K, HEAD, LINE, tab
# separated; K empty for any) checked in one Python run: each LINE must begin
# with HEAD and pass runner/catalog/contract.py for ID at N (and K); prints one line
# per failure.
check_result_lines() {
  "$PYTHON" - "$CATALOG_DIR" "$1" <<'PY'
import sys
from runner.catalog import catalog
from runner.catalog import contract
cat = catalog.load(sys.argv[1])
for record in open(sys.argv[2], encoding="utf-8", errors="replace"):
    vid, n, k, head, line = record.rstrip("\n").split("\t", 4)
    if not line.startswith(head):
        print("%s: the line does not begin with the catalog's fields %s: %s" % (vid, head, line))
        continue
    why = contract.problem(cat.find(vid), int(n), line, None, int(k) if k else None)
    if why:
        print("%s: contract broken: %s" % (vid, why))
PY
}

# expect_bad_inputs [unreadable] -- every bad input of the catalog
# (runner/catalog/catalog.py's bad_inputs: suite.json's for every workload, then each
# workload's own; `catalog bad-inputs`), each row run at N=5 with its flags
# and expecting its exit code, nothing on stdout and on stderr its language's
# exact words, or `says` for a language without words (expect_variants).
# Which variants: for exit 2 (a usage error) and 3 (the environment: a
# missing or unreadable input) one a program (program_ids), since every
# program of the suite finds those in code its variants share, before any
# variant's own code runs (C: c/lib/harness.c's parser and the workload's
# setup; Go: go/internal/contract and the workload's setup; Node:
# node/lib/contract.mjs and the workload's setup).  A failed verification
# (exit 1) is found by each variant's own operations: a workload's first
# such row runs on the variants that cover the code (cover_ids: each variant
# name, each backend under each mode and with each style), its other ones,
# whose words come from the workload's check that every variant shares, once
# a program.  The flag words {fifo}, {file:TEXT} and {unreadable} become a
# FIFO, a file holding TEXT and a file of mode 000 in BATS_TEST_TMPDIR; the
# rows with {unreadable} run only, and alone, when the argument says so (root
# reads such a file).  A workload's server is started once for all its rows.
# Lists every failing row at the end.
expect_bad_inputs() {
  local only=${1:-} line workload="" code says id lang memo="" key ids verified=" "
  local -a flags=() words=() rows=()
  BAD_INPUT_FAILURES="${BATS_TEST_TMPDIR}/bad-inputs.failures"
  : > "$BAD_INPUT_FAILURES"
  while IFS= read -r line; do rows+=("$line"); done < <(catalog bad-inputs)
  rows+=("@@ end")
  SERVER_KEEP=1
  for line in "${rows[@]}"; do
    case $line in
      "@@ "*)
        if [ -n "$workload" ]; then
          key=program
          if [ "$code" = 1 ] && [[ "$verified" != *" $workload "* ]]; then
            key=cover verified+="$workload "
          fi
          # The variants of the row's kind, asked of the catalog once a workload.
          key="${workload/\*/all}:$key"
          ids=$(printf '%s' "$memo" | sed -n "s|^$key ||p")
          if [ -z "$ids" ]; then
            case $key in
              *:cover) ids=$(cover_ids "${workload#\*}" | tr '\n' ' ') ;;
              *) ids=$(program_ids "${workload#\*}" | tr '\n' ' ') ;;
            esac
            ids=${ids:- }
            memo+="$key $ids"$'\n'
          fi
          bad_input_row "$workload" "$code" "$says" "$only" "$ids" \
            "${#words[@]}" ${words[@]+"${words[@]}"} ${flags[@]+"${flags[@]}"}
        fi
        read -r _ workload code <<<"$line"
        says="" flags=() words=()
        ;;
      "says "*) says=${line#says } ;;
      "words "*) line=${line#words }; words+=("${line%% *}" "${line#* }") ;;
      "flag "*) flags+=("${line#flag }") ;;
    esac
  done
  stop_kept_server
  SERVER_KEEP=""
  [ ! -s "$BAD_INPUT_FAILURES" ] || { cat "$BAD_INPUT_FAILURES"; false; }
}

# bad_input_row WORKLOAD CODE SAYS ONLY IDS NWORDS [LANG WORDS]... FLAG...
# -- one row of expect_bad_inputs (WORKLOAD * for every one; IDS the variants
# to run; NWORDS how many words follow, language then pattern); appends what
# failed to $BAD_INPUT_FAILURES.  A variant's language is its id's second
# part (workload/lang/name@backend: the one id rule).
bad_input_row() {
  local workload=$1 code=$2 says=$3 only=$4 ids=$5 nwords=$6 k w id lang pattern
  local dir="${BATS_TEST_TMPDIR}/bad-inputs" unreadable="" these
  shift 6
  local -a words=("${@:1:nwords}") flags=()
  shift "$nwords"
  mkdir -p "$dir"
  for w in "$@"; do
    case $w in
      "{fifo}") [ -p "$dir/fifo" ] || mkfifo "$dir/fifo"; w="$dir/fifo" ;;
      "{unreadable}")
        unreadable=1
        [ -f "$dir/unreadable" ] || { printf 'x' > "$dir/unreadable"; chmod 000 "$dir/unreadable"; }
        w="$dir/unreadable" ;;
      "{file:"*"}")
        w=${w#\{file:}
        w=${w%\}}
        k=$(printf '%s' "$w" | cksum | tr ' ' '-')
        printf '%s' "$w" > "$dir/file-$k"
        w="$dir/file-$k" ;;
    esac
    flags+=("$w")
  done
  # The rows with an unreadable file run apart (see expect_bad_inputs).
  [ "${only:+1}" = "$unreadable" ] || return 0
  # A workload without programs here (another language, an unmet
  # requirement) has nothing to check.
  [ -n "${ids// /}" ] || return 0
  # Each language's variants against its words.
  for lang in $(for id in $ids; do w=${id#*/}; echo "${w%%/*}"; done | sort -u); do
    pattern=$says
    for ((k = 0; k + 1 < ${#words[@]}; k += 2)); do
      [ "${words[k]}" != "$lang" ] || pattern=${words[k + 1]}
    done
    these=""
    for id in $ids; do
      w=${id#*/}
      [ "${w%%/*}" != "$lang" ] || these+="$id "
    done
    expect_variants "$code" "$pattern" "$these" ${flags[@]+"${flags[@]}"} >> "$BAD_INPUT_FAILURES" \
      || echo "failed: $workload | exit $code | $* ($lang: /$pattern/)" >> "$BAD_INPUT_FAILURES"
  done
}

# close_above_2 -- closes every descriptor above 2 of this (sub)shell: what
# bats keeps open would otherwise count against a small ulimit -n.
close_above_2() {
  local fd dir=/proc/$BASHPID/fd
  [ -d "$dir" ] || dir=/dev/fd
  for fd in "$dir"/*; do
    fd=${fd##*/}
    [ "$fd" -gt 2 ] 2>/dev/null || continue
    eval "exec $fd>&-" 2>/dev/null || true
  done
}
