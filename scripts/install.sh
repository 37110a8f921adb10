#!/usr/bin/env bash
# Installs flickd: the binaries (stripped), the systemd unit, the default config, sysusers.d and
# tmpfiles.d entries for the `flickd` user and its home, the man pages (scripts/man.sh), shell
# completions and the docs. `make install` builds in release mode and calls this; `make deb`
# (scripts/deb.sh) stages the package with it.
#
#   scripts/install.sh [BUILD_DIR]        (default .build/release; it holds flickd, flickctl,
#                                          flickd-render and generate-manual, as `make all` leaves it)
#
# Variables (as for `make install`):
#   DESTDIR     staging root for packaging; nothing inside the files refers to it (default: none)
#   PREFIX      where the binaries and the unit live (default /usr/local)
#   SYSCONFDIR  where flickd/flickd.toml goes (default /etc)
#   UNITDIR     where flickd.service goes (default $PREFIX/lib/systemd/system)
#   MANDIR      where the man pages go, gzipped (default $PREFIX/share/man)
#   STRIP       the strip program (default strip; STRIP=true keeps the symbols)
# An existing config is never overwritten: the new default goes beside it as flickd.toml.default.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-.build/release}
PREFIX=${PREFIX:-/usr/local}
SYSCONFDIR=${SYSCONFDIR:-/etc}
UNITDIR=${UNITDIR:-$PREFIX/lib/systemd/system}
MANDIR=${MANDIR:-$PREFIX/share/man}
STRIP=${STRIP:-strip}
DESTDIR=${DESTDIR:-}
# Debian's zsh reads vendor-completions under /usr; zsh built from source, site-functions.
if [ "$PREFIX" = /usr ]; then zshdir=$PREFIX/share/zsh/vendor-completions; else zshdir=$PREFIX/share/zsh/site-functions; fi
for bin in flickd flickctl flickd-render; do
  [ -x "$build/$bin" ] || { echo "install: $build/$bin is missing: build first (make all)" >&2; exit 1; }
done

install -d "$DESTDIR$PREFIX/bin" "$DESTDIR$UNITDIR" "$DESTDIR$SYSCONFDIR/flickd" \
           "$DESTDIR$PREFIX/lib/sysusers.d" "$DESTDIR$PREFIX/lib/tmpfiles.d" "$DESTDIR$PREFIX/share/doc/flickd" \
           "$DESTDIR$MANDIR/man1" "$DESTDIR$MANDIR/man5" "$DESTDIR$MANDIR/man8" \
           "$DESTDIR$PREFIX/share/bash-completion/completions" "$DESTDIR$zshdir" \
           "$DESTDIR$PREFIX/share/fish/vendor_completions.d"
# Symbols are half of flickd's size (most of them the static Swift runtime's). A stripped
# binary's backtrace shows addresses: the build folder keeps the unstripped binaries to
# symbolize them (and for a debugger). The options are Debian's (dh_strip).
# flickd-render, the document helper flickd starts, goes beside flickd: flickd runs it from there.
for bin in flickd flickctl flickd-render; do
  install -m 0755 "$build/$bin" "$DESTDIR$PREFIX/bin/$bin"
  "$STRIP" --remove-section=.comment --remove-section=.note --strip-unneeded "$DESTDIR$PREFIX/bin/$bin"
done
# Made from the binaries and config/flickd.toml at each install, so they say what is installed.
pages=$(mktemp -d)
trap 'rm -rf "$pages"' EXIT
scripts/man.sh "$build" "$pages"
# flickd-render's page is written by hand: it has no options for a person to run it with.
cp man/flickd-render.8 "$pages/flickd-render.8"
for page in flickctl.1 flickd.toml.5 flickd.8 flickd-render.8; do
  gzip -9n -c "$pages/$page" >"$DESTDIR$MANDIR/man${page##*.}/$page.gz"
  chmod 0644 "$DESTDIR$MANDIR/man${page##*.}/$page.gz"
done
for bin in flickd flickctl; do
  # Sourced, never run: no #! line (lintian's bash-completion-with-hashbang).
  "$build/$bin" --generate-completion-script bash | sed '1{/^#!/d}' >"$DESTDIR$PREFIX/share/bash-completion/completions/$bin"
  "$build/$bin" --generate-completion-script zsh >"$DESTDIR$zshdir/_$bin"
  "$build/$bin" --generate-completion-script fish >"$DESTDIR$PREFIX/share/fish/vendor_completions.d/$bin.fish"
  chmod 0644 "$DESTDIR$PREFIX/share/bash-completion/completions/$bin" "$DESTDIR$zshdir/_$bin" \
             "$DESTDIR$PREFIX/share/fish/vendor_completions.d/$bin.fish"
done
# The unit names the installed binary and config, wherever PREFIX and SYSCONFDIR put them.
sed -e "s|/usr/local/bin/flickd|$PREFIX/bin/flickd|g" \
    -e "s|/etc/flickd/flickd.toml|$SYSCONFDIR/flickd/flickd.toml|g" \
    -e "s|file:///usr/share/doc/flickd/|file://$PREFIX/share/doc/flickd/|g" \
    systemd/flickd.service > "$DESTDIR$UNITDIR/flickd.service"
chmod 0644 "$DESTDIR$UNITDIR/flickd.service"
install -m 0644 systemd/flickd.sysusers "$DESTDIR$PREFIX/lib/sysusers.d/flickd.conf"
install -m 0644 systemd/flickd.tmpfiles "$DESTDIR$PREFIX/lib/tmpfiles.d/flickd.conf"
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
  echo "install: next: systemd-sysusers && systemd-tmpfiles --create flickd.conf && systemctl daemon-reload && systemctl enable --now flickd" >&2
fi
