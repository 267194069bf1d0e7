#!/usr/bin/env bats
# late_errors.bats -- errors said where they arise, before the work they would
# waste (issue 46): `make compare` checks that something is left to run
# before it builds, and with HOME unset deps gives Go the caches it lacks, so
# that the build (Go's programs, which make all builds for a C-only run too)
# does not fail on GOCACHE after deps said ok.

load test_helper

@test "make compare with nothing left to run (--node none, Node variants only) stops before it builds" {
  cd "$ROOT"
  run -2 make --no-print-directory compare PROFILE=quick ARGS="--filter ^noop/node/ --node none"
  assert_line --partial "run.py: nothing left to run: 5 variants need node, and --node none was given"
  refute_output --partial "go build"
  refute_output --regexp "(^|[[:space:]])(cc|gcc|clang) "
}

@test "with HOME unset deps gives Go its caches and says so, and the Go programs build" {
  command -v go >/dev/null || [ -x /usr/local/go/bin/go ] || skip "no go"
  cd "$ROOT"
  # A build folder of the test's own: the project's deps.env is rewritten by
  # other suites' deps running beside this one.  The tools (actionlint,
  # benchstat) and the macOS toolchain are the project's, so nothing is
  # built or fetched again.
  local b="$BATS_TEST_TMPDIR/build" shared="$ROOT/${BUILD:-build}"
  mkdir -p "$b"
  [ ! -d "$shared/tools" ] || ln -s "$shared/tools" "$b/tools"
  [ ! -d "$shared/macos" ] || ln -s "$shared/macos" "$b/macos"
  run -0 env -u HOME make --no-print-directory BUILD="$b" deps
  assert_line --partial "deps: HOME is unset: Go's caches are GOCACHE="
  grep -q '^GOCACHE=/' "$b/deps.env"
  grep -q '^GOPATH=/' "$b/deps.env"
  # deps again (make compare runs it each time), with deps.env's caches exported to it
  run -0 env -u HOME make --no-print-directory BUILD="$b" deps
  grep -q '^GOCACHE=/' "$b/deps.env"
  # go-% is always rebuilt (go tracks its own dependencies).  As make test's
  # suites run it too: under an outer make, whose export hands GOCACHE and
  # GOPATH down empty (the build failed there on GOCACHE while it passed alone).
  run -0 env -u HOME GOCACHE= GOPATH= make --no-print-directory BUILD="$b" "$b/bin/go-noop"
  assert_line --partial "go build -o"
  # With HOME back, deps.env holds no cache of its own again.
  run -0 make --no-print-directory BUILD="$b" deps
  run -1 grep -q '^GOCACHE=' "$b/deps.env"
}
