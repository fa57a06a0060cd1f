// The whole engine on GPUs: the backend's vector, cylinder, prior and VCD operations against the CPU's;
// MBIR, proximal map, direct recon and the denoiser of every geometry against the CPU engine; several
// shards of one GPU (and every GPU present) against one shard; the GPU communicators; the memory plan on
// a GPU (refusals, failed allocations, no leaks); the automatic device choice. Each test skips, saying
// why, where there is no GPU.

#include "CommunicatorContract.h"
#include "MBIRTestSupport.h"
#include "SpecGeometries.h"
#include "mbir/Config.h"
#include "mbir/Denoiser.h"
#include "mbir/DirectRecon.h"
#include "mbir/MemoryPlan.h"
#include "mbir/Metrics.h"
#include "mbir/Phantom.h"
#include "mbir/Reconstructor.h"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <string>

using namespace mbir;

namespace {

#define MBIR_REQUIRE_GPUS(n)                                                                                           \
  if (cudaDeviceCount() < (n))                                                                                         \
  {                                                                                                                    \
    GTEST_SKIP() << "needs " << (n) << " GPU(s), this machine has " << cudaDeviceCount()                               \
                 << (cudaDeviceCount() ? "" : " (" + cudaUnavailableReason() + ")");                                   \
  }

// n logical shards of GPU 0, joined by device copies.
std::shared_ptr<const DeviceGroup>
shardsOfGpu0(int n)
{
  std::vector<std::shared_ptr<Backend>> devices;
  for (int d = 0; d < n; ++d)
  {
    devices.push_back(makeCudaBackend(0));
  }
  return std::make_shared<const DeviceGroup>(devices, CommunicatorKind::Peer);
}

std::shared_ptr<const DeviceGroup>
everyGpu()
{
  std::vector<std::shared_ptr<Backend>> devices;
  for (int d = 0; d < cudaDeviceCount(); ++d)
  {
    devices.push_back(makeCudaBackend(d));
  }
  return std::make_shared<const DeviceGroup>(devices);
}

DenoiseParams
quickDenoise()
{
  DenoiseParams params;
  params.verbose = 0;
  params.maxIterations = 3;
  return params;
}

template<typename T>
DeviceArray<T>
up(Backend & backend, const std::vector<T> & host)
{
  return backend.upload(host.data(), host.size());
}

std::vector<float>
down(Backend & backend, const DeviceArray<float> & device)
{
  std::vector<float> host(device.size());
  backend.copyToHost(device.data(), host.data(), host.size() * sizeof(float));
  return host;
}

// Each test runs the same operations on the CPU and on GPU 0 from the same host inputs.
class GpuOperations : public ::testing::Test
{
protected:
  void
  SetUp() override
  {
    MBIR_REQUIRE_GPUS(1);
    gpu = makeCudaBackend(0);
  }
  std::shared_ptr<Backend> cpu = makeCpuBackend();
  std::shared_ptr<Backend> gpu;
};

// One kind of test, parameterised by geometry, for the whole engine.
class GpuEngine : public ::testing::TestWithParam<test::NamedGeometry>
{
protected:
  void
  SetUp() override
  {
    MBIR_REQUIRE_GPUS(1);
  }
};

} // namespace

TEST_F(GpuOperations, VectorOperationsMatchCpu)
{
  const std::size_t        n = 100003; // not a multiple of any block size
  const std::vector<float> a = test::uniformRandom(n, 1, -1.0f, 1.0f);
  const std::vector<float> b = test::uniformRandom(n, 2, -1.0f, 1.0f);
  const std::vector<float> w = test::uniformRandom(n, 3, 0.0f, 2.0f);
  auto                     run = [&](Backend & backend) {
    DeviceArray<float> x = up(backend, a), y = up(backend, b);
    backend.axpby(0.7f, x.data(), -1.3f, y.data(), n);
    std::vector<float> result = down(backend, y);
    backend.copy(x.data(), y.data(), n);
    const std::vector<float> copied = down(backend, y);
    EXPECT_EQ(copied, a) << backend.description();
    backend.fill(2.5f, y.data(), n);
    EXPECT_EQ(down(backend, y), std::vector<float>(n, 2.5f)) << backend.description();
    return result;
  };
  EXPECT_LT(test::relativeError(run(*gpu), run(*cpu)), 1e-6);

  auto sums = [&](Backend & backend) {
    const DeviceArray<float>        x = up(backend, a), y = up(backend, b), weights = up(backend, w);
    const Backend::WeightedProducts weighted = backend.weightedProducts(x.data(), y.data(), weights.data(), n);
    const Backend::WeightedProducts plain = backend.weightedProducts(x.data(), y.data(), nullptr, n);
    return std::vector<double>{ backend.sumAbs(x.data(), n), weighted.ab, weighted.bb, plain.ab, plain.bb };
  };
  const std::vector<double> gpuSums = sums(*gpu), cpuSums = sums(*cpu);
  for (std::size_t i = 0; i < gpuSums.size(); ++i)
  {
    EXPECT_NEAR(gpuSums[i], cpuSums[i], 1e-6 * std::abs(cpuSums[i]) + 1e-6) << "sum " << i;
  }
}

TEST_F(GpuOperations, CylinderOperationsMatchCpu)
{
  const int                numPixels = 300, slices = 19;
  const std::vector<float> volume = test::uniformRandom(std::size_t(numPixels) * slices, 4);
  // Pixels in shuffled order, one of them three times (equal-size VCD subsets repeat pixels).
  std::vector<int> pixels(numPixels / 2);
  for (std::size_t i = 0; i < pixels.size(); ++i)
  {
    pixels[i] = int((i * 97) % numPixels);
  }
  pixels[10] = pixels[40] = pixels[3];
  const std::vector<float> values = test::uniformRandom(pixels.size() * slices, 5, -1.0f, 1.0f);

  auto run = [&](Backend & backend) {
    const DeviceArray<int> devicePixels = up(backend, pixels);
    const CylinderBatch    batch{ devicePixels.data(), int(pixels.size()), slices };
    DeviceArray<float>     x = up(backend, volume);
    DeviceArray<float>     gathered = backend.allocate<float>(pixels.size() * slices);
    DeviceArray<float>     slice = backend.allocate<float>(pixels.size());
    backend.gatherCylinders(x.data(), batch, gathered.data());
    backend.gatherSlice(x.data(), batch, 7, slice.data());
    const DeviceArray<float> step = up(backend, values);
    const double             l1 = backend.scatterAddCylinders(-0.3f, step.data(), batch, x.data());
    const std::vector<float> added = down(backend, x);
    backend.fillSlices(0.25f, x.data(), numPixels, slices, 4, 11);
    struct Results
    {
      std::vector<float> gathered, slice, added, filled;
      double             l1;
    };
    return Results{ down(backend, gathered), down(backend, slice), added, down(backend, x), l1 };
  };
  const auto onGpu = run(*gpu), onCpu = run(*cpu);
  EXPECT_EQ(onGpu.gathered, onCpu.gathered);
  EXPECT_EQ(onGpu.slice, onCpu.slice);
  // A pixel added three times sums in another order on the GPU (atomics): `added` agrees to rounding, and
  // fillSlices writes exactly the value into slices [4, 11) and leaves every other value as it was.
  EXPECT_LT(test::relativeError(onGpu.added, onCpu.added), 1e-6);
  for (const auto * r : { &onGpu, &onCpu })
  {
    for (std::size_t i = 0; i < r->filled.size(); ++i)
    {
      const int s = int(i % slices);
      ASSERT_EQ(r->filled[i], s >= 4 && s < 11 ? 0.25f : r->added[i]) << "value " << i << ", slice " << s;
    }
  }
  EXPECT_NEAR(onGpu.l1, onCpu.l1, 1e-5 * onCpu.l1);
}

TEST_F(GpuOperations, PriorAndDirectionMatchCpu)
{
  const ReconShape      shape{ 9, 11, 7 }; // a shard of 7 local slices
  kernels::QGGMRFParams prior{ 0.3f, 2.0f, 1.2f, 1.0f, {} };
  kernels::neighbourWeights(1.0f, 1.0f, 0.5f, prior.b);
  const std::vector<float> volume = test::uniformRandom(shape.size(), 6, 0.0f, 1.0f);
  const std::vector<float> below = test::uniformRandom(shape.numPixels(), 7, 0.0f, 1.0f);
  const std::vector<float> above = test::uniformRandom(shape.numPixels(), 8, 0.0f, 1.0f);
  std::vector<int>         pixels(shape.numPixels());
  std::iota(pixels.begin(), pixels.end(), 0);
  std::reverse(pixels.begin(), pixels.end());

  // In the middle of a volume (halos on both sides), at the end with 3 padding slices, and alone.
  const kernels::SliceShard shards[] = { { 7, 30 }, { 14, 18 }, { 0, 7 } };
  for (const kernels::SliceShard & shard : shards)
  {
    SCOPED_TRACE("shard at " + std::to_string(shard.first) + " of " + std::to_string(shard.total));
    const bool hasBelow = shard.first > 0, hasAbove = shard.first + shape.slices < shard.total;
    auto       run = [&](Backend & backend) {
      const DeviceArray<int>   devicePixels = up(backend, pixels);
      const CylinderBatch      batch{ devicePixels.data(), int(pixels.size()), shape.slices, shard.first };
      const DeviceArray<float> x = up(backend, volume), lower = up(backend, below), upper = up(backend, above);
      DeviceArray<float>       gradient = backend.allocate<float>(shape.size()),
                         hessian = backend.allocate<float>(shape.size());
      backend.qggmrfGradientHessian(prior,
                                    x.data(),
                                    shape,
                                    shard,
                                    batch,
                                    hasBelow ? lower.data() : nullptr,
                                    hasAbove ? upper.data() : nullptr,
                                    gradient.data(),
                                    hessian.data());
      const double cost = backend.qggmrfCost(prior, x.data(), shape, shard, hasAbove ? upper.data() : nullptr);
      return std::make_tuple(down(backend, gradient), down(backend, hessian), cost);
    };
    const auto [gGpu, hGpu, costGpu] = run(*gpu);
    const auto [gCpu, hCpu, costCpu] = run(*cpu);
    EXPECT_LT(test::relativeError(gGpu, gCpu), 1e-5);
    EXPECT_LT(test::relativeError(hGpu, hCpu), 1e-5);
    EXPECT_NEAR(costGpu, costCpu, 1e-5 * costCpu);
  }

  // The denoiser's noise statistic, with the plane before the shard given and wrapping within it.
  const std::vector<float> image = test::uniformRandom(shape.size(), 14, -0.2f, 1.0f);
  for (const bool withPlane : { true, false })
  {
    auto run = [&](Backend & backend) {
      const DeviceArray<float> x = up(backend, image), plane = up(backend, below);
      return backend.localDeviationSums(x.data(), shape, 5, withPlane ? plane.data() : nullptr, 0.3);
    };
    const Backend::WeightedProducts onGpu = run(*gpu), onCpu = run(*cpu);
    EXPECT_NEAR(onGpu.ab, onCpu.ab, 1e-12 * onCpu.ab) << (withPlane ? "with" : "without") << " the plane";
    EXPECT_EQ(onGpu.bb, onCpu.bb);
    EXPECT_GT(onCpu.bb, 0.0);
  }

  const std::size_t        n = 5001;
  const std::vector<float> back = test::uniformRandom(n, 9, -1.0f, 1.0f);
  const std::vector<float> dataHessian = test::uniformRandom(n, 10, 0.5f, 2.0f);
  const std::vector<float> priorGradient = test::uniformRandom(n, 11, -0.2f, 0.2f);
  const std::vector<float> priorHessian = test::uniformRandom(n, 12, 0.1f, 1.0f);
  const std::vector<float> x = test::uniformRandom(n, 13, 0.0f, 0.1f);
  for (const bool withDataHessian : { true, false })
  {
    SCOPED_TRACE(withDataHessian ? "data Hessian" : "unit data Hessian");
    auto run = [&](Backend & backend) {
      const DeviceArray<float> bp = up(backend, back), dh = up(backend, dataHessian), pg = up(backend, priorGradient),
                               ph = up(backend, priorHessian), values = up(backend, x);
      DeviceArray<float>           delta = backend.allocate<float>(n);
      const Backend::DirectionSums sums = backend.vcdDirection(
        1.7f, bp.data(), withDataHessian ? dh.data() : nullptr, pg.data(), ph.data(), n, delta.data());
      const std::vector<float> direction = down(backend, delta);
      backend.clipForPositivity(values.data(), 0.8f, n, delta.data());
      return std::make_tuple(direction, down(backend, delta), sums.linear, sums.priorQuadratic);
    };
    const auto [dGpu, clippedGpu, linearGpu, quadraticGpu] = run(*gpu);
    const auto [dCpu, clippedCpu, linearCpu, quadraticCpu] = run(*cpu);
    EXPECT_LT(test::relativeError(dGpu, dCpu), 1e-6);
    EXPECT_LT(test::relativeError(clippedGpu, clippedCpu), 1e-6);
    EXPECT_NE(clippedCpu, dCpu) << "the clip had nothing to do";
    EXPECT_NEAR(linearGpu, linearCpu, 1e-5 * std::abs(linearCpu));
    EXPECT_NEAR(quadraticGpu, quadraticCpu, 1e-5 * quadraticCpu);
  }
}

TEST_P(GpuEngine, EveryOperationMatchesTheCpuEngine)
{
  const Geometry &         geometry = GetParam().geometry;
  const Projector          cpu(geometry, makeCpuBackend());
  const Projector          gpu(geometry, makeCudaBackend(0));
  const ReconShape &       r = cpu.reconShape();
  const std::vector<float> x = sheppLoganLowDynamicRange(r);
  const std::vector<float> y = cpu.forwardProject(x.data());
  EXPECT_LT(test::relativeError(gpu.forwardProject(x.data()), y), 1e-5);
  EXPECT_LT(test::relativeError(gpu.backProject(y.data()), cpu.backProject(y.data())), 1e-5);
  EXPECT_LT(test::relativeError(directRecon(gpu, y), directRecon(cpu, y)), 1e-5);

  const Reconstructor      onCpu(geometry, makeCpuBackend(), test::threeIterationParams(geometry));
  const Reconstructor      onGpu(geometry, makeCudaBackend(0), test::threeIterationParams(geometry));
  const std::vector<float> w = test::uniformRandom(y.size(), 3, 0.5f, 1.5f);
  const ArrayView3         yView(y, cpu.sinogramShape()), wView(w, cpu.sinogramShape()), xView(x, r);
  EXPECT_LT(nrmse(onGpu.recon(yView, wView).recon, onCpu.recon(yView, wView).recon), 1e-4);
  const std::vector<float> blurred = directRecon(cpu, y);
  EXPECT_LT(
    nrmse(onGpu.proxMap(ArrayView3(blurred, r), yView).recon, onCpu.proxMap(ArrayView3(blurred, r), yView).recon),
    1e-4);
  EXPECT_LT(nrmse(qggmrfDenoise(xView, quickDenoise(), makeCudaBackend(0)).image,
                  qggmrfDenoise(xView, quickDenoise(), makeCpuBackend()).image),
            1e-4);
}

// The multi-device independence tests on GPUs: N shards of GPU 0 (device copies between them), and every
// GPU of the machine (NCCL where built with it), give what one GPU gives.
TEST_P(GpuEngine, ShardsGiveWhatOneGpuGives)
{
  const Geometry &         geometry = GetParam().geometry;
  const Projector          one(geometry, makeCudaBackend(0));
  const ReconShape &       r = one.reconShape();
  const std::vector<float> x = sheppLoganLowDynamicRange(r);
  const std::vector<float> y = one.forwardProject(x.data());
  const std::vector<float> back = one.backProject(y.data());
  const std::vector<float> direct = directRecon(one, y);
  const std::vector<float> mbir =
    Reconstructor(geometry, makeCudaBackend(0), test::threeIterationParams(geometry)).recon(y).recon;
  const std::vector<float> denoised = qggmrfDenoise(ArrayView3(x, r), quickDenoise(), makeCudaBackend(0)).image;

  std::vector<std::shared_ptr<const DeviceGroup>> groups;
  for (const int n : { 2, 3, 5, 8 })
  {
    groups.push_back(shardsOfGpu0(n));
  }
  if (cudaDeviceCount() > 1)
  {
    groups.push_back(everyGpu());
  }
  for (const auto & devices : groups)
  {
    SCOPED_TRACE(devices->summary() + " joined by " + communicatorName(devices->communicator().kind()));
    const Projector sharded(geometry, devices);
    EXPECT_LT(test::relativeError(sharded.forwardProject(x.data()), y), 1e-5);
    EXPECT_LT(test::relativeError(sharded.backProject(y.data()), back), 1e-5);
    EXPECT_LT(test::relativeError(directRecon(sharded, y), direct), 1e-5);
    EXPECT_LT(nrmse(Reconstructor(geometry, devices, test::threeIterationParams(geometry)).recon(y).recon, mbir), 1e-4);
    EXPECT_LT(nrmse(qggmrfDenoise(ArrayView3(x, r), quickDenoise(), devices).image, denoised), 1e-4);
    if (std::holds_alternative<ParallelBeamGeometry>(geometry))
    {
      // Split by detector row (every GPU's own choice for parallel beam; asked for on shards of one GPU).
      const test::ScopedEnvironment byRow("MBIR_SINOGRAM_SPLIT", std::string("row"));
      const Reconstructor           rows(geometry, devices, test::threeIterationParams(geometry));
      EXPECT_EQ(rows.projector().solverSplit(), SinogramSplit::ByRow);
      EXPECT_LT(nrmse(rows.recon(y).recon, mbir), 1e-4);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Geometries, GpuEngine, ::testing::ValuesIn(test::primeShardCases()), test::testName);

TEST(GpuCommunicators, PeerCopiesServeShardsOfOneGpu)
{
  MBIR_REQUIRE_GPUS(1);
  const auto group = shardsOfGpu0(3);
  EXPECT_EQ(group->communicator().kind(), CommunicatorKind::Peer);
  test::expectCollectivesWork(*group);
  // The default for shards of one GPU is the same (NCCL cannot put two ranks on one GPU).
  const DeviceGroup automatic({ makeCudaBackend(0), makeCudaBackend(0) });
  EXPECT_EQ(automatic.communicator().kind(), CommunicatorKind::Peer);
  EXPECT_THROW(DeviceGroup({ makeCudaBackend(0), makeCudaBackend(0) }, CommunicatorKind::Nccl), std::invalid_argument);
  EXPECT_THROW(DeviceGroup({ makeCudaBackend(0), makeCpuBackend() }, CommunicatorKind::Peer), std::invalid_argument);
}

TEST(GpuCommunicators, EveryGpuOfTheMachine)
{
  MBIR_REQUIRE_GPUS(2);
  std::vector<std::shared_ptr<Backend>> gpus = everyGpu()->devices();
  {
    SCOPED_TRACE("peer");
    test::expectCollectivesWork(DeviceGroup(gpus, CommunicatorKind::Peer));
  }
  if (!MBIR_USE_NCCL)
  {
    GTEST_SKIP() << "this build has no NCCL (configure with MBIR_USE_NCCL=ON and NCCL installed)";
  }
  SCOPED_TRACE("nccl");
  const DeviceGroup nccl(gpus);
  EXPECT_EQ(nccl.communicator().kind(), CommunicatorKind::Nccl);
  test::expectCollectivesWork(nccl);
}

TEST(GpuMemory, PlanBoundsWhatTheGpuAllocates)
{
  MBIR_REQUIRE_GPUS(1);
  for (const test::NamedGeometry & g : test::primeShardCases())
  {
    SCOPED_TRACE(g.name);
    const auto               gpu = makeCudaBackend(0);
    const Reconstructor      reconstructor(g.geometry, gpu, test::threeIterationParams(g.geometry));
    const std::vector<float> y(reconstructor.projector().sinogramShape().size(), 1.0f);
    const std::size_t        held = gpu->bytesInUse();
    reconstructor.recon(y);
    EXPECT_GE(reconstructor.memoryNeed().perDevice, gpu->peakBytes() - held);
    EXPECT_EQ(gpu->bytesInUse(), held);
  }
}

TEST(GpuMemory, ReconThatCannotFitIsRefusedBeforeAllocating)
{
  MBIR_REQUIRE_GPUS(1);
  const ParallelBeamGeometry geometry({ 29, 13, 40 }, test::evenAngles(29, M_PI));
  const auto                 gpu = makeCudaBackend(0);
  const Reconstructor        reconstructor(geometry, gpu, test::threeIterationParams(geometry));
  const std::vector<float>   y(geometry.sinogramShape.size(), 1.0f);
  const std::size_t          held = gpu->bytesInUse();
  gpu->setMemoryLimit(held + reconstructor.memoryNeed().perDevice / 2);
  try
  {
    reconstructor.recon(y);
    ADD_FAILURE() << "a recon needing twice the limit ran";
  }
  catch (const OutOfDeviceMemory & e)
  {
    const std::string message = e.what();
    for (const char * needle : { "MBIR of sinogram (29, 13, 40)", "GPU 0", "needs", "use more GPUs" })
    {
      EXPECT_NE(message.find(needle), std::string::npos) << needle << " not in: " << message;
    }
  }
  EXPECT_EQ(gpu->peakBytes(), held) << "memory was allocated before the refusal";
}

TEST(GpuMemory, ProblemLargerThanTheGpuIsRefused)
{
  MBIR_REQUIRE_GPUS(1);
  // A 256 GiB sinogram: more than any single GPU holds.
  const ParallelBeamGeometry geometry({ 4096, 4096, 4096 }, test::evenAngles(4096, M_PI));
  const auto                 group = std::make_shared<const DeviceGroup>(std::vector{ makeCudaBackend(0) });
  const Reconstructor        reconstructor(geometry, group, test::threeIterationParams(geometry));
  try
  {
    requireMemory(*group, reconstructor.memoryNeed(), "MBIR", [&](int n) { return reconstructor.memoryNeed({}, n); });
    ADD_FAILURE() << "no refusal";
  }
  catch (const OutOfDeviceMemory & e)
  {
    const std::string message = e.what();
    EXPECT_NE(message.find("MBIR on 1 x GPU"), std::string::npos) << message;
    EXPECT_NE(message.find("free"), std::string::npos) << message;
    EXPECT_NE(message.find("use more GPUs (on "), std::string::npos) << message;
  }
}

TEST(GpuMemory, FailedAllocationSaysWhatAndWhere)
{
  MBIR_REQUIRE_GPUS(1);
  const auto gpu = makeCudaBackend(0);
  try
  {
    gpu->allocate<float>(std::size_t(1) << 42); // 16 TiB
    ADD_FAILURE() << "a 16 TiB allocation succeeded";
  }
  catch (const OutOfDeviceMemory & e)
  {
    EXPECT_NE(std::string(e.what()).find("out of memory on GPU 0"), std::string::npos) << e.what();
  }
  EXPECT_EQ(gpu->bytesInUse(), 0u);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "the failure left a CUDA error behind";
  EXPECT_NO_THROW(gpu->allocate<float>(1000));
}

// Freed buffers stay in the GPU's pool for the next allocation, and count as free: a plan made after a
// recon sees the memory the recon gave back.
TEST(GpuMemory, PooledMemoryCountsAsFree)
{
  MBIR_REQUIRE_GPUS(1);
  const auto        gpu = makeCudaBackend(0);
  const std::size_t bytes = std::size_t(256) << 20, free = gpu->freeBytes();
  {
    const DeviceArray<float> a = gpu->allocate<float>(bytes / sizeof(float));
    EXPECT_LE(gpu->freeBytes(), free - bytes);
  }
  gpu->synchronize();
  EXPECT_EQ(gpu->freeBytes(), free);
}

TEST(GpuMemory, TwentyReconsLeaveTheFreeMemoryAsItWas)
{
  MBIR_REQUIRE_GPUS(1);
  const ConeBeamGeometry   geometry({ 36, 16, 32 }, test::evenAngles(36, 2 * M_PI), 128.0f, 64.0f);
  const auto               gpu = makeCudaBackend(0);
  const Reconstructor      reconstructor(geometry, gpu, test::threeIterationParams(geometry));
  const std::vector<float> y = reconstructor.forwardProject(sheppLoganLowDynamicRange(geometry.reconShape));
  reconstructor.recon(y); // plans and caches of the first call stay for the later ones
  const std::size_t held = gpu->bytesInUse(), free = gpu->freeBytes();
  for (int i = 0; i < 20; ++i)
  {
    reconstructor.recon(y);
  }
  EXPECT_EQ(gpu->bytesInUse(), held);
  EXPECT_EQ(gpu->freeBytes(), free) << formatBytes(free) << " free before, " << formatBytes(gpu->freeBytes())
                                    << " after";
}

TEST(GpuDevices, AutomaticChoiceTakesEveryGpu)
{
  MBIR_REQUIRE_GPUS(1);
  const int                                   n = cudaDeviceCount();
  const std::vector<std::shared_ptr<Backend>> all = availableDevices();
  ASSERT_EQ(int(all.size()), n);
  for (const auto & device : all)
  {
    EXPECT_EQ(device->kind(), Backend::Kind::Gpu);
  }
  EXPECT_EQ(DeviceSelection().fallbackNote(), "");
  const ParallelBeamGeometry geometry({ 64, 32, 48 }, test::evenAngles(64, M_PI));
  const Reconstructor        reconstructor(geometry, DeviceSelection(), test::threeIterationParams(geometry));
  EXPECT_EQ(reconstructor.deviceSummary(), n == 1 ? "1 x GPU" : std::to_string(n) + " x GPU (sharded)");
  EXPECT_EQ(availableDevices(UseGpu::None).front()->kind(), Backend::Kind::Cpu);

  // The result stays on the GPUs, one shard on each, at device addresses.
  const std::vector<float> ones(geometry.sinogramShape.size(), 0.1f);
  const DeviceSinogram     y =
    DeviceSinogram::upload(reconstructor.projector().groupPointer(), ArrayView3(ones, geometry.sinogramShape));
  const DeviceReconResult result = reconstructor.recon(y);
  ASSERT_EQ(result.recon.group().size(), n);
  for (int d = 0; d < n; ++d)
  {
    cudaPointerAttributes attributes{};
    ASSERT_EQ(cudaPointerGetAttributes(&attributes, result.recon.shard(d)), cudaSuccess);
    EXPECT_EQ(attributes.type, cudaMemoryTypeDevice) << "shard " << d;
    EXPECT_EQ(attributes.device, all[d]->memoryPool()) << "shard " << d;
  }
}
