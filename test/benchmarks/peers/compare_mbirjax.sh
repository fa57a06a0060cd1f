#!/usr/bin/env bash
# Side by side with MBIRJAX on the same problem (a benchmark, not part of scripts/test.sh):
#   test/benchmarks/peers/compare_mbirjax.sh [VIEWS ROWS CHANNELS [parallel|cone]]   (default 128 64 128 parallel)
# Installs mbirjax and CPU jax from PyPI into a virtual environment (build/peers-venv), runs our demo
# chain (scripts/demo.sh: noisy Shepp-Logan scan, direct recon + MBIR with default parameters), then MBIRJAX on
# the very same sinogram file with the same geometry and defaults, and prints both times, both NRMSEs
# and the time ratio. Both use every core of this machine. MBIRJAX splits the CPU into virtual JAX
# devices; where it stalls in their all-reduce (seen for cone beam on 2 cores), run with
# XLA_FLAGS=--xla_force_host_platform_device_count=1, which it then keeps.
set -euo pipefail
cd "$(dirname "$0")/../../.."
views=${1:-128}; rows=${2:-64}; channels=${3:-128}; geometry=${4:-parallel}

venv=build/peers-venv
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q mbirjax "jax[cpu]" numpy
fi
out=build/peers/mbirjax-$geometry-$views-$rows-$channels
mkdir -p "$out"
scripts/demo.sh --geometry "$geometry" --output "$out" --views "$views" --rows "$rows" --channels "$channels" |
  tee "$out.ours.log"
"$venv/bin/python" test/benchmarks/peers/compare_mbirjax.py "$out/geometry.json" "$out/sinogram.nrrd" "$out.ours.log"
