#!/usr/bin/env bash
# Tests/E2E/readonly.sh OUT — flickd with the root file system read-only, run as root inside the
# VM (vm.sh) by scripts/e2e.sh (FLICKD_E2E_ONLY=readonly; in the default list).
#
# The machine has no systemd as PID 1, so the unit's file system is made by hand, as
# systemd/flickd.service would give it: flickd runs in a mount namespace of its own where every
# mount is read-only (ProtectSystem=strict) but /dev, /proc and /sys, with a private /tmp
# (PrivateTmp=) and three folders writable, passed as the unit passes them: /var/lib/flickd
# ($STATE_DIRECTORY, StateDirectory=), /var/cache/flickd ($CACHE_DIRECTORY, CacheDirectory=) and
# /run/flickd ($RUNTIME_DIRECTORY, RuntimeDirectory=). The config leaves state.path,
# content.cache_directory and control.socket at their defaults, so they go there. It runs as root,
# not as the unit's user: read-only mounts stop root too.
#
# First run: an image over content.pixel_budget: flickd starts, builds its pyramid into the cache
# folder, shows it (two frames read back from vkms), saves the view into the state folder, and on
# SIGTERM exits 0; its journal has no "Read-only file system", and its private /tmp and /dev/shm
# are left as they were. Second run, `state.path = ""` and no state folder: it starts, shows the
# content, says once that a restart starts at home, and exits 0 with nothing written but the socket.
set -uo pipefail

OUT=$(realpath "$1")
RUN=/run/flickd-readonly            # sockets and fifos cannot live on the 9p share
BIN=$RUN/bin                        # exec from 9p costs a second under emulation
mkdir -p "$RUN" "$BIN"
cp "$OUT"/bin/flickd "$OUT"/bin/flickctl "$OUT"/bin/flickd-e2e-grab "$BIN"/
STATE=/var/lib/flickd CACHE=/var/cache/flickd RUNTIME=/run/flickd
SOCK=$RUNTIME/control.sock
EVENTS=/dev/null
LOG=$RUN/readonly.log

source "$(dirname "$0")/common.sh"   # sleep, say, pass, fail, is
source "$(dirname "$0")/daemon.sh"   # ctl, status, wait_log, wait_rest, grab
keep() { cp "$RUN"/*.log "$RUN"/*.toml "$RUN"/*.txt "$OUT/" 2>/dev/null; }
trap keep EXIT

# run_readonly LOG CONFIG WRITABLE...: starts flickd (in the background, FLICKD its pid) in a
# mount namespace where only the WRITABLE folders, a private /tmp, /dev, /proc and /sys can be
# written; $STATE_DIRECTORY and the others are set for each of the unit's folders among them.
run_readonly() {
  local log=$1 config=$2
  shift 2
  local env=() d
  for d in "$@"; do
    mkdir -p "$d"
    case $d in
      "$STATE") env+=("STATE_DIRECTORY=$d") ;;
      "$CACHE") env+=("CACHE_DIRECTORY=$d") ;;
      "$RUNTIME") env+=("RUNTIME_DIRECTORY=$d") ;;
    esac
  done
  rm -rf "$RUN/tmp"; mkdir -p "$RUN/tmp"; chmod 1777 "$RUN/tmp"
  # unshare execs bash, which execs flickd: one process, one pid. Each writable folder is bound
  # onto itself (a mount of its own, left writable); then every other mount is made read-only.
  unshare -m --propagation private bash -c '
    set -e
    tmp=$1 bin=$2 config=$3; IFS=: read -ra dirs <<<"$4"; shift 4
    for d in "${dirs[@]}"; do mount --bind "$d" "$d"; done
    mount --bind "$tmp" /tmp
    while read -r _ _ _ _ point _; do
      case " /proc /sys /dev /tmp ${dirs[*]} " in *" $point "*) continue ;; esac
      case $point in /proc/*|/sys/*|/dev/*) continue ;; esac
      mount -o remount,bind,ro "$point"
    done </proc/self/mountinfo
    exec env "$@" "$bin/flickd" run --config "$config" --display auto --input auto
  ' bash "$RUN/tmp" "$BIN" "$config" "$(IFS=:; echo "$*")" "${env[@]}" >"$log" 2>&1 &
  FLICKD=$!
}
# The mounts flickd sees, for the record: "rw /point" or "ro /point".
mounts_of() { awk '{ split($6, o, ","); print o[1], $5 }' "/proc/$1/mountinfo" | sort -k2; }
# stop: SIGTERM; returns flickd's exit status.
stop() { kill -TERM $FLICKD 2>/dev/null; wait $FLICKD; }
erofs() { grep -iE "read-only file system|EROFS" "$1"; }

# ---------------------------------------------------------------- 1. the unit's folders writable, nothing else
say "1. / read-only; only $STATE, $CACHE, $RUNTIME (and a private /tmp) writable; an image over pixel_budget"
rm -rf "$STATE" "$CACHE" "$RUNTIME"
ls -A /dev/shm >"$RUN/shm-before.txt"
CONFIG=$RUN/readonly.toml
cat >"$CONFIG" <<EOF
# state.path, content.cache_directory and control.socket at their defaults: the unit's folders.
# restore = "view" with no interval: the view is written at each rest (at the default "home" a
# gesture writes nothing, and this run must show a state written into the state folder).
[content]
path = "$OUT/content.png"
pixel_budget = 65536
[state]
restore = "view"
save_interval_s = 0
EOF
run_readonly "$LOG" "$CONFIG" "$STATE" "$CACHE" "$RUNTIME"
ok=yes
within 120
levels=0
while in_time; do
  kill -0 $FLICKD 2>/dev/null || break
  levels=$(ctl status 2>/dev/null | jq -r --arg p "$OUT/content.png" \
    'if .status.content == $p and .status.building == null then .status.tiles.levels // 0 else 0 end' 2>/dev/null || echo 0)
  [ "${levels:-0}" -gt 0 ] && break
  sleep 0.5
done
if [ "${levels:-0}" -le 0 ]; then
  fail "1: the image was not shown from its pyramid within 120 s: $(tail -n 5 "$LOG" | tr '\n' ' ')"; ok=no
else
  mounts_of $FLICKD >"$RUN/readonly-mounts.txt"
  rw=$(awk '$1 == "rw" { print $2 }' "$RUN/readonly-mounts.txt" | grep -vE '^/(proc|sys|dev)(/|$)' | sort -u | tr '\n' ' ')
  [ "$rw" = "/run/flickd /tmp /var/cache/flickd /var/lib/flickd " ] \
    || { fail "1: flickd's writable mounts are '$rw'"; ok=no; }
  say "  writable for flickd: $rw(and /dev, /proc, /sys); $(awk '$1 == "ro"' "$RUN/readonly-mounts.txt" | wc -l) mounts read-only"
  for at in 0,0 2000,1500; do
    ctl set-offset "${at%,*}" "${at#*,}" --no-animate >/dev/null
    wait_rest 10 >/dev/null
    grab "readonly-${at/,/-}" expect --offset "$at" || { fail "1: the frame at $at does not show the content there"; ok=no; }
  done
  running=$(ls -A "$RUNTIME" | tr '\n' ' ')
  # The view at rest is saved after state.save_delay_ms (1 s).
  within 10
  while in_time && ! jq -e . "$STATE/state.json" >/dev/null 2>&1; do sleep 0.3; done
  jq -e . "$STATE/state.json" >/dev/null 2>&1 || { fail "1: no state saved into $STATE"; ok=no; }
fi
stop
rc=$?
[ $rc = 0 ] || { fail "1: flickd exited $rc on SIGTERM"; ok=no; }
find "$STATE" "$CACHE" "$RUNTIME" "$RUN/tmp" -mindepth 1 | sort >"$RUN/readonly-written.txt"
tiles=$(find "$CACHE" -type f | wc -l)
say "  written: $(find "$STATE" -type f | tr '\n' ' ')and $tiles files under $CACHE; in $RUNTIME while it ran: ${running:-nothing}"
[ "$tiles" -gt 1 ] || { fail "1: no pyramid in $CACHE"; ok=no; }
[ -z "$(ls -A "$RUN/tmp")" ] || { fail "1: flickd left files in its /tmp: $(ls -A "$RUN/tmp" | tr '\n' ' ')"; ok=no; }
ls -A /dev/shm >"$RUN/shm-after.txt"
cmp -s "$RUN/shm-before.txt" "$RUN/shm-after.txt" || { fail "1: flickd left files in /dev/shm: $(cat "$RUN/shm-after.txt")"; ok=no; }
if e=$(erofs "$LOG"); then fail "1: a write was refused: $(head -n 1 <<<"$e")"; ok=no; fi
[ $ok = yes ] && pass "1: read-only root: started, a pyramid of $levels levels built into $CACHE ($tiles files), frames at 0,0 and 2000,1500 right, the view saved into $STATE/state.json, nothing refused, nothing else written; exit 0"

# ---------------------------------------------------------------- 2. state.path = "": no state folder at all
say "2. state.path = \"\": no state folder; only $CACHE and $RUNTIME writable"
rm -rf "$STATE" "$CACHE" "$RUNTIME"
LOG=$RUN/readonly-nostate.log
CONFIG=$RUN/readonly-nostate.toml
cat >"$CONFIG" <<EOF
[content]
path = "$OUT/content.png"
[state]
path = ""
EOF
run_readonly "$LOG" "$CONFIG" "$CACHE" "$RUNTIME"
ok=yes
within 60
while in_time; do
  kill -0 $FLICKD 2>/dev/null || break
  [ "$(ctl status 2>/dev/null | jq -c .status.contentSize 2>/dev/null)" = "[3072,2304]" ] && break
  sleep 0.5
done
if ! kill -0 $FLICKD 2>/dev/null; then
  fail "2: flickd exited at start: $(tail -n 5 "$LOG" | tr '\n' ' ')"; ok=no
else
  ctl set-offset 700 500 --no-animate >/dev/null
  wait_rest 10 >/dev/null
  grab readonly-nostate expect --offset 700,500 || { fail "2: the frame at 700,500 does not show the content there"; ok=no; }
  sleep 1.5   # past state.save_delay_ms: a save would be tried now
fi
stop
rc=$?
[ $rc = 0 ] || { fail "2: flickd exited $rc on SIGTERM"; ok=no; }
# Loosely: the line may be reworded, but it names state.path and the home view, once.
said=$(grep -iE "state\.path" "$LOG" | grep -ciE "home")
said_line=$(grep -iE "state\.path" "$LOG" | grep -iE "home" | head -n 1)
[ "$said" = 1 ] || { fail "2: the journal says $said times that a restart starts at home: $(grep -i "state" "$LOG" | tr '\n' ' ')"; ok=no; }
if e=$(erofs "$LOG"); then fail "2: a write was refused: $(head -n 1 <<<"$e")"; ok=no; fi
if grep -iE "state.*(save|saving|write)" "$LOG" | grep -qiE "fail|cannot|refused|error"; then
  fail "2: a save was tried: $(grep -iE "state.*(save|saving|write)" "$LOG" | head -n 1)"; ok=no
fi
[ -e "$STATE" ] && { fail "2: $STATE exists: something made it"; ok=no; }
[ -z "$(ls -A "$RUN/tmp")" ] || { fail "2: flickd left files in its /tmp"; ok=no; }
[ $ok = yes ] && pass "2: state.path = \"\" with no state folder: started, the frame at 700,500 right, said once: '${said_line#*] }'; nothing refused; exit 0"

echo
if [ ${#failed[@]} = 0 ]; then say "all of the read-only root passed"; exit 0; fi
say "${#failed[@]} failure(s):"
printf '  %s\n' "${failed[@]}"
say "flickd's logs:"
tail -n 30 "$RUN/readonly.log" "$RUN/readonly-nostate.log" 2>/dev/null | sed 's/^/    /'
exit 1
