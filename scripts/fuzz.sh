#!/usr/bin/env bash
# Fuzzes flickd's parsers with libFuzzer (RELIABILITY.md, "Fuzzing").
#
#   scripts/fuzz.sh [SECONDS] [TARGET…]   run each target (default: all seven) for SECONDS (60)
#   FLICKD_FUZZ_RUNS=N scripts/fuzz.sh 0 evemu
#                                         stop after N executions instead (SECONDS 0: no time bound)
#   FLICKD_FUZZ_SEED=S                    libFuzzer's seed (with RUNS: the same inputs every run)
#   FLICKD_FUZZ_JOBS=N                    N fuzzer processes at once, RUNS/N executions each, on
#                                         seeds of their own and one shared scratch corpus (each
#                                         rereads what the others found: libFuzzer's -reload);
#                                         the first to fail stops the others
#   scripts/fuzz.sh seeds                 rewrite the committed seed corpora from their generators
#
# Targets: evemu (EvemuRecording.parse + replay), config (ConfigLoader.parse), control
# (ControlRequest.decode + ControlCommand), evdev (TouchDecoder on raw event triples), dzi
# (DZIDescriptor.parse, or DZISource.decodeTile on a tile file: the first byte chooses), provider
# (a content provider's lines and steps: ControlRequest.decode + ControlCommand, then TileProvider
# and TileStore over a sealed memfd pool, drawn by frames), document (a PDF or SVG through
# flickd-render's input path: poppler or librsvg, DocumentLayout, the first line, tiles drawn).
# Builds the Fuzz/ package (outside the main package graph: it links only with libFuzzer) in
# release mode with libFuzzer and AddressSanitizer into .build-fuzz/ (FLICKD_FUZZ_SANITIZE=none
# drops ASan for speed). Each target starts from its committed seeds (Fuzz/Corpus/TARGET) and the
# crashes already found (Fuzz/Regressions/TARGET), and grows a scratch corpus in
# .build-fuzz/corpus/TARGET. On a crash it stops, prints the input's path and exits 1.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
SCRATCH=${FLICKD_FUZZ_SCRATCH:-$PWD/.build-fuzz}
SANITIZE=${FLICKD_FUZZ_SANITIZE:-address}
all=(evemu config control evdev dzi provider document)

seconds=60
if [ $# -gt 0 ] && [ "$1" != seeds ]; then seconds=$1; shift; fi
mode=fuzz
if [ "${1:-}" = seeds ]; then mode=seeds; shift; fi
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")
for t in "${targets[@]}"; do
  [[ " ${all[*]} " == *" $t "* ]] || { echo "fuzz.sh: unknown target '$t'; expected one of ${all[*]}" >&2; exit 2; }
done

scripts/deps.sh
# The fuzz package pins what the main package pins.
[ -f Package.resolved ] && cp Package.resolved Fuzz/Package.resolved
# SwiftPM passes each --sanitize as its own -sanitize= flag to swiftc, where the last one wins:
# the combined flag after them keeps libFuzzer's coverage in the Swift code as well as ASan's checks.
flags=(--sanitize fuzzer -Xswiftc -sanitize=fuzzer)
if [ "$SANITIZE" = address ]; then
  flags=(--sanitize fuzzer --sanitize address -Xswiftc -sanitize=fuzzer,address)
fi
build=$SCRATCH/fuzzer; [ "$SANITIZE" = address ] || build=$SCRATCH/fuzzer-$SANITIZE
swift build --package-path Fuzz --scratch-path "$build" -c release "${flags[@]}" --product flickd-fuzz
fuzzer=$build/release/flickd-fuzz
echo "fuzz.sh: built in $(( $(date +%s) - start )) s"

# Swift's runtime keeps its metadata caches for the process's life, which LeakSanitizer would
# report on every run; its own crash backtracer would hide libFuzzer's report.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0} SWIFT_BACKTRACE=enable=no

if [ "$mode" = seeds ]; then
  rm -rf Fuzz/Corpus.new
  "$fuzzer" seeds Fuzz/Corpus.new
  rm -rf Fuzz/Corpus && mv Fuzz/Corpus.new Fuzz/Corpus
  exit 0
fi

# Seeds made by an older generator still fuzz, but say so.
rm -rf "$SCRATCH/seeds" && "$fuzzer" seeds "$SCRATCH/seeds" >/dev/null
diff -rq Fuzz/Corpus "$SCRATCH/seeds" >/dev/null \
  || echo "fuzz.sh: warning: Fuzz/Corpus differs from its generators; run scripts/fuzz.sh seeds" >&2

# Runs the fuzzer on target $1 with the arguments after it, in FLICKD_FUZZ_JOBS processes (1
# by default); their output goes to $log ($log.K for each process, then all of them in $log).
fuzz() {
  local t=$1; shift
  local jobs=${FLICKD_FUZZ_JOBS:-1}
  if [ "$jobs" -le 1 ]; then
    "$fuzzer" "$t" "$@" "$corpus" "Fuzz/Corpus/$t" "Fuzz/Regressions/$t" >"$log" 2>&1
    return
  fi
  local k pids=() each=() status=0 base=${FLICKD_FUZZ_SEED:-$(( RANDOM * 32768 + RANDOM ))}
  [ -n "${FLICKD_FUZZ_RUNS:-}" ] && each+=(-runs=$(( (FLICKD_FUZZ_RUNS + jobs - 1) / jobs )))
  for k in $(seq 1 "$jobs"); do
    # libFuzzer takes the last of a repeated flag: these override RUNS and SEED.
    "$fuzzer" "$t" "$@" "${each[@]}" -seed=$(( base + k )) -reload=1 "$corpus" "Fuzz/Corpus/$t" "Fuzz/Regressions/$t" \
      >"$log.$k" 2>&1 &
    pids+=($!)
  done
  for k in "${pids[@]}"; do
    wait -n || { status=1; kill "${pids[@]}" 2>/dev/null || true; break; }
  done
  wait 2>/dev/null || true
  for k in $(seq 1 "$jobs"); do cat "$log.$k"; done >"$log"
  return $status
}

declare -A max_len=([evemu]=8192 [config]=8192 [control]=4096 [evdev]=4096 [dzi]=32768 [provider]=4096 [document]=65536)
for t in "${targets[@]}"; do
  corpus=$SCRATCH/corpus/$t artifacts=$SCRATCH/crashes/$t
  mkdir -p "$corpus" "$artifacts" Fuzz/Regressions/$t
  args=(-max_total_time="$seconds" -max_len="${max_len[$t]}" -timeout=10 -detect_leaks=0
        -print_final_stats=1 -artifact_prefix="$artifacts/")
  [ -n "${FLICKD_FUZZ_RUNS:-}" ] && args+=(-runs="$FLICKD_FUZZ_RUNS")
  # A fixed seed with a fixed number of runs replays the same inputs every time (CI).
  # Swift seeds its hashing per process; coverage must not depend on it for a replay to repeat.
  [ -n "${FLICKD_FUZZ_SEED:-}" ] && args+=(-seed="$FLICKD_FUZZ_SEED") && export SWIFT_DETERMINISTIC_HASHING=1
  echo "fuzz.sh: $t for ${seconds} s${FLICKD_FUZZ_RUNS:+ or $FLICKD_FUZZ_RUNS runs}${FLICKD_FUZZ_JOBS:+ in $FLICKD_FUZZ_JOBS processes}"
  log=$SCRATCH/$t.log
  before=$(ls "$artifacts" | wc -l)
  if ! fuzz "$t" "${args[@]}"; then
    grep -E "Fatal error|ERROR:|SUMMARY:|contract broken" "$log" | head -5 >&2 || true
    echo "fuzz.sh: $t FAILED; the log is $log" >&2
    if [ "$(ls "$artifacts" | wc -l)" -gt "$before" ]; then
      newest=$artifacts/$(ls -t "$artifacts" | head -1)
      echo "fuzz.sh: the crashing input: $newest (reproduce: $fuzzer $t $newest)" >&2
      # CI keeps only the log: carry the input in it (decode with base64 -d into a file).
      [ "$(stat -c %s "$newest")" -le 16384 ] && echo "fuzz.sh: the input as base64: $(base64 -w0 "$newest")" >&2
    fi
    exit 1
  fi
  grep -E "^stat::(number_of_executed_units|average_exec_per_sec)|^#[0-9]+[[:space:]]+DONE" "$log" | tr '\n' ' '
  echo
  if [ "${FLICKD_FUZZ_JOBS:-1}" -gt 1 ]; then
    echo "fuzz.sh: $t: $(awk '/^stat::number_of_executed_units/ { n += $2 } END { print n }' "$log") executions in $FLICKD_FUZZ_JOBS processes"
  fi
done
echo "fuzz.sh: ${targets[*]}: no crash ($(( $(date +%s) - start )) s in all)"
