#include "mbir/Denoiser.h"

#include "Vcd.h"
#include "mbir/Partition.h"
#include "mbir/Regularization.h"

#include <cmath>
#include <numeric>
#include <sstream>
#include <stdexcept>

namespace mbir {
namespace {

// The identity forward model: the "sinogram" is the noisy image itself, e = image - x, split by slice like
// the volume.
class IdentityDataTerm final : public detail::DataTerm
{
public:
  IdentityDataTerm(const detail::VcdVolume & volume, detail::PerDevice<float *> error)
    : m_Volume(volume)
    , m_Error(std::move(error))
  {}

  void
  gradient(const detail::PerDevice<CylinderBatch> & subset,
           const detail::PerDevice<float *> &       gradient,
           const detail::PerDevice<float *> &,
           bool & hessianIsOne) override
  {
    for (int d = 0; d < m_Volume.size(); ++d)
    {
      m_Volume.group->device(d).gatherCylinders(m_Error[d], subset[d], gradient[d]);
    }
    hessianIsOne = true;
  }
  void
  predict(const detail::PerDevice<CylinderBatch> & subset, const detail::PerDevice<const float *> & delta) override
  {
    m_Subset = subset;
    m_Delta = delta;
  }
  double
  predictedNorm() override
  {
    std::vector<double> bb;
    for (int d = 0; d < m_Volume.size(); ++d)
    {
      const std::size_t count = static_cast<std::size_t>(m_Subset[d].numPixels) * m_Subset[d].numSlices;
      bb.push_back(m_Volume.group->device(d).weightedProducts(m_Delta[d], m_Delta[d], nullptr, count).bb);
    }
    return m_Volume.group->communicator().allReduceSum(bb);
  }
  void
  update(const detail::PerDevice<CylinderBatch> & subset, float alpha) override
  {
    for (int d = 0; d < m_Volume.size(); ++d)
    {
      m_Volume.group->device(d).scatterAddCylinders(-alpha, m_Delta[d], subset[d], m_Error[d]);
    }
  }
  double
  weightedErrorSquared() override
  {
    std::vector<double> sums;
    for (int d = 0; d < m_Volume.size(); ++d)
    {
      const std::size_t size = m_Volume.shardShape().size(); // the padding is zero
      sums.push_back(m_Volume.group->device(d).weightedProducts(m_Error[d], m_Error[d], nullptr, size).bb);
    }
    return m_Volume.group->communicator().allReduceSum(sums);
  }
  double
  meanWeight() const override
  {
    return 1.0;
  }
  double
  numData() const override
  {
    return double(m_Volume.shape.size());
  }

private:
  const detail::VcdVolume &        m_Volume;
  detail::PerDevice<float *>       m_Error;
  detail::PerDevice<CylinderBatch> m_Subset;
  detail::PerDevice<const float *> m_Delta;
};

} // namespace

// Mirrors qggmrfDenoise(DeviceVolume) (keep the two in step): the noise statistic; then the estimate, its
// error e, the pixel list and partition, VCD's scratch (five arrays), halos, and the prior cost's plane
// from the next device.
MemoryNeed
denoiseMemoryNeed(const ReconShape & shape, const DenoiseParams & params, int numDevices, bool inputOnHost)
{
  const int         n = std::max(numDevices, 1);
  const ShardLayout slices(shape.slices, n);
  const std::size_t pixels = shape.numPixels();
  const std::size_t V = pixels * slices.perDevice;
  const std::size_t k = std::max<std::size_t>(1, std::min<std::size_t>(std::max(params.numSubsets, 1), pixels));
  const std::size_t largest = (pixels + k - 1) / k;
  const std::size_t floats = (inputOnHost ? V : 0) + 2 * V + pixels + k * largest + 5 * largest * slices.perDevice +
                             (n > 1 ? 3 * largest + pixels : 0);
  // Before them, the noise statistic: each device's plane from the shard before it, and its owner's copy.
  const std::size_t statistics = (inputOnHost ? V : 0) + (n > 1 ? 3 * pixels : 0);
  MemoryNeed        need;
  need.perDevice = std::max(floats, statistics) * sizeof(float);
  // The sampled rows for sigma_x (and their staging), and the result brought back.
  const std::size_t rowSize = static_cast<std::size_t>(shape.cols) * (shape.slices + slices.perDevice);
  need.host = (statisticsSamples(shape.rows).size() * rowSize + (inputOnHost ? shape.size() : 0)) * sizeof(float);
  return need;
}

namespace {

void
requireDenoiseMemory(const DeviceGroup & devices, const ReconShape & shape, const DenoiseParams & params, bool onHost)
{
  requireMemory(devices,
                denoiseMemoryNeed(shape, params, devices.size(), onHost),
                "qGGMRF denoising of image " + shape.str(),
                [&](int n) { return denoiseMemoryNeed(shape, params, n, onHost); });
}

} // namespace

DenoiseResult
qggmrfDenoise(ArrayView3 image, const DenoiseParams & params, const std::shared_ptr<Backend> & backend)
{
  if (!backend)
  {
    throw std::invalid_argument("qggmrfDenoise: no backend given");
  }
  return qggmrfDenoise(image, params, singleDevice(backend));
}

DenoiseResult
qggmrfDenoise(ArrayView3 image, const DenoiseParams & params, const std::shared_ptr<const DeviceGroup> & devices)
{
  if (image.empty() || image.size() == 0)
  {
    throw std::invalid_argument("qggmrfDenoise: no image given");
  }
  if (!devices)
  {
    throw std::invalid_argument("qggmrfDenoise: no devices given");
  }
  requireDenoiseMemory(*devices, ReconShape{ image.shape[0], image.shape[1], image.shape[2] }, params, true);
  DeviceDenoiseResult onDevice = qggmrfDenoise(DeviceVolume::upload(devices, image), params);
  DenoiseResult       result;
  static_cast<DenoiseReport &>(result) = std::move(onDevice);
  result.image = onDevice.image.download();
  return result;
}

DeviceDenoiseResult
qggmrfDenoise(const DeviceVolume & input, const DenoiseParams & params)
{
  if (input.empty())
  {
    throw std::invalid_argument("qggmrfDenoise: no image given");
  }
  if (params.numSubsets < 1 || params.maxIterations < 0)
  {
    throw std::invalid_argument("qggmrfDenoise: numSubsets must be >= 1 and maxIterations >= 0");
  }
  const DeviceGroup & group = input.group();
  const int           n = group.size();
  const ReconShape    shape = input.shape();
  requireDenoiseMemory(group, shape, params, false);
  DeviceDenoiseResult result;
  const auto          log = detail::makeLog(params.logSink, result.logText);

  // Regularisation from image statistics: the noise over the whole image, worked out on the devices, and
  // sigma_x from about 20 planes along the first axis, brought back.
  result.sigmaNoise = params.sigmaNoise > 0.0f ? params.sigmaNoise : static_cast<float>(estimateImageNoise(input));
  const std::vector<int>   rows = statisticsSamples(shape.rows);
  const std::vector<float> planes = input.downloadRows(rows);
  const std::array<int, 3> sub{ static_cast<int>(rows.size()), shape.cols, shape.slices };
  result.sigmaX = static_cast<float>(0.2 * std::pow(2.0, params.sharpness) *
                                     localStandardDeviation(planes.data(), sub, result.sigmaNoise));
  if (!(result.sigmaNoise > 0.0f))
    result.sigmaNoise = 1.0f; // a constant image has no noise to estimate
  if (!(result.sigmaX > 0.0f))
    result.sigmaX = result.sigmaNoise;
  if (params.verbose >= 1)
  {
    std::ostringstream head;
    head << "qGGMRF denoising on " << group.summary(ShardLayout(1, n), input.slices()) << ": image " << shape.str()
         << ", sigma_noise " << result.sigmaNoise << ", sigma_x " << result.sigmaX;
    log(head.str());
  }

  // The estimate starts at the image (its padding zero), with e = image - x = 0.
  result.image = DeviceVolume(input.groupPointer(), shape);
  detail::VcdVolume volume;
  volume.group = &group;
  volume.slices = input.slices();
  volume.shape = shape;
  std::vector<int> pixels(shape.numPixels());
  std::iota(pixels.begin(), pixels.end(), 0);
  detail::PerDevice<DeviceArray<float>> error;
  detail::PerDevice<DeviceArray<int>>   all;
  detail::PerDevice<float *>            errors;
  for (int d = 0; d < n; ++d)
  {
    Backend & device = group.device(d);
    device.copy(input.shard(d), result.image.shard(d), volume.shardShape().size());
    device.fillSlices(0.0f,
                      result.image.shard(d),
                      shape.numPixels(),
                      volume.slices.perDevice,
                      volume.slices.valid(d),
                      volume.slices.perDevice);
    error.push_back(device.allocate<float>(volume.shardShape().size()));
    errors.push_back(error[d].data());
    all.push_back(device.upload(pixels.data(), pixels.size()));
    volume.shards.push_back(result.image.shard(d));
    volume.all.push_back(
      CylinderBatch{ all[d].data(), static_cast<int>(pixels.size()), volume.slices.perDevice, volume.slices.first(d) });
  }

  std::mt19937_64    random(params.seed);
  detail::Partitions partitions(1);
  std::size_t        largest = 0;
  for (const std::vector<int> & subset : randomPartition(pixels, params.numSubsets, random))
  {
    detail::PerDevice<DeviceArray<int>> onDevices;
    for (int d = 0; d < n; ++d)
    {
      onDevices.push_back(group.device(d).upload(subset.data(), subset.size()));
    }
    partitions[0].push_back(std::move(onDevices));
    largest = std::max(largest, subset.size());
  }

  detail::PriorTerm prior;
  prior.qggmrf = detail::makeQGGMRFParams(result.sigmaX, params.p, params.q, params.T, params.qggmrfNeighbourWeights);

  detail::VcdSettings settings;
  settings.dataScale = 1.0f / (result.sigmaNoise * result.sigmaNoise);
  settings.maxOverrelaxation = params.maxOverrelaxation;
  settings.stopThresholdChangePct = params.stopThresholdChangePct;
  settings.shuffleSubsets = false;
  settings.verbose = params.verbose;
  settings.log = log;
  settings.progress = params.progress;
  settings.iterationDone = params.iterationDone;

  IdentityDataTerm       data(volume, errors);
  const std::vector<int> schedule(params.maxIterations, 0);
  result.log = detail::runVcd(volume, data, prior, partitions, schedule, settings, random).log;
  return result;
}

} // namespace mbir
