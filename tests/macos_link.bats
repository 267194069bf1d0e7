#!/usr/bin/env bats
# make test-macos-link (scripts/macos-link.sh) fails, and names what is
# wrong, on what would break the build on a Mac: a Linux-only call in a
# shared C file, whether its header declares it or the file does (Apple's
# linker resolves every symbol of an object it loads, where zig's first
# strips the functions no program calls), an assembly symbol named for ELF,
# and the switch without its landing pads.  Each test breaks a scratch copy of the
# sources and runs the check on it for aarch64-macos with the toolchain
# make deps fetched (skips without it).

load test_helper

DEPS="${BUILD_DIR}/macos/deps"

# copy -- the sources into COPY, with the build of make test-macos-link;
# skips without the toolchain.
copy() {
  [ "$(uname -s)" = Linux ] || skip "make test-macos-link cross-links on Linux only"
  if [ ! -f "$DEPS/pins" ] || [ -f "$DEPS/unavailable" ]; then
    skip "zig and the pinned sources are not in $DEPS (make deps fetches them)"
  fi
  COPY="$BATS_TEST_TMPDIR/copy"
  mkdir -p "$COPY/runner/measure" "$COPY/build/macos"
  # -p: the copy's sources keep their times, so that the objects copied
  # below are up to date and only what a test changes is built again.
  cp -Rp "$ROOT/Makefile" "$ROOT/c" "$ROOT/scripts" "$COPY/"
  cp -p "$ROOT/runner/measure/launch.c" "$ROOT/runner/measure/empty.c" "$COPY/runner/measure/"
  cp "$BUILD_DIR/deps.env" "$COPY/build/"
  [ ! -d "$BUILD_DIR/macos/aarch64" ] || cp -Rp "$BUILD_DIR/macos/aarch64" "$COPY/build/macos/"
}

# check -- the suite on the copy, for aarch64-macos.
check() {
  cd "$COPY"
  MACOS_DEPS="$DEPS" MACOS_ARCHS=aarch64 run sh scripts/macos-link.sh build make
}

@test "without its toolchain the suite skips with one line saying why" {
  [ "$(uname -s)" = Linux ] || skip "make test-macos-link cross-links on Linux only"
  mkdir -p "$BATS_TEST_TMPDIR/deps"
  echo "no apt-get: libuv and cmocka come from Debian's source packages" > "$BATS_TEST_TMPDIR/deps/unavailable"
  MACOS_DEPS="$BATS_TEST_TMPDIR/deps" run sh "$ROOT/scripts/macos-link.sh" "$BATS_TEST_TMPDIR/build"
  assert_success
  assert_output "macos-link: skipped: no apt-get: libuv and cmocka come from Debian's source packages
macos-link: 0 passed, 0 failed, 1 skipped"
  rm "$BATS_TEST_TMPDIR/deps/unavailable"
  MACOS_DEPS="$BATS_TEST_TMPDIR/deps" run sh "$ROOT/scripts/macos-link.sh" "$BATS_TEST_TMPDIR/build"
  assert_success
  assert_line "macos-link: skipped: zig and the pinned libuv, cmocka and llhttp are not in $BATS_TEST_TMPDIR/deps: run make deps"
}

@test "the unchanged copy links for aarch64-macos" {
  copy
  check
  assert_success
  assert_line --regexp '^aarch64-macos: [0-9]+ programs$'
  refute_line --partial FAILED
}

@test "a shared file calling accept4, which macOS lacks, fails the suite and is named" {
  copy
  printf '\n#include <sys/socket.h>\nint ab__accept_linux(int fd) { return accept4(fd, 0, 0, SOCK_CLOEXEC); }\n' \
    >> "$COPY/c/lib/counters.c"
  check
  assert_failure
  assert_line --regexp "^FAILED: aarch64-macos: c/lib/counters.c does not compile: .*accept4"
}

@test "a shared file declaring epoll_create1 itself, in a function no program calls, fails the suite and is named" {
  copy
  printf '\nint epoll_create1(int flags);\nint ab__epoll_linux(void) { return epoll_create1(0); }\n' \
    >> "$COPY/c/readfile/backends.c"
  check
  assert_failure
  assert_line "FAILED: aarch64-macos: c/readfile/backends.c calls _epoll_create1, which macOS's libSystem does not define"
}

@test "the switch with its symbols named for ELF (no leading underscore) fails the suite" {
  copy
  # asm.h's Mach-O macro, written as for ELF.
  sed -i.orig 's/_\\name/\\name/g' "$COPY/c/lib/asm.h"
  run ! cmp -s "$COPY/c/lib/asm.h" "$COPY/c/lib/asm.h.orig"
  check
  assert_failure
  assert_line "FAILED: aarch64-macos c/lib/coro_switch_aarch64.S defines [ab__coro_boot ab__coro_switch]; the C code of c/lib calls [_ab__coro_boot _ab__coro_switch] (Mach-O names a C symbol with a leading underscore)"
}

@test "the switch without its BTI landing pads fails the suite" {
  copy
  # A LANDING_PAD that is never a pad.
  sed -i.orig 's/^#define LANDING_PAD hint #34.*/#define LANDING_PAD/' "$COPY/c/lib/coro_switch_aarch64.S"
  run ! cmp -s "$COPY/c/lib/coro_switch_aarch64.S" "$COPY/c/lib/coro_switch_aarch64.S.orig"
  check
  assert_failure
  assert_line --regexp '^FAILED: aarch64-macos c/lib/coro_switch_aarch64.S with -mbranch-protection=standard: 0 bti c'
}
