#!/usr/bin/env bash
# Tests/E2E/vm.sh — runs one command as root inside a throw-away qemu machine booting Debian's
# own kernel, which has what the build machines' kernel lacks: uinput, evdev and DRM (vkms).
#
#     Tests/E2E/vm.sh [-t SECONDS] [-m MEMORY] WORKDIR COMMAND [ARGS...]
#
# The guest sees the host's root filesystem read-only (9p, with a tmpfs overlay so it looks
# writable) and WORKDIR read-write at the same path, where COMMAND runs. Binaries built on the
# host with `--static-swift-stdlib` run unchanged. The command's output is streamed; the exit
# status is the command's, 124 when the guest-side time limit killed it, 125 when the machine
# did not boot or gave no status (the console log is printed then).
#
# First use installs qemu-system-x86, busybox-static and the kernel's headers, downloads the
# kernel and builds vkms (Debian ships none) from linux-source into the cache,
# ${FLICKD_E2E_CACHE:-~/.cache/flickd-e2e} (outside the checkout, so fresh clones reuse it):
# about a minute. Later boots take about 4 s. Needs root (apt-get; 9p without id mapping).
# /dev/kvm of this project's build machines cannot run a stock kernel, so qemu emulates (TCG)
# unless FLICKD_E2E_ACCEL=kvm.
set -euo pipefail

LIMIT=300
MEMORY=1G
while getopts "t:m:" option; do
  case $option in
    t) LIMIT=$OPTARG ;;
    m) MEMORY=$OPTARG ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
if [ $# -lt 2 ]; then echo "usage: $0 [-t SECONDS] [-m MEMORY] WORKDIR COMMAND [ARGS...]" >&2; exit 2; fi
WORKDIR=$(realpath -e "$1")
shift
CACHE=${FLICKD_E2E_CACHE:-${HOME:-/root}/.cache/flickd-e2e}

note() { echo "[vm] $*" >&2; }
fatal() { note "FAILED: $*"; exit 125; }

# ---------------------------------------------------------------- host packages
updated=no
install() {
  [ $updated = yes ] || { apt-get update -qq >&2 || fatal "apt-get update"; updated=yes; }
  note "installing $*"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null \
    || fatal "apt-get install $*"
}
want=()
command -v qemu-system-x86_64 >/dev/null || want+=(qemu-system-x86)
dpkg -s busybox-static >/dev/null 2>&1 || want+=(busybox-static)   # the initramfs needs it static
command -v xz >/dev/null || want+=(xz-utils)
[ ${#want[@]} = 0 ] || install "${want[@]}"

mkdir -p "$CACHE"
exec 8>"$CACHE/lock"
flock 8   # one preparation at a time; boots then run in parallel

# ---------------------------------------------------------------- the kernel
# Whichever 6.1 kernel Debian's linux-image-amd64 points at, remembered once resolved.
if [ ! -s "$CACHE/kernel" ]; then
  resolve() { apt-cache depends linux-image-amd64 2>/dev/null | sed -n 's/.*Depends: linux-image-\(.*-amd64\)$/\1/p' | sed -n 1p; }
  kver=$(resolve)
  if [ -z "$kver" ]; then apt-get update -qq >&2; updated=yes; kver=$(resolve); fi
  [ -n "$kver" ] || fatal "cannot tell which kernel linux-image-amd64 is"
  echo "$kver" >"$CACHE/kernel"
fi
KVER=$(cat "$CACHE/kernel")
K="$CACHE/$KVER"
MODULES="virtio_pci 9pnet_virtio 9p overlay evdev uinput drm_kms_helper drm_shmem_helper"

if [ ! -s "$K/vmlinuz" ]; then
  note "fetching kernel $KVER (once)"
  tmp=$(mktemp -d)
  (cd "$tmp" && apt-get download -q "linux-image-$KVER" >/dev/null 2>&1) \
    || { apt-get update -qq >&2; (cd "$tmp" && apt-get download -q "linux-image-$KVER" >/dev/null); } \
    || fatal "apt-get download linux-image-$KVER"
  dpkg-deb -x "$tmp"/linux-image-*.deb "$tmp/x"
  src="$tmp/x/lib/modules/$KVER"
  /bin/busybox depmod -b "$tmp/x" "$KVER"   # the package leaves modules.dep to its postinst
  rm -rf "$K"; mkdir -p "$K/lib/modules/$KVER"
  # The wanted modules and everything they depend on, by modules.dep.
  files=""
  for m in $MODULES; do
    line=$(grep -E "/${m//_/[-_]}\.ko(\.xz)?:" "$src/modules.dep" | sed -n 1p)
    [ -n "$line" ] || fatal "module $m is not in $KVER"
    files="$files ${line%%:*} ${line#*:}"
  done
  for f in $(printf '%s\n' $files | sort -u); do
    mkdir -p "$K/lib/modules/$KVER/$(dirname "$f")"
    cp "$src/$f" "$K/lib/modules/$KVER/$f"
  done
  find "$K/lib/modules" -name '*.ko.xz' -exec xz -d {} +
  # The bare ELF kernel boots straight into its PVH entry under qboot: no real-mode setup or
  # in-guest decompression, seconds less per boot under emulation. bzImage stays the fallback.
  offset=$(LC_ALL=C grep -obUaP '\xfd7zXZ\x00' "$tmp"/x/boot/vmlinuz-* | sed -n 1p | cut -d: -f1)
  if [ -n "$offset" ]; then
    tail -c +$((offset + 1)) "$tmp"/x/boot/vmlinuz-* | xz -dc --single-stream >"$K/vmlinux" 2>/dev/null || true
    [ "$(head -c4 "$K/vmlinux" | od -An -c | tr -d ' ')" = '177ELF' ] || rm -f "$K/vmlinux"
  fi
  cp "$tmp"/x/boot/vmlinuz-* "$K/vmlinuz"
  rm -rf "$tmp"
fi

# vkms: a KMS driver with a virtual CRTC and a 60 Hz vblank timer; Debian builds it not, so
# it is built here from the matching linux-source against the kernel's headers.
VKMS="$K/lib/modules/$KVER/extra/vkms.ko"
if [ ! -s "$VKMS" ]; then
  note "building vkms for $KVER (once)"
  need=()
  [ -d "/usr/src/linux-headers-$KVER" ] || need+=("linux-headers-$KVER")
  command -v make >/dev/null || need+=(make)
  command -v gcc >/dev/null || need+=(gcc)
  [ ${#need[@]} = 0 ] || install "${need[@]}"
  version=$(apt-cache show "linux-image-$KVER" | sed -n 's/^Version: //p' | sed -n 1p)
  series=$(echo "$KVER" | cut -d. -f1-2)
  tmp=$(mktemp -d)
  (cd "$tmp" && { apt-get download -q "linux-source-$series=$version" || apt-get download -q "linux-source-$series"; } >/dev/null 2>&1) \
    || fatal "apt-get download linux-source-$series"
  dpkg-deb --fsys-tarfile "$tmp"/linux-source-*.deb | tar -x -C "$tmp" --wildcards './usr/src/linux-source-*.tar.xz'
  tar -xJf "$tmp"/usr/src/linux-source-*.tar.xz -C "$tmp" --wildcards '*/drivers/gpu/drm/vkms/*'
  make -s -C "/usr/src/linux-headers-$KVER" M="$(echo "$tmp"/linux-source-*/drivers/gpu/drm/vkms)" CONFIG_DRM_VKMS=m modules >&2 \
    || fatal "building vkms"
  mkdir -p "$(dirname "$VKMS")"
  strip --strip-debug -o "$VKMS" "$tmp"/linux-source-*/drivers/gpu/drm/vkms/vkms.ko
  rm -rf "$tmp"
fi

# udmabuf: turns a memfd's pages into a dma-buf (flickd's linux-dmabuf Wayland buffers). Debian
# builds none (CONFIG_UDMABUF is a bool it leaves off): built here from linux-source with
# Tests/E2E/udmabuf-6.1.patch (exported symbols only, and the vmap later kernels have, without
# which vkms cannot show an imported udmabuf).
UDMABUF="$K/lib/modules/$KVER/extra/udmabuf.ko"
if [ ! -s "$UDMABUF" ]; then
  note "building udmabuf for $KVER (once)"
  need=()
  [ -d "/usr/src/linux-headers-$KVER" ] || need+=("linux-headers-$KVER")
  for tool in make gcc patch; do command -v $tool >/dev/null || need+=($tool); done
  [ ${#need[@]} = 0 ] || install "${need[@]}"
  version=$(apt-cache show "linux-image-$KVER" | sed -n 's/^Version: //p' | sed -n 1p)
  series=$(echo "$KVER" | cut -d. -f1-2)
  tmp=$(mktemp -d)
  (cd "$tmp" && { apt-get download -q "linux-source-$series=$version" || apt-get download -q "linux-source-$series"; } >/dev/null 2>&1) \
    || fatal "apt-get download linux-source-$series"
  dpkg-deb --fsys-tarfile "$tmp"/linux-source-*.deb | tar -x -C "$tmp" --wildcards './usr/src/linux-source-*.tar.xz'
  tar -xJf "$tmp"/usr/src/linux-source-*.tar.xz -C "$tmp" --wildcards '*/drivers/dma-buf/udmabuf.c'
  src=$(ls -d "$tmp"/linux-source-*/ | sed -n 1p)
  patch -s -d "$src" -p1 <"$(cd "$(dirname "$0")" && pwd)/udmabuf-6.1.patch" || fatal "patching udmabuf"
  mkdir -p "$tmp/udmabuf"; cp "$src/drivers/dma-buf/udmabuf.c" "$tmp/udmabuf/"; echo 'obj-m := udmabuf.o' >"$tmp/udmabuf/Kbuild"
  make -s -C "/usr/src/linux-headers-$KVER" M="$tmp/udmabuf" modules >&2 || fatal "building udmabuf"
  strip --strip-debug -o "$UDMABUF" "$tmp/udmabuf/udmabuf.ko"
  rm -rf "$tmp"
fi

# ---------------------------------------------------------------- the initramfs
# PID 1: modules, the host root as a read-only lower layer under a tmpfs, WORKDIR and the
# control share mounted, vkms loaded; then the command in a chroot, its status written back.
read -r -d '' INIT <<'GUEST' || true
#!/bin/sh
export PATH=/bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
log() { echo "[guest $(cut -d' ' -f1 /proc/uptime)] $*"; }
finish() { echo "${1:-125}" >/ctl/status; sync; poweroff -f; }
modprobe -a virtio_pci 9pnet_virtio 9p overlay evdev uinput || { log "modprobe failed"; poweroff -f; }
P=trans=virtio,version=9p2000.L,msize=262144,cache=loose
mkdir -p /ctl /host /top /new
mount -t 9p -o $P ctl /ctl || { log "no control share"; poweroff -f; }
mount -t 9p -o $P,ro host /host || { log "no host root"; finish; }
mount -t tmpfs -o mode=755 top /top; mkdir -p /top/data /top/work
mount -t overlay -o lowerdir=/host,upperdir=/top/data,workdir=/top/work root /new || { log "no overlay"; finish; }
for d in proc sys dev tmp run; do mkdir -p /new/$d; done
mount -t proc proc /new/proc; mount -t sysfs sys /new/sys; mount -t devtmpfs dev /new/dev
mkdir -p /new/dev/pts /new/dev/shm; mount -t devpts pts /new/dev/pts; mount -t tmpfs shm /new/dev/shm
mount -t debugfs debug /new/sys/kernel/debug 2>/dev/null
mount -t tmpfs tmp /new/tmp; mount -t tmpfs run /new/run
mkdir -p /new/run/e2e; mount --bind /ctl /new/run/e2e
workdir=$(cat /ctl/workdir); mkdir -p "/new$workdir"
mount -t 9p -o $P work "/new$workdir" || { log "no work share"; finish; }
modprobe vkms enable_writeback=0 enable_overlay=1 || { log "modprobe vkms failed"; finish; }
modprobe udmabuf || log "modprobe udmabuf failed: no /dev/udmabuf"
i=0; while [ ! -e /dev/dri/card0 ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
[ -e /dev/dri/card0 ] || { log "vkms made no /dev/dri/card0"; finish; }
cut -d' ' -f1 /proc/uptime >/ctl/booted
limit=$(cat /ctl/limit)
timeout -s KILL "$limit" chroot /new /bin/bash /run/e2e/command </dev/null >>/ctl/output 2>&1
rc=$?
[ $rc = 137 ] && { echo "[vm] the command ran past ${limit}s and was killed" >>/ctl/output; rc=124; }
finish $rc
GUEST

# vkms is left without its writeback connector: flickd takes the first connected connector,
# and the frame grabber reads the CRTC's framebuffer instead.
stamp=$( (echo "$INIT"; ls -l "$K/lib/modules/$KVER" "$VKMS" "$UDMABUF"; /bin/busybox 2>&1 | sed -n 1p) | md5sum | cut -c1-10)
INITRD="$K/initrd-$stamp.gz"
if [ ! -s "$INITRD" ]; then
  tmp=$(mktemp -d)
  mkdir -p "$tmp"/{bin,dev,proc,sys,lib}
  cp /bin/busybox "$tmp/bin/"
  for applet in $(/bin/busybox --list); do [ "$applet" = busybox ] || ln -s busybox "$tmp/bin/$applet"; done
  cp -a "$K/lib/modules" "$tmp/lib/"
  /bin/busybox depmod -b "$tmp" "$KVER"
  printf '%s\n' "$INIT" >"$tmp/init"
  chmod 755 "$tmp/init"
  rm -f "$K"/initrd-*.gz
  (cd "$tmp" && find . | /bin/busybox cpio -o -H newc 2>/dev/null | gzip -1) >"$INITRD.part"
  mv "$INITRD.part" "$INITRD"
  rm -rf "$tmp"
fi
flock -u 8

# ---------------------------------------------------------------- the run
RUN=$(mktemp -d /tmp/flickd-vm.XXXXXX)
cleanup() { [ -n "${QEMU:-}" ] && kill "$QEMU" 2>/dev/null; rm -rf "$RUN"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir "$RUN/ctl"
: >"$RUN/ctl/output"
echo "$WORKDIR" >"$RUN/ctl/workdir"
echo $((LIMIT > 30 ? LIMIT - 15 : LIMIT)) >"$RUN/ctl/limit"   # the guest stops first, keeping its log
{
  printf 'export PATH=%q HOME=/root LANG=C.UTF-8 TERM=dumb FLICKD_E2E_GUEST=1\n' "$PATH"
  for v in CI FLICKD_E2E_KEEP; do [ -n "${!v+x}" ] && printf 'export %s=%q\n' "$v" "${!v}"; done
  printf 'cd %q || exit 125\nexec' "$WORKDIR"
  printf ' %q' "$@"
  echo
} >"$RUN/ctl/command"

if [ "${FLICKD_E2E_ACCEL:-tcg}" = kvm ]; then machine=(-machine q35,accel=kvm -cpu host)
else machine=(-machine q35 -accel tcg,thread=multi -cpu max); fi
boot=(-kernel "$K/vmlinuz")
[ -s "$K/vmlinux" ] && [ -f /usr/share/qemu/qboot.rom ] && boot=(-bios /usr/share/qemu/qboot.rom -kernel "$K/vmlinux")
share=local,security_model=none,multidevs=remap
started=$(date +%s%N)
timeout -k 5 "$LIMIT" qemu-system-x86_64 -nodefaults -no-user-config -no-reboot -display none -nic none \
  "${machine[@]}" -smp "$(nproc)" -m "$MEMORY" "${boot[@]}" -initrd "$INITRD" \
  -append "console=ttyS0 panic=-1 loglevel=4 rdinit=/init" \
  -serial file:"$RUN/console" \
  -virtfs $share,path=/,mount_tag=host,readonly=on \
  -virtfs $share,path="${WORKDIR//,/,,}",mount_tag=work \
  -virtfs $share,path="$RUN/ctl",mount_tag=ctl \
  </dev/null >"$RUN/qemu" 2>&1 &
QEMU=$!
tail -s 0.2 -n +1 -f --pid=$QEMU "$RUN/ctl/output" 2>/dev/null || true
wait $QEMU || true
QEMU=
took=$(( ($(date +%s%N) - started) / 1000000 ))
if [ -s "$RUN/ctl/status" ] && [ -s "$RUN/ctl/booted" ]; then
  status=$(cat "$RUN/ctl/status")
  note "exit $status (booted in $(cat "$RUN/ctl/booted") s, machine ran $((took / 1000)).$((took % 1000 / 100)) s)"
  exit "$status"
fi
note "---- guest console ----"; cat "$RUN/console" >&2 || true
note "---- qemu ----"; cat "$RUN/qemu" >&2 || true
fatal "the machine did not boot or gave no status (after $((took / 1000)) s)"
