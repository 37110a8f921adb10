#!/usr/bin/env bash
# Tests/E2E/scenarios.sh OUT [12|15] — the end-to-end scenarios, run as root inside the VM (vm.sh) by
# scripts/e2e.sh. OUT holds the staged binaries (bin/), the content (content.png), and gets
# the results: flickd's log, the event stream, the notify messages, and a PNG per checked frame.
#
# One flickd, started with `--display auto --input auto`, lives through the first six scenarios; a
# uinput touchscreen (flickd-e2e-touch) plays the gestures in real time; frames are read back
# from vkms while flickd holds it (flickd-e2e-grab); events come from `flickctl subscribe`.
# Timing under emulation is slow and uneven, so results are checked against what flickd
# reports (offsets, zoom, velocities), never against numbers computed in advance. After it stops,
# the bring-up tools (`flickd record`, `flickd events`) read the same touchscreen (7, 8). flickd
# then runs five times more: on tiled content (9), on a content provider, the Python example
# examples/provider/timetable.py drawing a departures board with a live clock (10), with display
# power (11), with its monitor forced off, then unplugged and replugged (12, Tests/E2E/monitors.sh;
# `scenarios.sh OUT 12` runs it alone), and on a content
# file copied over in place while it shows (13), and twice to count the DRM calls of a panned
# frame, panning one framebuffer and, as before, a framebuffer per frame (14), and last on a PDF
# menu drawn by its helper flickd-render, turned by a flick and by `flickctl page` (15,
# Tests/E2E/document.sh; `scenarios.sh OUT 15` runs it alone).
set -uo pipefail

OUT=$(realpath "$1")
RUN=/run/flickd-e2e                 # sockets and fifos cannot live on the 9p share
BIN=$RUN/bin                        # binaries copied to tmpfs: exec from 9p costs a second
mkdir -p "$RUN" "$BIN"
cp "$OUT"/bin/* "$BIN"/
SOCK=$RUN/control.sock
EVENTS=$RUN/events.jsonl
LOG=$RUN/flickd.log
CONFIG=$RUN/flickd.toml

source "$(dirname "$0")/common.sh"   # sleep, say, pass, fail, is
abort() {
  fail "$*"
  say "cannot go on; flickd's log:"
  sed 's/^/    /' "$LOG" 2>/dev/null | tail -n 40
  say "stopped by: $*"   # last, for CI keeps only the end
  exit 1
}
keep() { for f in "$LOG" "$EVENTS" "$RUN/notify.log" "$CONFIG"; do [ -f "$f" ] && cp "$f" "$OUT/"; done; }
trap keep EXIT

source "$(dirname "$0")/daemon.sh"   # ctl, status, mark, since, wait_event, wait_log, wait_rest, touch_, grab

# ---------------------------------------------------------------- setup
say "kernel $(uname -r); $(ls /dev/dri | tr '\n' ' ')"
BEFORE=$("$BIN/flickd-e2e-grab" frame 2>&1 | sed -n 's/^fb \([0-9]*\) .*/\1/p')
say "before flickd: the console shows framebuffer ${BEFORE:-none}"

coproc TOUCH { exec "$BIN/flickd-e2e-touch" --screen 1024x768 2>&1; }
read -r -t 60 reply <&"${TOUCH[0]}" || abort "the touchscreen injector did not start"
[[ $reply == ready\ /dev/input/event* ]] || abort "touchscreen: $reply"
NODE=${reply#ready }
say "uinput touchscreen at $NODE"

write_config() {
  cat >"$CONFIG" <<EOF
[scroll]
deceleration_rate = "$1"
[content]
path = "$OUT/content.png"
[control]
socket = "$SOCK"
[state]
path = "$RUN/state.json"
EOF
}
write_config normal

# systemd's side of sd_notify: a datagram socket whose messages go to notify.log.
NOTIFY=$RUN/notify.sock
/usr/bin/python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
while True:
    with open(sys.argv[2], "a") as f:
        f.write(s.recv(4096).decode().replace("\n", " ") + "\n")
' "$NOTIFY" "$RUN/notify.log" &
for ((i = 0; i < 100; i++)); do [ -S "$NOTIFY" ] && break; sleep 0.1; done
[ -S "$NOTIFY" ] || abort "no notify socket (python3)"

# The end of the run: the verdict, and flickd's log when something failed.
finish() {
  echo
  if [ ${#failed[@]} = 0 ]; then
    say "all $1 passed"
    exit 0
  fi
  # The log first and the verdict last: CI keeps only the end of what a run printed.
  say "flickd's log:"
  sed 's/^/    /' "$LOG" 2>/dev/null | tail -n 60
  say "${#failed[@]} failure(s):"
  printf '  %s\n' "${failed[@]}"
  exit 1
}
source "$(dirname "$0")/document.sh"   # scenario 15, document_scenario
source "$(dirname "$0")/monitors.sh"   # scenario 12, monitors_scenario
# `scenarios.sh OUT 15` runs scenario 15 alone (FLICKD_E2E_ONLY=document scripts/e2e.sh), and
# `scenarios.sh OUT 12` scenario 12 (FLICKD_E2E_ONLY=monitors).
if [ "${2:-}" = 15 ]; then
  document_scenario
  finish "of scenario 15"
fi
if [ "${2:-}" = 12 ]; then
  monitors_scenario
  finish "of scenario 12"
fi

# ---------------------------------------------------------------- 1. start: finds vkms and the touchscreen
say "1. flickd --display auto --input auto"
NOTIFY_SOCKET=$NOTIFY "$BIN/flickd" run --config "$CONFIG" --display auto --input auto >"$LOG" 2>&1 &
FLICKD=$!
within 60
while in_time; do
  grep -q READY=1 "$RUN/notify.log" 2>/dev/null && break
  kill -0 $FLICKD 2>/dev/null || abort "flickd exited at start"
  sleep 0.2
done
grep -q READY=1 "$RUN/notify.log" || abort "no READY=1 within 60 s"
say "READY=1: $(grep -m1 READY=1 "$RUN/notify.log")"
"$BIN/flickctl" subscribe --socket "$SOCK" >"$EVENTS" 2>"$RUN/subscribe.err" &
S=$(status)
display=$(jq -r .display <<<"$S")
device=$(jq -r .device <<<"$S")
ok=yes
[[ $display == "drm /dev/dri/card0 "*1024x768* ]] || { fail "1: display is '$display', not vkms' card0 at 1024x768"; ok=no; }
# vkms is loaded with enable_overlay=1: flickd must drive its planes (zero-copy scrolling).
[[ $display == *"(atomic, 2 overlay planes)" ]] || { fail "1: display is '$display', without its overlay planes"; ok=no; }
[[ $device == *"$NODE"* ]] || { fail "1: input is '$device', not $NODE"; ok=no; }
grep -q "ready:" "$LOG" || { fail "1: no 'ready' line in the log"; ok=no; }
grab 1-start expect --offset 0,0 || { fail "1: the first frame does not show the content's top-left"; ok=no; }
[ $ok = yes ] && pass "1: found $display and $device; READY=1; the frame shows the content's top-left"

# ---------------------------------------------------------------- 2. tap
say "2. tap"
mark
touch_ tap 300 200 >/dev/null
if tap=$(wait_event tap 15); then
  sleep 1
  moved=$(since | grep -cE '"type":"(willBeginDragging|didScroll)"')
  if is 'x >= 298.5 && x <= 301.5 && y >= 198.5 && y <= 201.5' x="$(jq .x <<<"$tap")" y="$(jq .y <<<"$tap")" \
     && [ "$moved" = 0 ]; then
    pass "2: tap at content ($(jq -r '"\(.x), \(.y)"' <<<"$tap")), no scroll"
  else
    fail "2: $tap, with $moved scroll events"
  fi
else
  fail "2: no tap event"
fi

# ---------------------------------------------------------------- 3. flick
# flick_up NAME: a 200 px flick upwards in 160 ms; prints "travel speed" after the release.
flick_up() {
  mark
  touch_ flick 512 600 512 400 160 >/dev/null
  local end gesture release
  end=$(wait_event didEndDecelerating 30) || { fail "$1: no didEndDecelerating"; return 1; }
  gesture=$(since | grep -F '"gesture":"flick"' | head -n1)
  release=$(since | grep -F '"type":"didEndDragging"' | head -n1)
  [ -n "$gesture" ] && [ -n "$release" ] || { fail "$1: no flick gesture or didEndDragging"; return 1; }
  REST=$(offset_of "$end")
  # How far momentum carried the content, and the release speed: their ratio is set by the
  # deceleration rate alone (v0 / (1000 ln(1/d)) / v0).
  TRAVEL=$(jq -n --argjson a "$release" --argjson b "$end" '($b.offset[1] - $a.offset[1]) | fabs')
  SPEED=$(jq -n --argjson g "$gesture" '($g.vx * $g.vx + $g.vy * $g.vy) | sqrt')
  say "  $1: released at $(offset_of "$release") at $SPEED px/s, rest at $REST (travel $TRAVEL px)"
}
say "3. flick"
if flick_up 3; then
  S=$(wait_rest 20) || fail "3: still moving: $S"
  if [ "$(offset_of "$S")" != "$REST" ]; then
    fail "3: status offset $(offset_of "$S") differs from the rest event's $REST"
  elif ! is 'y > 300' y="${REST#*,}"; then
    fail "3: the content moved only to $REST"
  elif ! grab 3-flick expect --offset "$REST"; then
    fail "3: the frame at rest does not show offset $REST"
  elif ! is 'o > 0' o="${GRAB_OFFSET:-0}"; then
    fail "3: the frame at rest is a composed buffer (framebuffer offset ${GRAB_OFFSET:-none}), not the content scanned out"
  else
    pass "3: the flick moved the content to $REST; the frame shows it there, scanned out from the content (byte offset $GRAB_OFFSET)"
    RATIO_NORMAL=$(awk -v t="$TRAVEL" -v v="$SPEED" 'BEGIN{print t / v}')
  fi
fi

# ---------------------------------------------------------------- 4. pinch
say "4. pinch"
ctl set-offset 600 500 --no-animate >/dev/null
wait_rest 10 >/dev/null
mark
touch_ pinch 512 384 200 400 400 >/dev/null
if zoomed=$(wait_event didEndZooming 30); then
  S=$(wait_rest 20) || fail "4: still moving: $S"
  z=$(jq .zoomScale <<<"$S")
  if ! is 'z > 1.4 && z < 2.6' z="$z"; then
    fail "4: zoomScale $z after spreading two fingers from 200 to 400 px"
  elif grab 4-pinch expect --offset "$(offset_of "$S")" --zoom "$z"; then
    pass "4: pinch to zoomScale $z at offset $(offset_of "$S"); the frame shows the content scaled"
  else
    fail "4: the frame does not show zoom $z at offset $(offset_of "$S")"
  fi
else
  fail "4: no didEndZooming"
fi
ctl set-zoom 1 --no-animate >/dev/null
ctl set-offset 0 0 --no-animate >/dev/null

# ---------------------------------------------------------------- 5. unplugged mid-drag
say "5. device removed mid-drag, then re-created"
wait_rest 10 >/dev/null
mark
touch_ unplug-drag 512 600 512 450 300 >/dev/null
ok=yes
wait_log "input: $NODE (removed|its node is gone): 1 contact\(s\) cancelled" 15 || { fail "5: flickd did not see the removal with a cancelled contact"; ok=no; }
S=$(wait_rest 20) || { fail "5: a touch is stuck after the removal: $S"; ok=no; }
since | grep -q '"type":"willBeginDragging"' || { fail "5: the drag never started"; ok=no; }
since | grep -q '"type":"didEndDragging"' || { fail "5: the drag was not ended by the removal"; ok=no; }
reply=$(touch_ plug) || ok=no
NODE=${reply#ok plug }
wait_log "input: $NODE '.*' touchscreen" 15 || { fail "5: flickd did not take the re-created $NODE"; ok=no; }
S=$(status)
o=$(offset_of "$S")
z=$(jq .zoomScale <<<"$S")
mark
touch_ tap 300 200 >/dev/null
if tap=$(wait_event tap 15); then
  # The content point under the finger: (screen + offset) / zoom.
  is 'abs(x - (300 + ox) / z) <= 1.5 && abs(y - (200 + oy) / z) <= 1.5' \
    x="$(jq .x <<<"$tap")" y="$(jq .y <<<"$tap")" ox="${o%,*}" oy="${o#*,}" z="$z" \
    || { fail "5: the tap after re-plugging landed at $(jq -r '"\(.x), \(.y)"' <<<"$tap"), offset $o"; ok=no; }
else
  fail "5: no tap after re-plugging"; ok=no
fi
[ $ok = yes ] && pass "5: the removal cancelled the touch, nothing stuck; re-created as $NODE, the next tap works"

# ---------------------------------------------------------------- 6. reload and stop
say "6. SIGHUP with deceleration_rate = \"fast\", then SIGTERM"
ctl set-offset 0 0 --no-animate >/dev/null
wait_rest 10 >/dev/null
write_config fast
kill -HUP $FLICKD
if ! wait_log "reloaded .*deceleration.*0\.99" 15; then
  fail "6: no reload with deceleration 0.99 in the log"
elif flick_up 6; then
  RATIO_FAST=$(awk -v t="$TRAVEL" -v v="$SPEED" 'BEGIN{print t / v}')
  S=$(wait_rest 20) || fail "6: still moving: $S"
  # Momentum travel over release speed: 0.4995 s at 0.998, 0.0995 s at 0.99.
  if [ -z "${RATIO_NORMAL:-}" ]; then
    fail "6: no normal-rate flick to compare with (scenario 3 failed)"
  elif ! is 'f < n / 3 && f > 0.06 && f < 0.14 && n > 0.4 && n < 0.6' f="$RATIO_FAST" n="$RATIO_NORMAL"; then
    fail "6: momentum travel per px/s is $RATIO_FAST s after the reload, $RATIO_NORMAL s before"
  elif grab 6-fast-flick expect --offset "$REST"; then
    pass "6: after SIGHUP momentum carries $RATIO_FAST s of the release speed (was $RATIO_NORMAL s); the frame shows $REST"
  else
    fail "6: the frame at rest does not show offset $REST"
  fi
fi
# The bring-up tools refuse a panel flickd holds (it grabs it), rather than show nothing.
HELD=$("$BIN/flickd" events --count 1 --duration 5 --config "$CONFIG" 2>&1)
held_rc=$?
if [ $held_rc = 69 ] && [[ $HELD == *"held by another program"* ]]; then
  pass "6: flickd events refuses the touchscreen flickd holds (exit 69, says so)"
else
  fail "6: flickd events while flickd holds the touchscreen: exit $held_rc: $HELD"
fi
kill -TERM $FLICKD
wait $FLICKD
rc=$?
AFTER=$("$BIN/flickd-e2e-grab" frame 2>&1 | sed -n 's/^fb \([0-9]*\) .*/\1/p')
if [ $rc != 0 ]; then
  fail "6: flickd exited $rc on SIGTERM"
elif [[ $FLICKD_FBS == *" ${AFTER:-none} "* ]]; then
  fail "6: the screen still shows flickd's framebuffer $AFTER after it exited"
elif [ "${AFTER:-}" != "${BEFORE:-}" ]; then
  fail "6: after flickd exited the screen shows framebuffer ${AFTER:-none}, not the console's ${BEFORE:-none}"
else
  pass "6: SIGTERM: exit 0, and the console's framebuffer ${AFTER:-none} is back on screen"
fi
grep -q STOPPING=1 "$RUN/notify.log" || say "note: no STOPPING=1 seen"
# Every frame of the run reached the screen: the scroll indicators went on vkms' overlay planes
# during each motion, and a refused plane or framebuffer would have been logged here.
if refused=$(grep -E "frame not shown|overlay planes refused" "$LOG"); then
  fail "6: the display refused frames: $(head -n1 <<<"$refused") ($(wc -l <<<"$refused") lines)"
else
  pass "6: no frame refused by the display in the whole run (content scanned out, indicators on overlays)"
fi

# ---------------------------------------------------------------- 7. flickd record, then flickd replay of the file
# flickd is stopped now: the bring-up tools read the touchscreen on their own, as on a new panel.
say "7. flickd record while a tap and a flick play, stopped by SIGINT; flickd replay of the file"
REC=$RUN/recorded.event
: >"$RUN/empty.toml"
"$BIN/flickd" record "$NODE" "$REC" --config "$RUN/empty.toml" 2>"$RUN/record.err" &
RECORDER=$!
ok=yes
within 15
while in_time && ! grep -q "recording $NODE" "$RUN/record.err"; do sleep 0.2; done
grep -q "recording $NODE" "$RUN/record.err" || { fail "7: flickd record did not start: $(cat "$RUN/record.err")"; ok=no; }
# The tap first: a touch while the flick still decelerates would stop it, not tap.
touch_ tap 300 200 >/dev/null
sleep 0.5
touch_ flick 512 600 512 400 160 >/dev/null
sleep 0.5
kill -INT $RECORDER
wait $RECORDER
rc=$?
cp "$REC" "$RUN/record.err" "$OUT/" 2>/dev/null
replayed=$("$BIN/flickd" replay "$REC" --config "$RUN/empty.toml" 2>&1)
sed 's/^/    /' <<<"$replayed"
if [ $rc != 0 ]; then
  fail "7: flickd record exited $rc on SIGINT: $(cat "$RUN/record.err")"; ok=no
elif [ "$(tail -c 1 "$REC" | od -An -c | tr -d ' ')" != '\n' ] || ! tail -n 1 "$REC" | grep -qE '^E: [0-9]+\.[0-9]{6} 0000 0000 0$'; then
  fail "7: the recording does not end with a whole SYN_REPORT line: '$(tail -n 1 "$REC")'"; ok=no
elif ! head -n 3 "$REC" | grep -q '^N: flickd-e2e touchscreen'; then
  fail "7: the recording's header does not name the device: $(head -n 3 "$REC" | tr '\n' ' ')"; ok=no
elif ! grep -q ' s  flick up ' <<<"$replayed" || ! grep -q ' s  tap at ' <<<"$replayed"; then
  fail "7: the replay of the recording does not give the tap and the flick"; ok=no
fi
[ $ok = yes ] && pass "7: recorded $(grep -c '^E:' "$REC") events from $NODE; the replay gives the tap and the flick"

# ---------------------------------------------------------------- 8. flickd events on the first touchscreen
say "8. flickd events (no device named) while a tap plays"
"$BIN/flickd" events --config "$RUN/empty.toml" --size 1024x768 --duration 8 >"$RUN/events.txt" 2>"$RUN/events.err" &
WATCHER=$!
ok=yes
within 15
while in_time && ! grep -q "^screen " "$RUN/events.txt"; do sleep 0.2; done
touch_ tap 300 200 >/dev/null
wait $WATCHER
rc=$?
cp "$RUN/events.txt" "$RUN/events.err" "$OUT/" 2>/dev/null
sed 's/^/    /' "$RUN/events.txt" | head -n 12
down=$(grep -m1 -E '^ +[0-9.]+ s  #[0-9]+ down  slot 0  dev \([0-9]+, [0-9]+\)  px \(' "$RUN/events.txt")
if [ $rc != 0 ]; then
  fail "8: flickd events exited $rc: $(cat "$RUN/events.err")"; ok=no
elif ! head -n 1 "$RUN/events.txt" | grep -q "^device $NODE 'flickd-e2e touchscreen': protocol B"; then
  fail "8: flickd events did not find $NODE: $(head -n 1 "$RUN/events.txt")"; ok=no
elif [ -z "$down" ]; then
  fail "8: no contact's down line"; ok=no
elif ! is 'abs(x - 300) <= 1.5 && abs(y - 200) <= 1.5' \
       x="$(sed -E 's/.*px \(([0-9.]+), .*/\1/' <<<"$down")" y="$(sed -E 's/.*px \([0-9.]+, ([0-9.]+)\).*/\1/' <<<"$down")"; then
  fail "8: the contact went down at '$down', not at screen (300, 200)"; ok=no
elif ! grep -qE '#[0-9]+ up  px' "$RUN/events.txt" || ! grep -q 'gesture: tap at' "$RUN/events.txt"; then
  fail "8: no lift or no tap gesture in flickd events' output"; ok=no
elif ! tail -n 1 "$RUN/events.txt" | grep -q '^rate over the run: '; then
  fail "8: no closing rate line"; ok=no
fi
[ $ok = yes ] && pass "8: flickd events found $NODE and showed the contact (${down#*#}), its lift and the tap"

# ---------------------------------------------------------------- 9. tiled content
# The same content as one image over content.pixel_budget: flickd builds its Deep Zoom pyramid
# (flickd pyramid, in a child) and shows it from tiles; at zoom 1 the primary plane scans out a
# band drawn from the tiles (docs/tiles.md), checked on the screen at two offsets far apart.
say "9. tiled content: the image's pyramid built, shown from tiles, scanned out from the band"
TILED=$RUN/tiled.toml
cat >"$TILED" <<EOF
[content]
path = "$OUT/content.png"
pixel_budget = 65536
cache_directory = "$RUN/cache"
[control]
socket = "$SOCK"
[state]
path = "$RUN/tiled-state.json"
EOF
"$BIN/flickd" run --config "$TILED" --display auto --input auto >"$RUN/tiled.log" 2>&1 &
FLICKD=$!
ok=yes
within 90
levels=0
while in_time; do
  kill -0 $FLICKD 2>/dev/null || break
  # The placeholder is shown while the pyramid builds: wait for the image itself.
  levels=$(ctl status 2>/dev/null | jq -r --arg p "$OUT/content.png" \
    'if .status.content == $p and .status.building == null then .status.tiles.levels // 0 else 0 end' 2>/dev/null || echo 0)
  [ "${levels:-0}" -gt 0 ] && break
  sleep 0.5
done
if [ "${levels:-0}" -le 0 ]; then
  fail "9: the image was not shown from tiles within 90 s: $(tail -n 3 "$RUN/tiled.log")"; ok=no
else
  say "  $(grep -m1 'pyramid of .* built' "$RUN/tiled.log" | sed 's/.*content: //')"
  for at in 300,200 2000,1500; do
    ctl set-offset "${at%,*}" "${at#*,}" --no-animate >/dev/null
    wait_rest 10 >/dev/null
    if ! grab "9-tiled-${at/,/-}" expect --offset "$at"; then
      fail "9: the frame at $at does not show the content there"; ok=no
    elif ! is 'o > 0' o="${GRAB_OFFSET:-0}"; then
      fail "9: the frame at $at is a composed buffer (framebuffer offset ${GRAB_OFFSET:-none}), not the band scanned out"; ok=no
    fi
  done
fi
kill -TERM $FLICKD 2>/dev/null
wait $FLICKD
rc=$?
cp "$RUN/tiled.log" "$OUT/" 2>/dev/null
[ $rc = 0 ] || { fail "9: flickd exited $rc on SIGTERM"; ok=no; }
if refused=$(grep -E "frame not shown|overlay planes refused" "$RUN/tiled.log"); then
  fail "9: the display refused frames: $(head -n1 <<<"$refused")"; ok=no
fi
[ $ok = yes ] && pass "9: $levels levels built from the image; at 300,200 and 2000,1500 the screen shows the content, scanned out from the band drawn from its tiles"

# ---------------------------------------------------------------- 10. a content provider: the Python example
# flickd with content.path = "provider:timetable" shows the placeholder (black) until the example provider,
# examples/provider/timetable.py (standard library only; the host's python3 through the shared
# root), connects and draws its departures board into a shared memfd, tile by tile, as flickd asks
# (docs/protocol.md, "Content providers"). Frames are checked pixel for pixel against the board as
# timetable.py's own drawing code makes it (Tests/E2E/board.py, the clock read off the screen
# first): at the top-left, where a flick brings it to rest, and at the top right, where the clock
# row, invalidated by the provider every second, must advance between two frames while no other
# pixel changes and the view stays.
say "10. content provider: timetable.py draws the board; a flick; its live clock row"
cp "$(dirname "$0")/board.py" "$(dirname "$0")/../../examples/provider/timetable.py" "$RUN/"
PROVIDED=$RUN/provider.toml
PLOG=$RUN/provider.log
cat >"$PROVIDED" <<EOF
[content]
path = "provider:timetable"
provider_grace_s = 3
[control]
socket = "$SOCK"
[state]
path = "$RUN/provider-state.json"
EOF
keep                                  # the first flickd's events are kept; these are new ones
EVENTS=$RUN/provider-events.jsonl
: >"$EVENTS"
# board NAME SECONDS OFFSET [EARLIER]: grabs the frame on screen into OUT/NAME.png (and
# RUN/NAME.ppm) until board.py finds it is the board at OFFSET (with EARLIER, also that only the
# clock changed since that frame), for at most SECONDS: tiles come as the provider draws them.
# Prints the last grab and verdict; leaves the verdict in BOARD, the offset it checked (rounded
# as flickd rounds it) in BOARD_AT, and when the frame was grabbed (µs) in BOARD_T.
board() {
  local name=$1 offset=$3 earlier=() rc tries=0
  [ -n "${4:-}" ] && earlier=("$RUN/$4.ppm")
  within "$2"
  while :; do
    tries=$((tries + 1))
    grab "$name" frame --ppm "$RUN/$name.ppm" >"$RUN/grab.out"
    BOARD_T=${EPOCHREALTIME/./}
    BOARD=$(/usr/bin/python3 "$RUN/board.py" --timetable "$RUN/timetable.py" --offset="$offset" \
      "${earlier[@]}" "$RUN/$name.ppm" 2>&1)
    rc=$?
    { [ $rc = 0 ] || ! in_time; } && break
    sleep 0.5
  done
  cat "$RUN/grab.out"
  echo "$BOARD"
  BOARD_AT=$(sed -n 's/.* is the board at offset \([-0-9]*,[-0-9]*\);.*/\1/p' <<<"$BOARD" | tail -n 1)
  [ $tries = 1 ] || echo "    ($tries grabs)"
  return $rc
}
clock_in() { sed -n 's/.*the clock reads \([0-9:]*\).*/\1/p' <<<"$1" | tail -n 1; }
provided() {
  local S drawn=0 at inv0 inv1 clock_a clock_b t_a rested
  S=""
  within 60
  while in_time && kill -0 $FLICKD 2>/dev/null; do
    S=$(status 2>/dev/null) && [ -n "$S" ] && break
    sleep 0.3
  done
  [ -n "$S" ] || { fail "10: flickd did not answer on its control socket: $(tail -n 3 "$PLOG")"; return 1; }
  say "  flickd up, content $(jq -c .content <<<"$S"), no provider yet ($(jq -c .provider <<<"$S"))"
  "$BIN/flickctl" subscribe --socket "$SOCK" >"$EVENTS" 2>"$RUN/provider-subscribe.err" &
  /usr/bin/python3 "$RUN/timetable.py" --socket "$SOCK" >"$RUN/timetable.out" 2>"$RUN/timetable.err" &
  PROVIDER=$!
  within 60
  while in_time && kill -0 $PROVIDER 2>/dev/null; do
    drawn=$(status | jq -r '.provider.drawn // 0')
    [ "${drawn:-0}" -gt 0 ] && break
    sleep 0.5
  done
  [ "${drawn:-0}" -gt 0 ] \
    || { fail "10: timetable.py drew no tile within 60 s: $(tail -n 3 "$RUN/timetable.err")"; return 1; }
  say "  timetable.py accepted: $(head -n 1 "$RUN/timetable.out")"
  say "  $(ctl provider)"

  # The board, not the placeholder, from the top-left.
  S=$(status)
  is 'x == 0 && y == 0' x="$(jq '.offset[0]' <<<"$S")" y="$(jq '.offset[1]' <<<"$S")" \
    || { fail "10: the provider's content is shown at $(offset_of "$S"), not from the top-left"; return 1; }
  board 10-top 30 0,0 || { fail "10: the frame at 0,0 is not timetable.py's board"; return 1; }

  # A flick: the board comes to rest further down, and the frame is the board there.
  flick_up 10 || return 1
  S=$(wait_rest 20) || { fail "10: still moving: $S"; return 1; }
  if [ "$(offset_of "$S")" != "$REST" ]; then
    fail "10: status offset $(offset_of "$S") differs from the rest event's $REST"; return 1
  elif ! is 'y > 300' y="${REST#*,}"; then
    fail "10: the flick moved the board only to $REST"; return 1
  elif ! board 10-flick 30 "$REST"; then
    fail "10: the frame at rest is not the board at $REST"; return 1
  elif ! is 'o > 0' o="${GRAB_OFFSET:-0}"; then
    fail "10: the frame at rest is a composed buffer (framebuffer offset ${GRAB_OFFSET:-none}), not the band scanned out"; return 1
  elif cmp -s "$RUN/10-top.ppm" "$RUN/10-flick.ppm"; then
    fail "10: the frame after the flick is the frame before it"; return 1
  fi
  rested=$BOARD_AT
  say "  the flick: the board at $rested, scanned out from the band (byte offset $GRAB_OFFSET)"

  # The clock row: the view at the top right (the clock is at x 1484..1860 of 1920), two frames
  # 1.5 s apart. The provider invalidates the row every second and redraws its tiles when asked.
  ctl set-offset "$(jq -r '.contentSize[0] - .boundsSize[0]' <<<"$S")" 0 --no-animate >/dev/null
  S=$(wait_rest 10) || { fail "10: still moving after set-offset: $S"; return 1; }
  at=$(offset_of "$S")
  inv0=$(jq -r '.provider.invalidations // 0' <<<"$S")
  board 10-clock-a 30 "$at" || { fail "10: the frame at $at is not the board with a readable clock"; return 1; }
  clock_a=$(clock_in "$BOARD")
  t_a=$BOARD_T
  sleep 1.5
  board 10-clock-b 30 "$at" 10-clock-a || { fail "10: the clock row did not update alone (at $at)"; return 1; }
  clock_b=$(clock_in "$BOARD")
  say "  the two clock frames were grabbed $(awk -v d=$((BOARD_T - t_a)) 'BEGIN { printf "%.1f", d / 1e6 }') s apart"
  S=$(status)
  inv1=$(jq -r '.provider.invalidations // 0' <<<"$S")
  if [ "$(offset_of "$S")" != "$at" ]; then
    fail "10: the view moved from $at to $(offset_of "$S") while the clock updated"; return 1
  elif ! is 'b > a' a="$inv0" b="$inv1"; then
    fail "10: status counts no invalidation ($inv0, then $inv1)"; return 1
  fi
  say "  $(ctl provider)"
  pass "10: timetable.py's board on vkms at 0,0 and, after a flick, at $rested (from the band); at $BOARD_AT its clock went $clock_a -> $clock_b ($((inv1 - inv0)) invalidations) with no other pixel changed and the view still at $at"

  # The provider goes: its last frame stays for content.provider_grace_s (3 s here), then the
  # configured content (the placeholder, black) returns.
  kill -TERM $PROVIDER
  wait $PROVIDER 2>/dev/null
  if ! wait_log "content provider timetable disconnected" 15 "$PLOG"; then
    fail "10: flickd did not log the provider's disconnection"; return 1
  fi
  S=$(status)
  [ "$(jq -r .provider <<<"$S")" = null ] || { fail "10: status still has a provider: $(jq -c .provider <<<"$S")"; return 1; }
  [ "$(jq -r .content <<<"$S")" = "provider timetable" ] || { fail "10: the board's last frame did not stay: $(jq -c .content <<<"$S")"; return 1; }
  if ! wait_log "did not come back within content.provider_grace_s" 15 "$PLOG"; then
    fail "10: the grace did not end"; return 1
  fi
  S=$(status)
  [ "$(jq -r .content <<<"$S")" = "placeholder (black)" ] || { fail "10: not the placeholder after the grace: $(jq -c .content <<<"$S")"; return 1; }
  pass "10: timetable.py stopped; flickd logged it, kept its last frame for the grace, then showed the configured content ($(jq -c .content <<<"$S"))"
}
"$BIN/flickd" run --config "$PROVIDED" --display auto --input auto >"$PLOG" 2>&1 &
FLICKD=$!
PROVIDER=
if ! provided; then
  say "this flickd's log:"
  sed 's/^/    /' "$PLOG" | tail -n 30
  say "timetable.py's errors:"
  sed 's/^/    /' "$RUN/timetable.err" 2>/dev/null | tail -n 10
fi
[ -n "$PROVIDER" ] && kill -TERM $PROVIDER 2>/dev/null
kill -TERM $FLICKD 2>/dev/null
wait $FLICKD
rc=$?
cp "$PLOG" "$PROVIDED" "$RUN/timetable.out" "$RUN/timetable.err" "$OUT/" 2>/dev/null
[ $rc = 0 ] || fail "10: flickd exited $rc on SIGTERM"
if refused=$(grep -E "frame not shown|overlay planes refused" "$PLOG"); then
  fail "10: the display refused frames: $(head -n1 <<<"$refused")"
fi

# ---------------------------------------------------------------- 11. display power
# [power] off_after_s: the panel goes off by DPMS (the CRTC's ACTIVE read back from DRM by a
# second process), a uinput touch wakes it and is swallowed whole (no content event, no
# gesture), and frames flow again.
say "11. display power: off after off_after_s, the CRTC inactive; a touch wakes it with no content event"
POWERED=$RUN/power.toml
PWLOG=$RUN/power.log
cat >"$POWERED" <<EOF
[content]
path = "$OUT/content.png"
[control]
socket = "$SOCK"
[state]
path = "$RUN/power-state.json"
[power]
off_after_s = 6
method = "dpms"
EOF
powered() {
  wait_log "display off \(idle\)" 30 "$PWLOG" || { fail "11: the panel did not go off within 30 s"; return 1; }
  local active frames after
  active=$("$BIN/flickd-e2e-grab" active 2>&1) || { fail "11: $active"; return 1; }
  grep -q " active 0" <<<"$active" || { fail "11: off, but the CRTC is active: $active"; return 1; }
  say "  off: $active"
  ctl subscribe >"$RUN/power-events.log" 2>/dev/null &
  SUB=$!
  sleep 0.5
  frames=$(status | jq .frames)
  touch_ tap 300 200 >/dev/null
  wait_log "display on \(touch\)" 10 "$PWLOG" || { fail "11: the touch did not wake the panel"; return 1; }
  # Read at once: off_after_s later the idle panel goes off again (a loaded machine once took
  # longer than 3 s from the wake to a sleep and a grab, and read the second off).
  active=$("$BIN/flickd-e2e-grab" active 2>&1) || { fail "11: $active"; return 1; }
  if [ "$(grep -c "display off (idle)" "$PWLOG")" -gt 1 ]; then
    fail "11: the panel went off again (idle) before the CRTC was read: the machine is too slow for off_after_s"
    return 1
  fi
  grep -q " active 1" <<<"$active" || { fail "11: on, but the CRTC is inactive: $active"; return 1; }
  within 5
  while in_time; do after=$(status | jq .frames); is 'a > f' a="$after" f="$frames" && break; sleep 0.2; done
  is 'a > f' a="$after" f="$frames" || { fail "11: no frame after the wake ($frames → $after)"; return 1; }
  jq -e -s 'map(select(.type == "power" and .reason == "touch" and .state == "on")) | length == 1' \
    "$RUN/power-events.log" >/dev/null || { fail "11: no power event for the touch: $(cat "$RUN/power-events.log")"; return 1; }
  if jq -e -s 'map(select(.type != "power" and .type != "state")) | length > 0' "$RUN/power-events.log" >/dev/null; then
    fail "11: the waking touch reached someone: $(jq -c -s 'map(select(.type != "power")) | .[0:2]' "$RUN/power-events.log")"
    return 1
  fi
  pass "11: off after 6 s (the CRTC inactive), woken by a touch no one else heard, $((after - frames)) frame(s) since"
}
"$BIN/flickd" run --config "$POWERED" --display auto --input auto >"$PWLOG" 2>&1 &
FLICKD=$!
SUB=
powered || { say "this flickd's log:"; sed 's/^/    /' "$PWLOG" | tail -n 30; }
[ -n "$SUB" ] && kill $SUB 2>/dev/null
kill -TERM $FLICKD 2>/dev/null
wait $FLICKD
rc=$?
cp "$PWLOG" "$POWERED" "$RUN/power-events.log" "$OUT/" 2>/dev/null
[ $rc = 0 ] || fail "11: flickd exited $rc on SIGTERM"
if refused=$(grep -E "frame not shown|overlay planes refused|DPMS .* refused" "$PWLOG"); then
  fail "11: the display refused: $(head -n1 <<<"$refused")"
fi

# ---------------------------------------------------------------- 12. monitors that come and go (Tests/E2E/monitors.sh)
monitors_scenario

# ---------------------------------------------------------------- 13. content replaced in place
# content.watch (the default): the content file, copied over in place by `cp` (truncated and
# written again, the same inode), is shown without a reload once closed; the view stays where it
# was, clamped into the smaller picture. The file lives on tmpfs: inotify does not see a 9p share.
say "13. content replaced in place: shown without a reload, the view kept (clamped)"
LIVE=$RUN/live.png
cp "$OUT/content.png" "$LIVE"
"$BIN/flickd-e2e-grab" pattern "$RUN/smaller.png" 1536 1152 >/dev/null
WATCHED=$RUN/watched.toml
WLOG=$RUN/watched.log
cat >"$WATCHED" <<EOF
[content]
path = "$LIVE"
[control]
socket = "$SOCK"
[state]
path = "$RUN/watched-state.json"
EOF
"$BIN/flickd" run --config "$WATCHED" --display auto --input auto >"$WLOG" 2>&1 &
FLICKD=$!
ok=yes
replaced() {
  within 60
  while in_time; do
    [ "$(ctl status 2>/dev/null | jq -r --arg p "$LIVE" '.status.content == $p and .status.contentSize == [3072, 2304]')" = true ] && break
    sleep 0.5
  done
  ctl set-offset 1000 700 --no-animate >/dev/null
  wait_rest 10 >/dev/null
  grab 13-before expect --offset 1000,700 || { fail "13: the content at 1000,700 is not on screen before the copy"; return 1; }
  local inode
  inode=$(stat -c %i "$LIVE")
  cp "$RUN/smaller.png" "$LIVE"
  [ "$(stat -c %i "$LIVE")" = "$inode" ] || { fail "13: cp did not write the file in place"; return 1; }
  within 30
  while in_time; do
    [ "$(ctl status 2>/dev/null | jq -c .status.contentSize)" = "[1536,1152]" ] && break
    sleep 0.3
  done
  S=$(wait_rest 10)
  [ "$(jq -c .contentSize <<<"$S")" = "[1536,1152]" ] || { fail "13: the copied file was not shown within 30 s: $S"; return 1; }
  [ "$(jq -r .contentError <<<"$S")" = null ] || { fail "13: status says $(jq -r .contentError <<<"$S")"; return 1; }
  # 1000,700 clamped into 1536x1152 on a 1024x768 panel: 512,384.
  grab 13-replaced expect --offset 512,384 || { fail "13: the screen does not show the new content at 512,384"; return 1; }
  grep -q "changed on disk: reading it again" "$WLOG" || { fail "13: the journal does not say the content was read again"; return 1; }
}
replaced || ok=no
kill -TERM $FLICKD 2>/dev/null
wait $FLICKD
rc=$?
cp "$WLOG" "$WATCHED" "$OUT/" 2>/dev/null
[ $rc = 0 ] || { fail "13: flickd exited $rc on SIGTERM"; ok=no; }
[ $ok = yes ] && pass "13: the content copied over in place was shown without a reload, read back from vkms at 512,384 (the view at 1000,700 clamped into it)"

# ---------------------------------------------------------------- 14. DRM calls per panned frame
# The same drag twice (after a first drag that makes the indicators' strips), on two flickd runs: panning one framebuffer by the primary plane's
# SRC_X/SRC_Y (the default), then FLICKD_DRM_PAN=views (a framebuffer per frame, the fallback
# for drivers that refuse the big one). `status.drm` counts the daemon's DRM calls; the
# difference across the drag, over its panned frames, is the figure BENCHMARKS.md reports (every
# call during the drag, those of the few frames that did not pan too).
# Each run's frame is read back from vkms at two offsets: the pixels, and the framebuffer ids.
say "14. DRM calls per panned frame: one framebuffer panned by its source rectangle, then a framebuffer per frame"
PANCONF=$RUN/pan.toml
cat >"$PANCONF" <<EOF
[content]
path = "$OUT/content.png"
[control]
socket = "$SOCK"
[state]
path = "$RUN/pan-state.json"
EOF
# drm_calls MODE: one run; leaves "PANNED ADDED REMOVED COMMITS OTHER" for the drag in PAN_CALLS
# and the two grabs' framebuffer ids and plane sources in PAN_FBS and PAN_SOURCES.
drm_calls() {
  local mode=$1 log=$RUN/pan-$1.log s0 s1 rest rc
  if [ "$mode" = views ]; then
    FLICKD_DRM_PAN=views "$BIN/flickd" run --config "$PANCONF" --display auto --input auto >"$log" 2>&1 &
  else
    "$BIN/flickd" run --config "$PANCONF" --display auto --input auto >"$log" 2>&1 &
  fi
  FLICKD=$!
  within 60
  while in_time; do
    [ "$(ctl status 2>/dev/null | jq -r '.status.frames // 0' 2>/dev/null || echo 0)" -gt 0 ] && break
    kill -0 $FLICKD 2>/dev/null || { fail "14 ($mode): flickd exited at start: $(tail -n 3 "$log")"; return 1; }
    sleep 0.3
  done
  wait_rest 10 >/dev/null
  # A first drag makes what every later one reuses (the indicators' strips on the overlays).
  touch_ drag 512 500 512 400 500 >/dev/null || return 1
  wait_rest 10 >/dev/null
  s0=$(status)
  # 400 px up in a second, held 150 ms before the lift: no momentum, every frame panned.
  touch_ drag 512 650 512 250 1000 >/dev/null || return 1
  s1=$(status)
  S=$(wait_rest 20) || { fail "14 ($mode): still moving: $S"; return 1; }
  rest=$(offset_of "$S")
  grab "14-$mode-drag" expect --offset "$rest" || { fail "14 ($mode): the frame after the drag does not show $rest"; return 1; }
  PAN_FBS=$GRAB_FB PAN_SOURCES=$GRAB_SOURCE
  ctl set-offset 700 500 --no-animate >/dev/null
  wait_rest 10 >/dev/null
  grab "14-$mode-jump" expect --offset 700,500 || { fail "14 ($mode): the frame after a jump does not show 700,500"; return 1; }
  PAN_FBS+=" $GRAB_FB" PAN_SOURCES+=" $GRAB_SOURCE"
  kill -TERM $FLICKD 2>/dev/null
  wait $FLICKD
  rc=$?
  cp "$log" "$OUT/" 2>/dev/null
  [ $rc = 0 ] || { fail "14 ($mode): flickd exited $rc on SIGTERM"; return 1; }
  if refused=$(grep -E "frame not shown|overlay planes refused" "$log"); then
    fail "14 ($mode): the display refused frames: $(head -n1 <<<"$refused")"; return 1
  fi
  PAN_CALLS=$(jq -rn --argjson a "$s0" --argjson b "$s1" \
    '[$b.drm.pannedFrames - $a.drm.pannedFrames, $b.drm.framebuffersAdded - $a.drm.framebuffersAdded,
      $b.drm.framebuffersRemoved - $a.drm.framebuffersRemoved, $b.drm.commits - $a.drm.commits,
      $b.drm.other - $a.drm.other] | @tsv')
}
# per_frame P A R C O: all the calls over the panned frames, two decimals.
per_frame() { awk -v n=$(($2 + $3 + $4 + $5)) -v p="$1" 'BEGIN { printf "%.2f", (p > 0 ? n / p : 0) }'; }
pan_calls() {
  local p a r c o first second
  drm_calls source || return 1
  read -r p a r c o <<<"$PAN_CALLS"
  first=$(per_frame $p $a $r $c $o)
  say "  one framebuffer, SRC moved: $p panned frames: $a added, $r removed, $c commits, $o other:" \
      "$first DRM calls per panned frame; framebuffers $PAN_FBS, plane sources $PAN_SOURCES"
  is 'p >= 10' p="$p" || { fail "14: only $p panned frames in a one-second drag"; return 1; }
  is 'a == 0 && r == 0' a="$a" r="$r" || { fail "14: panning by the source rectangle added $a and removed $r framebuffers"; return 1; }
  set -- $PAN_FBS
  [ "$1" = "$2" ] || { fail "14: the two grabs show framebuffers $1 and $2, not one"; return 1; }
  [[ $PAN_SOURCES == *" 700,500" ]] || { fail "14: the plane's sources are $PAN_SOURCES, not 700,500 after the jump"; return 1; }
  if grep -q "panned frames add a framebuffer each" "$RUN/pan-source.log"; then
    fail "14: vkms refused the big framebuffer: $(grep -m1 "panned frames add" "$RUN/pan-source.log")"; return 1
  fi
  drm_calls views || return 1
  read -r p a r c o <<<"$PAN_CALLS"
  second=$(per_frame $p $a $r $c $o)
  say "  a framebuffer per frame: $p panned frames: $a added, $r removed, $c commits, $o other:" \
      "$second DRM calls per panned frame; framebuffers $PAN_FBS, plane sources $PAN_SOURCES"
  is 'p >= 10 && a == p' p="$p" a="$a" || { fail "14: with views $a framebuffers were added for $p panned frames"; return 1; }
  set -- $PAN_FBS
  [ "$1" != "$2" ] || { fail "14: with views the two grabs show the same framebuffer $1"; return 1; }
  [ "$PAN_SOURCES" = "0,0 0,0" ] || { fail "14: with views the plane's sources are $PAN_SOURCES"; return 1; }
  pass "14: a panned frame costs $first DRM calls panning one framebuffer (none added or removed; one framebuffer at two offsets), $second adding one per frame; both read back right from vkms"
}
pan_calls

# ---------------------------------------------------------------- 15. a PDF menu (Tests/E2E/document.sh)
document_scenario

finish "15 scenarios"
