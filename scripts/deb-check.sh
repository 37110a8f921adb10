#!/usr/bin/env bash
# Checks the Debian package scripts/deb.sh built (CI runs it after `make deb`; installing it in a
# machine is Tests/E2E/package.sh): lintian reports nothing, even at its pedantic and
# informational levels, beyond the tags packaging/deb/lintian-overrides explains; the package
# holds exactly the expected files; its binaries are stripped and say its version; its config
# is a conffile; its flickd.toml(5) is what the generator makes from config/flickd.toml; its unit
# passes systemd-analyze verify. Any failure is a non-zero exit.
#
#   scripts/deb-check.sh [DEB]        (default: the one in out/)
set -euo pipefail
cd "$(dirname "$0")/.."
deb=${1:-$(ls out/flickd_*.deb | tail -n 1)}
failed=0
fail() { echo "deb-check: FAILED: $*" >&2; failed=1; }

if ! command -v lintian >/dev/null; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends lintian >/dev/null
fi
# Exit status 2 on any tag at these levels, unused overrides included (they are info tags).
lintian --fail-on error,warning,info,pedantic -I --pedantic "$deb" 2> >(grep -v 'running with root privileges' >&2) \
  || fail "lintian (above)"

expected="/etc/flickd/flickd.toml
/lib/systemd/system/flickd.service
/usr/bin/flickctl
/usr/bin/flickd
/usr/bin/flickd-render
/usr/lib/sysusers.d/flickd.conf
/usr/lib/tmpfiles.d/flickd.conf
/usr/share/bash-completion/completions/flickctl
/usr/share/bash-completion/completions/flickd
/usr/share/doc/flickd/README.md
/usr/share/doc/flickd/changelog.gz
/usr/share/doc/flickd/copyright
/usr/share/fish/vendor_completions.d/flickctl.fish
/usr/share/fish/vendor_completions.d/flickd.fish
/usr/share/lintian/overrides/flickd
/usr/share/man/man1/flickctl.1.gz
/usr/share/man/man5/flickd.toml.5.gz
/usr/share/man/man8/flickd-render.8.gz
/usr/share/man/man8/flickd.8.gz
/usr/share/zsh/vendor-completions/_flickctl
/usr/share/zsh/vendor-completions/_flickd"
files=$(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { sub(/^\./, "", $6); print $6 }' | sort)
[ "$files" = "$expected" ] || fail "the files differ from the expected ones: $(diff <(echo "$expected") <(echo "$files") | grep '^[<>]' | tr '\n' ' ')"

version=$(dpkg-deb -f "$deb" Version)
depends=$(dpkg-deb -f "$deb" Depends)
for lib in libc6 libevdev2 libdrm2 libpixman-1-0 libspng0 libturbojpeg0 libjpeg62-turbo libwebp7 libwebpdemux2 libexpat1 libwayland-client0 libsystemd0 libstdc++6 systemd \
           libpoppler-glib8 librsvg2-2 libcairo2 libfontconfig1 libfreetype6 libglib2.0-0 libgdk-pixbuf-2.0-0 libseccomp2; do
  [[ ", $depends," = *", $lib "* || ", $depends," = *", $lib,"* ]] || fail "Depends lacks $lib: $depends"
done

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
dpkg-deb -R "$deb" "$root"
[ "$(cat "$root/DEBIAN/conffiles")" = /etc/flickd/flickd.toml ] || fail "conffiles: $(cat "$root/DEBIAN/conffiles")"
for bin in flickd flickctl; do
  readelf -S --wide "$root/usr/bin/$bin" | grep -q '\.symtab' && fail "$bin is not stripped"
  [ "$("$root/usr/bin/$bin" --version)" = "$version" ] || fail "$bin --version is not the package's $version"
  echo "deb-check: $bin: $(stat -c %s "$root/usr/bin/$bin") bytes"
done
page=$(gzip -dc "$root/usr/share/man/man5/flickd.toml.5.gz")
date=$(sed -n 's/^\.Dd //p' <<<"$page")
[ "$page" = "$(awk -v date="$date" -f scripts/config-man.awk config/flickd.toml)" ] \
  || fail "flickd.toml(5) is not what scripts/config-man.awk makes from config/flickd.toml"

# The unit names /usr/bin/flickd, so it is verified with the package's tree as the root, given
# what every system has and the package does not ship: the targets and /bin/kill.
if command -v systemd-analyze >/dev/null; then
  install -d "$root/bin"
  cp /bin/kill "$root/bin/kill"
  cp -n /lib/systemd/system/*.target "$root/lib/systemd/system/"
  out=$(MANPATH="$root/usr/share/man" systemd-analyze verify --root="$root" flickd.service 2>&1) && [ -z "$out" ] \
    || fail "systemd-analyze verify: $out"
  echo "deb-check: $(systemd-analyze security --offline=true --root="$root" flickd.service 2>&1 | grep 'Overall exposure')"
fi

[ $failed = 0 ] || exit 1
echo "deb-check: $deb passed (lintian clean, $(echo "$expected" | wc -l) files, version $version)"
