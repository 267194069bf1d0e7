#!/bin/sh
# deps.sh BUILD_DIR -- find, or install, what asyncstyles needs; record what was found.
#
# Needs: a C compiler, make, pkg-config, libuv (headers), cmocka, llhttp (Debian:
# its C sources, node-llhttp; Homebrew: the library), Go, a Python 3
# that imports matplotlib, bats with bats-support and bats-assert.  Optional: node
# (the Node rows are skipped without it), cargo with rustc 1.77 or later (the
# Rust rows: skipped without it, or when it is older, each with the reason;
# make deps fetches rust/Cargo.lock's crates, then builds run offline), qemu-aarch64, an aarch64 cross
# compiler and the arm64 multiarch libuv and cmocka (make test-aarch64: the C
# suite under qemu), valgrind (memcheck runs), clang and llvm (make test-asm:
# the switches assembled for Mach-O), shellcheck, and actionlint (built with
# Go into BUILD_DIR/tools at a pinned version) for the lint of make test, liburing
# (readfile's uring backend, Linux), strace (system calls per operation) and
# libFuzzer's runtimes for clang (the httpchain fuzz test).
#
# Debian/Ubuntu: apt-get.  macOS: Homebrew.  Elsewhere: prints the command to run
# and stops.  A second run finds everything and installs nothing.
#
# Also builds benchstat (pinned) into BUILD_DIR/tools/bin with the Go toolchain.
# Writes BUILD_DIR/deps.env (PYTHON=, GO=, NODE=, CARGO=, RUST_SKIP=, BATS_LIB_PATH=, ACTIONLINT=, BENCHSTAT=,
# and GOCACHE=, GOPATH= when Go has no cache of its own: HOME unset) for the Makefile.
# Plain POSIX sh and BSD userland friendly (macOS has bash 3.2 and no nproc).
set -eu

build=${1:-build}

say() { printf 'deps: %s\n' "$*" >&2; }
die() { printf 'deps: %s\n' "$*" >&2; exit 1; }
have() { command -v "$1" >/dev/null 2>&1; }

# A Python 3 that can import matplotlib, even if the first python3 on PATH cannot
# (pyenv shims often lack it while the system Python has the distro package;
# Homebrew's matplotlib is built for one versioned python3.X, which need not be
# the one its python3 names).  Tried in order: $PYTHON; python3, then python3.14
# down to python3.8, each on PATH and in PYTHON_DIRS (the system's and
# Homebrew's bin folders: a shell on Apple silicon may not have
# /opt/homebrew/bin on PATH); Homebrew's python@3.X kegs; python.
PYTHON_DIRS=${PYTHON_DIRS:-/usr/bin /usr/local/bin /opt/homebrew/bin}
PYTHON_VERSIONS="3.14 3.13 3.12 3.11 3.10 3.9 3.8"
python_candidates() {
  for name in python3 $(for v in $PYTHON_VERSIONS; do echo "python$v"; done); do
    printf '%s\n' "$name"
    for d in $PYTHON_DIRS; do printf '%s\n' "$d/$name"; done
  done
  for v in $PYTHON_VERSIONS; do
    printf '%s\n' "/opt/homebrew/opt/python@$v/bin/python$v" "/usr/local/opt/python@$v/bin/python$v"
  done
  echo python
}
find_python() {
  for py in "${PYTHON:-}" $(python_candidates); do
    if [ -n "$py" ] && have "$py" && "$py" -c 'import sys, matplotlib; sys.exit(sys.version_info < (3, 8))' \
         >/dev/null 2>&1; then
      command -v "$py"
      return 0
    fi
  done
  return 1
}

# The Rust toolchain: CARGO, cargo on PATH, or rustup's ~/.cargo/bin/cargo.
# find_cargo prints its path; rust_skip prints why the Rust rows cannot be
# built (nothing when they can): no cargo, a rustc older than rust/Cargo.toml's
# rust-version, or crates that cannot be fetched.
RUST_MIN=1.77
find_cargo() {
  for c in "${CARGO:-}" cargo "${HOME:-/nonexistent}/.cargo/bin/cargo"; do
    if [ -n "$c" ] && have "$c"; then command -v "$c"; return 0; fi
  done
  return 1
}
rust_skip() {
  c=$1
  [ -n "$c" ] || { echo "no cargo found: install Rust $RUST_MIN or later (rustup, or the distribution's cargo) or set CARGO, then make deps"; return; }
  # cargo's version is its Rust release's: "cargo 1.95.0 (f2d3ce0bd 2026-03-21)".
  v=$("$c" --version 2>/dev/null)
  v=$(printf '%s\n' "$v" | sed -n 's/^[a-z]* \([0-9][0-9]*\.[0-9][0-9]*\)\..*/\1/p' | head -1)
  major=${v%%.*} minor=${v#*.}
  if [ -z "$v" ] || [ "$major" -lt 1 ] || { [ "$major" -eq 1 ] && [ "$minor" -lt "${RUST_MIN#1.}" ]; }; then
    echo "$c is Rust ${v:-of an unknown version}, older than the $RUST_MIN rust/Cargo.toml needs: install a newer one or set CARGO, then make deps"
    return
  fi
  if ! (cd "$(dirname "$0")/../rust" && "$c" fetch --locked >/dev/null 2>&1); then
    echo "cargo fetch --locked in rust/ failed (offline, or no crates registry): make deps again once it can fetch"
  fi
}

find_go() {
  for g in "${GO:-}" go /usr/local/go/bin/go /usr/lib/go/bin/go /opt/homebrew/bin/go; do
    if [ -n "$g" ] && have "$g"; then command -v "$g"; return 0; fi
  done
  return 1
}

# Go keeps its build cache and modules under $HOME unless GOCACHE and GOPATH
# say otherwise; with HOME unset (a service, `env -i`), every Go build fails
# on GOCACHE, C-only runs included (make all builds every program).  Then
# go_caches gives Go the folders it would have had: under the home folder
# the password database names for this user, else under the build folder;
# it prints GOCACHE=... and GOPATH=... lines, nothing when Go has its own.
go_caches() {
  g=$1
  # The Makefile exports deps.env's GOCACHE and GOPATH to every recipe, this
  # one's too: those are the last run's answer, not the user's choice.
  if [ -f "$build/deps.env" ]; then
    [ "${GOCACHE:-}" != "$(sed -n 's/^GOCACHE=//p' "$build/deps.env")" ] || unset GOCACHE
    [ "${GOPATH:-}" != "$(sed -n 's/^GOPATH=//p' "$build/deps.env")" ] || unset GOPATH
  fi
  "$g" env GOCACHE 2>/dev/null | grep -qv -e '^off$' -e '^$' &&
    [ -n "$("$g" env GOMODCACHE 2>/dev/null)" ] && return 0
  user=$(id -un 2>/dev/null) || user=""
  home=""
  [ -n "$user" ] && home=$(eval "echo ~$user" 2>/dev/null)
  if [ -n "$home" ] && [ "$home" != "~$user" ] && [ -d "$home" ] && [ -w "$home" ]; then
    cache=$home/.cache/go-build gopath=$home/go
  else
    cache=$(cd "$build" && pwd)/go/cache gopath=$(cd "$build" && pwd)/go/path
  fi
  say "HOME is unset: Go's caches are GOCACHE=$cache and GOPATH=$gopath (deps.env; set HOME, or GOCACHE and GOPATH, to choose)"
  echo "GOCACHE=$cache"
  echo "GOPATH=$gopath"
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
  # liburing (readfile's uring backend; built without it, the backend says it is
  # unavailable) and strace (system calls per operation after a run's rounds).
  { have pkg-config && pkg-config --exists liburing; } || m="$m liburing-dev"
  have strace || m="$m strace"
  have qemu-aarch64 || m="$m qemu-user"
  have aarch64-linux-gnu-gcc || m="$m gcc-aarch64-linux-gnu libc6-dev-arm64-cross"
  have clang || m="$m clang"
  have llvm-nm || have llvm-nm-14 || have llvm-nm-15 || have llvm-nm-16 || have llvm-nm-17 \
    || have llvm-nm-18 || m="$m llvm"
  have shellcheck || m="$m shellcheck"
  # GNU parallel: make test-bats runs the bats files one a CPU with it (serially without).
  parallel --version 2>/dev/null | grep -q 'GNU parallel' || m="$m parallel"
  # libFuzzer (scripts/fuzz.sh): clang's runtimes (fuzzer_runtime_missing).
  rt=$(fuzzer_runtime_missing)
  [ -z "$rt" ] || m="$m $rt"
  printf '%s\n' "$m"
}

# The arm64 multiarch libuv and cmocka (make test-aarch64 cross-builds the C
# suite against them and runs it under qemu), on a Debian or Ubuntu host of
# another architecture.  Ubuntu serves arm64 from another archive (ports):
# its sources are first limited to the native architecture, then the ports
# archive (named in python-apt's Ubuntu.info, or UBUNTU_PORTS) is added for
# arm64.  Optional: a failure says so and test-aarch64 falls back.
ARM64_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig
install_arm64_libs() {
  native=$(dpkg --print-architecture 2>/dev/null) || return 0
  [ "$native" != arm64 ] || return 0
  have qemu-aarch64 && have aarch64-linux-gnu-gcc || return 0
  want=""
  [ -f "$ARM64_LIBDIR/libuv.pc" ] || want="$want libuv1-dev:arm64"
  [ -f "$ARM64_LIBDIR/cmocka.pc" ] || want="$want libcmocka-dev:arm64"
  # liburing for the cross build's uring backend, where the native build has it.
  [ ! -f /usr/include/liburing.h ] || [ -f "$ARM64_LIBDIR/liburing.pc" ] || want="$want liburing-dev:arm64"
  [ -n "$want" ] || return 0
  if [ -n "$sudo" ] && ! sudo -n true >/dev/null 2>&1; then
    say "optional, not installed:$want (not root, and sudo asks for a password); test-aarch64 falls back to the static tests"
    return 0
  fi
  say "installing the arm64 multiarch libraries for make test-aarch64:$want"
  if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    if grep -qs '^ID=ubuntu' /etc/os-release; then
      ubuntu_arm64_sources "$native" || { say "arm64 sources not added; test-aarch64 will run the static tests"; return 0; }
    fi
    $sudo dpkg --add-architecture arm64 || return 0
  fi
  $sudo apt-get update -q >/dev/null 2>&1 || say "apt-get update with arm64 failed"
  for p in $want; do
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "$p" \
      >/dev/null 2>&1 || say "optional package $p not installed (test-aarch64 falls back to the static tests without libuv and cmocka)"
  done
}

# ubuntu_arm64_sources NATIVE -- every existing source limited to NATIVE and the
# ports archive added for arm64 (scripts/apt-arm64-sources.sh).
ubuntu_arm64_sources() {
  ports=${UBUNTU_PORTS:-$(sed -n 's/^BaseURI: *//p' /usr/share/python-apt/templates/Ubuntu.info 2>/dev/null | head -1)}
  codename=$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release)
  if [ -z "$ports" ] || [ -z "$codename" ]; then
    say "no ports archive known (set UBUNTU_PORTS to its URL)"
    return 1
  fi
  $sudo sh "$(dirname "$0")/apt-arm64-sources.sh" /etc/apt "$1" "$ports" "$codename"
}

# actionlint (the lint of .github/workflows in make test), built with Go at a
# pinned version into BUILD_DIR/tools; a second run finds it there.
ACTIONLINT_VERSION=v1.7.12
find_actionlint() {
  a="$(cd "$build" && pwd)/tools/actionlint"
  if [ -x "$a" ] && "$a" -version 2>/dev/null | grep -qx "$ACTIONLINT_VERSION"; then
    echo "$a"; return 0
  fi
  return 1
}
install_actionlint() {
  find_actionlint >/dev/null && return 0
  g=$(find_go) || return 0
  say "building actionlint $ACTIONLINT_VERSION into $build/tools"
  mkdir -p "$build/tools"
  tools=$(cd "$build/tools" && pwd)
  GOBIN="$tools" "$g" install "github.com/rhysd/actionlint/cmd/actionlint@$ACTIONLINT_VERSION" \
    || say "actionlint not built (make test's lint will be skipped)"
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

# Sourced with DEPS_SH_FUNCTIONS=1 (tests/deps.bats): the functions above only.
[ -z "${DEPS_SH_FUNCTIONS:-}" ] || return 0

mkdir -p "$build"
# A TMPDIR that is not a writable folder fails every compiler probe below
# (clang writes its objects there), which then read as a missing tool: the
# probes use a folder of the build instead, and one line says why.
if [ -n "${TMPDIR:-}" ] && { [ ! -d "$TMPDIR" ] || [ ! -w "$TMPDIR" ]; }; then
  mkdir -p "$build/tmp"
  say "TMPDIR=$TMPDIR is not a writable folder; the probes use $build/tmp (set TMPDIR to one for the build and the tests)"
  TMPDIR=$build/tmp
  export TMPDIR
fi
need=$(missing)
opt=""
if [ -f /etc/debian_version ] && have apt-get; then
  opt=$(optional_missing_debian)
fi

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
# Optional means optional: a user who cannot install without a password (not
# root, and sudo asks for one or is missing) gets one line naming them, and
# deps goes on; a failed apt-get update with nothing required missing the same.
if [ -n "$opt" ] && [ -n "$sudo" ] && ! sudo -n true >/dev/null 2>&1; then
  say "optional, not installed:$opt (not root, and sudo asks for a password: run \`sudo apt-get install$opt\` to have them); their tests are skipped"
  opt=""
fi
if [ -n "$need$opt" ]; then
  if [ -f /etc/debian_version ] && have apt-get; then
    # Required, and sudo cannot ask for the password (no terminal): say what to run.
    if [ -n "$need" ] && [ -n "$sudo" ] && [ ! -t 0 ] && ! sudo -n true >/dev/null 2>&1; then
      die "missing:$need; not root, and sudo needs a password this shell cannot type: run \`sudo apt-get install$(for n in $need; do printf ' %s' "$(debian_pkg "$n")"; done)\`, then make deps again"
    fi
    pkgs=""
    for n in $need; do pkgs="$pkgs $(debian_pkg "$n")"; done
    pkgs="$pkgs $opt"
    say "installing:$pkgs"
    if ! $sudo apt-get update -q >/dev/null; then
      [ -z "$need" ] || die "apt-get update failed; run it by hand and retry"
      say "apt-get update failed: optional, not installed:$opt; their tests are skipped"
      opt=""
    fi
    # Optional packages are asked for one by one so that one unavailable package
    # does not stop the required ones.
    # shellcheck disable=SC2086,SC2046  # lists of package names
    [ -z "$need" ] || DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends \
      $(for n in $need; do debian_pkg "$n"; done) >/dev/null \
      || die "apt-get install failed for:$need"
    for p in $opt; do
      DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "$p" \
        >/dev/null 2>&1 || say "optional package $p not installed (its tests will be skipped)"
    done
    # clang's version is known once clang is installed: its fuzzer runtimes after it.
    [ -z "$opt" ] || for p in $(fuzzer_runtime_missing); do
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

if [ -f /etc/debian_version ] && have apt-get && have dpkg; then
  install_arm64_libs
fi
if [ "$(uname -s)" = Darwin ] && have brew; then
  # Optional on macOS: shellcheck for the lint, llvm for make test-asm (Xcode's
  # clang assembles for both architectures; llvm-readelf and friends are Homebrew's).
  opt_brew=""
  have shellcheck || opt_brew="$opt_brew shellcheck"
  [ -x /opt/homebrew/opt/llvm/bin/llvm-nm ] || [ -x /usr/local/opt/llvm/bin/llvm-nm ] || have llvm-nm \
    || opt_brew="$opt_brew llvm"
  # shellcheck disable=SC2086
  [ -z "$opt_brew" ] || brew install $opt_brew || say "optional:$opt_brew not installed"
fi
go=$(find_go)
gocaches=$(go_caches "$go")
if [ -n "$gocaches" ]; then
  GOCACHE=$(printf '%s\n' "$gocaches" | sed -n 's/^GOCACHE=//p')
  GOPATH=$(printf '%s\n' "$gocaches" | sed -n 's/^GOPATH=//p')
  export GOCACHE GOPATH
fi
install_actionlint

python=$(find_python)
actionlint=$(find_actionlint || true)
node=$(command -v node 2>/dev/null || true)
# Node's own dependencies (bluebird, for doxbee) go into node/node_modules from
# node/package-lock.json, never globally; again only when the lockfile changed.
# Without npm (or offline) the variants that need them are skipped with a reason.
nodedir=$(cd "$(dirname "$0")/.." && pwd)/node
# node_modules/.installed-lock is the lockfile that was installed.
if [ -n "$node" ] && [ -f "$nodedir/package-lock.json" ] &&
   ! cmp -s "$nodedir/package-lock.json" "$nodedir/node_modules/.installed-lock"; then
  npm=$(dirname "$node")/npm
  [ -x "$npm" ] || npm=$(command -v npm 2>/dev/null || true)
  if [ -n "$npm" ] && (cd "$nodedir" && "$npm" ci --no-audit --no-fund --silent) >&2 &&
     cp "$nodedir/package-lock.json" "$nodedir/node_modules/.installed-lock"; then
    say "installed node/node_modules from node/package-lock.json"
  else
    say "could not install node/node_modules (npm ci in node/): the variants needing bluebird will be skipped"
  fi
fi
batslib=$(bats_lib_path)
cargo=$(find_cargo || true)
rustskip=$(rust_skip "$cargo")
[ -z "$rustskip" ] || say "the Rust rows will be skipped: $rustskip"

# benchstat reads a run's bench.txt; a pinned version, built by the Go toolchain
# into the build folder (nothing global), once per version.
BENCHSTAT_VERSION=v0.0.0-20260908200009-22c9c6c9d4da
tools=$(cd "$build" && pwd)/tools
benchstat=$tools/bin/benchstat
if [ ! -x "$benchstat" ] || [ "$(cat "$tools/benchstat.version" 2>/dev/null)" != "$BENCHSTAT_VERSION" ]; then
  if GOBIN=$tools/bin GOTOOLCHAIN=local "$go" install \
       "golang.org/x/perf/cmd/benchstat@$BENCHSTAT_VERSION" >/dev/null 2>&1; then
    echo "$BENCHSTAT_VERSION" > "$tools/benchstat.version"
  else
    say "benchstat $BENCHSTAT_VERSION not installed (go install failed; its test will be skipped)"
    benchstat=""
  fi
fi
{
  echo "PYTHON=$python"
  echo "GO=$go"
  echo "NODE=$node"
  echo "CARGO=$cargo"
  echo "RUST_SKIP=$rustskip"
  echo "BATS_LIB_PATH=$batslib"
  echo "ACTIONLINT=$actionlint"
  echo "BENCHSTAT=$benchstat"
  [ -z "$gocaches" ] || printf '%s\n' "$gocaches"
} > "$build/deps.env.tmp"
mv "$build/deps.env.tmp" "$build/deps.env"
say "ok: python $python, go $go, node ${node:-absent}, cargo ${cargo:-absent}, libuv $(pkg-config --modversion libuv)"
