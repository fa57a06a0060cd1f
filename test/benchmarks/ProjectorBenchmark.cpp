// Projector throughput in voxel-views per second (ROR voxels x views / s).
//   build/bin/mbir-benchmark-projectors [--benchmark_filter=Cpu] [--benchmark_repetitions=3]
// GPU cases register only when a CUDA device is present.

#include "mbir/Projector.h"

#include <benchmark/benchmark.h>

#include <cmath>
#include <memory>
#include <random>

using namespace mbir;

namespace {

struct Problem
{
  std::unique_ptr<Projector> projector;
  std::vector<float>         cylinders; // ROR cylinders
  DeviceArray<int>           pixels;
  DeviceArray<float>         values;
  DeviceArray<float>         sinogram;
};

Problem
makeProblem(int size, std::shared_ptr<Backend> backend)
{
  std::vector<float> angles(size);
  for (int v = 0; v < size; ++v)
  {
    angles[v] = static_cast<float>(M_PI * v / size);
  }
  Problem problem;
  problem.projector =
    std::make_unique<Projector>(ParallelBeamGeometry(SinogramShape{ size, size, size }, angles), backend);
  const std::vector<int> &              ror = problem.projector->rorPixels();
  std::mt19937                          engine(1);
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  problem.cylinders.resize(ror.size() * size);
  for (float & v : problem.cylinders)
  {
    v = uniform(engine);
  }
  problem.pixels = backend->upload(ror.data(), ror.size());
  problem.values = backend->upload(problem.cylinders.data(), problem.cylinders.size());
  problem.sinogram = backend->allocate<float>(static_cast<std::size_t>(size) * size * size);
  return problem;
}

void
setThroughput(benchmark::State & state, const Problem & problem, int size)
{
  const double voxelViews = double(problem.projector->rorPixels().size()) * size * size;
  state.counters["voxel_views_per_s"] =
    benchmark::Counter(voxelViews * state.iterations(), benchmark::Counter::kIsRate);
  state.counters["device_MiB"] = double(problem.projector->backend().peakBytes()) / (1 << 20);
}

void
forward(benchmark::State & state, std::shared_ptr<Backend> (*make)())
{
  const int           size = static_cast<int>(state.range(0));
  Problem             problem = makeProblem(size, make());
  Backend &           backend = problem.projector->backend();
  const CylinderBatch batch{ problem.pixels.data(), static_cast<int>(problem.pixels.size()), size };
  for (auto _ : state)
  {
    backend.fillZero(problem.sinogram.data(), problem.sinogram.size() * sizeof(float));
    backend.forwardProject(
      problem.projector->deviceModel(), batch, problem.values.data(), ViewRange{ 0, size }, problem.sinogram.data());
  }
  setThroughput(state, problem, size);
}

void
back(benchmark::State & state, std::shared_ptr<Backend> (*make)())
{
  const int           size = static_cast<int>(state.range(0));
  Problem             problem = makeProblem(size, make());
  Backend &           backend = problem.projector->backend();
  const CylinderBatch batch{ problem.pixels.data(), static_cast<int>(problem.pixels.size()), size };
  for (auto _ : state)
  {
    backend.fillZero(problem.values.data(), problem.values.size() * sizeof(float));
    backend.backProject(problem.projector->deviceModel(),
                        batch,
                        problem.sinogram.data(),
                        nullptr,
                        ViewRange{ 0, size },
                        1,
                        problem.values.data());
  }
  setThroughput(state, problem, size);
}

std::shared_ptr<Backend>
cpu()
{
  return makeCpuBackend();
}
std::shared_ptr<Backend>
gpu()
{
  return makeCudaBackend(0);
}

} // namespace

BENCHMARK_CAPTURE(forward, ParallelCpu, cpu)->Arg(128)->Arg(256)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(back, ParallelCpu, cpu)->Arg(128)->Arg(256)->Unit(benchmark::kMillisecond)->UseRealTime();

int
main(int argc, char ** argv)
{
  if (cudaDeviceCount() > 0)
  {
    for (const int size : { 256, 512, 1024 })
    {
      benchmark::RegisterBenchmark("forward/ParallelGpu", forward, gpu)
        ->Arg(size)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
      benchmark::RegisterBenchmark("back/ParallelGpu", back, gpu)
        ->Arg(size)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    }
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
