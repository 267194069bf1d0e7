#!/bin/sh
# sanitize.sh MAKE PYTHON -- the C code under the tools that catch what tests miss.
#
#   asan      the C library, the unit tests, the micro-benchmarks and the C
#             variants of the catalog (which, below) built with
#             AddressSanitizer + UndefinedBehaviorSanitizer (leaks included)
#             and run at small N
#   tsan      the C variants built with ThreadSanitizer: the threadpool paths
#   memcheck  C variants of the normal build under valgrind at N = 1,000,
#             no error and no leak allowed
#
# Which variants: each step runs the C variants that runner/catalog/cover.py
# keeps of those the step takes, not every id.  asan and tsan: every program,
# every variant name (style, shape and mode: the style's own code for that
# mode) on the first backend that has it, and every other backend under each
# mode and with each style once; what is left out differs from a variant that
# runs only by its backend, whose code runs in the kept ones (readfile's
# fused, inline and uring rows: 66 readfile variants become 38 today).
# memcheck: each style file and backend file of every program once, and each
# style's code for each mode once (--keys program,style,backend,style+mode:
# 48 of 125 today).  valgrind adds to asan what asan cannot see, reads of
# uninitialised memory and the optimised build, in code those variants run;
# the combinations of the same files run under asan, and valgrind's start
# costs about a second a variant.  The catalog decides, so a new workload,
# style or backend is covered without an edit here.
#
# Flags: each variant's program flags from the catalog, and a workload flag's
# "test" value where the catalog gives one (tasks' --sleep-ms 10: the same
# timer path as the 1 s of its default, which would be most of these runs).
# N: asan at SANITIZE_N (default 200); memcheck at 1,000.  tsan at
# SANITIZE_TSAN_N (default 20), but bounded variants at SANITIZE_N: TSan finds
# a race by happens-before, not by luck, so 20 operations in flight on libuv's
# 4 threads already run every access of the threadpool paths from both sides;
# a bounded variant needs N past the suite's bound (64) for its limiter to
# wait; and every coroutine costs TSan a fiber of its own (asyncfib's await
# makes 276 an iteration: minutes at N = 200, for the same code again).
#
# A variant whose workload needs a server (httpchain) runs against it through
# `python3 -m runner.measure.servers with-server`: a C server of the same build (sanitized in
# asan and tsan, under valgrind in memcheck), which must exit 0 when stopped;
# a Go or Node server as it is.  The others run directly: every command line
# is read from the catalog in one Python run per step.
#
# Each step prints one line per program and a total "STEP: N passed, N failed".
# Steps whose tool is missing are skipped with a line saying so.  A variant
# whose requirement this host does not meet (its catalog requires, by the
# runner's rule, runner/measure/plan.py: an OS, node, a probe such as readfile's
# io_uring check, run from the main build) still runs: at this N it may (the
# tasks probe asks for N = 100,000), and when it exits 3, the environment,
# it is skipped with the requirement's reason.  tsan leaves
# out the variants the catalog marks threadless (readfile's sync style and its
# inline and uring backends: no thread of theirs runs a read, the loop thread
# or the kernel does).  The sanitized builds (build/asan, build/tsan) take the main
# build's deps.env (no second `make deps`) and build with make -jSANITIZE_JOBS
# (default 2).
# Set SANITIZE_STEPS to run only some ("asan tsan memcheck"), SANITIZE_N and
# SANITIZE_TSAN_N for N.
set -u
make=${1:-make}
python=${2:-python3}
steps=${SANITIZE_STEPS:-asan tsan memcheck}
n=${SANITIZE_N:-200}
root=$(pwd)
bad=0
jobs=${SANITIZE_JOBS:-2}
tsan_n=${SANITIZE_TSAN_N:-20}

# sanitized_build DIR OPT LDFLAGS -- the C code built into DIR (make c), with
# the main build's deps.env so that make does not run deps again for DIR.
sanitized_build() {
  mkdir -p "$1"
  [ -f "$1/deps.env" ] || cp build/deps.env "$1/deps.env" 2>/dev/null || true
  "$make" --no-print-directory -j"$jobs" BUILD="$1" OPT="$2" LDFLAGS="$3" c >/dev/null
}

# c_variants STEP -- the C variants STEP runs, one a line: those it takes
# (tsan: not the threadless ones), thinned by runner/catalog/cover.py (see
# the header).
c_variants() {
  keys=program,name,backend+mode,backend+style
  [ "$1" != memcheck ] || keys=program,style,backend,style+mode
  "$python" - "$1" <<'PY' | "$python" -m runner.catalog.cover --keys "$keys"
import sys
from runner.catalog import catalog
for v in catalog.load().select(lang="c"):
    if not (sys.argv[1] == "tsan" and v["threadless"]):
        print(v["id"])
PY
}

# records BIN_DIR IDS... -- for each id: a line "@@ ID MODE SERVER" (SERVER 1
# when its workload needs a server, else 0), its command, one argument a
# line, and "-- unmet REASON" when this host does not meet its requirements
# (runner/measure/plan.py's rule, with the node on the PATH: the probes of the main
# build, each run once).  One Python run for all of them.
records() {
  "$python" - "$@" <<'PY'
import sys
from runner.catalog import catalog
from runner.measure import plan
cat = catalog.load()
bin_dir, probes, node = sys.argv[1], {}, plan.find_node(None)
for vid in sys.argv[2:]:
    v = cat.find(vid)
    server = 1 if (v.get("requires") or {}).get("server") else 0
    print("@@ %s %s %d" % (vid, v["mode"], server))
    print("\n".join(catalog.argv(v, bin_dir) + cat.test_args(v["workload"])))
    why = plan.unmet(v, node, probes)
    if why:
        print("-- unmet %s" % why)
PY
}

# run_variants STEP BIN_DIR N N_BOUNDED WRAPPER... -- the step's C variants,
# run through WRAPPER at N (a bounded variant at N_BOUNDED), then the step's
# total line.  SERVER_WRAPPER (words) goes before a server's command.
run_variants() {
  step=$1 bin=$2 iters=$3 iters_bounded=$4
  shift 4
  server_wrapper=${SERVER_WRAPPER:-}
  pass=0 fail=0
  ids=$(c_variants "$step")
  rec="$bin/../sanitize-variants.txt"
  # shellcheck disable=SC2086  # ids are words
  records "$bin" $ids > "$rec" || { echo "$step: 0 passed, 1 failed (the catalog)"; bad=1; return; }
  for id in $ids; do
    # One argument a line: split on newlines only (BIN_DIR may hold a space).
    argv=$(awk -v id="@@ $id" 'index($0, id " ") == 1 { p = 1; next } /^@@ / { p = 0 } /^-- / { p = 0 } p' "$rec")
    unmet=$(awk -v id="@@ $id" 'index($0, id " ") == 1 { p = 1; next } /^@@ / { p = 0 } p && /^-- unmet / { sub(/^-- unmet /, ""); print }' "$rec")
    # shellcheck disable=SC2046  # two words
    set -- $(sed -n "s|^@@ $id ||p" "$rec") "$@"
    mode=$1 server=$2
    shift 2
    n_run=$iters
    [ "$mode" != bounded ] || n_run=$iters_bounded
    # The test-only variant stops its clock early but must still be clean.
    if [ "$server" = 1 ]; then
      # shellcheck disable=SC2086
      out=$(IFS='
'; set -f; "$python" -m runner.measure.servers with-server "$id" --bin "$bin" --server-wrapper "$server_wrapper" -- "$@" $argv --iterations "$n_run" --warmup 2 2>&1 >/dev/null)
    else
      # shellcheck disable=SC2086
      out=$(IFS='
'; set -f; "$@" $argv --iterations "$n_run" --warmup 2 2>&1 >/dev/null)
    fi
    rc=$?
    if [ "$rc" -eq 0 ]; then
      pass=$((pass + 1)); echo "  ok   $id"
    elif [ "$rc" -eq 3 ] && [ -n "$unmet" ]; then
      echo "  skip $id ($unmet)"
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
      sanitized_build build/asan "$flags" "-fsanitize=address,undefined" \
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
      run_variants asan "$root/build/asan/bin" "$n" "$n" env
      unset ASAN_OPTIONS UBSAN_OPTIONS
      ;;
    tsan)
      echo "== tsan: ThreadSanitizer over the threadpool paths"
      sanitized_build build/tsan "-O1 -g -fsanitize=thread" "-fsanitize=thread" \
        || { echo "tsan: 0 passed, 1 failed (build)"; bad=1; continue; }
      # halt_on_error: a race is a failure, not a warning.  setarch -R: TSan
      # cannot map its shadow memory with the high ASLR entropy of new kernels.
      # shellcheck disable=SC2209  # the word env, run as the wrapper below
      wrap=env
      if command -v setarch >/dev/null 2>&1 && setarch "$(uname -m)" -R true 2>/dev/null; then
        wrap="setarch $(uname -m) -R"
      fi
      # shellcheck disable=SC2086  # $wrap is a command and its arguments
      SERVER_WRAPPER=$wrap TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 run_variants tsan "$root/build/tsan/bin" "$tsan_n" "$n" $wrap
      ;;
    memcheck)
      echo "== memcheck: valgrind at N = 1,000"
      if ! command -v valgrind >/dev/null 2>&1; then
        echo "memcheck: skipped, valgrind not installed"; continue
      fi
      "$make" --no-print-directory -j"$jobs" c >/dev/null || { echo "memcheck: 0 passed, 1 failed (build)"; bad=1; continue; }
      SERVER_WRAPPER="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect,possible" \
      run_variants memcheck "$root/build/bin" 1000 1000 valgrind -q --error-exitcode=99 \
        --leak-check=full --show-leak-kinds=definite,indirect,possible \
        --errors-for-leak-kinds=definite,indirect,possible
      ;;
    *) echo "sanitize.sh: unknown step '$step' (asan, tsan, memcheck)" >&2; exit 2 ;;
  esac
done
exit $bad
