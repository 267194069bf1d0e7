#!/usr/bin/env bats
# The README and the documents it links (docs/*.md) stay true: the two
# commands, the variant tables (one per workload, from catalog/, in
# docs/workloads.md), the generated results, the links and the files named.

load test_helper

@test "the variant tables of docs/workloads.md are the catalog's" {
  run catalog readme --check
  assert_success
}

@test "the README shows the two commands and the test command is what CI runs" {
  run grep -c -e 'make compare' -e 'make test' "$ROOT/README.md"
  assert_success
  grep -q 'make test' "$ROOT/.ci/run"
}

# normal_path PATH -- PATH (absolute) with its '.' and '..' parts resolved by
# name, as GNU's realpath -m does, which macOS's realpath lacks.
normal_path() {
  local IFS=/ part parts=()
  for part in $1; do
    case $part in
      '' | .) ;;
      ..) [ "${#parts[@]}" -eq 0 ] || unset "parts[$((${#parts[@]} - 1))]" ;;
      *) parts+=("$part") ;;
    esac
  done
  echo "/${parts[*]}"
}

@test "every relative link of the README and of docs/ points at a file in the project" {
  local doc dir link target missing=""
  for doc in README.md docs/*.md node/README.md runner/report/charts/README.md; do
    [ -f "$ROOT/$doc" ] || continue
    dir=$(dirname "$doc")
    # shellcheck disable=SC2013  # links hold no blanks: one a word
    for link in $(grep -o '](\([^)#]*\))' "$ROOT/$doc" | sed 's/^](//; s/)$//'); do
      case $link in http*|'') continue ;; esac
      target=$(normal_path "$(cd "$ROOT/$dir" && pwd -P)/$link")
      case $target in "$(cd "$ROOT" && pwd -P)"/*) ;; *) missing+=" $doc:$link(outside)"; continue ;; esac
      [ -e "$target" ] || missing+=" $doc:$link"
    done
  done
  [ -z "$missing" ] || { echo "missing:$missing"; false; }
}

@test "every #anchor link of the README and of docs/ names a heading of its file" {
  run "$PYTHON" - "$ROOT" <<'PY'
import glob, os, re, sys
root = sys.argv[1]
def anchors(path):
    out = set()
    for l in open(path, encoding="utf-8"):
        if l.startswith("#"):
            t = re.sub(r"[^\w\- ]", "", l.lstrip("#").strip().lower())
            out.add(t.replace(" ", "-"))
    return out
for doc in ["README.md"] + sorted(glob.glob(os.path.join(root, "docs", "*.md"))):
    path = os.path.join(root, doc)
    text = open(path, encoding="utf-8").read()
    for target, a in re.findall(r"\]\(([^)#\s]*)#([^)\s]+)\)", text):
        if target.startswith("http"):
            continue
        f = os.path.normpath(os.path.join(os.path.dirname(path), target)) if target else path
        if f.endswith(".md") and os.path.basename(f) != "REPORT.md" and a not in anchors(f):
            print("%s: #%s is no heading of %s" % (os.path.relpath(path, root), a, os.path.relpath(f, root)))
PY
  assert_output ""
}

@test "every file the READMEs name in backticks exists (no runner/catalog.json, no moved file)" {
  local doc path missing=""
  for doc in README.md docs/*.md node/README.md runner/report/charts/README.md; do
    for path in $(grep -o '`[^` ]*`' "$ROOT/$doc" | tr -d '`' \
        | grep -E '^(c|go|node|rust|runner|tests|fixtures|scripts)/[^<>{}*@]*\.[a-z]+$' | sort -u); do
      [ -e "$ROOT/$path" ] || missing+=" $doc:$path"
    done
  done
  [ -z "$missing" ] || { echo "missing:$missing"; false; }
}

@test "the generated blocks of the README and docs/results.md are generated from the reference runs they link" {
  local r
  r=$(sed -n '/reference-results:begin/,/reference-results:end/p' "$ROOT/docs/results.md" \
    | grep -o 'results/reference/[^]`)]*/REPORT.md' | head -1)
  [ -n "$r" ] || { echo "docs/results.md links no reference run under results/reference/"; false; }
  run "$PYTHON" -m runner.report.readme --check
  assert_success
  # The first screen answers: the generated verdicts come before the two commands.
  run grep -n -m1 -e '<!-- answer:begin -->' -e '^## Two commands' "$ROOT/README.md"
  assert_output --partial 'answer:begin'
}

@test "the README answers first: a sentence per language, a row per workload, then the two commands and one chart" {
  run "$PYTHON" - "$ROOT" <<'PY'
import json, os, re, sys
root = sys.argv[1]
text = open(os.path.join(root, "README.md"), encoding="utf-8").read()
lines = text.split("\n")
block = text[text.index("<!-- answer:begin -->"):text.index("<!-- answer:end -->")]
run = re.search(r"reference-runs: (\S+)", block).group(1)
s = json.load(open(os.path.join(root, run, "summary.json"), encoding="utf-8"))
compared = [e for e in s["headline"] if not e["is_baseline"] and e["method"] == "inprocess"
            and e["ratio"] is not None]
langs = sorted({e["lang"] for e in compared})
workloads = sorted({e["workload"] for e in compared})
said = re.findall(r"^In (\S+), ", block, re.M)
if len(said) != len(langs):
    print("%d sentences a language, the run compares %d languages" % (len(said), len(langs)))
rows = re.findall(r"^\| \*\*(\S+)\*\* ", block, re.M)
if rows != workloads:
    print("the table's rows %s, the run's workloads %s" % (rows, workloads))
head = next(l for l in block.split("\n") if l.startswith("| workload |"))
if head.count(" | ") != len(langs):
    print("the table has %d language columns, the run %d" % (head.count(" | "), len(langs)))
two = lines.index("## Two commands")
if two > 40:
    print("## Two commands is on line %d" % (two + 1))
if lines.index("<!-- answer:begin -->") > two:
    print("the answer comes after the two commands")
images = [i for i, l in enumerate(lines) if l.startswith("![")]
if len(images) != 1 or images[0] < two:
    print("images on lines %s: one, after the two commands, is wanted" % [i + 1 for i in images])
PY
  assert_success
  assert_output ""
}

@test "docs/results.md shows the seed-profile run's seed sections, every heading nested under its block's" {
  # Each seed section of the seed-profile run follows its block's heading, one
  # level below it, as the default run's sections follow the results' title.
  run "$PYTHON" - "$ROOT/docs/results.md" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
block = text[text.index("<!-- reference-results:begin -->"):text.index("<!-- reference-results:end -->")]
head = "#### Each seed's own method: the seed-profile run"
if head not in block:
    sys.exit("no seed-profile block")
default, seed = block.split(head)
for name, part, level in (("the default run", default, 4), ("the seed-profile run", seed, 5)):
    titles = re.findall(r"^(#+) (Seed \d{3} reproduced)$", part, re.M)
    if not titles:
        print("%s: no seed section" % name)
    for marks, title in titles:
        if len(marks) != level:
            print("%s: %s %s, not at level %d" % (name, marks, title, level))
PY
  assert_success
  assert_output ""
}

@test "docs/results.md judges every target given at another N, from a run at that N" {
  # A target with at_iterations (the tasks bounds at N = 1,000,000) is not
  # judged in the default run; the block after "Targets at another N" must
  # hold each one's row with a verdict, from a run whose N is the target's.
  run "$PYTHON" - "$ROOT" <<'PY'
import glob, json, os, re, sys
root = sys.argv[1]
text = open(os.path.join(root, "docs/results.md"), encoding="utf-8").read()
block = text[text.index("<!-- reference-results:begin -->"):text.index("<!-- reference-results:end -->")]
head = "#### Targets at another N"
if head not in block:
    sys.exit("no block of targets at another N")
part = block.split(head)[1]
for f in sorted(glob.glob(os.path.join(root, "catalog/*.json"))):
    for t in json.load(open(f)).get("targets") or []:
        if "at_iterations" not in t:
            continue
        rows = [l for l in part.splitlines() if l.startswith("| %s (" % t["what"])]
        if not rows or not re.search(r"\*\*(met|missed|not resolvable)", rows[0]):
            print("%s: no judged row" % t["id"])
m = re.search(r"Targets at another N\n\n.*?\[`([^`]+)`\]", block, re.S)
run = json.load(open(os.path.join(root, m.group(1), "run.json")))
print("" if run["workloads"]["tasks"]["iterations"] == 1000000 else "the run is not at N = 1,000,000")
PY
  assert_success
  assert_output ""
}

@test "readme.py refuses a fourth run that judges no target at its N, in one line" {
  # The default run as the fourth: its N is not the tasks bounds' 1,000,000.
  local first
  first=$(sed -n 's|.*reference-runs: \([^ ]*\) .*|\1|p' "$ROOT/README.md")
  sed "s|\(reference-runs: .*\) [^ ]* -->|\1 $first -->|" "$ROOT/README.md" > "${BATS_TEST_TMPDIR}/README.md"
  run ! cmp -s "$ROOT/README.md" "${BATS_TEST_TMPDIR}/README.md"
  run "$PYTHON" -m runner.report.readme --check --readme "${BATS_TEST_TMPDIR}/README.md"
  assert_failure 2
  assert_output --partial "judges no target given at its N (at_iterations)"
  assert_equal "${#lines[@]}" 1
}

@test "readme.py --check fails when a generated block was edited by hand, in either file" {
  sed 's/\([0-9]\)x \[/9\1x [/' "$ROOT/docs/results.md" > "${BATS_TEST_TMPDIR}/results.md"
  run ! cmp -s "$ROOT/docs/results.md" "${BATS_TEST_TMPDIR}/results.md"
  run "$PYTHON" -m runner.report.readme --check --results "${BATS_TEST_TMPDIR}/results.md"
  assert_failure 1
  assert_output --partial "the generated blocks differ"
  # The README's summary table: a ratio before its interval in small print.
  sed 's/\([0-9]\)x <sub>/9\1x <sub>/' "$ROOT/README.md" > "${BATS_TEST_TMPDIR}/README.md"
  run ! cmp -s "$ROOT/README.md" "${BATS_TEST_TMPDIR}/README.md"
  run "$PYTHON" -m runner.report.readme --check --readme "${BATS_TEST_TMPDIR}/README.md"
  assert_failure 1
  assert_output --partial "the generated blocks differ"
}

@test "the README's prose outside the generated blocks quotes no measured ratio" {
  # Figures of a run belong in the generated blocks (checked above); the seeds'
  # own claims are in the seeds' table.
  run awk '/<!-- (answer|reference-results|catalog-table|ladder-steps|ladders):begin -->/ { skip = 1 }
           !skip && !/^\| 00[0-9] \|/ && /[0-9]\.[0-9]+x( |\]|,|$)/ { print FILENAME ":" NR ": " $0 }
           /<!-- (answer|reference-results|catalog-table|ladder-steps|ladders):end -->/ { skip = 0 }' \
    "$ROOT/README.md" "$ROOT"/docs/{workloads,results,methodology,hosts,adding}.md
  assert_output ""
}

@test "every seed is named once, with its title and claim, in the seeds' table" {
  local n
  for n in 000 001 002 003 004; do
    run grep -c "^| $n | " "$ROOT/README.md"
    assert_output 1
  done
}

@test "the seed profile's table in the README states each workload's N and warm-up as the catalog gives them" {
  # The catalog's seed profile (catalog/<workload>.json, read by
  # Catalog.warmup as the runner does) is the one source; the README's table
  # is written by hand, so its "N and warm-up" cell must say that N and
  # "none" for a warm-up of 0, else "after W".
  run "$PYTHON" - "$ROOT" "$CATALOG_DIR" <<'PY'
import re, sys
from runner.catalog import catalog
from runner.core import expr
cat = catalog.load(sys.argv[2])
text = open(sys.argv[1] + "/README.md", encoding="utf-8").read()
rows = dict(re.findall(r"^\| `(\w+)` \(\d{3}\) \| ([^|]*) \|", text, re.M))
seeded = [w for w in sorted(cat.workloads) if cat.settings(w, "seed")]
if sorted(rows) != seeded:
    print("the README's seed-profile table has %s, the seed profile %s" % (sorted(rows), seeded))
for w in seeded:
    cell = rows.get(w)
    if cell is None:
        continue
    n = cat.settings(w, "seed")["iterations"]
    warm = expr.warmup_for(cat.warmup(w, "seed"), n)
    words = re.findall(r"\d[\d,]*", cell)
    if format(n, ",") not in words:
        print("%s: the README says %r, the seed profile runs N = %s" % (w, cell, format(n, ",")))
    if warm == 0 and not cell.rstrip().endswith("none"):
        print("%s: the README says %r, the seed profile warms up with none" % (w, cell))
    if warm and not re.search(r"after %s\b" % re.escape(format(warm, ",")), cell):
        print("%s: the README says %r, the seed profile warms up with %s" % (w, cell, format(warm, ",")))
PY
  assert_success
  assert_output ""
}

@test "the README is at most 300 lines and names no path outside the repository" {
  [ "$(wc -l < "$ROOT/README.md")" -le 300 ]
  run grep -n -e '\.\./' "$ROOT/README.md"
  assert_output ""
}

@test "every runner option is documented in the README" {
  local opt missing=""
  for opt in $("$PYTHON" -m runner --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
    [ "$opt" = --help ] && continue
    grep -q -- "\`$opt" "$ROOT/README.md" || missing+=" $opt"
  done
  [ -z "$missing" ] || { echo "undocumented:$missing"; false; }
}
