#!/usr/bin/env bash
# Tests/E2E/calibrate.sh OUT — `flickd calibrate` on a real kernel, run as root inside the VM
# (vm.sh) by scripts/e2e.sh after the scenarios. OUT holds the staged binaries (bin/) and gets
# the results: calibrate's output, the config it wrote, and the frame showing the first target.
#
# The uinput panel (flickd-e2e-touch --calibration) is misaligned on purpose by a known matrix.
# flickd calibrate draws its targets on vkms and says where each is (`target I/N at (X, Y)`);
# the script taps each one as asked, reads the first target's crosshair back from the screen,
# and checks that the matrix flickd wrote into the config (--write) is the panel's, that the
# residuals are small, that the old matrix in the config did not compound, and that the rest of
# the file was kept.
set -uo pipefail

OUT=$(realpath "$1")
RUN=/run/flickd-calibrate            # fifos cannot live on the 9p share
BIN=$RUN/bin                         # exec from 9p costs a second under emulation
mkdir -p "$RUN" "$BIN"
cp "$OUT"/bin/flickd "$OUT"/bin/flickd-e2e-touch "$OUT"/bin/flickd-e2e-grab "$BIN"/
CONFIG=$RUN/calibrate.toml
LOG=$RUN/calibrate.log
SKEW=(1.04 -0.03 -0.02 0.05 0.97 0.015)

source "$(dirname "$0")/common.sh"   # sleep, say, pass, fail, is
keep() { for f in "$LOG" "$CONFIG"; do [ -f "$f" ] && cp "$f" "$OUT/"; done; }
trap keep EXIT

cat >"$CONFIG" <<EOF
# flickd calibrate's end-to-end config: only the calibration line may change.
[input]
# an old matrix, which calibrate must ignore while it reads the touches
calibration = [2, 0, 0, 0, 2, 0]
grab = true

[display]
backend = "drm"
EOF
cp "$CONFIG" "$RUN/before.toml"

skew=$(IFS=,; echo "${SKEW[*]}")
coproc TOUCH { exec "$BIN/flickd-e2e-touch" --screen 1024x768 --calibration "$skew" 2>&1; }
read -r -t 60 reply <&"${TOUCH[0]}" || { fail "the touchscreen injector did not start"; exit 1; }
[[ $reply == ready\ /dev/input/event* ]] || { fail "touchscreen: $reply"; exit 1; }
say "uinput touchscreen at ${reply#ready }, misaligned by [${SKEW[*]}]"

say "flickd calibrate --display drm --write --config $CONFIG"
# Through a fifo of our own rather than a coproc: bash drops a coproc's fds when it exits,
# and with them the last lines (the residuals).
mkfifo "$RUN/calibrate.out"
"$BIN/flickd" calibrate --display drm --write --config "$CONFIG" --timeout 30 >"$RUN/calibrate.out" 2>&1 &
CAL_PID=$!
exec 9<"$RUN/calibrate.out"
targets=0 drawn=no
: >"$LOG"
while read -r -t 90 line <&9; do
  echo "$line" >>"$LOG"
  echo "    $line"
  if [[ $line =~ ^target\ ([0-9]+)/([0-9]+)\ at\ \(([0-9]+),\ ([0-9]+)\)$ ]]; then
    i=${BASH_REMATCH[1]} x=${BASH_REMATCH[3]} y=${BASH_REMATCH[4]}
    if [ "$i" = 1 ] && [ $drawn = no ]; then
      # The frame goes out right after the line: give it a vblank or two, then read it back.
      sleep 0.5
      grab=$("$BIN/flickd-e2e-grab" frame --png "$OUT/calibrate-target1.png" --pixel "$x,$y" 2>&1)
      off=$("$BIN/flickd-e2e-grab" frame --pixel "$((x + 40)),$y" 2>&1 | sed -n 's/^pixel [0-9,]* //p')
      echo "$grab" | sed 's/^/    grab: /'
      if [[ $grab == *"pixel $x,$y ffffff"* ]] && [ -n "$off" ] && [ "$off" != ffffff ]; then
        drawn=yes
        pass "1: the first target's crosshair is on screen at ($x, $y) (white there, $off beside it)"
      else
        fail "1: no white crosshair at ($x, $y) on screen"
        drawn=failed
      fi
    fi
    echo "tap $x $y" >&"${TOUCH[1]}"
    read -r -t 30 reply <&"${TOUCH[0]}" || { fail "the injector did not answer 'tap $x $y'"; break; }
    [[ $reply == ok* ]] || { fail "touchscreen: $reply"; break; }
    targets=$((targets + 1))
  fi
done
wait "$CAL_PID"
rc=$?
say "flickd calibrate exited $rc after $targets taps"

written=$(sed -n 's/^calibration = \[\(.*\)\]$/\1/p' "$CONFIG" | tr -d ' ')
if [ $rc != 0 ]; then
  fail "2: flickd calibrate exited $rc"
elif [ -z "$written" ]; then
  fail "2: no calibration line in the written config"
else
  IFS=, read -r -a got <<<"$written"
  worst=0
  for k in 0 1 2 3 4 5; do
    d=$(awk -v a="${got[$k]}" -v b="${SKEW[$k]}" 'BEGIN { d = a - b; print (d < 0 ? -d : d) }')
    worst=$(awk -v a="$worst" -v b="$d" 'BEGIN { print (b > a ? b : a) }')
  done
  say "written [${got[*]}], injected [${SKEW[*]}], largest difference $worst"
  # The panel has 4096 x 3072 units for 1024 x 768 px: whole units move a tap by up to 0.125 px,
  # a few 1e-4 of the matrix at most.
  if is 'w < 0.002' w="$worst"; then
    pass "2: the written matrix is the injected one (largest difference $worst)"
  else
    fail "2: the written matrix [${got[*]}] is not the injected [${SKEW[*]}] (largest difference $worst)"
  fi
fi
rms=$(sed -n 's/^residuals: rms \([0-9.]*\) px.*/\1/p' "$LOG")
if [ -n "$rms" ] && is 'r < 1' r="$rms"; then
  pass "3: residuals printed, rms $rms px"
else
  fail "3: residuals missing or large: '${rms:-none}'"
fi
# Everything but the calibration line is as it was (temporary files: the guest has no /dev/fd
# for process substitution).
grep -v '^calibration = ' "$RUN/before.toml" >"$RUN/before.rest"
grep -v '^calibration = ' "$CONFIG" >"$RUN/after.rest"
if cmp -s "$RUN/before.rest" "$RUN/after.rest" && "$BIN/flickd" check-config "$CONFIG" --user root >/dev/null 2>&1; then
  pass "4: only the calibration line changed, and the file checks"
else
  fail "4: the config changed beyond its calibration line, or does not check: $(diff "$RUN/before.toml" "$CONFIG" | head -n 5)"
fi
[ $drawn = yes ] || [ $drawn = failed ] || fail "1: the first target was never announced"

echo
if [ ${#failed[@]} = 0 ]; then
  say "calibrate: all checks passed"
  exit 0
fi
say "calibrate: ${#failed[@]} failure(s):"
printf '  %s\n' "${failed[@]}"
exit 1
