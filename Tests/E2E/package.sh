#!/usr/bin/env bash
# Tests/E2E/package.sh DEB — the Debian package installed as an administrator installs it, run as
# root inside the VM (vm.sh) by scripts/e2e.sh: the host's root under a throw-away overlay, so
# dpkg, systemd-sysusers and systemd-tmpfiles change nothing outside the machine. There is no
# systemd as PID 1 there, so the maintainer scripts skip daemon-reload and nothing starts; the
# unit is checked with systemd-analyze instead.
set -uo pipefail

DEB=$(realpath "$1")
failed=()
pass() { echo "[package] PASS $*"; }
fail() { echo "[package] FAIL $*"; failed+=("$*"); }
check() { local what=$1; shift; if "$@"; then pass "$what"; else fail "$what"; fi; }

# man-db's trigger re-indexes every page on the host's root over 9p after each install and
# removal: minutes under emulation. man finds the pages without the index.
rm -f /var/lib/man-db/auto-update
if ! dpkg -i "$DEB"; then
  fail "dpkg -i $DEB"
  exit 1
fi
pass "dpkg -i $(basename "$DEB")"

version=$(dpkg-query -W -f '${Version}' flickd)
check "flickd --version is the package's $version" test "$(/usr/bin/flickd --version)" = "$version"
check "flickctl --version is the package's $version" test "$(/usr/bin/flickctl --version)" = "$version"
missing=()
for file in /usr/bin/flickd /usr/bin/flickctl /lib/systemd/system/flickd.service /etc/flickd/flickd.toml \
            /usr/lib/sysusers.d/flickd.conf /usr/lib/tmpfiles.d/flickd.conf \
            /usr/share/man/man8/flickd.8.gz /usr/share/man/man1/flickctl.1.gz /usr/share/man/man5/flickd.toml.5.gz \
            /usr/share/bash-completion/completions/flickd /usr/share/zsh/vendor-completions/_flickctl \
            /usr/share/fish/vendor_completions.d/flickd.fish /usr/share/doc/flickd/copyright; do
  [ -e "$file" ] || missing+=("$file")
done
check "every file in place${missing:+ (missing: ${missing[*]})}" test ${#missing[@]} = 0
check "the config is a conffile" grep -q '^ /etc/flickd/flickd.toml ' <<<"$(dpkg-query -W -f '${Conffiles}' flickd)"

# postinst: the user (sysusers) in the device groups, and its home (tmpfiles).
check "the flickd user is in input and video" \
  bash -c 'groups=" $(id -nG flickd) "; [[ $groups = *" input "* && $groups = *" video "* ]]'
check "/var/lib/flickd belongs to flickd" test "$(stat -c %U:%G /var/lib/flickd 2>/dev/null)" = flickd:flickd

check "flickd check-config /etc/flickd/flickd.toml --user flickd" /usr/bin/flickd check-config /etc/flickd/flickd.toml --user flickd
if command -v man >/dev/null; then
  check "man finds flickd(8), flickctl(1) and flickd.toml(5)" \
    test "$(man -w flickd flickctl flickd.toml | tr '\n' ' ')" \
      = "/usr/share/man/man8/flickd.8.gz /usr/share/man/man1/flickctl.1.gz /usr/share/man/man5/flickd.toml.5.gz "
fi
if command -v systemd-analyze >/dev/null; then
  out=$(systemd-analyze verify /lib/systemd/system/flickd.service 2>&1)
  check "systemd-analyze verify of the installed unit${out:+: $out}" test -z "$out"
  exposure=$(systemd-analyze security --offline=true /lib/systemd/system/flickd.service 2>&1 \
    | sed -n 's/.*Overall exposure level for flickd.service: \([0-9.]*\).*/\1/p')
  check "systemd-analyze security: exposure ${exposure:-?} (at most 2.0)" \
    awk -v e="${exposure:-99}" 'BEGIN { exit !(e <= 2.0) }'
else
  echo "[package] NOT RUN: systemd-analyze (not installed)"
fi
# The installed daemon runs: the bundled demo recording, replayed on the headless display.
if [ -f demo/flick-demo.event ]; then
  out=$(/usr/bin/flickd replay demo/flick-demo.event 2>&1 >/dev/null | tail -n 1)
  check "the installed flickd replays the demo (${out})" grep -q 'at rest' <<<"$out"
fi

# Removal keeps the edited config; purge removes it and the state folder.
echo "# edited" >>/etc/flickd/flickd.toml
check "dpkg -r flickd" dpkg -r flickd
check "removed: no binaries, the edited config kept" \
  bash -c '[ ! -e /usr/bin/flickd ] && [ ! -e /lib/systemd/system/flickd.service ] && grep -q "# edited" /etc/flickd/flickd.toml'
check "dpkg -P flickd" dpkg -P flickd
check "purged: no config, no state folder" bash -c '[ ! -e /etc/flickd/flickd.toml ] && [ ! -e /var/lib/flickd ]'

if [ ${#failed[@]} -gt 0 ]; then
  echo "[package] ${#failed[@]} failed: ${failed[*]}"
  exit 1
fi
echo "[package] all passed"
