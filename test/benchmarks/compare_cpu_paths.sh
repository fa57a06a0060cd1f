#!/usr/bin/env bash
# The CPU backend's instruction-set paths against a -march=native build of the same sources, in one run:
#   test/benchmarks/compare_cpu_paths.sh PORTABLE_BUILD NATIVE_BUILD [ROUNDS]
# PORTABLE_BUILD is configured as by default (MBIR_NATIVE_CPU=OFF), NATIVE_BUILD with -DMBIR_NATIVE_CPU=ON.
# In ROUNDS (default 3) interleaved rounds it runs the main projector benchmarks and the first three VCD
# iterations of the recon benchmark on the native build and on every path of the portable build this CPU
# runs (MBIR_CPU_DISPATCH=baseline, avx2, avx512), then prints each time's median over the rounds and its
# ratio to the native build's (below 1: faster than native).
# OMP_NUM_THREADS=1 (the default here) times one thread by its CPU time, the least noisy measure on a shared
# machine; with more threads the wall-clock time is compared. PROJECTORS and RECON override the filters.
set -euo pipefail
portable=${1:?usage: $0 PORTABLE_BUILD NATIVE_BUILD [ROUNDS]}
native=${2:?usage: $0 PORTABLE_BUILD NATIVE_BUILD [ROUNDS]}
rounds=${3:-3}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
projectors=${PROJECTORS:-'^(forward|back)/ParallelCpu/256/|^(forward|back)/ConeCpu/128/'}
recon=${RECON:-'^devices/Cpu/128/1/'}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# The paths this CPU runs: those the portable build accepts in MBIR_CPU_DISPATCH.
paths=""
for path in baseline avx2 avx512; do
  if MBIR_CPU_DISPATCH=$path "$portable/bin/mbir-benchmark-projectors" --benchmark_filter='^forward/ParallelCpu/128/' \
      --benchmark_min_time=0.001 >/dev/null 2>&1; then
    paths="$paths $path"
  fi
done
echo "threads: $OMP_NUM_THREADS; paths here:$paths; rounds: $rounds" >&2

for round in $(seq 1 "$rounds"); do
  for config in native $paths; do
    if [ "$config" = native ]; then build=$native; dispatch=; else build=$portable; dispatch=$config; fi
    echo "round $round: $config" >&2
    MBIR_CPU_DISPATCH=$dispatch "$build/bin/mbir-benchmark-projectors" --benchmark_filter="$projectors" \
      --benchmark_min_time=0.5 --benchmark_format=json > "$out/$round-$config-projectors.json"
    MBIR_CPU_DISPATCH=$dispatch "$build/bin/mbir-benchmark-recon" --benchmark_filter="$recon" \
      --benchmark_format=json > "$out/$round-$config-recon.json"
  done
done

python3 - "$out" "$OMP_NUM_THREADS" native $paths <<'PY'
import glob, json, os, statistics, sys
out, threads, configs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
metric = "cpu_time" if threads == 1 else "real_time"
times = {}  # (benchmark, config) -> [seconds per round]
for path in sorted(glob.glob(os.path.join(out, "*.json"))):
    config = os.path.basename(path).split("-")[1]
    for b in json.load(open(path))["benchmarks"]:
        scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b["time_unit"]]
        name = b["run_name"].replace("/iterations:1", "").replace("/real_time", "")
        times.setdefault((name, config), []).append(b[metric] * scale)
names = sorted({name for name, _ in times}, key=lambda n: (n.split("/")[0] != "forward", n))
print(f"{metric} (median of {len(times[(names[0], 'native')])} rounds, {threads} thread(s)); ratio to native")
print(f"{'benchmark':26s}" + "".join(f"{c:>18s}" for c in configs))
for name in names:
    base = statistics.median(times[(name, "native")])
    row = f"{name:26s}"
    for c in configs:
        t = statistics.median(times[(name, c)])
        row += f"{t:10.3f} s {t / base:5.2f}"
    print(row)
PY
