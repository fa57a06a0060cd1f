#!/usr/bin/env bash
# The main job: install, build, then simulate a scan of the Shepp-Logan phantom, reconstruct it with the
# direct recon and MBIR, and write the volumes, the geometry and a picture to build/demo/ (see README.md).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
scripts/configure.sh
cmake --build build --target mbir-demo
build/bin/mbir-demo --output build/demo "$@"
