#!/usr/bin/env bats
# The Makefile on a hostile machine: a clone whose path holds a space, run
# folders with a space, and `make` after `make clean` (deps.env gone).
# Each test builds in a folder of its own; the suite's build/ is never touched.

load test_helper

# clone_at DIR -- a clone of the project's committed HEAD in DIR (no build/:
# as after make clean).
clone_at() {
  git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1 || skip "not a git checkout"
  git clone -q "$ROOT" "$1"
}

# One clone serves both: a path with a space, and make after make clean (the
# build is the costly part, so it is made once).
@test "a clone in a folder with a space builds after make clean, running deps once, compiles nothing the second time and everything again with other flags, then runs a C test and its Go tests and draws a run folder with a space" {
  local clone="${BATS_TEST_TMPDIR}/a b/asyncstyles"
  clone_at "$clone"
  # The clone's `make deps` takes make test-macos-link's zig and libraries
  # from this build (scripts/macos-link.sh), instead of 400 MB of its own.
  if [ -f "${BUILD_DIR}/macos/deps/pins" ]; then export MACOS_DEPS="${BUILD_DIR}/macos/deps"; fi
  run make --no-print-directory -C "$clone" clean
  assert_success
  [ ! -e "$clone/build" ]
  # Two jobs: the machine's two cores (what make -j2 all does for a user).
  run make --no-print-directory -j2 -C "$clone" all
  assert_success
  [ -f "$clone/build/deps.env" ]
  [ -x "$clone/build/bin/c-readfile" ]
  [ -x "$clone/build/bin/go-readfile" ]
  [ -x "$clone/build/bin/launch" ]
  [ "$(grep -c '^deps: ok' <<<"$output")" -eq 1 ]
  # A second build compiles nothing: the unit tests' and micro-benchmarks'
  # objects (pattern rules' alone) were once deleted as intermediate files,
  # and their .d files then had all 40 compiled again.
  run make --no-print-directory -C "$clone" -n all
  assert_success
  refute_output --regexp ' -c "[^"]*\.(c|S)"'
  # One C test binary is enough for the path: test-c runs them all anyway.
  run make --no-print-directory -C "$clone" test-c C_TESTS=build/bin/test_noop
  assert_success
  assert_line --regexp '^cmocka: [1-9][0-9]* passed, 0 failed, [0-9]+ skipped$'
  run make --no-print-directory -C "$clone" test-go
  assert_success
  refute_output --partial -- '--- FAIL'

  # A run of the clone's fake catalog into a folder with a space, its charts
  # drawn by make plots (charts.bats draws the committed reference runs').
  local out="${BATS_TEST_TMPDIR}/a b/results" run_dir
  run env PYTHONPATH="$clone" "$PYTHON" -m runner --catalog "$clone/tests/fixtures-bin/catalog" --profile quick \
    --rounds 2 --warmup-rounds 0 --iterations 5 --node none --no-charts --host h --out "$out"
  assert_success
  run_dir=$(cd "$out/latest" && pwd -P)
  run make --no-print-directory -C "$clone" plots RUN="$run_dir"
  assert_success
  [ -f "$run_dir/REPORT.md" ]
  [ -s "$run_dir/charts/time-readfile.png" ]
  grep -q '](charts/time-readfile.png)' "$run_dir/REPORT.md"

  # Other flags or another compiler compile everything again (the objects of
  # the old flags were linked as they were), and the same flags nothing.
  run make --no-print-directory -C "$clone" -n all OPT=-O0
  assert_success
  assert_output --regexp ' -O0 [^|]* -c "c/lib/promise\.c"'
  run make --no-print-directory -C "$clone" -n all CC=no-such-cc
  assert_output --regexp 'no-such-cc [^|]* -c "c/lib/promise\.c"'

  # Again from clean, deps asked for on the same line as a target: still once.
  rm -rf "$clone/build"
  run make --no-print-directory -C "$clone" deps go
  assert_success
  [ -x "$clone/build/bin/go-readfile" ]
  [ "$(grep -c '^deps: ok' <<<"$output")" -eq 1 ]
}

@test "make plots without RUN says which run to give and exits 2" {
  run make --no-print-directory -C "$ROOT" plots RUN=
  assert_failure 2
  assert_output --partial "make plots: say which run"
}

@test "make compare with a PROFILE the catalog lacks refuses before it builds anything" {
  local b="${BATS_TEST_TMPDIR}/build"
  [ -f "${BUILD_DIR}/deps.env" ] || skip "no deps.env (make deps first)"
  mkdir -p "$b"
  cp "${BUILD_DIR}/deps.env" "$b/deps.env"
  [ ! -d "${BUILD_DIR}/tools" ] || ln -s "${BUILD_DIR}/tools" "$b/tools"
  run make --no-print-directory -C "$ROOT" compare PROFILE=nosuch BUILD="$b"
  assert_failure
  assert_line "run.py: unknown profile 'nosuch'; the catalog has default, full, quick, runtimes, scaling, seed, selftest"
  [ ! -e "$b/bin" ]
  [ ! -e "$b/c" ]
  run make --no-print-directory -C "$ROOT" quick ARGS="--rounds 0" BUILD="$b"
  assert_failure
  assert_line "run.py: --rounds must be between 1 and 10000, got 0"
  [ ! -e "$b/bin" ]
}

@test "a deps.env without PYTHON= (emptied by a full disk) is made again before a recipe runs an empty Python" {
  local b="${BATS_TEST_TMPDIR}/build"
  mkdir -p "$b"
  : > "$b/deps.env"
  [ ! -d "${BUILD_DIR}/tools" ] || ln -s "${BUILD_DIR}/tools" "$b/tools"
  run make --no-print-directory -C "$ROOT" tune BUILD="$b"
  assert_success
  refute_output --partial "Permission denied"
  assert_line --regexp "^deps: ok: "
  grep -q '^PYTHON=.' "$b/deps.env"
  # and once whole, deps is not run again
  run make --no-print-directory -C "$ROOT" tune BUILD="$b"
  assert_success
  refute_line --regexp "^deps: "
}
