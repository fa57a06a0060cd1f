#include "mbir/Reconstructor.h"

#include "Vcd.h"
#include "mbir/Checkpoint.h"
#include "mbir/DirectRecon.h"
#include "mbir/GeometryJson.h"
#include "mbir/Partition.h"
#include "mbir/ProcessGroup.h"
#include "mbir/Regularization.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

namespace mbir {
namespace {

// The projector as VCD's data term: the error sinogram e = y - A x and the weights stay on the devices,
// split as the projector's solverSplit() says; the data Hessian diagonal is split by slice like the volume.
class ProjectorDataTerm final : public detail::DataTerm
{
public:
  ProjectorDataTerm(const Projector &                projector,
                    SinogramSplit                    split,
                    detail::PerDevice<float *>       error,
                    detail::PerDevice<const float *> weights,
                    detail::PerDevice<const float *> hessian,
                    double                           meanWeight)
    : m_Projector(projector)
    , m_Split(split)
    , m_Error(std::move(error))
    , m_Weights(std::move(weights))
    , m_Hessian(std::move(hessian))
    , m_MeanWeight(meanWeight)
  {
    for (int d = 0; d < projector.numDevices(); ++d)
    {
      m_Change.push_back(projector.device(d).allocate<float>(projector.shardSize(split)));
      m_PredictedNorms.weights.push_back(weightsOf(d));
      m_PredictedNorms.entries.push_back(realSize(d));
    }
  }

  void
  gradient(const detail::PerDevice<CylinderBatch> & subset,
           const detail::PerDevice<float *> &       gradient,
           const detail::PerDevice<float *> &       hessian,
           bool &                                   hessianIsOne) override
  {
    m_Projector.back(m_Split, { m_Error.begin(), m_Error.end() }, m_Weights, 1, subset, gradient, m_Pending);
    pendingApplied();
    for (int d = 0; d < m_Projector.numDevices(); ++d)
    {
      m_Projector.device(d).gatherCylinders(m_Hessian[d], subset[d], hessian[d]);
    }
    hessianIsOne = false;
  }
  void
  predict(const detail::PerDevice<CylinderBatch> & subset, const detail::PerDevice<const float *> & delta) override
  {
    settle(); // the change is about to be overwritten
    detail::PerDevice<float *> change;
    for (int d = 0; d < m_Projector.numDevices(); ++d)
    {
      if (!m_ChangeIsClear)
      {
        m_Projector.device(d).fillZero(m_Change[d].data(), m_Change[d].size() * sizeof(float));
      }
      change.push_back(m_Change[d].data());
    }
    m_ChangeIsClear = false;
    // The change is 0 where the forward does not write, as the norm asks.
    m_Projector.forward(m_Split, subset, delta, change, &m_PredictedNorms);
  }
  double
  predictedNorm() override
  {
    return m_Projector.group().communicator().allReduceSum(m_PredictedNorms.sums);
  }
  // Deferred to the next gradient(), whose back projection applies it view by view as it reads the error.
  void
  update(const detail::PerDevice<CylinderBatch> &, float alpha) override
  {
    settle(); // one pending update at a time
    for (int d = 0; d < m_Projector.numDevices(); ++d)
    {
      const std::size_t real = realSize(d), padding = m_Change[d].size() - real;
      m_Pending.push_back({ m_Error[d], m_Change[d].data(), -alpha, real });
      if (padding > 0)
      {
        m_Projector.device(d).fillZero(m_Change[d].data() + real, padding * sizeof(float));
      }
    }
  }
  void
  settle() override
  {
    for (std::size_t d = 0; d < m_Pending.size(); ++d)
    {
      const Backend::PendingUpdate & u = m_Pending[d];
      m_Projector.device(static_cast<int>(d)).addScaledAndClear(u.scale, u.change, u.sinogram, u.entries);
    }
    pendingApplied();
  }
  double
  weightedErrorSquared() override
  {
    settle();
    std::vector<double> sums;
    for (int d = 0; d < m_Projector.numDevices(); ++d)
    {
      sums.push_back(m_Projector.device(d).weightedProducts(m_Error[d], m_Error[d], weightsOf(d), realSize(d)).bb);
    }
    return m_Projector.group().communicator().allReduceSum(sums);
  }
  double
  meanWeight() const override
  {
    return m_MeanWeight;
  }
  double
  numData() const override
  {
    return double(m_Projector.sinogramShape().size());
  }

private:
  // The pending update is in the error, and the change clear.
  void
  pendingApplied()
  {
    if (!m_Pending.empty())
    {
      m_Pending.clear();
      m_ChangeIsClear = true;
    }
  }
  // The real entries of device d's shard, which come first.
  std::size_t
  realSize(int d) const
  {
    return m_Projector.realShardSize(m_Split, d);
  }
  const float *
  weightsOf(int d) const
  {
    return m_Weights.empty() ? nullptr : m_Weights[d];
  }

  const Projector &                     m_Projector;
  SinogramSplit                         m_Split;
  detail::PerDevice<float *>            m_Error;
  detail::PerDevice<const float *>      m_Weights;
  detail::PerDevice<const float *>      m_Hessian;
  detail::PerDevice<DeviceArray<float>> m_Change;
  bool                                m_ChangeIsClear = false; // the update leaves it so, which spares predict() a pass
  std::vector<Backend::PendingUpdate> m_Pending; // update()'s, per device, until gradient() or settle() applies it
  Projector::SquaredNorms               m_PredictedNorms; // each device's weights and entries, and predict()'s norms
  double                                m_MeanWeight;
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

Reconstructor::Reconstructor(Geometry geometry, std::shared_ptr<Backend> device)
  : m_Projector(std::move(geometry), std::move(device))
  , m_Params(defaultReconParams(m_Projector.geometry()))
{}

Reconstructor::Reconstructor(Geometry geometry, std::shared_ptr<Backend> device, ReconParams params)
  : m_Projector(std::move(geometry), std::move(device))
  , m_Params(std::move(params))
{}

Reconstructor::Reconstructor(Geometry geometry, std::shared_ptr<const DeviceGroup> devices, ReconParams params)
  : m_Projector(std::move(geometry), std::move(devices))
  , m_Params(std::move(params))
{}

namespace {

// What the automatic regularisation needs to know of the geometry and parameters.
RegularizationInputs
regularizationInputs(const Geometry & geometry, const ReconParams & params)
{
  const DetectorAndGrid & g = detectorAndGridOf(geometry);
  RegularizationInputs    in;
  in.sinogramShape = g.sinogramShape;
  in.reconShape = g.reconShape;
  in.deltaVoxel = g.deltaVoxel;
  in.deltaDetChannel = g.deltaDetChannel;
  in.magnification = magnificationOf(geometry);
  in.snrDb = params.snrDb;
  in.estimateNoise = params.estimateNoise;
  in.sharpness = params.sharpness;
  return in;
}

// The keys that tie a checkpoint to its run: the data (read back in blocks of views), the geometry as its file
// would write it, and every parameter that changes the result (the regularisation as resolved for this call).
ReconCheckpoint
checkpointKeys(const Projector &            projector,
               const ReconParams &          params,
               const RegularizationParams & reg,
               const DeviceSinogram &       sinogram,
               const DeviceSinogram *       weights,
               const DeviceVolume *         proxInput)
{
  ReconCheckpoint keys;
  keys.shape = projector.reconShape();
  Fingerprint inputs;
  for (const DeviceSinogram * data : { &sinogram, weights })
  {
    inputs.addValue<std::uint8_t>(data != nullptr);
    if (!data)
      continue;
    const SinogramShape & s = data->shape();
    const int             block = std::max(1, int((std::size_t(64) << 20) / (std::size_t(s.rows) * s.channels * 4)));
    for (int first = 0; first < s.views; first += block)
    {
      std::vector<int> views(std::min(block, s.views - first));
      std::iota(views.begin(), views.end(), first);
      const std::vector<float> values = data->downloadViews(views);
      inputs.add(values.data(), values.size() * sizeof(float));
    }
  }
  inputs.addValue<std::uint8_t>(proxInput != nullptr);
  if (proxInput)
  {
    const std::vector<float> values = proxInput->download();
    inputs.add(values.data(), values.size() * sizeof(float));
  }
  keys.inputsKey = inputs.value();
  keys.geometryKey = Fingerprint().add(geometryToJson(projector.geometry())).value();
  Fingerprint p;
  for (const float v : { reg.sigmaY,
                         reg.sigmaX,
                         reg.sigmaProx,
                         reg.mismatchFactor,
                         params.p,
                         params.q,
                         params.T,
                         params.stopThresholdChangePct,
                         params.maxOverrelaxation })
    p.addValue(v);
  p.add(params.qggmrfNeighbourWeights.data(), sizeof params.qggmrfNeighbourWeights);
  p.add(params.granularity.data(), params.granularity.size() * sizeof(int)).addValue(params.granularity.size());
  p.add(params.partitionSequence.data(), params.partitionSequence.size() * sizeof(int));
  p.addValue(params.maxIterations).addValue(params.seed).addValue(params.positivity);
  keys.parametersKey = p.value();
  return keys;
}

std::shared_ptr<const DeviceGroup>
devicesFor(const Geometry & geometry, const DeviceSelection & selection)
{
  return std::make_shared<const DeviceGroup>(
    selection.resolve(sinogramShapeOf(geometry).views, reconShapeOf(geometry).slices));
}

} // namespace

Reconstructor::Reconstructor(Geometry geometry, const DeviceSelection & selection, ReconParams params)
  : m_Projector(geometry, devicesFor(geometry, selection))
  , m_Params(std::move(params))
  , m_DeviceNote(selection.fallbackNote())
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
  if (m_Params.checkpointEvery < 1)
    throw std::invalid_argument("checkpoint_every must be >= 1, got " + std::to_string(m_Params.checkpointEvery));
  if (!m_Params.checkpointFile.empty())
  {
    // Before the long computation, not at its first checkpoint.
    const std::filesystem::path file(m_Params.checkpointFile),
      folder = file.has_parent_path() ? file.parent_path() : ".";
    if (!std::filesystem::is_directory(folder) || ::access(folder.c_str(), W_OK) != 0)
      throw std::invalid_argument("checkpoint '" + m_Params.checkpointFile + "': the folder '" + folder.string() +
                                  "' does not exist or is not writable");
  }
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
  // Arrays in a GPU's memory are checked where they arrive, on the devices (DeviceSinogram::upload); the
  // sign of weights there is the caller's to check.
  if (!sinogram.onHost() || !weights.onHost() || !init.volume.onHost() || !proxInput.onHost())
  {
    requireShape(weights.empty() ? sinogram : weights, { s.views, s.rows, s.channels }, "the weights");
    if (init.kind == InitialImage::Kind::Volume && !init.deviceVolume)
    {
      requireShape(init.volume, { r.rows, r.cols, r.slices }, "the initial volume");
    }
    if (!proxInput.empty())
    {
      requireShape(proxInput, { r.rows, r.cols, r.slices }, "the proximal-map input");
    }
    checkParams();
    return;
  }
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
  m_Projector.checkOnDevices(sinogram, "the sinogram");
  if (weights)
  {
    m_Projector.checkOnDevices(*weights, "the weights");
    if (weightSum(*weights) == 0.0)
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
    m_Projector.checkOnDevices(*init.deviceVolume, "the initial volume");
  }
  else if (init.kind == InitialImage::Kind::Constant && !std::isfinite(init.constant))
  {
    throw std::invalid_argument("the initial constant is not finite");
  }
  if (proxInput)
  {
    m_Projector.checkOnDevices(*proxInput, "the proximal-map input");
  }
  checkParams();
}

RegularizationParams
Reconstructor::regularization(ArrayView3 sinogram, ArrayView3 weights) const
{
  if (!m_Params.autoRegularize)
  {
    RegularizationParams given;
    given.sigmaY = m_Params.sigmaY;
    given.sigmaX = m_Params.sigmaX;
    given.sigmaProx = m_Params.sigmaProx;
    return given;
  }
  return autoRegularization(sinogram.data, weights.data, regularizationInputs(m_Projector.geometry(), m_Params));
}

// The statistics need host values: only the views they read come back from the devices.
RegularizationParams
Reconstructor::regularization(const DeviceSinogram & sinogram, const DeviceSinogram * weights) const
{
  if (!m_Params.autoRegularize)
  {
    return regularization(ArrayView3(), ArrayView3());
  }
  const std::vector<int>   views = statisticsSamples(sinogram.shape().views);
  const std::vector<float> y = sinogram.downloadViews(views);
  const std::vector<float> w = weights ? weights->downloadViews(views) : std::vector<float>();
  return autoRegularizationFromViews(y, w, regularizationInputs(m_Projector.geometry(), m_Params));
}

ReconResult
Reconstructor::solveFromHost(ArrayView3   sinogram,
                             ArrayView3   weights,
                             InitialImage init,
                             ArrayView3   proxInput,
                             float        sigmaProx) const
{
  checkInputs(sinogram, weights, init, proxInput);
  requireMemoryFor(SolveCall{ true, !weights.empty(), !proxInput.empty(), init.kind });
  const std::shared_ptr<const DeviceGroup> & devices = m_Projector.groupPointer();
  const DeviceSinogram                       y = DeviceSinogram::upload(devices, sinogram);
  DeviceSinogram                             w;
  if (!weights.empty())
  {
    w = DeviceSinogram::upload(devices, weights);
  }
  // Host arrays are read where they are; arrays from a GPU's memory only through the views sampled back.
  RegularizationParams reg = sinogram.onHost() && weights.onHost() ? regularization(sinogram, weights)
                                                                   : regularization(y, w.empty() ? nullptr : &w);
  if (sigmaProx > 0.0f)
  {
    reg.sigmaProx = sigmaProx;
  }
  DeviceVolume initVolume, prox;
  if (init.kind == InitialImage::Kind::Volume && !init.deviceVolume)
  {
    initVolume = DeviceVolume::upload(devices, init.volume);
    init.deviceVolume = &initVolume;
  }
  if (!proxInput.empty())
  {
    prox = DeviceVolume::upload(devices, proxInput);
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
  requireMemoryFor(SolveCall{ false, weights != nullptr, false, init.kind });
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
  requireMemoryFor(SolveCall{ false, weights != nullptr, true, init.kind });
  RegularizationParams reg = regularization(sinogram, weights);
  if (sigmaProx > 0.0f)
  {
    reg.sigmaProx = sigmaProx;
  }
  return solve(sinogram, weights, init, &proxInput, reg);
}

DeviceReconResult
Reconstructor::solve(const DeviceSinogram & sinogram, // what it allocates, memoryNeed() plans: keep them in step
                     const DeviceSinogram * weights,
                     const InitialImage &   requestedInit,
                     const DeviceVolume *   proxInput,
                     RegularizationParams   reg) const
{
  // Checkpoints (README "Checkpoint and resume"): this run's keys, and the state a resume continues from.
  ReconCheckpoint keys, resumed;
  const bool      resume = !m_Params.resumeFile.empty();
  if (resume || !m_Params.checkpointFile.empty())
  {
    keys = checkpointKeys(m_Projector, m_Params, reg, sinogram, weights, proxInput);
  }
  DeviceVolume resumeVolume;
  InitialImage init = requestedInit;
  if (resume)
  {
    resumed = readCheckpoint(m_Params.resumeFile);
    std::string why = checkpointMismatch(resumed, keys);
    if (why.empty() && resumed.state.iteration >= resumed.scheduledIterations)
      why = "it holds no iteration left to run";
    if (!why.empty())
      throw std::invalid_argument("cannot resume from checkpoint '" + m_Params.resumeFile + "': " + why);
    resumeVolume = DeviceVolume::upload(m_Projector.groupPointer(), ArrayView3(resumed.volume, resumed.shape));
    resumed.volume = {};
    init = InitialImage::fromVolume(resumeVolume);
    reg.note = resumed.regularizationNote;
  }

  const DeviceGroup &   group = m_Projector.group();
  const int             n = group.size();
  const SinogramShape & sinoShape = m_Projector.sinogramShape();
  const ReconShape &    shape = m_Projector.reconShape();
  const ShardLayout &   slices = m_Projector.sliceLayout();
  const SinogramSplit   split = m_Projector.solverSplit();
  DeviceReconResult     result;
  result.regularization = reg;
  const auto log = detail::makeLog(m_Params.logSink, result.logText);
  if (m_Params.verbose >= 1)
  {
    std::ostringstream head;
    head << "MBIR on " << deviceSummary() << ": sinogram " << sinoShape.str() << ", recon " << shape.str()
         << ", sigma_y " << reg.sigmaY << ", sigma_x " << reg.sigmaX;
    if (proxInput)
      head << ", proximal prior sigma_prox " << reg.sigmaProx;
    if (split == SinogramSplit::ByRow)
      head << ", split by detector row (no exchange in projections)";
    log(head.str());
    if (!reg.note.empty())
      log(reg.note);
  }
  const double meanWeight = weights ? weightSum(*weights) / double(sinoShape.size()) : 1.0;
  auto         realSize = [&](int d) { return m_Projector.realShardSize(split, d); };
  // The data in the solver's split: the caller's shards by view, a copy by row.
  auto inSplit = [&](const DeviceSinogram & data, detail::PerDevice<DeviceArray<float>> & copies) {
    detail::PerDevice<const float *> shards;
    if (split == SinogramSplit::ByView)
    {
      for (int d = 0; d < n; ++d)
        shards.push_back(data.shard(d));
      return shards;
    }
    std::vector<float *> targets;
    for (int d = 0; d < n; ++d)
    {
      copies.push_back(group.device(d).allocate<float>(m_Projector.shardSize(split)));
      targets.push_back(copies[d].data());
      shards.push_back(copies[d].data());
    }
    m_Projector.copyInSplit(data, split, targets);
    return shards;
  };

  // Hessian diagonal of the data term, diag(A^T W A), at every pixel.
  const DeviceVolume hessian = m_Projector.hessianDiagonal(weights);

  // Initial image; its padding slices are zero whatever the caller's volume holds there.
  result.recon = DeviceVolume(m_Projector.groupPointer(), shape);
  DeviceVolume & x = result.recon;
  for (int d = 0; d < n; ++d)
  {
    Backend & device = group.device(d);
    if (init.kind == InitialImage::Kind::Constant)
    {
      device.fillSlices(init.constant, x.shard(d), shape.numPixels(), slices.perDevice, 0, slices.valid(d));
    }
    else if (init.kind == InitialImage::Kind::Volume)
    {
      device.copy(init.deviceVolume->shard(d), x.shard(d), m_Projector.volumeShardSize());
      device.fillSlices(0.0f, x.shard(d), shape.numPixels(), slices.perDevice, slices.valid(d), slices.perDevice);
    }
  }
  if (init.kind == InitialImage::Kind::DirectRecon)
  {
    directReconInto(m_Projector, sinogram, x);
  }

  detail::PerDevice<DeviceArray<float>>  weightCopies;
  const detail::PerDevice<const float *> weightShards =
    weights ? inSplit(*weights, weightCopies) : detail::PerDevice<const float *>{};

  // Error sinogram e = y - A x0, each device its own part.
  detail::PerDevice<DeviceArray<float>> error;
  {
    detail::PerDevice<DeviceArray<float>> cylinders;
    std::vector<CylinderBatch>            ror;
    std::vector<const float *>            values;
    std::vector<float *>                  targets;
    for (int d = 0; d < n; ++d)
    {
      error.push_back(group.device(d).allocate<float>(m_Projector.shardSize(split)));
      ror.push_back(m_Projector.rorCylinders(d));
      cylinders.push_back(
        group.device(d).allocate<float>(static_cast<std::size_t>(ror[d].numPixels) * ror[d].numSlices));
      group.device(d).gatherCylinders(x.shard(d), ror[d], cylinders[d].data());
      values.push_back(cylinders[d].data());
      targets.push_back(error[d].data());
    }
    m_Projector.forward(split, ror, values, targets);
  }
  detail::PerDevice<DeviceArray<float>>  dataCopies;
  const detail::PerDevice<const float *> data = inSplit(sinogram, dataCopies);
  float                                  scale = 1.0f;
  if (init.kind == InitialImage::Kind::DirectRecon)
  {
    // Least-squares intensity scale of the direct recon.
    std::vector<double> ab, bb;
    for (int d = 0; d < n; ++d)
    {
      const Backend::WeightedProducts p =
        group.device(d).weightedProducts(data[d], error[d].data(), weights ? weightShards[d] : nullptr, realSize(d));
      ab.push_back(p.ab);
      bb.push_back(p.bb);
    }
    const double sumBB = group.communicator().allReduceSum(bb);
    if (sumBB > 0.0)
      scale = static_cast<float>(group.communicator().allReduceSum(ab) / sumBB);
    for (int d = 0; d < n; ++d)
    {
      group.device(d).axpby(0.0f, x.shard(d), scale, x.shard(d), m_Projector.volumeShardSize());
    }
  }
  for (int d = 0; d < n; ++d)
  {
    group.device(d).axpby(1.0f, data[d], -scale, error[d].data(), realSize(d));
  }
  dataCopies.clear();

  // Partitions of the ROR pixels for the granularities the schedule uses, on every device.
  std::mt19937_64        random(m_Params.seed);
  const std::vector<int> schedule = partitionSchedule(m_Params.partitionSequence, m_Params.maxIterations);
  detail::Partitions     partitions(m_Params.granularity.size());
  for (std::size_t g = 0; g < m_Params.granularity.size(); ++g)
  {
    if (std::find(schedule.begin(), schedule.end(), int(g)) == schedule.end())
      continue;
    for (const std::vector<int> & subset : randomPartition(m_Projector.rorPixels(), m_Params.granularity[g], random))
    {
      partitions[g].push_back(m_Projector.uploadPixels(subset));
    }
  }

  detail::PriorTerm prior;
  prior.qggmrf =
    detail::makeQGGMRFParams(reg.sigmaX, m_Params.p, m_Params.q, m_Params.T, m_Params.qggmrfNeighbourWeights);
  if (proxInput)
  {
    for (int d = 0; d < n; ++d)
    {
      prior.proxInput.push_back(proxInput->shard(d));
    }
    prior.sigmaProx = reg.sigmaProx;
  }

  detail::VcdSettings settings;
  settings.dataScale = 1.0f / (reg.sigmaY * reg.sigmaY);
  settings.maxOverrelaxation = m_Params.maxOverrelaxation;
  settings.positivity = m_Params.positivity;
  settings.stopThresholdChangePct = m_Params.stopThresholdChangePct;
  settings.computePriorLoss = m_Params.computePriorLoss;
  settings.verbose = m_Params.verbose;
  settings.log = log;
  settings.progress = m_Params.progress;
  settings.iterationDone = m_Params.iterationDone;
  if (reg.mismatchFactor > 1.0f)
  {
    settings.fitTest = [&reg, &log, this](const IterationLog & entry) {
      const double factor = fitTestFactor(reg.mismatchFactor, entry.forwardLoss);
      std::ostringstream line;
      line << "Fit test after iteration " << entry.iteration + 1 << ": residual " << entry.forwardLoss
           << " x sigma_y (raise confirmed from 0.4, fully from 0.5): sigma_y x " << factor;
      if (m_Params.verbose >= 1)
        log(line.str());
      reg.note += "\n" + line.str();
      return factor;
    };
  }

  if (resume)
  {
    settings.start = resumed.state;
    if (m_Params.verbose >= 1)
      log("Resuming from checkpoint '" + m_Params.resumeFile + "' at iteration " +
          std::to_string(settings.start.iteration + 1) + "/" + std::to_string(schedule.size()) +
          (settings.start.subsetsDone > 0 ? ", after subset " + std::to_string(settings.start.subsetsDone)
                                          : std::string()));
  }
  if (!m_Params.checkpointFile.empty())
  {
    if (processGroup().rank == 0)
      removeStalePartialCheckpoints(m_Params.checkpointFile);
    settings.checkpointEvery = m_Params.checkpointEvery;
    settings.checkpoint = [&, this](const SolverState & state) {
      // Ranks stop at different subsets when interrupted, so across processes only the regular checkpoints,
      // which every rank reaches together, are collective enough to gather the volume.
      if (state.subsetsDone > 0 && processGroup().size > 1)
        return;
      const auto      begin = std::chrono::steady_clock::now();
      ReconCheckpoint c = keys;
      c.scheduledIterations = static_cast<int>(schedule.size());
      c.state = state;
      c.regularizationNote = reg.note;
      c.volume = x.download();
      if (processGroup().rank == 0)
        writeCheckpoint(m_Params.checkpointFile, c);
      if (m_Params.verbose >= 1)
      {
        char seconds[32];
        std::snprintf(seconds,
                      sizeof seconds,
                      "%.2f s",
                      std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count());
        log(
          "Checkpoint " +
          (state.subsetsDone > 0 ? std::string("at the stop") : "after iteration " + std::to_string(state.iteration)) +
          ": '" + m_Params.checkpointFile + "' (" + seconds + ")");
      }
    };
  }

  detail::VcdVolume volume;
  volume.group = &group;
  volume.slices = slices;
  volume.shape = shape;
  detail::PerDevice<float *>       errors;
  detail::PerDevice<const float *> hessianShards;
  for (int d = 0; d < n; ++d)
  {
    volume.shards.push_back(x.shard(d));
    volume.all.push_back(m_Projector.allCylinders(d));
    errors.push_back(error[d].data());
    hessianShards.push_back(hessian.shard(d));
  }
  ProjectorDataTerm        dataTerm(m_Projector, split, errors, weightShards, hessianShards, meanWeight);
  const detail::VcdOutcome outcome = detail::runVcd(volume, dataTerm, prior, partitions, schedule, settings, random);
  result.log = outcome.log;
  result.stoppedOnThreshold = outcome.stoppedOnThreshold;
  reg.sigmaY = static_cast<float>(reg.sigmaY * outcome.sigmaYFactor);
  result.regularization = reg;
  return result;
}

// Mirrors solve() phase by phase (keep the two in step): what each device holds at the peak of each
// phase, in floats, on top of the inputs the call uploads.
MemoryNeed
Reconstructor::memoryNeed(const SolveCall & call, int numDevices) const
{
  const int             n = numDevices > 0 ? numDevices : m_Projector.numDevices();
  const SinogramShape & s = m_Projector.sinogramShape();
  const ReconShape &    r = m_Projector.reconShape();
  const ShardLayout     views(s.views, n), slices(r.slices, n);
  const SinogramShape   shard{ views.perDevice, s.rows, s.channels };
  const std::size_t     S = shard.size();                     // a sinogram shard
  const std::size_t     V = r.numPixels() * slices.perDevice; // a volume shard
  const std::size_t     ror = m_Projector.rorPixels().size(); // ROR pixels
  const std::size_t     R = ror * slices.perDevice;           // their cylinders in a shard
  const std::size_t     workspace = m_Projector.device(0).workspaceBytes(shard) / sizeof(float);
  auto                  projection = [&](std::size_t pixels) { return m_Projector.projectionWorkFloats(pixels, n); };
  // The error and change sinograms in the solver's split; by row, the weights and (while e is made) the data
  // copied into it.
  const SinogramSplit split = m_Projector.solverSplit(n);
  const SinogramShape splitShard =
    split == SinogramSplit::ByRow ? SinogramShape{ s.views, slices.perDevice, s.channels } : shard;
  const std::size_t E = splitShard.size();
  const std::size_t splitCopy = split == SinogramSplit::ByRow ? E : 0;
  const std::size_t weightCopy = call.weights ? splitCopy : 0;
  const std::size_t splitWorkspace = m_Projector.device(0).workspaceBytes(splitShard) / sizeof(float);
  auto              solverProjection = [&](std::size_t pixels) {
    return m_Projector.projectionWorkFloats(pixels, n, split) + splitWorkspace;
  };

  // The partitions of the granularities the schedule uses (as randomPartition makes them), and the
  // largest subset, which sizes VCD's scratch.
  std::size_t            partitionInts = 0, largest = 0;
  const std::vector<int> schedule = partitionSchedule(m_Params.partitionSequence, m_Params.maxIterations);
  for (std::size_t g = 0; g < m_Params.granularity.size(); ++g)
  {
    if (std::find(schedule.begin(), schedule.end(), int(g)) == schedule.end())
      continue;
    const std::size_t k = std::max<std::size_t>(1, std::min<std::size_t>(m_Params.granularity[g], ror));
    const std::size_t size = (ror + k - 1) / k;
    partitionInts += k * size;
    largest = std::max(largest, size);
  }

  // A resume starts from the checkpoint's volume, uploaded.
  const bool        resume = !m_Params.resumeFile.empty();
  const auto        init = resume ? InitialImage::Kind::Volume : call.init;
  const bool        uploadsVolume = init == InitialImage::Kind::Volume && (call.inputsOnHost || resume);
  const std::size_t inputs =
    (call.inputsOnHost ? S * (call.weights ? 2 : 1) + V * (call.proxInput ? 1 : 0) : 0) + (uploadsVolume ? V : 0);
  const std::size_t upload = call.inputsOnHost ? S + workspace : 0; // a staging shard on the way in
  // Hessian diagonal: the ones standing in for absent weights, and the back projection of every pixel.
  const std::size_t hessian = V + (call.weights ? 0 : S) + projection(r.numPixels()) + workspace;
  // Direct-recon init (Hessian and x held): filtered views and ROR values, or translation's sums.
  std::size_t direct = 0;
  if (init == InitialImage::Kind::DirectRecon)
  {
    const std::size_t cells = static_cast<std::size_t>(s.rows) * s.channels;
    direct = directReconFilters(m_Projector.geometry())
               ? 2 * V + std::max({ S + cells + workspace, S + R + projection(ror) + workspace, 2 * R })
               : 2 * V + std::max(R, S) + S + 2 * R + std::max(projection(ror), R);
  }
  // Error sinogram e = y - A x0: the ROR cylinders of x0 and their forward projection.
  const std::size_t error = 2 * V + weightCopy + E + std::max(R + solverProjection(ror), splitCopy);
  // VCD: x, Hessian, error and change sinograms, partitions, per-subset scratch and halos, and the
  // largest transient of a subset (projections, or the prior cost's plane or difference volume).
  const std::size_t scratch = (m_Params.positivity ? 6 : 5) * largest * slices.perDevice;
  const std::size_t halos = n > 1 && !call.proxInput ? 3 * largest : 0;
  const std::size_t priorCost = !m_Params.computePriorLoss ? 0 : call.proxInput ? V : (n > 1 ? r.numPixels() : 0);
  const std::size_t vcd =
    2 * V + 2 * E + weightCopy + partitionInts + scratch + halos + std::max(solverProjection(largest), priorCost);

  MemoryNeed need;
  need.perDevice = (inputs + std::max({ upload, hessian, direct, error, vcd })) * sizeof(float);
  if (call.inputsOnHost)
    need.host = r.size() * sizeof(float); // the result brought back
  else if (m_Params.autoRegularize)
    need.host = statisticsSamples(s.views).size() * s.rows * s.channels * sizeof(float) *
                (call.weights ? 2 : 1); // the views the statistics read, brought back
  return need;
}

void
Reconstructor::requireMemoryFor(const SolveCall & call) const
{
  requireMemory(m_Projector.group(),
                memoryNeed(call),
                std::string(call.proxInput ? "the proximal map" : "MBIR") + " of sinogram " +
                  m_Projector.sinogramShape().str() + " into recon " + m_Projector.reconShape().str(),
                [&](int devices) { return memoryNeed(call, devices); });
}

double
Reconstructor::weightSum(const DeviceSinogram & weights) const
{
  const SinogramShape & s = weights.shape();
  std::vector<double>   sums;
  for (int d = 0; d < weights.group().size(); ++d)
  {
    sums.push_back(weights.group().device(d).sumAbs(
      weights.shard(d), static_cast<std::size_t>(weights.views().valid(d)) * s.rows * s.channels));
  }
  return weights.group().communicator().allReduceSum(sums);
}

std::vector<float>
Reconstructor::forwardProject(ArrayView3 recon) const
{
  const ReconShape & r = m_Projector.reconShape();
  requireShape(recon, { r.rows, r.cols, r.slices }, "the volume to project");
  return m_Projector.forwardProject(DeviceVolume::upload(m_Projector.groupPointer(), recon)).download();
}

std::vector<float>
Reconstructor::backProject(ArrayView3 sinogram) const
{
  const SinogramShape & s = m_Projector.sinogramShape();
  requireShape(sinogram, { s.views, s.rows, s.channels }, "the sinogram to back-project");
  return m_Projector.backProject(DeviceSinogram::upload(m_Projector.groupPointer(), sinogram)).download();
}

std::vector<float>
Reconstructor::directRecon(ArrayView3 sinogram) const
{
  return mbir::directRecon(m_Projector, sinogram);
}

std::vector<float>
Reconstructor::forwardProject(const std::vector<float> & recon) const
{
  return forwardProject(ArrayView3(recon, m_Projector.reconShape()));
}

std::vector<float>
Reconstructor::backProject(const std::vector<float> & sinogram) const
{
  return backProject(ArrayView3(sinogram, m_Projector.sinogramShape()));
}

std::vector<float>
Reconstructor::directRecon(const std::vector<float> & sinogram) const
{
  return directRecon(ArrayView3(sinogram, m_Projector.sinogramShape()));
}

} // namespace mbir
