#!/usr/bin/env bash
# Makes the three man pages into OUT_DIR, from what cannot drift from the code:
#   flickd.8, flickctl.1  swift-argument-parser's generate-manual on the built binaries (their own
#                         options and help), then man/NAME.tail (exit statuses, environment, files)
#   flickd.toml.5         scripts/config-man.awk on config/flickd.toml (every key, its default,
#                         its comment; a test keeps that file equal to the daemon's keys)
#
#   scripts/man.sh BUILD_DIR OUT_DIR
#
# BUILD_DIR holds flickd, flickctl and generate-manual (`make all` builds them; else
# `swift build --product generate-manual` with that build's flags). The pages are dated
# SOURCE_DATE_EPOCH, else the last commit, so a rebuild makes the same bytes.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: scripts/man.sh BUILD_DIR OUT_DIR}
out=${2:?usage: scripts/man.sh BUILD_DIR OUT_DIR}
tool=${GENERATE_MANUAL:-$build/generate-manual}
for bin in flickd flickctl; do
  [ -x "$build/$bin" ] || { echo "man: $build/$bin is missing: build first (make all)" >&2; exit 1; }
done
[ -x "$tool" ] || { echo "man: $tool is missing: swift build --product generate-manual (make all builds it)" >&2; exit 1; }

if [ -n "${SOURCE_DATE_EPOCH:-}" ]; then
  day=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%d)
else
  day=$(git log -1 --format=%cs 2>/dev/null || date -u +%Y-%m-%d)
fi
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# generate-manual drops every character outside ASCII, so the help goes through a wrapper that
# spells the few the help uses in ASCII; any other one stops the build here rather than vanish.
for bin in flickd flickctl; do
  cat >"$work/$bin" <<WRAPPER
#!/usr/bin/env bash
set -o pipefail
"$PWD/$build/$bin" "\$@" | sed -e 's/→/->/g' -e 's/…/.../g' -e 's/×/x/g' -e 's/≤/<=/g' -e 's/≥/>=/g'
WRAPPER
  [[ $build = /* ]] && sed -i "s|\"$PWD/$build/|\"$build/|" "$work/$bin"
  chmod +x "$work/$bin"
  if "$work/$bin" --experimental-dump-help | LC_ALL=C grep -n '[^ -~]' >&2; then
    echo "man: $bin's help has characters generate-manual would drop (above): spell them in scripts/man.sh" >&2
    exit 1
  fi
done
"$tool" "$work/flickd" --section 8 --date "$day" --output-directory "$work"
"$tool" "$work/flickctl" --section 1 --date "$day" --output-directory "$work"
# generate-manual ends with a generic EXIT STATUS (`.Ex -std`); the tail has the real one.
for page in flickd.8 flickctl.1; do
  { awk '/^\.Sh "EXIT STATUS"$/ { exit } { print }' "$work/$page"; cat "man/${page}.tail"; } >"$out/$page"
done
awk -v date="$(LC_ALL=C date -u -d "$day" '+%B %-d, %Y')" -f scripts/config-man.awk config/flickd.toml >"$out/flickd.toml.5"
