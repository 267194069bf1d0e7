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
