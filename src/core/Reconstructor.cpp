#include "mbir/Reconstructor.h"

#include "Vcd.h"
#include "mbir/DirectRecon.h"
#include "mbir/Partition.h"
#include "mbir/Regularization.h"

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace mbir {
namespace {

// The projector as VCD's data term: the error sinogram e = y - A x and the weights stay on the device.
class ProjectorDataTerm final : public detail::DataTerm
{
public:
  ProjectorDataTerm(const Projector & projector,
                    float *           error,
                    const float *     weights,
                    const float *     hessian,
                    double            meanWeight)
    : m_Projector(projector)
    , m_Backend(projector.backend())
    , m_Error(error)
    , m_Weights(weights)
    , m_Hessian(hessian)
    , m_Change(m_Backend.allocate<float>(projector.sinogramSize()))
    , m_MeanWeight(meanWeight)
  {}

  void
  gradient(const CylinderBatch & subset, float * gradient, float * hessian, bool & hessianIsOne) override
  {
    const std::size_t n = static_cast<std::size_t>(subset.numPixels) * subset.numSlices;
    m_Backend.fill(0.0f, gradient, n);
    m_Backend.backProject(m_Projector.deviceModel(), subset, m_Error, m_Weights, m_Projector.allViews(), 1, gradient);
    m_Backend.gatherCylinders(m_Hessian, subset, hessian);
    hessianIsOne = false;
  }
  Backend::WeightedProducts
  predict(const CylinderBatch & subset, const float * delta) override
  {
    m_Backend.fill(0.0f, m_Change.data(), m_Change.size());
    m_Backend.forwardProject(m_Projector.deviceModel(), subset, delta, m_Projector.allViews(), m_Change.data());
    return m_Backend.weightedProducts(m_Error, m_Change.data(), m_Weights, m_Change.size());
  }
  void
  update(const CylinderBatch &, float alpha) override
  {
    m_Backend.axpby(-alpha, m_Change.data(), 1.0f, m_Error, m_Change.size());
  }
  double
  weightedErrorSquared() override
  {
    return m_Backend.weightedProducts(m_Error, m_Error, m_Weights, m_Change.size()).bb;
  }
  double
  meanWeight() const override
  {
    return m_MeanWeight;
  }
  double
  numData() const override
  {
    return double(m_Change.size());
  }

private:
  const Projector &  m_Projector;
  Backend &          m_Backend;
  float *            m_Error;
  const float *      m_Weights;
  const float *      m_Hessian;
  DeviceArray<float> m_Change;
  double             m_MeanWeight;
};

// Names the first non-finite entry of an array, or returns an empty string.
std::string
firstNonFinite(const ArrayView3 & a, const char * axes[3])
{
  for (std::size_t i = 0; i < a.size(); ++i)
  {
    if (!std::isfinite(a.data[i]))
    {
      const std::size_t c = i % a.shape[2], b = (i / a.shape[2]) % a.shape[1],
                        v = i / (std::size_t(a.shape[1]) * a.shape[2]);
      std::ostringstream where;
      where << (std::isnan(a.data[i]) ? "NaN" : "Inf") << " at (" << axes[0] << " " << v << ", " << axes[1] << " " << b
            << ", " << axes[2] << " " << c << ")";
      return where.str();
    }
  }
  return {};
}

void
requireShape(const ArrayView3 & a, const std::array<int, 3> & expected, const std::string & what)
{
  if (a.shape != expected)
  {
    const ArrayView3 e(nullptr, expected);
    throw std::invalid_argument(what + " has shape " + a.str() + " but the geometry needs " + e.str());
  }
}

} // namespace

ReconParams
defaultReconParams(const Geometry & geometry)
{
  ReconParams params;
  if (std::holds_alternative<TranslationGeometry>(geometry))
  {
    params.maxOverrelaxation = 1.3f;
    params.qggmrfNeighbourWeights = { 0.1f, 1.0f, 1.0f };
  }
  return params;
}

Reconstructor::Reconstructor(Geometry geometry, std::shared_ptr<Backend> backend)
  : m_Projector(std::move(geometry), std::move(backend))
  , m_Params(defaultReconParams(m_Projector.geometry()))
{}

Reconstructor::Reconstructor(Geometry geometry, std::shared_ptr<Backend> backend, ReconParams params)
  : m_Projector(std::move(geometry), std::move(backend))
  , m_Params(std::move(params))
{}

void
Reconstructor::checkInputs(ArrayView3           sinogram,
                           ArrayView3           weights,
                           const InitialImage & init,
                           ArrayView3           proxInput) const
{
  static const char *   sinoAxes[3] = { "view", "row", "channel" };
  static const char *   volumeAxes[3] = { "row", "col", "slice" };
  const SinogramShape & s = m_Projector.sinogramShape();
  const ReconShape &    r = m_Projector.reconShape();
  if (sinogram.empty())
  {
    throw std::invalid_argument("no sinogram given");
  }
  requireShape(sinogram, { s.views, s.rows, s.channels }, "the sinogram");
  if (const std::string bad = firstNonFinite(sinogram, sinoAxes); !bad.empty())
  {
    throw std::invalid_argument("the sinogram contains " + bad + "; replace or mask bad detector values");
  }
  if (!weights.empty())
  {
    requireShape(weights, { s.views, s.rows, s.channels }, "the weights");
    if (const std::string bad = firstNonFinite(weights, sinoAxes); !bad.empty())
    {
      throw std::invalid_argument("the weights contain " + bad);
    }
    bool any = false;
    for (std::size_t i = 0; i < weights.size(); ++i)
    {
      if (weights.data[i] < 0.0f)
      {
        throw std::invalid_argument("the weights contain a negative value (" + std::to_string(weights.data[i]) +
                                    " at entry " + std::to_string(i) + "); weights must be >= 0");
      }
      any = any || weights.data[i] > 0.0f;
    }
    if (!any)
    {
      throw std::invalid_argument("the weights are all zero: no data would enter the reconstruction");
    }
  }
  if (init.kind == InitialImage::Kind::Volume)
  {
    if (init.volume.empty())
    {
      throw std::invalid_argument("an initial volume was requested but none was given");
    }
    requireShape(init.volume, { r.rows, r.cols, r.slices }, "the initial volume");
    if (const std::string bad = firstNonFinite(init.volume, volumeAxes); !bad.empty())
    {
      throw std::invalid_argument("the initial volume contains " + bad);
    }
  }
  else if (init.kind == InitialImage::Kind::Constant && !std::isfinite(init.constant))
  {
    throw std::invalid_argument("the initial constant is not finite");
  }
  if (!proxInput.empty())
  {
    requireShape(proxInput, { r.rows, r.cols, r.slices }, "the proximal-map input");
    if (const std::string bad = firstNonFinite(proxInput, volumeAxes); !bad.empty())
    {
      throw std::invalid_argument("the proximal-map input contains " + bad);
    }
  }
  if (m_Params.granularity.empty() || m_Params.partitionSequence.empty())
  {
    throw std::invalid_argument("granularity and partition_sequence must not be empty");
  }
  for (const int g : m_Params.granularity)
  {
    if (g < 1)
      throw std::invalid_argument("granularity entries must be >= 1, got " + std::to_string(g));
  }
  for (const int i : m_Params.partitionSequence)
  {
    if (i < 0 || i >= static_cast<int>(m_Params.granularity.size()))
      throw std::invalid_argument("partition_sequence entry " + std::to_string(i) +
                                  " is not an index into granularity (" + std::to_string(m_Params.granularity.size()) +
                                  " entries)");
  }
  if (m_Params.maxIterations < 0)
    throw std::invalid_argument("max_iterations must be >= 0");
  if (!(m_Params.maxOverrelaxation > 0.0f))
    throw std::invalid_argument("max_overrelaxation must be > 0");
  if (!m_Params.autoRegularize && !(m_Params.sigmaY > 0 && m_Params.sigmaX > 0 && m_Params.sigmaProx > 0))
    throw std::invalid_argument("sigma_y, sigma_x and sigma_prox must be > 0");
  if (!(m_Params.p > 0 && m_Params.q > 0 && m_Params.T > 0))
    throw std::invalid_argument("the qGGMRF p, q and T must be > 0");
}

RegularizationParams
Reconstructor::regularization(ArrayView3 sinogram, ArrayView3 weights) const
{
  if (!m_Params.autoRegularize)
  {
    return RegularizationParams{ m_Params.sigmaY, m_Params.sigmaX, m_Params.sigmaProx };
  }
  return std::visit(
    [&](const auto & g) {
      RegularizationInputs in;
      in.sinogramShape = g.sinogramShape;
      in.reconShape = g.reconShape;
      in.deltaVoxel = g.deltaVoxel;
      in.deltaDetChannel = g.deltaDetChannel;
      in.magnification = g.magnification();
      in.snrDb = m_Params.snrDb;
      in.sharpness = m_Params.sharpness;
      return autoRegularization(sinogram.data, weights.data, in);
    },
    m_Projector.geometry());
}

ReconResult
Reconstructor::recon(ArrayView3 sinogram, ArrayView3 weights, InitialImage init) const
{
  checkInputs(sinogram, weights, init, {});
  return solve(sinogram, weights, init, {}, regularization(sinogram, weights));
}

ReconResult
Reconstructor::recon(const std::vector<float> & sinogram) const
{
  return recon(ArrayView3(sinogram, m_Projector.sinogramShape()));
}

ReconResult
Reconstructor::proxMap(ArrayView3   proxInput,
                       ArrayView3   sinogram,
                       ArrayView3   weights,
                       InitialImage init,
                       float        sigmaProx) const
{
  if (proxInput.empty())
  {
    throw std::invalid_argument("proxMap needs a proximal-map input volume");
  }
  checkInputs(sinogram, weights, init, proxInput);
  RegularizationParams reg = regularization(sinogram, weights);
  if (sigmaProx > 0.0f)
  {
    reg.sigmaProx = sigmaProx;
  }
  return solve(sinogram, weights, init, proxInput, reg);
}

ReconResult
Reconstructor::solve(ArrayView3           sinogram,
                     ArrayView3           weights,
                     InitialImage         init,
                     ArrayView3           proxInput,
                     RegularizationParams reg) const
{
  Backend &             backend = m_Projector.backend();
  const SinogramShape & sinoShape = m_Projector.sinogramShape();
  const ReconShape &    shape = m_Projector.reconShape();
  const std::size_t     sinoSize = sinoShape.size();
  ReconResult           result;
  result.regularization = reg;
  const auto log = detail::makeLog(m_Params.logSink, result.logText);
  if (m_Params.verbose >= 1)
  {
    std::ostringstream head;
    head << "MBIR on " << backend.description() << ": sinogram " << sinoShape.str() << ", recon " << shape.str()
         << ", sigma_y " << reg.sigmaY << ", sigma_x " << reg.sigmaX;
    if (!proxInput.empty())
      head << ", proximal prior sigma_prox " << reg.sigmaProx;
    log(head.str());
  }

  // Data on the device.
  DeviceArray<float> y = backend.allocate<float>(sinoSize);
  backend.uploadSinogram(sinogram.data, sinoShape, y.data());
  DeviceArray<float> w;
  double             meanWeight = 1.0;
  if (!weights.empty())
  {
    w = backend.allocate<float>(sinoSize);
    backend.uploadSinogram(weights.data, sinoShape, w.data());
    double sum = 0.0;
    for (std::size_t i = 0; i < sinoSize; ++i)
      sum += weights.data[i];
    meanWeight = sum / double(sinoSize);
  }

  // Hessian diagonal of the data term, diag(A^T W A), at every pixel.
  DeviceArray<float> hessian = backend.allocate<float>(shape.size());
  {
    DeviceArray<float> ones;
    if (w.empty())
    {
      ones = backend.allocate<float>(sinoSize);
      backend.fill(1.0f, ones.data(), sinoSize);
    }
    backend.backProject(m_Projector.deviceModel(),
                        m_Projector.allCylinders(),
                        w.empty() ? ones.data() : w.data(),
                        nullptr,
                        m_Projector.allViews(),
                        2,
                        hessian.data());
  }

  // Initial image and error sinogram e = y - A x0.
  DeviceArray<float> x = backend.allocate<float>(shape.size());
  switch (init.kind)
  {
    case InitialImage::Kind::DirectRecon:
      directReconOnDevice(m_Projector, y.data(), x.data());
      break;
    case InitialImage::Kind::Constant:
      backend.fill(init.constant, x.data(), shape.size());
      break;
    case InitialImage::Kind::Volume:
      backend.copyToDevice(init.volume.data, x.data(), shape.size() * sizeof(float));
      break;
  }
  DeviceArray<float> error = backend.allocate<float>(sinoSize);
  {
    const CylinderBatch ror = m_Projector.rorCylinders();
    DeviceArray<float>  cylinders = backend.allocate<float>(static_cast<std::size_t>(ror.numPixels) * ror.numSlices);
    backend.gatherCylinders(x.data(), ror, cylinders.data());
    backend.forwardProject(m_Projector.deviceModel(), ror, cylinders.data(), m_Projector.allViews(), error.data());
  }
  float scale = 1.0f;
  if (init.kind == InitialImage::Kind::DirectRecon)
  {
    // Least-squares intensity scale of the direct recon.
    const Backend::WeightedProducts p = backend.weightedProducts(y.data(), error.data(), w.data(), sinoSize);
    if (p.bb > 0.0)
      scale = static_cast<float>(p.ab / p.bb);
    backend.axpby(0.0f, x.data(), scale, x.data(), shape.size());
  }
  backend.axpby(1.0f, y.data(), -scale, error.data(), sinoSize);
  y = DeviceArray<float>(); // e carries everything the iterations need

  // Partitions of the ROR pixels for the granularities the schedule uses.
  std::mt19937_64        random(m_Params.seed);
  const std::vector<int> schedule = partitionSchedule(m_Params.partitionSequence, m_Params.maxIterations);
  std::vector<std::vector<DeviceArray<int>>> partitions(m_Params.granularity.size());
  for (std::size_t g = 0; g < m_Params.granularity.size(); ++g)
  {
    if (std::find(schedule.begin(), schedule.end(), int(g)) == schedule.end())
      continue;
    for (const std::vector<int> & subset : randomPartition(m_Projector.rorPixels(), m_Params.granularity[g], random))
    {
      partitions[g].push_back(backend.upload(subset.data(), subset.size()));
    }
  }

  detail::PriorTerm prior;
  prior.qggmrf =
    detail::makeQGGMRFParams(reg.sigmaX, m_Params.p, m_Params.q, m_Params.T, m_Params.qggmrfNeighbourWeights);
  DeviceArray<float> proxVolume;
  if (!proxInput.empty())
  {
    proxVolume = backend.upload(proxInput.data, shape.size());
    prior.proxInput = proxVolume.data();
    prior.sigmaProx = reg.sigmaProx;
  }

  detail::VcdSettings settings;
  settings.dataScale = 1.0f / (reg.sigmaY * reg.sigmaY);
  settings.maxOverrelaxation = m_Params.maxOverrelaxation;
  settings.positivity = m_Params.positivity;
  settings.stopThresholdChangePct = m_Params.stopThresholdChangePct;
  settings.verbose = m_Params.verbose;
  settings.log = log;

  ProjectorDataTerm        data(m_Projector, error.data(), w.data(), hessian.data(), meanWeight);
  const detail::VcdOutcome outcome =
    detail::runVcd(backend, shape, x.data(), data, prior, partitions, schedule, settings, random);
  result.log = outcome.log;
  result.stoppedOnThreshold = outcome.stoppedOnThreshold;

  result.recon.resize(shape.size());
  backend.copyToHost(x.data(), result.recon.data(), result.recon.size() * sizeof(float));
  return result;
}

std::vector<float>
Reconstructor::forwardProject(const std::vector<float> & recon) const
{
  return m_Projector.forwardProject(ArrayView3(recon, m_Projector.reconShape()).data);
}

std::vector<float>
Reconstructor::backProject(const std::vector<float> & sinogram) const
{
  return m_Projector.backProject(ArrayView3(sinogram, m_Projector.sinogramShape()).data);
}

std::vector<float>
Reconstructor::directRecon(const std::vector<float> & sinogram) const
{
  return mbir::directRecon(m_Projector, sinogram);
}

} // namespace mbir
