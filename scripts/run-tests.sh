#!/bin/sh
# run-tests.sh MAKE TARGET... -- runs each test target with MAKE, shows its
# output, keeps it in build/test-logs/TARGET.log, and ends with one line per
# suite (with its seconds) and the grand total 'tests: N passed, N failed, N skipped'.
# Every suite runs even when an earlier one fails; the exit code says if any did.
make=$1
shift
logs=${BUILD:-build}/test-logs
mkdir -p "$logs"
total_pass=0 total_fail=0 total_skip=0 bad=0 table=""

# count LOG -- prints "PASS FAIL SKIP" read from the formats our runners print.
count() {
  awk '
    /^[a-z0-9-]+: [0-9]+ passed, [0-9]+ failed/ {   # our own summary lines (cmocka, aarch64)
      p += $2; f += $4; if ($6 != "") s += $6; next }
    /^ok [0-9]+ .*# [Ss][Kk][Ii][Pp]/ { s++; next } # bats TAP
    /^ok [0-9]+ / { p++; next }
    /^not ok [0-9]+ / { f++; next }
    /^ *--- PASS: / { p++; next }                   # go test -v
    /^ *--- FAIL: / { f++; next }
    /^ *--- SKIP: / { s++; next }
    /^Ran [0-9]+ tests? in / { ran += $2; next }    # python unittest
    /^FAILED \(/ {
      if (match($0, /failures=[0-9]+/)) uf += substr($0, RSTART + 9, RLENGTH - 9)
      if (match($0, /errors=[0-9]+/)) uf += substr($0, RSTART + 7, RLENGTH - 7) }
    /skipped=/ { match($0, /skipped=[0-9]+/); us += substr($0, RSTART + 8, RLENGTH - 8) }
    /^ *[0-9]+ passing/ { p += $1; next }           # mocha (promises-aplus-tests)
    /^ *[0-9]+ failing/ { f += $1; next }
    /^ *[0-9]+ pending/ { s += $1; next }
    END { print p + ran - uf - us, f + uf, s + us }
  ' "$1"
}

for target in "$@"; do
  log="$logs/$target.log"
  printf '\n=== %s\n' "$target"
  t0=$(date +%s)
  # The exit code of make, not of tee (POSIX sh has no pipefail).
  { "$make" --no-print-directory "$target" 2>&1; echo "exit=$?" > "$log.rc"; } | tee "$log"
  rc=$(sed -n 's/^exit=//p' "$log.rc")
  secs=$(($(date +%s) - t0))
  # shellcheck disable=SC2046  # three numbers
  set -- $(count "$log")
  p=$1 f=$2 s=$3
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi   # a crash counts as a failure
  [ "$rc" -eq 0 ] || bad=1
  total_pass=$((total_pass + p)); total_fail=$((total_fail + f)); total_skip=$((total_skip + s))
  table="$table$(printf '%-16s %5s passed %5s failed %5s skipped  (exit %s) %5ss' "$target" "$p" "$f" "$s" "$rc" "$secs")
"
done
printf '\n=== summary\n%s' "$table"
echo "tests: $total_pass passed, $total_fail failed, $total_skip skipped"
exit $bad
