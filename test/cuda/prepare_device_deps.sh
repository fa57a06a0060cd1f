#!/usr/bin/env bash
# Gathers what test/cuda/device_checks.sh needs on a bare GPU machine (nvcc, CMake and ninja, no network)
# into build-deps/ (ignored by git, carried with the working tree): GoogleTest and Google Benchmark
# sources, nlohmann-json headers and CMake package, FFTW's single-precision header and static library (the
# GPU machine builds with -DMBIR_USE_FFTW=ON: a static library needs no run-time path there).
#   test/cuda/prepare_device_deps.sh GOOGLE_BENCHMARK_SOURCES
# GOOGLE_BENCHMARK_SOURCES: a Google Benchmark source tree or git repository (release v1.8.3 is taken
# from a repository). Prints the `carry` path for the device tool.
set -euo pipefail
cd "$(dirname "$0")/../.."
benchmark=${1:?usage: $0 GOOGLE_BENCHMARK_SOURCES}

scripts/install-deps.sh
deps=build-deps
rm -rf "$deps" && mkdir -p "$deps/include" "$deps/lib" "$deps/share/cmake"
cp -r /usr/src/googletest "$deps/googletest"
if [ -d "$benchmark/.git" ] || git -C "$benchmark" rev-parse --git-dir >/dev/null 2>&1; then
  mkdir -p "$deps/benchmark" && git -C "$benchmark" archive v1.8.3 | tar -x -C "$deps/benchmark"
else
  cp -r "$benchmark" "$deps/benchmark"
fi
cp -r /usr/include/nlohmann "$deps/include/"
cp -r /usr/share/cmake/nlohmann_json "$deps/share/cmake/"
cp /usr/include/fftw3.h "$deps/include/"
cp /usr/lib/x86_64-linux-gnu/libfftw3f.a "$deps/lib/"
du -sh "$deps"
echo "carry: $deps"
