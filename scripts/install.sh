#!/usr/bin/env bash
# Installs flickd: the binaries, the systemd unit, the default config, a sysusers.d entry for
# the `flickd` user and the docs. `make install` builds in release mode and calls this.
#
#   scripts/install.sh [BUILD_DIR]        (default .build/release)
#
# Variables (as for `make install`):
#   DESTDIR     staging root for packaging; nothing inside the files refers to it (default: none)
#   PREFIX      where the binaries and the unit live (default /usr/local)
#   SYSCONFDIR  where flickd/flickd.toml goes (default /etc)
#   UNITDIR     where flickd.service goes (default $PREFIX/lib/systemd/system)
# An existing config is never overwritten: the new default goes beside it as flickd.toml.default.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-.build/release}
PREFIX=${PREFIX:-/usr/local}
SYSCONFDIR=${SYSCONFDIR:-/etc}
UNITDIR=${UNITDIR:-$PREFIX/lib/systemd/system}
DESTDIR=${DESTDIR:-}
for bin in flickd flickctl; do
  [ -x "$build/$bin" ] || { echo "install: $build/$bin is missing: build first (make all)" >&2; exit 1; }
done

install -d "$DESTDIR$PREFIX/bin" "$DESTDIR$UNITDIR" "$DESTDIR$SYSCONFDIR/flickd" \
           "$DESTDIR$PREFIX/lib/sysusers.d" "$DESTDIR$PREFIX/share/doc/flickd"
install -m 0755 "$build/flickd" "$build/flickctl" "$DESTDIR$PREFIX/bin/"
# The unit names the installed binary and config, wherever PREFIX and SYSCONFDIR put them.
sed -e "s|/usr/local/bin/flickd|$PREFIX/bin/flickd|g" \
    -e "s|/etc/flickd/flickd.toml|$SYSCONFDIR/flickd/flickd.toml|g" \
    -e "s|file:///usr/share/doc/flickd/|file://$PREFIX/share/doc/flickd/|g" \
    systemd/flickd.service > "$DESTDIR$UNITDIR/flickd.service"
chmod 0644 "$DESTDIR$UNITDIR/flickd.service"
install -m 0644 systemd/flickd.sysusers "$DESTDIR$PREFIX/lib/sysusers.d/flickd.conf"
config="$DESTDIR$SYSCONFDIR/flickd/flickd.toml"
if [ -e "$config" ]; then
  install -m 0644 config/flickd.toml "$config.default"
  echo "install: kept $config; the new default is $config.default" >&2
else
  install -m 0644 config/flickd.toml "$config"
fi
install -m 0644 README.md "$DESTDIR$PREFIX/share/doc/flickd/README.md"
echo "install: flickd in $DESTDIR$PREFIX/bin, unit in $DESTDIR$UNITDIR, config in $DESTDIR$SYSCONFDIR/flickd" >&2
if [ -z "$DESTDIR" ]; then
  echo "install: next: systemd-sysusers && systemctl daemon-reload && systemctl enable --now flickd" >&2
fi
