// Projector throughput in voxel-views per second (ROR voxels x views / s) for every geometry, the time of
// a direct recon (FBP, FDK) and of its ramp filter. Problem size N: N views x N rows x N channels, recon N^3.
// forward/ and back/ take a second argument S: the projection of one VCD subset, a random 1/S of the
// cylinders (1: the whole volume; 16 and 128: the scattered cylinders a VCD subset projects, 128 at the finest
// default granularity, where most of an MBIR's iterations are).
//   build/bin/mbir-benchmark-projectors [--benchmark_filter=Cpu] [--benchmark_repetitions=3]
//   build/bin/mbir-benchmark-projectors --benchmark_filter=filter/    (label: the FFT, KissFFT or FFTW)
// GPU cases register only when a CUDA device is present.
// Roofline: each projector case reports the nonzero coefficients of A per voxel-view and the rate of
// 2 flops per coefficient (A applied as a sparse matrix); machine/ measures, in the same run and on as
// many threads as the CPU backend takes, the peak FMA rate and the memory bandwidth (STREAM triad) they
// are a fraction of:   build/bin/mbir-benchmark-projectors --benchmark_filter='machine/|Cpu/128/'

#include "mbir/Config.h"
#include "mbir/DirectRecon.h"
#include "mbir/Projector.h"
#include "mbir/kernels/ConeBeam.h"
#include "mbir/kernels/MultiAxisParallel.h"
#include "mbir/kernels/ParallelBeam.h"
#include "mbir/kernels/Translation.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <thread>
#include <type_traits>

using namespace mbir;

namespace {

struct Problem
{
  std::unique_ptr<Projector> projector;
  std::vector<float>         cylinders;  // ROR cylinders
  std::vector<int>           hostPixels; // the cylinders projected
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
  problem.hostPixels = ror;
  problem.values = backend->upload(problem.cylinders.data(), problem.cylinders.size());
  problem.sinogram = backend->allocate<float>(static_cast<std::size_t>(size) * size * size);
  return problem;
}

// Nonzero coefficients of A per voxel-view, from up to 512 of the problem's cylinders over every view: the
// channels a voxel's shadow hits, times (row-map geometries) the rows its middle slice's shadow hits. The
// footprints are read on the host, from a CPU copy of the projector where the problem's lives on a GPU.
double
coefficientsPerVoxelView(const Problem & problem)
{
  std::unique_ptr<Projector> hostCopy;
  if (problem.projector->device(0).kind() != Backend::Kind::Cpu)
  {
    hostCopy = std::make_unique<Projector>(problem.projector->geometry(), makeCpuBackend());
  }
  const Projector &        projector = hostCopy ? *hostCopy : *problem.projector;
  const std::vector<int> & pixels = problem.hostPixels;
  const std::size_t        stride = std::max<std::size_t>(1, pixels.size() / 512);
  const int                views = projector.sinogramShape().views;
  const int                middle = projector.reconShape().slices / 2;
  std::size_t              coefficients = 0, samples = 0;
  auto                     count = [](const kernels::Footprint & f) {
    int hits = 0;
    for (int n = f.first; n <= f.last; ++n)
      hits += f.weight(n) != 0.0f;
    return hits;
  };
  std::visit(
    [&](const auto & m) {
      for (std::size_t i = 0; i < pixels.size(); i += stride)
      {
        for (int v = 0; v < views; ++v, ++samples)
        {
          if constexpr (std::is_same_v<std::decay_t<decltype(m)>, ParallelBeamModel>)
          {
            coefficients += count(kernels::parallelBeamChannelFootprint(m.params, m.views[v], pixels[i]));
          }
          else
          {
            const kernels::PixelProjection proj = kernels::pixelProjection(m.params, m.views[v], pixels[i]);
            coefficients += count(proj.channels) * count(proj.rows.slice(middle, m.params.numDetRows));
          }
        }
      }
    },
    projector.deviceModel(0));
  return double(coefficients) / double(std::max<std::size_t>(samples, 1));
}

void
setThroughput(benchmark::State & state, const Problem & problem, int size)
{
  const double voxelViews = double(problem.pixels.size()) * size * size;
  const double coefficients = coefficientsPerVoxelView(problem);
  state.counters["voxel_views_per_s"] =
    benchmark::Counter(voxelViews * state.iterations(), benchmark::Counter::kIsRate);
  state.counters["coefficients_per_voxel_view"] = coefficients;
  state.counters["flops_per_s"] =
    benchmark::Counter(2.0 * coefficients * voxelViews * state.iterations(), benchmark::Counter::kIsRate);
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

// The roofline's two ceilings. Ten independent chains of 16-float FMAs cover the FMA latency of two
// pipes; the clones give this CPU's widest vectors whatever the build's baseline.
using Vector16 = float __attribute__((vector_size(64)));
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif
float
fmaChains(long rounds)
{
  constexpr int kChains = 10;
  Vector16      chains[kChains];
  for (int j = 0; j < kChains; ++j)
    for (int l = 0; l < 16; ++l)
      chains[j][l] = static_cast<float>(j + l);
  const Vector16 a = chains[1] * 1e-3f, b = chains[2] * 1e-3f;
  for (long i = 0; i < rounds; ++i)
  {
#pragma GCC unroll 10
    for (int j = 0; j < kChains; ++j)
      chains[j] = chains[j] * a + b;
  }
  float sum = 0.0f;
  for (int j = 0; j < kChains; ++j)
    for (int l = 0; l < 16; ++l)
      sum += chains[j][l];
  return sum;
}

// Runs task(t, threads) on the CPU backend's thread count.
template<typename Task>
void
onEveryThread(Task task)
{
  const int                threads = makeCpuBackend()->threadCount();
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back(task, t, threads);
  for (auto & thread : pool)
    thread.join();
}

void
peakFlops(benchmark::State & state)
{
  constexpr long kRounds = 1 << 22;
  float          sink = 0.0f;
  for (auto _ : state)
  {
    onEveryThread([&sink](int, int) { benchmark::DoNotOptimize(sink += fmaChains(kRounds)); });
  }
  const double perThread = 2.0 * 10 * 16 * double(kRounds);
  state.counters["threads"] = makeCpuBackend()->threadCount();
  state.counters["flops_per_s"] =
    benchmark::Counter(perThread * state.counters["threads"] * state.iterations(), benchmark::Counter::kIsRate);
}

// a = b + s c over 3 x 128 MiB, each thread its own range (first touched by it): 12 bytes per element.
void
streamTriad(benchmark::State & state)
{
  constexpr std::size_t    n = std::size_t(32) << 20;
  std::unique_ptr<float[]> a(new float[n]), b(new float[n]), c(new float[n]);
  auto                     triad = [&](float s, bool initialise) {
    onEveryThread([&](int t, int threads) {
      const std::size_t first = n * t / threads, last = n * (t + 1) / threads;
      for (std::size_t i = first; i < last; ++i)
      {
        if (initialise)
          b[i] = 1.0f, c[i] = 2.0f;
        a[i] = b[i] + s * c[i];
      }
    });
  };
  triad(0.5f, true);
  for (auto _ : state)
  {
    triad(3.0f, false);
    benchmark::DoNotOptimize(a[n / 2]);
  }
  state.counters["bytes_per_s"] = benchmark::Counter(12.0 * n * state.iterations(), benchmark::Counter::kIsRate);
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
      for (const int subsets : { 1, 16, 128 })
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
  benchmark::RegisterBenchmark("machine/PeakFlops", peakFlops)->Unit(benchmark::kMillisecond)->UseRealTime();
  benchmark::RegisterBenchmark("machine/StreamTriad", streamTriad)->Unit(benchmark::kMillisecond)->UseRealTime();
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
