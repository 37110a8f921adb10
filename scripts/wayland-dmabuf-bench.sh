#!/usr/bin/env bash
# BENCHMARKS.md item 16: CPU time per frame with dma-buf buffers against shared memory, under
# Weston 10's DRM backend (GL renderer, llvmpipe) on vkms in the e2e VM (Tests/E2E/vm.sh: the
# only place here with a DRM card and /dev/udmabuf; Tests/E2E/weston-bench.sh does the runs).
# Run it alone on the machine's VM: `flock /work/vm.lock scripts/wayland-dmabuf-bench.sh`.
# Usage: scripts/wayland-dmabuf-bench.sh [PAIRS] [SECONDS]   (3, 10)
set -euo pipefail
cd "$(dirname "$0")/.."
PAIRS=${1:-3}
WINDOW=${2:-10}
BUILD=${FLICKD_E2E_BUILD:-.build}
OUT=${FLICKD_E2E_OUT:-.build-e2e/dmabuf-bench}
for product in flickd flickctl; do
  swift build -c release --static-swift-stdlib --scratch-path "$BUILD" --product "$product"
done
bindir=$(swift build -c release --static-swift-stdlib --scratch-path "$BUILD" --show-bin-path)
rm -rf "$OUT"; mkdir -p "$OUT/bin"
for product in flickd flickctl; do strip -o "$OUT/bin/$product" "$bindir/$product"; done
echo "host loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
Tests/E2E/vm.sh -t $((PAIRS * 2 * (WINDOW + 40) + 120)) "$PWD" Tests/E2E/weston-bench.sh "$OUT" "$PAIRS" "$WINDOW"
echo "host loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
