#!/usr/bin/env bash
# The main job: install, build, then run the command-line tools in a chain: write a scan geometry, the
# Shepp-Logan phantom on its grid, a noisy simulated scan, the direct recon and the MBIR recon, and a
# picture comparing them, all in build/demo/ (see README.md).
#   scripts/demo.sh [--geometry parallel|cone|translation|multi-axis] [--snr-db DB] [--output DIR]
#                   [any mbir-geometry option, e.g. --views 128 --rows 64 --channels 128]
set -euo pipefail
export MBIR_PROGRESS=${MBIR_PROGRESS:-none} # the tools' Slicer progress tags are for Slicer, not this log
cd "$(dirname "$0")/.."

type=parallel snr_db=30 out=build/demo
geometry_options=()
while [ $# -gt 0 ]; do
  case "$1" in
    --geometry) type=${2:?--geometry needs a value}; shift 2 ;;
    --snr-db) snr_db=${2:?--snr-db needs a value}; shift 2 ;;
    --output) out=${2:?--output needs a value}; shift 2 ;;
    -h|--help) sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) geometry_options+=("$1"); shift ;;
  esac
done

scripts/install-deps.sh
scripts/configure.sh
cmake --build build --target mbir-tools

bin=build/bin
mkdir -p "$out"
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# mbir-geometry's defaults are the demo's scan: 128 views over a half turn (a full turn at magnification 2
# for cone beam), 64 rows, 128 channels of 1 mm.
"$bin/mbir-geometry" --type "$type" "${geometry_options[@]}" --output "$out/geometry.json"
"$bin/mbir-phantom" --geometry "$out/geometry.json" --output "$out/phantom.nrrd"
"$bin/mbir-project" --geometry "$out/geometry.json" --input "$out/phantom.nrrd" --snr-db "$snr_db" \
  --output "$out/sinogram.nrrd"
"$bin/mbir-recon" --direct --geometry "$out/geometry.json" --input "$out/sinogram.nrrd" \
  --reference "$out/phantom.nrrd" --output "$out/direct.nrrd" | tee "$log"
direct=$(tail -n 1 "$log")
"$bin/mbir-recon" --verbose --geometry "$out/geometry.json" --input "$out/sinogram.nrrd" \
  --reference "$out/phantom.nrrd" --output "$out/recon.nrrd" | tee "$log"
mbir=$(tail -n 1 "$log")
"$bin/mbir-compare" --reference "$out/phantom.nrrd" --image "$out/direct.nrrd" --image "$out/recon.nrrd" \
  --picture "$out/demo.png" >/dev/null

# One line for scripts (test/benchmarks/peers reads it), from the tools' summary lines.
field() { sed -n "s/.*$1.*/\\1/p" <<<"$2"; }
result="RESULT direct_nrmse=$(field 'NRMSE \([0-9.]*\)' "$direct") mbir_nrmse=$(field 'NRMSE \([0-9.]*\)' "$mbir")"
result+=" direct_seconds=$(field ' \([0-9.]*\) s on ' "$direct") mbir_seconds=$(field ' \([0-9.]*\) s on ' "$mbir")"
echo "$result"
if [[ "$result" == *"= "* || "$result" == *"=" ]]; then
  echo "demo.sh: a value is missing from the RESULT line: the tools' summary lines changed format" >&2
  exit 1
fi
echo "Wrote $out/{geometry.json,phantom.nrrd,sinogram.nrrd,direct.nrrd,recon.nrrd,demo.png}"
