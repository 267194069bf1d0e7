#!/bin/sh
# test-aarch64.sh BUILD_DIR -- cross-builds the coroutine tests for AArch64 and
# runs them under qemu-aarch64, when an aarch64 cross compiler and qemu-user are
# installed (scripts/deps.sh installs both on Debian); otherwise prints one line
# saying what is missing and counts one skipped suite.
#
# The cross build links statically against the cross libc and uses
# c/tests/cross/cmocka.h in place of cmocka (no target build of cmocka exists).
# Ends with 'aarch64: N passed, N failed[, N skipped]' for scripts/run-tests.sh.
# Environment: AARCH64_CC (default aarch64-linux-gnu-gcc), QEMU_AARCH64
# (default qemu-aarch64), AARCH64_SYSROOT (default /usr/aarch64-linux-gnu).
set -u

build=${1:-build}
cc=${AARCH64_CC:-aarch64-linux-gnu-gcc}
qemu=${QEMU_AARCH64:-qemu-aarch64}
sysroot=${AARCH64_SYSROOT:-/usr/aarch64-linux-gnu}
# The tests that exercise the assembly, and the library sources they need.
tests="test_coro"
lib="c/lib/coro.c c/lib/stack.c c/lib/coro_switch_aarch64.S c/lib/coro_switch_x86_64.S"

if ! command -v "$cc" >/dev/null 2>&1 || ! command -v "$qemu" >/dev/null 2>&1; then
  echo "test-aarch64: skipped: needs $cc and $qemu (Debian: gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user)"
  echo "aarch64: 0 passed, 0 failed, 1 skipped"
  exit 0
fi

out="$build/aarch64"
mkdir -p "$out"
passed=0
failed=0
for t in $tests; do
  # shellcheck disable=SC2086  # $lib is a list of files
  # Frames probed page by page against the 4 KiB guard, as the Makefile
  # builds them (gcc on AArch64 assumes a 64 KiB guard unless told).
  if ! "$cc" -std=c11 -Wall -Wextra -Werror -D_DEFAULT_SOURCE -D_GNU_SOURCE \
       -fstack-clash-protection --param stack-clash-protection-guard-size=12 \
       -Ic/tests/cross -Ic/lib -O2 -g -static -o "$out/$t" "c/tests/$t.c" $lib -lm; then
    echo "aarch64 $t: cross build failed"
    failed=$((failed + 1))
    continue
  fi
  log="$out/$t.log"
  "$qemu" -L "$sysroot" "$out/$t" >"$log" 2>&1
  rc=$?
  grep -E '^\[  (PASSED|FAILED)' "$log" | sed "s|^|aarch64 $t: |"
  n_ok=$(grep -c '^\[       OK \]' "$log")
  n_bad=$(grep -c '^\[  FAILED  \] [^0-9]' "$log")
  passed=$((passed + n_ok))
  failed=$((failed + n_bad))
  if [ "$rc" -ne 0 ] && [ "$n_bad" -eq 0 ] || [ "$n_ok" -eq 0 ]; then
    tail -20 "$log"
    echo "aarch64 $t: exited $rc"
    failed=$((failed + 1))
  fi
done
echo "aarch64: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
