#!/usr/bin/env bash
# Tests/E2E/clock.sh OUT — the wall clock set under a running flickd, as root inside the VM
# (vm.sh), by scripts/e2e.sh with FLICKD_E2E_ONLY=clock: a board without a real-time clock boots
# in 1970 and NTP sets the time later. Only the VM's clock is set (`date -s`), never the host's.
#
# The clock is set to 1970-01-01, twelve hours from the hour it is now, and flickd started with
# `power.on_hours` two hours around now (UTC): off from the start. Set to now, the panel goes on
# at once by the schedule and the jump is said once; set back to 1970, off again, said once
# more; status agrees each time. The waiting counts on the monotonic clock: the wall clock is
# the thing that moves.
set -uo pipefail

OUT=$(realpath "$1")
RUN=/run/flickd-e2e-clock
BIN=$RUN/bin
mkdir -p "$RUN" "$BIN"
cp "$OUT"/bin/flickd "$OUT"/bin/flickctl "$BIN"/
LOG=$RUN/flickd.log
SOCK=$RUN/control.sock
source "$(dirname "$0")/common.sh"   # sleep, pass, fail
# The prefix on the monotonic clock, which the jumps leave alone.
say() { local up; read -r up _ </proc/uptime; printf '[%7s] %s\n' "$up" "$*"; }
# wait_for PATTERN SECONDS: whether flickd's log has a line matching PATTERN within SECONDS.
wait_for() {
  local i
  for ((i = 0; i < $2 * 5; i++)); do grep -qE "$1" "$LOG" && return 0; sleep 0.2; done
  return 1
}
count() { grep -cE "$1" "$LOG"; }
power() { "$BIN/flickctl" status --socket "$SOCK" 2>/dev/null | jq -r .status.power; }

NOW=$(date -u +%s)
START_UP=$(cut -d. -f1 /proc/uptime)
now() { echo $((NOW + $(cut -d. -f1 /proc/uptime) - START_UP)); }
hhmm() { date -u -d "@$1" +%H:%M; }
MINUTE=$(( NOW % 86400 / 60 ))
BOOT=$(( (MINUTE + 720) % 1440 * 60 ))        # 1970-01-01, twelve hours from now's time of day
ON_HOURS="$(hhmm $((NOW - 3600)))-$(hhmm $((NOW + 3600)))"
say "now $(date -u -d "@$NOW" '+%F %H:%M') UTC; on_hours $ON_HOURS; the board boots at $(date -u -d "@$BOOT" '+%F %H:%M')"

cat >"$RUN/flickd.toml" <<EOT
[display]
headless_size = "320x200"
[control]
socket = "$SOCK"
[state]
path = ""
[content]
placeholder = "test-pattern"
[power]
on_hours = ["$ON_HOURS"]
EOT

date -u -s "@$BOOT" >/dev/null || { fail "clock: date -s @$BOOT refused"; exit 1; }
TZ=UTC FLICKD_LOG=stderr "$BIN/flickd" run --config "$RUN/flickd.toml" --display headless --input auto >"$LOG" 2>&1 &
FLICKD=$!
finish() {
  kill "$FLICKD" 2>/dev/null; wait "$FLICKD" 2>/dev/null
  date -u -s "@$(now)" >/dev/null
  if [ ${#failed[@]} = 0 ]; then say "all clock checks passed"; exit 0; fi
  say "${#failed[@]} failure(s):"; printf '  %s\n' "${failed[@]}"
  say "flickd's log:"; sed 's/^/    /' "$LOG" | tail -n 40
  exit 1
}

if wait_for "display off \(start: outside power.on_hours" 60 && [ "$(power)" = off ]; then
  pass "clock: booted at 1970 outside the hours: off from the start"
else
  fail "clock: not off at the start (status power: $(power))"; finish
fi
grep -q "wall clock: not told" "$LOG" && fail "clock: the watch was refused: $(grep 'wall clock' "$LOG")"

date -u -s "@$(now)" >/dev/null
if wait_for "display on \(schedule\)" 20 && wait_for "wall clock set forward 5[0-9] years \(1970-01-01 .* UTC\): power schedule re-read" 5; then
  pass "clock: set to now: on by the schedule at once; said: $(grep -o 'wall clock set.*' "$LOG" | head -1)"
else
  fail "clock: set to now, the panel did not follow (status power: $(power))"
fi
sleep 2
[ "$(count 'wall clock set')" = 1 ] || fail "clock: the jump said $(count 'wall clock set') times, not once"
[ "$(power)" = on ] || fail "clock: after the jump status says power $(power)"

date -u -s "@$(( BOOT + 60 ))" >/dev/null
if wait_for "display off \(schedule: outside power.on_hours" 20 && wait_for "wall clock set back 5[0-9] years" 5; then
  pass "clock: set back to 1970: off by the schedule at once, said once more"
else
  fail "clock: set back to 1970, the panel did not follow (status power: $(power))"
fi
sleep 2
[ "$(count 'wall clock set')" = 2 ] || fail "clock: two settings said $(count 'wall clock set') times"
[ "$(power)" = off ] || fail "clock: after the jump back status says power $(power)"
kill -0 "$FLICKD" 2>/dev/null || fail "clock: flickd is gone"
finish
