// One reconstruction across N devices (CPU devices and the host communicator): results independent of N
// for every geometry and operation, padding inert even when poisoned, memory per device ~1/N, the device
// policy, a prepared sinogram scattered once, and the host communicator's collectives.

#include "CommunicatorContract.h"
#include "FaultInjection.h"
#include "MBIRTestSupport.h"
#include "SpecGeometries.h"
#include "mbir/Denoiser.h"
#include "mbir/DirectRecon.h"
#include "mbir/Metrics.h"
#include "mbir/Phantom.h"
#include "mbir/Reconstructor.h"
#include "mbir/Regularization.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdlib>

using namespace mbir;
using mbir::test::cpuDevices;
using mbir::test::expectInvalid;
using mbir::test::ScopedEnvironment;

namespace {

class DeviceCount : public ::testing::TestWithParam<test::NamedGeometry>
{};

} // namespace

TEST_P(DeviceCount, EveryOperationIsIndependentOfTheNumberOfDevices)
{
  const Geometry &         geometry = GetParam().geometry;
  const Projector          one(geometry, makeCpuBackend());
  const ReconShape &       r = one.reconShape();
  const std::vector<float> x = sheppLoganLowDynamicRange(r);
  const std::vector<float> y = one.forwardProject(x.data());
  const std::vector<float> back = one.backProject(y.data());
  const std::vector<float> direct = directRecon(one, y);
  const Reconstructor      reference(geometry, makeCpuBackend(), test::threeIterationParams(geometry));
  const std::vector<float> mbir = reference.recon(y).recon;
  DenoiseParams            denoise;
  denoise.verbose = 0;
  denoise.maxIterations = 3;
  const std::vector<float> denoised = qggmrfDenoise(ArrayView3(x, r), denoise, makeCpuBackend()).image;

  for (int n = 2; n <= 8; ++n)
  {
    SCOPED_TRACE("N = " + std::to_string(n));
    const auto      devices = cpuDevices(n);
    const Projector sharded(geometry, devices);
    EXPECT_LT(test::relativeError(sharded.forwardProject(x.data()), y), 1e-5);
    EXPECT_LT(test::relativeError(sharded.backProject(y.data()), back), 1e-5);
    EXPECT_LT(test::relativeError(directRecon(sharded, y), direct), 1e-5);
    const Reconstructor reconstructor(geometry, devices, test::threeIterationParams(geometry));
    EXPECT_LT(nrmse(reconstructor.recon(y).recon, mbir), 1e-4);
    EXPECT_LT(nrmse(qggmrfDenoise(ArrayView3(x, r), denoise, devices).image, denoised), 1e-4);
  }
}

// Padding filled with NaN before each operation leaves the results alone, and padded outputs are 0.
TEST_P(DeviceCount, PoisonedPaddingIsInert)
{
  const Geometry &         geometry = GetParam().geometry;
  const int                n = 4; // 13 views -> 16, 11 slices -> 12
  const auto               devices = cpuDevices(n);
  const Projector          projector(geometry, devices);
  const Projector          one(geometry, makeCpuBackend());
  const ReconShape &       r = projector.reconShape();
  const SinogramShape &    s = projector.sinogramShape();
  const std::vector<float> x = sheppLoganLowDynamicRange(r);
  const std::vector<float> y = one.forwardProject(x.data());

  auto poisonViews = [&](DeviceSinogram & sino) {
    const std::size_t viewSize = std::size_t(s.rows) * s.channels;
    for (int d = 0; d < n; ++d)
      std::fill(
        sino.shard(d) + sino.views().valid(d) * viewSize, sino.shard(d) + sino.views().perDevice * viewSize, NAN);
  };
  auto poisonSlices = [&](DeviceVolume & volume) {
    const int per = volume.slices().perDevice;
    for (int d = 0; d < n; ++d)
      for (std::size_t p = 0; p < r.numPixels(); ++p)
        std::fill(volume.shard(d) + p * per + volume.slices().valid(d), volume.shard(d) + (p + 1) * per, NAN);
  };
  auto expectZeroViews = [&](const DeviceSinogram & sino) {
    const std::size_t viewSize = std::size_t(s.rows) * s.channels;
    for (int d = 0; d < n; ++d)
      for (std::size_t i = sino.views().valid(d) * viewSize; i < sino.views().perDevice * viewSize; ++i)
        ASSERT_EQ(sino.shard(d)[i], 0.0f) << "device " << d;
  };
  auto expectZeroSlices = [&](const DeviceVolume & volume) {
    const int per = volume.slices().perDevice;
    for (int d = 0; d < n; ++d)
      for (std::size_t p = 0; p < r.numPixels(); ++p)
        for (int k = volume.slices().valid(d); k < per; ++k)
          ASSERT_EQ(volume.shard(d)[p * per + k], 0.0f) << "device " << d;
  };

  DeviceVolume volume = DeviceVolume::upload(devices, ArrayView3(x, r));
  poisonSlices(volume);
  const DeviceSinogram projected = projector.forwardProject(volume);
  expectZeroViews(projected);
  EXPECT_LT(test::relativeError(projected.download(), y), 1e-5);

  DeviceSinogram sino = DeviceSinogram::upload(devices, ArrayView3(y, s));
  poisonViews(sino);
  const DeviceVolume back = projector.backProject(sino);
  expectZeroSlices(back);
  EXPECT_LT(test::relativeError(back.download(), one.backProject(y.data())), 1e-5);
  const DeviceVolume direct = directRecon(projector, sino);
  expectZeroSlices(direct);
  EXPECT_LT(test::relativeError(direct.download(), directRecon(one, y)), 1e-5);

  const Reconstructor reconstructor(geometry, devices, test::threeIterationParams(geometry));
  const DeviceVolume  init = [&] {
    DeviceVolume v = DeviceVolume::upload(devices, ArrayView3(x, r));
    poisonSlices(v);
    return v;
  }();
  const DeviceReconResult result = reconstructor.recon(sino, nullptr, InitialImage::fromVolume(init));
  expectZeroSlices(result.recon);
  const Reconstructor reference(geometry, makeCpuBackend(), test::threeIterationParams(geometry));
  EXPECT_LT(nrmse(result.recon.download(),
                  reference.recon(ArrayView3(y, s), {}, InitialImage::fromVolume(ArrayView3(x, r))).recon),
            1e-4);

  DenoiseParams denoise;
  denoise.verbose = 0;
  denoise.maxIterations = 2;
  denoise.sigmaNoise = 0.05f;
  const DeviceDenoiseResult denoised = qggmrfDenoise(volume, denoise);
  expectZeroSlices(denoised.image);
  EXPECT_LT(nrmse(denoised.image.download(), qggmrfDenoise(ArrayView3(x, r), denoise, makeCpuBackend()).image), 1e-4);
}

TEST_P(DeviceCount, AdjointHoldsAtEveryDeviceCount)
{
  for (const int n : { 1, 3, 8 })
  {
    const Projector          projector(GetParam().geometry, cpuDevices(n));
    const std::vector<float> x = test::uniformRandom(projector.reconShape().size(), 1);
    const std::vector<float> y = test::uniformRandom(projector.sinogramShape().size(), 2);
    std::vector<int>         pixels(projector.reconShape().numPixels());
    std::iota(pixels.begin(), pixels.end(), 0);
    const double ax_y = test::dot(projector.sparseForwardProject(x.data(), pixels), y);
    const double x_aty = test::dot(x, projector.sparseBackProject(y.data(), pixels));
    EXPECT_NEAR(ax_y, x_aty, 1e-4 * std::abs(ax_y)) << "N = " << n;
  }
}

INSTANTIATE_TEST_SUITE_P(Geometries, DeviceCount, ::testing::ValuesIn(test::primeShardCases()), test::testName);

// Bytes each device holds at its peak during a recon scale as 1/N (within 15 %) on a 256-class problem.
TEST(MultiDevice, MemoryPerDeviceScalesAsOneOverN)
{
  const ParallelBeamGeometry geometry({ 256, 256, 256 }, test::evenAngles(256, M_PI));
  ReconParams                params = test::threeIterationParams(geometry);
  params.maxIterations = 1;
  const std::vector<float> y(geometry.sinogramShape.size(), 1.0f);
  double                   single = 0.0;
  for (const int n : { 1, 2, 4 })
  {
    const auto          devices = cpuDevices(n);
    const Reconstructor reconstructor(geometry, devices, params);
    reconstructor.recon(y);
    std::size_t peak = 0;
    for (const auto & device : devices->devices())
    {
      peak = std::max(peak, device->peakBytes());
    }
    if (n == 1)
    {
      single = double(peak);
    }
    std::printf("  N = %d: peak %.1f MiB per device, %.3f of single / N\n", n, peak / 1048576.0, peak * n / single);
    EXPECT_LT(double(peak) * n / single, 1.15) << "N = " << n;
  }
}

TEST(MultiDevice, PreparedSinogramIsScatteredOnce)
{
  const auto               devices = cpuDevices(3);
  const ConeBeamGeometry   geometry({ 121, 16, 24 }, test::evenAngles(121, 2 * M_PI), 96.0f, 48.0f);
  const Reconstructor      reconstructor(geometry, devices, test::threeIterationParams(geometry));
  const std::vector<float> y =
    reconstructor.forwardProject(sheppLoganLowDynamicRange(reconstructor.projector().reconShape()));
  auto uploaded = [&] {
    std::size_t bytes = 0;
    for (const auto & device : devices->devices())
      bytes += device->transfers().uploadedBytes;
    return bytes;
  };
  auto downloaded = [&] {
    std::size_t bytes = 0;
    for (const auto & device : devices->devices())
      bytes += device->transfers().downloadedBytes;
    return bytes;
  };
  const std::size_t    before = uploaded();
  const DeviceSinogram prepared = DeviceSinogram::upload(devices, ArrayView3(y, geometry.sinogramShape));
  const std::size_t    sinogramBytes = uploaded() - before;
  EXPECT_EQ(sinogramBytes, y.size() * sizeof(float)); // each view to exactly one device
  const std::size_t       afterUpload = uploaded(), downloadedBefore = downloaded();
  const DeviceReconResult first = reconstructor.recon(prepared);
  const DeviceReconResult second = reconstructor.recon(prepared);
  EXPECT_LT(uploaded() - afterUpload, sinogramBytes); // only pixel lists went up
  // Only the views the automatic regularisation samples (21 of 121) came back, once per recon.
  const std::size_t viewBytes = std::size_t(16) * 24 * sizeof(float);
  EXPECT_EQ(downloaded() - downloadedBefore, 2 * statisticsSamples(121).size() * viewBytes);
  EXPECT_EQ(first.recon.download(), second.recon.download());
  EXPECT_EQ(first.recon.group().size(), 3); // the result stays split over the devices
}

TEST(DevicePolicy, ChoicesResolveAndFailClearly)
{
  ::setenv("MBIR_NUM_CPU_DEVICES", "4", 1);
  const std::vector<std::shared_ptr<Backend>> all = availableDevices(UseGpu::None);
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(availableDevices(UseGpu::None)[2].get(), all[2].get()); // the same handles every time
  for (const auto & device : all) // one thread count for all, decided with the first (made at different times)
  {
    EXPECT_EQ(device->threadCount(), all[0]->threadCount());
  }

  EXPECT_EQ(DeviceSelection().useGpu(UseGpu::None).resolve(64, 64).size(), 4u);
  EXPECT_FALSE(DeviceSelection().pinned());
  // Automatic skips device counts that would leave a device with only padding: 5 slices on 4 -> 3.
  EXPECT_EQ(DeviceSelection().useGpu(UseGpu::None).resolve(64, 5).size(), 3u);
  const DeviceSelection two = DeviceSelection::firstDevices(2).useGpu(UseGpu::None);
  EXPECT_TRUE(two.pinned());
  EXPECT_EQ(two.resolve(64, 64), std::vector<std::shared_ptr<Backend>>(all.begin(), all.begin() + 2));
  EXPECT_EQ(DeviceSelection::atIndices({ 3, 1 }).useGpu(UseGpu::None).resolve(64, 64),
            (std::vector<std::shared_ptr<Backend>>{ all[3], all[1] }));
  EXPECT_EQ(DeviceSelection::of({ all[2] }).resolve(64, 64).front().get(), all[2].get());
  EXPECT_EQ(DeviceSelection::single().useGpu(UseGpu::None).resolve(64, 64).size(), 1u);
  // An explicit count may leave padding-only devices: that is the user's choice.
  EXPECT_EQ(DeviceSelection::firstDevices(4).useGpu(UseGpu::None).resolve(64, 3).size(), 4u);

  expectInvalid([&] { DeviceSelection::firstDevices(0).resolve(8, 8); }, "must be >= 1");
  expectInvalid([&] { DeviceSelection::firstDevices(9).useGpu(UseGpu::None).resolve(8, 8); }, "9 devices asked for");
  expectInvalid([&] { DeviceSelection::atIndices({ 4 }).useGpu(UseGpu::None).resolve(8, 8); },
                "index 4 is out of range");
  expectInvalid([&] { DeviceSelection::atIndices({ 1, 1 }).useGpu(UseGpu::None).resolve(8, 8); }, "listed twice");
  expectInvalid([&] { DeviceSelection::atIndices({}).resolve(8, 8); }, "empty");
  expectInvalid([&] { DeviceSelection::of({}).resolve(8, 8); }, "empty");
  expectInvalid([&] { DeviceSelection::of({ all[0], all[0] }).resolve(8, 8); }, "listed twice");
  expectInvalid([] { parseUseGpu("sinograms"); }, "automatic, full or none");
  ::setenv("MBIR_NUM_CPU_DEVICES", "zero", 1);
  expectInvalid([] { availableDevices(UseGpu::None); }, "MBIR_NUM_CPU_DEVICES");
  ::unsetenv("MBIR_NUM_CPU_DEVICES");
  EXPECT_EQ(availableDevices(UseGpu::None).size(), 1u);

  // The reconstructor keeps the selection it was given and says what it runs on (the devices' thread count
  // follows the machine's load when they were made: 1 thread on a busy machine).
  ::setenv("MBIR_NUM_CPU_DEVICES", "4", 1);
  const int                  threads = all[0]->threadCount();
  const ParallelBeamGeometry geometry({ 181, 10, 16 }, test::evenAngles(181, M_PI));
  const Reconstructor four(geometry, DeviceSelection().useGpu(UseGpu::None), test::threeIterationParams(geometry));
  EXPECT_EQ(four.deviceSummary(),
            "4 x CPU (sharded, " + std::to_string(threads) + (threads == 1 ? " thread" : " threads") +
              ") (views padded 181->184) (slices padded 10->12)");
  const Reconstructor single(
    geometry, DeviceSelection::single().useGpu(UseGpu::None), test::threeIterationParams(geometry));
  EXPECT_EQ(single.deviceSummary(), "1 x CPU");
  ::unsetenv("MBIR_NUM_CPU_DEVICES");
}

// Without a usable GPU the automatic choice runs on the CPU and says why; asking for the CPU needs no note.
TEST(DevicePolicy, CpuFallbackSaysWhy)
{
  if (cudaDeviceCount() > 0)
  {
    GTEST_SKIP() << "a GPU is present: the automatic choice uses it";
  }
  EXPECT_EQ(DeviceSelection().fallbackNote().rfind("no GPU: ", 0), 0u) << DeviceSelection().fallbackNote();
  EXPECT_EQ(DeviceSelection().useGpu(UseGpu::None).fallbackNote(), "");
  std::vector<std::string>   lines;
  const ParallelBeamGeometry geometry({ 8, 2, 12 }, test::evenAngles(8, M_PI));
  ReconParams                params = test::threeIterationParams(geometry);
  params.verbose = 1;
  params.logSink = [&lines](const std::string & line) { lines.push_back(line); };
  const Reconstructor reconstructor(geometry, DeviceSelection(), params);
  reconstructor.recon(std::vector<float>(geometry.sinogramShape.size(), 1.0f));
  ASSERT_FALSE(lines.empty());
  EXPECT_NE(lines.front().find("(no GPU: "), std::string::npos) << lines.front();
}

TEST(Communicators, HostCommunicatorDoesEveryCollective)
{
  for (const int n : { 1, 2, 3 })
  {
    SCOPED_TRACE(std::to_string(n) + " CPU devices");
    const auto devices = cpuDevices(n);
    EXPECT_EQ(devices->communicator().kind(), CommunicatorKind::Host);
    test::expectCollectivesWork(*devices);
  }
}

// Split by view, each VCD subset moves its data in one reduce-scatter (the gradient's back projection) and one
// all-gather (the prediction's forward projection), whatever the number of devices; split by detector row (parallel
// beam on GPUs, here asked for) it moves none. Counted between the progress reports that follow every subset, over the
// 16 and 64 subsets of a recon's third and fourth iterations (the larger subsets before them are projected in chunks,
// to bound the transient memory).
TEST(Communicators, OneReduceScatterAndOneAllGatherPerSubsetByViewNoneByRow)
{
  const ParallelBeamGeometry geometry(SinogramShape{ 24, 12, 40 }, test::evenAngles(24, M_PI));
  for (const std::string split : { "view", "row" })
  {
    const ScopedEnvironment choice("MBIR_SINOGRAM_SPLIT", split);
    const int               perSubset = split == "view" ? 1 : 0;
    for (const int n : { 2, 3, 4 })
    {
      SCOPED_TRACE(std::to_string(n) + " CPU devices, MBIR_SINOGRAM_SPLIT=" + split);
      std::vector<std::shared_ptr<Backend>> backends;
      for (int d = 0; d < n; ++d)
        backends.push_back(makeCpuBackend());
      test::CountingCommunicator * counts = nullptr;
      const auto  group = std::make_shared<const DeviceGroup>(backends, [&counts](std::vector<Backend *> devices) {
        auto counting = std::make_unique<test::CountingCommunicator>(makeCommunicator(devices), int(devices.size()));
        counts = counting.get();
        return std::unique_ptr<Communicator>(std::move(counting));
      });
      ReconParams params;
      params.verbose = 0;
      params.maxIterations = 4;
      params.stopThresholdChangePct = 0.0f;
      std::vector<std::array<int, 3>> seen; // reduce-scatters, all-gathers, broadcasts after each subset
      params.progress = [&counts, &seen](double) {
        seen.push_back({ counts->reduceScatters, counts->allGathers, counts->broadcasts });
        return true;
      };
      const Reconstructor reconstructor(geometry, group, params);
      EXPECT_EQ(reconstructor.projector().solverSplit(), perSubset == 1 ? SinogramSplit::ByView : SinogramSplit::ByRow);
      const std::vector<float> sino =
        reconstructor.forwardProject(sheppLoganLowDynamicRange(reconstructor.projector().reconShape()));
      const ReconResult result = reconstructor.recon(sino);
      ASSERT_EQ(result.log.size(), 4u);
      ASSERT_EQ(result.log[2].numSubsets + result.log[3].numSubsets, 16 + 64);
      ASSERT_EQ(seen.size(), 1u + 4u + 16u + 64u);
      for (std::size_t s = 1 + 4 + 1; s < seen.size(); ++s)
      {
        EXPECT_EQ(seen[s][0] - seen[s - 1][0], perSubset) << "subset " << s;
        EXPECT_EQ(seen[s][1] - seen[s - 1][1], perSubset) << "subset " << s;
        EXPECT_EQ(seen[s][2] - seen[s - 1][2], 0) << "subset " << s;
      }
    }
  }
}

// Parallel beam split by detector row gives what the split by view gives: the projections shard by shard, and
// MBIR with weights, a direct-recon start and a device that holds no row (13 views, 11 slices on 4 and 8 devices).
TEST(SinogramSplit, ByRowEqualsByView)
{
  const ScopedEnvironment    byRow("MBIR_SINOGRAM_SPLIT", std::string("row"));
  const ParallelBeamGeometry geometry(SinogramShape{ 13, 11, 24 }, test::evenAngles(13, M_PI));
  const Projector            one(geometry, makeCpuBackend());
  const std::vector<float>   x = sheppLoganLowDynamicRange(one.reconShape());
  const std::vector<float>   y = one.forwardProject(x.data());
  const std::vector<float>   w = test::uniformRandom(y.size(), 5, 0.5f, 1.5f);
  for (const int n : { 4, 8 })
  {
    SCOPED_TRACE(std::to_string(n) + " CPU devices");
    const auto      devices = cpuDevices(n);
    const Projector projector(geometry, devices);
    ASSERT_EQ(projector.solverSplit(), SinogramSplit::ByRow);
    const SinogramShape & s = projector.sinogramShape();
    const DeviceSinogram  sinogram = DeviceSinogram::upload(devices, ArrayView3(y, s));
    const DeviceVolume    volume = DeviceVolume::upload(devices, ArrayView3(x, projector.reconShape()));

    // Forward: by row equals the by-view result rearranged by row.
    std::vector<DeviceArray<float>> cylinders, byRow, expected;
    std::vector<CylinderBatch>      batches;
    std::vector<const float *>      values;
    std::vector<float *>            rowTargets, expectedTargets;
    const DeviceSinogram            byView = projector.forwardProject(volume);
    for (int d = 0; d < n; ++d)
    {
      batches.push_back(projector.rorCylinders(d));
      cylinders.push_back(devices->device(d).allocate<float>(std::size_t(batches[d].numPixels) * batches[d].numSlices));
      devices->device(d).gatherCylinders(volume.shard(d), batches[d], cylinders[d].data());
      values.push_back(cylinders[d].data());
      byRow.push_back(devices->device(d).allocate<float>(projector.shardSize(SinogramSplit::ByRow)));
      expected.push_back(devices->device(d).allocate<float>(projector.shardSize(SinogramSplit::ByRow)));
      rowTargets.push_back(byRow[d].data());
      expectedTargets.push_back(expected[d].data());
    }
    projector.forward(SinogramSplit::ByRow, batches, values, rowTargets);
    projector.copyInSplit(byView, SinogramSplit::ByRow, expectedTargets);
    std::vector<float> got, want; // every device's real entries
    for (int d = 0; d < n; ++d)
    {
      const std::size_t real = projector.realShardSize(SinogramSplit::ByRow, d);
      EXPECT_EQ(real, std::size_t(s.views) * s.channels * projector.sliceLayout().valid(d));
      got.insert(got.end(), byRow[d].data(), byRow[d].data() + real);
      want.insert(want.end(), expected[d].data(), expected[d].data() + real);
    }
    ASSERT_EQ(want.size(), y.size());
    EXPECT_LT(test::relativeError(got, want), 1e-6);

    // Back: the by-row shards back-projected equal the back projection of the whole sinogram.
    std::vector<DeviceArray<float>> backValues;
    std::vector<float *>            backTargets;
    std::vector<const float *>      sources;
    projector.copyInSplit(sinogram, SinogramSplit::ByRow, rowTargets);
    for (int d = 0; d < n; ++d)
    {
      backValues.push_back(
        devices->device(d).allocate<float>(std::size_t(batches[d].numPixels) * batches[d].numSlices));
      backTargets.push_back(backValues[d].data());
      sources.push_back(byRow[d].data());
    }
    projector.back(SinogramSplit::ByRow, sources, {}, 1, batches, backTargets);
    DeviceVolume backByRow(devices, projector.reconShape());
    for (int d = 0; d < n; ++d)
      devices->device(d).scatterAddCylinders(1.0f, backValues[d].data(), batches[d], backByRow.shard(d));
    EXPECT_LT(test::relativeError(backByRow.download(), one.backProject(y.data())), 1e-6);

    // MBIR with weights from a direct-recon start: by row equals by view.
    const Reconstructor      rows(geometry, devices, test::threeIterationParams(geometry));
    const std::vector<float> rowRecon = rows.recon(ArrayView3(y, s), ArrayView3(w, s)).recon;
    const ScopedEnvironment  viewOnly("MBIR_SINOGRAM_SPLIT", std::string("view"));
    const Reconstructor      views(geometry, devices, test::threeIterationParams(geometry));
    ASSERT_EQ(views.projector().solverSplit(), SinogramSplit::ByView);
    EXPECT_LT(nrmse(rowRecon, views.recon(ArrayView3(y, s), ArrayView3(w, s)).recon), 1e-5);
  }
}

namespace {

// A CPU device that claims a memory of its own, as a GPU has.
class OwnMemoryBackend final : public test::FaultyBackend
{
public:
  explicit OwnMemoryBackend(int memory)
    : FaultyBackend(makeCpuBackend(), std::make_shared<test::FaultPlan>())
    , m_Memory(memory)
  {}
  int
  memoryPool() const override
  {
    return m_Memory;
  }

private:
  int m_Memory;
};

std::shared_ptr<const DeviceGroup>
ownMemoryDevices(int n)
{
  std::vector<std::shared_ptr<Backend>> devices;
  for (int d = 0; d < n; ++d)
    devices.push_back(std::make_shared<OwnMemoryBackend>(d));
  return std::make_shared<const DeviceGroup>(devices, CommunicatorKind::Host);
}

} // namespace

// By row for parallel beam on devices with memories of their own (GPUs), where an exchange crosses a link; by view
// on CPU devices (one shared memory), for other geometries, on one device, or as MBIR_SINOGRAM_SPLIT asks.
TEST(SinogramSplit, ChosenWhereItSavesAnExchange)
{
  for (const test::NamedGeometry & named : test::primeShardCases())
  {
    SCOPED_TRACE(named.name);
    const SinogramSplit rowsIfParallel =
      std::holds_alternative<ParallelBeamGeometry>(named.geometry) ? SinogramSplit::ByRow : SinogramSplit::ByView;
    EXPECT_EQ(Projector(named.geometry, ownMemoryDevices(3)).solverSplit(), rowsIfParallel);
    EXPECT_EQ(Projector(named.geometry, cpuDevices(3)).solverSplit(), SinogramSplit::ByView);
    EXPECT_EQ(Projector(named.geometry, ownMemoryDevices(1)).solverSplit(), SinogramSplit::ByView);
    const ScopedEnvironment byRow("MBIR_SINOGRAM_SPLIT", std::string("row"));
    EXPECT_EQ(Projector(named.geometry, cpuDevices(3)).solverSplit(), rowsIfParallel);
    EXPECT_EQ(Projector(named.geometry, makeCpuBackend()).solverSplit(), SinogramSplit::ByView);
  }
  const ParallelBeamGeometry geometry(SinogramShape{ 8, 4, 12 }, test::evenAngles(8, M_PI));
  {
    const ScopedEnvironment viewOnly("MBIR_SINOGRAM_SPLIT", std::string("view"));
    EXPECT_EQ(Projector(geometry, ownMemoryDevices(2)).solverSplit(), SinogramSplit::ByView);
  }
  const ScopedEnvironment bad("MBIR_SINOGRAM_SPLIT", std::string("rows"));
  expectInvalid([&] { Projector(geometry, cpuDevices(2)); }, "MBIR_SINOGRAM_SPLIT is 'rows'; use view, row or auto");
}

TEST(Communicators, GpuCommunicatorsRefuseCpuDevices)
{
  const auto cpu = makeCpuBackend();
  expectInvalid([&] { DeviceGroup({ cpu }, CommunicatorKind::Peer); },
                "the peer communicator joins GPUs only, not CPU");
  expectInvalid([&] { DeviceGroup({ cpu }, CommunicatorKind::Nccl); }, "the nccl communicator joins GPUs only");
  EXPECT_EQ(DeviceGroup({ cpu }, CommunicatorKind::Host).communicator().kind(), CommunicatorKind::Host);
}
