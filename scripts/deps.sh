#!/bin/sh
# deps.sh BUILD_DIR -- find, or install, what asyncstyles needs; record what was found.
#
# Needs: a C compiler, make, pkg-config, libuv (headers), cmocka, llhttp (Debian:
# its C sources, node-llhttp; Homebrew: the library), Go, a Python 3
# that imports matplotlib, bats with bats-support and bats-assert.  Optional: node
# (the Node rows are skipped without it), qemu-aarch64 and an aarch64 cross
# compiler (the AArch64 coroutine tests), valgrind (memcheck runs), clang with
# libFuzzer (the httpchain fuzz test).
#
# Debian/Ubuntu: apt-get.  macOS: Homebrew.  Elsewhere: prints the command to run
# and stops.  A second run finds everything and installs nothing.
#
# Writes BUILD_DIR/deps.env (PYTHON=, GO=, NODE=, BATS_LIB_PATH=) for the Makefile.
# Plain POSIX sh and BSD userland friendly (macOS has bash 3.2 and no nproc).
set -eu

build=${1:-build}
mkdir -p "$build"

say() { printf 'deps: %s\n' "$*" >&2; }
die() { printf 'deps: %s\n' "$*" >&2; exit 1; }
have() { command -v "$1" >/dev/null 2>&1; }

# A Python 3 that can import matplotlib, even if the first python3 on PATH cannot
# (pyenv shims often lack it while the system Python has the distro package).
find_python() {
  for py in "${PYTHON:-}" python3 /usr/bin/python3 /usr/local/bin/python3 \
            /opt/homebrew/bin/python3 python; do
    if [ -n "$py" ] && have "$py" && "$py" -c 'import sys, matplotlib; sys.exit(sys.version_info < (3, 8))' \
         >/dev/null 2>&1; then
      command -v "$py"
      return 0
    fi
  done
  return 1
}

find_go() {
  for g in "${GO:-}" go /usr/local/go/bin/go /usr/lib/go/bin/go /opt/homebrew/bin/go; do
    if [ -n "$g" ] && have "$g"; then command -v "$g"; return 0; fi
  done
  return 1
}

bats_lib_path() {
  for d in ${BATS_LIB_PATH:-} /usr/lib/bats /usr/local/lib/bats /usr/lib \
           /usr/local/lib /opt/homebrew/lib; do
    if [ -f "$d/bats-support/load.bash" ] && [ -f "$d/bats-assert/load.bash" ]; then
      printf '%s\n' "$d"; return 0
    fi
  done
  return 1
}

# llhttp as c/httpchain/build.mk finds it: C sources (Debian) or a library.
have_llhttp() {
  [ -f /usr/share/llhttp/llhttp.c ] || [ -f /usr/local/share/llhttp/llhttp.c ] ||
    { have pkg-config && pkg-config --exists libllhttp; }
}

# What is missing, as package-neutral names.
missing() {
  m=""
  have cc || have gcc || have clang || m="$m cc"
  have make || m="$m make"
  have pkg-config || m="$m pkg-config"
  if have pkg-config; then
    pkg-config --exists libuv || m="$m libuv"
    pkg-config --exists cmocka || m="$m cmocka"
  else
    m="$m libuv cmocka"
  fi
  have_llhttp || m="$m llhttp"
  find_go >/dev/null || m="$m go"
  find_python >/dev/null || m="$m matplotlib"
  have bats || m="$m bats"
  bats_lib_path >/dev/null || m="$m bats-libs"
  printf '%s\n' "$m"
}

# Optional tools: installed on Debian (CI runs their tests), never required.
optional_missing_debian() {
  m=""
  have node || m="$m nodejs npm"
  # Node's headers, for the Promises/A+ adapter (tests/aplus); Debian keeps them in libnode-dev.
  if ! have node || { [ ! -f /usr/include/node/node_api.h ] &&
       [ ! -f "$(dirname "$(dirname "$(command -v node)")")/include/node/node_api.h" ]; }; then
    m="$m libnode-dev"
  fi
  have valgrind || m="$m valgrind"
  have qemu-aarch64 || m="$m qemu-user"
  have aarch64-linux-gnu-gcc || m="$m gcc-aarch64-linux-gnu libc6-dev-arm64-cross"
  # libFuzzer (scripts/fuzz.sh): clang, then its runtimes (fuzzer_runtime_missing).
  have clang || m="$m clang"
  rt=$(fuzzer_runtime_missing)
  [ -z "$rt" ] || m="$m $rt"
  printf '%s\n' "$m"
}

# The fuzzer and sanitizer runtimes of the installed clang's version, when it
# cannot link a libFuzzer target (Debian's clang alone lacks them).
fuzzer_runtime_missing() {
  have clang || return 0
  if ! printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' |
       clang -fsanitize=fuzzer,address -x c - -o /dev/null >/dev/null 2>&1; then
    v=$(clang -dumpversion 2>/dev/null | cut -d. -f1)
    printf 'libfuzzer-%s-dev libclang-rt-%s-dev\n' "$v" "$v"
  fi
}

debian_pkg() {
  case $1 in
    cc) echo gcc ;; make) echo make ;; pkg-config) echo pkg-config ;;
    libuv) echo libuv1-dev ;; cmocka) echo libcmocka-dev ;; go) echo golang-go ;;
    llhttp) echo node-llhttp ;;
    matplotlib) echo python3-matplotlib ;; bats) echo bats ;;
    bats-libs) echo "bats-support bats-assert" ;;
  esac
}

brew_pkg() {
  case $1 in
    cc) echo llvm ;; make) echo make ;; pkg-config) echo pkg-config ;;
    libuv) echo libuv ;; cmocka) echo cmocka ;; go) echo go ;;
    llhttp) echo llhttp ;;
    matplotlib) echo python-matplotlib ;; bats) echo bats-core ;;
    bats-libs) echo "bats-core/bats-core/bats-support bats-core/bats-core/bats-assert" ;;
  esac
}

need=$(missing)
opt=""
if [ -f /etc/debian_version ] && have apt-get; then
  opt=$(optional_missing_debian)
fi

if [ -n "$need$opt" ]; then
  if [ -f /etc/debian_version ] && have apt-get; then
    pkgs=""
    for n in $need; do pkgs="$pkgs $(debian_pkg "$n")"; done
    pkgs="$pkgs $opt"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    say "installing:$pkgs"
    $sudo apt-get update -q >/dev/null || die "apt-get update failed; run it by hand and retry"
    # Optional packages are asked for one by one so that one unavailable package
    # does not stop the required ones.
    # shellcheck disable=SC2086
    [ -z "$need" ] || DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends \
      $(for n in $need; do debian_pkg "$n"; done) >/dev/null \
      || die "apt-get install failed for:$need"
    for p in $opt; do
      DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "$p" \
        >/dev/null 2>&1 || say "optional package $p not installed (its tests will be skipped)"
    done
    # clang's version is known once clang is installed: its fuzzer runtimes after it.
    for p in $(fuzzer_runtime_missing); do
      DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "$p" \
        >/dev/null 2>&1 || say "optional package $p not installed (its tests will be skipped)"
    done
  elif [ "$(uname -s)" = Darwin ] && have brew; then
    if [ -n "$need" ]; then
      pkgs=""
      for n in $need; do pkgs="$pkgs $(brew_pkg "$n")"; done
      say "installing:$pkgs"
      # shellcheck disable=SC2086
      brew install $pkgs || die "brew install failed for:$pkgs"
    fi
  else
    die "missing:$need -- install them with your package manager (names: C compiler, make, pkg-config, libuv development files, cmocka, llhttp (C sources or library), Go, Python 3 with matplotlib, bats-core, bats-support, bats-assert), then run 'make deps' again"
  fi
  need=$(missing)
  [ -z "$need" ] || die "still missing after install:$need -- install them by hand and run 'make deps' again"
fi

python=$(find_python)
go=$(find_go)
node=$(command -v node 2>/dev/null || true)
batslib=$(bats_lib_path)
{
  echo "PYTHON=$python"
  echo "GO=$go"
  echo "NODE=$node"
  echo "BATS_LIB_PATH=$batslib"
} > "$build/deps.env.tmp"
mv "$build/deps.env.tmp" "$build/deps.env"
say "ok: python $python, go $go, node ${node:-absent}, libuv $(pkg-config --modversion libuv)"
