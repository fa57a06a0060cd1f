#!/usr/bin/env bash
# SIGINT and SIGTERM to mbir-recon in the middle of an MBIR: it stops at the end of a VCD subset within seconds,
# says so, exits 130 / 143, and leaves neither the output nor a partial file.
#   interrupt-test.sh TOOLS_DIR WORK_DIR
set -euo pipefail
tools=$1 work=$2
source "$(dirname "$0")/tool-test-lib.sh"
fresh_scan 192 48 192
for signal in INT TERM; do
  expected=$([ $signal = INT ] && echo 130 || echo 143)
  "$tools/mbir-recon" --geometry scan.json --input sinogram.nrrd --max-iterations 200 --stop-threshold 0 --verbose \
    --output recon.nrrd > $signal.log 2>&1 &
  tool=$!
  for _ in $(seq 240); do
    grep -q '^Iteration 1/' $signal.log && break
    sleep 0.25
  done
  grep -q '^Iteration 1/' $signal.log || { cat $signal.log; fail "SIG$signal: the recon did not start iterating"; }
  sent=$SECONDS
  kill -$signal $tool
  status=0
  wait $tool || status=$?
  cat $signal.log
  echo "SIG$signal: exit status $status after $((SECONDS - sent)) s"
  [ "$status" = "$expected" ] || fail "SIG$signal: exit status $status, expected $expected"
  [ $((SECONDS - sent)) -le 30 ] || fail "SIG$signal: took more than 30 s to stop"
  grep -q "stopped by SIG$signal" $signal.log || fail "SIG$signal: no message"
  [ ! -e recon.nrrd ] || fail "SIG$signal: an output was written"
  ! ls -a | grep -q partial || fail "SIG$signal: a partial file was left"
done
echo PASSED
