#!/usr/bin/env bash
# Generates the Wayland protocol glue of Sources/CWaylandProtocols (client headers and the
# interface tables) with wayland-scanner from Debian's wayland-protocols: SwiftPM cannot run the
# scanner, so the output is committed. `--check` regenerates into a scratch directory and fails
# when it differs from what is committed (scripts/test.sh runs it: Debian 12 pins the scanner,
# 1.21.0, and the protocols, 1.31, so the output is the same on every CI machine).
set -euo pipefail
cd "$(dirname "$0")/.."
PROTOCOLS=$(pkg-config --variable=pkgdatadir wayland-protocols)
# name:path under the protocols directory. The name is the header's and the C file's.
LIST=(
  xdg-shell:stable/xdg-shell/xdg-shell.xml
  presentation-time:stable/presentation-time/presentation-time.xml
  viewporter:stable/viewporter/viewporter.xml
  linux-dmabuf-unstable-v1:unstable/linux-dmabuf/linux-dmabuf-unstable-v1.xml
  input-timestamps-unstable-v1:unstable/input-timestamps/input-timestamps-unstable-v1.xml
  pointer-gestures-unstable-v1:unstable/pointer-gestures/pointer-gestures-unstable-v1.xml
)
TARGET=Sources/CWaylandProtocols

generate() { # into directory $1
  mkdir -p "$1/include"
  for entry in "${LIST[@]}"; do
    name=${entry%%:*}
    xml="$PROTOCOLS/${entry#*:}"
    wayland-scanner client-header "$xml" "$1/include/$name-client-protocol.h"
    wayland-scanner private-code "$xml" "$1/$name-protocol.c"
  done
}

if [ "${1:-}" = "--check" ]; then
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' EXIT
  generate "$scratch"
  for entry in "${LIST[@]}"; do
    name=${entry%%:*}
    for file in "include/$name-client-protocol.h" "$name-protocol.c"; do
      if ! cmp -s "$scratch/$file" "$TARGET/$file"; then
        echo "wayland-protocols: $TARGET/$file differs from what wayland-scanner $(wayland-scanner --version 2>&1 | awk '{print $2}') makes: run scripts/wayland-protocols.sh and commit" >&2
        exit 1
      fi
    done
  done
  exit 0
fi
generate "$TARGET"
