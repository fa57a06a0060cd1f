// Projector throughput in voxel-views per second (ROR voxels x views / s) for every geometry, the time of
// a direct recon (FBP, FDK) and of its ramp filter. Problem size N: N views x N rows x N channels, recon N^3.
// forward/ and back/ take a second argument S: the projection of one VCD subset, a random 1/S of the
// cylinders (1: the whole volume; 16: the scattered cylinders a VCD subset projects).
//   build/bin/mbir-benchmark-projectors [--benchmark_filter=Cpu] [--benchmark_repetitions=3]
//   build/bin/mbir-benchmark-projectors --benchmark_filter=filter/    (label: the FFT, KissFFT or FFTW)
// GPU cases register only when a CUDA device is present.

#include "mbir/Config.h"
#include "mbir/DirectRecon.h"
#include "mbir/Projector.h"

#include <benchmark/benchmark.h>

#include <algorithm>
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

enum class Kind
{
  Parallel,
  Cone,
  CurvedCone,
  Translation,
  MultiAxis
};

std::vector<float>
evenAngles(int views, double span)
{
  std::vector<float> angles(views);
  for (int v = 0; v < views; ++v)
  {
    angles[v] = static_cast<float>(span * v / views);
  }
  return angles;
}

// N views, N x N detector, N^3 recon: magnification 2 for the cone-beam kinds, a 16 x 16 raster of
// positions for translation, 25 degrees of elevation for multi-axis.
Geometry
makeGeometry(Kind kind, int size)
{
  const SinogramShape shape{ size, size, size };
  const float         sdd = 4.0f * size, sid = 2.0f * size;
  switch (kind)
  {
    case Kind::Parallel:
      return ParallelBeamGeometry(shape, evenAngles(size, M_PI));
    case Kind::Cone:
    case Kind::CurvedCone:
      return ConeBeamGeometry(shape, evenAngles(size, 2 * M_PI), sdd, sid, {}, kind == Kind::CurvedCone);
    case Kind::Translation:
    {
      std::vector<std::array<float, 3>> translations(size);
      for (int v = 0; v < size; ++v)
      {
        translations[v] = { 0.25f * size * ((v % 16) / 15.0f - 0.5f),
                            0.0f,
                            0.25f * size * ((v / 16 % 16) / 15.0f - 0.5f) };
      }
      TranslationGeometry g(shape, translations, sdd, sid);
      g.voxelRowAspect = 1.0f;
      g.reconShape = ReconShape{ size, size, size };
      return g;
    }
    case Kind::MultiAxis:
    {
      MultiAxisParallelGeometry g(shape, evenAngles(size, 2 * M_PI), std::vector<float>(size, 25.0f * M_PI / 180));
      g.reconShape.slices = size;
      return g;
    }
  }
  return {};
}

Problem
makeProblem(Kind kind, int size, std::shared_ptr<Backend> backend, int subsets = 1)
{
  Problem problem;
  problem.projector = std::make_unique<Projector>(makeGeometry(kind, size), backend);
  std::vector<int> ror = problem.projector->rorPixels();
  std::mt19937     engine(1);
  if (subsets > 1)
  {
    std::shuffle(ror.begin(), ror.end(), engine);
    ror.resize(ror.size() / subsets);
  }
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
  const double voxelViews = double(problem.pixels.size()) * size * size;
  state.counters["voxel_views_per_s"] =
    benchmark::Counter(voxelViews * state.iterations(), benchmark::Counter::kIsRate);
  state.counters["device_MiB"] = double(problem.projector->device(0).peakBytes()) / (1 << 20);
}

void
forward(benchmark::State & state, Kind kind, std::shared_ptr<Backend> (*make)())
{
  const int           size = static_cast<int>(state.range(0));
  Problem             problem = makeProblem(kind, size, make(), static_cast<int>(state.range(1)));
  Backend &           backend = problem.projector->device(0);
  const CylinderBatch batch{ problem.pixels.data(), static_cast<int>(problem.pixels.size()), size };
  for (auto _ : state)
  {
    backend.fillZero(problem.sinogram.data(), problem.sinogram.size() * sizeof(float));
    backend.forwardProject(
      problem.projector->deviceModel(0), batch, problem.values.data(), ViewRange{ 0, size }, problem.sinogram.data());
    backend.synchronize();
  }
  setThroughput(state, problem, size);
}

void
back(benchmark::State & state, Kind kind, std::shared_ptr<Backend> (*make)())
{
  const int           size = static_cast<int>(state.range(0));
  Problem             problem = makeProblem(kind, size, make(), static_cast<int>(state.range(1)));
  Backend &           backend = problem.projector->device(0);
  const CylinderBatch batch{ problem.pixels.data(), static_cast<int>(problem.pixels.size()), size };
  for (auto _ : state)
  {
    backend.fillZero(problem.values.data(), problem.values.size() * sizeof(float));
    backend.backProject(problem.projector->deviceModel(0),
                        batch,
                        problem.sinogram.data(),
                        nullptr,
                        ViewRange{ 0, size },
                        1,
                        problem.values.data());
    backend.synchronize();
  }
  setThroughput(state, problem, size);
}

// Seconds of a direct recon of an N^3 volume from N views (FDK for cone beam).
void
direct(benchmark::State & state, Kind kind, std::shared_ptr<Backend> (*make)())
{
  const int            size = static_cast<int>(state.range(0));
  Problem              problem = makeProblem(kind, size, make());
  Backend &            backend = problem.projector->device(0);
  const DeviceSinogram sinogram(problem.projector->groupPointer(), problem.projector->sinogramShape());
  DeviceVolume         volume(problem.projector->groupPointer(), problem.projector->reconShape());
  for (auto _ : state)
  {
    directReconInto(*problem.projector, sinogram, volume);
    backend.synchronize();
  }
  state.counters["device_MiB"] = double(backend.peakBytes()) / (1 << 20);
}

// Seconds of Backend::rampFilter on an N x N x N sinogram: along the channels (FBP, FDK: the FFTs of the
// rows, zero-padded to 2N) or directional (multi-axis FBP: one zero-padded 2N x 2N 2-D FFT per view).
void
filter(benchmark::State & state, bool directional, std::shared_ptr<Backend> (*make)())
{
  const int                  size = static_cast<int>(state.range(0));
  const SinogramShape        shape{ size, size, size };
  std::shared_ptr<Backend>   backend = make();
  std::vector<RampDirection> directions(size, RampDirection{ 1.0f, 0.0f });
  for (int v = 0; directional && v < size; ++v)
  {
    const double angle = M_PI * v / size;
    directions[v] = RampDirection{ static_cast<float>(std::cos(angle)), static_cast<float>(0.4 * std::sin(angle)) };
  }
  std::vector<float>                    values(shape.size());
  std::mt19937                          engine(1);
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  for (float & v : values)
  {
    v = uniform(engine);
  }
  const DeviceArray<float> in = backend->upload(values.data(), values.size());
  DeviceArray<float>       out = backend->allocate<float>(values.size());
  backend->rampFilter(in.data(), shape, directions, out.data()); // first touch of the output, plans
  backend->synchronize();
  for (auto _ : state)
  {
    backend->rampFilter(in.data(), shape, directions, out.data());
    backend->synchronize();
  }
  state.SetLabel(backend->kind() == Backend::Kind::Gpu ? "cuFFT" : MBIR_USE_FFTW ? "FFTW" : "KissFFT");
  state.counters["device_MiB"] = double(backend->peakBytes()) / (1 << 20);
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

constexpr std::pair<Kind, const char *> kKinds[] = { { Kind::Parallel, "Parallel" },
                                                     { Kind::Cone, "Cone" },
                                                     { Kind::CurvedCone, "CurvedCone" },
                                                     { Kind::Translation, "Translation" },
                                                     { Kind::MultiAxis, "MultiAxis" } };

void
registerFilters(const char * device, std::shared_ptr<Backend> (*make)(), std::initializer_list<int> sizes)
{
  for (const int size : sizes)
  {
    // CPU time: of the whole process, all threads (the work, less sensitive than seconds to a shared machine).
    benchmark::RegisterBenchmark((std::string("filter/Channels") + device).c_str(), filter, false, make)
      ->Arg(size)
      ->Unit(benchmark::kMillisecond)
      ->MeasureProcessCPUTime()
      ->UseRealTime();
    benchmark::RegisterBenchmark((std::string("filter/Directional") + device).c_str(), filter, true, make)
      ->Arg(size)
      ->Unit(benchmark::kMillisecond)
      ->MeasureProcessCPUTime()
      ->UseRealTime();
  }
}

void
registerAll(const char * device, std::shared_ptr<Backend> (*make)(), std::initializer_list<int> sizes)
{
  for (const auto & [kind, name] : kKinds)
  {
    for (const int size : sizes)
    {
      const std::string suffix = std::string(name) + device;
      for (const int subsets : { 1, 16 })
      {
        benchmark::RegisterBenchmark(("forward/" + suffix).c_str(), forward, kind, make)
          ->Args({ size, subsets })
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
        benchmark::RegisterBenchmark(("back/" + suffix).c_str(), back, kind, make)
          ->Args({ size, subsets })
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
      }
    }
  }
  for (const int size : sizes)
  {
    benchmark::RegisterBenchmark((std::string("fbp/Parallel") + device).c_str(), direct, Kind::Parallel, make)
      ->Arg(size)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
    benchmark::RegisterBenchmark((std::string("fdk/Cone") + device).c_str(), direct, Kind::Cone, make)
      ->Arg(size)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
  }
}

} // namespace

int
main(int argc, char ** argv)
{
  registerAll("Cpu", cpu, { 64, 128, 256, 512 }); // 512: how cost grows (minutes per row-map geometry)
  registerFilters("Cpu", cpu, { 256, 512 });
  if (cudaDeviceCount() > 0)
  {
    registerAll("Gpu", gpu, { 256, 512, 1024 });
    registerFilters("Gpu", gpu, { 256, 512 });
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
