#!/usr/bin/env bash
# Sets up and runs the main job: builds flickd in release mode and runs it.
# - With a DRM display or a touchscreen on this machine: `flickd run` (auto-detects both; extra
#   arguments are passed on, e.g. --config FILE --content PATH).
# - Without either (a build machine, a container): replays the bundled demo recording
#   (demo/flick-demo.event, made by the project's own generator) on the headless display, prints
#   each gesture and writes every frame as PNG into out/frames — and says so.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
swift build -c release --static-swift-stdlib --product flickd
swift build -c release --static-swift-stdlib --product flickctl
bin=.build/release/flickd
if compgen -G "/dev/dri/card*" > /dev/null || "$bin" list-devices 2>/dev/null | grep -q "touchscreen:"; then
  exec "$bin" run "$@"
fi
rm -rf out/frames
echo "run: no touchscreen and no DRM display on this machine — replaying the bundled demo recording" \
     "(demo/flick-demo.event) on the headless display; PNG frames go to out/frames" >&2
exec "$bin" replay demo/flick-demo.event --snapshot-dir out/frames "$@"
