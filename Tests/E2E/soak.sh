#!/usr/bin/env bash
# Tests/E2E/soak.sh OUT [MINUTES [RSS_BOUND_MIB]] — a real-time soak, run as root inside the VM
# (vm.sh) by `FLICKD_E2E_ONLY=soak scripts/e2e.sh` (FLICKD_E2E_SOAK_MINUTES, default 30); not in
# the default list, so not in CI.
#
# One flickd on vkms for MINUTES, with a uinput touchscreen playing gestures without a pause
# (flicks four ways, drags, pinches out and back, taps), and a fault a minute after the last one
# is over, in turn: the panel off by DPMS and on again (by `flickctl display on`, or by a touch,
# alternately); the connector unplugged and replugged (its sysfs `status` and a uevent, as
# monitors.sh does); the content file replaced (copied over in place, or renamed over,
# alternately) by the same pattern transposed, which has as many pixels, so memory is comparable
# across swaps. After each fault the frame is read back from the CRTC three times: where the
# gestures left the view (status' offset and zoom), at a new offset (a frame moved since the
# fault, not a stale one), and at home, which must equal the first frame byte for byte. flickd's
# RSS, descriptors and threads are read from /proc every 30 s. Fails when flickd exits or
# restarts, a frame is wrong, the descriptors after warm-up differ from the first count after
# it, or RSS after warm-up grows beyond RSS_BOUND_MIB (default 4) over its first sample after
# warm-up. Warm-up: the first sixth of the run, at least one round of the three faults. The
# summary goes to stdout and OUT/soak-summary.txt, the samples to OUT/soak-samples.tsv.
set -uo pipefail

OUT=$(realpath "$1")
MINUTES=${2:-30}
RSS_BOUND_MIB=${3:-4}
RUN=/run/flickd-soak                # sockets and fifos cannot live on the 9p share
BIN=$RUN/bin                        # exec from 9p costs a second under emulation
mkdir -p "$RUN" "$BIN"
cp "$OUT"/bin/flickd "$OUT"/bin/flickctl "$OUT"/bin/flickd-e2e-touch "$OUT"/bin/flickd-e2e-grab "$BIN"/
SOCK=$RUN/control.sock
EVENTS=$RUN/events.jsonl
LOG=$RUN/soak.log
CONFIG=$RUN/soak.toml
SAMPLES=$OUT/soak-samples.tsv
SUMMARY=$OUT/soak-summary.txt
STATUSFILE=/sys/class/drm/card0-Virtual-1/status
FAULT_EVERY=60
SAMPLE_EVERY=30

source "$(dirname "$0")/common.sh"   # sleep, say, pass, fail, is
source "$(dirname "$0")/daemon.sh"   # ctl, status, wait_log, wait_rest, touch_
keep() { for f in "$LOG" "$CONFIG"; do [ -f "$f" ] && cp "$f" "$OUT/"; done; }
trap keep EXIT
abort() {
  fail "$*"
  say "cannot go on; flickd's log:"
  tail -n 40 "$LOG" 2>/dev/null | sed 's/^/    /'
  exit 1
}
uevent() { echo "change $(cat /proc/sys/kernel/random/uuid) HOTPLUG=1" >/sys/class/drm/card0/uevent; }
count() { grep -c -- "$1" "$LOG"; }
# The content's own size: status' contentSize is scaled by the zoom, as UIScrollView's is.
content_size() { status | jq -c '[.contentSize[0] / .zoomScale, .contentSize[1] / .zoomScale] | map(round)'; }
# wait_more PATTERN BEFORE SECONDS: waits until the log has more than BEFORE lines with PATTERN.
wait_more() {
  within "$3"
  while in_time; do [ "$(count "$1")" -gt "$2" ] && return 0; sleep 0.2; done
  return 1
}

# The content: the coordinate pattern, and the same transposed (as many pixels, another shape).
"$BIN/flickd-e2e-grab" pattern "$RUN/wide.png" 3072 2304 >/dev/null
"$BIN/flickd-e2e-grab" pattern "$RUN/tall.png" 2304 3072 >/dev/null
cp "$RUN/wide.png" "$RUN/live.png"
cat >"$CONFIG" <<EOF
[content]
path = "$RUN/live.png"
[control]
socket = "$SOCK"
[state]
path = "$RUN/state.json"
[power]
# On only so that \`flickctl display off\` is taken: the gestures never leave it idle an hour.
off_after_s = 3600
method = "dpms"
EOF

coproc TOUCH { exec "$BIN/flickd-e2e-touch" --screen 1024x768 2>&1; }
read -r -t 60 reply <&"${TOUCH[0]}" || abort "the touchscreen injector did not start"
[[ $reply == ready\ /dev/input/event* ]] || abort "touchscreen: $reply"
say "soak: $MINUTES min; uinput touchscreen at ${reply#ready }; kernel $(uname -r), $(nproc) CPUs"

"$BIN/flickd" run --config "$CONFIG" --display auto --input auto >"$LOG" 2>&1 &
FLICKD=$!
wait_log "ready:" 60 || abort "flickd did not say it is ready within 60 s"
within 30
while in_time; do [ "$(content_size)" = "[3072,2304]" ] && break; sleep 0.3; done
[ "$(content_size)" = "[3072,2304]" ] || abort "the content is not shown: $(status)"
# Events reach a subscriber the whole run; only their number is kept.
"$BIN/flickctl" subscribe --socket "$SOCK" 2>/dev/null | wc -l >"$RUN/events.count" &

# ---------------------------------------------------------------- frames
checks=0 retried=0
# check NAME ARGS...: the frame on screen checked by flickd-e2e-grab ARGS (a second try after
# a second: the indicators fade 0.3 s after motion, later under load); a failed frame's PNG is kept.
check() {
  local name=$1 out
  shift
  checks=$((checks + 1))
  sleep 0.6
  out=$("$BIN/flickd-e2e-grab" "$@" --png "$RUN/check.png" 2>&1) && return 0
  retried=$((retried + 1))
  sleep 1
  out=$("$BIN/flickd-e2e-grab" "$@" --png "$RUN/check.png" 2>&1) && return 0
  cp "$RUN/check.png" "$OUT/soak-$name.png" 2>/dev/null
  fail "$name: the frame is wrong ($*): $(tail -n 2 <<<"$out" | tr '\n' ' ')"
  return 1
}
# The home frame, read as a PPM and compared with the first one byte for byte.
home() {
  local name=$1
  ctl set-zoom 1 --no-animate >/dev/null
  ctl set-offset 0 0 --no-animate >/dev/null
  wait_rest 20 >/dev/null
  check "$name-home" expect --offset 0,0 || return 1
  "$BIN/flickd-e2e-grab" frame --ppm "$RUN/home.ppm" >/dev/null 2>&1
  if ! cmp -s "$RUN/home.ppm" "$RUN/reference.ppm"; then
    cp "$RUN/home.ppm" "$OUT/soak-$name-home.ppm"
    fail "$name: the home frame differs from the first one"
    return 1
  fi
}
# after NAME K: the frames after a fault: where the gestures left the view, at a new offset
# (inside both contents at zoom 1), and at home.
after() {
  local name=$1 k=$2 s x y
  s=$(wait_rest 20) || { fail "$name: still moving 20 s after the fault: $s"; return 1; }
  check "$name-rest" expect --offset "$(offset_of "$s")" --zoom "$(jq .zoomScale <<<"$s")" || return 1
  x=$(( (k * 337) % 1280 )) y=$(( (k * 251) % 1536 ))
  ctl set-zoom 1 --no-animate >/dev/null
  ctl set-offset $x $y --no-animate >/dev/null
  wait_rest 20 >/dev/null
  check "$name-moved" expect --offset $x,$y || return 1
  home "$name"
}

ctl set-offset 0 0 --no-animate >/dev/null
wait_rest 20 >/dev/null
check start expect --offset 0,0 || abort "the first frame does not show the content's top-left"
"$BIN/flickd-e2e-grab" frame --ppm "$RUN/reference.ppm" >/dev/null 2>&1 || abort "cannot read the first frame"

# ---------------------------------------------------------------- faults
dpms=0 unplugs=0 swaps=0
fault_dpms() {
  local off on
  off=$(count "display off (") on=$(count "display on (")
  ctl display off >/dev/null || { fail "dpms: display off refused"; return 1; }
  wait_more "display off (" "$off" 15 || { fail "dpms: no 'display off' in the journal"; return 1; }
  local active
  active=$("$BIN/flickd-e2e-grab" active 2>&1)
  grep -q " active 0" <<<"$active" || { fail "dpms: off, but the CRTC is active: $active"; return 1; }
  sleep 2
  if ((dpms % 2)); then touch_ tap 512 384 >/dev/null; else ctl display on >/dev/null; fi
  wait_more "display on (" "$on" 15 || { fail "dpms: the panel did not come on"; return 1; }
  active=$("$BIN/flickd-e2e-grab" active 2>&1)
  grep -q " active 1" <<<"$active" || { fail "dpms: on, but the CRTC is inactive: $active"; return 1; }
  dpms=$((dpms + 1))
}
fault_unplug() {
  local gone back
  gone=$(count "Virtual-1 disconnected") back=$(count "monitor connected")
  echo off >"$STATUSFILE"; uevent
  wait_more "Virtual-1 disconnected" "$gone" 15 || { fail "unplug: not seen"; return 1; }
  ctl set-zoom 1 --no-animate >/dev/null
  ctl set-offset 700 500 --no-animate >/dev/null
  sleep 2
  echo detect >"$STATUSFILE"; uevent
  wait_more "monitor connected" "$back" 30 || { fail "unplug: the replug was not taken up"; return 1; }
  wait_rest 20 >/dev/null
  check "unplug$unplugs-replugged" expect --offset 700,500 || return 1
  unplugs=$((unplugs + 1))
}
fault_content() {
  local next size
  if ((swaps % 2)); then next=wide size="[3072,2304]"; else next=tall size="[2304,3072]"; fi
  if ((swaps % 4 < 2)); then
    cp "$RUN/$next.png" "$RUN/live.png"
  else
    cp "$RUN/$next.png" "$RUN/live.tmp" && mv "$RUN/live.tmp" "$RUN/live.png"
  fi
  within 30
  while in_time; do [ "$(content_size)" = "$size" ] && break; sleep 0.3; done
  [ "$(content_size)" = "$size" ] || { fail "content: $next not shown within 30 s: $(status)"; return 1; }
  swaps=$((swaps + 1))
}

# ---------------------------------------------------------------- samples
WARMUP=$(( MINUTES * 60 / 6 > 3 * FAULT_EVERY ? MINUTES * 60 / 6 : 3 * FAULT_EVERY + 5 ))
printf 's\trss_kib\tfds\tthreads\n' >"$SAMPLES"
fds_ref= rss_ref= rss_min= rss_max= samples=0
sample() {
  local t=$1 rss thr fds n
  kill -0 $FLICKD 2>/dev/null || abort "flickd is gone at $t s"
  rss=$(awk '/^VmRSS:/ { print $2 }' /proc/$FLICKD/status)
  thr=$(awk '/^Threads:/ { print $2 }' /proc/$FLICKD/status)
  # A control connection just closed may not be reaped yet: a different count is read again.
  for n in 1 2 3 4; do
    fds=$(find /proc/$FLICKD/fd -mindepth 1 -maxdepth 1 | wc -l)
    [ -z "$fds_ref" ] || [ "$fds" = "$fds_ref" ] || [ $t -lt $WARMUP ] || { sleep 0.5; continue; }
    break
  done
  printf '%d\t%d\t%d\t%d\n' "$t" "$rss" "$fds" "$thr" >>"$SAMPLES"
  samples=$((samples + 1))
  [ $t -ge $WARMUP ] || return 0
  if [ -z "$rss_ref" ]; then rss_ref=$rss rss_min=$rss rss_max=$rss fds_ref=$fds thr_ref=$thr; fi
  ((rss < rss_min)) && rss_min=$rss
  ((rss > rss_max)) && rss_max=$rss
  [ "$fds" = "$fds_ref" ] || fail "at $t s flickd holds $fds descriptors, $fds_ref after warm-up"
  ((rss - rss_ref <= RSS_BOUND_MIB * 1024)) || fail "at $t s flickd's RSS is $rss KiB, $((rss - rss_ref)) KiB over its $rss_ref after warm-up (bound $RSS_BOUND_MIB MiB)"
}

# ---------------------------------------------------------------- the run
GESTURES=(
  "flick 512 600 512 300 150"
  "drag 300 500 700 300 400"
  "flick 512 200 512 500 150"
  "tap 400 300"
  "flick 800 384 300 384 150"
  "pinch 512 384 200 400 400"
  "drag 700 300 300 500 400"
  "pinch 512 384 400 200 400"
  "flick 300 384 800 384 150"
  "tap 600 500"
)
declare -A sent=()
gestures=0 faults=0
t0=$SECONDS
end=$((t0 + MINUTES * 60))
next_sample=$t0 next_fault=$((t0 + FAULT_EVERY))
say "gestures without a pause; a fault $FAULT_EVERY s after the last; samples every $SAMPLE_EVERY s; warm-up $WARMUP s"
while ((SECONDS < end)) && [ ${#failed[@]} -lt 5 ]; do
  if ((SECONDS >= next_sample)); then
    sample $((SECONDS - t0))
    next_sample=$((next_sample + SAMPLE_EVERY))
  fi
  if ((SECONDS >= next_fault)); then
    case $((faults % 3)) in
      0) name=dpms$dpms; fault_dpms ;;
      1) name=unplug$unplugs; fault_unplug ;;
      2) name=content$swaps; fault_content ;;
    esac && after "$name" $faults
    faults=$((faults + 1))
    say "  $((SECONDS - t0)) s: fault $faults ($name) done; $gestures gestures so far, RSS $(awk '/^VmRSS:/ { print $2 }' /proc/$FLICKD/status 2>/dev/null) KiB"
    next_fault=$((SECONDS + FAULT_EVERY))
  fi
  g=${GESTURES[gestures % ${#GESTURES[@]}]}
  touch_ "$g" >/dev/null || break
  sent[${g%% *}]=$(( ${sent[${g%% *}]:-0} + 1 ))
  gestures=$((gestures + 1))
  sleep 0.2
done
sample $((SECONDS - t0))
elapsed=$((SECONDS - t0))
S=$(status)
frames=$(jq .frames <<<"$S")
kill -TERM $FLICKD
wait $FLICKD
rc=$?
[ $rc = 0 ] || fail "flickd exited $rc on SIGTERM"
starts=$(count "ready:")
[ "$starts" = 1 ] || fail "flickd said ready $starts times (restarted)"
refused=$(grep -cE "frame not shown|overlay planes refused|DPMS .* refused" "$LOG")
[ "$refused" = 0 ] || fail "the display refused $refused time(s): $(grep -m1 -E "frame not shown|overlay planes refused|DPMS .* refused" "$LOG")"
sleep 0.5

mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
first=$(sed -n 2p "$SAMPLES" | cut -f2)
{
  echo "soak: $((elapsed / 60)) min $((elapsed % 60)) s of flickd on vkms (kernel $(uname -r), $(nproc) CPUs, TCG)"
  echo "gestures sent: $gestures ($(for k in "${!sent[@]}"; do printf '%s %s, ' "$k" "${sent[$k]}"; done | sed 's/, $//'))"
  echo "faults injected: $faults: DPMS off/on $dpms, connector off/on $unplugs, content replaced $swaps"
  echo "frames checked against the content: $checks ($retried needed a second read); status' frame count at the end $frames; events to a subscriber: $(cat "$RUN/events.count" 2>/dev/null)"
  echo "samples: $samples every $SAMPLE_EVERY s; warm-up $WARMUP s; RSS at the first sample $(mib "$first") MiB"
  echo "after warm-up: RSS $(mib "${rss_min:-0}")-$(mib "${rss_max:-0}") MiB (first $(mib "${rss_ref:-0}"), last $(mib "$(tail -n 1 "$SAMPLES" | cut -f2)"), bound +$RSS_BOUND_MIB MiB); descriptors ${fds_ref:-?} at every sample; threads ${thr_ref:-?}"
  echo "journal: $(wc -l <"$LOG") lines; flickd started once: $([ "$starts" = 1 ] && echo yes || echo no); exit $rc on SIGTERM"
} | tee "$SUMMARY"
echo
if [ ${#failed[@]} = 0 ]; then
  say "soak passed"
  exit 0
fi
say "${#failed[@]} failure(s):"
printf '  %s\n' "${failed[@]}"
say "flickd's log:"
tail -n 60 "$LOG" | sed 's/^/    /'
exit 1
