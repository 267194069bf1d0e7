#!/bin/sh
# check-asm.sh BUILD_DIR -- the coroutine switches (c/lib/coro_switch_*.S)
# assembled for every object format they are written for, whatever the host:
# clang cross-assembles for arm64 and x86_64, macOS (Mach-O) and Linux (ELF),
# and llvm-nm lists the symbols each object defines, which must be the two
# the C code calls (with Mach-O's leading underscore).  A `;` joining two
# statements assembles on ELF and is a comment on arm64 Mach-O: that object
# defined nothing and no program that uses coroutines linked on macOS.
#
# Also checked from the objects: the AArch64 ELF object built with
# -mbranch-protection=standard carries the GNU property note with BTI and PAC
# (and none without it), and each switch has unwind information (CFI) for
# both of its functions.
#
# On x86_64, from the C programs make built: every function that yields (the
# paired switch's `ret $8`) is a coroutine's own, never called directly
# (see the check below for why).
#
# Needs clang and the llvm tools (scripts/deps.sh installs them); without them
# it says so on one line and counts one skipped check.  Ends with
# 'asm: N passed, N failed, N skipped' for scripts/run-tests.sh.
set -u

build=${1:-build}
out="$build/asm"
passed=0 failed=0

# find_tool NAME -- prints a command for the llvm tool NAME: on PATH, with a
# version suffix (Debian), Homebrew's keg-only llvm, or Xcode's.
find_tool() {
  for t in "$1" "$1-19" "$1-18" "$1-17" "$1-16" "$1-15" "$1-14" \
           /opt/homebrew/opt/llvm/bin/"$1" /usr/local/opt/llvm/bin/"$1"; do
    if command -v "$t" >/dev/null 2>&1; then command -v "$t"; return 0; fi
  done
  t=$(xcrun --find "$1" 2>/dev/null) && [ -n "$t" ] && { echo "$t"; return 0; }
  return 1
}

clang=$(find_tool clang) || clang=""
nm=$(find_tool llvm-nm) || nm=""
readelf=$(find_tool llvm-readelf) || readelf=""
dwarfdump=$(find_tool llvm-dwarfdump) || dwarfdump=""
objdump=$(find_tool llvm-objdump) || objdump=""
if [ -z "$clang" ] || [ -z "$nm" ] || [ -z "$readelf" ] || [ -z "$dwarfdump" ] || [ -z "$objdump" ]; then
  echo "check-asm: skipped: needs clang, llvm-nm, llvm-readelf, llvm-dwarfdump and llvm-objdump (Debian: clang llvm; macOS: brew install llvm)"
  echo "asm: 0 passed, 0 failed, 1 skipped"
  exit 0
fi
mkdir -p "$out"

ok() { echo "ok: $*"; passed=$((passed + 1)); }
# words TEXT -- TEXT's lines joined by blanks.
words() { printf '%s\n' "$1" | paste -sd ' ' -; }
bad() { echo "FAILED: $*"; failed=$((failed + 1)); }

# assemble TARGET SOURCE OBJ [FLAGS...] -- clang -c for TARGET; says why not.
assemble() {
  target=$1 src=$2 obj=$3
  shift 3
  if "$clang" -target "$target" -Ic/lib "$@" -c "$src" -o "$obj" 2>"$obj.err"; then
    return 0
  fi
  bad "$target $src does not assemble: $(head -3 "$obj.err")"
  return 1
}

# The symbols c/lib/coro.h and coro.c use, as the object must define them.
want="ab__coro_boot ab__coro_switch"

for arch in aarch64 x86_64; do
  src="c/lib/coro_switch_$arch.S"
  case $arch in aarch64) darwin_arch=arm64 ;; *) darwin_arch=x86_64 ;; esac
  for target in "$darwin_arch-apple-macos11" "$arch-linux-gnu"; do
    obj="$out/$arch-$target.o"
    assemble "$target" "$src" "$obj" || continue
    case $target in *apple*) prefix=_ ;; *) prefix="" ;; esac
    expect=$(for s in $want; do printf '%s%s\n' "$prefix" "$s"; done | sort)
    # Defined, external symbols only (T: global text); assembler-local labels such as ltmp0 are not.
    got=$("$nm" --defined-only "$obj" | awk '$2 == "T" { print $3 }' | sort)
    if [ "$got" = "$expect" ]; then
      ok "$target $src defines $(words "$got")"
    else
      bad "$target $src defines [$(words "$got")], wanted [$(words "$expect")]; all symbols: $("$nm" "$obj" | tr '\n' ' ')"
    fi
    # Unwind information: an eh_frame FDE or a compact-unwind entry per function.
    fdes=$("$dwarfdump" --eh-frame "$obj" 2>/dev/null | grep -c ' FDE ')
    compact=$("$objdump" --unwind-info "$obj" 2>/dev/null | grep -c 'start:')
    if [ "$fdes" -ge 2 ] || [ "$compact" -ge 2 ]; then
      ok "$target $src has unwind information for both functions ($fdes FDEs, $compact compact entries)"
    else
      bad "$target $src: unwind information for $fdes FDEs and $compact compact entries, wanted 2"
    fi
  done
done

# The branch-protection note: the linker ANDs it over every object, so one
# object without it turns BTI off for the whole program.
src=c/lib/coro_switch_aarch64.S
obj="$out/aarch64-bti.o"
if assemble aarch64-linux-gnu "$src" "$obj" -mbranch-protection=standard; then
  note=$("$readelf" -n "$obj" | grep -i 'feature')
  case $note in
    *BTI*PAC*) ok "$src with -mbranch-protection=standard: $(words "$note" | sed 's/^ *//')" ;;
    *) bad "$src with -mbranch-protection=standard has no BTI+PAC property note: '$note'" ;;
  esac
  # Every function begins with a landing pad; the switch signs and authenticates its return address.
  dis=$("$objdump" -d --mattr=+bti,+pauth "$obj")
  pads=$(printf '%s\n' "$dis" | grep -cE 'bti[[:space:]]+c$')
  signs=$(printf '%s\n' "$dis" | grep -cE 'paci(a|b)sp')
  auths=$(printf '%s\n' "$dis" | grep -cE 'auti(a|b)sp')
  if [ "$pads" -eq 2 ] && [ "$signs" -eq 1 ] && [ "$auths" -eq 1 ]; then
    ok "$src with -mbranch-protection=standard: 2 bti c, 1 paciasp, 1 autiasp"
  else
    bad "$src with -mbranch-protection=standard: $pads bti c (want 2), $signs pac (want 1), $auths aut (want 1)"
  fi
fi
obj="$out/aarch64-plain.o"
if assemble aarch64-linux-gnu "$src" "$obj"; then
  if "$readelf" -n "$obj" | grep -qi 'feature'; then
    bad "$src without branch protection claims it in a property note"
  else
    ok "$src without branch protection has no property note"
  fi
fi

# Where the C workloads' coroutines yield (x86_64, whose switches pair
# calls and returns: c/lib/coro.h).  A coroutine resumed inside a function
# it called (an await or a fiber's suspension in a helper) returns from it
# across the switch, and yields again from a frame the resume never saw: two
# mispredicted returns a suspension, ~30 ns a read of readfile@inline.  So no
# function that yields (its `ret $8`) may be called directly: each is the
# coroutine's own function, entered through the start's indirect call.
# From the linked programs, built by make (make test builds them first).
case $(uname -m) in
  x86_64|amd64)
    seen=0
    for prog in "$build"/bin/c-*; do
      [ -x "$prog" ] || continue
      seen=$((seen + 1))
      # GNU and llvm objdump alike: "ret $0x8" or "retq $8", "call ae80 <f>"
      # or "callq 0xae80 <f>".  Functions are told apart by their address
      # (two static functions may share a name).  Prints the functions that
      # yield and are called directly, then "|" and how many yield.
      calls=$("$objdump" -d --no-show-raw-insn "$prog" | awk '
        function hex(t) { sub(/^0x/, "", t); sub(/^0+/, "", t); return t }
        /^[0-9a-f]+ <.*>:$/ { fn = hex($1); name[fn] = substr($2, 2, length($2) - 3) }
        /\tret[q]?[ \t]+\$(0x)?8$/ { yields[fn] = 1 }
        /\tcall[q]?[ \t]+(0x)?[0-9a-f]+ </ {
          for (k = 2; k <= NF; k++) if ($k ~ /^</) t = hex($(k - 1))
          by[t] = by[t] " " name[fn]
        }
        END {
          n = 0
          for (f in yields) { n++; if (by[f] != "") printf "%s yields and is called by%s; ", name[f], by[f] }
          print "|" n
        }')
      case $calls in
        "|"*) ok "$prog: ${calls#|} functions yield, each a coroutine's own" ;;
        *) bad "$prog: ${calls%|*}" ;;
      esac
    done
    [ "$seen" -gt 0 ] || bad "no C program under $build/bin to look at the yields of (make c builds them)"
    ;;
esac

echo "asm: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
