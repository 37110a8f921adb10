#!/usr/bin/env bash
# Tests/E2E/weston.sh OUT — flickd's linux-dmabuf buffers (docs/wayland.md) under Weston 10's DRM
# backend on vkms, run as root inside the VM (vm.sh) by scripts/e2e.sh in a boot of its own. OUT
# holds the staged binaries (bin/) and the content (content.png), and gets the logs and a PNG per
# checked frame.
#
# Why Weston and not cage (NOTES-dmabuf.md has the probes): wlroots 0.15 offers linux-dmabuf only
# with its GL renderer on a device with a render node, and vkms has none; Weston 10's DRM backend
# with its GL renderer (Mesa's llvmpipe through kms_swrast) offers it, and puts a fullscreen
# window's dma-buf on the primary plane: the CRTC's framebuffer is then flickd's own buffer, which
# the grabber reads through the dma-buf and names (`exported-by udmabuf`). Weston runs as root:
# Debian's Weston 10 has no libseat launcher, and the direct one wants root and a VT.
#
#   1. auto: the display line says dmabuf; the CRTC shows flickd's udmabuf; frames at offsets.
#   2. display.wayland_buffers = "shm": shared memory, composed by Weston; frames at offsets.
#   3. no /dev/udmabuf (the module removed, as on Debian's kernel): shared memory, and why.
set -uo pipefail

OUT=$(realpath "$1")
RUN=/run/flickd-weston               # sockets and fifos cannot live on the 9p share
BIN=$RUN/bin
mkdir -p "$RUN/xdg" "$BIN"
chmod 700 "$RUN/xdg"
cp "$OUT"/bin/flickd "$OUT"/bin/flickctl "$OUT"/bin/flickd-e2e-grab "$BIN"/
cp "$OUT"/content.png "$RUN"/
SOCK=$RUN/control.sock
EVENTS=$RUN/events.jsonl
LOG=$RUN/flickd.log
WESTON_LOG=$RUN/weston.log

source "$(dirname "$0")/common.sh"   # sleep, say, pass, fail, is
abort() { abort_showing "$WESTON_LOG" Weston "$@"; }
keep() { for f in "$LOG" "$WESTON_LOG"; do [ -f "$f" ] && cp "$f" "$OUT/weston-$(basename "$f")"; done; }
trap keep EXIT
source "$(dirname "$0")/daemon.sh"   # ctl, status, grab

# ---------------------------------------------------------------- setup
say "kernel $(uname -r); $(ls /dev/dri | tr '\n' ' '); $(ls -l /dev/udmabuf 2>&1)"
[ -c /dev/udmabuf ] || abort "no /dev/udmabuf: vm.sh builds and loads the patched module"
env -i PATH=/usr/bin:/bin XDG_RUNTIME_DIR="$RUN/xdg" weston --backend=drm-backend.so --tty=2 --continue-without-input \
  --shell=desktop-shell.so --config="$(dirname "$0")/weston.ini" --socket=wayland-e2e --logger-scopes=log,drm-backend \
  --log="$WESTON_LOG" >/dev/null 2>&1 &
WESTON=$!
within 120
while in_time && [ ! -S "$RUN/xdg/wayland-e2e" ]; do
  kill -0 $WESTON 2>/dev/null || abort "weston exited at start"
  sleep 0.3
done
[ -S "$RUN/xdg/wayland-e2e" ] || abort "weston's socket did not appear within 120 s"
say "weston: $(grep -m1 'GL renderer' "$WESTON_LOG" | sed 's/^\[[0-9:.]*\] //')"

# start_flickd NAME [TOML...]: flickd as Weston's fullscreen client with the content; waits for
# its socket.
start_flickd() {
  local name=$1; shift
  rm -f "$SOCK"
  { printf '[content]\npath = "%s"\n[control]\nsocket = "%s"\n[state]\npath = "%s"\n' "$RUN/content.png" "$SOCK" "$RUN/state-$name.json"
    printf '%s\n' "$@"; } >"$RUN/flickd-$name.toml"
  env -i PATH=/usr/bin:/bin XDG_RUNTIME_DIR="$RUN/xdg" WAYLAND_DISPLAY=wayland-e2e \
    "$BIN/flickd" run --config "$RUN/flickd-$name.toml" --display wayland >"$LOG" 2>&1 &
  FLICKD=$!
  within 120
  while in_time; do
    [ -S "$SOCK" ] && ctl status >/dev/null 2>&1 && return 0
    kill -0 $FLICKD 2>/dev/null || abort "$name: flickd exited at start"
    sleep 0.5
  done
  abort "$name: flickd's socket did not answer within 120 s"
}
stop_flickd() {
  kill -TERM $FLICKD 2>/dev/null
  within 30
  while in_time && kill -0 $FLICKD 2>/dev/null; do sleep 0.3; done
  kill -0 $FLICKD 2>/dev/null && { fail "flickd still runs 30 s after SIGTERM"; kill -KILL $FLICKD; }
  wait $FLICKD
  local rc=$?
  [ $rc = 0 ] || fail "flickd ended with status $rc after SIGTERM, not 0"
  kill -0 $WESTON 2>/dev/null || abort "weston died with flickd's window"
}
# frames NAME WANT: the content at three offsets, each read back from the CRTC; WANT is the
# exporter the frame line must name ("udmabuf") or "" for a framebuffer of Weston's own.
frames() {
  local name=$1 want=$2 at ok=yes exporter
  for at in 0,0 600,500 2048,1536; do
    ctl set-offset "${at%,*}" "${at#*,}" --no-animate >/dev/null || { fail "$name: set-offset $at refused"; ok=no; continue; }
    local tries=0 good=no
    while ((tries++ < 5)); do
      if out=$(grab "$name-${at/,/-}" expect --offset "$at"); then good=yes; break; fi
      sleep 0.5
    done
    echo "$out"
    [ $good = yes ] || { fail "$name: the frame does not show offset $at"; ok=no; continue; }
    exporter=$(sed -n 's/^ *fb .* exported-by \([a-z0-9_-]*\).*/\1/p' <<<"$out")
    [ "$exporter" = "$want" ] || { fail "$name: at $at the CRTC's framebuffer is exported by '${exporter:-the card (a buffer of Weston)}', not '${want:-the card}'"; ok=no; }
  done
  [ $ok = yes ]
}

# ---------------------------------------------------------------- 1. dmabuf
say "1. flickd on Weston (DRM, GL), display.wayland_buffers = \"auto\""
start_flickd dmabuf
display=$(status | jq -r .display)
say "  display: $display"
if [[ $display != *"dmabuf buffers (udmabuf, LINEAR)"* ]]; then
  fail "1: the display line does not say dmabuf buffers: $display"
elif frames 1-dmabuf udmabuf; then
  pass "1: dmabuf buffers; Weston scans flickd's udmabuf out (the CRTC's framebuffer is exported by udmabuf); frames at 3 offsets are the content"
fi
grep -c "placed to primary plane" "$WESTON_LOG" | sed 's/^/  weston: views placed on the primary plane: /'
stop_flickd

# ---------------------------------------------------------------- 2. shm, forced
say "2. display.wayland_buffers = \"shm\""
start_flickd shm '[display]' 'wayland_buffers = "shm"'
display=$(status | jq -r .display)
say "  display: $display"
if [[ $display != *'shm buffers: display.wayland_buffers = "shm"'* ]]; then
  fail "2: the display line does not say shm buffers by the config: $display"
elif frames 2-shm ""; then
  pass "2: shm buffers as configured; Weston composes them; frames at 3 offsets are the content"
fi
stop_flickd

# ---------------------------------------------------------------- 3. no udmabuf
say "3. no /dev/udmabuf (the module removed)"
/bin/busybox rmmod udmabuf || abort "rmmod udmabuf"
start_flickd none
display=$(status | jq -r .display)
say "  display: $display"
if [[ $display != *"shm buffers: /dev/udmabuf: No such file or directory (the kernel has no udmabuf: CONFIG_UDMABUF)"* ]]; then
  fail "3: the display line does not say why not dmabuf: $display"
elif frames 3-none ""; then
  pass "3: without /dev/udmabuf shared memory, and the display line says why; frames at 3 offsets are the content"
fi
stop_flickd
kill $WESTON 2>/dev/null

if [ ${#failed[@]} = 0 ]; then say "weston: all passed"; exit 0; fi
say "weston: ${#failed[@]} failed"
exit 1
