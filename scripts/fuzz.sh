#!/bin/sh
# fuzz.sh BUILD_DIR [SECONDS] -- the httpchain server's request handling
# (c/httpchain/session.c) under libFuzzer with ASan and UBSan, for a bounded
# time (default 5 s; FUZZ_SECONDS overrides), starting from the seed corpus
# in c/httpchain/fuzz/corpus/ (never written to: new inputs go to a scratch
# folder).  Any crash, sanitizer report or broken invariant fails.
#
# Needs clang with libFuzzer's runtime (Debian: clang, libfuzzer-N-dev,
# libclang-rt-N-dev for clang N; `make deps` installs them).  Without it the
# step is skipped with one line.  Prints "fuzz: N passed, N failed".
set -u
build=${1:-build}
seconds=${2:-${FUZZ_SECONDS:-5}}
cc=${FUZZ_CC:-clang}
out="$build/fuzz"
mkdir -p "$out"

llhttp_dir="" llhttp_inc=""
for d in /usr/share /usr/local/share; do
  if [ -z "$llhttp_dir" ] && [ -f "$d/llhttp/llhttp.c" ]; then
    llhttp_dir="$d/llhttp" llhttp_inc="$d/include/llhttp"
  fi
done
if [ -n "$llhttp_dir" ]; then
  llhttp_src="$llhttp_dir/api.c $llhttp_dir/http.c $llhttp_dir/llhttp.c"
  llhttp_flags="-I$llhttp_inc"
  llhttp_libs=""
else
  llhttp_src=""
  llhttp_flags=$(pkg-config --cflags libllhttp 2>/dev/null)
  llhttp_libs=$(pkg-config --libs libllhttp 2>/dev/null || echo -lllhttp)
fi

if ! command -v "$cc" >/dev/null 2>&1 ||
   ! printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' |
     "$cc" -fsanitize=fuzzer,address,undefined -x c - -o "$out/probe" >/dev/null 2>&1; then
  echo "fuzz: skipped, $cc cannot build a libFuzzer target here (install clang and libFuzzer: make deps)"
  echo "fuzz: 0 passed, 0 failed, 1 skipped"
  exit 0
fi

# shellcheck disable=SC2086,SC2046
if ! "$cc" -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
     -D_DEFAULT_SOURCE -Ic -Ic/lib $llhttp_flags $(pkg-config --cflags libuv 2>/dev/null) \
     c/httpchain/fuzz/session_fuzz.c c/httpchain/session.c c/httpchain/protocol.c \
     $llhttp_src $llhttp_libs -o "$out/session_fuzz" 2> "$out/build.log"; then
  echo "  FAIL session_fuzz (build)"; sed 's/^/       /' "$out/build.log" | tail -20
  echo "fuzz: 0 passed, 1 failed"
  exit 1
fi

scratch="$out/corpus.new"
rm -rf "$scratch"
mkdir -p "$scratch"
if "$out/session_fuzz" -max_total_time="$seconds" -timeout=5 -rss_limit_mb=1024 \
     -print_final_stats=0 -artifact_prefix="$out/" "$scratch" c/httpchain/fuzz/corpus \
     > "$out/run.log" 2>&1; then
  runs=$(sed -n 's/^#\([0-9]*\).*DONE.*/\1/p' "$out/run.log" | tail -1)
  echo "  ok   session_fuzz (${runs:-?} inputs in ${seconds} s)"
  echo "fuzz: 1 passed, 0 failed"
else
  echo "  FAIL session_fuzz (a crash; the input is in $out/crash-* or leak-*):"
  grep -E 'ERROR|SUMMARY|session_fuzz:|runtime error' "$out/run.log" | head -10 | sed 's/^/       /'
  echo "fuzz: 0 passed, 1 failed"
  exit 1
fi
