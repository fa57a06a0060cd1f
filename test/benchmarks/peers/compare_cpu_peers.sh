#!/usr/bin/env bash
# Our CPU tools against CPU peers on the same problems, one after another on the same cores (a benchmark that
# needs the network and takes minutes, not part of scripts/test.sh or ctest):
#   test/benchmarks/peers/compare_cpu_peers.sh [--quick] [--geometry parallel|cone|both] [--time-to-target]
# MBIR: ours (mbir-recon) vs MBIRJAX (CPU jax) for parallel and cone beam, vs svmbir for parallel beam; direct
# recon: ours (mbir-direct-recon) vs RTK's CPU FDK for cone beam. Problems: noisy Shepp-Logan scans of
# 128 views x 64 rows x 128 channels and (without --quick) 256 x 128 x 256. Prints one table (seconds, NRMSE
# against the phantom, time ratio to ours) and writes it to build/peers/cpu/cpu-peers[-quick].csv.
# --time-to-target adds the time ours takes to reach each MBIR peer's NRMSE (compare_cpu_peers.py --help).
# Installs the peers from PyPI into build/peers-venv; a peer that does not install is reported as skipped.
set -euo pipefail
cd "$(dirname "$0")/../../.."

venv=build/peers-venv
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q numpy
fi
# One package at a time, so that one that fails to install leaves the others (the driver skips its peer).
for package in mbirjax "jax[cpu]" svmbir itk-rtk; do
  name=${package%%[*}
  if ! "$venv/bin/pip" show -q "$name" >/dev/null 2>&1; then
    "$venv/bin/pip" install -q "$package" ||
      echo "compare_cpu_peers.sh: could not install $package from PyPI; its peer will be skipped" >&2
  fi
done

# Our tools, built when missing or out of date (a no-op otherwise).
[ -f build/build.ninja ] || scripts/configure.sh
cmake --build build --target mbir-tools >/dev/null

exec "$venv/bin/python" test/benchmarks/peers/compare_cpu_peers.py "$@"
