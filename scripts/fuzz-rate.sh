#!/usr/bin/env bash
# Issue 36 part 4, figure (b) (BENCHMARKS.md): the provider fuzz target's executions per second,
# two fuzzer builds run in turn (A B A B …), each on the same inputs: the committed seeds and
# regressions, a fresh scratch corpus, a fixed seed and number of runs; then the paired ratios
# B/A, round by round, and their median.
#
#   scripts/fuzz-rate.sh A_FUZZER B_FUZZER [ROUNDS (5)] [RUNS (20000)]
#
# A fuzzer is scripts/fuzz.sh's build (.build-fuzz/fuzzer/release/flickd-fuzz, with ASan, as CI
# runs it); build the other one from a worktree of the commit to compare with.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: $0 A_FUZZER B_FUZZER [ROUNDS] [RUNS]" >&2; exit 2; }
a=$1 b=$2 rounds=${3:-5} runs=${4:-20000}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0} SWIFT_BACKTRACE=enable=no SWIFT_DETERMINISTIC_HASHING=1
for r in $(seq 1 "$rounds"); do
  for who in A B; do
    bin=$a; [ "$who" = B ] && bin=$b
    rm -rf "$out/corpus" && mkdir "$out/corpus"
    "$bin" provider -runs="$runs" -seed=36 -max_len=4096 -timeout=10 -detect_leaks=0 -print_final_stats=1 \
      "$out/corpus" Fuzz/Corpus/provider Fuzz/Regressions/provider >"$out/log" 2>&1
    rate=$(sed -n 's/^stat::average_exec_per_sec:[[:space:]]*\([0-9]*\).*/\1/p' "$out/log")
    [ -n "$rate" ] || { echo "round $r $who: no rate; its log:" >&2; tail -20 "$out/log" >&2; exit 1; }
    echo "$r $who $rate" >>"$out/figures"
    echo "round $r $who: $rate executions/s (load $(cut -d' ' -f1-3 /proc/loadavg))"
  done
done
awk '
  { v[$1, $2] = $3; n = $1 }
  function median(x, k,   i, j, t) {
    for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t }
    return k % 2 ? x[(k + 1) / 2] : (x[k / 2] + x[k / 2 + 1]) / 2
  }
  END {
    for (r = 1; r <= n; r++) { p[r] = v[r, "B"] / v[r, "A"]; xa[r] = v[r, "A"]; xb[r] = v[r, "B"] }
    printf "provider fuzz target, executions/s: A median %.0f, B median %.0f; paired ratio B/A median x%.3f (n %d)\n", median(xa, n), median(xb, n), median(p, n), n
  }' "$out/figures"
