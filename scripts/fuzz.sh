#!/usr/bin/env bash
# Fuzzes every target of test/fuzz for SECONDS each (default 60) with clang's libFuzzer under AddressSanitizer and
# UndefinedBehaviorSanitizer, built in build-fuzz/ (the engine, CPU only). Each starts from its seed corpus
# (test/fuzz/corpus/NAME, only read) and keeps what it finds in build-fuzz/corpus/NAME. An input that crashes is
# kept in build-fuzz/crashes/NAME/ and fails the script: add it to test/fuzz/regressions/NAME/ with the fix.
# The scanner-file readers (fuzz-scan-files) live in the ITK layer, whose Debian ITK 5.2 headers refuse clang
# ("Unsupported compiler"): they run over their corpus in every build and under AddressSanitizer instead.
#   scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(geometry-json checkpoint command-line)

command -v clang++ >/dev/null || { echo "fuzz.sh: needs clang (Debian: apt-get install clang)"; exit 1; }
mkdir -p build-fuzz
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
flags="-O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=None -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  "${launcher[@]}" -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DMBIR_FUZZ=ON -DMBIR_BUILD_ITK=OFF -DMBIR_USE_CUDA=OFF -DMBIR_USE_MPI=OFF > build-fuzz/configure.log 2>&1 || { cat build-fuzz/configure.log; exit 1; }
cmake --build build-fuzz --target "${targets[@]/#/fuzz-}"

failed=()
for target in "${targets[@]}"; do
  mkdir -p "build-fuzz/corpus/$target" "build-fuzz/crashes/$target"
  echo "== fuzz-$target: $seconds s"
  if ! UBSAN_OPTIONS=print_stacktrace=1 "build-fuzz/bin/fuzz-$target" "build-fuzz/corpus/$target" \
    "test/fuzz/corpus/$target" -max_total_time="$seconds" -rss_limit_mb=4096 -timeout=30 -print_final_stats=1 \
    -artifact_prefix="build-fuzz/crashes/$target/" 2> "build-fuzz/fuzz-$target.log"; then
    failed+=("$target")
    tail -40 "build-fuzz/fuzz-$target.log"
  fi
  grep -E "^stat::number_of_executed_units|^stat::new_units_added|^#[0-9]+.*DONE" "build-fuzz/fuzz-$target.log" || true
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz.sh: failures in ${failed[*]}: inputs in build-fuzz/crashes/"
  exit 1
fi
echo "fuzz.sh: no failures"
