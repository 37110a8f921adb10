#!/usr/bin/env bash
# Issue 36 part 4, figure (a) (BENCHMARKS.md): section 11's attack (d), a provider sending
# 10 000 invalidations a second while the view scrolls, against two daemons run in turn
# (A B A B …, one daemon at a time): per run, the median over its attack windows of the event-loop
# thread's share of a CPU (from /proc/PID/task/PID/schedstat) and of the frame rate; then the
# paired ratios B/A, round by round, and their median. Also the loop thread's CPU time per frame
# shown (the share over the frame rate): on a machine so loaded that the loop waits for a CPU
# (the share falls with the frame rate), the cost of the work done, which the share is not.
# And the tiles the app drew a second in the attack windows, and the loop's CPU time per tile:
# the app draws whatever stale tiles the daemon asks for, as fast as it answers, so a daemon
# that serves tiles faster is asked for more of them at the same share of a CPU; the time per
# tile is the cost that does not move with that.
#
#   scripts/provider-flood.sh A_FLICKD B_FLICKD [ROUNDS (5)] [PAIRS (3)]
#
# PAIRS is the calm/attack window pairs of each run (1 s each). The benchmark is
# .build/release/flickd-bench (make bench builds it; FLICKD_BENCH overrides); it is the same
# for both: only the daemon differs.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: $0 A_FLICKD B_FLICKD [ROUNDS] [PAIRS]" >&2; exit 2; }
a=$1 b=$2 rounds=${3:-5} pairs=${4:-3}
bench=${FLICKD_BENCH:-.build/release/flickd-bench}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for r in $(seq 1 "$rounds"); do
  for who in A B; do
    bin=$a; [ "$who" = B ] && bin=$b
    "$bench" --provider-flood --pairs "$pairs" --flickd "$bin" >"$out/$r.$who" 2>&1 || true
    cpu=$(sed -n 's/.*event-loop thread, calm → attack (medians): on a CPU [0-9.na]* → \([0-9.na]*\) %.*/\1/p' "$out/$r.$who")
    fps=$(sed -n 's/^  attack  median \([0-9.na]*\) frames\/s.*/\1/p' "$out/$r.$who")
    tiles=$(sed -n 's/.*tiles the provider drew, calm → attack (medians): [0-9.na]* → \([0-9.na]*\) a second.*/\1/p' "$out/$r.$who")
    pertile=$(sed -n 's/.*loop thread.s CPU per tile in the attack: \([0-9.na]*\) µs.*/\1/p' "$out/$r.$who")
    [ -n "$cpu" ] && [ -n "$fps" ] && [ -n "$tiles" ] && [ -n "$pertile" ] \
      || { echo "run $r $who: no figures; its output:" >&2; cat "$out/$r.$who" >&2; exit 1; }
    echo "$r $who $cpu $fps $tiles $pertile" >>"$out/figures"
    echo "round $r $who: loop thread $cpu % of a CPU, $fps frames/s in the attack windows, $(awk -v c="$cpu" -v f="$fps" 'BEGIN { printf "%.2f", (f > 0 ? c * 10 / f : 0) }') ms of loop CPU per frame, $tiles tiles drawn a second, $pertile µs of loop CPU per tile (load $(cut -d' ' -f1-3 /proc/loadavg))"
  done
done
awk '
  { cpu[$1, $2] = $3; fps[$1, $2] = $4; tiles[$1, $2] = $5; per[$1, $2] = $6; n = $1 }
  function median(v, k,   i, j, t) {
    for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
    return k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
  }
  END {
    for (r = 1; r <= n; r++) { c[r] = cpu[r, "B"] / cpu[r, "A"]; f[r] = fps[r, "B"] / fps[r, "A"]; ca[r] = cpu[r, "A"]; cb[r] = cpu[r, "B"]; fa[r] = fps[r, "A"]; fb[r] = fps[r, "B"] }
    printf "loop thread, %% of a CPU: A median %.1f, B median %.1f; paired ratio B/A median x%.3f (n %d)\n", median(ca, n), median(cb, n), median(c, n), n
    printf "frame rate, frames/s: A median %.1f, B median %.1f; paired ratio B/A median x%.3f (n %d)\n", median(fa, n), median(fb, n), median(f, n), n
    for (r = 1; r <= n; r++) { ma[r] = cpu[r, "A"] * 10 / fps[r, "A"]; mb[r] = cpu[r, "B"] * 10 / fps[r, "B"]; m[r] = mb[r] / ma[r] }
    printf "loop CPU per frame, ms: A median %.2f, B median %.2f; paired ratio B/A median x%.3f (n %d)\n", median(ma, n), median(mb, n), median(m, n), n
    for (r = 1; r <= n; r++) { ta[r] = tiles[r, "A"]; tb[r] = tiles[r, "B"]; t[r] = tb[r] / ta[r]; pa[r] = per[r, "A"]; pb[r] = per[r, "B"]; p[r] = pb[r] / pa[r] }
    printf "tiles the app drew a second: A median %.0f, B median %.0f; paired ratio B/A median x%.3f (n %d)\n", median(ta, n), median(tb, n), median(t, n), n
    printf "loop CPU per tile drawn, us: A median %.1f, B median %.1f; paired ratio B/A median x%.3f (n %d)\n", median(pa, n), median(pb, n), median(p, n), n
  }' "$out/figures"
