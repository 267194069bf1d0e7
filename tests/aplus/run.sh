#!/bin/sh
# run.sh BUILD NODE -- builds the Node-API adapter over the C promise core and
# runs the Promises/A+ compliance suite (npm promises-aplus-tests) against it.
#
# The adapter is compiled with plain `cc -shared` against Node's own headers
# (next to the node executable, or Debian's libnode-dev); the suite is
# installed by npm into tests/aplus/node_modules (not committed).  Without
# node the suite is skipped, with one line saying so.
set -eu
build=${1:-build}
node=${2:-}
[ -n "$node" ] || node=$(command -v node 2>/dev/null || true)
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

if [ -z "$node" ] || ! "$node" --version >/dev/null 2>&1; then
  echo "aplus: skipped, node not installed"
  exit 0
fi

inc=""
for d in "$("$node" -p 'require("path").join(process.execPath, "..", "..", "include", "node")')" \
         /usr/include/node /usr/local/include/node /opt/homebrew/include/node; do
  if [ -f "$d/node_api.h" ]; then inc=$d; break; fi
done
if [ -z "$inc" ]; then
  echo "aplus: Node's headers (node_api.h) not found; install them (Debian: apt-get install libnode-dev) and retry" >&2
  exit 1
fi

case $build in
  /*) out="$build/aplus" ;;
  *) out="$root/$build/aplus" ;;
esac
mkdir -p "$out"
shared="-shared"
[ "$(uname -s)" = Darwin ] && shared="-bundle -undefined dynamic_lookup"
# shellcheck disable=SC2086
${CC:-cc} -std=c11 -O2 -fPIC -Wall -Wextra -D_DEFAULT_SOURCE -D_GNU_SOURCE \
  -I"$inc" -I"$root/c/lib" $shared -o "$out/aplus.node" \
  "$here/adapter.c" "$root/c/lib/promise.c" "$root/c/lib/microtask.c" "$root/c/lib/counters.c" \
  "$root/c/lib/coro.c" "$root/c/lib/stack.c" "$root/c/lib/coro_switch_x86_64.S" \
  "$root/c/lib/coro_switch_aarch64.S"

if [ ! -f "$here/node_modules/promises-aplus-tests/package.json" ]; then
  npm=$(dirname "$node")/npm
  [ -x "$npm" ] || npm=npm
  (cd "$here" && "$npm" install --no-package-lock --no-audit --no-fund --silent) \
    || { echo "aplus: npm install of promises-aplus-tests failed" >&2; exit 1; }
fi

cd "$here"
APLUS_ADDON="$out/aplus.node" "$node" run.js
