#!/usr/bin/env bash
# Soak (not in CI): the release flickd on the headless display under a synthetic 250 Hz touch
# stream for MINUTES (default 10), sampled every 10 s. Passes when, after a 60 s warm-up, RSS
# stays within ±1 MB, the fd count is constant and frames keep flowing. RELIABILITY.md has the
# figures of the last long run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
swift build -c release --static-swift-stdlib --product flickd
swift build -c release --static-swift-stdlib --product flickd-soak
exec .build/release/flickd-soak --minutes "${1:-10}" --flickd .build/release/flickd
