#!/bin/sh
# sanitize.sh MAKE PYTHON -- the C code under the tools that catch what tests miss.
#
#   asan      the C library, the unit tests and every C variant of the catalog
#             built with AddressSanitizer + UndefinedBehaviorSanitizer (leaks
#             included) and run at small N
#   tsan      every C variant built with ThreadSanitizer: the threadpool paths
#   memcheck  every C variant of the normal build under valgrind at N = 1,000,
#             no error and no leak allowed
#
# A variant whose workload needs a server (httpchain) runs against it through
# runner/servers.py with-server: a C server of the same build (sanitized in
# asan and tsan, under valgrind in memcheck), which must exit 0 when stopped;
# a Go or Node server as it is.
#
# Each step prints one line per program and a total "STEP: N passed, N failed".
# Steps whose tool is missing are skipped with a line saying so.  readfile's
# uring variants are skipped, with the probe's reason, where io_uring is
# unavailable (build/bin/c-readfile-probe uring).  tsan leaves out the inline
# and uring backends (no thread of theirs runs a read: the loop thread or the
# kernel does); memcheck runs the fused, inline and uring backends in their
# parallel variants and callback-sequential only (their other variants share
# the same code, and valgrind's start-up costs a second each).
# Set SANITIZE_STEPS to run only some ("asan tsan memcheck"), SANITIZE_N for N.
set -u
make=${1:-make}
python=${2:-python3}
steps=${SANITIZE_STEPS:-asan tsan memcheck}
n=${SANITIZE_N:-200}
root=$(pwd)
bad=0

c_variants() { "$python" runner/catalog.py ids --lang c; }

# Why io_uring cannot be used here (the probe's line), or nothing.
uring_why=$("$root/build/bin/c-readfile-probe" uring 2>&1 >/dev/null) || [ -n "$uring_why" ] || uring_why="probe failed"

# wanted STEP ID -- whether STEP runs the variant ID (see the header).
wanted() {
  case $1:$2 in
    tsan:*@inline|tsan:*@uring) return 1 ;;
    memcheck:*-parallel@fused|memcheck:*-parallel@inline|memcheck:*-parallel@uring) return 0 ;;
    memcheck:*/callback-sequential@fused|memcheck:*/callback-sequential@inline) return 0 ;;
    memcheck:*/callback-sequential@uring) return 0 ;;
    memcheck:*@fused|memcheck:*@inline|memcheck:*@uring) return 1 ;;
  esac
  return 0
}

# run_variants STEP BIN_DIR N WRAPPER... -- every C variant of the catalog,
# run through WRAPPER, then the step's total line.  SERVER_WRAPPER (words)
# goes before a server's command.
run_variants() {
  step=$1 bin=$2 iters=$3
  shift 3
  server_wrapper=${SERVER_WRAPPER:-}
  pass=0 fail=0
  for id in $(c_variants); do
    wanted "$step" "$id" || continue
    case $id in
      *@uring) if [ -n "$uring_why" ]; then echo "  skip $id ($uring_why)"; continue; fi ;;
    esac
    # One argument a line: split on newlines only (BIN_DIR may hold a space).
    argv=$("$python" runner/catalog.py argv "$id" --bin "$bin")
    # The test-only variant stops its clock early but must still be clean.
    # shellcheck disable=SC2086
    out=$(IFS='
'; set -f; "$python" runner/servers.py with-server "$id" --bin "$bin" --server-wrapper "$server_wrapper" -- "$@" $argv --iterations "$iters" --warmup 2 2>&1 >/dev/null)
    rc=$?
    if [ "$rc" -eq 0 ]; then
      pass=$((pass + 1)); echo "  ok   $id"
    else
      fail=$((fail + 1)); echo "  FAIL $id (exit $rc)"; printf '%s\n' "$out" | tail -25 | sed 's/^/       /'
    fi
  done
  echo "$step: $pass passed, $fail failed"
  [ "$fail" -eq 0 ] || bad=1
}

for step in $steps; do
  case $step in
    asan)
      echo "== asan: AddressSanitizer + UndefinedBehaviorSanitizer"
      flags="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
      "$make" --no-print-directory BUILD=build/asan OPT="$flags" LDFLAGS="-fsanitize=address,undefined" c >/dev/null \
        || { echo "asan: 0 passed, 1 failed (build)"; bad=1; continue; }
      export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:halt_on_error=1
      export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
      pass=0 fail=0
      for t in build/asan/bin/test_*; do
        [ -x "$t" ] || continue
        if out=$("$t" 2>&1); then pass=$((pass + 1)); echo "  ok   $(basename "$t")"
        else fail=$((fail + 1)); echo "  FAIL $(basename "$t")"; printf '%s\n' "$out" | tail -25 | sed 's/^/       /'; fi
      done
      echo "asan-unit: $pass passed, $fail failed"
      [ "$fail" -eq 0 ] || bad=1
      # The micro-benchmarks (c/micro/) at a tiny N, in make micro's --tsv mode.
      pass=0 fail=0
      for t in build/asan/bin/micro-*; do
        [ -x "$t" ] || continue
        if out=$("$t" 200 --tsv 2>&1 >/dev/null); then pass=$((pass + 1)); echo "  ok   $(basename "$t")"
        else fail=$((fail + 1)); echo "  FAIL $(basename "$t")"; printf '%s\n' "$out" | tail -25 | sed 's/^/       /'; fi
      done
      echo "asan-micro: $pass passed, $fail failed"
      [ "$fail" -eq 0 ] || bad=1
      run_variants asan "$root/build/asan/bin" "$n" env
      unset ASAN_OPTIONS UBSAN_OPTIONS
      ;;
    tsan)
      echo "== tsan: ThreadSanitizer over the threadpool paths"
      "$make" --no-print-directory BUILD=build/tsan OPT="-O1 -g -fsanitize=thread" LDFLAGS="-fsanitize=thread" c >/dev/null \
        || { echo "tsan: 0 passed, 1 failed (build)"; bad=1; continue; }
      # halt_on_error: a race is a failure, not a warning.  setarch -R: TSan
      # cannot map its shadow memory with the high ASLR entropy of new kernels.
      # shellcheck disable=SC2209  # the word env, run as the wrapper below
      wrap=env
      if command -v setarch >/dev/null 2>&1 && setarch "$(uname -m)" -R true 2>/dev/null; then
        wrap="setarch $(uname -m) -R"
      fi
      # shellcheck disable=SC2086  # $wrap is a command and its arguments
      SERVER_WRAPPER=$wrap TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 run_variants tsan "$root/build/tsan/bin" "$n" $wrap
      ;;
    memcheck)
      echo "== memcheck: valgrind at N = 1,000"
      if ! command -v valgrind >/dev/null 2>&1; then
        echo "memcheck: skipped, valgrind not installed"; continue
      fi
      "$make" --no-print-directory c >/dev/null || { echo "memcheck: 0 passed, 1 failed (build)"; bad=1; continue; }
      SERVER_WRAPPER="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect,possible" \
      run_variants memcheck "$root/build/bin" 1000 valgrind -q --error-exitcode=99 \
        --leak-check=full --show-leak-kinds=definite,indirect,possible \
        --errors-for-leak-kinds=definite,indirect,possible
      ;;
    *) echo "sanitize.sh: unknown step '$step' (asan, tsan, memcheck)" >&2; exit 2 ;;
  esac
done
exit $bad
