# Tests/E2E/daemon.sh — sourced after common.sh by the scripts that run flickd inside the VM
# (scenarios.sh, cage.sh) once BIN, SOCK, EVENTS, LOG and OUT are set (and TOUCH, for touch_):
# the control socket, the event stream, waiting for events and rest, the touchscreen injector
# and reading the frame back.
ctl() { "$BIN/flickctl" "$@" --socket "$SOCK"; }
status() { ctl status | jq -c .status; }
# Events since the last `mark`, one JSON object a line.
mark() { MARK=$(wc -l <"$EVENTS"); }
since() { tail -n +$((MARK + 1)) "$EVENTS"; }
# within SECONDS: starts a deadline; `in_time` says whether it is still ahead.
within() { DEADLINE=$(( ${EPOCHREALTIME/./} + $1 * 1000000 )); }
in_time() { (( ${EPOCHREALTIME/./} < DEADLINE )); }
# wait_event TYPE SECONDS: prints the first event of that type since the mark.
wait_event() {
  local line
  within "$2"
  while in_time; do
    line=$(since | grep -m1 -F "\"type\":\"$1\"")
    [ -n "$line" ] && { echo "$line"; return 0; }
    sleep 0.2
  done
  return 1
}
# wait_log PATTERN SECONDS [FILE]: waits for a line of flickd's log (or FILE) matching the
# extended regex.
wait_log() {
  within "$2"
  while in_time; do grep -qE "$1" "${3:-$LOG}" && return 0; sleep 0.2; done
  return 1
}
# wait_rest SECONDS: waits until nothing moves (no touch, drag, deceleration, zoom or animation)
# and prints the status.
wait_rest() {
  local s
  within "$1"
  while in_time; do
    s=$(status)
    [ "$(jq -r '[.tracking, .dragging, .decelerating, .zooming, .scrolling] | any' <<<"$s")" = false ] \
      && { echo "$s"; return 0; }
    sleep 0.3
  done
  echo "$s"
  return 1
}
# touch COMMAND: plays one gesture and waits until the injector has written it all.
touch_() {
  echo "$*" >&"${TOUCH[1]}"
  local reply
  read -r -t 60 reply <&"${TOUCH[0]}" || { fail "the touchscreen injector did not answer '$*'"; return 1; }
  case $reply in ok*) echo "$reply" ;; *) fail "touchscreen: $reply"; return 1 ;; esac
}
# grab NAME ARGS...: reads the frame on screen into OUT/NAME.png, checks it with ARGS (see
# flickd-e2e-grab); remembers the framebuffer ids flickd showed.
FLICKD_FBS=" "
grab() {
  local name=$1 out; shift
  # The indicators fade out 0.3 s after motion stops; the frame after that is the one to check.
  sleep 0.6
  out=$("$BIN/flickd-e2e-grab" "$@" --png "$OUT/$name.png" 2>&1)
  local rc=$?
  sed 's/^/    /' <<<"$out"
  GRAB_OFFSET=$(sed -n 's/^fb .* offset \([0-9]*\)$/\1/p' <<<"$out")
  GRAB_FB=$(sed -n 's/^fb \([0-9]*\) .*/\1/p' <<<"$out")
  GRAB_SOURCE=$(sed -n 's/^fb .* source \([0-9]*,[0-9]*\) of .*/\1/p' <<<"$out")
  FLICKD_FBS+="$(sed -n 's/^fb \([0-9]*\) .*/\1/p' <<<"$out") "
  return $rc
}
offset_of() { jq -r '"\(.offset[0]),\(.offset[1])"' <<<"$1"; }
