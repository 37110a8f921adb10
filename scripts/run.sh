#!/usr/bin/env bash
# Sets up and runs the main job: builds flickd in release mode and runs it.
# - With a DRM or fbdev display on this machine: `flickd run` (auto-detects it and the
#   touchscreens; extra arguments are passed on, e.g. --config FILE --content PATH).
# - With a touchscreen but no display: `flickd run --display headless`, and says so.
# - Without either (a build machine, a container): replays the bundled demo recording
#   (demo/flick-demo.event, made by the project's own generator) over the demo map (demo/map.jpg,
#   shown whole and centred by demo/demo.toml) on the headless display, prints each gesture and
#   writes every frame as PNG into out/frames — and says so.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
swift build -c release --static-swift-stdlib --product flickd
swift build -c release --static-swift-stdlib --product flickctl
bin=.build/release/flickd
if compgen -G "/dev/dri/card*" > /dev/null || compgen -G "/dev/fb[0-9]*" > /dev/null; then
  exec "$bin" run "$@"
fi
if "$bin" list-devices 2>/dev/null | grep -q "touchscreen:"; then
  echo "run: a touchscreen but no DRM or fbdev display on this machine — flickd run on the headless display" >&2
  exec "$bin" run --display headless "$@"
fi
rm -rf out/frames
echo "run: no touchscreen and no DRM display on this machine — replaying the bundled demo recording" \
     "(demo/flick-demo.event) over the demo map (demo/map.jpg, fitted and centred: demo/demo.toml)" \
     "on the headless display; PNG frames go to out/frames" >&2
exec "$bin" replay demo/flick-demo.event --config demo/demo.toml --snapshot-dir out/frames "$@"
