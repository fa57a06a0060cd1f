#!/usr/bin/env bash
# The device checks of a GPU machine (nvcc, CMake, ninja; nothing else, no network): builds the engine
# alone with CUDA (-DMBIR_BUILD_ITK=OFF -DMBIR_USE_CUDA=ON) against build-deps/ (prepared here with
# test/cuda/prepare_device_deps.sh and carried), runs the CUDA tests, the multi-device engine tests, the
# GPU benchmarks and compute-sanitizer's memcheck, and writes the logs to $OUT (default build-gpu/out).
# The CPU ramp filter there uses FFTW (-DMBIR_USE_FFTW=ON), whose static library build-deps/ carries;
# these builds are not shipped.
#   test/cuda/device_checks.sh [tests|quick|full] [BUDGET_S]
# tests: the tests alone; quick (default): and the 256/512 benchmarks; full: also the 1024-class ones (parallel and cone
# projections, seconds per VCD iteration). BUDGET_S (default 420): a step that cannot finish inside what
# is left of it is skipped and says so, so the lease's minutes go to what matters first and the logs come
# back. At most 8 files go to $OUT (the device tool returns 8).
# NCCL is used when the CUDA toolkit has it (the configure line in summary.txt says).
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-build-gpu/out}
mode=${1:-quick}
budget=${2:-420}
mkdir -p "$out"
deps=$PWD/build-deps
start=$SECONDS
step() { echo "== $* ($((SECONDS - start)) s)" | tee -a "$out/summary.txt"; }
# A step's time limit: its own LIMIT_S, or what is left of the budget if that is less; 0 skips it.
limit() { local left=$((budget - (SECONDS - start))); echo $(($1 < left ? $1 : (left > 10 ? left : 0))); }
# A gtest log's outcome: the counts and every failed test's name.
outcome() { grep -E "tests? from .* ran|^\[  (PASSED|SKIPPED|FAILED) +\] [0-9]+ test|^\[  FAILED  \] [A-Za-z]" "$1" | sort -u | tee -a "$out/summary.txt"; }
# Runs a test binary under a time limit into one log, then writes its outcome: gtest NAME LIMIT_S BINARY [ARGS...]
gtest() {
  local name=$1 t
  t=$(limit "$2")
  shift 2
  [ "$t" -gt 0 ] || { step "$name SKIPPED (budget)"; return; }
  step "$name (limit $t s)"
  timeout "$t" "$@" > "$out/$name.log" 2>&1
  echo "exit $?" >> "$out/$name.log"
  outcome "$out/$name.log"
}

step "machine"
{ nvidia-smi; nvcc --version; cmake --version | head -1; nproc; which compute-sanitizer mpirun mpiexec; } > "$out/machine.txt" 2>&1

step "configure"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DMBIR_BUILD_ITK=OFF -DMBIR_USE_CUDA=ON \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DMBIR_NATIVE_CPU=OFF -DMBIR_USE_FFTW=ON -DCMAKE_PREFIX_PATH="$deps" \
  -DMBIR_GTEST_SOURCE_DIR="$deps/googletest" -DMBIR_BENCHMARK_SOURCE_DIR="$deps/benchmark" \
  > "$out/build.log" 2>&1 || { step "configure FAILED"; tail -30 "$out/build.log"; exit 1; }
grep "MBIR:" "$out/build.log" | tee -a "$out/summary.txt"

step "build"
cmake --build build-gpu -j "$(nproc)" >> "$out/build.log" 2>&1 || { step "build FAILED"; grep -m 20 -E "error" "$out/build.log"; exit 1; }

gtest cuda-tests 120 build-gpu/bin/MBIRCudaTests
gtest engine-tests 100 build-gpu/bin/MBIREngineTests \
  --gtest_filter='Geometries/DeviceCount*:MultiDevice*:DeviceData*:Progress*:MemoryPlan*:Communicators*:DevicePolicy*:SinogramSplit*'
# Two MPI ranks on the GPU (one GPU each: here the same one), where the machine has MPI.
if [ -x build-gpu/bin/MBIRMpiTests ] && command -v mpirun > /dev/null; then
  gtest mpi-tests 90 mpirun --allow-run-as-root --oversubscribe -np 2 build-gpu/bin/MBIRMpiTests
else
  step "mpi-tests SKIPPED (no MPI on this machine: $(command -v mpirun || echo 'no mpirun'))"
fi

# Each benchmark run has its own time limit, so that a slow one cannot take the others' results with it.
bench() { # LIMIT_S BINARY FILTER [ARGS...]
  local t binary=$2 filter=$3
  t=$(limit "$1")
  shift 3
  [ "$t" -gt 0 ] || { step "benchmark $filter SKIPPED (budget)"; return; }
  step "benchmark $binary $filter (limit $t s)"
  timeout "$t" "build-gpu/bin/$binary" --benchmark_filter="$filter" "$@" >> "$out/benchmarks.txt" 2>&1
  echo "exit $?" >> "$out/benchmarks.txt"
}
if [ "$mode" != tests ]; then
  bench 60 mbir-benchmark-projectors 'Gpu/(256|512)/' --benchmark_min_time=0.1s
  bench 60 mbir-benchmark-recon 'Gpu/(256|512)'
fi
if [ "$mode" = full ]; then
  bench 60 mbir-benchmark-recon 'devices/Gpu/1024/'
  bench 90 mbir-benchmark-projectors '/(Parallel|Cone)Gpu/1024/' --benchmark_min_time=0.1s
fi
[ ! -e "$out/benchmarks.txt" ] || grep -hE "^(forward|back|fbp|fdk|filter|recon|devices)/" "$out/benchmarks.txt" | tee -a "$out/summary.txt"

# Bad device-memory accesses in the kernels (the small CUDA tests only: memcheck is slow).
if command -v compute-sanitizer > /dev/null; then
  gtest sanitizer 90 compute-sanitizer --tool memcheck --error-exitcode 3 build-gpu/bin/MBIRCudaTests \
    --gtest_filter='CudaBackendTest.*:GpuOperations.*'
  grep -E "ERROR SUMMARY|Invalid|exit [0-9]" "$out/sanitizer.log" | sort | uniq -c | head -20 | tee -a "$out/summary.txt"
fi
step "done"
