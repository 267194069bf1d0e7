#!/usr/bin/env bats
# The catalog (catalog/) through its CLI, as the tests and the Makefile
# read it: its commands, and a broken catalog folder refused before anything
# runs, by the CLI and by the runner, with one line and exit code 3.

load test_helper

# broken_catalog BREAKAGE -- copies catalog/ into $BATS_TEST_TMPDIR,
# breaks the first workload file (by name) as BREAKAGE says, and prints the
# folder.  The breakages work on any workload file, so no workload is named.
broken_catalog() {
  local dir="$BATS_TEST_TMPDIR/catalog"
  rm -rf "$dir"
  cp -R "$ROOT/catalog" "$dir"
  "$PYTHON" - "$dir" "$1" <<'PY'
import copy, glob, json, os, shutil, sys
folder, breakage = sys.argv[1], sys.argv[2]
path = sorted(p for p in glob.glob(os.path.join(folder, "*.json"))
              if os.path.basename(p) != "suite.json")[0]
suite_path = os.path.join(folder, "suite.json")
with open(path, encoding="utf-8") as f:
    w = json.load(f)
with open(suite_path, encoding="utf-8") as f:
    suite = json.load(f)
entry = w["variants"][0]
profile = sorted(w["profiles"])[0]
if breakage == "duplicate-id":
    w["variants"].append(copy.deepcopy(entry))
elif breakage == "unknown-field":
    entry["colour"] = "blue"
elif breakage == "unknown-style":
    entry["style"] = "telepathy"
elif breakage == "unknown-mode":
    entry["mode"] = "eventually"
elif breakage == "bad-backend":
    entry["backend"] = "no such/backend"
elif breakage == "misnamed-file":
    # A second file of the same workload: a file must be named after its workload.
    shutil.copy(path, os.path.join(folder, "zz" + os.path.basename(path)))
elif breakage == "argv-empty":
    entry["argv"] = []
elif breakage == "argv-null":
    entry["argv"] = entry["argv"] + [None]
elif breakage == "concurrency-field":
    entry["concurrency"] = "1"
elif breakage == "flag-value-number":
    w["flags"]["--count"] = {"value": 5}
elif breakage == "entry-profiles-string":
    # "hh" must not select the profile "h" by substring.
    entry["profiles"] = profile + profile
elif breakage == "profile-list":
    w["profiles"][profile] = [1000, 30]
elif breakage == "zero-iterations":
    w["profiles"][profile]["iterations"] = 0
elif breakage == "huge-iterations":
    w["profiles"][profile]["iterations"] = 10 ** 30
elif breakage == "zero-timeout":
    w["profiles"][profile]["timeout_s"] = 0
elif breakage == "nan-timeout":
    w["profiles"][profile]["timeout_s"] = float("nan")
elif breakage == "infinite-timeout":
    w["profiles"][profile]["timeout_s"] = float("inf")
elif breakage == "huge-timeout":
    w["profiles"][profile]["timeout_s"] = 1e10
elif breakage == "workload-rounds-string":
    w["profiles"][profile]["rounds"] = "3"
elif breakage == "suite-rounds-missing":
    del suite["profiles"][profile]["rounds"]
elif breakage == "suite-rounds-string":
    suite["profiles"][profile]["rounds"] = "3"
elif breakage == "suite-rounds-zero":
    suite["profiles"][profile]["rounds"] = 0
elif breakage == "suite-rounds-huge":
    suite["profiles"][profile]["rounds"] = 10 ** 9
elif breakage == "suite-profile-list":
    suite["profiles"][profile] = [3, 1]
elif breakage == "bad-input-exit":
    w.setdefault("bad_inputs", []).append({"flags": ["--nope"], "exit": 4, "says": "nope"})
elif breakage == "bad-input-placeholder":
    w.setdefault("bad_inputs", []).append({"flags": ["--file", "{socket}"], "exit": 3, "says": "x"})
elif breakage == "bad-input-pattern":
    w.setdefault("bad_inputs", []).append({"flags": ["--nope"], "exit": 2, "says": "(unclosed"})
elif breakage == "bad-input-language":
    w.setdefault("bad_inputs", []).append({"flags": ["--nope"], "exit": 2, "says": "nope",
                                           "words": {"C++": "nope"}})
elif breakage == "suite-bad-input-flags":
    suite.setdefault("bad_inputs", []).append({"flags": [], "exit": 2, "says": "x"})
elif breakage == "duplicate-key":
    # Two "--expect" keys once made every run fail: json keeps the last silently.
    text = json.dumps(w, indent=1).replace("{", '{\n "about": "a second about",', 1)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    sys.exit(0)
elif breakage == "not-a-catalog":
    # A folder without suite.json (like --catalog /tmp).
    os.remove(suite_path)
    sys.exit(0)
else:
    sys.exit("broken_catalog: no breakage %r" % breakage)
with open(path, "w", encoding="utf-8") as f:
    json.dump(w, f, indent=1)
with open(suite_path, "w", encoding="utf-8") as f:
    json.dump(suite, f, indent=1)
PY
  echo "$dir"
}

# The breakages, one a row: BREAKAGE | what the one line names (an extended regexp).
BREAKAGES='
duplicate-id        | duplicate
unknown-field       | colour
unknown-style       | telepathy
unknown-mode        | eventually
bad-backend         | no such/backend
misnamed-file       | zz[a-z]+\.json
argv-empty          | argv must be a non-empty list
argv-null           | argv must be a non-empty list.*None
concurrency-field   | unknown field .concurrency
flag-value-number   | --count.*value must be a string
entry-profiles-string | profiles must be a non-empty list of strings
profile-list        | profile .* must be an object
zero-iterations     | iterations must be an integer from 1
huge-iterations     | iterations must be an integer from 1 to [0-9]+, got 1000000000000000000000000000000
zero-timeout        | timeout_s must be a number of seconds from 0.1
nan-timeout         | timeout_s must be .*got nan
infinite-timeout    | timeout_s must be .*got inf
huge-timeout        | timeout_s must be .* to [0-9]+, got 10000000000
workload-rounds-string | rounds must be an integer from 1
suite-rounds-missing | suite\.json.*rounds must be an integer
suite-rounds-string | suite\.json.*rounds must be an integer
suite-rounds-zero   | suite\.json.*rounds must be an integer from 1
suite-rounds-huge   | suite\.json.*rounds must be an integer from 1 to [0-9]+, got 1000000000
suite-profile-list  | suite\.json: profile .* must be an object
bad-input-exit      | bad_inputs\[[0-9]+\]: exit must be 1 .*, got 4
bad-input-placeholder | flag word .\{socket\}.: the only placeholders are
bad-input-pattern   | says .\(unclosed. is not a regular expression
bad-input-language  | words must map languages \(lower-case words\) to patterns
suite-bad-input-flags | suite\.json: bad_inputs\[[0-9]+\]: flags must be a non-empty list
not-a-catalog       | not a catalog folder
duplicate-key       | [a-z]+\.json: key "about" appears twice in one object
'

@test "catalog bad-inputs lists suite.json's rows for every workload, then each workload's, a row as lines" {
  run -0 catalog bad-inputs
  assert_line --index 0 --regexp '^@@ \* 2$'
  assert_line --regexp '^@@ readfile 1$'
  assert_line 'flag {file:Hello, World}'
  assert_line --regexp "^words c --iterations must be a positive integer, got '0'$"
  # Every line is a row's head, its says, a language's words or a flag word.
  local line
  for line in "${lines[@]}"; do
    [[ "$line" =~ ^(@@\ [a-z*]+\ [123]|says\ .+|words\ [a-z]+\ .+|flag\ .+)$ ]] || fail "odd line: $line"
  done
}

@test "the catalog lists its workloads, their flags and every variant once" {
  run -0 catalog workloads
  assert_line readfile
  assert_line noop
  run -0 catalog flags readfile
  assert_equal "${#lines[@]}" 4
  assert_line --index 0 --file
  assert_line --index 2 --expect
  run -0 catalog flags noop
  assert_output ""
  run -0 catalog ids
  assert_equal "$(printf '%s\n' "${lines[@]}" | sort | uniq -d)" ""
}

@test "catalog field gives a variant's fields, label, name and concurrency" {
  local id=readfile/c/promise-counter-parallel@node4
  run -0 catalog field "$id" shape
  assert_output counter
  run -0 catalog field "$id" label
  assert_output c/promise-counter-parallel@node4
  run -0 catalog field "$id" name
  assert_output promise-counter-parallel
  run -0 catalog field "$id" concurrency
  assert_output 0
  run -0 catalog field readfile/c/callback-bounded@node4 concurrency
  assert_output 64
  run -0 catalog field readfile/node/await-nodetest-parallel@fs.promises method
  assert_output nodetest
}

@test "an unknown variant is a usage error of the catalog CLI" {
  run -2 catalog field readfile/c/telepathy-parallel@node4 lang
  assert_output --partial "readfile/c/telepathy-parallel@node4"
}

# expect_refused COMMAND... -- for every row of BREAKAGES, COMMAND run with
# CATALOG_DIR naming the broken folder exits 3 with one line that matches the
# row; lists every failure at the end.
expect_refused() {
  local breakage pattern failures=""
  while IFS='|' read -r breakage pattern; do
    read -r breakage <<<"$breakage"
    [ -n "$breakage" ] || continue
    read -r pattern <<<"$pattern"
    CATALOG_DIR=$(broken_catalog "$breakage")
    run "$@"
    if [ "$status" -ne 3 ] || [ "${#lines[@]}" -ne 1 ] || ! grep -Eqi -- "$pattern" <<<"$output"; then
      failures+="$breakage: exit $status, wanted 3 and one line matching /$pattern/: $output"$'\n'
    fi
  done <<<"$BREAKAGES"
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
}

# run_quick -- the runner on CATALOG_DIR's quick profile, into $BATS_TEST_TMPDIR/r.
run_quick() {
  "$PYTHON" -m runner --catalog "$CATALOG_DIR" --profile quick --out "$BATS_TEST_TMPDIR/r"
}

@test "the catalog CLI refuses a broken catalog folder with one line and exit 3" {
  expect_refused catalog ids
}

@test "the runner refuses a broken catalog folder with one line and exit 3, before anything runs" {
  expect_refused run_quick
  [ ! -e "$BATS_TEST_TMPDIR/r" ]
}

# covered KEYS -- each C variant's keys (computed here, apart from the script)
# for runner/catalog/cover.py's --keys KEYS, one "ID KEY..." line a variant.
covered() {
  "$PYTHON" - "$CATALOG_DIR" "$1" <<'PY'
import sys
from runner.catalog import catalog
for v in catalog.load(sys.argv[1]).select(lang="c"):
    w, prog = v["workload"], v["argv"][0]
    k = {"program": prog, "name": w + ":" + v["name"],
         "backend+mode": w + ":" + v["backend"] + ":" + v["mode"],
         "backend+style": w + ":" + v["backend"] + ":" + v["style"],
         "style": w + ":" + v["style"], "backend": w + ":" + v["backend"],
         "style+mode": v["style"] + ":" + v["mode"]}
    print(v["id"], " ".join(name + "=" + k[name] for name in sys.argv[2].split(",")))
PY
}

@test "runner/catalog/cover.py keeps fewer C variants, in their order, with every key of them all" {
  local keys all kept id rest failures="" k want have
  for keys in program,name,backend+mode,backend+style program,style,backend,style+mode; do
    all=$(catalog ids --lang c)
    if [ "$keys" = program,name,backend+mode,backend+style ]; then
      kept=$("$PYTHON" -m runner.catalog.cover <<<"$all")
    else
      kept=$("$PYTHON" -m runner.catalog.cover --keys "$keys" <<<"$all")
    fi
    [ -n "$kept" ] || failures+="$keys: nothing kept"$'\n'
    [ "$(wc -l <<<"$kept")" -lt "$(wc -l <<<"$all")" ] || failures+="$keys: nothing left out"$'\n'
    # In the order of the input: the kept ids are a subsequence of it.
    [ "$(grep -Fxf <(printf '%s\n' "$kept") <<<"$all")" = "$kept" ] \
      || failures+="$keys: not in the input's order"$'\n'
    want="" have=""
    while read -r id rest; do
      want+=" $rest"
      if grep -Fxq -- "$id" <<<"$kept"; then have+=" $rest"; fi
    done < <(covered "$keys")
    for k in $want; do
      [[ " $have " == *" $k "* ]] || failures+="$keys: no kept variant has $k"$'\n'
    done
  done
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
}

@test "runner/catalog/cover.py refuses a key it does not know, and keeps an id the catalog has not" {
  run "$PYTHON" -m runner.catalog.cover --keys program,colour </dev/null
  assert_failure 2
  assert_output --partial "python3 -m runner.catalog.cover [--catalog DIR] [--keys K,K...]"
  run "$PYTHON" -m runner.catalog.cover <<<"nowhere/c/sync-sequential@none"
  assert_success
  assert_output "nowhere/c/sync-sequential@none"
}
