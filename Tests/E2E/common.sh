# Tests/E2E/common.sh — sourced by the scripts that run inside the VM (scenarios.sh,
# calibrate.sh) once RUN is set: the waiting, the clock, the log prefix and the verdicts.
#
# Under emulation every exec costs a good fraction of a second: waiting, the clock and the log
# prefix stay inside bash.
mkfifo "$RUN/never"
exec 7<>"$RUN/never"
sleep() { read -r -t "$1" -u 7 || true; }
T0=${EPOCHREALTIME/./}
say() { local t=$(( (${EPOCHREALTIME/./} - T0) / 100000 )); printf '[%4d.%d] %s\n' $((t / 10)) $((t % 10)) "$*"; }
failed=()
pass() { say "PASS $*"; }
fail() { say "FAIL $*"; failed+=("$*"); }
# Fails with the reason, shows the ends of the compositor's log ($1, named $2) and flickd's ($LOG),
# and stops: a Wayland scenario that cannot go on.
abort_showing() {
  local log=$1 name=$2
  shift 2
  fail "$*"
  say "cannot go on; $name's and flickd's logs:"
  tail -n 20 "$log" 2>/dev/null | sed 's/^/    /'
  tail -n 40 "$LOG" 2>/dev/null | sed 's/^/    /'
  say "stopped by: $*"   # last, for CI keeps only the end
  exit 1
}
# awk does the arithmetic: `is 'x > 3' x=5` succeeds when the condition holds.
is() {
  local cond=$1 a args=()
  shift
  for a in "$@"; do args+=(-v "$a"); done
  awk "${args[@]}" "function abs(v) { return v < 0 ? -v : v } BEGIN { exit !($cond) }"
}
