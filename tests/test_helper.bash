# test_helper.bash -- loaded by every .bats file: finds the project root, loads
# bats-support and bats-assert, and offers a few helpers over the catalog.

bats_require_minimum_version 1.5.0

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# The build folder: BUILD as `make BUILD=...` exports it (relative to ROOT unless absolute).
case "${BUILD:-build}" in
  /*) BUILD_DIR=$BUILD ;;
  *) BUILD_DIR="${ROOT}/${BUILD:-build}" ;;
esac
BIN="${BUILD_DIR}/bin"
FIXTURE="${ROOT}/fixtures/text.txt"

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

# catalog ARGS... -- the catalog CLI (runner/catalog.py).
catalog() { "$PYTHON" "${ROOT}/runner/catalog.py" "$@"; }

# variant_argv ID -- fills the array VARIANT_ARGV with the variant's command.
variant_argv() {
  VARIANT_ARGV=()
  local line
  while IFS= read -r line; do VARIANT_ARGV+=("$line"); done \
    < <(catalog argv "$1" --bin "$BIN" --node "${NODE:-node}")
}

# check_result_line ID N LINE -- asserts LINE is the contract's JSON for a valid run.
check_result_line() {
  "$PYTHON" "${ROOT}/tests/check_result.py" "$1" "$2" "$3"
}

# contract_ids -- every catalog variant a test should run: not the test-only
# ones, and not Node's when node is absent.
contract_ids() {
  local id
  for id in $(catalog ids); do
    case " $(catalog field "$id" profiles) " in *selftest*) continue ;; esac
    if [ "$(catalog field "$id" lang)" = node ] && ! command -v "${NODE:-node}" >/dev/null; then
      continue
    fi
    echo "$id"
  done
}

# run_variant ID N [flags...] -- runs one variant from the project root with
# stdout in $output and stderr in $stderr.
run_variant() {
  local id=$1 n=$2
  shift 2
  variant_argv "$id"
  cd "$ROOT" || return 1
  run --separate-stderr "${VARIANT_ARGV[@]}" --iterations "$n" "$@"
}

# expect_variants CODE PATTERN "ID..." FLAGS... -- every listed variant, run at
# N=5 with FLAGS, exits CODE, prints nothing on stdout and says PATTERN (an
# extended regexp, case-insensitive) on stderr; lists every failure at the end.
expect_variants() {
  local code=$1 pattern=$2 ids=$3 failures="" id
  shift 3
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
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
}

# expect_contract_lines N "ID..." -- every listed variant, run at N, exits 0
# with exactly one valid contract line on stdout and nothing on stderr; lists
# every failure at the end.
expect_contract_lines() {
  local n=$1 ids=$2 failures="" id
  for id in $ids; do
    run_variant "$id" "$n"
    if [ "$status" -ne 0 ] || [ "${#lines[@]}" -ne 1 ] || [ -n "$stderr" ]; then
      failures+="$id: exit $status, ${#lines[@]} lines on stdout, stderr: $stderr"$'\n'
      continue
    fi
    check_result_line "$id" "$n" "$output" || failures+="$id: contract broken: $output"$'\n'
  done
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
}

# expect_cases "ID..." -- runs expect_variants over the listed variants for
# each line of a table on stdin, one bad input a line:
#   CODE | PATTERN | FLAGS
# (PATTERN an extended regexp without a |, FLAGS split on blanks); blank lines
# are skipped; lists every failing line at the end.
expect_cases() {
  local ids=$1 failures="" row code pattern flags
  local -a rows argv
  mapfile -t rows
  for row in "${rows[@]}"; do
    [[ "$row" =~ ^[[:space:]]*$ ]] && continue
    IFS='|' read -r code pattern flags <<<"$row"
    read -r code <<<"$code"
    read -r pattern <<<"$pattern"
    read -r -a argv <<<"$flags"
    expect_variants "$code" "$pattern" "$ids" "${argv[@]}" || failures+="failed: $row"$'\n'
  done
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
}
