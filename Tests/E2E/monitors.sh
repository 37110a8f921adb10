# Tests/E2E/monitors.sh — scenario 12, sourced by scenarios.sh (which runs it after 11, or alone
# when given `12`): monitors that come and go.
#
# vkms' connector forced off through DRM's debugfs `force` file before flickd starts: flickd
# starts, says it waits (journal, STATUS=, status), draws nothing; commands move the model meanwhile
# (`status` has the offset at once, animated or not); forced on (vkms sends no uevent: one is
# written to the card's), it modesets and draws the content where the command left the view.
# Then, while it runs, the connector's sysfs `status` off and `detect`: drawing stops, and starts
# again after, where the view is.

HPCONF=$RUN/hotplug.toml
HPLOG=$RUN/hotplug.log
FORCE=/sys/kernel/debug/dri/0/Virtual-1/force
STATUSFILE=/sys/class/drm/card0-Virtual-1/status
uevent() { echo "change $(cat /proc/sys/kernel/random/uuid) HOTPLUG=1" >/sys/class/drm/card0/uevent; }

hotplug() {
  [ -w "$FORCE" ] || { fail "12: no $FORCE (debugfs)"; return 1; }
  echo off >"$FORCE"; uevent; sleep 0.5
  : >"$RUN/notify.log"
  NOTIFY_SOCKET=$NOTIFY "$BIN/flickd" run --config "$HPCONF" --display auto --input auto >"$HPLOG" 2>&1 &
  FLICKD=$!
  wait_log "waiting for a monitor" 30 "$HPLOG" || { fail "12: flickd did not say it waits for a monitor"; return 1; }
  wait_log "READY=1" 30 "$RUN/notify.log" || { fail "12: no READY=1 while waiting (systemd would time the start out)"; return 1; }
  grep -q "waiting for a monitor" "$RUN/notify.log" || { fail "12: STATUS= does not say it waits: $(cat "$RUN/notify.log")"; return 1; }
  local s frames
  s=$(status)
  jq -e '.display | test("waiting for a monitor")' <<<"$s" >/dev/null || { fail "12: status says $(jq -c .display <<<"$s")"; return 1; }
  jq -e '.frames == 0' <<<"$s" >/dev/null || { fail "12: frames drawn with no monitor: $(jq .frames <<<"$s")"; return 1; }
  if grep -q "display: fbdev" "$HPLOG"; then fail "12: fbdev taken instead of the card"; return 1; fi
  pass "12: started with the monitor off: waits, READY=1 and STATUS= say so, 0 frames, fbdev emulation not taken"

  # With no monitor a command moves the model at once: an animated one (no frame would step
  # it), then one that jumps; the status right after each has its offset.
  ctl set-offset 0 600 >/dev/null || { fail "12: set-offset with no monitor refused"; return 1; }
  s=$(status)
  jq -e '.offset == [0, 600]' <<<"$s" >/dev/null || { fail "12: no monitor: animated set-offset 0 600, status $(jq -c .offset <<<"$s")"; return 1; }
  ctl set-offset 0 300 --no-animate >/dev/null || { fail "12: set-offset with no monitor refused"; return 1; }
  s=$(status)
  jq -e '.offset == [0, 300] and .frames == 0' <<<"$s" >/dev/null \
    || { fail "12: no monitor: set-offset 0 300 --no-animate, status $(jq -c '[.offset, .frames]' <<<"$s")"; return 1; }
  pass "12: no monitor: set-offset is in status at once ([0, 600] animated, then [0, 300]), no frame drawn"

  echo on >"$FORCE"; uevent
  wait_log "monitor connected" 30 "$HPLOG" || { fail "12: the connector forced on was not taken up"; return 1; }
  sleep 1
  grab 12-connected expect --offset 0,300 || { fail "12: after the monitor came, the content is not on screen at (0, 300)"; return 1; }
  pass "12: forced on: modeset and the content drawn where the command left the view (0, 300)"

  # Unplugged while running: drawing stops, said once; the model still answers.
  echo off >"$STATUSFILE"; uevent
  wait_log "Virtual-1 disconnected" 30 "$HPLOG" || { fail "12: the unplug was not seen"; return 1; }
  frames=$(status | jq .frames)
  ctl set-offset 0 100 --no-animate >/dev/null
  sleep 1.5
  s=$(status)
  jq -e ".frames == $frames and .offset[1] == 100" <<<"$s" >/dev/null \
    || { fail "12: unplugged: frames $frames → $(jq .frames <<<"$s"), offset $(jq -c .offset <<<"$s")"; return 1; }
  echo detect >"$STATUSFILE"; uevent
  within 30
  until [ "$(grep -c "monitor connected" "$HPLOG")" -ge 2 ] || ! in_time; do sleep 0.3; done
  [ "$(grep -c "monitor connected" "$HPLOG")" -ge 2 ] || { fail "12: the replug was not taken up"; return 1; }
  grab 12-replugged expect --offset 0,100 || { fail "12: after the replug the view is not where it was"; return 1; }
  local unplugs
  unplugs=$(grep -c "Virtual-1 disconnected" "$HPLOG")
  [ "$unplugs" = 1 ] || { fail "12: the unplug said $unplugs times"; return 1; }
  pass "12: unplugged: no frame, the model moved (offset 100); replugged: modeset again, drawn where the view is"
}

monitors_scenario() {
  say "12. monitors: started with the connector forced off, a command while it is off, drawn once it is on; unplugged and replugged while running"
  cat >"$HPCONF" <<EOF
[content]
path = "$OUT/content.png"
[control]
socket = "$SOCK"
[state]
path = "$RUN/hotplug-state.json"
EOF
  hotplug || { say "this flickd's log:"; sed 's/^/    /' "$HPLOG" | tail -n 30; }
  echo on >"$FORCE" 2>/dev/null; echo detect >"$STATUSFILE" 2>/dev/null; uevent 2>/dev/null
  kill -TERM $FLICKD 2>/dev/null
  wait $FLICKD
  local rc=$?
  cp "$HPLOG" "$HPCONF" "$OUT/" 2>/dev/null
  [ $rc = 0 ] || fail "12: flickd exited $rc on SIGTERM"
}
