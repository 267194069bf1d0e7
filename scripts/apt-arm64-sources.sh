#!/bin/sh
# apt-arm64-sources.sh APT_DIR NATIVE PORTS CODENAME -- prepares Ubuntu's apt
# sources for arm64 multiarch packages (scripts/deps.sh runs it as root with
# /etc/apt).  Ubuntu serves arm64 from another archive than amd64 (the ports
# archive, PORTS), so every existing source is first limited to the native
# architecture NATIVE, in both formats:
#   one-line   deb URL ...        -> deb [arch=NATIVE] URL ...
#              deb [opts] URL ... -> deb [arch=NATIVE opts] URL ...
#   deb822     a stanza without Architectures: gets Architectures: NATIVE
# (a source that already names its architectures is left as it is), then
# APT_DIR/sources.list.d/arm64-ports.list adds PORTS for arm64 (CODENAME, its
# -updates and -security; main and universe).  Running it again changes nothing.
set -eu

dir=$1 native=$2 ports=$3 codename=$4
tmp=$(mktemp "${TMPDIR:-/tmp}/apt-sources.XXXXXX")
trap 'rm -f "$tmp"' EXIT

for f in "$dir/sources.list" "$dir"/sources.list.d/*.list; do
  [ -f "$f" ] || continue
  [ "$f" != "$dir/sources.list.d/arm64-ports.list" ] || continue
  sed -e "/arch=/b" \
      -e "s/^\(deb\(-src\)\{0,1\}\)[[:space:]]\{1,\}\[/\1 [arch=$native /" \
      -e "/arch=/b" \
      -e "s/^\(deb\(-src\)\{0,1\}\)[[:space:]]\{1,\}/\1 [arch=$native] /" "$f" > "$tmp"
  cat "$tmp" > "$f"
done

for f in "$dir"/sources.list.d/*.sources; do
  [ -f "$f" ] || continue
  awk -v a="$native" '
    function flush() {
      for (i = 1; i <= n; i++) {
        print buf[i]
        if (!has && buf[i] ~ /^Types:/) print "Architectures: " a
      }
      n = 0; has = 0
    }
    /^[[:space:]]*$/ { flush(); print; next }
    { buf[++n] = $0; if ($0 ~ /^Architectures:/) has = 1 }
    END { flush() }' "$f" > "$tmp"
  cat "$tmp" > "$f"
done

mkdir -p "$dir/sources.list.d"
{
  for suite in "$codename" "$codename-updates" "$codename-security"; do
    printf 'deb [arch=arm64] %s %s main universe\n' "$ports" "$suite"
  done
} > "$dir/sources.list.d/arm64-ports.list"
