#!/bin/sh
# run-ctests.sh TEST... -- runs each cmocka test binary, then prints one total line.
# Every binary runs even if an earlier one fails; the exit code is non-zero if any failed.
passed=0
failed=0
for t in "$@"; do
  out=$("$t" 2>&1)
  rc=$?
  printf '%s\n' "$out" | grep -E '^\[  (PASSED|FAILED)|^\[  FAILED|^\[ *ERROR' | sed "s|^|$(basename "$t"): |"
  n_ok=$(printf '%s\n' "$out" | grep -c '^\[       OK \]')
  n_bad=$(printf '%s\n' "$out" | grep -c '^\[  FAILED  \] [^0-9]')
  passed=$((passed + n_ok))
  failed=$((failed + n_bad))
  if [ "$rc" -ne 0 ] && [ "$n_bad" -eq 0 ]; then
    printf '%s\n' "$out" | tail -20
    echo "$(basename "$t"): exited $rc"
    failed=$((failed + 1))
  fi
done
echo "cmocka: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
