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

void
requireShape(const ArrayView3 & a, const std::array<int, 3> & expected, const std::string & what)
{
  if (a.shape != expected)
  {
    const ArrayView3 e(nullptr, expected);
    throw std::invalid_argument(what + " has shape " + a.str() + " but the geometry needs " + e.str());
  }
}

const char * const kSinogramAxes[3] = { "view", "row", "channel" };
const char * const kVolumeAxes[3] = { "row", "col", "slice" };

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
Reconstructor::checkParams() const
{
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

void
Reconstructor::checkInputs(ArrayView3           sinogram,
                           ArrayView3           weights,
                           const InitialImage & init,
                           ArrayView3           proxInput) const
{
  const SinogramShape & s = m_Projector.sinogramShape();
  const ReconShape &    r = m_Projector.reconShape();
  if (sinogram.empty())
  {
    throw std::invalid_argument("no sinogram given");
  }
  requireShape(sinogram, { s.views, s.rows, s.channels }, "the sinogram");
  if (const std::string bad = firstNonFinite(sinogram, kSinogramAxes); !bad.empty())
  {
    throw std::invalid_argument("the sinogram contains " + bad + "; replace or mask bad detector values");
  }
  if (!weights.empty())
  {
    requireShape(weights, { s.views, s.rows, s.channels }, "the weights");
    if (const std::string bad = firstNonFinite(weights, kSinogramAxes); !bad.empty())
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
  if (init.kind == InitialImage::Kind::Volume && !init.deviceVolume)
  {
    if (init.volume.empty())
    {
      throw std::invalid_argument("an initial volume was requested but none was given");
    }
    requireShape(init.volume, { r.rows, r.cols, r.slices }, "the initial volume");
    if (const std::string bad = firstNonFinite(init.volume, kVolumeAxes); !bad.empty())
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
    if (const std::string bad = firstNonFinite(proxInput, kVolumeAxes); !bad.empty())
    {
      throw std::invalid_argument("the proximal-map input contains " + bad);
    }
  }
  checkParams();
}

void
Reconstructor::checkInputs(const DeviceSinogram & sinogram,
                           const DeviceSinogram * weights,
                           const InitialImage &   init,
                           const DeviceVolume *   proxInput) const
{
  m_Projector.checkOnDevice(sinogram, "the sinogram");
  if (weights)
  {
    m_Projector.checkOnDevice(*weights, "the weights");
    if (weights->backend().sumAbs(weights->data(), weights->shape().size()) == 0.0)
    {
      throw std::invalid_argument("the weights are all zero: no data would enter the reconstruction");
    }
  }
  if (init.kind == InitialImage::Kind::Volume)
  {
    if (!init.deviceVolume)
    {
      throw std::invalid_argument("a recon of device data takes its initial volume on the device too; upload it");
    }
    m_Projector.checkOnDevice(*init.deviceVolume, "the initial volume");
  }
  else if (init.kind == InitialImage::Kind::Constant && !std::isfinite(init.constant))
  {
    throw std::invalid_argument("the initial constant is not finite");
  }
  if (proxInput)
  {
    m_Projector.checkOnDevice(*proxInput, "the proximal-map input");
  }
  checkParams();
}

RegularizationParams
Reconstructor::regularization(ArrayView3 sinogram, ArrayView3 weights) const
{
  if (!m_Params.autoRegularize)
  {
    return RegularizationParams{ m_Params.sigmaY, m_Params.sigmaX, m_Params.sigmaProx };
  }
  const DetectorAndGrid & g = detectorAndGridOf(m_Projector.geometry());
  RegularizationInputs    in;
  in.sinogramShape = g.sinogramShape;
  in.reconShape = g.reconShape;
  in.deltaVoxel = g.deltaVoxel;
  in.deltaDetChannel = g.deltaDetChannel;
  in.magnification = magnificationOf(m_Projector.geometry());
  in.snrDb = m_Params.snrDb;
  in.sharpness = m_Params.sharpness;
  return autoRegularization(sinogram.data, weights.data, in);
}

// The statistics need host values: a device sinogram is read back for them (once per recon).
RegularizationParams
Reconstructor::regularization(const DeviceSinogram & sinogram, const DeviceSinogram * weights) const
{
  if (!m_Params.autoRegularize)
  {
    return regularization(ArrayView3(), ArrayView3());
  }
  const SinogramShape &    s = sinogram.shape();
  const std::vector<float> y = sinogram.download();
  const std::vector<float> w = weights ? weights->download() : std::vector<float>();
  return regularization(ArrayView3(y, s), weights ? ArrayView3(w, s) : ArrayView3());
}

ReconResult
Reconstructor::solveFromHost(ArrayView3   sinogram,
                             ArrayView3   weights,
                             InitialImage init,
                             ArrayView3   proxInput,
                             float        sigmaProx) const
{
  checkInputs(sinogram, weights, init, proxInput);
  RegularizationParams reg = regularization(sinogram, weights);
  if (sigmaProx > 0.0f)
  {
    reg.sigmaProx = sigmaProx;
  }
  const std::shared_ptr<Backend> & backend = m_Projector.backendPointer();
  const DeviceSinogram             y = DeviceSinogram::upload(backend, sinogram);
  DeviceSinogram                   w;
  if (!weights.empty())
  {
    w = DeviceSinogram::upload(backend, weights);
  }
  DeviceVolume initVolume, prox;
  if (init.kind == InitialImage::Kind::Volume && !init.deviceVolume)
  {
    initVolume = DeviceVolume::upload(backend, init.volume);
    init.deviceVolume = &initVolume;
  }
  if (!proxInput.empty())
  {
    prox = DeviceVolume::upload(backend, proxInput);
  }
  DeviceReconResult onDevice = solve(y, w.empty() ? nullptr : &w, init, prox.empty() ? nullptr : &prox, reg);
  ReconResult       result;
  static_cast<ReconReport &>(result) = std::move(onDevice);
  result.recon = onDevice.recon.download();
  return result;
}

ReconResult
Reconstructor::recon(ArrayView3 sinogram, ArrayView3 weights, InitialImage init) const
{
  return solveFromHost(sinogram, weights, init, {}, 0.0f);
}

ReconResult
Reconstructor::recon(const std::vector<float> & sinogram) const
{
  return recon(ArrayView3(sinogram, m_Projector.sinogramShape()));
}

DeviceReconResult
Reconstructor::recon(const DeviceSinogram & sinogram, const DeviceSinogram * weights, InitialImage init) const
{
  checkInputs(sinogram, weights, init, nullptr);
  return solve(sinogram, weights, init, nullptr, regularization(sinogram, weights));
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
  return solveFromHost(sinogram, weights, init, proxInput, sigmaProx);
}

DeviceReconResult
Reconstructor::proxMap(const DeviceVolume &   proxInput,
                       const DeviceSinogram & sinogram,
                       const DeviceSinogram * weights,
                       InitialImage           init,
                       float                  sigmaProx) const
{
  checkInputs(sinogram, weights, init, &proxInput);
  RegularizationParams reg = regularization(sinogram, weights);
  if (sigmaProx > 0.0f)
  {
    reg.sigmaProx = sigmaProx;
  }
  return solve(sinogram, weights, init, &proxInput, reg);
}

DeviceReconResult
Reconstructor::solve(const DeviceSinogram & sinogram,
                     const DeviceSinogram * weights,
                     const InitialImage &   init,
                     const DeviceVolume *   proxInput,
                     RegularizationParams   reg) const
{
  const std::shared_ptr<Backend> & backendPointer = m_Projector.backendPointer();
  Backend &                        backend = *backendPointer;
  const SinogramShape &            sinoShape = m_Projector.sinogramShape();
  const ReconShape &               shape = m_Projector.reconShape();
  const std::size_t                sinoSize = sinoShape.size();
  DeviceReconResult                result;
  result.regularization = reg;
  const auto log = detail::makeLog(m_Params.logSink, result.logText);
  if (m_Params.verbose >= 1)
  {
    std::ostringstream head;
    head << "MBIR on " << backend.description() << ": sinogram " << sinoShape.str() << ", recon " << shape.str()
         << ", sigma_y " << reg.sigmaY << ", sigma_x " << reg.sigmaX;
    if (proxInput)
      head << ", proximal prior sigma_prox " << reg.sigmaProx;
    log(head.str());
  }
  const float * y = sinogram.data();
  const float * w = weights ? weights->data() : nullptr;
  const double  meanWeight = weights ? backend.sumAbs(w, sinoSize) / double(sinoSize) : 1.0;

  // Hessian diagonal of the data term, diag(A^T W A), at every pixel.
  DeviceArray<float> hessian = backend.allocate<float>(shape.size());
  {
    DeviceArray<float> ones;
    if (!w)
    {
      ones = backend.allocate<float>(sinoSize);
      backend.fill(1.0f, ones.data(), sinoSize);
    }
    backend.backProject(m_Projector.deviceModel(),
                        m_Projector.allCylinders(),
                        w ? w : ones.data(),
                        nullptr,
                        m_Projector.allViews(),
                        2,
                        hessian.data());
  }

  // Initial image and error sinogram e = y - A x0.
  result.recon = DeviceVolume(backendPointer, shape);
  float * x = result.recon.data();
  switch (init.kind)
  {
    case InitialImage::Kind::DirectRecon:
      directReconOnDevice(m_Projector, y, x);
      break;
    case InitialImage::Kind::Constant:
      backend.fill(init.constant, x, shape.size());
      break;
    case InitialImage::Kind::Volume:
      backend.copy(init.deviceVolume->data(), x, shape.size());
      break;
  }
  DeviceArray<float> error = backend.allocate<float>(sinoSize);
  {
    const CylinderBatch ror = m_Projector.rorCylinders();
    DeviceArray<float>  cylinders = backend.allocate<float>(static_cast<std::size_t>(ror.numPixels) * ror.numSlices);
    backend.gatherCylinders(x, ror, cylinders.data());
    backend.forwardProject(m_Projector.deviceModel(), ror, cylinders.data(), m_Projector.allViews(), error.data());
  }
  float scale = 1.0f;
  if (init.kind == InitialImage::Kind::DirectRecon)
  {
    // Least-squares intensity scale of the direct recon.
    const Backend::WeightedProducts p = backend.weightedProducts(y, error.data(), w, sinoSize);
    if (p.bb > 0.0)
      scale = static_cast<float>(p.ab / p.bb);
    backend.axpby(0.0f, x, scale, x, shape.size());
  }
  backend.axpby(1.0f, y, -scale, error.data(), sinoSize);

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
  if (proxInput)
  {
    prior.proxInput = proxInput->data();
    prior.sigmaProx = reg.sigmaProx;
  }

  detail::VcdSettings settings;
  settings.dataScale = 1.0f / (reg.sigmaY * reg.sigmaY);
  settings.maxOverrelaxation = m_Params.maxOverrelaxation;
  settings.positivity = m_Params.positivity;
  settings.stopThresholdChangePct = m_Params.stopThresholdChangePct;
  settings.verbose = m_Params.verbose;
  settings.log = log;
  settings.progress = m_Params.progress;

  ProjectorDataTerm        data(m_Projector, error.data(), w, hessian.data(), meanWeight);
  const detail::VcdOutcome outcome =
    detail::runVcd(backend, shape, x, data, prior, partitions, schedule, settings, random);
  result.log = outcome.log;
  result.stoppedOnThreshold = outcome.stoppedOnThreshold;
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
