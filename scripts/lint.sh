#!/bin/sh
# lint.sh ACTIONLINT -- shellcheck over every shell script make test runs (the
# scripts of scripts/ and .ci/, the bats files and their helper, tests/aplus),
# actionlint over the GitHub Actions workflows (.github/workflows/), and a
# grep for what breaks on macOS (bash 4 features, GNU-only options).  A tool
# that is missing is one skipped check, said on one line (scripts/deps.sh
# installs shellcheck on Debian and Homebrew, and builds actionlint).
# Ends with 'lint: N passed, N failed, N skipped' for scripts/run-tests.sh:
# one check per file.
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

# Portability: macOS has bash 3.2 and BSD userland.  Never: bash 4 features
# and GNU-only options.  Only behind a guard on the same line (command -v, a
# fallback after ||, a /proc test): commands macOS lacks.
NEVER='(^|[^A-Za-z_-])(mapfile|readarray|coproc)([^A-Za-z_-]|$)|declare -A|local -n|\$\{[A-Za-z_]+(,,|\^\^)\}|\[\[ -v |wait -n|&>>|\|&|sed -i( |$)|readlink -f|grep -[A-Za-z]*P|xargs -r|date -d|find .*-printf'
GUARDED='(^|[;&|({]|\$\(|then|do|else|run|-[0-9])[[:space:]]*(timeout|nproc|setarch)([[:space:]]|\)|$)|stat -c'
bad_lines=""
for f in $(scripts) Makefile; do
  [ "$f" != scripts/lint.sh ] || continue   # the patterns themselves
  hits=$(grep -nE "$NEVER" "$f" | grep -v '^[0-9]*: *#')
  hits="$hits$(grep -nE "$GUARDED" "$f" | grep -v '^[0-9]*: *#' | grep -vE 'command -v|2>/dev/null \|\||/proc')"
  [ -z "$hits" ] || bad_lines="$bad_lines$(printf '%s\n' "$hits" | sed "s|^|  $f:|")
"
done
if [ -z "$bad_lines" ]; then
  echo "portable: no bash 4 feature, no GNU-only option, every Linux-only command guarded"
  passed=$((passed + 1))
else
  printf '%s' "$bad_lines"
  echo "portable: FAILED: the lines above break on macOS (bash 3.2, BSD userland)"
  failed=$((failed + 1))
fi

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

echo "lint: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
