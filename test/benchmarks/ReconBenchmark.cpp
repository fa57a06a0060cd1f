// MBIR: seconds per VCD iteration and for the whole default recon, with peak memory; and the first VCD
// iterations over 1, 2, 4 devices (the cost of sharding: CPU devices share the same cores, GPUs do not).
// GPU benchmarks are registered only where a GPU is present.
//   build/bin/mbir-benchmark-recon [--benchmark_filter=Cpu/128]   [--benchmark_filter=devices]
// (GPU: recon/Gpu/256 and /512; devices/Gpu/1024/1 is the 1024-class seconds per VCD iteration.)
// The device benchmarks count the bytes each device sends per iteration (bytes_per_iteration: the collectives as a
// ring moves them, (N-1)/N of a reduce-scatter's or all-gather's data, plus halos and broadcasts); GPUs split this
// parallel-beam problem's sinograms by detector row, which MBIR_SINOGRAM_SPLIT=row asks of CPU devices. Under MPI,
// `mpirun -np N mbir-benchmark-recon --benchmark_filter=ranks` runs ranks/Cpu/S/N: one device per rank.
// checkpoint/Cpu/N: the size and write time of a recon checkpoint, and a recon's time with one every iteration.
// prior/Cpu/N/S: the qGGMRF gradient and Hessian diagonal of a VCD subset (a random 1/S of the cylinders) in voxels
// per second, p = 2 and p = 1.2 (the default and a sharper prior).
// Problem: parallel beam, N views x N rows x N channels (recon N x N x N), Shepp-Logan phantom.

#include "CountingCommunicator.h"
#include "mbir/Checkpoint.h"
#include "mbir/kernels/QGGMRF.h"
#include "mbir/Phantom.h"
#include "mbir/ProcessGroup.h"
#include "mbir/Reconstructor.h"

#include <benchmark/benchmark.h>

#include <sys/resource.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <cmath>
#include <numeric>
#include <random>
#include <string>

using namespace mbir;

namespace {

using MakeDevice = std::shared_ptr<Backend> (*)(int index);

std::shared_ptr<Backend>
cpu(int)
{
  return makeCpuBackend();
}

std::shared_ptr<Backend>
gpu(int index)
{
  return makeCudaBackend(index);
}

ParallelBeamGeometry
scan(int n)
{
  std::vector<float> angles(n);
  for (int v = 0; v < n; ++v)
    angles[v] = static_cast<float>(M_PI * v / n);
  return ParallelBeamGeometry(SinogramShape{ n, n, n }, angles);
}

// The devices joined by their usual communicator, counting the bytes one device sends.
std::shared_ptr<const DeviceGroup>
countingGroup(const std::vector<std::shared_ptr<Backend>> & devices)
{
  return std::make_shared<const DeviceGroup>(devices, [](std::vector<Backend *> raw) {
    const int n = static_cast<int>(raw.size());
    return std::make_unique<test::CountingCommunicator>(makeCommunicator(std::move(raw)), n);
  });
}

double &
bytesSent(const DeviceGroup & group)
{
  return dynamic_cast<test::CountingCommunicator &>(group.communicator()).bytes;
}

// Runs the recon once per benchmark iteration; seconds per VCD iteration, the largest peak bytes of one
// device, and the device summary as label.
void
run(benchmark::State &                            state,
    const Reconstructor &                         reconstructor,
    const std::vector<std::shared_ptr<Backend>> & group,
    const double *                                bytes = nullptr)
{
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
  for (const auto & device : group)
    peak = std::max(peak, device->peakBytes());
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  state.counters["iterations"] = iterations / state.iterations();
  state.counters["seconds_per_iteration"] = iterationSeconds / iterations;
  state.counters["device_peak_MiB"] = double(peak) / (1 << 20);
  state.counters["process_peak_RSS_MiB"] = double(usage.ru_maxrss) / 1024.0;
  if (bytes)
  {
    state.counters["bytes_per_iteration"] = *bytes / iterations;
  }
  state.SetLabel(reconstructor.deviceSummary());
}

// The whole default recon on one device.
void
recon(benchmark::State & state, MakeDevice make)
{
  const auto  device = make(0);
  ReconParams params;
  params.verbose = 0;
  const Reconstructor reconstructor(scan(static_cast<int>(state.range(0))), device, params);
  run(state, reconstructor, { device });
}

// The first three VCD iterations (1, 4 and 16 subsets) over range(1) devices.
void
devices(benchmark::State & state, MakeDevice make)
{
  std::vector<std::shared_ptr<Backend>> group;
  for (int d = 0; d < state.range(1); ++d)
    group.push_back(make(d));
  ReconParams params;
  params.verbose = 0;
  params.maxIterations = 3;
  const auto          joined = countingGroup(group);
  const Reconstructor reconstructor(scan(static_cast<int>(state.range(0))), joined, params);
  bytesSent(*joined) = 0.0; // what the recon sends, not the set-up
  run(state, reconstructor, group, &bytesSent(*joined));
}

// The same over the MPI ranks (one device each), under mpirun.
void
ranks(benchmark::State & state)
{
  const std::vector<std::shared_ptr<Backend>> group = availableDevices(UseGpu::None);
  ReconParams                                 params;
  params.verbose = 0;
  params.maxIterations = 3;
  const auto          joined = countingGroup(group);
  const Reconstructor reconstructor(scan(static_cast<int>(state.range(0))), joined, params);
  bytesSent(*joined) = 0.0;
  run(state, reconstructor, group, &bytesSent(*joined));
}

// Checkpoints (a checkpoint every iteration of four): the bytes and seconds of one, and the recon's time with them
// against the same recon without, measured in the same run. They go to TMPDIR (a disk, not tmpfs, for fsync's
// cost).
void
checkpoints(benchmark::State & state)
{
  const auto  device = makeCpuBackend();
  ReconParams params;
  params.verbose = 0;
  params.maxIterations = 4;
  params.stopThresholdChangePct = 0.0f;
  const Reconstructor plain(scan(static_cast<int>(state.range(0))), device, params);
  const std::string   file =
    (std::filesystem::temp_directory_path() / ("mbir-benchmark-" + std::to_string(::getpid()) + ".mbirckpt")).string();
  params.checkpointFile = file;
  const Reconstructor      saving(scan(static_cast<int>(state.range(0))), device, params);
  const std::vector<float> sino = plain.forwardProject(sheppLoganLowDynamicRange(plain.projector().reconShape()));
  using Clock = std::chrono::steady_clock;
  double plainSeconds = 0.0, savingSeconds = 0.0, checkpointSeconds = 0.0;
  for (auto _ : state)
  {
    auto start = Clock::now();
    plain.recon(sino);
    plainSeconds += std::chrono::duration<double>(Clock::now() - start).count();
    start = Clock::now();
    saving.recon(sino);
    savingSeconds += std::chrono::duration<double>(Clock::now() - start).count();
    // One more checkpoint of the same state, timed alone.
    const ReconCheckpoint saved = readCheckpoint(file);
    start = Clock::now();
    writeCheckpoint(file, saved);
    checkpointSeconds += std::chrono::duration<double>(Clock::now() - start).count();
  }
  state.counters["checkpoint_MiB"] = double(std::filesystem::file_size(file)) / (1 << 20);
  state.counters["seconds_per_checkpoint_write"] = checkpointSeconds / state.iterations();
  state.counters["recon_time_ratio_with_checkpoints"] = savingSeconds / plainSeconds;
  state.counters["checkpoints_per_recon"] = params.maxIterations - 1; // none after the last iteration
  std::filesystem::remove(file);
}

// The prior's share of each subset: a Shepp-Logan volume with noise (so that the neighbour differences spread over
// the prior's range), range(1) subsets, range(2) / 10 as p.
void
prior(benchmark::State & state)
{
  const int                       n = static_cast<int>(state.range(0)), subsets = static_cast<int>(state.range(1));
  const ReconShape                shape{ n, n, n };
  std::vector<float>              volume = sheppLoganLowDynamicRange(shape);
  std::mt19937                    engine(1);
  std::normal_distribution<float> noise(0.0f, 0.02f);
  for (float & v : volume)
    v += noise(engine);
  std::vector<int> pixels(shape.numPixels());
  std::iota(pixels.begin(), pixels.end(), 0);
  std::shuffle(pixels.begin(), pixels.end(), engine);
  pixels.resize(pixels.size() / subsets);
  kernels::QGGMRFParams p{ 0.05f, static_cast<float>(state.range(2)) / 10.0f, 1.2f, 1.0f, {} };
  kernels::neighbourWeights(1.0f, 1.0f, 1.0f, p.b);
  const auto         device = makeCpuBackend();
  const std::size_t  values = pixels.size() * static_cast<std::size_t>(n);
  std::vector<float> gradient(values), hessian(values);
  for (auto _ : state)
  {
    device->qggmrfGradientHessian(p,
                                  volume.data(),
                                  shape,
                                  kernels::SliceShard{ 0, n },
                                  CylinderBatch{ pixels.data(), static_cast<int>(pixels.size()), n },
                                  nullptr,
                                  nullptr,
                                  gradient.data(),
                                  hessian.data());
    benchmark::DoNotOptimize(hessian.data());
  }
  state.counters["voxels_per_second"] =
    benchmark::Counter(double(values), benchmark::Counter::kIsIterationInvariantRate);
}

// The whole recon at `reconSizes`, the first VCD iterations on 1, 2, 4, ... maxDevices at `iterationSizes`.
void
registerAll(const std::string &        kind,
            MakeDevice                 make,
            std::initializer_list<int> reconSizes,
            std::initializer_list<int> iterationSizes,
            int                        maxDevices)
{
  for (const int n : reconSizes)
  {
    benchmark::RegisterBenchmark(("recon/" + kind).c_str(), recon, make)
      ->Arg(n)
      ->Iterations(1)
      ->Unit(benchmark::kSecond)
      ->UseRealTime();
  }
  for (const int n : iterationSizes)
  {
    for (int count = 1; count <= maxDevices; count *= 2)
    {
      benchmark::RegisterBenchmark(("devices/" + kind).c_str(), devices, make)
        ->Args({ n, count })
        ->Iterations(1)
        ->Unit(benchmark::kSecond)
        ->UseRealTime();
    }
  }
}

} // namespace

int
main(int argc, char ** argv)
{
  registerAll("Cpu", cpu, { 64, 128, 256 }, { 128, 256 }, 4);
  benchmark::RegisterBenchmark("checkpoint/Cpu", checkpoints)
    ->Arg(128)
    ->Arg(256)
    ->Iterations(1)
    ->Unit(benchmark::kSecond);
  for (const int p : { 20, 12 })
  {
    benchmark::RegisterBenchmark("prior/Cpu", prior)
      ->Args({ 128, 128, p })
      ->Args({ 256, 256, p })
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
  }
  const ProcessGroup & world = processGroup();
  for (const int n : { 128, 256 })
  {
    benchmark::RegisterBenchmark("ranks/Cpu", ranks)
      ->Args({ n, world.size })
      ->Iterations(1)
      ->Unit(benchmark::kSecond)
      ->UseRealTime();
  }
  static std::ofstream quiet; // under MPI rank 0 reports
  if (world.rank != 0)
  {
    std::cout.rdbuf(quiet.rdbuf());
  }
  if (const int gpus = cudaDeviceCount(); gpus > 0)
  {
    registerAll("Gpu", gpu, { 256, 512 }, { 256, 512, 1024 }, gpus);
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
