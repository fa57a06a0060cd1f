#!/usr/bin/env bash
# Checks that a library built with the CPU backend's instruction-set paths runs on any x86-64 CPU:
#   check_cpu_paths.sh libMBIREngine.a
# No function outside the AVX2 / AVX-512 path objects (Cpu*Avx2.cpp.o, Cpu*Avx512.cpp.o) may use AVX
# (VEX or EVEX instructions: a 'v' mnemonic, ymm, zmm or mask registers), and in the path objects only
# local functions and those of the paths' namespaces (mbir::cpu::avx2, mbir::cpu::avx512) may: a weak
# function there (an inline function or template instance from a header) that used AVX could be the copy
# the linker keeps for the baseline code too.
set -euo pipefail
library=${1:?usage: check_cpu_paths.sh LIBRARY}
for tool in objdump nm; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool not found"; exit 0; }
done

# Functions that use AVX, as "member symbol".
avx=$(objdump -d --no-show-raw-insn "$library" | awk '
  /^In archive/ { next }
  /file format/ { member = $1; sub(/:$/, "", member); next }
  /^[0-9a-f]+ <.*>:$/ { symbol = $2; gsub(/^<|>:$/, "", symbol); next }
  /^ +[0-9a-f]+:\t/ {
    line = $0; sub(/^ +[0-9a-f]+:\t/, "", line)
    if (line ~ /^v[a-z0-9]+ / || line ~ /%[yz]mm[0-9]|%k[0-7]/) print member, symbol
  }' | sort -u)
# Global and weak functions, as "member symbol".
exported=$(nm -A --defined-only "$library" 2>/dev/null | awk '$(NF-1) ~ /^[TWiu]$/ {
    split($1, parts, ":"); print parts[2], $NF }' | sort -u)

failures=0
paths=0
while read -r member symbol; do
  [ -n "$member" ] || continue
  if [[ $member =~ Avx(2|512)\.cpp\.o$ ]]; then
    paths=$((paths + 1))
    if [[ $symbol =~ ^_ZN4mbir3cpu(4avx2|6avx512) ]]; then
      continue
    fi
    if grep -qxF "$member $symbol" <<<"$exported"; then
      echo "FAIL: $member: exported function $(c++filt "$symbol" 2>/dev/null || echo "$symbol") uses AVX"
      failures=$((failures + 1))
    fi
  else
    echo "FAIL: $member: $(c++filt "$symbol" 2>/dev/null || echo "$symbol") uses AVX outside the AVX paths"
    failures=$((failures + 1))
  fi
done <<<"$avx"
if [ "$paths" -eq 0 ]; then
  echo "FAIL: no AVX code in the path objects: the target pragmas did not take effect"
  failures=$((failures + 1))
fi
echo "$paths AVX functions in the path objects, $failures problems"
[ "$failures" -eq 0 ]
