// MBIR on the CPU: seconds per VCD iteration and for the whole default recon, with peak memory; and one
// recon over 1, 2 and 4 CPU devices sharing the same cores (the cost of sharding).
//   build/bin/mbir-benchmark-recon [--benchmark_filter=128]   [--benchmark_filter=devices]
// Problem: parallel beam, N views x N rows x N channels (recon N x N x N), Shepp-Logan phantom.

#include "mbir/Phantom.h"
#include "mbir/Reconstructor.h"

#include <benchmark/benchmark.h>

#include <sys/resource.h>

#include <algorithm>
#include <cmath>

using namespace mbir;

namespace {

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
  const std::vector<float> sino =
    reconstructor.forwardProject(sheppLoganLowDynamicRange(reconstructor.projector().reconShape()));
  double iterations = 0.0, iterationSeconds = 0.0;
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

// The first three VCD iterations (1, 4 and 16 subsets) over `devices` CPU devices, each using every core:
// seconds per iteration and the peak bytes of one device.
void
devices(benchmark::State & state)
{
  const int          n = static_cast<int>(state.range(0));
  const int          count = static_cast<int>(state.range(1));
  std::vector<float> angles(n);
  for (int v = 0; v < n; ++v)
    angles[v] = static_cast<float>(M_PI * v / n);
  std::vector<std::shared_ptr<Backend>> cpus;
  for (int d = 0; d < count; ++d)
    cpus.push_back(makeCpuBackend());
  const auto  group = std::make_shared<const DeviceGroup>(cpus);
  ReconParams params;
  params.verbose = 0;
  params.maxIterations = 3;
  const Reconstructor      reconstructor(ParallelBeamGeometry(SinogramShape{ n, n, n }, angles), group, params);
  const std::vector<float> sino =
    reconstructor.forwardProject(sheppLoganLowDynamicRange(reconstructor.projector().reconShape()));
  double iterations = 0.0, iterationSeconds = 0.0;
  for (auto _ : state)
  {
    const ReconResult result = reconstructor.recon(sino);
    for (const IterationLog & entry : result.log)
    {
      iterationSeconds += entry.seconds;
      iterations += 1.0;
    }
  }
  std::size_t peak = 0;
  for (const auto & device : cpus)
    peak = std::max(peak, device->peakBytes());
  state.counters["seconds_per_iteration"] = iterationSeconds / iterations;
  state.counters["device_peak_MiB"] = double(peak) / (1 << 20);
  state.SetLabel(reconstructor.deviceSummary());
}

} // namespace

BENCHMARK(devices)
  ->Args({ 128, 1 })
  ->Args({ 128, 2 })
  ->Args({ 128, 4 })
  ->Args({ 256, 1 })
  ->Args({ 256, 2 })
  ->Args({ 256, 4 })
  ->Iterations(1)
  ->Unit(benchmark::kSecond)
  ->UseRealTime();
BENCHMARK(recon)->Arg(128)->Arg(256)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();
BENCHMARK_MAIN();
