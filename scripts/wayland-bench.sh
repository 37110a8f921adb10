#!/usr/bin/env bash
# BENCHMARKS.md item 15: flickd under a real compositor (Debian's Weston 10, headless, pixman;
# run as nobody when this runs as root, since Weston refuses root; its own XDG_RUNTIME_DIR).
#  1. Wake-ups while idle: flickd on Weston (--display wayland, the test pattern) after a scroll
#     ended, left alone for SECONDS; the times its threads were put on a CPU
#     (/proc/PID/task/*/schedstat, third field). Verdict: 0.
#  2. CPU time per frame, Wayland against headless (no DRM card here; headless, like DRM, scans
#     the content out at zoom 1 and composes only zoomed frames), PAIRS interleaved pairs
#     (W H W H …): each run scrolls (animated set-offset back and forth) for SECONDS, then zooms
#     (animated set-zoom 2 and back) for SECONDS; CPU = schedstat's first field summed over
#     flickd's threads, frames = `status`' frames. Printed per run, then the medians and the
#     median of the paired ratios W/H.
# Usage: scripts/wayland-bench.sh [FLICKD_BUILD_DIR] [SECONDS] [PAIRS]   (.build/release, 10, 3)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-.build/release}
WINDOW=${2:-10}
PAIRS=${3:-3}
FLICKD=$BUILD/flickd
FLICKCTL=$BUILD/flickctl
[ -x "$FLICKD" ] && [ -x "$FLICKCTL" ] || { echo "wayland-bench: build first: swift build -c release (or give the build folder)" >&2; exit 66; }
command -v weston >/dev/null || { echo "wayland-bench: weston is not installed (scripts/deps.sh)" >&2; exit 69; }
WIDTH=1280 HEIGHT=800

dir=$(mktemp -d /tmp/flickd-wayland-bench-XXXXXX)
chmod 755 "$dir"
runtime=$dir/runtime
mkdir -m 700 "$runtime"
weston_pid="" flickd_pid=""
cleanup() {
  [ -n "$flickd_pid" ] && kill "$flickd_pid" 2>/dev/null || true
  [ -n "$weston_pid" ] && kill "$weston_pid" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT

# Weston's kiosk-like desktop shell (Tests/E2E/weston.ini), copied where nobody can read it.
cp Tests/E2E/weston.ini "$dir/"
as_user=()
if [ "$(id -u)" -eq 0 ]; then
  chown nobody:nogroup "$runtime"
  as_user=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
fi
XDG_RUNTIME_DIR=$runtime "${as_user[@]}" weston --backend=headless-backend.so --use-pixman --shell=desktop-shell.so \
  --config="$dir/weston.ini" --width=$WIDTH --height=$HEIGHT --socket=wayland-bench >/dev/null 2>&1 &
weston_pid=$!
for _ in $(seq 300); do [ -S "$runtime/wayland-bench" ] && break; sleep 0.1; done
[ -S "$runtime/wayland-bench" ] || { echo "wayland-bench: weston did not start" >&2; exit 69; }

cat > "$dir/flickd.toml" <<TOML
[control]
socket = "$dir/control.sock"
[state]
path = "$dir/state.json"
[content]
placeholder = "test-pattern"
TOML

start() { # start wayland|headless
  local display=wayland
  [ "$1" = headless ] && display=headless:${WIDTH}x$HEIGHT
  rm -f "$dir/state.json"
  XDG_RUNTIME_DIR=$runtime WAYLAND_DISPLAY=wayland-bench FLICKD_LOG=stderr \
    "$FLICKD" run --display "$display" --config "$dir/flickd.toml" 2>"$dir/flickd.log" &
  flickd_pid=$!
  for _ in $(seq 300); do grep -q "ready: " "$dir/flickd.log" && return 0; sleep 0.1; done
  echo "wayland-bench: flickd did not show a frame:" >&2; cat "$dir/flickd.log" >&2; exit 69
}
stop() { kill "$flickd_pid"; wait "$flickd_pid" 2>/dev/null || true; flickd_pid=""; }
field() { # field N: schedstat's Nth field summed over flickd's threads
  local sum=0 value
  for task in /proc/"$flickd_pid"/task/*; do
    value=$(awk -v n="$1" '{print $n}' "$task/schedstat" 2>/dev/null || echo 0)
    sum=$((sum + value))
  done
  echo "$sum"
}
ctl() { "$FLICKCTL" "$@" --socket "$dir/control.sock" >/dev/null; }
frames() { "$FLICKCTL" status --json --socket "$dir/control.sock" | python3 -c 'import json,sys; print(json.load(sys.stdin)["status"]["frames"])'; }
per_frame() { # per_frame scroll|zoom: CPU µs per frame over WINDOW seconds of it
  local cpu0 frames0 end step=0
  cpu0=$(field 1); frames0=$(frames); end=$((SECONDS + WINDOW))
  while [ "$SECONDS" -lt "$end" ]; do
    if [ "$1" = scroll ]; then ctl set-offset 0 $(( step % 2 ? 0 : 900 )); else ctl set-zoom $(( step % 2 ? 1 : 2 )); fi
    step=$((step + 1)); sleep 0.6
  done
  python3 -c "print(round(($(field 1) - $cpu0) / 1000 / max(1, $(frames) - $frames0), 1))"
}

# 1. Idle under Weston.
start wayland
ctl set-offset 0 600
sleep 2
before=$(field 3); sleep "$WINDOW"; after=$(field 3)
idle=$((after - before))
stop
echo "idle: flickd under Weston 10 (headless, pixman, ${WIDTH}x$HEIGHT): $idle wake-ups in $WINDOW s (loadavg $(cut -d' ' -f1-3 /proc/loadavg))"

# 2. CPU per frame, paired.
results=()
for pair in $(seq "$PAIRS"); do
  for kind in wayland headless; do
    start "$kind"
    sleep 1
    scroll=$(per_frame scroll)
    ctl set-zoom 1 --no-animate
    zoom=$(per_frame zoom)
    stop
    echo "pair $pair $kind: ${scroll} µs CPU per frame scrolling at zoom 1, ${zoom} µs zooming (loadavg $(cut -d' ' -f1 /proc/loadavg))"
    results+=("$kind $scroll $zoom")
  done
done
printf '%s\n' "${results[@]}" | python3 -c '
import statistics, sys
rows = [l.split() for l in sys.stdin if l.strip()]
w = [r for r in rows if r[0] == "wayland"]; h = [r for r in rows if r[0] == "headless"]
for i, name in ((1, "scrolling at zoom 1"), (2, "zooming")):
    ratios = [float(a[i]) / float(b[i]) for a, b in zip(w, h) if float(b[i]) > 0]
    print("%s: wayland median %.1f µs/frame, headless %.1f, median of paired ratios W/H x%.2f" % (
        name, statistics.median(float(r[i]) for r in w), statistics.median(float(r[i]) for r in h),
        statistics.median(ratios) if ratios else float("nan")))
'
if [ "$idle" -eq 0 ]; then echo "PASS: 0 wake-ups while idle"; else echo "FAIL: $idle wake-ups while idle"; exit 1; fi
