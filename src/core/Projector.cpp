#include "mbir/Projector.h"

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>

namespace mbir {
namespace {

// Uploads the view table and returns the device model that points at it.
template<typename G>
DeviceModel
makeDeviceModel(const G & geometry, Backend & backend, DeviceAllocation & viewTable)
{
  using Params = decltype(geometry.kernelParams());
  using View = typename Params::View;
  const std::vector<View> views = geometry.viewTable();
  const std::size_t       bytes = views.size() * sizeof(View);
  viewTable = backend.allocateBytes(bytes);
  backend.copyToDevice(views.data(), viewTable.get(), bytes);
  return GeometryModel<Params>{ geometry.kernelParams(), static_cast<const View *>(viewTable.get()) };
}

// MBIR_SINOGRAM_SPLIT: unset or "auto" lets the projector choose; "view" or "row" asks for that split.
std::optional<SinogramSplit>
requestedSplit()
{
  const char *      text = std::getenv("MBIR_SINOGRAM_SPLIT");
  const std::string value = text ? text : "";
  if (value.empty() || value == "auto")
    return std::nullopt;
  if (value == "view" || value == "row")
    return value == "view" ? SinogramSplit::ByView : SinogramSplit::ByRow;
  throw std::invalid_argument("MBIR_SINOGRAM_SPLIT is '" + value + "'; use view, row or auto (or leave it unset)");
}

} // namespace

Projector::Projector(Geometry geometry, std::shared_ptr<Backend> device)
  : Projector(std::move(geometry), singleDevice(std::move(device)))
{}

Projector::Projector(Geometry geometry, std::shared_ptr<const DeviceGroup> devices)
  : m_Geometry(std::move(geometry))
  , m_Group(std::move(devices))
{
  if (!m_Group)
  {
    throw std::invalid_argument("Projector: no devices given");
  }
  std::visit([](const auto & g) { g.validate(); }, m_Geometry);
  m_Views = ShardLayout(sinogramShape().views, numDevices());
  m_Slices = ShardLayout(reconShape().slices, numDevices());
  m_RorPixels = detectorAndGridOf(m_Geometry).rorMask.pixelIndices(reconShape());
  m_RequestedSplit = requestedSplit();
  std::vector<int> all(reconShape().numPixels());
  std::iota(all.begin(), all.end(), 0);
  m_Devices.resize(numDevices());
  for (int d = 0; d < numDevices(); ++d)
  {
    PerDevice & pd = m_Devices[d];
    std::visit([&](const auto & g) { pd.model = makeDeviceModel(g, device(d), pd.viewTable); }, m_Geometry);
    if (auto * parallel = std::get_if<ParallelBeamModel>(&pd.model))
    {
      ParallelBeamModel rows = *parallel;
      rows.params.numDetRows = m_Slices.valid(d); // rows are slices; the shard's row stride too
      pd.rowModel = rows;
    }
    pd.rorPixels = device(d).upload(m_RorPixels.data(), m_RorPixels.size());
    pd.allPixels = device(d).upload(all.data(), all.size());
  }
}

// By row, each device works out the footprints of every view again for its rows; by view, a projection's exchange
// moves each subset's cylinders. Devices with memories of their own (GPUs) exchange over links, so rows win; CPU
// devices share one memory, where the exchange is a copy and measured no slower (README "Across nodes").
SinogramSplit
Projector::solverSplit(int numDevices) const
{
  const int     n = numDevices > 0 ? numDevices : this->numDevices();
  bool          local = true;
  std::set<int> memories;
  for (int d = 0; d < this->numDevices(); ++d)
  {
    local = local && !device(d).remote();
    memories.insert(device(d).memoryPool());
  }
  if (!std::holds_alternative<ParallelBeamGeometry>(m_Geometry) || n < 2 || !local)
    return SinogramSplit::ByView;
  if (m_RequestedSplit)
    return *m_RequestedSplit;
  const bool ownMemories = static_cast<int>(memories.size()) == this->numDevices();
  return ownMemories ? SinogramSplit::ByRow : SinogramSplit::ByView;
}

std::size_t
Projector::shardSize(SinogramSplit split) const
{
  const SinogramShape & s = sinogramShape();
  return split == SinogramSplit::ByRow ? static_cast<std::size_t>(s.views) * s.channels * m_Slices.perDevice
                                       : sinogramShardSize();
}

std::size_t
Projector::realShardSize(SinogramSplit split, int d) const
{
  const SinogramShape & s = sinogramShape();
  return split == SinogramSplit::ByRow ? static_cast<std::size_t>(s.views) * s.channels * m_Slices.valid(d)
                                       : static_cast<std::size_t>(m_Views.valid(d)) * s.rows * s.channels;
}

// By row, device d's shard is [view][channel][its rows]: from each device's views, the runs of d's rows of every
// detector column.
void
Projector::copyInSplit(const DeviceSinogram & sinogram, SinogramSplit split, const std::vector<float *> & shards) const
{
  checkOnDevices(sinogram, "the sinogram");
  if (split == SinogramSplit::ByView)
  {
    for (int d = 0; d < numDevices(); ++d)
      device(d).copy(sinogram.shard(d), shards[d], sinogramShardSize());
    return;
  }
  const SinogramShape & s = sinogramShape();
  for (int d = 0; d < numDevices(); ++d)
  {
    const std::size_t rows = m_Slices.valid(d);
    for (int e = 0; e < numDevices() && rows > 0; ++e)
    {
      const std::size_t columns = static_cast<std::size_t>(m_Views.valid(e)) * s.channels;
      if (columns > 0)
      {
        device(d).copyRowsToDevice(sinogram.shard(e) + m_Slices.first(d),
                                   s.rows * sizeof(float),
                                   shards[d] + m_Views.first(e) * s.channels * rows,
                                   rows * sizeof(float),
                                   rows * sizeof(float),
                                   columns);
      }
    }
  }
}

CylinderBatch
Projector::rorCylinders(int d) const
{
  return CylinderBatch{
    m_Devices[d].rorPixels.data(), static_cast<int>(m_RorPixels.size()), m_Slices.perDevice, m_Slices.first(d)
  };
}

CylinderBatch
Projector::allCylinders(int d) const
{
  return CylinderBatch{
    m_Devices[d].allPixels.data(), static_cast<int>(reconShape().numPixels()), m_Slices.perDevice, m_Slices.first(d)
  };
}

std::vector<DeviceArray<int>>
Projector::uploadPixels(const std::vector<int> & pixels) const
{
  std::vector<DeviceArray<int>> onDevices;
  for (int d = 0; d < numDevices(); ++d)
  {
    onDevices.push_back(device(d).upload(pixels.data(), pixels.size()));
  }
  return onDevices;
}

std::vector<CylinderBatch>
Projector::batchesOf(const std::vector<DeviceArray<int>> & pixels) const
{
  std::vector<CylinderBatch> batches;
  for (int d = 0; d < numDevices(); ++d)
  {
    batches.push_back(
      CylinderBatch{ pixels[d].data(), static_cast<int>(pixels[d].size()), m_Slices.perDevice, m_Slices.first(d) });
  }
  return batches;
}

// Devices work on whole cylinders (every slice), so each (view, pixel) footprint is computed once, in
// chunks of cylinders a quarter of a volume shard big together, so transient memory (the chunk's whole
// cylinders and their owner-major blocks) stays half a shard whatever the batch. One device needs no
// chunks and no exchange.
std::size_t
Projector::cylindersPerChunk(std::size_t pixels, const ShardLayout & slices) const
{
  if (slices.devices == 1)
  {
    return std::max<std::size_t>(pixels, 1);
  }
  const std::size_t shard = reconShape().numPixels() * slices.perDevice;
  return std::max<std::size_t>(1, shard / (4 * slices.padded())); // a quarter of a shard
}

std::size_t
Projector::projectionWorkFloats(std::size_t pixels, int numDevices, SinogramSplit split) const
{
  if (numDevices <= 1 || split == SinogramSplit::ByRow)
  {
    return 0;
  }
  const ShardLayout slices(reconShape().slices, numDevices);
  const std::size_t chunk = std::min(cylindersPerChunk(pixels, slices), pixels);
  return 2 * chunk * slices.padded(); // whole cylinders and their owner-major blocks
}

// Sharded: per chunk of cylinders, one all-gather brings every owner's slices to every device (owner-major),
// each device lays them out as whole cylinders and projects its views.
void
Projector::forward(SinogramSplit                      split,
                   const std::vector<CylinderBatch> & batches,
                   const std::vector<const float *> & values,
                   const std::vector<float *> &       sinograms,
                   SquaredNorms *                     norms) const
{
  if (norms)
  {
    norms->sums.assign(numDevices(), 0.0); // a device that projects nothing keeps its zero sinogram
  }
  if (split == SinogramSplit::ByRow)
  {
    forwardByRow(batches, values, sinograms, norms);
    return;
  }
  const int         n = numDevices();
  const std::size_t pixels = batches[0].numPixels;
  const std::size_t per = m_Slices.perDevice, whole = m_Slices.padded();
  const std::size_t chunk = std::min(cylindersPerChunk(pixels, m_Slices), pixels);
  if (n == 1)
  {
    if (views(0).count > 0)
      forwardOn(0, m_Devices[0].model, batches[0], values[0], views(0), sinograms[0], norms);
    return;
  }
  std::vector<DeviceArray<float>> gathered(n), cylinders(n);
  std::vector<float *>            received(n);
  for (int d = 0; d < n; ++d)
  {
    gathered[d] = device(d).allocate<float>(chunk * whole);
    cylinders[d] = device(d).allocate<float>(chunk * whole);
    received[d] = gathered[d].data();
  }
  for (std::size_t start = 0; start < pixels; start += chunk)
  {
    const std::size_t          count = std::min(chunk, pixels - start);
    std::vector<const float *> shares(n);
    for (int owner = 0; owner < n; ++owner)
    {
      shares[owner] = values[owner] + start * per;
    }
    m_Group->communicator().allGather(shares, received, count * per);
    for (int d = 0; d < n; ++d)
    {
      if (views(d).count == 0)
      {
        continue;
      }
      for (int owner = 0; owner < n; ++owner)
      {
        device(d).copyRows(
          gathered[d].data() + owner * count * per, per, cylinders[d].data() + owner * per, whole, per, count);
      }
      const CylinderBatch batch{ batches[d].pixels + start, static_cast<int>(count), static_cast<int>(whole), 0 };
      forwardOn(d,
                m_Devices[d].model,
                batch,
                cylinders[d].data(),
                views(d),
                sinograms[d],
                start + count == pixels ? norms : nullptr);
    }
  }
}

void
Projector::forwardOn(int                   d,
                     const DeviceModel &   model,
                     const CylinderBatch & batch,
                     const float *         values,
                     const ViewRange &     views,
                     float *               sinogram,
                     SquaredNorms *        norms) const
{
  if (norms)
  {
    norms->sums[d] =
      device(d).forwardProjectAndNorm(model, batch, values, views, norms->weights[d], norms->entries[d], sinogram);
  }
  else
  {
    device(d).forwardProject(model, batch, values, views, sinogram);
  }
}

// Sharded: per chunk, each device back-projects its views onto whole cylinders and lays its sums out
// owner-major, and one reduce-scatter leaves each owner the sum of its slices.
void
Projector::back(SinogramSplit                               split,
                const std::vector<const float *> &          sinograms,
                const std::vector<const float *> &          weights,
                int                                         power,
                const std::vector<CylinderBatch> &          batches,
                const std::vector<float *> &                values,
                const std::vector<Backend::PendingUpdate> & pending) const
{
  if (split == SinogramSplit::ByRow)
  {
    backByRow(sinograms, weights, power, batches, values, pending);
    return;
  }
  const int         n = numDevices();
  const std::size_t pixels = batches[0].numPixels;
  const std::size_t per = m_Slices.perDevice, whole = m_Slices.padded();
  const std::size_t chunk = std::min(cylindersPerChunk(pixels, m_Slices), pixels);
  // The pending update goes with each device's first chunk.
  auto project = [&](int d, const CylinderBatch & batch, float * out, bool first) {
    device(d).fillZero(out, static_cast<std::size_t>(batch.numPixels) * batch.numSlices * sizeof(float));
    backOn(d,
           m_Devices[d].model,
           batch,
           sinograms[d],
           weights.empty() ? nullptr : weights[d],
           views(d),
           power,
           out,
           first && !pending.empty() ? &pending[d] : nullptr);
  };
  if (n == 1)
  {
    project(0, batches[0], values[0], true);
    return;
  }
  std::vector<DeviceArray<float>> partial(n), blocks(n);
  std::vector<const float *>      sums(n);
  for (int d = 0; d < n; ++d)
  {
    partial[d] = device(d).allocate<float>(chunk * whole);
    blocks[d] = device(d).allocate<float>(chunk * whole);
    sums[d] = blocks[d].data();
  }
  for (std::size_t start = 0; start < pixels; start += chunk)
  {
    const std::size_t count = std::min(chunk, pixels - start);
    for (int d = 0; d < n; ++d)
    {
      project(d,
              CylinderBatch{ batches[d].pixels + start, static_cast<int>(count), static_cast<int>(whole), 0 },
              partial[d].data(),
              start == 0);
      for (int owner = 0; owner < n; ++owner)
      {
        device(d).copyRows(
          partial[d].data() + owner * per, whole, blocks[d].data() + owner * count * per, per, per, count);
      }
    }
    std::vector<float *> targets(n);
    for (int owner = 0; owner < n; ++owner)
    {
      targets[owner] = values[owner] + start * per;
    }
    m_Group->communicator().reduceScatter(sums, targets, count * per);
  }
}

void
Projector::backOn(int                            d,
                  const DeviceModel &            model,
                  const CylinderBatch &          batch,
                  const float *                  sinogram,
                  const float *                  weights,
                  const ViewRange &              views,
                  int                            power,
                  float *                        values,
                  const Backend::PendingUpdate * pending) const
{
  if (pending && pending->sinogram != sinogram)
  {
    throw std::logic_error("Projector::back: a pending update must be of the sinogram it back-projects");
  }
  if (views.count == 0 || batch.numPixels == 0)
  {
    if (pending)
    {
      device(d).addScaledAndClear(pending->scale, pending->change, pending->sinogram, pending->entries);
    }
    return;
  }
  if (pending)
  {
    device(d).backProjectUpdated(*pending, model, batch, weights, views, power, values);
  }
  else
  {
    device(d).backProject(model, batch, sinogram, weights, views, power, values);
  }
}

// A device's rows are its slices, so its cylinder values start at its first row (firstSlice 0 of its row model).
void
Projector::forwardByRow(const std::vector<CylinderBatch> & batches,
                        const std::vector<const float *> & values,
                        const std::vector<float *> &       sinograms,
                        SquaredNorms *                     norms) const
{
  const ViewRange every{ 0, sinogramShape().views };
  for (int d = 0; d < numDevices(); ++d)
  {
    if (m_Slices.valid(d) > 0 && batches[d].numPixels > 0)
    {
      const CylinderBatch batch{ batches[d].pixels, batches[d].numPixels, batches[d].numSlices, 0 };
      forwardOn(d, m_Devices[d].rowModel, batch, values[d], every, sinograms[d], norms);
    }
  }
}

void
Projector::backByRow(const std::vector<const float *> &          sinograms,
                     const std::vector<const float *> &          weights,
                     int                                         power,
                     const std::vector<CylinderBatch> &          batches,
                     const std::vector<float *> &                values,
                     const std::vector<Backend::PendingUpdate> & pending) const
{
  const ViewRange every{ 0, sinogramShape().views };
  for (int d = 0; d < numDevices(); ++d)
  {
    const CylinderBatch batch{
      batches[d].pixels, m_Slices.valid(d) > 0 ? batches[d].numPixels : 0, batches[d].numSlices, 0
    };
    device(d).fillZero(values[d], static_cast<std::size_t>(batches[d].numPixels) * batch.numSlices * sizeof(float));
    backOn(d,
           m_Devices[d].rowModel,
           batch,
           sinograms[d],
           weights.empty() ? nullptr : weights[d],
           every,
           power,
           values[d],
           pending.empty() ? nullptr : &pending[d]);
  }
}

namespace {

// Device data must live on the projector's devices and have the geometry's shape.
template<typename Data, typename Shape>
void
checkOn(const DeviceGroup & devices, const Data & data, const Shape & expected, const char * what)
{
  if (data.empty())
  {
    throw std::invalid_argument(std::string(what) + " is empty");
  }
  if (!data.group().sameDevices(devices))
  {
    throw std::invalid_argument(std::string(what) + " lives on other devices (" + data.group().summary() +
                                ") than the reconstruction (" + devices.summary() + "); upload it to these first");
  }
  if (!(data.shape() == expected))
  {
    throw std::invalid_argument(std::string(what) + " has shape " + data.shape().str() + " but the geometry needs " +
                                expected.str());
  }
}

} // namespace

void
Projector::checkOnDevices(const DeviceSinogram & sinogram, const char * what) const
{
  checkOn(*m_Group, sinogram, sinogramShape(), what);
}

void
Projector::checkOnDevices(const DeviceVolume & volume, const char * what) const
{
  checkOn(*m_Group, volume, reconShape(), what);
}

DeviceSinogram
Projector::forwardProject(const DeviceVolume & recon) const
{
  checkOnDevices(recon, "the volume");
  std::vector<DeviceArray<float>> cylinders;
  std::vector<CylinderBatch>      batches;
  std::vector<const float *>      values;
  DeviceSinogram                  sinogram(m_Group, sinogramShape());
  std::vector<float *>            targets;
  for (int d = 0; d < numDevices(); ++d)
  {
    batches.push_back(rorCylinders(d));
    cylinders.push_back(device(d).allocate<float>(m_RorPixels.size() * m_Slices.perDevice));
    device(d).gatherCylinders(recon.shard(d), batches[d], cylinders[d].data());
    values.push_back(cylinders[d].data());
    targets.push_back(sinogram.shard(d));
  }
  forward(SinogramSplit::ByView, batches, values, targets);
  return sinogram;
}

DeviceVolume
Projector::backProject(const DeviceSinogram & sinogram) const
{
  checkOnDevices(sinogram, "the sinogram");
  std::vector<DeviceArray<float>> cylinders;
  std::vector<CylinderBatch>      batches;
  std::vector<const float *>      sources;
  std::vector<float *>            values;
  for (int d = 0; d < numDevices(); ++d)
  {
    batches.push_back(rorCylinders(d));
    cylinders.push_back(device(d).allocate<float>(m_RorPixels.size() * m_Slices.perDevice));
    values.push_back(cylinders[d].data());
    sources.push_back(sinogram.shard(d));
  }
  back(SinogramSplit::ByView, sources, {}, 1, batches, values);
  DeviceVolume volume(m_Group, reconShape());
  for (int d = 0; d < numDevices(); ++d)
  {
    device(d).scatterAddCylinders(1.0f, values[d], batches[d], volume.shard(d));
  }
  return volume;
}

DeviceVolume
Projector::hessianDiagonal(const DeviceSinogram * weights) const
{
  DeviceSinogram ones;
  if (weights)
  {
    checkOnDevices(*weights, "the weights");
  }
  else
  {
    ones = DeviceSinogram(m_Group, sinogramShape());
    for (int d = 0; d < numDevices(); ++d)
    {
      device(d).fill(1.0f, ones.shard(d), sinogramShardSize());
    }
  }
  const DeviceSinogram &     w = weights ? *weights : ones;
  DeviceVolume               hessian(m_Group, reconShape());
  std::vector<const float *> sources;
  std::vector<CylinderBatch> batches;
  std::vector<float *>       values;
  for (int d = 0; d < numDevices(); ++d)
  {
    sources.push_back(w.shard(d));
    batches.push_back(allCylinders(d)); // every pixel, in order: the values are the volume shard
    values.push_back(hessian.shard(d));
  }
  back(SinogramSplit::ByView, sources, {}, 2, batches, values);
  return hessian;
}

std::vector<float>
Projector::forwardProject(const float * recon) const
{
  const ReconShape & r = reconShape();
  return forwardProject(DeviceVolume::upload(m_Group, ArrayView3(recon, { r.rows, r.cols, r.slices }))).download();
}

std::vector<float>
Projector::backProject(const float * sinogram) const
{
  const SinogramShape & s = sinogramShape();
  return backProject(DeviceSinogram::upload(m_Group, ArrayView3(sinogram, { s.views, s.rows, s.channels }))).download();
}

std::vector<float>
Projector::hessianDiagonal(const float * weights) const
{
  if (!weights)
  {
    return hessianDiagonal(static_cast<const DeviceSinogram *>(nullptr)).download();
  }
  const SinogramShape & s = sinogramShape();
  const DeviceSinogram  w = DeviceSinogram::upload(m_Group, ArrayView3(weights, { s.views, s.rows, s.channels }));
  return hessianDiagonal(&w).download();
}

void
Projector::checkPixels(const std::vector<int> & pixels) const
{
  const int numPixels = static_cast<int>(reconShape().numPixels());
  for (const int p : pixels)
  {
    if (p < 0 || p >= numPixels)
    {
      throw std::invalid_argument("pixel index " + std::to_string(p) + " is outside the recon grid of " +
                                  std::to_string(numPixels) + " pixels");
    }
  }
}

std::vector<float>
Projector::sparseForwardProject(const float * values, const std::vector<int> & pixels) const
{
  checkPixels(pixels);
  const int                           slices = reconShape().slices;
  const std::vector<DeviceArray<int>> onDevices = uploadPixels(pixels);
  const std::vector<CylinderBatch>    batches = batchesOf(onDevices);
  // The cylinders as a volume of pixels.size() pixels, split by slice like any volume.
  const DeviceVolume cylinders =
    DeviceVolume::upload(m_Group, ArrayView3(values, { 1, static_cast<int>(pixels.size()), slices }));
  DeviceSinogram             sinogram(m_Group, sinogramShape());
  std::vector<const float *> sources;
  std::vector<float *>       targets;
  for (int d = 0; d < numDevices(); ++d)
  {
    sources.push_back(cylinders.shard(d));
    targets.push_back(sinogram.shard(d));
  }
  if (!pixels.empty())
  {
    forward(SinogramSplit::ByView, batches, sources, targets);
  }
  return sinogram.download();
}

std::vector<float>
Projector::sparseBackProject(const float * sinogram, const std::vector<int> & pixels, int power) const
{
  if (power != 1 && power != 2)
  {
    throw std::invalid_argument("back projection power must be 1 (A^T) or 2 (Hessian diagonal), got " +
                                std::to_string(power));
  }
  checkPixels(pixels);
  const SinogramShape & s = sinogramShape();
  const DeviceSinogram  y = DeviceSinogram::upload(m_Group, ArrayView3(sinogram, { s.views, s.rows, s.channels }));
  const std::vector<DeviceArray<int>> onDevices = uploadPixels(pixels);
  const std::vector<CylinderBatch>    batches = batchesOf(onDevices);
  DeviceVolume               cylinders(m_Group, ReconShape{ 1, static_cast<int>(pixels.size()), reconShape().slices });
  std::vector<const float *> sources;
  std::vector<float *>       targets;
  for (int d = 0; d < numDevices(); ++d)
  {
    sources.push_back(y.shard(d));
    targets.push_back(cylinders.shard(d));
  }
  if (!pixels.empty())
  {
    back(SinogramSplit::ByView, sources, {}, power, batches, targets);
  }
  return cylinders.download();
}

} // namespace mbir
