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

// The identity forward model: the "sinogram" is the noisy image itself, e = image - x.
class IdentityDataTerm final : public detail::DataTerm
{
public:
  IdentityDataTerm(Backend & backend, float * error, std::size_t size, std::size_t scratch)
    : m_Backend(backend)
    , m_Error(error)
    , m_Size(size)
    , m_ErrorAtSubset(backend.allocate<float>(scratch))
  {}

  void
  gradient(const CylinderBatch & subset, float * gradient, float *, bool & hessianIsOne) override
  {
    m_Backend.gatherCylinders(m_Error, subset, gradient);
    hessianIsOne = true;
  }
  Backend::WeightedProducts
  predict(const CylinderBatch & subset, const float * delta) override
  {
    m_Delta = delta;
    m_Backend.gatherCylinders(m_Error, subset, m_ErrorAtSubset.data());
    return m_Backend.weightedProducts(
      m_ErrorAtSubset.data(), delta, nullptr, static_cast<std::size_t>(subset.numPixels) * subset.numSlices);
  }
  void
  update(const CylinderBatch & subset, float alpha) override
  {
    m_Backend.scatterAddCylinders(-alpha, m_Delta, subset, m_Error);
  }
  double
  weightedErrorSquared() override
  {
    return m_Backend.weightedProducts(m_Error, m_Error, nullptr, m_Size).bb;
  }
  double
  meanWeight() const override
  {
    return 1.0;
  }
  double
  numData() const override
  {
    return double(m_Size);
  }

private:
  Backend &          m_Backend;
  float *            m_Error;
  std::size_t        m_Size;
  DeviceArray<float> m_ErrorAtSubset;
  const float *      m_Delta = nullptr;
};

} // namespace

DenoiseResult
qggmrfDenoise(ArrayView3 image, const DenoiseParams & params, const std::shared_ptr<Backend> & backend)
{
  if (!backend)
  {
    throw std::invalid_argument("qggmrfDenoise: no backend given");
  }
  if (image.empty() || image.size() == 0)
  {
    throw std::invalid_argument("qggmrfDenoise: no image given");
  }
  DeviceDenoiseResult onDevice = qggmrfDenoise(DeviceVolume::upload(backend, image), params);
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
  const std::shared_ptr<Backend> & backend = input.backendPointer();
  const ReconShape                 shape = input.shape();
  const std::vector<float>         host = input.download(); // the statistics below need host values
  const ArrayView3                 image(host, shape);
  DeviceDenoiseResult              result;
  const auto                       log = detail::makeLog(params.logSink, result.logText);

  // Regularisation from image statistics on about 20 planes along the first axis.
  result.sigmaNoise =
    params.sigmaNoise > 0.0f ? params.sigmaNoise : static_cast<float>(estimateImageNoise(image.data, image.shape));
  const int          step = shape.rows / std::min(20, shape.rows);
  std::vector<float> planes;
  const std::size_t  planeSize = static_cast<std::size_t>(shape.cols) * shape.slices;
  for (int i = 0; i < shape.rows; i += step)
  {
    planes.insert(planes.end(), image.data + i * planeSize, image.data + (i + 1) * planeSize);
  }
  const std::array<int, 3> sub{ static_cast<int>(planes.size() / planeSize), shape.cols, shape.slices };
  result.sigmaX = static_cast<float>(0.2 * std::pow(2.0, params.sharpness) *
                                     localStandardDeviation(planes.data(), sub, result.sigmaNoise));
  if (!(result.sigmaNoise > 0.0f))
    result.sigmaNoise = 1.0f; // a constant image has no noise to estimate
  if (!(result.sigmaX > 0.0f))
    result.sigmaX = result.sigmaNoise;
  if (params.verbose >= 1)
  {
    std::ostringstream head;
    head << "qGGMRF denoising on " << backend->description() << ": image " << image.str() << ", sigma_noise "
         << result.sigmaNoise << ", sigma_x " << result.sigmaX;
    log(head.str());
  }

  result.image = DeviceVolume(backend, shape);
  backend->copy(input.data(), result.image.data(), shape.size());
  DeviceArray<float> error = backend->allocate<float>(shape.size()); // e = image - x = 0 at the start

  std::vector<int> pixels(shape.numPixels());
  std::iota(pixels.begin(), pixels.end(), 0);
  std::mt19937_64                            random(params.seed);
  std::vector<std::vector<DeviceArray<int>>> partitions(1);
  std::size_t                                largest = 0;
  for (const std::vector<int> & subset : randomPartition(pixels, params.numSubsets, random))
  {
    partitions[0].push_back(backend->upload(subset.data(), subset.size()));
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

  IdentityDataTerm       data(*backend, error.data(), shape.size(), largest * shape.slices);
  const std::vector<int> schedule(params.maxIterations, 0);
  result.log =
    detail::runVcd(*backend, shape, result.image.data(), data, prior, partitions, schedule, settings, random).log;
  return result;
}

} // namespace mbir
