#!/usr/bin/env bash
# Installs, builds everything (engine, CUDA backend when nvcc is present, ITK layer, tests, benchmarks)
# and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
scripts/configure.sh -DMBIR_CUDA_ARCHITECTURES=90
cmake --build build
cd build
ctest --output-on-failure --timeout 1200 -j "$(nproc)"
