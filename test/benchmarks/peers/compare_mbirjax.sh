#!/usr/bin/env bash
# Side by side with MBIRJAX on the same problem (a benchmark, not part of scripts/test.sh):
#   test/benchmarks/peers/compare_mbirjax.sh [VIEWS ROWS CHANNELS]     (default 128 64 128)
# Installs mbirjax and CPU jax from PyPI into a virtual environment (build/peers-venv), runs our demo
# chain (scripts/demo.sh: noisy Shepp-Logan parallel-beam scan, FBP + MBIR with default parameters), then MBIRJAX on
# the very same sinogram file with the same geometry and defaults, and prints both times, both NRMSEs
# and the time ratio. Both use every core of this machine.
set -euo pipefail
cd "$(dirname "$0")/../../.."
views=${1:-128}; rows=${2:-64}; channels=${3:-128}

venv=build/peers-venv
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q mbirjax "jax[cpu]" numpy
fi
out=build/peers/mbirjax-$views-$rows-$channels
mkdir -p "$out"
scripts/demo.sh --output "$out" --views "$views" --rows "$rows" --channels "$channels" | tee "$out.ours.log"
"$venv/bin/python" test/benchmarks/peers/compare_mbirjax.py "$out/sinogram.nrrd" "$out.ours.log"
