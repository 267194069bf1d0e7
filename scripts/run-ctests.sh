#!/bin/sh
# run-ctests.sh TEST... -- runs each cmocka test binary, then prints one total line.
# Every binary runs even if an earlier one fails; the exit code is non-zero if any failed.
# Each test counts once (cmocka-counts.awk).
passed=0
failed=0
skipped=0
for t in "$@"; do
  out=$("$t" 2>&1)
  rc=$?
  printf '%s\n' "$out" | grep -E '^\[  (PASSED|FAILED)|^\[  FAILED|^\[ *ERROR' | sed "s|^|$(basename "$t"): |"
  # shellcheck disable=SC2046  # four numbers
  set -- $(printf '%s\n' "$out" | awk -f "$(dirname "$0")/cmocka-counts.awk")
  n_ok=$1 n_bad=$2
  passed=$((passed + n_ok))
  failed=$((failed + n_bad))
  skipped=$((skipped + $3))
  if [ "$rc" -ne 0 ] && [ "$n_bad" -eq 0 ]; then
    printf '%s\n' "$out" | tail -20
    echo "$(basename "$t"): exited $rc"
    failed=$((failed + 1))
  fi
done
echo "cmocka: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
