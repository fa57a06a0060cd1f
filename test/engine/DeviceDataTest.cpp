// Data kept on the device: the same results as the host path, uploaded once however often used, checked
// when they arrive; progress reporting and stopping at the caller's request.

#include "MBIRTestSupport.h"
#include "mbir/Denoiser.h"
#include "mbir/DirectRecon.h"
#include "mbir/Phantom.h"
#include "mbir/Reconstructor.h"
#include "mbir/Weights.h"

#include <gtest/gtest.h>

using namespace mbir;
using mbir::test::expectInvalid;

namespace {

ReconParams
quickParams()
{
  ReconParams params;
  params.verbose = 0;
  params.maxIterations = 4;
  params.seed = 3;
  return params;
}

ConeBeamGeometry
smallCone()
{
  return ConeBeamGeometry({ 24, 8, 32 }, test::evenAngles(24, 2 * M_PI), 128.0f, 64.0f);
}

} // namespace

TEST(DeviceData, RoundTripsAndRejectsNonFiniteValues)
{
  const std::shared_ptr<Backend> backend = makeCpuBackend();
  const SinogramShape            s{ 3, 4, 5 };
  const std::vector<float>       values = test::uniformRandom(s.size(), 1);
  EXPECT_EQ(DeviceSinogram::upload(backend, ArrayView3(values, s)).download(), values);
  const ReconShape r{ 5, 4, 3 };
  EXPECT_EQ(DeviceVolume::upload(backend, ArrayView3(values, r)).download(), values);

  std::vector<float> bad = values;
  bad[(1 * 4 + 2) * 5 + 3] = NAN;
  expectInvalid([&] { DeviceSinogram::upload(backend, ArrayView3(bad, s)); }, "NaN at (view 1, row 2, channel 3)");
  expectInvalid([&] { DeviceVolume::upload(backend, ArrayView3(bad, r)); }, "NaN at (row");
}

TEST(DeviceData, ChosenViewsComeBackFromEveryShard)
{
  const SinogramShape      s{ 11, 3, 4 };
  const std::vector<float> values = test::uniformRandom(s.size(), 2);
  const auto               group = std::make_shared<const DeviceGroup>(
    std::vector<std::shared_ptr<Backend>>{ makeCpuBackend(), makeCpuBackend(), makeCpuBackend() });
  const DeviceSinogram     sinogram = DeviceSinogram::upload(group, ArrayView3(values, s));
  const std::vector<int>   views{ 10, 0, 4, 8, 3 }; // shards of 4 views: the last, first and middle ones
  const std::vector<float> chosen = sinogram.downloadViews(views);
  const std::size_t        viewSize = std::size_t(s.rows) * s.channels;
  ASSERT_EQ(chosen.size(), views.size() * viewSize);
  for (std::size_t i = 0; i < views.size(); ++i)
  {
    EXPECT_TRUE(std::equal(
      chosen.begin() + i * viewSize, chosen.begin() + (i + 1) * viewSize, values.begin() + views[i] * viewSize))
      << "view " << views[i];
  }
  EXPECT_THROW(sinogram.downloadViews({ 11 }), std::out_of_range);
}

// What one MPI rank does with its share (test/mpi covers the ranks): a part of the views is taken where it holds
// every view the devices need, refused naming the views otherwise.
TEST(DeviceData, PartOfTheViewsIsTakenOnlyWhereItHoldsWhatTheDevicesNeed)
{
  const SinogramShape      s{ 11, 3, 4 };
  const std::vector<float> values = test::uniformRandom(s.size(), 4);
  const auto               group =
    std::make_shared<const DeviceGroup>(std::vector<std::shared_ptr<Backend>>{ makeCpuBackend(), makeCpuBackend() });
  EXPECT_EQ(DeviceSinogram::localViews(*group, s.views), (std::pair{ 0, 11 }));
  EXPECT_EQ(DeviceSinogram::uploadViews(group, ArrayView3(values, s), 0, s.views).download(), values);

  const std::size_t        viewSize = std::size_t(s.rows) * s.channels;
  const std::vector<float> part(values.begin() + 2 * viewSize, values.end()); // views 2 to 10
  expectInvalid([&] { DeviceSinogram::uploadViews(group, ArrayView3(part.data(), { 9, 3, 4 }), 2, s.views); },
                "holds views 2 to 10 of 11, but the devices of this process need views 0 to 10");
  expectInvalid([&] { DeviceSinogram::uploadViews(group, ArrayView3(part.data(), { 9, 3, 4 }), 3, s.views); },
                "views 3 to 11 are not part of a sinogram of 11 views");
}

// Weights made where the sinogram lies equal the host's, entry by entry, and the padding views keep weight 0.
TEST(DeviceData, WeightsMadeOnTheDevicesEqualTheHostsAndLeavePaddingInert)
{
  const SinogramShape      s{ 11, 3, 4 }; // 3 devices of 4 views: one padding view
  const std::vector<float> values = test::uniformRandom(s.size(), 5);
  const auto               group = std::make_shared<const DeviceGroup>(
    std::vector<std::shared_ptr<Backend>>{ makeCpuBackend(), makeCpuBackend(), makeCpuBackend() });
  const DeviceSinogram sinogram = DeviceSinogram::upload(group, ArrayView3(values, s));
  for (const WeightType type : { WeightType::Transmission, WeightType::TransmissionRoot, WeightType::Emission })
  {
    const DeviceSinogram weights = generateWeights(sinogram, type);
    EXPECT_EQ(weights.download(), generateWeights(values.data(), values.size(), type));
    const std::size_t viewSize = std::size_t(s.rows) * s.channels;
    const float *     lastShard = weights.shard(2);
    EXPECT_TRUE(std::all_of(lastShard + 3 * viewSize, lastShard + 4 * viewSize, [](float w) { return w == 0.0f; }));
  }
}

TEST(DeviceData, ChosenRowsOfAVolumeComeBackWhole)
{
  const ReconShape         r{ 7, 5, 11 };
  const std::vector<float> values = test::uniformRandom(r.size(), 3);
  for (const int n : { 1, 3 })
  {
    std::vector<std::shared_ptr<Backend>> devices;
    for (int d = 0; d < n; ++d)
      devices.push_back(makeCpuBackend());
    const DeviceVolume volume =
      DeviceVolume::upload(std::make_shared<const DeviceGroup>(devices), ArrayView3(values, r));
    EXPECT_EQ(volume.download(), values);
    const std::vector<int>   rows{ 6, 0, 3 };
    const std::vector<float> chosen = volume.downloadRows(rows);
    const std::size_t        rowSize = std::size_t(r.cols) * r.slices;
    for (std::size_t i = 0; i < rows.size(); ++i)
    {
      EXPECT_TRUE(std::equal(
        chosen.begin() + i * rowSize, chosen.begin() + (i + 1) * rowSize, values.begin() + rows[i] * rowSize))
        << "row " << rows[i] << " on " << n << " devices";
    }
    EXPECT_THROW(volume.downloadRows({ -1 }), std::out_of_range);
  }
}

TEST(DeviceData, DevicePathEqualsHostPath)
{
  const Reconstructor      reconstructor(smallCone(), makeCpuBackend(), quickParams());
  const Projector &        projector = reconstructor.projector();
  const std::vector<float> phantom = sheppLoganLowDynamicRange(projector.reconShape());
  const std::vector<float> sino = reconstructor.forwardProject(phantom);
  const std::vector<float> weights = generateWeights(sino.data(), sino.size(), WeightType::Transmission);

  const DeviceSinogram y =
    DeviceSinogram::upload(projector.groupPointer(), ArrayView3(sino, projector.sinogramShape()));
  const DeviceSinogram w =
    DeviceSinogram::upload(projector.groupPointer(), ArrayView3(weights, projector.sinogramShape()));
  const ReconResult host =
    reconstructor.recon(ArrayView3(sino, projector.sinogramShape()), ArrayView3(weights, projector.sinogramShape()));
  const DeviceReconResult device = reconstructor.recon(y, &w);
  EXPECT_EQ(device.recon.download(), host.recon);
  EXPECT_EQ(device.log.size(), host.log.size());

  const DeviceVolume x = DeviceVolume::upload(projector.groupPointer(), ArrayView3(phantom, projector.reconShape()));
  EXPECT_EQ(projector.forwardProject(x).download(), sino);
  EXPECT_EQ(projector.backProject(y).download(), projector.backProject(sino.data()));
  EXPECT_EQ(directRecon(projector, y).download(), reconstructor.directRecon(sino));

  // The proximal map and the denoiser take device data too.
  const ReconResult hostProx =
    reconstructor.proxMap(ArrayView3(phantom, projector.reconShape()), ArrayView3(sino, projector.sinogramShape()));
  EXPECT_EQ(reconstructor.proxMap(x, y).recon.download(), hostProx.recon);
  DenoiseParams denoise;
  denoise.verbose = 0;
  denoise.maxIterations = 3;
  EXPECT_EQ(qggmrfDenoise(x, denoise).image.download(),
            qggmrfDenoise(ArrayView3(phantom, projector.reconShape()), denoise, projector.groupPointer()).image);
}

TEST(DeviceData, SinogramUploadedOnceServesManyRecons)
{
  const std::shared_ptr<Backend> backend = makeCpuBackend();
  const Reconstructor            reconstructor(
    ConeBeamGeometry({ 90, 16, 32 }, test::evenAngles(90, 2 * M_PI), 128.0f, 64.0f), backend, quickParams());
  const std::vector<float> sino =
    reconstructor.forwardProject(sheppLoganLowDynamicRange(reconstructor.projector().reconShape()));
  const std::size_t    sinogramBytes = sino.size() * sizeof(float);
  const auto           before = backend->transfers();
  const DeviceSinogram y = DeviceSinogram::upload(backend, ArrayView3(sino, reconstructor.projector().sinogramShape()));
  const auto           uploaded = backend->transfers();
  EXPECT_EQ(uploaded.uploadedBytes - before.uploadedBytes, sinogramBytes);

  const DeviceReconResult first = reconstructor.recon(y);
  const DeviceReconResult second = reconstructor.recon(y);
  const auto              after = backend->transfers();
  // Only the pixel partitions go up during the recons: far less than another sinogram.
  EXPECT_LT(after.uploadedBytes - uploaded.uploadedBytes, sinogramBytes / 4);
  EXPECT_EQ(first.recon.download(), second.recon.download());
  // The host path uploads the sinogram every time.
  reconstructor.recon(sino);
  EXPECT_GE(backend->transfers().uploadedBytes - after.uploadedBytes, sinogramBytes);
}

TEST(DeviceData, RejectsDataOfAnotherBackendOrShape)
{
  const Reconstructor      reconstructor(smallCone(), makeCpuBackend(), quickParams());
  const SinogramShape &    s = reconstructor.projector().sinogramShape();
  const std::vector<float> sino(s.size(), 1.0f);
  const DeviceSinogram     elsewhere = DeviceSinogram::upload(makeCpuBackend(), ArrayView3(sino, s));
  expectInvalid([&] { reconstructor.recon(elsewhere); }, "lives on other devices");
  const std::vector<float> small(s.size() / 2, 1.0f);
  const DeviceSinogram     wrong = DeviceSinogram::upload(reconstructor.projector().groupPointer(),
                                                      ArrayView3(small.data(), { s.views / 2, s.rows, s.channels }));
  expectInvalid([&] { reconstructor.recon(wrong); }, "has shape (12, 8, 32) but the geometry needs (24, 8, 32)");
  const DeviceSinogram zeros(reconstructor.projector().groupPointer(), s);
  const DeviceSinogram ones = DeviceSinogram::upload(reconstructor.projector().groupPointer(), ArrayView3(sino, s));
  expectInvalid([&] { reconstructor.recon(ones, &zeros); }, "weights are all zero");
}

TEST(Progress, ReportsEverySubsetAndReachesOne)
{
  ReconParams         params = quickParams();
  std::vector<double> fractions;
  params.progress = [&fractions](double f) {
    fractions.push_back(f);
    return true;
  };
  const Reconstructor      reconstructor(smallCone(), makeCpuBackend(), params);
  const std::vector<float> sino =
    reconstructor.forwardProject(sheppLoganLowDynamicRange(reconstructor.projector().reconShape()));
  const ReconResult result = reconstructor.recon(sino);
  // Partition sequence 0, 2, 4, 6: 1 + 4 + 16 + 64 subsets. Each iteration visits every voxel once, so each is an
  // equal share of the progress (counted by subsets, the first three iterations showed as 21/85 of it).
  ASSERT_EQ(fractions.size(), 85u);
  for (std::size_t i = 1; i < fractions.size(); ++i)
  {
    EXPECT_GT(fractions[i], fractions[i - 1]);
  }
  EXPECT_DOUBLE_EQ(fractions[0], 0.25);
  EXPECT_DOUBLE_EQ(fractions[4], 0.5);
  EXPECT_DOUBLE_EQ(fractions[20], 0.75);
  EXPECT_DOUBLE_EQ(fractions[2], 0.25 + 0.25 * 2 / 4);
  EXPECT_DOUBLE_EQ(fractions.back(), 1.0);
  EXPECT_EQ(result.log.size(), 4u);
}

TEST(Progress, StopsWithinOneSubsetWhenAsked)
{
  for (const int stopAfter : { 1, 7 })
  {
    ReconParams params = quickParams();
    int         calls = 0;
    params.progress = [&calls, stopAfter](double) { return ++calls < stopAfter; };
    const Reconstructor      reconstructor(smallCone(), makeCpuBackend(), params);
    const std::vector<float> sino =
      reconstructor.forwardProject(sheppLoganLowDynamicRange(reconstructor.projector().reconShape()));
    EXPECT_THROW(reconstructor.recon(sino), Aborted);
    EXPECT_EQ(calls, stopAfter); // no subset ran after the refusal
  }
  DenoiseParams denoise;
  denoise.verbose = 0;
  int calls = 0;
  denoise.progress = [&calls](double) { return ++calls < 3; };
  const std::vector<float> image = test::uniformRandom(8 * 9 * 10, 4);
  EXPECT_THROW(qggmrfDenoise(ArrayView3(image.data(), { 8, 9, 10 }), denoise, makeCpuBackend()), Aborted);
  EXPECT_EQ(calls, 3);
}
