#!/usr/bin/env bash
# The tests under sanitizers (README "Reliability"), CPU only, each in a build folder of its own:
#   address  AddressSanitizer + UndefinedBehaviorSanitizer (GCC), build-asan/: the engine's whole test suite and the
#            fuzz targets' corpora; with --all also the ITK layer, the tools and their tests.
#   thread   ThreadSanitizer (clang with LLVM's OpenMP and its Archer tool, which tells TSan about OpenMP's own
#            synchronisation), build-tsan/: the tests that run several devices or OpenMP teams at once.
# Any report fails the run (halt_on_error). CI runs both (scripts/test.sh).
#   scripts/test-sanitizers.sh [address|thread|both] [--all]
set -euo pipefail
cd "$(dirname "$0")/.."
here=$PWD
which=${1:-both}
all=OFF
[ "${2:-}" = --all ] && all=ON
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
common=(-G Ninja -DCMAKE_BUILD_TYPE=None -DMBIR_USE_CUDA=OFF -DMBIR_USE_MPI=OFF "${launcher[@]}")

if [ "$which" = address ] || [ "$which" = both ]; then
  flags="-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined"
  # Neither the pictures (VTK) nor the benchmarks run here: not built, which saves minutes of a CI run; the tools
  # then refuse --picture, saying why, and that refusal is tested instead.
  cmake -S . -B build-asan "${common[@]}" -DMBIR_BUILD_ITK=$all -DCMAKE_CXX_FLAGS="$flags" \
    -DCMAKE_DISABLE_FIND_PACKAGE_VTK=ON -DCMAKE_DISABLE_FIND_PACKAGE_benchmark=ON \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" \
    > /dev/null
  cmake --build build-asan
  # Python, Slicer and the external-module consumer build other trees than this one: not sanitized here. A huge
  # allocation fails as it would without ASan (std::bad_alloc, which the tools report), rather than aborting; the
  # tool test of a 256 TB volume is left out, since its tool does not see ASAN_OPTIONS through RunTool.cmake.
  # ITK 5.2's own TIFF defects that the scan-files corpus reaches are suppressed (test/fuzz/suppressions/). The
  # pictures are not built (above): they run VTK on Mesa's software OpenGL and Xvfb, not built for ASan; the plain
  # build runs them. The 256-class memory-scaling test checks our own byte accounting, which ASan does not change,
  # and took 500 s here (a third of this run): the plain build runs it.
  (cd build-asan && ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:allocator_may_return_null=1:suppressions=$here/test/fuzz/suppressions/asan.txt \
    LSAN_OPTIONS=suppressions=$here/test/fuzz/suppressions/lsan.txt UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --output-on-failure --timeout 3000 -j "$(nproc)" -E "python|slicer|external-module|mpi|huge-volume|MemoryPerDeviceScalesAsOneOverN")
fi

if [ "$which" = thread ] || [ "$which" = both ]; then
  command -v clang++ >/dev/null || { echo "test-sanitizers.sh: thread needs clang (apt-get install clang libomp-dev)"; exit 1; }
  archer=$(dirname "$(readlink -f "$(command -v clang++)")")/../lib/libarcher.so
  [ -e "$archer" ] || { echo "test-sanitizers.sh: no libarcher.so (apt-get install libomp-dev)"; exit 1; }
  # -Wno-pass-failed: at -O1 clang reports each `omp simd` loop it leaves scalar (a hundred lines); this build checks races.
  cmake -S . -B build-tsan "${common[@]}" -DMBIR_BUILD_ITK=OFF -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_CXX_FLAGS="-O1 -g -fsanitize=thread -Wno-pass-failed" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=thread" > /dev/null
  cmake --build build-tsan --target MBIREngineTests
  # Several devices at once (their collectives, halos, shards) and OpenMP teams in every kernel family.
  OMP_TOOL_LIBRARIES=$archer TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ignore_noninstrumented_modules=1" MBIR_NUM_THREADS=2 \
    build-tsan/bin/MBIREngineTests --gtest_filter='Concurrency.*:MultiDevice.*:Geometries/DeviceCount.*:QGGMRF*:RampFilter.*:DeviceData.*:-MultiDevice.MemoryPerDeviceScalesAsOneOverN'
fi
