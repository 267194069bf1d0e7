#!/bin/sh
# rust-test.sh BUILD_DIR -- cargo test over rust/ (the contract crate's and
# every workload's unit tests) with the cargo make deps found, offline and
# --locked, into BUILD_DIR/rust; without one, one skipped suite and the
# reason.  Ends with 'rust: N passed, N failed, N skipped' for
# scripts/run-tests.sh.
set -u

build=$1
cargo=$(sed -n 's/^CARGO=//p' "$build/deps.env" 2>/dev/null || true)
skip=$(sed -n 's/^RUST_SKIP=//p' "$build/deps.env" 2>/dev/null || true)
if [ -z "$cargo" ] || [ -n "$skip" ]; then
  echo "rust: skipped: ${skip:-no cargo in $build/deps.env: run make deps}"
  echo "rust: 0 passed, 0 failed, 1 skipped"
  exit 0
fi
target=$(cd "$build" && pwd)/rust
log=$(mktemp "${TMPDIR:-/tmp}/rust-test.XXXXXX")
(cd "$(dirname "$0")/../rust" && CARGO_TARGET_DIR=$target "$cargo" test --locked --offline 2>&1) | tee "$log"
# The exit code of cargo, not of tee: a failed build prints no summary.
rc=0
grep -q '^test result: FAILED' "$log" && rc=1
grep -q '^error' "$log" && rc=1
passed=$(sed -n 's/^test result: [A-Za-z]*\. \([0-9]*\) passed.*/\1/p' "$log" | awk '{ s += $1 } END { print s + 0 }')
failed=$(sed -n 's/^test result: [A-Za-z]*\. [0-9]* passed; \([0-9]*\) failed.*/\1/p' "$log" | awk '{ s += $1 } END { print s + 0 }')
[ "$rc" -eq 0 ] || [ "$failed" -gt 0 ] || failed=1
rm -f "$log"
echo "rust: $passed passed, $failed failed, 0 skipped"
[ "$rc" -eq 0 ]
