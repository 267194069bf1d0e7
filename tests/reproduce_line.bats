#!/usr/bin/env bats
# reproduce_line.bats -- the commands the runner prints do what they say when
# pasted into a shell at the root of the checkout (issue 46): REPORT.md's
# Reproduce line runs the same plan as the run it came from (the same
# variants, order, N, flags and commands), and the make plots hint renders its
# folder whatever its path holds.  The Reproduce line's make command is run
# with -n, which prints the runner's command as make would run it (its
# variables expanded, `$$` made `$`), and that command is then run with its
# results sent to a scratch folder (--out and --host change where a run goes,
# never its plan).

load test_helper

need_launcher() { [ -x "${BIN}/launch" ] || skip "build/bin/launch is not built (make all)"; }

# plan FOLDER -- what of FOLDER's run.json makes the plan, as one JSON text.
plan() {
  "$PYTHON" - "$1/run.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
keep = ("profile", "seed", "rounds", "warmup_rounds", "variants", "orders", "workloads",
        "commands", "filters", "skipped", "iterations_override", "rounds_override",
        "timeout_override", "options")
plan = {k: run.get(k) for k in keep}
# The catalog is given again as the run folder's copy of it, and the seed the
# first run drew is given to the second.
opts, i = plan["options"] or [], 0
plan["options"] = []
while i < len(opts):
    if opts[i] in ("--catalog", "--seed"):
        i += 2
        continue
    plan["options"].append(opts[i])
    i += 1
print(json.dumps(plan, sort_keys=True))
PY
}

@test "the Reproduce line pasted into a shell runs the same plan: a filter with \$, a quote and backticks, a catalog of its own, --node none, --no-extra-rounds, --no-trace" {
  need_launcher
  cp -R "${ROOT}/tests/fixtures-bin/catalog" "${BATS_TEST_TMPDIR}/cat"
  # A catalog of the run's own, outside the project: it may be gone when the run
  # is repeated, so the line gives the copy the run folder keeps.
  cd "$ROOT"
  run -0 "$PYTHON" -m runner --profile quick --catalog "${BATS_TEST_TMPDIR}/cat" \
    --filter 'honest-(sequential|parallel)@python$' --filter "it's-not-\`\`\`there" \
    --node none --no-extra-rounds --no-trace --rounds 2 --iterations 5 \
    --out "${BATS_TEST_TMPDIR}/out" --host first --no-charts
  first="$(cd "${BATS_TEST_TMPDIR}/out/latest" && pwd -P)"
  rm -rf "${BATS_TEST_TMPDIR}/cat"
  # The command is the line after the fence that opens the section's sh block.
  line="$(awk '/^## Reproduce/ { s = 1 } s && /^```+sh$/ { getline; print; exit }' "${first}/REPORT.md")"
  [ -n "$line" ] || { grep -A2 '^## Reproduce' "${first}/REPORT.md"; false; }
  case "$line" in *"--catalog ${first}/catalog"*) ;; *) echo "no --catalog copy: $line"; false ;; esac
  # make -n prints what `make compare` would run; the runner's run is its last line.
  run -0 bash -c "${line/make compare/make -n --no-print-directory compare}"
  cmd="$(printf '%s\n' "$output" | grep -e ' -m runner --profile ' | grep -v -e '--check$' | tail -1)"
  [ -n "$cmd" ] || { echo "$output"; false; }
  run -0 bash -c "$cmd --out '${BATS_TEST_TMPDIR}/again' --host again --no-charts"
  again="$(cd "${BATS_TEST_TMPDIR}/again/latest" && pwd -P)"
  [ "$(plan "$first")" = "$(plan "$again")" ] || { diff <(plan "$first") <(plan "$again"); false; }
  # the filter with its `$` came through make and the shell whole
  run -0 "$PYTHON" -c 'import json,sys; print(json.load(open(sys.argv[1]))["filters"][0])' "${again}/run.json"
  assert_output 'honest-(sequential|parallel)@python$'
}

@test "the make plots command the runner prints for a folder with \$ and a blank in its path, pasted, renders that folder" {
  need_launcher
  cd "$ROOT"
  out="${BATS_TEST_TMPDIR}/my \$HOME dir"
  run -0 "$PYTHON" -m runner --profile quick --catalog "${ROOT}/tests/fixtures-bin/catalog" \
    --filter 'honest-sequential@python$' --node none --no-trace --rounds 1 --iterations 5 \
    --out "$out" --host h --no-charts
  cmd="$(printf '%s\n' "$output" | sed -n 's/^charts: not drawn (--no-charts; \(make plots RUN=.*\) draws them)$/\1/p')"
  [ -n "$cmd" ] || { echo "$output"; false; }
  folder="$(cd "${out}/latest" && pwd -P)"
  rm -f "${folder}/REPORT.md"
  run -0 bash -c "$cmd --no-print-directory"
  [ -f "${folder}/REPORT.md" ]
}
