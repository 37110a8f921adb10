#!/usr/bin/env bash
# Installs what the build needs, builds warning-free and runs every test.
# Real-panel recordings are read from FLICKD_RECORDINGS (default: ../shared/recordings beside
# the checkout, when it exists); the recording tests say so and skip when it is absent.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
# The committed Wayland protocol glue must be what this machine's wayland-scanner makes of
# Debian 12's wayland-protocols (SwiftPM cannot run the scanner).
scripts/wayland-protocols.sh --check
if [ -z "${FLICKD_RECORDINGS:-}" ] && [ -d ../shared/recordings ]; then
  export FLICKD_RECORDINGS="$PWD/../shared/recordings"
fi
swift build --build-tests -Xswiftc -warnings-as-errors
# scripts/install.sh makes the man pages with it; the install and man page tests run install.sh.
swift build --product generate-manual -Xswiftc -warnings-as-errors
swift test --skip-build
# docs/ARCHITECTURE.md's path of one touch, counted from the code: an instrumented build of its
# own (.build-touch-path) and the one test that reads the coverage counters, alone.
scripts/touch-path.sh
