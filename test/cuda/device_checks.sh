#!/usr/bin/env bash
# The device checks of a GPU machine (nvcc, CMake, ninja; nothing else, no network): builds the engine
# alone with CUDA (-DMBIR_BUILD_ITK=OFF -DMBIR_USE_CUDA=ON) against build-deps/ (prepared here with
# test/cuda/prepare_device_deps.sh and carried), runs the CUDA tests, the multi-device engine tests and
# the GPU benchmarks, and writes every log to $OUT (default build-gpu/out). The CPU ramp filter there uses
# FFTW (-DMBIR_USE_FFTW=ON), whose static library build-deps/ carries; these builds are not shipped.
#   test/cuda/device_checks.sh [quick]     quick: tests and the 256/512 benchmarks only
# Full: also the 1024-class ones (parallel and cone projections, FDK, seconds per VCD iteration).
# NCCL is used when the CUDA toolkit has it (the configure line in summary.txt says).
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-build-gpu/out}
mkdir -p "$out"
deps=$PWD/build-deps
start=$SECONDS
step() { echo "== $* ($((SECONDS - start)) s)" | tee -a "$out/summary.txt"; }
# A gtest log's outcome: the counts and every failed test's name.
outcome() { grep -E "tests? from .* ran|^\[  (PASSED|SKIPPED|FAILED) +\] [0-9]+ test|^\[  FAILED  \] [A-Za-z]" "$1" | sort -u | tee -a "$out/summary.txt"; }

step "machine"
{ nvidia-smi; nvcc --version; cmake --version | head -1; nproc; } > "$out/machine.txt" 2>&1

step "configure"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DMBIR_BUILD_ITK=OFF -DMBIR_USE_CUDA=ON \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DMBIR_NATIVE_CPU=OFF -DMBIR_USE_FFTW=ON -DCMAKE_PREFIX_PATH="$deps" \
  -DMBIR_GTEST_SOURCE_DIR="$deps/googletest" -DMBIR_BENCHMARK_SOURCE_DIR="$deps/benchmark" \
  > "$out/configure.log" 2>&1 || { step "configure FAILED"; tail -30 "$out/configure.log"; exit 1; }
grep "MBIR:" "$out/configure.log" | tee -a "$out/summary.txt"

step "build"
cmake --build build-gpu -j "$(nproc)" > "$out/build.log" 2>&1 || { step "build FAILED"; grep -m 20 -E "error" "$out/build.log"; exit 1; }

step "CUDA tests"
timeout 240 build-gpu/bin/MBIRCudaTests --gtest_output=xml:"$out/cuda-tests.xml" > "$out/cuda-tests.log" 2>&1
echo "exit $?" >> "$out/cuda-tests.log"; outcome "$out/cuda-tests.log"

step "engine tests (multi-device, device data)"
timeout 150 build-gpu/bin/MBIREngineTests \
  --gtest_filter='Geometries/DeviceCount*:MultiDevice*:DeviceData*:Progress*:MemoryPlan*:Communicators*:DevicePolicy*' \
  > "$out/engine-tests.log" 2>&1
echo "exit $?" >> "$out/engine-tests.log"; outcome "$out/engine-tests.log"

# Each benchmark run has its own time limit, so that a slow one cannot take the others' results with it.
bench() { # NAME LIMIT_S BINARY FILTER [ARGS...]
  local name=$1 limit=$2 binary=$3 filter=$4
  shift 4
  step "benchmark $name"
  timeout "$limit" "build-gpu/bin/$binary" --benchmark_filter="$filter" "$@" > "$out/benchmark-$name.txt" 2>&1
  echo "exit $?" >> "$out/benchmark-$name.txt"
}
bench projectors 120 mbir-benchmark-projectors 'Gpu/(256|512)/' --benchmark_min_time=0.2s
bench recon 90 mbir-benchmark-recon 'Gpu/(256|512)'
if [ "${1:-}" != quick ]; then
  bench projectors-1024 120 mbir-benchmark-projectors '/(Parallel|Cone)Gpu/1024/' --benchmark_min_time=0.2s
  bench recon-1024 90 mbir-benchmark-recon 'devices/Gpu/1024/'
fi
grep -hE "^(forward|back|fbp|fdk|filter|recon|devices)/" "$out"/benchmark-*.txt | tee -a "$out/summary.txt"
step "done"
