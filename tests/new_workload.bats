#!/usr/bin/env bats
# A workload is its folders and its catalog file: a throw-away workload,
# "thrown" (one Node script and thrown.json, in a temporary catalog folder
# beside a copy of suite.json), is listed by the catalog, run by the runner,
# and checked by the generic contract and bad-input suites, its own bad input
# included, with no edit anywhere else.  Node only, so that nothing is built;
# the C and Go drivers' part of those suites needs a driver and is left out.
# Then docs/adding.md followed step by step in a clean clone: the same Node
# workload, and a C-only and a Go-only one copied from noop (only their two
# programs built).

load test_helper

setup_file() {
  command -v "${NODE:-node}" >/dev/null || return 0
  local dir="$BATS_FILE_TMPDIR" url
  mkdir -p "$dir/catalog" "$dir/node/thrown"
  cp "$ROOT/catalog/suite.json" "$dir/catalog/"
  url=$("${NODE:-node}" -e 'console.log(require("url").pathToFileURL(process.argv[1]).href)' "$ROOT/node/lib/contract.mjs")
  cat > "$dir/node/thrown/callback-sequential.mjs" <<EOF
// thrown: operation i completes with i + --add on a later turn of the loop.
import { defineWorkload, main } from '$url';

const thrown = defineWorkload({
  name: 'thrown',
  unit: 'operation',
  flags: { add: { value: 7, integer: true, range: [0, 1000], arg: 'A', about: 'each operation completes with its number plus A' } },
  verifier: (opts) => (i, value) => (value === i + opts.add ? 0 : \`completed with \${value}, expected \${i + opts.add}\`),
});

export const variant = {
  workload: thrown, style: 'callback', mode: 'sequential', backend: 'none',
  run(pass, done) {
    const step = (i) => setImmediate(() => {
      pass.check(i, null, i + pass.add);
      if (i + 1 === pass.n) done();
      else step(i + 1);
    });
    pass.begin();
    step(0);
  },
};

main(variant, import.meta.url);
EOF
  cat > "$dir/catalog/thrown.json" <<EOF
{
  "workload": "thrown",
  "about": "a throw-away workload: N operations, each completing with its number plus --add",
  "unit": "operation",
  "flags": {"--add": {"value": "7", "about": "each operation completes with its number plus A"}},
  "checks": {},
  "requires": {},
  "warmup": {"iterations": "min(20, iterations)", "about": "a few"},
  "passes": {"count": "1", "about": "one pass"},
  "profiles": {"quick": {"iterations": 200, "timeout_s": 30}},
  "bad_inputs": [{"flags": ["--add", "1001"], "exit": 2, "says": "add",
                  "words": {"node": "--add must be an integer from 0 to 1000, got \"1001\""}}],
  "baselines": [],
  "variants": [{"lang": "node", "style": "callback", "mode": "sequential", "backend": "none",
                "argv": ["{node}", "$dir/node/thrown/{name}.mjs"],
                "profiles": ["quick"], "about": "each operation completes from setImmediate"}]
}
EOF
}

setup() {
  command -v "${NODE:-node}" >/dev/null || skip "node is not installed"
  cd "$ROOT"
  THROWN="$BATS_FILE_TMPDIR/catalog"
}

@test "the catalog lists a workload from its file alone and the runner runs it" {
  run -0 "$PYTHON" -m runner.catalog.catalog_cli --catalog "$THROWN" ids
  assert_output "thrown/node/callback-sequential@none"
  run -0 --separate-stderr "$PYTHON" -m runner --catalog "$THROWN" --profile quick --filter '^thrown/' \
    --no-charts --node "${NODE:-node}" --out "$BATS_TEST_TMPDIR/out"
  run -0 "$PYTHON" - "$BATS_TEST_TMPDIR/out" <<'PY'
import glob, json, sys
runs = glob.glob(sys.argv[1] + "/*/*/run.json")
assert len(runs) == 1, runs
run = json.load(open(runs[0]))
assert run["complete"] and not run["failures"] and not run["skipped"], run["failures"] or run["skipped"]
assert list(run["variants"]) == ["thrown/node/callback-sequential@none"], list(run["variants"])
PY
}

@test "the generic contract and bad-input suites check it, its own bad input too" {
  # contract.bats' file check takes scripts under the project; this one is
  # not.  badinput.bats' other tests need a C or Go driver.
  run -0 env CATALOG_DIR="$THROWN" bats \
    -f '^every (workload|id|variant (prints|name)|program)|^--help of every program|^each bad input' \
    "$ROOT/tests/contract.bats" "$ROOT/tests/badinput.bats"
  assert_line --partial "every program's defaults for its workload's flags are the catalog's values"
  assert_line --partial "every program takes --flag=VALUE as --flag VALUE"
  assert_line --partial "each bad input of the catalog"
  assert_line 1..9
  refute_line --partial "not ok"
  # The row badinput.bats ran: thrown's own, with its words in Node.
  run -0 "$PYTHON" -m runner.catalog.catalog_cli --catalog "$THROWN" bad-inputs
  assert_line "@@ thrown 2"
  assert_line 'words node --add must be an integer from 0 to 1000, got "1001"'
}

@test "docs/adding.md's steps, followed in a clean clone for a Node-only workload, pass the checks make test makes of the catalog and the tables" {
  git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1 || skip "not a git checkout"
  local clone="$BATS_TEST_TMPDIR/clone"
  git clone -q "$ROOT" "$clone"
  # Steps 1 and 2: the program in node/thrown/, its catalog file with
  # "baselines": [] (no C variant to compare with), as the page says.
  mkdir -p "$clone/node/thrown"
  sed "s|^import { defineWorkload, main } from .*|import { defineWorkload, main } from '../lib/contract.mjs';|" \
    "$BATS_FILE_TMPDIR/node/thrown/callback-sequential.mjs" > "$clone/node/thrown/callback-sequential.mjs"
  sed "s|\"$BATS_FILE_TMPDIR/node/thrown/{name}.mjs\"|\"node/thrown/{name}.mjs\"|" \
    "$THROWN/thrown.json" > "$clone/catalog/thrown.json"
  cd "$clone"
  run -0 "$PYTHON" -m runner.catalog.catalog_cli ids
  assert_line "thrown/node/callback-sequential@none"
  # Step 3: the tables first, then what make test checks of the catalog: its
  # unit tests (a C baseline was once required of every variant) and the tables.
  run -0 "$PYTHON" -m runner.catalog.catalog_cli readme
  run -0 "$PYTHON" -m unittest runner.tests.test_catalog
  run -0 env BUILD="$BUILD_DIR" bats -f "variant tables" "$clone/tests/readme.bats"
  refute_line --partial "not ok"
  grep -q 'thrown/node/callback-sequential@none\|callback-sequential' "$clone/docs/workloads.md"
}

@test "docs/adding.md's steps, followed in a clean clone for a C-only and a Go-only workload copied from noop, build them and pass the generic suites" {
  git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1 || skip "not a git checkout"
  [ -f "${BUILD_DIR}/deps.env" ] || skip "no deps.env (make deps first)"
  local clone="$BATS_TEST_TMPDIR/clone" f
  git clone -q "$ROOT" "$clone"
  cd "$clone"
  # Step 1: "A new C workload is a folder c/<w>/ ... c/noop/ is the worked
  # example"; a Go workload is go/internal/<w> and go/cmd/<w>.
  mkdir -p c/cnew go/internal/gnew go/cmd/gnew
  for f in c/noop/*; do
    sed -e 's/ab_noop/ab_cnew/g; s/AB_NOOP/AB_CNEW/g; s/"noop"/"cnew"/g' "$f" > "c/cnew/${f##*/}"
  done
  sed -e 's/^package noop/package gnew/; s/Name: *"noop"/Name: "gnew"/' go/internal/noop/noop.go \
    > go/internal/gnew/gnew.go
  sed -e 's#asyncstyles/internal/noop#asyncstyles/internal/gnew#; s/noop\.New/gnew.New/' go/cmd/noop/main.go \
    > go/cmd/gnew/main.go
  # Step 2: one catalog file each, from noop's: its C variants with their C
  # baseline rule, its Go variants with "baselines": [] (no C to compare with).
  run -0 "$PYTHON" - <<'PY'
import json
noop = json.load(open("catalog/noop.json"))
for name, lang, prog, rules in (("cnew", "c", "c-noop", [b for b in noop["baselines"] if b["key"] == "c"]),
                                ("gnew", "go", "go-noop", [])):
    w = dict(noop, workload=name, about="a %s-only copy of noop" % lang, baselines=rules,
             variants=[dict(v, argv=[a.replace(prog, "%s-%s" % (lang, name)) for a in v["argv"]])
                       for v in noop["variants"] if v["lang"] == lang])
    json.dump(w, open("catalog/%s.json" % name, "w"), indent=1)
PY
  run -0 "$PYTHON" -m runner.catalog.catalog_cli ids
  assert_line "cnew/c/await-bounded@none"
  assert_line "gnew/go/goroutine-parallel@none"
  # Step 3: the tables, then make (only the two programs here: a whole build
  # is hostile_make.bats'), then what make test checks of them.
  run -0 "$PYTHON" -m runner.catalog.catalog_cli readme
  mkdir -p build
  cp "${BUILD_DIR}/deps.env" build/
  [ ! -d "${BUILD_DIR}/tools" ] || ln -s "${BUILD_DIR}/tools" build/tools
  run -0 make --no-print-directory -j2 BUILD=build build/bin/c-cnew build/bin/go-gnew
  refute_output --partial "warning:"
  run -0 "$PYTHON" -m unittest runner.tests.test_catalog
  mkdir -p "$BATS_TEST_TMPDIR/cat"
  cp catalog/suite.json catalog/cnew.json catalog/gnew.json "$BATS_TEST_TMPDIR/cat/"
  run -0 env CATALOG_DIR="$BATS_TEST_TMPDIR/cat" BUILD="$clone/build" bats \
    -f '^every (workload|id|variant|program)|^--help of every|^an unknown (variant|backend) of every|^each bad input' \
    "$clone/tests/contract.bats" "$clone/tests/badinput.bats" "$clone/tests/c.bats"
  refute_line --partial "not ok"
  assert_line --regexp "^ok [0-9]+ every variant prints one valid JSON line"
  run -0 env BUILD="$clone/build" bats -f "variant tables" "$clone/tests/readme.bats"
  run -0 make --no-print-directory BUILD=build test-go
}
