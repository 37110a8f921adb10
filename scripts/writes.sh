#!/usr/bin/env bash
# What flickd writes to disk (not in CI; RELIABILITY.md, "The SD card"): the release daemon on
# the headless display over demo/map.jpg (3000x3000), its state file and pyramid cache in a
# folder on disk, a flick every 1.5 s for MINUTES (default 10), then IDLE minutes (default 2)
# untouched. Prints /proc/PID/io's write_bytes (wchar and syscw for context) for the gestures,
# as bytes an hour, and for the idle time; passes at <= 64 KiB an hour and 0 idle.
# Then, with STRACE=1, a shorter run (STRACE_MINUTES, default 1) under strace lists every file
# the daemon opens for writing, renames, removes or syncs, with counts.
# STATE='restore = "view"' adds lines to the config's [state] table; EXTRA other tables, e.g.
# EXTRA=$'[metrics]\ntextfile = "/var/tmp/flickd.prom"'. FLICKD=path measures another binary.
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=${1:-10}
idle=${2:-2}
scripts/deps.sh
command -v strace >/dev/null || { [ "${STRACE:-0}" = 0 ] || apt-get install -y strace; }
swift build -c release --static-swift-stdlib --product flickd-soak
if [ -z "${FLICKD:-}" ]; then
    swift build -c release --static-swift-stdlib --product flickd
    FLICKD=.build/release/flickd
fi
soak=.build/release/flickd-soak
"$soak" --writes --minutes "$minutes" --idle-minutes "$idle" --flickd "$FLICKD" --state-extra "${STATE:-}" --config-extra "${EXTRA:-}"
if [ "${STRACE:-0}" != 0 ]; then
    log=$(mktemp /var/tmp/flickd-writes-strace.XXXXXX)
    "$soak" --writes --minutes "${STRACE_MINUTES:-1}" --idle-minutes 1 --flickd "$FLICKD" --state-extra "${STATE:-}" --config-extra "${EXTRA:-}" --strace "$log"
    echo "files opened for writing (O_WRONLY, O_RDWR or O_CREAT; /dev, /proc, /sys left out), renamed, removed, synced:"
    # The temporary folder's name varies: shown as DIR.
    sed -E 's#/var/tmp/flickd-writes-[A-Za-z0-9]+#DIR#g; s#\.[A-Za-z0-9]{6}"#.XXXXXX"#g' "$log" |
        grep -vE '= -1 E' |
        awk '/openat\(/ && /O_WRONLY|O_RDWR|O_CREAT/ && !/"\/(dev|proc|sys)\// { match($0, /"[^"]*"/); print "open-write " substr($0, RSTART, RLENGTH) }
             /rename(at2?)?\(/ { match($0, /"[^"]*", *(AT_FDCWD, *)?"[^"]*"/); print "rename " substr($0, RSTART, RLENGTH) }
             /unlink(at)?\(/ { match($0, /"[^"]*"/); print "unlink " substr($0, RSTART, RLENGTH) }
             /mkdir(at)?\(/ { match($0, /"[^"]*"/); print "mkdir " substr($0, RSTART, RLENGTH) }
             /(fsync|fdatasync|sync_file_range)\(/ { print $2 ~ /^[a-z_]+\(/ ? substr($2, 1, index($2, "(") - 1) : "fsync" }' |
        sort | uniq -c | sort -rn
    echo "(strace log: $log)"
fi
