#!/usr/bin/env bash
# Builds the module, its tools (which are also the Slicer CLI modules), examples and tests against 3D Slicer's ITK 5.4,
# as the PyPI wheel slicer-core-sdk ships it (libraries, headers, ITKConfig.cmake), and runs every test, the Slicer
# CLI tests included: scripts/test.sh runs it after the tests against Debian's ITK 5.2.
#
#   scripts/test-itk54.sh [extra CMake arguments]
#
# Environment: MBIR_SLICER_SDK (pip requirement, default slicer-core-sdk==5.13.31053.0), MBIR_ITK54_VENV (default
# build/slicer-sdk-venv), MBIR_ITK54_BUILD (default build-itk54), MBIR_ITK54_JOBS (default: all cores).
#
# What the wheel needs (README, "Building against Slicer's ITK 5.4"):
# - Its ITK is built with libstdc++'s pre-C++11 ABI (GCC 14, manylinux_2_28); cmake/MBIRCheckITKABI.cmake finds
#   that and compiles everything with _GLIBCXX_USE_CXX11_ABI=0, GoogleTest from Debian's sources (libgtest-dev).
# - Its module files name the wheel builder's folders: ITKTBB sets TBB_DIR to /project/Slicer/..., so
#   CMAKE_PREFIX_PATH points at the SDK, whose own TBBConfig.cmake is then found; ITKVtkGlue asks for VTK's CMake
#   package (from the vtk-sdk wheel, which PyPI has no files of), and ITKConfig.cmake reads every module's file, so
#   ITKVtkGlue_LOADED=1 marks that module (which MBIR does not use) as read.
# - Only the SDK is installed (pip --no-deps): the vtk wheel and its dependencies are not needed to build.
# - CUDA off (the CUDA backend does not depend on ITK; scripts/test.sh builds it against ITK 5.2), no Python package.
# The script skips (exit 0, saying why) when the wheel cannot be installed or holds no ITKConfig.cmake.
set -euo pipefail
cd "$(dirname "$0")/.."
here=$PWD
requirement=${MBIR_SLICER_SDK:-slicer-core-sdk==5.13.31053.0}
venv=${MBIR_ITK54_VENV:-build/slicer-sdk-venv}
build=${MBIR_ITK54_BUILD:-build-itk54}
jobs=${MBIR_ITK54_JOBS:-$(nproc)}
start=$(date +%s)
stamp() { echo "[test-itk54 $(( $(date +%s) - start ))s] $*"; }
skip() {
  echo "test-itk54.sh: SKIPPED: $*"
  exit 0
}

scripts/install-deps.sh
python=$(command -v python3)
[ -x /usr/bin/python3 ] && python=/usr/bin/python3

# 1. The SDK wheel.
stamp "installing $requirement into $venv"
[ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
if ! "$venv/bin/python" -m pip install -q --no-deps "$requirement" > "$venv/pip.log" 2>&1; then
  skip "pip could not install $requirement for $("$venv/bin/python" -V) on $(uname -m):" \
       "$(grep -E 'ERROR|error' "$venv/pip.log" | tail -n 2 | tr '\n' ' ')"
fi
sdk=$("$venv/bin/python" -c 'import os, slicer_core_sdk; print(os.path.dirname(slicer_core_sdk.__file__))')
itk_dir=$(find "$sdk" -path '*/lib/cmake/ITK-5.*' -name ITKConfig.cmake -printf '%h\n' 2>/dev/null | sort -V | tail -n 1)
[ -n "$itk_dir" ] || skip "$requirement installed, but it holds no lib/cmake/ITK-5.*/ITKConfig.cmake under $sdk"
prefix=$(cd "$itk_dir/../../.." && pwd)
stamp "ITK $(sed -n 's/^set(ITK_VERSION_\(MAJOR\|MINOR\|PATCH\) "\([0-9]*\)")$/\2/p' "$itk_dir/ITKConfig.cmake" |
  paste -sd.) at $itk_dir"

# 2. Configure and build.
launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
stamp "configuring $build"
mkdir -p "$build"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" \
  -DITK_DIR="$itk_dir" -DCMAKE_PREFIX_PATH="$prefix" -DITKVtkGlue_LOADED=1 \
  -DMBIR_CONSUMER_TEST_CMAKE_ARGS=-DITKVtkGlue_LOADED=1 \
  -DMBIR_USE_CUDA=OFF -DMBIR_BUILD_PYTHON=OFF "$@" > "$build/mbir-configure.log" 2>&1 || {
  tail -n 40 "$build/mbir-configure.log"
  exit 1
}
grep -E '^-- MBIR:' "$build/mbir-configure.log"
stamp "building (log: $build/mbir-build.log)"
if ! nice -n 10 cmake --build "$build" -j "$jobs" > "$build/mbir-build.log" 2>&1; then
  grep -E 'error|FAILED' "$build/mbir-build.log" | head -n 40
  exit 1
fi
stamp "built"

# 3. Every test. The Slicer CLI tests (test/slicer) run the tools built here through Slicer's CLI machinery; they
# share the venv with slicer-core of the ITK 5.2 build (build/slicer-venv, 1 GB) when there is one.
if [ -d build/slicer-venv ] && [ ! -e "$build/slicer-venv" ]; then
  ln -s "$here/build/slicer-venv" "$build/slicer-venv"
fi
cd "$build"
ctest --output-on-failure --timeout 1200 -j "$jobs"
stamp "done ($here/$build)"
