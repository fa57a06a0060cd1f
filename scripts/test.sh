#!/usr/bin/env bash
# Installs, builds everything (engine, CUDA backend when nvcc is present, ITK layer, Python package, tests,
# benchmarks) and runs every test: the C++ suites and the Python package's pytest suite through ctest.
# The CUDA code is compiled for one GPU architecture, CUDAARCHS (default 90), to keep CI short.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
scripts/python-env.sh build/python-venv
scripts/configure.sh -DCMAKE_CUDA_ARCHITECTURES="${CUDAARCHS:-90}" -DMBIR_BUILD_PYTHON=ON -DPython_EXECUTABLE="$PWD/build/python-venv/bin/python"
cmake --build build
cd build
ctest --output-on-failure --timeout 1200 -j "$(nproc)"
