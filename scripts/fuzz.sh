#!/usr/bin/env bash
# Fuzzes every target of test/fuzz for SECONDS each (default 60) with clang's libFuzzer under AddressSanitizer and
# UndefinedBehaviorSanitizer, built in build-fuzz/ (the engine, and the ITK layer for scan-files and dxchange; CPU
# only). Each starts from its seed corpus (test/fuzz/corpus/NAME, only read) and keeps what it finds in
# build-fuzz/corpus/NAME. An input that crashes is kept in build-fuzz/crashes/NAME/ and fails the script: add it to
# test/fuzz/regressions/NAME/ with the fix.
# The scanner-file readers (scan-files, dxchange) are in the ITK layer: Debian's ITK 5.2 headers stop every compiler
# but the GCC they were built with ("Unsupported compiler"), so clang is handed ITK's compiler checks as GCC computes
# them.
# Defects of ITK 5.2's own TIFF reader and of libhdf5 that the fuzzer reaches are suppressed, not ours to mend (see
# test/fuzz/suppressions/). The DXchange reader is fuzzed by dxchange, on well-formed HDF5 files that libhdf5 writes
# from a fuzzed recipe (shapes, types, values, attributes, storage). Byte-level damage of HDF5 files (scan-files'
# DXchange branch) runs only with MBIR_FUZZ_HDF5=1: libhdf5 itself crashes, or takes gigabytes, on some damaged files
# within minutes, which is not ours to mend (its regression inputs are replayed in every build).
# MBIR_FUZZ_SEED=N fixes libFuzzer's -seed=N and starts from the seed corpus alone (what it finds goes to
# build-fuzz/corpus-seed-N/NAME, emptied first), so that runs of the same code take nearly the same path (coverage
# that depends on timing can still steer them apart). CI runs so, rather than a fresh search each time, which is what
# longer runs by hand are for (scripts/fuzz.sh 600).
#   scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(geometry-json checkpoint command-line scan-files dxchange)

command -v clang++ >/dev/null || { echo "fuzz.sh: needs clang (Debian: apt-get install clang)"; exit 1; }
mkdir -p build-fuzz
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
# -Wno-pass-failed: at -O1 clang reports each `omp simd` loop it leaves scalar; these builds look for defects.
flags="-O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -Wno-pass-failed"
itk=OFF
if [[ " ${targets[*]} " == *" scan-files "* || " ${targets[*]} " == *" dxchange "* ]]; then
  itk=ON
  itk_include=$(ls -d /usr/include/ITK-5.* 2>/dev/null | sort -V | tail -n 1)
  [ -n "$itk_include" ] || { echo "fuzz.sh: scan-files and dxchange need ITK's headers (Debian: apt-get install libinsighttoolkit5-dev)"; exit 1; }
  echo '#include <itk_compiler_detection.h>' | g++ -std=c++17 -I"$itk_include" -dM -E -x c++ - |
    grep '^#define ITK_' > build-fuzz/itk-compiler-as-gcc.new
  # Replaced only when it changes, since every file of the build includes it.
  cmp -s build-fuzz/itk-compiler-as-gcc.new build-fuzz/itk-compiler-as-gcc.h ||
    mv build-fuzz/itk-compiler-as-gcc.new build-fuzz/itk-compiler-as-gcc.h
  flags+=" -include $PWD/build-fuzz/itk-compiler-as-gcc.h"
fi
cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=None -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  "${launcher[@]}" -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DMBIR_FUZZ=ON -DMBIR_BUILD_ITK=$itk -DMBIR_USE_CUDA=OFF -DMBIR_USE_MPI=OFF > build-fuzz/configure.log 2>&1 || { cat build-fuzz/configure.log; exit 1; }
cmake --build build-fuzz --target "${targets[@]/#/fuzz-}"

seed=${MBIR_FUZZ_SEED:-}
found=build-fuzz/corpus
[ -z "$seed" ] || found=build-fuzz/corpus-seed-$seed
failed=()
# A harness that writes a gigabyte has a defect of its own (dxchange once wrote 13 GB of chunk padding and filled the
# disk): libFuzzer reports the signal past this size as a failure, with its input.
ulimit -f $((1 << 20))
for target in "${targets[@]}"; do
  [ -z "$seed" ] || rm -rf "${found:?}/$target"
  mkdir -p "$found/$target" "build-fuzz/crashes/$target"
  echo "== fuzz-$target: $seconds s"
  # libhdf5 holds on to memory across the thousands of files dxchange writes and reads (3 GB live in its own
  # allocations after 15,000 inputs; none of it reported as our leak), so that target gets more room.
  rss=4096
  [ "$target" != dxchange ] || rss=8192
  # A huge allocation fails as std::bad_alloc, as without ASan, rather than ending the run; memory counts by what is
  # used (rss_limit), not by what one malloc asks (libhdf5 reserves what a damaged header claims, untouched).
  if ! ASAN_OPTIONS=allocator_may_return_null=1:suppressions=test/fuzz/suppressions/asan.txt LSAN_OPTIONS=suppressions=test/fuzz/suppressions/lsan.txt \
    UBSAN_OPTIONS=print_stacktrace=1 "build-fuzz/bin/fuzz-$target" "$found/$target" ${seed:+-seed=$seed} \
    "test/fuzz/corpus/$target" -max_total_time="$seconds" -rss_limit_mb="$rss" -malloc_limit_mb=1048576 -timeout=30 -print_final_stats=1 \
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
