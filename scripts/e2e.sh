#!/usr/bin/env bash
# The end-to-end test on a real kernel (Tests/E2E/README.md): builds flickd, flickctl and the
# test tools in release mode with the static Swift runtime, boots Debian's kernel under qemu
# (Tests/E2E/vm.sh: uinput, evdev, vkms) and runs the scenarios of Tests/E2E/scenarios.sh
# against the real flickd binary, then `flickd calibrate` (Tests/E2E/calibrate.sh) in a second
# boot, then builds the Debian package (scripts/deb.sh) and installs it in a third
# (Tests/E2E/package.sh). Exits non-zero when a scenario, calibrate or a package check fails or
# the VM does not boot; it never skips. Results (log, events, frames as PNG) stay in
# $FLICKD_E2E_OUT (default .build-e2e/e2e-run). flickd under cage, the Wayland kiosk compositor,
# runs in a boot of its own (Tests/E2E/cage.sh), and its linux-dmabuf buffers under Weston's DRM
# backend in another (Tests/E2E/weston.sh). FLICKD_E2E_ONLY=cage (or scenarios, calibrate,
# weston, package; several with commas) runs only those parts, while iterating on one;
# FLICKD_E2E_ONLY=document runs scenario 15 alone (a PDF menu drawn by flickd-render), which
# `scenarios` runs last, and FLICKD_E2E_ONLY=monitors scenario 12 (monitors that come and go).
# FLICKD_E2E_ONLY=clock sets the machine's wall clock under flickd, from 1970 to now and back
# (Tests/E2E/clock.sh; in the default parts, about 50 s).
# FLICKD_E2E_ONLY=readonly (in the default list) runs flickd with `/` read-only, only the unit's
# state, cache and runtime folders writable (Tests/E2E/readonly.sh). FLICKD_E2E_ONLY=soak, never in
# the default list, is the real-time soak (Tests/E2E/soak.sh): FLICKD_E2E_SOAK_MINUTES (default 30)
# of gestures, DPMS, unplugs and content swaps, frames read back, RSS and descriptors sampled.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
SCRATCH=${FLICKD_E2E_SCRATCH:-.build-e2e}
OUT=${FLICKD_E2E_OUT:-$SCRATCH/e2e-run}
# The release products are built as every release build is (Makefile), so they share .build.
BUILD=${FLICKD_E2E_BUILD:-.build}
ONLY=${FLICKD_E2E_ONLY:-scenarios,calibrate,readonly,clock,cage,weston,package}
part() { [[ ",$ONLY," == *",$1,"* ]]; }

scripts/deps.sh
if ! command -v jq >/dev/null; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq jq
fi
# Scenario 15's expected pages: the PDF menu rendered by poppler (pdftocairo).
if part scenarios || part document || part monitors; then
  if ! command -v pdftocairo >/dev/null; then
    SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq poppler-utils
  fi
fi
# The cage scenario's compositor and what it needs in the machine, which sees the host's root:
# cage (and Xwayland, which it needs installed), seatd to open the devices for an ordinary user,
# and udev, whose database libinput reads.
if part cage; then
  cage_missing=()
  for p in cage xwayland seatd udev; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || cage_missing+=("$p")
  done
  if ((${#cage_missing[@]})); then
    SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${cage_missing[@]}"
  fi
fi

# The Weston scenario's compositor and its GL renderer on vkms: Mesa's llvmpipe through kms_swrast
# (libgl1-mesa-dri), EGL and GBM.
if part weston; then
  weston_missing=()
  for p in weston libgl1-mesa-dri libegl-mesa0 libgbm1; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || weston_missing+=("$p")
  done
  if ((${#weston_missing[@]})); then
    SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${weston_missing[@]}"
  fi
fi

# flickd-render is looked up beside flickd (docs/documents.md): it goes into bin/ with it.
products=(flickd flickctl flickd-render flickd-e2e-touch flickd-e2e-grab)
for product in "${products[@]}"; do
  swift build -c release --static-swift-stdlib --scratch-path "$BUILD" --product "$product"
done
built=$(date +%s)

rm -rf "$OUT"
mkdir -p "$OUT/bin"
bindir=$(swift build -c release --static-swift-stdlib --scratch-path "$BUILD" --show-bin-path)
# Without symbols the binaries load faster over the VM's 9p share.
for product in "${products[@]}"; do strip -o "$OUT/bin/$product" "$bindir/$product"; done
# The content: every pixel encodes its own coordinates, so a grabbed pixel says which content
# point the screen shows there. 3 × 3 screens of 1024x768: room to flick and zoom.
"$OUT/bin/flickd-e2e-grab" pattern "$OUT/content.png" 3072 2304
# Scenario 15's document, made with cairo, and each of its pages as poppler draws it at 2 px a
# point, the size flickd lays it out at on vkms (Tests/E2E/menu.py, Tests/E2E/document.sh).
/usr/bin/python3 Tests/E2E/menu.py pdf "$OUT/menu.pdf"
for n in 1 2 3 4; do
  pdftocairo -png -r 144 -f $n -l $n -singlefile "$OUT/menu.pdf" "$OUT/menu-$n"
  /usr/bin/python3 Tests/E2E/menu.py ppm "$OUT/menu-$n.png" "$OUT/menu-$n.ppm"
done

set +e
rc=0
if part scenarios; then
  # Scenarios 1-14 took about 400 s in the machine; 15, the PDF menu, 55 s more (130 s on a busy host).
  Tests/E2E/vm.sh -t "${FLICKD_E2E_TIMEOUT:-780}" "$PWD" Tests/E2E/scenarios.sh "$OUT"
  rc=$?
fi
# Scenario 15 alone, while iterating on it (scenarios runs it too).
if part document && ! part scenarios; then
  Tests/E2E/vm.sh -t "${FLICKD_E2E_DOCUMENT_TIMEOUT:-300}" "$PWD" Tests/E2E/scenarios.sh "$OUT" 15
  rc=$?
fi
# Scenario 12 alone, likewise.
if part monitors && ! part scenarios; then
  Tests/E2E/vm.sh -t "${FLICKD_E2E_MONITORS_TIMEOUT:-300}" "$PWD" Tests/E2E/scenarios.sh "$OUT" 12
  monitors_rc=$?
  [ $rc != 0 ] || rc=$monitors_rc
fi
# The wall clock set under flickd in a boot of its own (Tests/E2E/clock.sh): about 50 s.
if part clock; then
  Tests/E2E/vm.sh -t "${FLICKD_E2E_CLOCK_TIMEOUT:-240}" "$PWD" Tests/E2E/clock.sh "$OUT"
  clock_rc=$?
  [ $clock_rc = 0 ] || echo "e2e: the wall clock set under flickd FAILED (exit $clock_rc)" >&2
  [ $rc != 0 ] || rc=$clock_rc
fi
# `/` read-only: flickd writes only into its state, cache and runtime folders (Tests/E2E/readonly.sh).
if part readonly; then
  Tests/E2E/vm.sh -t "${FLICKD_E2E_READONLY_TIMEOUT:-300}" "$PWD" Tests/E2E/readonly.sh "$OUT"
  readonly_rc=$?
  [ $readonly_rc = 0 ] || echo "e2e: flickd with a read-only root FAILED (exit $readonly_rc)" >&2
  [ $rc != 0 ] || rc=$readonly_rc
fi
# The real-time soak, only when asked for: its minutes plus room to boot, check and stop.
if part soak; then
  soak_minutes=${FLICKD_E2E_SOAK_MINUTES:-30}
  Tests/E2E/vm.sh -t $((soak_minutes * 60 + 420)) "$PWD" Tests/E2E/soak.sh "$OUT" "$soak_minutes"
  soak_rc=$?
  [ $soak_rc = 0 ] || echo "e2e: the soak FAILED (exit $soak_rc)" >&2
  [ $rc != 0 ] || rc=$soak_rc
fi
# flickd calibrate against a deliberately misaligned panel, in a boot of its own: it needs the
# display and the touchscreen to itself (Tests/E2E/calibrate.sh).
if part calibrate; then
  Tests/E2E/vm.sh -t "${FLICKD_E2E_CALIBRATE_TIMEOUT:-180}" "$PWD" Tests/E2E/calibrate.sh "$OUT"
  calibrate_rc=$?
  [ $calibrate_rc = 0 ] || echo "e2e: flickd calibrate FAILED (exit $calibrate_rc)" >&2
  [ $rc != 0 ] || rc=$calibrate_rc
fi
# flickd as cage's client, its touches from the compositor (Tests/E2E/cage.sh).
if part cage; then
  Tests/E2E/vm.sh -t "${FLICKD_E2E_CAGE_TIMEOUT:-300}" "$PWD" Tests/E2E/cage.sh "$OUT"
  cage_rc=$?
  [ $cage_rc = 0 ] || echo "e2e: flickd under cage FAILED (exit $cage_rc)" >&2
  [ $rc != 0 ] || rc=$cage_rc
fi
# flickd's dma-buf buffers scanned out by Weston (DRM, GL) (Tests/E2E/weston.sh).
if part weston; then
  Tests/E2E/vm.sh -t "${FLICKD_E2E_WESTON_TIMEOUT:-300}" "$PWD" Tests/E2E/weston.sh "$OUT"
  weston_rc=$?
  [ $weston_rc = 0 ] || echo "e2e: flickd's dma-bufs under Weston FAILED (exit $weston_rc)" >&2
  [ $rc != 0 ] || rc=$weston_rc
fi
set -e
scenarios=$(date +%s)

# The package, installed with dpkg in a machine of its own: the overlay keeps the install inside it.
if part package; then
  scripts/deb.sh "$OUT/deb"
  set +e
  Tests/E2E/vm.sh -t 300 "$PWD" Tests/E2E/package.sh "$OUT"/deb/flickd_*.deb
  package=$?
  set -e
  [ $package = 0 ] || echo "e2e: the package check FAILED (exit $package)" >&2
  [ $rc != 0 ] || rc=$package
fi
end=$(date +%s)
echo "e2e: build $((built - start)) s, VM and scenarios $((scenarios - built)) s, package $((end - scenarios)) s, total $((end - start)) s; results in $OUT"
case $rc in
  0) echo "e2e: passed" ;;
  125) echo "e2e: FAILED: the VM did not boot or gave no status" >&2 ;;
  124) echo "e2e: FAILED: the scenarios ran out of time" >&2 ;;
  *) echo "e2e: FAILED (exit $rc)" >&2 ;;
esac
exit $rc
