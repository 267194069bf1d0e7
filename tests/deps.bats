#!/usr/bin/env bats
# scripts/deps.sh's pieces that change a machine, run on copies: Ubuntu's apt
# sources prepared for the arm64 multiarch libraries of make test-aarch64; and
# which Python it finds, among fake ones (macOS with Homebrew's versioned
# python3.X).

load test_helper

PORTS=http://ports.invalid/ubuntu-ports/

# apt_dir -- a fake /etc/apt with a one-line sources.list (plain, with
# options, already pinned, a comment) and a deb822 file (two stanzas, one
# already pinned), as Ubuntu 22.04 and 24.04 ship them.
apt_dir() {
  APT="${BATS_TEST_TMPDIR}/apt"
  mkdir -p "$APT/sources.list.d"
  cat > "$APT/sources.list" <<'LIST'
deb http://archive.invalid/ubuntu noble main restricted
deb-src http://archive.invalid/ubuntu noble main
deb [signed-by=/usr/share/keyrings/k.gpg] http://other.invalid/ noble main
deb [arch=amd64,arm64] http://both.invalid/ stable main
# deb http://commented.invalid/ noble main
LIST
  cat > "$APT/sources.list.d/ubuntu.sources" <<'SOURCES'
Types: deb
URIs: http://archive.invalid/ubuntu/
Suites: noble noble-updates
Components: main universe
Signed-By: /usr/share/keyrings/ubuntu-archive-keyring.gpg

Types: deb
Architectures: amd64
URIs: http://security.invalid/ubuntu/
Suites: noble-security
Components: main
SOURCES
}

@test "Ubuntu's sources are limited to the native architecture and the ports archive is added for arm64" {
  apt_dir
  run -0 sh "$ROOT/scripts/apt-arm64-sources.sh" "$APT" amd64 "$PORTS" noble
  run cat "$APT/sources.list"
  assert_line --index 0 "deb [arch=amd64] http://archive.invalid/ubuntu noble main restricted"
  assert_line --index 1 "deb-src [arch=amd64] http://archive.invalid/ubuntu noble main"
  assert_line --index 2 "deb [arch=amd64 signed-by=/usr/share/keyrings/k.gpg] http://other.invalid/ noble main"
  assert_line --index 3 "deb [arch=amd64,arm64] http://both.invalid/ stable main"
  assert_line --index 4 "# deb http://commented.invalid/ noble main"
  run grep -c '^Architectures: amd64$' "$APT/sources.list.d/ubuntu.sources"
  assert_output 2
  run sed -n 2p "$APT/sources.list.d/ubuntu.sources"
  assert_output "Architectures: amd64"
  run cat "$APT/sources.list.d/arm64-ports.list"
  assert_output "deb [arch=arm64] $PORTS noble main universe
deb [arch=arm64] $PORTS noble-updates main universe
deb [arch=arm64] $PORTS noble-security main universe"
}

@test "preparing the sources twice changes nothing the second time" {
  apt_dir
  sh "$ROOT/scripts/apt-arm64-sources.sh" "$APT" amd64 "$PORTS" noble
  cp -R "$APT" "${BATS_TEST_TMPDIR}/once"
  run -0 sh "$ROOT/scripts/apt-arm64-sources.sh" "$APT" amd64 "$PORTS" noble
  run diff -r "${BATS_TEST_TMPDIR}/once" "$APT"
  assert_success
  assert_output ""
}

# fake_pythons DIR NAME:OK... -- in DIR, a python NAME that imports matplotlib
# (OK=1) or cannot (OK=0).
fake_pythons() {
  local dir=$1 spec
  shift
  mkdir -p "$dir"
  for spec in "$@"; do
    printf '#!/bin/sh\nexit %d\n' "$((1 - ${spec#*:}))" > "$dir/${spec%%:*}"
    chmod +x "$dir/${spec%%:*}"
  done
}

# find_python_with PATH DIRS -- scripts/deps.sh's find_python with that PATH
# and PYTHON_DIRS, no PYTHON.
find_python_with() {
  run env -u PYTHON PATH="$1" PYTHON_DIRS="$2" DEPS_SH_FUNCTIONS=1 \
    /bin/sh -c '. "$0"; find_python' "$ROOT/scripts/deps.sh"
}

@test "find_python takes a versioned python3.X that imports matplotlib when python3 cannot" {
  local d="$BATS_TEST_TMPDIR"
  fake_pythons "$d/path" python3:0 python3.14:0 python3.12:1 python3.11:1
  find_python_with "$d/path" "$d/none"
  assert_success
  assert_output "$d/path/python3.12"
}

@test "find_python looks in Homebrew's bin folder when it is not on PATH" {
  local d="$BATS_TEST_TMPDIR"
  fake_pythons "$d/path" python3:0
  fake_pythons "$d/brew" python3:0 python3.13:1
  find_python_with "$d/path" "$d/none $d/brew"
  assert_success
  assert_output "$d/brew/python3.13"
}

@test "find_python fails when no python imports matplotlib" {
  local d="$BATS_TEST_TMPDIR"
  fake_pythons "$d/path" python3:0 python3.12:0 python:0
  find_python_with "$d/path" "$d/none"
  assert_failure
  assert_output ""
}

# as_user_with STUB... -- a bin folder of stubs ahead of PATH that makes
# deps.sh see a non-root user without sudo rights on a Debian host (id -u
# 1000, sudo -n refused, apt-get failing as it does for a user), and a build
# folder that has deps.env's tools (actionlint, benchstat) already.  Each
# STUB is NAME=SCRIPT, a stub of its own.
as_user_with() {
  STUBS="${BATS_TEST_TMPDIR}/stubs"
  mkdir -p "$STUBS" "${BATS_TEST_TMPDIR}/build"
  printf '#!/bin/sh\n[ "$1" = -u ] && { echo 1000; exit 0; }\nexec /usr/bin/id "$@"\n' > "$STUBS/id"
  printf '#!/bin/sh\necho "sudo: a password is required" >&2\nexit 1\n' > "$STUBS/sudo"
  printf '#!/bin/sh\necho "E: Could not open lock file - open (13: Permission denied)" >&2\nexit 100\n' > "$STUBS/apt-get"
  local s
  for s in "$@"; do printf '#!/bin/sh\n%s\n' "${s#*=}" > "$STUBS/${s%%=*}"; done
  chmod +x "$STUBS"/*
  [ ! -d "${BUILD_DIR}/tools" ] || ln -s "${BUILD_DIR}/tools" "${BATS_TEST_TMPDIR}/build/tools"
}

@test "as a user without sudo, a missing optional tool (moreutils' parallel first on PATH) is one line and deps goes on" {
  [ -f /etc/debian_version ] || skip "the optional tools are installed on Debian"
  [ -z "$(DEPS_SH_FUNCTIONS=1 sh -c '. "$1"; missing' sh "$ROOT/scripts/deps.sh")" ] \
    || skip "a required tool is missing here"
  as_user_with 'parallel=echo "parallel: moreutils, not GNU parallel" >&2; exit 255'
  run env PATH="$STUBS:$PATH" sh "$ROOT/scripts/deps.sh" "${BATS_TEST_TMPDIR}/build"
  assert_success
  refute_output --partial "apt-get update failed"
  assert_line --regexp "^deps: optional, not installed: .*parallel.* \(not root, and sudo asks for a password: run \`sudo apt-get install .*parallel.*\` to have them\); their tests are skipped$"
  assert_line --regexp "^deps: ok: "
  [ -f "${BATS_TEST_TMPDIR}/build/deps.env" ]
}

@test "an unwritable TMPDIR is named in one line and deps probes in a folder of its own" {
  [ -f /etc/debian_version ] || skip "the optional tools are installed on Debian"
  command -v clang >/dev/null || skip "no clang: nothing probes in TMPDIR"
  [ -z "$(DEPS_SH_FUNCTIONS=1 sh -c '. "$1"; missing; optional_missing_debian' sh "$ROOT/scripts/deps.sh")" ] \
    || skip "a tool is missing here"
  as_user_with
  # root writes anywhere: a TMPDIR that is a file is unwritable for everyone.
  touch "${BATS_TEST_TMPDIR}/notadir"
  for t in "${BATS_TEST_TMPDIR}/notadir" "${BATS_TEST_TMPDIR}/missing/tmp"; do
    run env PATH="$STUBS:$PATH" TMPDIR="$t" sh "$ROOT/scripts/deps.sh" "${BATS_TEST_TMPDIR}/build"
    assert_success
    assert_line "deps: TMPDIR=$t is not a writable folder; the probes use ${BATS_TEST_TMPDIR}/build/tmp (set TMPDIR to one for the build and the tests)"
    refute_output --partial "apt-get"
    refute_output --partial "libfuzzer"
    assert_line --regexp "^deps: ok: "
  done
}

@test "as a user whose sudo cannot ask for a password, a missing required tool is one line naming the command to run" {
  [ -f /etc/debian_version ] || skip "deps installs with apt-get on Debian"
  as_user_with 'pkg-config=case "$*" in *cmocka*) exit 1;; esac; exec /usr/bin/pkg-config "$@"'
  [ -x /usr/bin/pkg-config ] || skip "no /usr/bin/pkg-config to wrap"
  run env PATH="$STUBS:$PATH" sh "$ROOT/scripts/deps.sh" "${BATS_TEST_TMPDIR}/build" </dev/null
  assert_failure 1
  assert_output "deps: missing: cmocka; not root, and sudo needs a password this shell cannot type: run \`sudo apt-get install libcmocka-dev\`, then make deps again"
}
