#!/bin/sh
# macos-link.sh BUILD_DIR [MAKE] -- every C program make builds (the
# workloads, the micro-benchmarks, the launcher, the empty program and the
# cmocka tests), cross-compiled and linked for macOS on Apple silicon
# (aarch64-macos) and on Intel (x86_64-macos) with zig cc, on a Linux host.
#
# The Makefile itself chooses the sources, told it is on macOS (UNAME_S=Darwin):
# *_linux files left out, *_darwin files in, macOS's feature macros, the
# archives as on a Mac.  The programs are built into BUILD_DIR/macos/<arch>/
# against libuv, cmocka and llhttp built for macOS from pinned sources.  Each
# program must then be a Mach-O executable of its architecture (its header)
# whose every undefined symbol is bound to libSystem, the one library it
# loads (llvm-nm -m, llvm-objdump --dylibs-used).  A Linux-only call in a
# shared file (accept4, pipe2, epoll_create1 outside a *_linux file) fails
# here, and the file is named: its compile error, or the object of its
# undefined symbol.
#
# The AArch64 switch (c/lib/coro_switch_aarch64.S) is also assembled for
# arm64 Mach-O with -mbranch-protection=standard: it must define exactly the
# symbols the C objects of c/lib leave undefined for it, with Mach-O's
# leading underscore (a name written for ELF would not be found), and begin
# each of its two functions with a BTI landing pad, signing and
# authenticating its return address once.
#
# It cannot run them: that needs a Mac (the CI matrix, docs/hosts.md).
#
# macos-link.sh --deps BUILD_DIR -- what it needs, fetched and checked once
# into BUILD_DIR/macos/deps (make deps runs it after scripts/deps.sh; a
# second run fetches nothing):
#   zig         PyPI's ziglang (its macOS headers and libSystem stubs), by pip,
#               the wheel's sha256 pinned below
#   libuv       Debian's libuv1 source package, cmocka Debian's cmocka, by
#               apt-get source (deb-src read from the host's own apt sources,
#               in a private apt folder), each upstream tarball's sha256 pinned
#   llhttp      PyPI's llhttp source distribution (llhttp's C sources), by pip,
#               its sha256 pinned
# then libuv and cmocka are built for each architecture.  Where one cannot be
# had, the reason is kept in BUILD_DIR/macos/deps/unavailable and the check
# skips with that one line.
#
# Variables: MACOS_DEPS (another deps folder, such as the clone's own when
# the sources are a scratch copy), MACOS_ARCHS (default "aarch64 x86_64").
# Ends with 'macos-link: N passed, N failed, N skipped' for scripts/run-tests.sh.
set -u

ZIG_VERSION=0.17.0
# The manylinux wheels for x86_64 and aarch64 hosts.
ZIG_SHA256="97079827064a7492cce5541ceb438ae8003ce1e54e399676da2d62fb7a5dc08b d2804f94f54f7fcf8169f4b212a619ad688a4e2e6592e976f0cf2e58e2cd8af3"
LIBUV_SOURCE=libuv1 LIBUV_TARBALL=libuv1_1.44.2.orig.tar.gz LIBUV_DIR=libuv1-1.44.2
LIBUV_SHA256=d79b4b06ef04be85fb890bf39d55942cc64c2e15fd14eaa32dae5dce94485484
CMOCKA_SOURCE=cmocka CMOCKA_TARBALL=cmocka_1.1.5.orig.tar.xz CMOCKA_DIR=cmocka-1.1.5
CMOCKA_SHA256=f0ccd8242d55e2fd74b16ba518359151f6f8383ff8aef4976e48393f77bba8b6
LLHTTP_VERSION=9.3.0.0 LLHTTP_DIR=llhttp-9.3.0.0
LLHTTP_SHA256=0d989363e7fb6f270b9d49956e7a3945c26778f8c70a166815264309ac6a8295
# What the pins above fetch: a change of any of them fetches again.
PINS="zig $ZIG_VERSION $ZIG_SHA256 $LIBUV_SHA256 $CMOCKA_SHA256 $LLHTTP_SHA256"

# libuv's sources for macOS, as its CMakeLists.txt lists them for APPLE.
LIBUV_SOURCES="fs-poll.c idna.c inet.c random.c strscpy.c strtok.c threadpool.c timer.c
  uv-common.c uv-data-getter-setters.c version.c unix/async.c unix/core.c unix/dl.c
  unix/fs.c unix/getaddrinfo.c unix/getnameinfo.c unix/loop-watcher.c unix/loop.c
  unix/pipe.c unix/poll.c unix/process.c unix/random-devurandom.c unix/signal.c
  unix/stream.c unix/tcp.c unix/thread.c unix/tty.c unix/udp.c unix/proctitle.c
  unix/bsd-ifaddrs.c unix/kqueue.c unix/random-getentropy.c unix/darwin-proctitle.c
  unix/darwin.c unix/fsevents.c"
LIBUV_DEFS="-D_FILE_OFFSET_BITS=64 -D_LARGEFILE_SOURCE -D_DARWIN_UNLIMITED_SELECT=1 -D_DARWIN_USE_64_BIT_INODE=1"

say() { printf 'macos-link: %s\n' "$*" >&2; }
jobs=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)

deps_mode=""
if [ "${1:-}" = --deps ]; then deps_mode=1; shift; fi
build=${1:-build}
make=${2:-make}
cd "$(dirname "$0")/.." || exit 1
mkdir -p "$build/macos"
deps=${MACOS_DEPS:-$(cd "$build/macos" && pwd)/deps}
zig="$deps/zig/ziglang/zig"
archs=${MACOS_ARCHS:-aarch64 x86_64}
# zig keeps what it builds for a target (libSystem's stubs, compiler-rt) here.
ZIG_GLOBAL_CACHE_DIR="$deps/zig-cache" ZIG_LOCAL_CACHE_DIR="$deps/zig-cache"
export ZIG_GLOBAL_CACHE_DIR ZIG_LOCAL_CACHE_DIR

sha256() { sha256sum "$1" 2>/dev/null || shasum -a 256 "$1"; }
# verify FILE SHA256... -- FILE's sha256 is one of those given.
verify() {
  got=$(sha256 "$1" | cut -d' ' -f1)
  file=$1
  shift
  for want in "$@"; do [ "$got" != "$want" ] || return 0; done
  echo "$(basename "$file") has sha256 $got, pinned: $*"
  return 1
}

# A pip that can install for us: PYTHON's, then python3's.
find_pip() {
  for py in "${PYTHON:-}" python3 /usr/bin/python3; do
    [ -n "$py" ] && "$py" -m pip --version >/dev/null 2>&1 && { echo "$py"; return 0; }
  done
  return 1
}

# apt_source PACKAGE TARBALL SHA256 DIR -- Debian's source package PACKAGE
# downloaded (with deb-src entries made from the host's own deb entries, in
# deps/apt, touching nothing of the system's apt), its upstream TARBALL
# checked and unpacked into deps/src/DIR.
apt_source() {
  a="$deps/apt"
  if [ ! -d "$a/lists" ]; then
    mkdir -p "$a/lists/partial" "$a/cache/archives/partial" "$a/sources" || return 1
    # A configuration file, not -o options: the clone's path may hold a blank.
    {
      echo 'Dir::Etc::SourceList "/dev/null";'
      echo "Dir::Etc::SourceParts \"$a/sources\";"
      echo "Dir::State::Lists \"$a/lists\";"
      echo "Dir::Cache \"$a/cache\";"
      echo 'Dir::State::status "/dev/null";'
    } > "$a/apt.conf"
    for f in /etc/apt/sources.list.d/*.sources; do
      [ ! -f "$f" ] || sed 's/^Types:.*/Types: deb-src/' "$f" > "$a/sources/$(basename "$f")"
    done
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
      [ ! -f "$f" ] || sed -n 's/^deb /deb-src /p' "$f" > "$a/sources/$(basename "$f").list"
    done
    # A source without deb-src fails here alone; apt-get source says what is missing.
    apt-get -c "$a/apt.conf" -q update >"$a/update.log" 2>&1 || true
  fi
  mkdir -p "$a/dl/$1"
  (cd "$a/dl/$1" && apt-get -c "$a/apt.conf" -q source --download-only "$1") >"$a/dl/$1.log" 2>&1
  [ -f "$a/dl/$1/$2" ] || { echo "Debian's source package $1 has no $2 (apt-get source $1: $(tail -1 "$a/dl/$1.log"))"; return 1; }
  verify "$a/dl/$1/$2" "$3" || return 1
  mkdir -p "$deps/src"
  if ! tar xf "$a/dl/$1/$2" -C "$deps/src"; then echo "$2 did not unpack"; return 1; fi
}

# fetch -- zig and the sources into deps/, unless the pins are there already.
fetch() {
  [ "$(cat "$deps/pins" 2>/dev/null)" != "$PINS" ] || return 0
  rm -rf "$deps"
  mkdir -p "$deps"
  py=$(find_pip) || { echo "no Python with pip to install zig (ziglang) with"; return 1; }
  say "fetching libuv and cmocka (apt-get source), llhttp (pip), zig $ZIG_VERSION (pip: ziglang, about 100 MB) into $deps"
  # The Debian sources first: where they are not to be had, zig is not fetched.
  command -v apt-get >/dev/null 2>&1 || { echo "no apt-get: libuv and cmocka come from Debian's source packages"; return 1; }
  apt_source "$LIBUV_SOURCE" "$LIBUV_TARBALL" "$LIBUV_SHA256" "$LIBUV_DIR" || return 1
  apt_source "$CMOCKA_SOURCE" "$CMOCKA_TARBALL" "$CMOCKA_SHA256" "$CMOCKA_DIR" || return 1
  req="$deps/requirements.txt"
  printf 'llhttp==%s --hash=sha256:%s\n' "$LLHTTP_VERSION" "$LLHTTP_SHA256" > "$req"
  "$py" -m pip download -q --disable-pip-version-check --no-deps --no-binary llhttp \
      --require-hashes -r "$req" -d "$deps/dl" >"$deps/pip-llhttp.log" 2>&1 \
    || { echo "pip could not download llhttp==$LLHTTP_VERSION with a pinned hash: $(tail -1 "$deps/pip-llhttp.log")"; return 1; }
  verify "$deps/dl/$LLHTTP_DIR.tar.gz" "$LLHTTP_SHA256" || return 1
  if ! tar xzf "$deps/dl/$LLHTTP_DIR.tar.gz" -C "$deps/src"; then echo "$LLHTTP_DIR.tar.gz did not unpack"; return 1; fi
  {
    printf 'ziglang==%s' "$ZIG_VERSION"
    for h in $ZIG_SHA256; do printf ' --hash=sha256:%s' "$h"; done
    echo
  } > "$req"
  # --require-hashes: pip refuses a wheel whose sha256 is not pinned.
  "$py" -m pip install -q --disable-pip-version-check --no-deps --only-binary :all: \
      --require-hashes -r "$req" --target "$deps/zig" >"$deps/pip-zig.log" 2>&1 \
    || { echo "pip could not install ziglang==$ZIG_VERSION with a pinned hash: $(tail -1 "$deps/pip-zig.log")"; return 1; }
  "$zig" version >/dev/null 2>&1 || { echo "zig from ziglang $ZIG_VERSION does not run on this host"; return 1; }
  rm -rf "$deps/apt/lists" "$deps/apt/cache" "$deps/dl"
  echo "$PINS" > "$deps/pins"
}

# cmocka's config.h for macOS (its CMake checks, answered as on a Mac).
cmocka_config() {
  for h in ASSERT_H DLFCN_H INTTYPES_H MEMORY_H SETJMP_H SIGNAL_H STDARG_H STDDEF_H STDINT_H \
           STDIO_H STDLIB_H STRINGS_H STRING_H SYS_STAT_H SYS_TYPES_H TIME_H UNISTD_H \
           STRUCT_TIMESPEC CALLOC EXIT FPRINTF SNPRINTF VSNPRINTF FREE LONGJMP SIGLONGJMP \
           MALLOC MEMCPY MEMSET PRINTF SETJMP SIGNAL STRCMP STRCPY STRSIGNAL CLOCK_GETTIME \
           GCC_THREAD_LOCAL_STORAGE CLOCK_REALTIME; do
    echo "#define HAVE_$h 1"
  done
  echo "#define WORDS_SIZEOF_VOID_P 8"
}

# libs ARCH -- libuv.a and libcmocka.a for ARCH-macos in deps/ARCH, once.
libs() {
  out="$deps/$1"
  [ ! -f "$out/done" ] || return 0
  rm -rf "$out" && mkdir -p "$out/uv" "$out/cmocka" || return 1
  uv="$deps/src/$LIBUV_DIR"
  # A compiler a CPU; each object named after its source.
  # shellcheck disable=SC2086,SC2016  # lists of words; the program sh -c runs
  printf '%s\n' $LIBUV_SOURCES | xargs -P "$jobs" -I{} sh -c '
    o=$(echo "$4" | tr / -); exec "$1" cc -target "$2" -O2 -w -fno-strict-aliasing $3 \
      -I"$5/include" -I"$5/src" -c "$5/src/$4" -o "$6/uv/${o%.c}.o"' \
    sh "$zig" "$1-macos" "$LIBUV_DEFS" {} "$uv" "$out" >"$out/libuv.log" 2>&1 \
    || { echo "libuv $LIBUV_DIR does not build for $1-macos: $(grep -m1 error "$out/libuv.log")"; return 1; }
  "$zig" ar rcs "$out/libuv.a" "$out"/uv/*.o || return 1
  cmocka_config > "$out/cmocka/config.h"
  "$zig" cc -target "$1-macos" -O2 -w -DHAVE_CONFIG_H -I"$out/cmocka" -I"$deps/src/$CMOCKA_DIR/include" \
      -c "$deps/src/$CMOCKA_DIR/src/cmocka.c" -o "$out/cmocka/cmocka.o" >"$out/cmocka.log" 2>&1 \
    || { echo "cmocka does not build for $1-macos: $(grep -m1 error "$out/cmocka.log")"; return 1; }
  "$zig" ar rcs "$out/libcmocka.a" "$out/cmocka/cmocka.o" || return 1
  touch "$out/done"
}

if [ -n "$deps_mode" ]; then
  if [ "$(uname -s)" != Linux ]; then exit 0; fi
  # What could not be had is not asked for again at every make deps (zig
  # alone is 100 MB) while the pins are the same.
  if [ -f "$deps/unavailable" ] && [ "$(cat "$deps/unavailable.pins" 2>/dev/null)" = "$PINS" ]; then
    say "not available ($(cat "$deps/unavailable")): make test-macos-link skips; remove $deps to try again"
    exit 0
  fi
  rm -f "$deps/unavailable"
  ok=1
  why=$(fetch) || ok=""
  if [ -n "$ok" ]; then
    for arch in $archs; do why=$(libs "$arch") || { ok=""; break; }; done
  fi
  if [ -z "$ok" ]; then
    mkdir -p "$deps"
    echo "${why:-the fetch or build failed (see $deps)}" > "$deps/unavailable"
    echo "$PINS" > "$deps/unavailable.pins"
    say "not available ($(cat "$deps/unavailable")): make test-macos-link will be skipped"
  fi
  exit 0
fi

skip() {
  echo "macos-link: skipped: $*"
  echo "macos-link: 0 passed, 0 failed, 1 skipped"
  exit 0
}
[ "$(uname -s)" = Linux ] || skip "cross-links on Linux only; on macOS make c links these programs natively"
[ ! -f "$deps/unavailable" ] || skip "$(cat "$deps/unavailable")"
[ "$(cat "$deps/pins" 2>/dev/null)" = "$PINS" ] || skip "zig and the pinned libuv, cmocka and llhttp are not in $deps: run make deps"

# find_tool NAME -- the llvm tool NAME, on PATH or with a version suffix (Debian).
find_tool() {
  for t in "$1" "$1-19" "$1-18" "$1-17" "$1-16" "$1-15" "$1-14"; do
    if command -v "$t" >/dev/null 2>&1; then command -v "$t"; return 0; fi
  done
  return 1
}
if ! nm=$(find_tool llvm-nm) || ! objdump=$(find_tool llvm-objdump); then
  skip "needs llvm-nm and llvm-objdump to read Mach-O (Debian: llvm)"
fi

passed=0 failed=0
ok() { echo "ok: $*"; passed=$((passed + 1)); }
bad() { echo "FAILED: $*"; failed=$((failed + 1)); }

# source_of OBJECT -- the source BUILD/macos/ARCH/c/W/F.o was compiled from,
# c/W/F.c or .S (else the object itself: llhttp's).
source_of() {
  rel=${1#"$out/c/"}
  for ext in c S; do
    [ ! -f "c/${rel%.o}.$ext" ] || { echo "c/${rel%.o}.$ext"; return; }
  done
  echo "$1"
}

# Mach-O header words (little-endian): magic, CPU type, subtype, file type.
MH_MAGIC_64=feedfacf MH_EXECUTE=00000002
for arch in $archs; do
  case $arch in
    aarch64) cpu=0100000c darwin=arm64 ;;
    x86_64) cpu=01000007 darwin=x86_64 ;;
    *) bad "MACOS_ARCHS: no Mach-O CPU type known for $arch"; continue ;;
  esac
  target=$arch-macos
  why=$(libs "$arch") || { bad "$target: $why"; continue; }
  out="$build/macos/$arch"
  mkdir -p "$out"
  # One word each for make (the clone's path may hold a blank, BUILD not).
  for tool in ar ranlib; do
    printf '#!/bin/sh\nexec "%s" %s "$@"\n' "$zig" "$tool" > "$out/zig-$tool"
  done
  # zig cc leaves an empty file named after its input ("-.o" for standard
  # input, which the Makefile's flag probes compile) in the folder it runs
  # in, even with -o /dev/null: such a compile runs in a folder of its own.
  cat > "$out/zig-cc" <<WRAPPER
#!/bin/sh
for a; do [ "\$a" != - ] || dir=\$(mktemp -d); done
[ -n "\${dir:-}" ] || exec "$zig" cc -target $target "\$@"
cd "\$dir" || exit 1
"$zig" cc -target $target "\$@"
rc=\$?
cd / && rm -rf "\$dir"
exit \$rc
WRAPPER
  chmod +x "$out/zig-cc" "$out/zig-ar" "$out/zig-ranlib"
  # The libraries through a link in the build folder: make splits the
  # flags on blanks, which the clone's own path may hold.
  ln -sfn "$deps" "$out/deps"
  d="$out/deps"
  set -- UNAME_S=Darwin BUILD="$out" CC="$out/zig-cc" AR="$out/zig-ar" RANLIB="$out/zig-ranlib" \
    PKG_CONFIG=false DEPS_ENV="$build/deps.env" \
    UV_CFLAGS="-I$d/src/$LIBUV_DIR/include" UV_LIBS="$d/$arch/libuv.a" \
    CMOCKA_CFLAGS="-I$d/src/$CMOCKA_DIR/include" CMOCKA_LIBS="$d/$arch/libcmocka.a" \
    LLHTTP_DIR="$d/src/$LLHTTP_DIR/lib" LLHTTP_INCLUDE="$d/src/$LLHTTP_DIR/lib"
  programs=$("$make" --no-print-directory -s "$@" c-programs) || { bad "$target: make c-programs failed"; continue; }
  log="$out/make.log"
  # -k: every file that does not build is named, not only the first.
  # shellcheck disable=SC2086  # program paths without blanks (BUILD has none)
  if ! "$make" --no-print-directory -k -j "$jobs" "$@" $programs >"$log" 2>&1; then
    # A compile error names its file (an undefined symbol, below).
    grep -E '^[^ ]+\.[chS]:[0-9]+:[0-9]+: error:' "$log" | sort -u | while IFS= read -r line; do
      echo "FAILED: $target: ${line%%:*} does not compile: ${line#*error: }"
    done
    failed=$((failed + 1))
    echo "$target: make failed (the log: $log); last lines:"
    tail -5 "$log" | sed 's/^/  /'
  fi
  # Every symbol an object of the build leaves undefined must be defined by
  # another, by libuv or cmocka, or by libSystem (the SDK's libSystem.tbd
  # that zig links against).  Apple's linker resolves every symbol of each
  # object it loads; zig's drops what it strips first, so a Linux-only call
  # in a function no program reaches links here, and would not on a Mac.
  objs=$(find "$out/c" -name '*.o' | sort)
  if [ -z "$objs" ]; then
    bad "$target: no object under $out/c to read"
  else
    # Its symbols: each _name in a list ([ _a, '_b' ]); the install names are paths.
    grep -oE "[[ ,']_[A-Za-z0-9_\$]+" "$deps/zig/ziglang/lib/libc/darwin/libSystem.tbd" | cut -c2- \
      > "$out/libSystem.symbols"
    # shellcheck disable=SC2086  # object paths without blanks
    missing=$("$nm" -A $objs "$deps/$arch/libuv.a" "$deps/$arch/libcmocka.a" 2>/dev/null | awk -v out="$out/c/" '
      FILENAME != "-" { libsystem[$1] = 1; next }
      { f = $1; sub(/:$/, "", f); t = $(NF - 1); s = $NF }
      t == "U" && index(f, out) == 1 { u[f " " s] = s; next }
      t ~ /^[TDBSCRI]$/ { d[s] = 1 }
      END { for (k in u) if (!(u[k] in d) && !(u[k] in libsystem)) print k }' "$out/libSystem.symbols" - | sort)
    if [ -z "$missing" ]; then
      ok "$target: the $(printf '%s\n' "$objs" | grep -c .) objects of the build call no symbol that neither they, libuv, cmocka nor libSystem define"
    else
      printf '%s\n' "$missing" | while read -r o sym; do
        echo "FAILED: $target: $(source_of "$o") calls $sym, which macOS's libSystem does not define"
      done
      failed=$((failed + 1))
    fi
  fi
  n=0
  for prog in $programs; do
    n=$((n + 1))
    [ -s "$prog" ] || { bad "$target $prog was not linked (make's errors above)"; continue; }
    # shellcheck disable=SC2046  # four words
    set -- $(od -An -tx4 -N16 "$prog")
    if [ "${1:-} ${2:-} ${4:-}" != "$MH_MAGIC_64 $cpu $MH_EXECUTE" ]; then
      bad "$target $prog is not a Mach-O $darwin executable (header ${1:-} ${2:-} ${3:-} ${4:-})"
      continue
    fi
    undefined=$("$nm" -m -u "$prog")
    others=$(printf '%s\n' "$undefined" | grep -v '(from libSystem)$' | grep -v '^$')
    dylibs=$("$objdump" --macho --dylibs-used "$prog" | sed 1d | awk '{ print $1 }' | paste -sd ' ' -)
    if [ -n "$others" ]; then
      bad "$target $prog: undefined symbols not from libSystem: $(printf '%s\n' "$others" | head -5 | paste -sd ';' -)"
    elif [ "$dylibs" != /usr/lib/libSystem.B.dylib ]; then
      bad "$target $prog loads $dylibs, wanted /usr/lib/libSystem.B.dylib alone"
    else
      ok "$target $prog: Mach-O $darwin executable; its $(printf '%s\n' "$undefined" | grep -c .) undefined symbols all bound to libSystem, the one library it loads"
    fi
  done
  echo "$target: $n programs"

  [ "$arch" = aarch64 ] || continue
  # The switch as the C code calls it: each symbol the C objects of c/lib
  # leave undefined and none defines, with a name of the switch's (ab__coro_),
  # must be what the switch defines on Mach-O.
  src=c/lib/coro_switch_aarch64.S
  obj="$out/asm/coro_switch_aarch64-bti.o"
  mkdir -p "$out/asm"
  if ! "$zig" cc -target "$target" -mbranch-protection=standard -Ic/lib -c "$src" -o "$obj" 2>"$obj.err"; then
    bad "$target $src with -mbranch-protection=standard does not assemble: $(head -3 "$obj.err")"
    continue
  fi
  defined=$("$nm" --defined-only "$obj" | awk '$2 == "T" { print $3 }' | sort | paste -sd ' ' -)
  cobjs=$(for f in c/lib/*.c; do echo "$out/c/lib/$(basename "${f%.c}").o"; done)
  # shellcheck disable=SC2086  # object paths without blanks
  wanted=$("$nm" $cobjs 2>/dev/null | awk '
    $1 == "U" && $2 ~ /ab__coro_/ { u[$2] = 1 }
    NF == 3 && $2 ~ /^[TtDdBbSs]$/ { d[$3] = 1 }
    END { for (s in u) if (!(s in d)) print s }' | sort | paste -sd ' ' -)
  if [ -z "$wanted" ]; then
    bad "$target: the C objects of c/lib call no ab__coro_ symbol of the switch (were they built? $out/c/lib)"
  elif [ "$defined" = "$wanted" ]; then
    ok "$target $src defines $defined, the symbols the C code calls"
  else
    bad "$target $src defines [$defined]; the C code of c/lib calls [$wanted] (Mach-O names a C symbol with a leading underscore)"
  fi
  dis=$("$objdump" -d --mattr=+bti,+pauth "$obj")
  pads=$(printf '%s\n' "$dis" | grep -cE 'bti[[:space:]]+c$')
  signs=$(printf '%s\n' "$dis" | grep -cE 'paci(a|b)sp')
  auths=$(printf '%s\n' "$dis" | grep -cE 'auti(a|b)sp')
  # Each function's first instruction is its landing pad.
  firsts=$(printf '%s\n' "$dis" | awk '/^[0-9a-f]+ <.*>:$/ { getline; print $NF }' | sort -u | paste -sd ' ' -)
  if [ "$pads" -eq 2 ] && [ "$signs" -eq 1 ] && [ "$auths" -eq 1 ] && [ "$firsts" = c ]; then
    ok "$target $src with -mbranch-protection=standard: each function begins with bti c; 1 paciasp, 1 autiasp"
  else
    bad "$target $src with -mbranch-protection=standard: $pads bti c (want 2, each function's first: got '$firsts'), $signs pac (want 1), $auths aut (want 1)"
  fi
done

echo "macos-link: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
