#!/usr/bin/env bash
# Tests/E2E/weston-bench.sh OUT PAIRS SECONDS — BENCHMARKS.md item 16, run inside the VM by
# scripts/wayland-dmabuf-bench.sh: flickd under Weston 10's DRM backend (GL, llvmpipe) on vkms
# with dma-buf buffers (D: scanned out directly) and with shared memory (S: Weston uploads and
# composes), PAIRS interleaved pairs (D S D S …), each run scrolling (animated set-offset back and
# forth) for SECONDS. Per run: CPU µs per frame of flickd and of Weston (schedstat's first field
# summed over each one's threads; frames from `status`). Then the medians and the medians of the
# paired ratios D/S. Under TCG emulation: the ratios mean something, the microseconds do not.
set -uo pipefail
OUT=$(realpath "$1")
PAIRS=${2:-3}
WINDOW=${3:-10}
RUN=/run/flickd-weston-bench
BIN=$RUN/bin
mkdir -p "$RUN/xdg" "$BIN"
chmod 700 "$RUN/xdg"
cp "$OUT"/bin/flickd "$OUT"/bin/flickctl "$BIN"/
SOCK=$RUN/control.sock
source "$(dirname "$0")/common.sh"   # sleep, say

env -i PATH=/usr/bin:/bin XDG_RUNTIME_DIR="$RUN/xdg" weston --backend=drm-backend.so --tty=2 --continue-without-input \
  --shell=desktop-shell.so --config="$(dirname "$0")/weston.ini" --socket=wayland-bench --log="$RUN/weston.log" >/dev/null 2>&1 &
WESTON=$!
for ((i = 0; i < 400; i++)); do [ -S "$RUN/xdg/wayland-bench" ] && break; sleep 0.3; done
[ -S "$RUN/xdg/wayland-bench" ] || { say "weston did not start"; tail "$RUN/weston.log"; exit 1; }

ctl() { "$BIN/flickctl" "$@" --socket "$SOCK"; }
cpu() { # cpu PID: schedstat's first field (ns on a CPU) summed over its threads
  local sum=0 value task
  for task in /proc/"$1"/task/*; do read -r value _ <"$task/schedstat" 2>/dev/null && sum=$((sum + value)); done
  echo $sum
}
frames() { ctl status | jq -r .status.frames; }
start() { # start auto|shm
  rm -f "$SOCK"
  printf '[control]\nsocket = "%s"\n[state]\npath = "%s/state.json"\n[content]\nplaceholder = "test-pattern"\n[display]\nwayland_buffers = "%s"\n' \
    "$SOCK" "$RUN" "$1" >"$RUN/flickd.toml"
  rm -f "$RUN/state.json"
  env -i PATH=/usr/bin:/bin XDG_RUNTIME_DIR="$RUN/xdg" WAYLAND_DISPLAY=wayland-bench \
    "$BIN/flickd" run --config "$RUN/flickd.toml" --display wayland >"$RUN/flickd.log" 2>&1 &
  FLICKD=$!
  for ((i = 0; i < 400; i++)); do [ -S "$SOCK" ] && ctl status >/dev/null 2>&1 && return 0; sleep 0.3; done
  say "flickd did not start"; tail "$RUN/flickd.log"; exit 1
}
stop() { kill -TERM $FLICKD; wait $FLICKD 2>/dev/null; }

results=()
for ((pair = 1; pair <= PAIRS; pair++)); do
  for kind in auto shm; do
    start $kind
    display=$(ctl status | jq -r .status.display)
    sleep 2
    f0=$(frames); c0=$(cpu $FLICKD); w0=$(cpu $WESTON)
    end=$((SECONDS + WINDOW)); step=0
    while ((SECONDS < end)); do
      ctl set-offset 0 $((step % 2 ? 0 : 900)) >/dev/null; step=$((step + 1)); sleep 0.8
    done
    f1=$(frames); c1=$(cpu $FLICKD); w1=$(cpu $WESTON)
    stop
    n=$((f1 - f0)); ((n > 0)) || n=1
    label=$([ $kind = auto ] && echo dmabuf || echo shm)
    [[ $display == *"${label} buffers"* ]] || { say "run $pair $kind: not $label: $display"; exit 1; }
    fl=$(((c1 - c0) / 1000 / n)); we=$(((w1 - w0) / 1000 / n))
    say "pair $pair $label: $n frames; flickd $fl µs CPU per frame, weston $we µs (loadavg $(cut -d' ' -f1 /proc/loadavg))"
    results+=("$label $fl $we")
  done
done
kill $WESTON 2>/dev/null
printf '%s\n' "${results[@]}" | /usr/bin/python3 -c '
import statistics, sys
rows = [l.split() for l in sys.stdin if l.strip()]
d = [r for r in rows if r[0] == "dmabuf"]; s = [r for r in rows if r[0] == "shm"]
for i, name in ((1, "flickd"), (2, "weston"), (None, "both")):
    val = (lambda r: float(r[1]) + float(r[2])) if i is None else (lambda r, i=i: float(r[i]))
    ratios = [val(a) / val(b) for a, b in zip(d, s) if val(b) > 0]
    print("%s: dmabuf median %.0f us/frame, shm %.0f, median of paired ratios D/S x%.2f" % (
        name, statistics.median(map(val, d)), statistics.median(map(val, s)), statistics.median(ratios) if ratios else float("nan")))
'
