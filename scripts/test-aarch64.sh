#!/bin/sh
# test-aarch64.sh MAKE BUILD_DIR -- the C suite on AArch64, by the best means
# this host has, saying which it ran:
#
#   native  an aarch64 (arm64) host: the C code built again in BUILD_DIR/aarch64
#           (on Linux with -mbranch-protection=standard, so that the signed
#           return addresses run for real, and the BTI landing pads where the
#           C runtime's objects have BTI too) and run directly.
#   qemu    another Linux host with an aarch64 cross compiler, qemu-aarch64 and
#           the arm64 multiarch libraries (libuv1-dev:arm64, libcmocka-dev:arm64;
#           scripts/deps.sh installs them on Debian and Ubuntu): the C code
#           cross-built by the Makefile into BUILD_DIR/aarch64 and run under
#           `qemu-aarch64 -L /` (the multiarch root: -L /usr/aarch64-linux-gnu
#           would mix the cross package's ld.so with the multiarch libc).
#   static  a cross compiler and qemu but no arm64 libraries: the coroutine
#           tests alone, linked statically against c/tests/cross/cmocka.h.
#   skipped none of these: one line saying what is missing.
#
# What native and qemu run: every cmocka unit test; and the contract tables of
# tests/contract.bats that run the operations (a line at N = 50, N = 1, a
# bound K) at small N over the C variants that run each style file
# and each backend file of every program once, and each style's code for each
# mode once (TEST_VARIANT_COVER=program,style,backend,style+mode: 44 of 120
# today, runner/catalog/cover.py): what the AArch64 build adds is that code
# compiled for it, the coroutine switch under every style that switches; the
# variants that differ from those only in how the same files combine run
# natively in test-bats, every one.  Under qemu they run through wrappers in
# BUILD_DIR/aarch64/run/bin that start each program with its own name as
# argv[0], the bats helpers told that only C programs exist here
# (TEST_LANGS=c).  The flag parsing, the bad inputs and the defaults hold no
# code of their own for AArch64 and run natively in test-bats.  Under qemu
# also: test_coro at 64 KiB pages (qemu -p), at 16 KiB pages with branch
# protection and BTI enforced (below), and built with the `br` form of the
# switch.  The variant list comes from the catalog, so a new
# workload is covered without an edit here.
#
# Ends with 'aarch64: N passed, N failed, N skipped' for scripts/run-tests.sh
# (the lines above it are indented so that it counts nothing twice).
# Environment: AARCH64_CC (default aarch64-linux-gnu-gcc), AARCH64_AR,
# QEMU_AARCH64 (default qemu-aarch64), AARCH64_MODE (native, qemu or static:
# force one), AARCH64_MULTIARCH (default /usr/lib/aarch64-linux-gnu),
# AARCH64_NATIVE_CFLAGS (the native build's CFLAGS, default the branch
# protection above), AARCH64_JOBS (make -j, default 2).
set -u

make=${1:-make}
build=${2:-build}
root=$(pwd)
case $build in /*) ;; *) build="$root/$build" ;; esac
here=$(dirname "$0")
out="$build/aarch64"
cc=${AARCH64_CC:-aarch64-linux-gnu-gcc}
ar=${AARCH64_AR:-aarch64-linux-gnu-ar}
qemu=${QEMU_AARCH64:-qemu-aarch64}
multiarch=${AARCH64_MULTIARCH:-/usr/lib/aarch64-linux-gnu}
passed=0 failed=0 skipped=0

have() { command -v "$1" >/dev/null 2>&1; }
indent() { sed 's/^/  /'; }

# add_counts P F S -- adds to the totals.
add_counts() { passed=$((passed + $1)); failed=$((failed + $2)); skipped=$((skipped + $3)); }

finish() {
  echo "aarch64: $passed passed, $failed failed, $skipped skipped"
  [ "$failed" -eq 0 ]
  exit $?
}

# ---- which mode --------------------------------------------------------------
arch=$(uname -m)
missing=""
if [ -n "${AARCH64_MODE:-}" ]; then
  mode=$AARCH64_MODE
elif [ "$arch" = aarch64 ] || [ "$arch" = arm64 ]; then
  mode=native
else
  have "$cc" || missing="$missing $cc (gcc-aarch64-linux-gnu)"
  have "$qemu" || missing="$missing $qemu (qemu-user)"
  if [ -n "$missing" ]; then
    mode=skipped
  else
    for pc in libuv cmocka; do
      [ -f "$multiarch/pkgconfig/$pc.pc" ] || missing="$missing $pc for arm64"
    done
    if [ -n "$missing" ]; then mode=static; else mode=qemu; fi
  fi
fi

case $mode in
  skipped)
    echo "test-aarch64: skipped: needs$missing (Debian: make deps installs them)"
    add_counts 0 0 1
    finish ;;
  native) echo "test-aarch64: native $arch host: the C suite built in $out and run directly (no qemu)" ;;
  qemu) echo "test-aarch64: the whole C suite cross-built for aarch64 in $out and run under $qemu -L /" ;;
  static) echo "test-aarch64: the static coroutine tests only under $qemu (missing:$missing; make deps installs the arm64 libraries on Debian and Ubuntu)" ;;
  *) echo "test-aarch64: AARCH64_MODE must be native, qemu or static, not '$mode'"; add_counts 0 1 0; finish ;;
esac

# run_ctest BIN [QEMU_ARGS...] -- one cmocka binary (under qemu unless native),
# its counts added; its output indented.  A first argument that is not a qemu
# option (no leading -p) only names the build.
run_ctest() {
  t=$1
  shift
  label=""
  case ${1:-} in -p) ;; ?*) label=$1; shift ;; esac
  if [ "$mode" = native ]; then
    log=$("$t" 2>&1)
  else
    log=$("$qemu" -L / "$@" "$t" 2>&1)
  fi
  rc=$?
  name="$(basename "$t")${1:+ ($*)}${label:+ ($label)}"
  # Per test: passed, failed, or failed by qemu-user 7's bug, which is
  # counted as skipped and named (cmocka-counts.awk).
  # shellcheck disable=SC2046  # four numbers
  set -- $(printf '%s\n' "$log" | awk -f "$here/cmocka-counts.awk" 2>"$out/qemu-bug.txt")
  n_ok=$1 n_bad=$2 n_skip=$3 n_qemu=$4
  # The summary lines, but for the tests skipped for qemu's bug (named below).
  skipped_names=$(sed 's/^qemu-bug: /] /' "$out/qemu-bug.txt")
  # ... and without cmocka's count of failures when those were all of them.
  [ "$n_bad" -ne 0 ] || skipped_names="$skipped_names
FAILED  ] $n_qemu test(s)"
  printf '%s\n' "$log" | grep -E '^\[  (PASSED|FAILED)' \
    | { if [ -s "$out/qemu-bug.txt" ]; then grep -vF "$skipped_names"; else cat; fi; } | sed "s|^|  $name: |"
  while read -r _ test_name; do
    echo "  $name: $test_name skipped: qemu-user cannot start a thread in a forked child of a threaded process (runs natively in test-c)"
  done < "$out/qemu-bug.txt"
  if { [ "$rc" -ne 0 ] && [ "$n_bad" -eq 0 ] && [ "$n_skip" -eq 0 ]; } || [ "$((n_ok + n_skip))" -eq 0 ]; then
    printf '%s\n' "$log" | tail -20 | indent
    echo "  $name: exited $rc"
    n_bad=$((n_bad + 1))
  fi
  add_counts "$n_ok" "$n_bad" "$n_skip"
}

# phase NAME -- prints how long the previous phase took (seconds).
phase_start=$(date +%s)
phase() {
  now=$(date +%s)
  echo "  ($1: $((now - phase_start)) s)"
  phase_start=$now
}

# ---- static: today's coroutine tests, no libraries needed ----------------------
if [ "$mode" = static ]; then
  mkdir -p "$out/static"
  # Frames probed page by page against the 4 KiB guard, as the Makefile
  # builds them (gcc on AArch64 assumes a 64 KiB guard unless told).
  if "$cc" -std=c11 -Wall -Wextra -Werror -D_DEFAULT_SOURCE -D_GNU_SOURCE \
       -fstack-clash-protection --param stack-clash-protection-guard-size=12 \
       -Ic/tests/cross -Ic/lib -O2 -g -static -o "$out/static/test_coro" c/tests/test_coro.c \
       c/lib/coro.c c/lib/stack.c c/lib/coro_switch_aarch64.S c/lib/coro_switch_x86_64.S -lm; then
    run_ctest "$out/static/test_coro"
    if "$qemu" -h 2>/dev/null | grep -q '^-p '; then
      run_ctest "$out/static/test_coro" -p 65536
    fi
  else
    echo "  test_coro: cross build failed"
    add_counts 0 1 0
  fi
  finish
fi

# ---- native and qemu: the Makefile's build ------------------------------------
# Objects depend on their sources and the Makefile, not on CC or CFLAGS: a
# folder built another way (the other mode, other flags) is built afresh.
config="$mode $cc ${AARCH64_NATIVE_CFLAGS-default}"
if [ -d "$out" ] && [ "$(cat "$out/config" 2>/dev/null)" != "$config" ]; then
  rm -rf "$out"
fi
mkdir -p "$out"
printf '%s\n' "$config" > "$out/config"
# What make deps found (PYTHON, BATS_LIB_PATH): the build's own deps.env, so
# that the Makefile does not run deps again for this folder.
cp "$build/deps.env" "$out/deps.env" 2>/dev/null || true
python=$(sed -n 's/^PYTHON=//p' "$out/deps.env" 2>/dev/null)
[ -n "$python" ] || python=python3

# build DIR [VAR=VALUE...] GOALS... -- the Makefile's C build for this target.
build_c() {
  dir=$1
  shift
  mkdir -p "$dir"
  cp "$out/deps.env" "$dir/deps.env" 2>/dev/null || true
  if [ "$mode" = qemu ]; then
    PKG_CONFIG_LIBDIR="$multiarch/pkgconfig:/usr/share/pkgconfig" \
      "$make" --no-print-directory BUILD="$dir" CC="$cc" AR="$ar" "$@"
  else
    "$make" --no-print-directory BUILD="$dir" "$@"
  fi
}

bp=""
[ "$(uname -s)" != Linux ] || bp="-mbranch-protection=standard"
if [ "$mode" = native ]; then
  # The main build already runs natively in test-c and test-bats: here the
  # one with branch protection (Linux), so that test-aarch64 adds something.
  build_flags=${AARCH64_NATIVE_CFLAGS-$bp}
else
  build_flags=""
fi
jobs=${AARCH64_JOBS:-2}
echo "  building: make -j$jobs BUILD=$out${build_flags:+ CFLAGS=$build_flags} c"
if ! build_c "$out" -j"$jobs" ${build_flags:+CFLAGS="$build_flags"} c > "$out/build.log" 2>&1; then
  tail -30 "$out/build.log" | indent
  echo "  the aarch64 build failed (log: $out/build.log)"
  add_counts 0 1 0
  finish
fi

phase build
# Unit tests.
for t in "$out"/bin/test_*; do
  [ -x "$t" ] && run_ctest "$t"
done
# 64 KiB pages, as on some aarch64 kernels (qemu's -p; a qemu without it says
# so and counts one skipped check); 16 KiB, as on Apple silicon, below.
pages=""
if [ "$mode" = qemu ]; then
  if "$qemu" -h 2>/dev/null | grep -q '^-p '; then
    pages=16384
    run_ctest "$out/bin/test_coro" -p 65536
  else
    echo "  test_coro at 16 and 64 KiB pages: skipped, $qemu has no -p"
    add_counts 0 0 1
  fi
fi
# The coroutine tests of the switch's other builds, in the emulated run (the
# native run is built with branch protection).
#   bti  With branch protection: the switch signs the return addresses it
#        keeps on coroutine stacks (qemu authenticates them for real, so one
#        signed with the wrong modifier crashes), and every function reached
#        by an indirect branch (blr, a PLT's br) must begin with `bti c`.
#        The linker turns BTI on only when every object says it has the pads,
#        and Debian's start-up objects (Scrt1.o's _start, crti.o's _init) do
#        not, so BTI is forced: test_coro, the runtime and the switch in a
#        shared object linked -z force-bti without those objects
#        (-nostartfiles), loaded by a stub built without BTI.  qemu then
#        enforces BTI on the object's pages: a missing pad is SIGILL.  Run at
#        16 KiB pages.
#   br   The `br` form of the switch (AB_CORO_AARCH64_BR, see the switch).
if [ "$mode" = qemu ]; then
  for build in ${bp:+bti} br; do
    dir="$out/switch-$build"
    mkdir -p "$dir"
    case $build in
      bti) flags="$bp -fPIC -shared -nostartfiles -Dmain=ab_test_main"
           bin=$dir/libtest_coro.so link="-Wl,-z,force-bti" ;;
      br) flags=-DAB_CORO_AARCH64_BR bin=$dir/test_coro link="" ;;
    esac
    # shellcheck disable=SC2086  # $flags and $link are lists of options
    if "$cc" -std=c11 -Wall -Wextra -Werror -D_DEFAULT_SOURCE -D_GNU_SOURCE $flags \
         -fstack-clash-protection --param stack-clash-protection-guard-size=12 \
         -Ic/lib -O2 -g -o "$bin" c/tests/test_coro.c c/lib/coro.c c/lib/stack.c \
         c/lib/coro_switch_aarch64.S -lcmocka -lm $link > "$dir/build.log" 2>&1 &&
       { [ "$build" != bti ] ||
         printf 'int ab_test_main(void);\nint main(void) { return ab_test_main(); }\n' |
           "$cc" -x c - -x none "$bin" -o "$dir/test_coro" >> "$dir/build.log" 2>&1; }; then
      if [ "$build" = bti ]; then
        run_ctest "$dir/test_coro" "$bp, -z force-bti" ${pages:+-p "$pages"}
      else
        run_ctest "$dir/test_coro" "$flags"
      fi
    else
      tail -20 "$dir/build.log" | indent
      echo "  test_coro ($build): build failed (log: $dir/build.log)"
      add_counts 0 1 0
    fi
  done
fi
phase "unit tests"

# The bats tables.  Under qemu the helpers see wrappers in place of the
# programs (the bats helpers take BIN from BUILD: BUILD/bin).
if [ "$mode" = qemu ]; then
  run_build="$out/run"
  rm -rf "$run_build"
  mkdir -p "$run_build/bin"
  cp "$out/deps.env" "$run_build/deps.env" 2>/dev/null || true
  for p in "$out"/bin/c-*; do
    [ -x "$p" ] || continue
    w="$run_build/bin/$(basename "$p")"
    # Quoted for sh by printf %s inside single quotes: the build path is ours.
    # shellcheck disable=SC2016  # "$0" and "$@" are the wrapper's own
    printf '#!/bin/sh\nexec %s -L / -0 "$0" '"'"'%s'"'"' "$@"\n' "$qemu" "$p" > "$w"
    chmod +x "$w"
  done
else
  run_build=$out
fi
if ! have bats; then
  echo "  bats: not installed, the contract tables skipped"
  add_counts 0 0 1
  finish
fi

# run_bats ONE_PER_PROGRAM COVER FILE [bats args...] -- one bats file over the
# C programs of this build (ONE_PER_PROGRAM 1: one variant a program; COVER:
# TEST_VARIANT_COVER, the keys of the variants kept, or 0 for all).
run_bats() {
  one=$1 cover=$2 f=$3
  shift 3
  log="$out/$(basename "$f" .bats).tap"
  BUILD="$run_build" TEST_LANGS=c TEST_ONE_PER_PROGRAM=$one TEST_VARIANT_COVER=$cover \
    PYTHON="$python" VARIANT_TIMEOUT=120 bats --tap "$@" "$f" > "$log" 2>&1
  rc=$?
  p=$(grep -cE '^ok [0-9]+ ' "$log")
  s=$(grep -cE '^ok [0-9]+ .*# [Ss][Kk][Ii][Pp]' "$log")
  f_=$(grep -cE '^not ok [0-9]+ ' "$log")
  p=$((p - s))
  if [ "$rc" -ne 0 ] && [ "$f_" -eq 0 ]; then f_=1; fi
  if [ "$((p + f_ + s))" -eq 0 ]; then
    echo "  $(basename "$f"): no test ran"
    f_=1
  fi
  # Every line but the TAP plan, indented (failures show their reasons).
  grep -v '^1\.\.' "$log" | indent
  add_counts "$p" "$f_" "$s"
}

# contract.bats: the generic checks that run programs (the others read only
# the catalog, or need Go and Node programs this build has not), over the
# variants that cover the code (see the header).
run_bats 0 program,style,backend,style+mode tests/contract.bats --filter '^(every variant prints|every variant name and backend verifies|bounded variants)'
phase "contract tables"

finish
