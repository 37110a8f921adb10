#!/usr/bin/env bash
# Installs the Debian packages flickd builds against (the C libraries behind the C* shim
# targets). Idempotent: skips apt entirely when every package is already installed.
set -euo pipefail
PKGS=(pkg-config libevdev-dev libdrm-dev libpixman-1-dev libspng-dev libturbojpeg0-dev libjpeg62-turbo-dev libwebp-dev libsystemd-dev libtomlplusplus-dev libexpat1-dev)
# The Wayland client (libwayland-client, and wayland-scanner for scripts/wayland-protocols.sh's
# check), the protocols' XML, and Weston for the headless Wayland test (WaylandWestonTests).
PKGS+=(libwayland-dev wayland-protocols weston)
# The content-provider examples the tests run against the daemon (examples/provider/).
PKGS+=(python3 libcairo2-dev)
# flickd-render, the document helper (docs/documents.md): poppler for PDFs, librsvg for SVGs, cairo
# to draw (and, in the tests, to write the PDFs and SVGs they render), fontconfig, libseccomp.
PKGS+=(libpoppler-glib-dev librsvg2-dev libfontconfig-dev libseccomp-dev)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "deps: installing ${missing[*]}" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi
