#!/usr/bin/env bash
# Progress of the tools (MBIR_PROGRESS): a bar redrawn in place on a terminal (run under `script`, which gives the
# tool a pseudo-terminal), none under --verbose, plain lines every 10% on a pipe or file (and with MBIR_PROGRESS=lines),
# Slicer's XML when Slicer runs the tool (SLICER_HOME set), and a bad value refused.
#   progress-test.sh TOOLS_DIR WORK_DIR
set -euo pipefail
tools=$1 work=$2
source "$(dirname "$0")/tool-test-lib.sh"
fresh_scan 96 8 128
recon="$tools/mbir-recon --geometry scan.json --input sinogram.nrrd --max-iterations 8 --stop-threshold 0 --output recon.nrrd"
on_terminal() { env -u MBIR_PROGRESS script -qec "$1" /dev/null > "$2"; }

# 1. A terminal: the bar, redrawn in place (carriage returns), ending at 100% with its line ended; no XML.
on_terminal "$recon" terminal.log
draws=$(grep -o $'\rMBIR \\[' terminal.log | wc -l)
[ "$draws" -ge 2 ] || { cat -v terminal.log; fail "the bar was drawn $draws times"; }
grep -q $'MBIR \\[##############################\\] 100%  iteration 8/8  [0-9]*:[0-9][0-9] elapsed\e\\[K\r*$' \
  terminal.log || { cat -v terminal.log; fail "the bar does not end full at 100%, iteration 8/8, on a line of its own"; }
! grep -q "<filter-" terminal.log || fail "Slicer's XML on a terminal"
grep -q "^MBIR: 8 iterations" <(tr -d '\r' < terminal.log) || fail "the summary line is missing"
on_terminal "$tools/mbir-denoise --input phantom.nrrd --max-iterations 3 --output denoised.nrrd" denoise.log
grep -q $'\rqGGMRF denoising \\[' denoise.log || { cat -v denoise.log; fail "mbir-denoise shows no bar"; }

# 2. --verbose on a terminal: the iteration lines, no bar to break them.
on_terminal "$recon --verbose" verbose.log
! grep -q $'\rMBIR \\[' verbose.log || { cat -v verbose.log; fail "a bar under --verbose"; }
grep -qi "iteration" verbose.log || fail "no iteration lines under --verbose"

# 3. MBIR_PROGRESS=lines (log files): a line at the first report past each 10% (each iteration an eighth of it here:
#    13%, 22%, ... then 90% or past), with the percentage and the iteration running, then done; no carriage returns,
#    no XML.
MBIR_PROGRESS=lines $recon > lines.log
tens=$(sed -n 's|^MBIR: \([1-9]\)[0-9]% (iteration [1-8]/8) after [0-9]*:[0-9][0-9].*|\1|p' lines.log | tr '\n' ' ')
[ "$tens" = "1 2 3 4 5 6 7 8 9 " ] || { cat lines.log; fail "not one line per 10%, each with its iteration"; }
grep -q "^MBIR: done after " lines.log || fail "no closing line"
! grep -q $'\r' lines.log || fail "carriage returns in plain lines"
! grep -q "<filter-" lines.log || fail "XML in plain lines"

# 4. A pipe: plain lines by default (log files stay clean); Slicer's protocol when Slicer runs the tool.
env -u MBIR_PROGRESS -u SLICER_HOME $recon | cat > pipe.log
grep -q "^MBIR: 50% (iteration" pipe.log && ! grep -q "<filter-" pipe.log || { cat pipe.log; fail "not plain lines on a pipe"; }
env -u MBIR_PROGRESS SLICER_HOME=/opt/Slicer $recon | cat > slicer.log
grep -q "<filter-progress>1</filter-progress>" slicer.log && grep -q "<filter-end>" slicer.log ||
  fail "no Slicer XML under Slicer (SLICER_HOME set)"

# 5. A bad value: refused before any work.
status=0
MBIR_PROGRESS=fancy $recon > bad.log 2>&1 || status=$?
[ "$status" = 1 ] && grep -q "MBIR_PROGRESS must be auto, bar, lines, xml or none, got 'fancy'" bad.log ||
  { cat bad.log; fail "MBIR_PROGRESS=fancy: exit $status"; }
echo "progress-test.sh: bar ($draws draws), verbose, lines on a pipe, Slicer XML under Slicer and a bad value as expected"
