#!/usr/bin/env bash
# Tests/E2E/cage.sh OUT — flickd as the kiosk app of cage (the Wayland kiosk compositor, wlroots)
# on vkms, run as root inside the VM (vm.sh) by scripts/e2e.sh in a boot of its own. OUT holds
# the staged binaries (bin/) and the content (content.png), and gets the results: flickd's and
# cage's logs, the event stream and a PNG per checked frame.
#
# cage reads the uinput touchscreen through libinput and hands its touches to flickd as
# wl_touch; flickd opens no /dev/input device. What cage needs here, found by trying:
# - an ordinary user (cage refuses root): nobody, with XDG_RUNTIME_DIR of its own;
# - seatd, run as root, to open the card and the event nodes for it (LIBSEAT_BACKEND=seatd;
#   libseat's noop backend times out waiting for the session to become active);
# - udev's database: libinput takes only devices udev tagged ID_INPUT_TOUCHSCREEN, so
#   systemd-udevd runs (SYSTEMD_IGNORE_CHROOT=1: the VM's root is a chroot);
# - WLR_RENDERER=pixman (vkms has no GPU) and WLR_LIBINPUT_NO_DEVICES=1.
set -uo pipefail

OUT=$(realpath "$1")
RUN=/run/flickd-cage                 # sockets and fifos cannot live on the 9p share
BIN=$RUN/bin
HOME_=$RUN/home                      # nobody's: the socket, the state, the runtime dir
mkdir -p "$RUN" "$BIN" "$HOME_/xdg"
cp "$OUT"/bin/flickd "$OUT"/bin/flickctl "$OUT"/bin/flickd-e2e-touch "$OUT"/bin/flickd-e2e-grab "$BIN"/
cp "$OUT"/content.png "$HOME_"/
chown -R nobody:nogroup "$HOME_"; chmod 700 "$HOME_/xdg"
SOCK=$HOME_/control.sock
EVENTS=$RUN/events.jsonl
LOG=$RUN/flickd.log
CAGE_LOG=$RUN/cage.log
CONFIG=$HOME_/flickd.toml

source "$(dirname "$0")/common.sh"   # sleep, say, pass, fail, is
abort() { abort_showing "$CAGE_LOG" cage "$@"; }
keep() { for f in "$LOG" "$CAGE_LOG" "$EVENTS" "$RUN/seatd.log"; do [ -f "$f" ] && cp "$f" "$OUT/"; done; }
trap keep EXIT

source "$(dirname "$0")/daemon.sh"   # ctl, status, mark, since, wait_event, wait_rest, touch_, grab

# ---------------------------------------------------------------- setup
say "kernel $(uname -r); $(ls /dev/dri | tr '\n' ' ')"
export SYSTEMD_IGNORE_CHROOT=1
/lib/systemd/systemd-udevd --daemon >/dev/null 2>&1 || abort "systemd-udevd did not start (is udev installed?)"
udevadm trigger --action=add
coproc TOUCH { exec "$BIN/flickd-e2e-touch" --screen 1024x768 2>&1; }
read -r -t 60 reply <&"${TOUCH[0]}" || abort "the touchscreen injector did not start"
[[ $reply == ready\ /dev/input/event* ]] || abort "touchscreen: $reply"
NODE=${reply#ready }
udevadm settle -t 30
udevadm info "$NODE" | grep -q ID_INPUT_TOUCHSCREEN=1 || abort "udev did not tag $NODE as a touchscreen"
say "uinput touchscreen at $NODE, tagged by udev"

seatd -u nobody -l info >"$RUN/seatd.log" 2>&1 &
for ((i = 0; i < 100; i++)); do [ -S /run/seatd.sock ] && break; sleep 0.1; done
[ -S /run/seatd.sock ] || abort "seatd did not start"

cat >"$CONFIG" <<CONF
[content]
path = "$HOME_/content.png"
[control]
socket = "$SOCK"
[state]
path = "$HOME_/state.json"
[input]
# Under a compositor this is not opened: the compositor's seat is the input.
device = "$NODE"
CONF
chown nobody:nogroup "$CONFIG"

# ---------------------------------------------------------------- 1. flickd as cage's client
say "1. cage -- flickd run --display wayland (as nobody, seatd)"
runuser -u nobody -- env -i PATH=/usr/bin:/bin XDG_RUNTIME_DIR="$HOME_/xdg" LIBSEAT_BACKEND=seatd WLR_RENDERER=pixman \
  WLR_LIBINPUT_NO_DEVICES=1 cage -- "$BIN/flickd" run --config "$CONFIG" --display wayland >"$CAGE_LOG" 2>&1 &
CAGE=$!
within 120
while in_time; do
  [ -S "$SOCK" ] && ctl status >/dev/null 2>&1 && break
  kill -0 $CAGE 2>/dev/null || abort "cage exited at start"
  sleep 0.5
done
ctl status >/dev/null 2>&1 || abort "flickd's socket did not answer within 120 s"
FLICKD=$(pgrep -f "$BIN/flickd run" | head -n1)
cp "$CAGE_LOG" "$LOG"
"$BIN/flickctl" subscribe --socket "$SOCK" >"$EVENTS" 2>"$RUN/subscribe.err" &
S=$(status)
display=$(jq -r .display <<<"$S")
device=$(jq -r .device <<<"$S")
ok=yes
[[ $display == wayland* ]] || { fail "1: display is '$display', not cage's window"; ok=no; }
# wlroots 0.15 offers linux-dmabuf only with its GL renderer on a device with a render node: with
# pixman on vkms there is none, and flickd says it draws into shared memory (Tests/E2E/weston.sh
# has the dma-buf case).
[[ $display == *"shm buffers: the compositor offers no linux-dmabuf"* ]] || { fail "1: the display line does not say shm buffers and why: $display"; ok=no; }
[[ $device == "wayland seat"* ]] || { fail "1: input is '$device', not the compositor's seat"; ok=no; }
opened=$(ls -l /proc/"$FLICKD"/fd 2>/dev/null | grep -c /dev/input)
[ "$opened" = 0 ] || { fail "1: flickd opened $opened /dev/input nodes under the compositor"; ok=no; }
grab 1-start expect --offset 0,0 || { fail "1: the first frame does not show the content's top-left"; ok=no; }
[ $ok = yes ] && pass "1: $display, input $device (no /dev/input node open); the frame shows the content's top-left"

# ---------------------------------------------------------------- 2. a flick through the compositor
# A first touch, whose fate is logged: wlroots 0.15 may announce the touchscreen to its clients
# only as it sees the first touch ("could not create touch point" for that one).
say "2. a tap, then a flick on the touchscreen"
mark
touch_ tap 100 100 >/dev/null
sleep 2
say "  after the tap: $(since | grep -c .) events; $(grep -c 'could not create touch point' "$CAGE_LOG") touches wlroots dropped"
mark
touch_ flick 512 600 512 400 160 >/dev/null
if end=$(wait_event didEndDecelerating 60); then
  gesture=$(since | grep -F '"gesture":"flick"' | head -n1)
  S=$(wait_rest 30) || fail "2: still moving: $S"
  REST=$(offset_of "$end")
  if [ -z "$gesture" ]; then
    fail "2: the content moved, but no flick gesture: $(since | grep -c .) events"
  elif [ "$(offset_of "$S")" != "$REST" ]; then
    fail "2: status offset $(offset_of "$S") differs from the rest event's $REST"
  elif ! is 'y > 200' y="${REST#*,}"; then
    fail "2: the content moved only to $REST"
  elif ! grab 2-flick expect --offset "$REST"; then
    fail "2: the frame at rest does not show offset $REST"
  else
    pass "2: the flick reached flickd through cage's wl_touch and moved the content to $REST; the frame read from the CRTC shows it there"
  fi
  if ! grep -q "compositor's touchscreen (wl_touch)" "$CAGE_LOG"; then
    fail "2: flickd's log does not say it has the compositor's wl_touch"
  fi
else
  fail "2: no didEndDecelerating after the flick"
fi

# ---------------------------------------------------------------- 3. stop
kill -TERM "$FLICKD" 2>/dev/null
within 30
while in_time && kill -0 $CAGE 2>/dev/null; do sleep 0.3; done
kill -0 $CAGE 2>/dev/null && { fail "3: cage still runs 30 s after flickd was stopped"; kill $CAGE; }
cp "$CAGE_LOG" "$LOG"

if [ ${#failed[@]} = 0 ]; then say "cage: all passed"; exit 0; fi
say "cage: ${#failed[@]} failed"
exit 1
