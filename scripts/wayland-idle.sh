#!/usr/bin/env bash
# BENCHMARKS.md item 15: flickd's wake-ups while idle under a real compositor. Starts Debian's
# Weston 10 headless (pixman; as nobody when run as root, since Weston refuses root; its own
# XDG_RUNTIME_DIR), flickd on it (--display wayland, the test pattern), waits for its first
# frame and for a scroll (flickctl set-offset, animated) to end, then counts the times its
# threads were put on a CPU (/proc/PID/task/*/schedstat, third field) over an idle window.
# Verdict: 0. Then the same window with the scroll animating, for scale.
# Usage: scripts/wayland-idle.sh [FLICKD_BUILD_DIR] [SECONDS]   (default .build/release, 10 s)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-.build/release}
SECONDS_IDLE=${2:-10}
FLICKD=$BUILD/flickd
FLICKCTL=$BUILD/flickctl
[ -x "$FLICKD" ] && [ -x "$FLICKCTL" ] || { echo "wayland-idle: build first: swift build -c release (or give the build folder)" >&2; exit 66; }
command -v weston >/dev/null || { echo "wayland-idle: weston is not installed (scripts/deps.sh)" >&2; exit 69; }

dir=$(mktemp -d /tmp/flickd-wayland-idle-XXXXXX)
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

cat > "$dir/weston.ini" <<'INI'
[core]
idle-time=0
[shell]
startup-animation=none
animation=none
close-animation=none
focus-animation=none
panel-position=none
INI
as_user=()
if [ "$(id -u)" -eq 0 ]; then
  chown nobody:nogroup "$runtime"
  as_user=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
fi
XDG_RUNTIME_DIR=$runtime "${as_user[@]}" weston --backend=headless-backend.so --use-pixman --shell=desktop-shell.so \
  --config="$dir/weston.ini" --width=1280 --height=800 --socket=wayland-idle >/dev/null 2>&1 &
weston_pid=$!
for _ in $(seq 300); do [ -S "$runtime/wayland-idle" ] && break; sleep 0.1; done
[ -S "$runtime/wayland-idle" ] || { echo "wayland-idle: weston did not start" >&2; exit 69; }

cat > "$dir/flickd.toml" <<TOML
[control]
socket = "$dir/control.sock"
[state]
path = "$dir/state.json"
[content]
placeholder = "test-pattern"
TOML
XDG_RUNTIME_DIR=$runtime WAYLAND_DISPLAY=wayland-idle FLICKD_LOG=stderr \
  "$FLICKD" run --display wayland --config "$dir/flickd.toml" 2>"$dir/flickd.log" &
flickd_pid=$!
for _ in $(seq 300); do grep -q "ready: " "$dir/flickd.log" && break; sleep 0.1; done
grep -q "ready: " "$dir/flickd.log" || { echo "wayland-idle: flickd did not show a frame:" >&2; cat "$dir/flickd.log" >&2; exit 69; }

wakeups() { # the times flickd's threads were put on a CPU so far
  local sum=0 field
  for task in /proc/"$flickd_pid"/task/*; do
    field=$(awk '{print $3}' "$task/schedstat" 2>/dev/null || echo 0)
    sum=$((sum + field))
  done
  echo "$sum"
}
ctl() { "$FLICKCTL" "$@" --socket "$dir/control.sock" >/dev/null; }

# A scroll to its end, then the idle window.
ctl set-offset 0 600
sleep 2
before=$(wakeups); sleep "$SECONDS_IDLE"; after=$(wakeups)
idle=$((after - before))
# For scale: the same window with the content animating back and forth.
before=$(wakeups)
end=$((SECONDS + SECONDS_IDLE))
y=0
while [ "$SECONDS" -lt "$end" ]; do ctl set-offset 0 "$y"; y=$((600 - y)); sleep 0.5; done
after=$(wakeups)
moving=$((after - before))
echo "flickd under Weston 10 (headless, pixman, 1280x800): $idle wake-ups idle in $SECONDS_IDLE s; $moving while scrolling (loadavg $(cut -d' ' -f1-3 /proc/loadavg))"
if [ "$idle" -eq 0 ]; then echo "PASS: 0 wake-ups while idle"; else echo "FAIL: $idle wake-ups while idle"; exit 1; fi
