#!/usr/bin/env bash
# Sets up and runs the main job. Until the daemon lands, that is the scroll-model demo: a
# scripted flick through the UIScrollView model on a virtual clock, printing the delegate
# messages and positions.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
swift build -c release --product scroll-demo
echo "run: no daemon yet — playing the scroll-model demo (scripted flick, virtual clock)" >&2
exec .build/release/scroll-demo "$@"
