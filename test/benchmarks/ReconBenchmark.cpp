// MBIR on the CPU: seconds per VCD iteration and for the whole default recon, with peak memory.
//   build/bin/mbir-benchmark-recon [--benchmark_filter=128]
// Problem: parallel beam, N views x N rows x N channels (recon N x N x N), Shepp-Logan phantom.

#include "mbir/Phantom.h"
#include "mbir/Reconstructor.h"

#include <benchmark/benchmark.h>

#include <sys/resource.h>

#include <cmath>

using namespace mbir;

namespace
{

void
recon(benchmark::State & state)
{
  const int          n = static_cast<int>(state.range(0));
  std::vector<float> angles(n);
  for (int v = 0; v < n; ++v)
    angles[v] = static_cast<float>(M_PI * v / n);
  auto        backend = makeCpuBackend();
  ReconParams params;
  params.verbose = 0;
  const Reconstructor      reconstructor(ParallelBeamGeometry(SinogramShape{ n, n, n }, angles), backend, params);
  const std::vector<float> sino = reconstructor.forwardProject(sheppLoganLowDynamicRange(reconstructor.projector().reconShape()));
  double                   iterations = 0.0, iterationSeconds = 0.0;
  for (auto _ : state)
  {
    const ReconResult result = reconstructor.recon(sino);
    for (const IterationLog & entry : result.log)
    {
      iterationSeconds += entry.seconds;
      iterations += 1.0;
    }
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  state.counters["iterations"] = iterations / state.iterations();
  state.counters["seconds_per_iteration"] = iterationSeconds / iterations;
  state.counters["engine_peak_MiB"] = double(backend->peakBytes()) / (1 << 20);
  state.counters["process_peak_RSS_MiB"] = double(usage.ru_maxrss) / 1024.0;
}

} // namespace

BENCHMARK(recon)->Arg(128)->Arg(256)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();
BENCHMARK_MAIN();
