#!/usr/bin/env bash
# Device faults through the tools: test builds of mbir-recon, mbir-denoise and mbir-project (mbir-*-faults, whose
# one CPU device fails its MBIR_FAULT_AT-th call: an allocation with out of device memory, a copy or kernel with a
# lost device) run a small MBIR, direct recon, denoising and projection failing at every call in turn. Each run
# must exit 1 naming the fault, leave no output file, free every byte and leave its input unchanged.
#   fault-test.sh TOOLS_DIR WORK_DIR
set -euo pipefail
export MBIR_PROGRESS=none
tools=$1 work=$2
source "$(dirname "$0")/tool-test-lib.sh"
fresh_scan 12 3 16

# every_fault NAME INPUT TOOL ARGS...: the clean run, then one run failing at each of its device calls.
total_faults=0
every_fault() {
  local name=$1 input=$2 tool=$3
  shift 3
  local before calls
  before=$(md5sum < "$input")
  MBIR_FAULT_AT=0 timeout 120 "$tools/$tool" "$@" --output "$name.nrrd" > "$name.log" 2>&1 ||
    { cat "$name.log"; fail "$name: the run without a fault failed"; }
  calls=$(sed -n 's/^fault injection: \([0-9]*\) device calls, 0 bytes left allocated$/\1/p' "$name.log")
  [ -n "$calls" ] && [ "$calls" -gt 3 ] || { cat "$name.log"; fail "$name: no count of device calls, or bytes left"; }
  rm -f "$name.nrrd"
  for k in $(seq "$calls"); do
    status=0
    MBIR_FAULT_AT=$k timeout 120 "$tools/$tool" "$@" --output "$name.nrrd" > fault.log 2>&1 || status=$?
    [ "$status" = 1 ] || { cat fault.log; fail "$name, fault at call $k of $calls: exit $status, expected 1"; }
    grep -q "injected fault at call $k " fault.log || { cat fault.log; fail "$name, call $k: the message does not name the fault"; }
    grep -q "device calls, 0 bytes left allocated$" fault.log || { cat fault.log; fail "$name, call $k: device memory left allocated"; }
    [ ! -e "$name.nrrd" ] || fail "$name, call $k: an output was written"
    ! ls -a | grep -q partial || fail "$name, call $k: a partial output was left"
  done
  [ "$(md5sum < "$input")" = "$before" ] || fail "$name: the input changed"
  echo "$name: $calls faults, each exit 1 with its message, no output, nothing left allocated"
  total_faults=$((total_faults + calls))
}

every_fault mbir sinogram.nrrd mbir-recon-faults --geometry scan.json --input sinogram.nrrd --max-iterations 2 --positivity
every_fault direct sinogram.nrrd mbir-recon-faults --geometry scan.json --input sinogram.nrrd --direct
every_fault denoise phantom.nrrd mbir-denoise-faults --input phantom.nrrd --max-iterations 2
every_fault project phantom.nrrd mbir-project-faults --geometry scan.json --input phantom.nrrd
echo "fault-test.sh: $total_faults faults through the tools, each reported"
