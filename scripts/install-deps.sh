#!/usr/bin/env bash
# Installs the Debian 12 packages the project builds and tests with (skipped when all are present).
set -euo pipefail

# libkissfft-dev: the default FFT; libfftw3-dev: MBIR_USE_FFTW=ON and the GPU machine's build-deps/;
# libcli11-dev: the tools' command lines; libopenmpi-dev, openmpi-bin: reconstruction across MPI processes;
# clang, libomp-dev: libFuzzer (scripts/fuzz.sh) and ThreadSanitizer with LLVM's OpenMP (scripts/test-sanitizers.sh);
# libvtk9-dev, xvfb: the pictures (mbir-view, --picture, --plot), drawn through X, a private Xvfb without a display.
packages=(cmake ninja-build g++ ccache libinsighttoolkit5-dev libgtest-dev libbenchmark-dev
          libkissfft-dev libfftw3-dev nlohmann-json3-dev libcli11-dev libopenmpi-dev openmpi-bin python3-numpy
          python3-dev python3-venv clang libomp-dev libvtk9-dev xvfb)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "Installing Debian packages: ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  sudo apt-get update -qq
  sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
