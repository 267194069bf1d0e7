#!/bin/sh
# lint.sh ACTIONLINT -- shellcheck over every shell script make test runs (the
# scripts of scripts/ and .ci/, the bats files and their helper, tests/aplus),
# actionlint over the GitHub Actions workflows (.github/workflows/), cargo
# clippy -D warnings over rust/, and a grep for what breaks on macOS (below).  A tool
# that is missing is one skipped check, said on one line (scripts/deps.sh
# installs shellcheck on Debian and Homebrew, and builds actionlint).
# Ends with 'lint: N passed, N failed, N skipped' for scripts/run-tests.sh:
# one check per file.
#
# lint.sh --portable FILE... -- the macOS check alone, over those files
# (tests/macos.bats gives it lines of each class).
#
# What breaks on macOS (bash 3.2, BSD userland), each class found once in
# this tree:
#   never      bash 4 features (mapfile, declare -A, ${a,,}, negative array
#              subscripts ${a[-1]}, ...) and GNU-only options (sed -i without
#              a suffix, grep -P, date -d, date +%N, xargs -r, realpath -m,
#              ...)
#   guarded    a command macOS lacks (timeout, gtimeout, nproc, setarch, tac,
#              ...), in any position (after run --separate-stderr, in an
#              array, after a path), unless the line also has a guard:
#              command -v, a fallback after `2>/dev/null ||`, a /proc test
#   skipped    `ulimit -v` (RLIMIT_AS, which XNU refuses below the address
#              space in use) unless the @test or function around it has a
#              skip, or its own line falls back to skip, exit or return
#
# The bats files are checked as bash with the idioms of bats allowed:
#   SC2154  status, output, lines and stderr are set by bats' run
#   SC2164  a failing cd fails the test (bats runs tests with errexit)
#   SC2030 SC2031  each @test runs in a subshell of its own
#   SC2016  Python and awk programs in single quotes
#   SC2119 SC2120  helpers whose arguments are optional
#   SC2317 SC2329  @test bodies and helpers that bats, not the file, calls
#                  (reported by newer shellcheck releases than Debian 12's 0.9)
# Anything else is fixed, or disabled on its line with the reason.
set -u

actionlint=${1:-}
passed=0 failed=0 skipped=0
BATS_IDIOMS=SC2154,SC2164,SC2030,SC2031,SC2016,SC2119,SC2120,SC2317,SC2329

# scripts -- every shell script under scripts/, tests/ and .ci/ (by extension
# or shebang), one a line; none from node_modules.
scripts() {
  find scripts tests .ci -type f ! -path '*/node_modules/*' 2>/dev/null | sort | while IFS= read -r f; do
    case $f in
      *.sh | *.bash | *.bats) echo "$f" ;;
      *) head -1 "$f" 2>/dev/null | grep -qE '^#!.*[/ ](sh|bash|bats)$' && echo "$f" ;;
    esac
  done
}

# check TOOL FILE COMMAND... -- one check: COMMAND's findings, indented, on failure.
check() {
  tool=$1 file=$2
  shift 2
  if out=$("$@" 2>&1); then
    passed=$((passed + 1))
    return 0
  fi
  printf '%s\n' "$out" | sed 's/^/  /'
  echo "$tool: $file: FAILED"
  failed=$((failed + 1))
  return 1
}

# Portability (see the header).  Comment lines are left out.
NEVER='(^|[^A-Za-z_-])(mapfile|readarray|coproc)([^A-Za-z_-]|$)|declare -A|local -n|\$\{[A-Za-z_]+(,,|\^\^)\}|\[\[ -v |wait -n|&>>|\|&|\$\{#?[A-Za-z_][A-Za-z0-9_]*\[[[:space:]]*-[0-9]|[A-Za-z_][A-Za-z0-9_]*\[-[0-9]+\]\+?=|sed -i( |$)|readlink -f|grep -[A-Za-z]*P|xargs -[A-Za-z]*[rd]|date -d|date [^|;]*%[0-9]*N|find .*-printf|base64 -w|du -[A-Za-z]*b|realpath -[A-Za-z]*[mes]|realpath --'
# A command word: at the start, after a separator, a blank, a quote, a
# parenthesis or a slash; for timeout, followed by its duration (a number, a
# variable or a quoted word) and a command, so that the word in a sentence
# ("timeout 20 s, 2 rounds") is not taken for it.
CMD_START='(^|[^A-Za-z0-9_.:=-])'
GUARDED="${CMD_START}g?timeout[[:space:]]+(-[^[:space:]]+[[:space:]]+([A-Z0-9]+[[:space:]]+)?)*(\"[^\"]*\"|\\\$[{(]?[A-Za-z0-9_@:-]*[})]?|[0-9.]+[smhd]?)[[:space:]]+[^[:space:],]+([[:space:]]|\$)|${CMD_START}(nproc|setarch|tac|stdbuf|taskset|numfmt|sha256sum|md5sum)([[:space:];|&)]|\$)|stat -c"
ULIMIT_V='ulimit[[:space:]]+-[A-Za-z]*v'

# portable_findings FILE -- LINE: text of each line of FILE that breaks on
# macOS, indented and prefixed with FILE.
portable_findings() {
  {
    grep -nE "$NEVER" "$1" | grep -v '^[0-9]*: *#'
    # A command macOS lacks: guarded on its own line or the line before (an
    # `if command -v ...; then` above it).  ulimit -v: the block around it (an
    # @test or a function, to the next `}` in column 1) must have a skip that
    # names ulimit or a ulimit -v line that falls back to skip, exit or return.
    GUARDED_RE=$GUARDED ULIMIT_RE=$ULIMIT_V awk '
      function guard(s) { return s ~ /command -v|2>\/dev\/null \|\||\/proc/ }
      function flush() { if (!probed) for (i = 1; i <= n; i++) print hits[i]; n = 0; probed = 0 }
      /^[[:space:]]*#/ { next }
      /^@test |^[A-Za-z_][A-Za-z0-9_]*[[:space:]]*\(\)[[:space:]]*\{/ { flush(); inblock = 1 }
      $0 ~ ENVIRON["GUARDED_RE"] && !guard($0) && !guard(prev) { print FNR ":" $0 }
      !/^@test / && $0 ~ ENVIRON["ULIMIT_RE"] {
        if ($0 ~ /\|\|[[:space:]]*(skip|exit|return)/) probed = 1
        else if (inblock) hits[++n] = FNR ":" $0
        else print FNR ":" $0
      }
      /(^|[^A-Za-z_])skip[[:space:]].*ulimit/ { probed = 1 }
      inblock && /^}/ { flush(); inblock = 0 }
      { prev = $0 }
      END { flush() }' "$1"
  } | sort -t: -k1,1n -u | sed "s|^|  $1:|"
}

# portable FILE... -- one check over the files.
portable() {
  bad_lines=$(for f in "$@"; do portable_findings "$f"; done)
  if [ -z "$bad_lines" ]; then
    echo "portable: no bash 4 feature, no GNU-only option, every Linux-only command guarded, every ulimit -v skippable"
    passed=$((passed + 1))
  else
    printf '%s\n' "$bad_lines"
    echo "portable: FAILED: the lines above break on macOS (bash 3.2, BSD userland, XNU)"
    failed=$((failed + 1))
  fi
}

if [ "$actionlint" = --portable ]; then
  shift
  portable "$@"
  echo "lint: $passed passed, $failed failed, $skipped skipped"
  [ "$failed" -eq 0 ]
  exit
fi

if command -v shellcheck >/dev/null 2>&1; then
  for f in $(scripts); do
    case $f in
      *.bats | tests/test_helper.bash) set -- -s bash -e "$BATS_IDIOMS" ;;
      *) set -- ;;
    esac
    check shellcheck "$f" shellcheck "$@" -f gcc "$f"
  done
  echo "shellcheck: $passed files clean"
else
  echo "lint: shellcheck skipped: not installed (Debian: apt-get install shellcheck; macOS: brew install shellcheck)"
  skipped=$((skipped + 1))
fi

# Not the patterns themselves (lint.sh) nor their test cases (tests/macos.bats).
# shellcheck disable=SC2046  # file names without blanks (scripts, tests)
portable $(scripts | grep -vxE 'scripts/lint.sh|tests/macos.bats') Makefile

workflows=$(find .github/workflows -type f \( -name '*.yml' -o -name '*.yaml' \) 2>/dev/null | sort)
if [ -z "$workflows" ]; then
  echo "lint: no workflow in .github/workflows"
  failed=$((failed + 1))
elif [ -n "$actionlint" ] && [ -x "$actionlint" ]; then
  for w in $workflows; do
    # actionlint runs shellcheck over each run: step too, when it finds it.
    check actionlint "$w" "$actionlint" -no-color "$w" && echo "actionlint: $w clean"
  done
else
  echo "lint: actionlint skipped: not built (make deps builds it with Go into build/tools)"
  skipped=$((skipped + 1))
fi

# cargo clippy over rust/ with every warning an error, with the cargo make
# deps found (BUILD/deps.env), offline as the build; skipped without it or
# without clippy.
deps_env="${BUILD:-build}/deps.env"
cargo=$(sed -n 's/^CARGO=//p' "$deps_env" 2>/dev/null)
rust_skip=$(sed -n 's/^RUST_SKIP=//p' "$deps_env" 2>/dev/null)
if [ -z "$cargo" ] || [ -n "$rust_skip" ]; then
  echo "lint: clippy skipped: ${rust_skip:-no cargo in $deps_env (make deps)}"
  skipped=$((skipped + 1))
elif ! "$cargo" clippy --version >/dev/null 2>&1; then
  echo "lint: clippy skipped: $cargo has no clippy (rustup component add clippy)"
  skipped=$((skipped + 1))
else
  target=$(cd "${BUILD:-build}" && pwd)/rust-clippy
  # shellcheck disable=SC2016  # the inner shell expands them
  check clippy rust sh -c 'cd rust && CARGO_TARGET_DIR="$1" "$2" clippy --locked --offline --all-targets --quiet -- -D warnings' \
    clippy "$target" "$cargo" && echo "clippy: rust/ clean"
fi

echo "lint: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
