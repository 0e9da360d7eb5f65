#!/usr/bin/env bash
# Builds the libFuzzer targets in FuzzTesting/ and runs each for SECONDS (default 60), one at a time.
# Fails (exit 1) if any target crashes; the crashing input is kept under FuzzTesting/.build/fuzz/crashes/.
# Every crash input belongs in the main package's tests as a regression test (see FuzzTesting/README.md).
#
#   scripts/fuzz.sh [SECONDS] [TARGET…]     e.g. scripts/fuzz.sh 20, scripts/fuzz.sh 600 FuzzNDJSON
#   FUZZ_RUNS=N scripts/fuzz.sh 0 TARGET    runs N executions instead of a time limit
#   FUZZ_MAX_LEN=N                          longest input (default 65536; libFuzzer's own default is 4096)
#   FUZZ_LEN_CONTROL=N                      libFuzzer's -len_control (default 0: long inputs from the start)
#
# An input that takes a target longer than its time limit (`limit` below) fails the run as a crash does: a
# decoder that slows down on some input (quadratic work, a loop) is a hang waiting for a long file.
set -euo pipefail
cd "$(dirname "$0")/../FuzzTesting"
seconds="${1:-60}"
shift || true
all=(FuzzNDJSON FuzzLiveLinkCSV FuzzLiveLinkUDP FuzzGesichter FuzzTrackers FuzzConfig FuzzPredictor FuzzStorage FuzzTerminal FuzzFastPath)
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=("${all[@]}")

start=$(date +%s)
# Optimised: unoptimised Swift runs the decoders and screens some 50 times slower, and a fuzzer's worth is
# executions per second. lld, because ld.gold crashes on this link.
build=(swift build -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld)
"${build[@]}"
echo "fuzz: build took $(( $(date +%s) - start )) s"
bin="$("${build[@]}" --show-bin-path)"

work=.build/fuzz
mkdir -p "$work/crashes"
# The Swift backtracer would spend minutes symbolicating a crash; libFuzzer prints its own stack.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}"
# Per-input time limits (libFuzzer -timeout=, seconds): no input of any target took a second in runs of long
# inputs (stat::slowest_unit_time_sec 0, release with AddressSanitizer, a busy 2-core machine), so a few
# seconds is a slow path, not a slow machine. The CSV header trimmed a character at a time took 2.7 s at
# 16 KB and 27 s at 64 KB (issue 49); the former 10 s for all, with inputs kept short by libFuzzer's length
# control, let it through. The terminal targets feed libvterm whole screens and resizes, and Gesichter
# inflates up to 256 times its input: they get more.
declare -A limit=([FuzzNDJSON]=3 [FuzzLiveLinkCSV]=3 [FuzzLiveLinkUDP]=3 [FuzzGesichter]=5 [FuzzTrackers]=3
                  [FuzzConfig]=3 [FuzzPredictor]=3 [FuzzStorage]=3 [FuzzTerminal]=5 [FuzzFastPath]=5)
failed=()
for t in "${targets[@]}"; do
  mkdir -p "$work/corpus/$t"
  [ -n "${limit[$t]:-}" ] || { echo "fuzz: no time limit for $t: add it to scripts/fuzz.sh" >&2; exit 2; }
  # libFuzzer's length control grows inputs slowly (some 3 KB after ten minutes): without it, long inputs,
  # where slow paths show, are tried from the start.
  args=(-rss_limit_mb=2048 "-max_len=${FUZZ_MAX_LEN:-65536}" "-len_control=${FUZZ_LEN_CONTROL:-0}" "-timeout=${limit[$t]}"
        -print_final_stats=1 "-artifact_prefix=$work/crashes/$t-")
  if [ -n "${FUZZ_RUNS:-}" ]; then args+=("-runs=$FUZZ_RUNS"); else args+=("-max_total_time=$seconds"); fi
  [ -f "Dictionaries/$t.dict" ] && args+=("-dict=Dictionaries/$t.dict")
  echo "== fuzz $t (${FUZZ_RUNS:+$FUZZ_RUNS runs}${FUZZ_RUNS:-$seconds s})"
  # New inputs go to the first (scratch) corpus; the committed seeds are read only.
  if "$bin/$t" "${args[@]}" "$work/corpus/$t" "Corpus/$t" > "$work/$t.log" 2>&1; then
    grep -E "^stat::|Done [0-9]+ runs" "$work/$t.log" | tr '\n' ' '; echo
  else
    echo "fuzz: $t FAILED (log: FuzzTesting/$work/$t.log; a timeout is an input slower than ${limit[$t]} s)"; tail -40 "$work/$t.log"
    failed+=("$t")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: crashes in ${failed[*]}; inputs in FuzzTesting/$work/crashes/" >&2
  exit 1
fi
echo "fuzz: ${#targets[@]} targets, no crashes"
