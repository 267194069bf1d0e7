#!/usr/bin/env bats
# scripts/deps.sh's pieces that change a machine, run on copies: Ubuntu's apt
# sources prepared for the arm64 multiarch libraries of make test-aarch64.

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
