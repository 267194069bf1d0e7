#!/bin/sh
# rust-build.sh BUILD_DIR -- builds rust/ (one program a workload) with the
# cargo make deps found (BUILD_DIR/deps.env: CARGO), offline and --locked, into
# BUILD_DIR/rust, and copies each program to BUILD_DIR/bin/rust-<workload>.
# Without a cargo that can (deps.env's RUST_SKIP says why) it writes the
# reason to BUILD_DIR/bin/rust.skip, where scripts/rust-probe.sh, the Rust
# variants' probe, finds it: each Rust variant is skipped with it.
set -eu

build=$1
env="$build/deps.env"
cargo=$(sed -n 's/^CARGO=//p' "$env" 2>/dev/null || true)
skip=$(sed -n 's/^RUST_SKIP=//p' "$env" 2>/dev/null || true)
mkdir -p "$build/bin"
if [ -z "$cargo" ] || [ -n "$skip" ]; then
  printf '%s\n' "${skip:-no cargo in $env: run make deps}" > "$build/bin/rust.skip"
  echo "rust: not built: $(cat "$build/bin/rust.skip")"
  exit 0
fi
target=$(cd "$build" && pwd)/rust
echo "cd rust && CARGO_TARGET_DIR=$target $cargo build --release --locked --offline"
(cd "$(dirname "$0")/../rust" && CARGO_TARGET_DIR=$target "$cargo" build --release --locked --offline --quiet)
for toml in "$(dirname "$0")"/../rust/*/Cargo.toml; do
  w=$(basename "$(dirname "$toml")")
  [ -x "$target/release/rust-$w" ] || continue
  # Copied only when it changed, so that a second make all touches nothing.
  cmp -s "$target/release/rust-$w" "$build/bin/rust-$w" || cp -p "$target/release/rust-$w" "$build/bin/rust-$w"
done
rm -f "$build/bin/rust.skip"
