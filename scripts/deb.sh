#!/usr/bin/env bash
# Builds the Debian package (`make deb`): out/flickd_VERSION_ARCH.deb with the stripped
# binaries, the unit, the config as a conffile, the man pages, the completions and the
# sysusers.d and tmpfiles.d entries, all staged by scripts/install.sh. Installing it is
#   dpkg -i flickd_VERSION_ARCH.deb && systemctl enable --now flickd
#
#   scripts/deb.sh [OUT_DIR]          (default out)
#   FLICKD_E2E_BUILD=DIR scripts/deb.sh   (build in DIR, as scripts/e2e.sh does; default .build)
#
# The version is the one `flickd --version` prints; the architecture dpkg's; Depends comes from
# dpkg-shlibdeps on the binaries. DEB_MAINTAINER overrides the maintainer (default: the last
# commit's author). Dated SOURCE_DATE_EPOCH, else the last commit, so a rebuild is the same.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-out}

scripts/deps.sh
# The same flags as every release build (Makefile), so this shares .build/release; in the
# scratch path scripts/e2e.sh built in when FLICKD_E2E_BUILD names one, so CI (the e2e run, then
# this) builds the release binaries once.
scratch=${FLICKD_E2E_BUILD:-.build}
for product in flickd flickctl flickd-render generate-manual; do
  swift build -c release --static-swift-stdlib --scratch-path "$scratch" --product "$product"
done
build=$(swift build -c release --static-swift-stdlib --scratch-path "$scratch" --show-bin-path)

version=$("$build/flickd" --version)
arch=$(dpkg --print-architecture)
maintainer=${DEB_MAINTAINER:-$(git log -1 --format='%an <%ae>')}
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then SOURCE_DATE_EPOCH=$(git log -1 --format=%ct); fi
export SOURCE_DATE_EPOCH
commit=$(git rev-parse --short HEAD)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# debhelper's layout (debian/control, the package's tree in debian/flickd), which
# dpkg-shlibdeps expects.
root=$work/debian/flickd
DESTDIR=$root PREFIX=/usr SYSCONFDIR=/etc UNITDIR=/lib/systemd/system MANDIR=/usr/share/man STRIP=strip \
  scripts/install.sh "$build"

doc=$root/usr/share/doc/flickd
install -m 0644 packaging/deb/copyright "$doc/copyright"
# A native package: its changelog is changelog.gz, in Debian's format.
{
  echo "flickd ($version) unstable; urgency=medium"
  echo
  echo "  * flickd $version, built from commit $commit."
  echo
  echo " -- $maintainer  $(LC_ALL=C date -u -R -d "@$SOURCE_DATE_EPOCH")"
} | gzip -9n >"$doc/changelog.gz"
chmod 0644 "$doc/changelog.gz"
install -d "$root/usr/share/lintian/overrides"
install -m 0644 packaging/deb/lintian-overrides "$root/usr/share/lintian/overrides/flickd"

# Depends: the C libraries the binaries link (with the versions their symbols need), and systemd
# for the unit and the postinst's sysusers and tmpfiles.
install -d -m 0755 "$root/DEBIAN"
printf 'Source: flickd\n\nPackage: flickd\nArchitecture: any\n' >"$work/debian/control"
# flickd-render adds poppler-glib, librsvg, cairo, fontconfig, GLib and libseccomp.
shlibs=$(cd "$work" && dpkg-shlibdeps -O debian/flickd/usr/bin/flickd debian/flickd/usr/bin/flickctl debian/flickd/usr/bin/flickd-render)
depends="${shlibs#shlibs:Depends=}, systemd"

for script in postinst prerm postrm; do install -m 0755 "packaging/deb/$script" "$root/DEBIAN/$script"; done
echo /etc/flickd/flickd.toml >"$root/DEBIAN/conffiles"
(cd "$root" && find . -path ./DEBIAN -prune -o -path ./etc -prune -o -type f -printf '%P\0' | sort -z \
  | xargs -0 md5sum) >"$root/DEBIAN/md5sums"
cat >"$root/DEBIAN/control" <<EOF
Package: flickd
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Depends: $depends
Section: misc
Priority: optional
Description: touch scrolling and zooming for Linux kiosk panels
 flickd reads raw multitouch from the kernel (evdev), tells taps from drags,
 flicks and pinches, and moves the content with UIScrollView's physics
 (momentum, rubber band, bounce, paging, zoom) straight onto the display
 through DRM/KMS or fbdev, with no X, Wayland or browser. Apps on the board
 steer it and hear its events over a local socket (flickctl). PDFs and SVGs
 are drawn by flickd-render, a sandboxed helper it starts.
 .
 It runs as a systemd service (Type=notify, watchdog, sandboxed) as its own
 user, is tuned by /etc/flickd/flickd.toml (flickd.toml(5)) and logs each
 gesture to the journal. After installing: systemctl enable --now flickd
EOF
find "$root" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
mkdir -p "$out"
deb="$out/flickd_${version}_${arch}.deb"
dpkg-deb --build --root-owner-group -Zxz "$root" "$deb" >/dev/null
echo "deb: $deb ($(du -h "$deb" | cut -f1))"
