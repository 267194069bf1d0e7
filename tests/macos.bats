#!/usr/bin/env bats
# What breaks on macOS (bash 3.2, BSD userland, XNU), caught on Linux: the
# portability lint of scripts/lint.sh over lines of each class it knows, and
# XNU's refusal of `ulimit -v` simulated for the test that needs it.

load test_helper

LINT="$ROOT/scripts/lint.sh"

# fixture FILE -- stdin into FILE, each line beginning `TEST ` made an @test
# (bats would take an @test line here for one of this file's own).
fixture() { sed 's/^TEST /@test /' > "$1"; }

# lint_lines FILE -- the line numbers lint.sh --portable reports in FILE.
lint_lines() {
  sh "$LINT" --portable "$1" | sed -n "s|^  $1:\([0-9]*\):.*|\1|p" | paste -sd ' ' -
}

@test "the portability lint reports each macOS breakage, in any position" {
  local f="$BATS_TEST_TMPDIR/bad.bats"
  # One line a case, numbered from 1; lines 22-24 are a @test without a skip.
  fixture "$f" <<'BAD'
mapfile -t a < f
declare -A m
echo "${lines[-1]}"
echo "${#a[ -2]}"
a[-1]=x
sed -i 's/a/b/' f
grep -oP 'x' f
date -d yesterday
t=$(date +%s%N)
find . -printf '%p'
run --separate-stderr timeout 30 prog
run -1 timeout 30 prog
x=$(timeout 5 prog)
guard=(timeout "$t" prog)
/usr/bin/timeout 30 prog
gtimeout -s KILL 30 prog
n=$(nproc)
wrap="setarch x86_64 -R"
stat -c %s f
xargs -r echo
t=$(realpath -m "$link")
TEST "x" {
  (ulimit -v 1000 && prog)
}
BAD
  run sh "$LINT" --portable "$f"
  [ "$status" -eq 1 ] || fail "exit $status: $output"
  assert_line "portable: FAILED: the lines above break on macOS (bash 3.2, BSD userland, XNU)"
  assert_equal "$(lint_lines "$f")" "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 23"
}

@test "the portability lint passes the guarded and portable forms" {
  local f="$BATS_TEST_TMPDIR/good.bats"
  fixture "$f" <<'GOOD'
# run timeout 30 prog, in a comment
if command -v timeout >/dev/null; then GUARD=(timeout 30); fi
if command -v setarch >/dev/null 2>&1; then
  wrap="setarch $(uname -m) -R"
fi
grep -q "timeout 20 s, 2 rounds" REPORT.md
prog --timeout 30 --ready-timeout 5
VARIANT_TIMEOUT=60 prog
echo "${lines[${#lines[@]}-1]}"
n=$(nproc 2>/dev/null || sysctl -n hw.ncpu)
sed -i.bak 's/a/b/' f
grep -E 'a[-0-9]' f
TEST "y (ulimit -v)" {
  (ulimit -v 1000) 2>/dev/null || skip "this shell cannot set ulimit -v"
  (ulimit -v 1000 && prog)
}
f() {
  run bash -c 'ulimit -v 100 2>/dev/null || exit 99; exec prog'
  [ "$status" -ne 99 ] || skip "this shell cannot set ulimit -v"
  run bash -c 'ulimit -v 100 && exec prog'
}
GOOD
  run sh "$LINT" --portable "$f"
  [ "$status" -eq 0 ] || fail "exit $status: $output"
  assert_output --partial "portable: no bash 4 feature"
}

@test "the C threadpool test skips, not fails, where ulimit -v is refused as XNU refuses it" {
  # bash calls a function before a builtin of the same name: this one fails
  # -v as setrlimit(RLIMIT_AS) does on macOS, and is exported to the bats run.
  ulimit() {
    case " $* " in
      *" -v "*) echo "ulimit: virtual memory: cannot modify limit: Invalid argument" >&2; return 1 ;;
    esac
    builtin ulimit "$@"
  }
  export -f ulimit
  run bats --tap --filter "threadpool libuv cannot start" "$ROOT/tests/hostile_c.bats"
  [ "$status" -eq 0 ] || fail "exit $status: $output"
  assert_line --regexp "^ok 1 .* # skip this shell cannot set ulimit -v"
}

@test "guard_for takes timeout, else gtimeout (Homebrew's coreutils), else runs the program unguarded" {
  local d="$BATS_TEST_TMPDIR/path"
  mkdir -p "$d/both" "$d/g" "$d/none"
  ln -s /bin/sh "$d/both/timeout"
  ln -s /bin/sh "$d/both/gtimeout"
  ln -s /bin/sh "$d/g/gtimeout"
  PATH="$d/both" guard_for 30
  assert_equal "${GUARD[*]}" "timeout 30"
  PATH="$d/g" guard_for 30
  assert_equal "${GUARD[*]}" "gtimeout 30"
  PATH="$d/none" guard_for 30
  assert_equal "${#GUARD[@]}" 0
}
