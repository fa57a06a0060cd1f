#!/usr/bin/env bash
# The main job: install, build, and simulate the Shepp-Logan phantom's parallel-beam sinogram into
# build/demo/ (sinogram.nrrd and sinogram.png).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
scripts/configure.sh
cmake --build build --target mbir-demo
build/bin/mbir-demo --output build/demo "$@"
