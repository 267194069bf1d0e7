#!/usr/bin/env bats
# The Rust row's build and skip (issue 45): make all builds rust/ with the
# cargo make deps found; without one that can, scripts/rust-build.sh writes
# the reason to BUILD/bin/rust.skip and every Rust variant is skipped with it
# (scripts/rust-probe.sh, each Rust variant's probe), as Node's are without
# node.  The contract itself is tested by cargo test (make test-rust) and by
# the tables of contract.bats, badinput.bats, clock.bats and lockstep.bats.

load test_helper

# scratch_build SKIP -- a build folder whose deps.env has no cargo, and SKIP as
# the reason make deps gave (empty: none given).
scratch_build() {
  SCRATCH="$BATS_TEST_TMPDIR/build"
  mkdir -p "$SCRATCH"
  printf 'PYTHON=%s\nCARGO=\nRUST_SKIP=%s\n' "$PYTHON" "$1" > "$SCRATCH/deps.env"
}

@test "without a cargo, the build says why and every Rust variant is skipped with that reason" {
  scratch_build "no cargo found: install Rust 1.77 or later"
  run -0 sh "$ROOT/scripts/rust-build.sh" "$SCRATCH"
  assert_output "rust: not built: no cargo found: install Rust 1.77 or later"
  run -1 --separate-stderr sh "$ROOT/scripts/rust-probe.sh" "$SCRATCH/bin/rust-asyncfib"
  assert_equal "$stderr" "no cargo found: install Rust 1.77 or later"
  # The runner's own rule (plan.unmet) skips each Rust variant with that line,
  # and no other language's.
  run -0 "$PYTHON" - "$SCRATCH/bin" <<'PY'
import sys
from runner.catalog import catalog
from runner.measure import plan
cat = catalog.load(catalog.DIR)
probes, why = {}, {}
for v in cat.variants:
    if v["lang"] in ("rust", "c"):
        v = dict(v, requires=dict(v.get("requires") or {}))
        if "probe" in v["requires"]:
            v["requires"]["probe"] = [a.replace("{bin}", sys.argv[1]) for a in v["requires"]["probe"]]
        why[v["id"]] = plan.unmet(v, None, probes) if v["lang"] == "rust" else None
rust = [i for i in why if i.split("/")[1] == "rust"]
assert rust, "no Rust variant in the catalog"
assert all(why[i] == "no cargo found: install Rust 1.77 or later" for i in rust), why
print(len(rust))
PY
  [ "$output" -gt 0 ]
}

@test "a deps.env without a reason still skips with one line, and a built program is not skipped" {
  scratch_build ""
  printf 'PYTHON=%s\n' "$PYTHON" > "$SCRATCH/deps.env"
  run -0 sh "$ROOT/scripts/rust-build.sh" "$SCRATCH"
  assert_output --partial "no cargo in $SCRATCH/deps.env: run make deps"
  run -1 --separate-stderr sh "$ROOT/scripts/rust-probe.sh" "$SCRATCH/bin/rust-tasks"
  assert_equal "$stderr" "no cargo in $SCRATCH/deps.env: run make deps"
  [ -x "$BIN/rust-tasks" ] || skip "rust-tasks not built here: $(cat "$BIN/rust.skip" 2>/dev/null)"
  run -0 sh "$ROOT/scripts/rust-probe.sh" "$BIN/rust-tasks"
}
