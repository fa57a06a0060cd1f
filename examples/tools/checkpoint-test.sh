#!/usr/bin/env bash
# mbir-recon --checkpoint / --resume: a recon killed with SIGKILL, or stopped by SIGINT in the middle of an
# iteration, and resumed ends with the volume and iteration count of the run never stopped; a resume with other
# options is refused with the reason.
#   checkpoint-test.sh TOOLS_DIR WORK_DIR
set -euo pipefail
export MBIR_PROGRESS=none
tools=$1 work=$2
source "$(dirname "$0")/tool-test-lib.sh"
fresh_scan 192 16 192
# 16 iterations: the runs stopped after the third or second have at least a dozen left (about 1 s in a Release build,
# half a minute under AddressSanitizer), where the log is polled every 0.25 s, so that a loaded machine cannot let a
# run finish before its signal. 16 rows rather than more: each of the four runs costs a minute under the sanitizer.
run=(--geometry scan.json --input sinogram.nrrd --max-iterations 16 --stop-threshold 0)
"$tools/mbir-recon" "${run[@]}" --output uninterrupted.nrrd | tee uninterrupted.log
grep -q "MBIR: 16 iterations" uninterrupted.log || fail "the uninterrupted run did not do 16 iterations"

# Waits until the log shows the pattern (at most 60 s).
wait_for() {
  for _ in $(seq 240); do
    grep -q "$1" "$2" && return 0
    sleep 0.25
  done
  cat "$2"
  fail "'$1' never appeared in $2"
}
# The resumed volume against the uninterrupted one: NRMSE below 1e-4 (float rounding).
same_volume() {
  "$tools/mbir-compare" --reference uninterrupted.nrrd --image "$1" | tee compare.log
  nrmse=$(sed -n 's/.*NRMSE \([0-9.eE+-]*\).*/\1/p' compare.log | head -1)
  [ -n "$nrmse" ] || fail "mbir-compare printed no NRMSE"
  awk -v e="$nrmse" 'BEGIN { exit !(e < 1e-4) }' || fail "$1: NRMSE $nrmse against the uninterrupted run"
}

# 1. SIGKILL after the checkpoint of iteration 3: a resume finishes the run, and its first checkpoint removes the
# half-written one the kill may have left (the check for partial files at the end).
"$tools/mbir-recon" "${run[@]}" --verbose --checkpoint run.mbirckpt --output killed.nrrd > killed.log 2>&1 &
tool=$!
wait_for "^Checkpoint after iteration 3" killed.log
kill -KILL $tool
wait $tool || true
[ ! -e killed.nrrd ] || fail "SIGKILL: an output was written"
"$tools/mbir-recon" "${run[@]}" --verbose --checkpoint run.mbirckpt --resume run.mbirckpt --output killed.nrrd |
  tee resumed.log
grep -Eq "Resuming from checkpoint 'run.mbirckpt' at iteration ([4-9]|1[0-6])/16" resumed.log || fail "no resume line"
grep -q "MBIR: 16 iterations" resumed.log || fail "the resumed run does not count 16 iterations"
same_volume killed.nrrd

# 2. SIGINT in the middle of an iteration: the state at the stop is saved and the message says how to go on.
"$tools/mbir-recon" "${run[@]}" --verbose --checkpoint stop.mbirckpt --checkpoint-every 100 --output stopped.nrrd \
  > stopped.log 2>&1 &
tool=$!
wait_for "^Iteration 2/" stopped.log
kill -INT $tool
status=0
wait $tool || status=$?
cat stopped.log
[ "$status" = 130 ] || fail "SIGINT: exit status $status, expected 130"
grep -q "continue with --resume 'stop.mbirckpt'" stopped.log || fail "SIGINT: the message does not say how to resume"
[ -e stop.mbirckpt ] && [ ! -e stopped.nrrd ] || fail "SIGINT: no checkpoint, or an output"
"$tools/mbir-recon" "${run[@]}" --resume stop.mbirckpt --output stopped.nrrd | tee resumed.log
grep -q "MBIR: 16 iterations" resumed.log || fail "the run resumed after SIGINT does not count 16 iterations"
same_volume stopped.nrrd

# 3. Other options, or an initial volume with the resume: refused before any work.
status=0
"$tools/mbir-recon" "${run[@]}" --sharpness 2 --resume run.mbirckpt --output other.nrrd > other.log 2>&1 || status=$?
cat other.log
[ "$status" = 1 ] && grep -q "other parameters" other.log || fail "a resume with another sharpness was not refused"
status=0
"$tools/mbir-recon" "${run[@]}" --initial phantom.nrrd --resume run.mbirckpt --output other.nrrd > other.log 2>&1 ||
  status=$?
[ "$status" = 2 ] && grep -q "exclude each other" other.log || fail "--initial with --resume was not refused"
[ ! -e other.nrrd ] || fail "a refused resume wrote an output"
! ls -a | grep -q partial || fail "a partial file was left"
echo PASSED
