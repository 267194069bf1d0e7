#!/usr/bin/env bats
# The C drivers (c/<workload>/ on c/lib/harness -> build/bin/c-<workload>):
# backends and the usage.  C's own words for each bad input are the catalog's
# (bad_inputs: "words" of "c"), checked by badinput.bats with every other
# language's; a new C workload needs no edit here.

load test_helper

setup() {
  cd "$ROOT"
}

# c_drivers -- one variant id a line for each C program the catalog runs with
# --variant and --backend (the first of its variants).
c_drivers() {
  local seen=" " id argv prog
  while IFS='|' read -r id argv; do
    case $argv in *" --variant "*" --backend "*) ;; *) continue ;; esac
    prog=${argv%% *}
    case $seen in *" $prog "*) continue ;; esac
    seen+="$prog "
    echo "$id"
  done < <(catalog_rows id argv | grep -E '^[^|]*/c/')
}

@test "an unknown backend of every C driver is a usage error naming it, with the usage" {
  local id failures="" seen=0 k
  for id in $(c_drivers); do
    seen=$((seen + 1))
    variant_argv "$id"
    # The driver's own command with the name after --backend replaced.
    for ((k = 1; k < ${#VARIANT_ARGV[@]}; k++)); do
      [ "${VARIANT_ARGV[k - 1]}" != --backend ] || VARIANT_ARGV[k]=nope
    done
    run --separate-stderr "${VARIANT_ARGV[@]}" --iterations 3
    if [ "$status" -ne 2 ] || [ -n "$output" ] || [[ "$stderr" != *"unknown backend 'nope'"*"usage:"* ]]; then
      failures+="${VARIANT_ARGV[0]}: exit $status, stdout '$output', stderr: $stderr"$'\n'
    fi
  done
  [ "$seen" -gt 0 ] || failures+="no C driver in the catalog"$'\n'
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
}

@test "--help of every C driver names its backends and its workload's flags with the catalog's defaults" {
  local id w backend k failures=""
  for id in $(c_drivers); do
    variant_argv "$id"
    id_parts "$id"
    w=$ID_WORKLOAD backend=$ID_BACKEND
    run --separate-stderr "${VARIANT_ARGV[0]}" --help
    [ "$status" -eq 0 ] || { failures+="$id: --help exits $status"$'\n'; continue; }
    [[ "$output" == *"--backend NAME"*"$backend"* ]] || failures+="$id: --help names no backend $backend"$'\n'
    workload_flags "$w"
    for ((k = 0; k + 1 < ${#WORKLOAD_FLAGS[@]}; k += 2)); do
      [[ "$output" == *"${WORKLOAD_FLAGS[k]} "*"(default '${WORKLOAD_FLAGS[k + 1]}')"* ]] \
        || failures+="$id: --help lacks ${WORKLOAD_FLAGS[k]} with default '${WORKLOAD_FLAGS[k + 1]}'"$'\n'
    done
  done
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
}

# docs/adding.md's rule for where a C style lives: c/<workload>/<style>.c holds
# the style's code, or binds skeletons of c/lib/modes_<style>.c and says so in
# its header; no other file of a workload calls a skeleton, and every skeleton
# is defined in its style's file.
@test "every C style file holds its code or binds its own style's skeletons, naming them" {
  local f w base fn failures="" bound=0
  for f in c/*/*.c; do
    w=${f#c/}; w=${w%%/*}
    case $w in lib|tests|micro) continue ;; esac
    base=$(basename "$f" .c)
    while read -r fn; do
      [ -n "$fn" ] || continue
      bound=$((bound + 1))
      case $base in
        sync|callback|promise|await|fiber|stackless) ;;
        *) failures+="$f calls $fn but is not a style's file"$'\n'; continue ;;
      esac
      grep -qE "^int $fn\(" "c/lib/modes_$base.c" 2>/dev/null ||
        failures+="$f binds $fn, which c/lib/modes_$base.c does not define"$'\n'
      sed -n '1,/\*\//p' "$f" | grep -qF "c/lib/modes_$base.c" ||
        failures+="$f binds a skeleton; its header does not name c/lib/modes_$base.c"$'\n'
    done < <(grep -oE '\bab_mode_[a-z_]+\(' "$f" | tr -d '(' | sort -u)
  done
  while read -r fn; do
    grep -lE "^int $fn\(" c/lib/modes_*.c >/dev/null ||
      failures+="$fn is defined outside a style's skeleton file"$'\n'
  done < <(grep -ohE '^int ab_mode_[a-z_]+\(' c/lib/*.c | sed 's/^int //; s/($//')
  [ -z "$failures" ] || { printf '%s' "$failures"; false; }
  [ "$bound" -ge 20 ]
}
