#!/bin/sh
# rust-probe.sh PROGRAM -- the probe of every Rust variant (its catalog entry's
# requires.probe): exit 0 when PROGRAM was built, else one line on stderr
# saying why not (BUILD_DIR/bin/rust.skip, which scripts/rust-build.sh
# writes when there is no cargo that can build rust/), exit 1.
prog=$1
[ -x "$prog" ] && exit 0
why=$(head -1 "$(dirname "$prog")/rust.skip" 2>/dev/null)
echo "${why:-$(basename "$prog") is not built: make all builds it with cargo}" >&2
exit 1
