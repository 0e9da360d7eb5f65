#!/usr/bin/env bash
# Builds the libFuzzer targets in FuzzTesting/ and runs each for SECONDS (default 60), one at a time.
# Fails (exit 1) if any target crashes; the crashing input is kept under FuzzTesting/.build/fuzz/crashes/.
# Every crash input belongs in the main package's tests as a regression test (see FuzzTesting/README.md).
#
#   scripts/fuzz.sh [SECONDS] [TARGET…]     e.g. scripts/fuzz.sh 20, scripts/fuzz.sh 600 FuzzNDJSON
#   FUZZ_RUNS=N scripts/fuzz.sh 0 TARGET    runs N executions instead of a time limit
#   FUZZ_MAX_LEN=N                          longest input (default 65536; libFuzzer's own default is 4096)
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
failed=()
for t in "${targets[@]}"; do
  mkdir -p "$work/corpus/$t"
  args=(-rss_limit_mb=2048 "-max_len=${FUZZ_MAX_LEN:-65536}" -timeout=10 -print_final_stats=1 "-artifact_prefix=$work/crashes/$t-")
  if [ -n "${FUZZ_RUNS:-}" ]; then args+=("-runs=$FUZZ_RUNS"); else args+=("-max_total_time=$seconds"); fi
  [ -f "Dictionaries/$t.dict" ] && args+=("-dict=Dictionaries/$t.dict")
  echo "== fuzz $t (${FUZZ_RUNS:+$FUZZ_RUNS runs}${FUZZ_RUNS:-$seconds s})"
  # New inputs go to the first (scratch) corpus; the committed seeds are read only.
  if "$bin/$t" "${args[@]}" "$work/corpus/$t" "Corpus/$t" > "$work/$t.log" 2>&1; then
    grep -E "^stat::|Done [0-9]+ runs" "$work/$t.log" | tr '\n' ' '; echo
  else
    echo "fuzz: $t FAILED (log: FuzzTesting/$work/$t.log)"; tail -40 "$work/$t.log"
    failed+=("$t")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: crashes in ${failed[*]}; inputs in FuzzTesting/$work/crashes/" >&2
  exit 1
fi
echo "fuzz: ${#targets[@]} targets, no crashes"
