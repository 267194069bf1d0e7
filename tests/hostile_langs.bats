#!/usr/bin/env bats
# Hostile inputs for the Go and Node programs: a stdout that cannot be
# written, failure messages for huge wrong fixtures, the count grammar and
# byte comparison, descriptor limits.  Each case names the exit code and the
# one line it must give; none depends on timing.

load test_helper

GO="$BIN/go-readfile"
NODE_VARIANT=node/readfile/callback-parallel.mjs

setup() {
  cd "$ROOT"
}

need_go() { [ -x "$GO" ] || skip "build/bin/go-readfile is not built: run make go"; }
need_node() { command -v node >/dev/null || skip "node is not on the PATH"; }

# to_full CMD... -- runs CMD with stdout on /dev/full, stderr as output.
to_full() { "$@" 2>&1 >/dev/full; }

# to_closed_pipe CMD... -- runs CMD with stdout on a pipe whose reader is
# already gone, so its first write fails with EPIPE; stderr as output.
to_closed_pipe() {
  "$PYTHON" -c 'import os, subprocess, sys
r, w = os.pipe()
os.close(r)
sys.exit(subprocess.call(sys.argv[1:], stdout=w, stderr=sys.stdout))' "$@"
}

@test "Go: a result line written to /dev/full is exit 3 with one line" {
  need_go
  run -3 to_full "$GO" --iterations 3
  assert_output "go-readfile: cannot write the result to stdout: write /dev/stdout: no space left on device"
}

@test "Go: --help written to /dev/full is exit 3 with one line" {
  need_go
  run -3 to_full "$GO" --help
  assert_output "go-readfile: cannot write the usage to stdout: write /dev/stdout: no space left on device"
}

@test "Go: a result line written to a pipe without a reader is exit 3 with one line, not SIGPIPE" {
  need_go
  run -3 to_closed_pipe "$GO" --iterations 3
  assert_output "go-readfile: cannot write the result to stdout: write /dev/stdout: broken pipe"
}

@test "Node: a result line written to /dev/full is exit 3 with one line, no stack trace" {
  need_node
  run -3 to_full node "$NODE_VARIANT" --iterations 3
  assert_output "$NODE_VARIANT: cannot write the result to stdout: ENOSPC: no space left on device, write"
}

@test "Node: --help written to /dev/full is exit 3 with one line" {
  need_node
  run -3 to_full node "$NODE_VARIANT" --help
  assert_output "$NODE_VARIANT: cannot write the usage to stdout: ENOSPC: no space left on device, write"
}

@test "Node: a result line written to a pipe without a reader is exit 3 with one line" {
  need_node
  run -3 to_closed_pipe node "$NODE_VARIANT" --iterations 3
  assert_output "$NODE_VARIANT: cannot write the result to stdout: EPIPE: broken pipe, write"
}

@test "Node: the node --test method's result and usage to /dev/full are exit 3 with one line" {
  need_node
  run -3 to_full node node/lib/nodetest.mjs "$NODE_VARIANT" --iterations 3
  assert_output "node/lib/nodetest.mjs: cannot write the result to stdout: ENOSPC: no space left on device, write"
  run -3 to_full node node/lib/nodetest.mjs --help
  assert_output "node/lib/nodetest.mjs: cannot write the usage to stdout: ENOSPC: no space left on device, write"
}
