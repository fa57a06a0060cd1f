// The qGGMRF denoiser (spec/solver.md §9.3).

#include "MBIRTestSupport.h"
#include "mbir/Denoiser.h"
#include "mbir/Metrics.h"
#include "mbir/Phantom.h"
#include "mbir/Regularization.h"

#include <gtest/gtest.h>

using namespace mbir;

namespace {

std::vector<float>
squarePhantom(int d0, int d)
{
  std::vector<float> image(static_cast<std::size_t>(d0) * d * d, 0.0f);
  for (int i = 0; i < d0; ++i)
    for (int j = d / 3; j < 2 * d / 3; ++j)
      for (int k = d / 3; k < 2 * d / 3; ++k)
        image[(static_cast<std::size_t>(i) * d + j) * d + k] = 1.0f;
  return image;
}

std::vector<float>
withNoise(const std::vector<float> & image, float sigma, unsigned seed)
{
  std::mt19937                    engine(seed);
  std::normal_distribution<float> normal(0.0f, sigma);
  std::vector<float>              noisy = image;
  for (float & v : noisy)
    v += normal(engine);
  return noisy;
}

DenoiseParams
specParams()
{
  DenoiseParams params;
  params.sigmaNoise = 0.1f;
  params.maxIterations = 20;
  params.stopThresholdChangePct = 0.1f;
  params.verbose = 0;
  return params;
}

} // namespace

TEST(Denoiser, LowersErrorOnNoisySquares)
{
  for (const int d0 : { 1, 40 })
  {
    const int                d = d0 == 1 ? 100 : 40;
    const std::vector<float> clean = squarePhantom(d0, d);
    const std::vector<float> noisy = withNoise(clean, 0.1f, 1);
    const DenoiseResult result = qggmrfDenoise(ArrayView3(noisy.data(), { d0, d, d }), specParams(), makeCpuBackend());
    const double        before = nrmse(noisy, clean), after = nrmse(result.image, clean);
    EXPECT_LT(after, 0.2) << "shape (" << d0 << ", " << d << ", " << d << ")";
    EXPECT_LT(after, 0.5 * before) << "noisy " << before << ", denoised " << after;
    std::printf("denoiser (%d, %d, %d): NRMSE %.4f -> %.4f (factor %.2f)\n", d0, d, d, before, after, before / after);
  }
}

TEST(Denoiser, EstimatesNoiseAndKeepsConstantsConstant)
{
  const std::vector<float> clean = squarePhantom(30, 30);
  const std::vector<float> noisy = withNoise(clean, 0.1f, 2);
  DenoiseParams            params = specParams();
  params.sigmaNoise = 0.0f; // estimate it
  const DenoiseResult estimated = qggmrfDenoise(ArrayView3(noisy.data(), { 30, 30, 30 }), params, makeCpuBackend());
  EXPECT_GT(estimated.sigmaNoise, 0.05f);
  EXPECT_LT(estimated.sigmaNoise, 0.2f);
  EXPECT_LT(nrmse(estimated.image, clean), 0.5 * nrmse(noisy, clean));

  const std::vector<float> constant(20 * 20 * 20, 0.7f);
  const DenoiseResult      flat = qggmrfDenoise(ArrayView3(constant.data(), { 20, 20, 20 }), params, makeCpuBackend());
  for (const float v : flat.image)
    EXPECT_NEAR(v, 0.7f, 1e-6f);
}

TEST(Denoiser, RejectsBadInput)
{
  std::vector<float> image(27, 1.0f);
  image[4] = std::nanf("");
  EXPECT_THROW(qggmrfDenoise(ArrayView3(image.data(), { 3, 3, 3 }), specParams(), makeCpuBackend()),
               std::invalid_argument);
  EXPECT_THROW(qggmrfDenoise(ArrayView3(), specParams(), makeCpuBackend()), std::invalid_argument);
}

// The noise statistic worked out on sharded devices equals the host's (spec/solver.md §5.4), wrapping
// across shards included, for an ordinary image and for the rare ones whose threshold is their maximum.
TEST(Denoiser, NoiseStatisticOnDevicesEqualsTheHosts)
{
  const std::array<int, 3> shape{ 9, 8, 13 }; // 13 slices: padding on most device counts
  std::vector<float>       image = test::uniformRandom(std::size_t(9) * 8 * 13, 4, 0.0f, 1.0f);
  for (std::size_t i = 0; i < image.size(); i += 5)
    image[i] = 0.0f; // some voxels below the noise floor
  const std::vector<float> constant(image.size(), 0.7f);
  std::vector<float>       negative = image;
  for (float & v : negative)
    v = -v - 0.1f; // every voxel below 5 % of the mean magnitude
  const std::vector<const std::vector<float> *> images{ &image, &constant, &negative };
  for (const std::vector<float> * values : images)
  {
    const double expected = estimateImageNoise(values->data(), shape);
    const double floor = localStandardDeviation(values->data(), shape, 0.0);
    for (const int n : { 1, 2, 3, 5 })
    {
      SCOPED_TRACE(std::to_string(n) + " devices");
      std::vector<std::shared_ptr<Backend>> devices;
      for (int d = 0; d < n; ++d)
        devices.push_back(makeCpuBackend());
      const DeviceVolume volume = DeviceVolume::upload(std::make_shared<const DeviceGroup>(devices),
                                                       ArrayView3(values->data(), { shape[0], shape[1], shape[2] }));
      EXPECT_NEAR(localStandardDeviation(volume, 0.0), floor, 1e-12 * std::max(floor, 1.0));
      EXPECT_NEAR(estimateImageNoise(volume), expected, 1e-12 * std::max(expected, 1.0));
    }
  }
  EXPECT_GT(estimateImageNoise(image.data(), shape), 0.1); // not a degenerate case
}

// Denoising a volume on the devices brings back only the rows sigma_x samples: no whole-volume copy.
TEST(Denoiser, DeviceVolumeStaysOnTheDevices)
{
  const ReconShape                      shape{ 45, 16, 11 };
  const std::vector<float>              image = test::uniformRandom(shape.size(), 5);
  std::vector<std::shared_ptr<Backend>> devices{ makeCpuBackend(), makeCpuBackend(), makeCpuBackend() };
  const DeviceVolume                    volume =
    DeviceVolume::upload(std::make_shared<const DeviceGroup>(devices), ArrayView3(image, shape));
  auto downloaded = [&] {
    std::size_t bytes = 0;
    for (const auto & device : devices)
      bytes += device->transfers().downloadedBytes;
    return bytes;
  };
  DenoiseParams params = specParams();
  params.sigmaNoise = 0.0f; // estimated, on the devices
  params.maxIterations = 2;
  const std::size_t before = downloaded();
  qggmrfDenoise(volume, params);
  // 23 rows (every second of 45) from each of 3 devices, each row 16 cylinders of 4 slices.
  EXPECT_EQ(downloaded() - before, statisticsSamples(45).size() * 3 * 16 * 4 * sizeof(float));
  EXPECT_EQ(statisticsSamples(45).size(), 23u);
}
