#!/usr/bin/env bash
# Installs, builds everything (engine, CUDA backend when nvcc is present, ITK layer, Python package, tests,
# benchmarks) and runs every test: the C++ suites and the Python package's pytest suite through ctest; then the
# sanitizer runs and the fuzzers.
# The CUDA code is compiled for one GPU architecture, CUDAARCHS (default 90), to keep CI short.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
# ITK's module machinery (ITK's CMake folder, from its sources) for the test of ITK's standard external-module path,
# mbir-external-module-consumer; without it (no network) that test is skipped, saying so.
MBIR_ITK_MODULE_MACHINERY_DIR=$(scripts/itk-module-machinery.sh) || MBIR_ITK_MODULE_MACHINERY_DIR=
export MBIR_ITK_MODULE_MACHINERY_DIR
scripts/python-env.sh build/python-venv
scripts/configure.sh -DCMAKE_CUDA_ARCHITECTURES="${CUDAARCHS:-90}" -DMBIR_BUILD_PYTHON=ON -DPython_EXECUTABLE="$PWD/build/python-venv/bin/python"
cmake --build build
cd build
ctest --output-on-failure --timeout 1200 -j "$(nproc)"

# The module, its tools and tests again against 3D Slicer's ITK 5.4 (the slicer-core-sdk wheel; skipped, saying why,
# when the wheel cannot be used).
cd ..
scripts/test-itk54.sh

# Every test of the engine, the ITK layer and the tools under AddressSanitizer + UndefinedBehaviorSanitizer, the
# multi-device and OpenMP tests under ThreadSanitizer, and every fuzz target for 60 s (README "Reliability").
scripts/test-sanitizers.sh both --all
# The fuzzers from a fixed seed, so that the same code meets nearly the same inputs (fresh searches: by hand).
MBIR_FUZZ_SEED=1 scripts/fuzz.sh 60
