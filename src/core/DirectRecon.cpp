#include "mbir/DirectRecon.h"

#include "mbir/ArrayView.h"

#include <cmath>
#include <numeric>
#include <type_traits>
#include <utility>

namespace mbir {
namespace {

// The same ramp along the channels for every view.
std::vector<RampDirection>
rampAlongChannels(const SinogramShape & shape, double scale)
{
  return std::vector<RampDirection>(shape.views, RampDirection{ static_cast<float>(scale), 0.0f });
}

// Overwrites the ROR cylinders of each volume shard with `values` (ROR pixels x the shard's slices).
void
replaceRorCylinders(const Projector & projector, const std::vector<float *> & values, DeviceVolume & volume)
{
  for (int d = 0; d < projector.numDevices(); ++d)
  {
    Backend &           device = projector.device(d);
    const CylinderBatch ror = projector.rorCylinders(d);
    DeviceArray<float>  previous = device.allocate<float>(static_cast<std::size_t>(ror.numPixels) * ror.numSlices);
    device.gatherCylinders(volume.shard(d), ror, previous.data());
    device.scatterAddCylinders(-1.0f, previous.data(), ror, volume.shard(d));
    device.scatterAddCylinders(1.0f, values[d], ror, volume.shard(d));
  }
}

// Per device: weights its real views per detector cell (optional), ramp-filters them with the views'
// directions, back-projects all devices' filtered views onto the ROR cylinders of its slices, scales its
// slices by a per-slice factor (optional) and writes them into the volume.
void
filteredBackProjection(const Projector &                  projector,
                       const DeviceSinogram &             sinogram,
                       const std::vector<float> &         cellWeights,
                       const std::vector<RampDirection> & directions,
                       const std::vector<float> &         sliceFactors,
                       DeviceVolume &                     volume)
{
  const SinogramShape &           shape = projector.sinogramShape();
  const ShardLayout &             views = projector.viewLayout();
  const ShardLayout &             slices = projector.sliceLayout();
  std::vector<DeviceArray<float>> filtered, values;
  std::vector<const float *>      sources;
  std::vector<float *>            targets;
  std::vector<CylinderBatch>      batches;
  for (int d = 0; d < projector.numDevices(); ++d)
  {
    Backend & device = projector.device(d);
    filtered.push_back(device.allocate<float>(projector.sinogramShardSize()));
    const int           valid = views.valid(d);
    const SinogramShape real{ valid, shape.rows, shape.channels };
    if (valid > 0)
    {
      device.copy(sinogram.shard(d), filtered[d].data(), real.size());
      if (!cellWeights.empty())
      {
        const DeviceArray<float> weights = device.upload(cellWeights.data(), cellWeights.size());
        device.multiplyPeriodic(weights.data(), weights.size(), filtered[d].data(), real.size());
      }
      const std::vector<RampDirection> mine(directions.begin() + views.first(d),
                                            directions.begin() + views.first(d) + valid);
      device.rampFilter(filtered[d].data(), real, mine, filtered[d].data());
    }
    batches.push_back(projector.rorCylinders(d));
    values.push_back(device.allocate<float>(static_cast<std::size_t>(batches[d].numPixels) * batches[d].numSlices));
    sources.push_back(filtered[d].data());
    targets.push_back(values[d].data());
  }
  projector.back(SinogramSplit::ByView, sources, {}, 1, batches, targets);
  filtered.clear();
  if (!sliceFactors.empty())
  {
    for (int d = 0; d < projector.numDevices(); ++d)
    {
      std::vector<float> mine(slices.perDevice, 0.0f); // padding slices stay 0
      for (int k = 0; k < slices.valid(d); ++k)
      {
        mine[k] = sliceFactors[slices.first(d) + k];
      }
      const DeviceArray<float> factors = projector.device(d).upload(mine.data(), mine.size());
      projector.device(d).multiplyPeriodic(
        factors.data(), factors.size(), targets[d], static_cast<std::size_t>(batches[d].numPixels) * mine.size());
    }
  }
  replaceRorCylinders(projector, targets, volume);
}

// FBP: 1 / (voxel area) cancels the area the adjoint spreads per voxel; pi / V is the angular step.
void
filteredDirect(const ParallelBeamGeometry & g,
               const Projector &            projector,
               const DeviceSinogram &       sinogram,
               DeviceVolume &               volume)
{
  const double area = double(g.deltaVoxel) * g.deltaY();
  filteredBackProjection(
    projector, sinogram, {}, rampAlongChannels(g.sinogramShape, M_PI / g.sinogramShape.views / area), {}, volume);
}

// FDK (spec §3.5): cosine pre-weight, ramp scaled by dr / (dx dy dz M) * pi / V, the adjoint as back
// projector (it supplies the distance weight), and for a helix each slice divided by the fraction of
// views whose detector covers it.
void
filteredDirect(const ConeBeamGeometry & g,
               const Projector &        projector,
               const DeviceSinogram &   sinogram,
               DeviceVolume &           volume)
{
  const SinogramShape & s = g.sinogramShape;
  const double          D = g.sourceDetectorDist;
  // Cosine of the angle between the ray to each detector cell and the central ray; layout [channel][row].
  std::vector<float> cosines(static_cast<std::size_t>(s.channels) * s.rows, 1.0f);
  if (std::isfinite(D))
  {
    for (int n = 0; n < s.channels; ++n)
    {
      const double u = (n - 0.5 * (s.channels - 1)) * g.deltaDetChannel - g.detChannelOffset;
      for (int m = 0; m < s.rows; ++m)
      {
        const double w = (m - 0.5 * (s.rows - 1)) * g.deltaDetRow - g.detRowOffset;
        cosines[std::size_t(n) * s.rows + m] = static_cast<float>(
          g.curvedDetector ? D * std::cos(u / D) / std::sqrt(D * D + w * w) : D / std::sqrt(D * D + u * u + w * w));
      }
    }
  }
  const double scale =
    g.deltaDetRow / (double(g.deltaVoxel) * g.deltaY() * g.deltaZ() * g.magnification()) * M_PI / s.views;

  std::vector<float> sliceFactors;
  if (g.isHelical())
  {
    const ReconShape & r = g.reconShape;
    const double       halfHeight = 0.5 * s.rows * g.deltaDetRow / g.magnification();
    sliceFactors.resize(r.slices);
    for (int k = 0; k < r.slices; ++k)
    {
      const double z = g.deltaZ() * (k - 0.5 * (r.slices - 1)) + g.reconSliceOffset;
      int          covered = 0;
      for (const float h : g.helicalZShifts)
      {
        covered += std::fabs(z - h) <= halfHeight ? 1 : 0;
      }
      // A slice no view covers has nothing back-projected into it; leave it at 0 rather than infinity.
      sliceFactors[k] = covered > 0 ? static_cast<float>(double(s.views) / covered) : 0.0f;
    }
  }
  filteredBackProjection(projector, sinogram, cosines, rampAlongChannels(s, scale), sliceFactors, volume);
}

// Multi-axis FBP: view v is filtered along the direction in which its projection direction moves,
// |k . d'| with d' = (dd/dalpha) dalpha + (dd/depsilon) deps (spec §5.4, with the cos(epsilon) factor of
// the azimuth term); a scan covering the azimuths more than once is divided by its redundancy.
void
filteredDirect(const MultiAxisParallelGeometry & g,
               const Projector &                 projector,
               const DeviceSinogram &            sinogram,
               DeviceVolume &                    volume)
{
  const int V = g.sinogramShape.views;
  // Central differences inside, one-sided at the ends (numpy.gradient).
  auto gradient = [V](const std::vector<float> & a, int v) -> double {
    if (V == 1)
      return M_PI; // a single view: treat it as the whole half turn
    if (v == 0)
      return double(a[1]) - a[0];
    if (v == V - 1)
      return double(a[V - 1]) - a[V - 2];
    return 0.5 * (double(a[v + 1]) - a[v - 1]);
  };
  double coverage = 0.0;
  for (int v = 0; v < V; ++v)
  {
    coverage += std::fabs(gradient(g.angles, v));
  }
  const double               redundancy = std::max(1.0, coverage / M_PI);
  const double               volumeScale = 1.0 / (double(g.deltaVoxel) * g.deltaY() * g.deltaZ() * redundancy);
  std::vector<RampDirection> directions(V);
  for (int v = 0; v < V; ++v)
  {
    const double azimuthStep = V == 1 ? M_PI : gradient(g.angles, v);
    const double elevationStep = V == 1 ? 0.0 : gradient(g.elevations, v);
    directions[v].channel = static_cast<float>(-std::cos(g.elevations[v]) * azimuthStep * g.deltaDetRow * volumeScale);
    directions[v].row = static_cast<float>(elevationStep * g.deltaDetChannel * volumeScale);
  }
  filteredBackProjection(projector, sinogram, {}, directions, {}, volume);
}

// The direct recon of a geometry without a filteredDirect() of its own, such as translation, which has no
// rotation to filter along: the normalised back projection x = A^T (y / A 1) / A^T 1 (one SIRT step from
// zero), exact for a uniform object and the usual tomosynthesis shift-and-add otherwise.
void
normalisedBackProjection(const Projector & projector, const DeviceSinogram & sinogram, DeviceVolume & volume)
{
  const int                       n = projector.numDevices();
  std::vector<DeviceArray<float>> ones, rowSums, values, columnSums;
  std::vector<CylinderBatch>      batches;
  for (int d = 0; d < n; ++d)
  {
    Backend & device = projector.device(d);
    batches.push_back(projector.rorCylinders(d));
    const std::size_t cylinders = static_cast<std::size_t>(batches[d].numPixels) * batches[d].numSlices;
    ones.push_back(device.allocate<float>(std::max(cylinders, projector.sinogramShardSize())));
    device.fill(1.0f, ones[d].data(), ones[d].size());
    rowSums.push_back(device.allocate<float>(projector.sinogramShardSize()));
    values.push_back(device.allocate<float>(cylinders));
    columnSums.push_back(device.allocate<float>(cylinders));
  }
  auto pointers = [](std::vector<DeviceArray<float>> & a) {
    std::vector<float *> p;
    for (auto & x : a)
      p.push_back(x.data());
    return p;
  };
  auto constPointers = [](std::vector<DeviceArray<float>> & a) {
    std::vector<const float *> p;
    for (auto & x : a)
      p.push_back(x.data());
    return p;
  };
  projector.forward(SinogramSplit::ByView, batches, constPointers(ones), pointers(rowSums));
  for (int d = 0; d < n; ++d)
  {
    projector.device(d).divideWherePositive(sinogram.shard(d), rowSums[d].data(), rowSums[d].data(), rowSums[d].size());
  }
  projector.back(SinogramSplit::ByView, constPointers(rowSums), {}, 1, batches, pointers(values));
  projector.back(SinogramSplit::ByView, constPointers(ones), {}, 1, batches, pointers(columnSums));
  for (int d = 0; d < n; ++d)
  {
    projector.device(d).divideWherePositive(values[d].data(), columnSums[d].data(), values[d].data(), values[d].size());
  }
  replaceRorCylinders(projector, pointers(values), volume);
}

template<typename G, typename = void>
struct HasFilteredDirect : std::false_type
{};
template<typename G>
struct HasFilteredDirect<G,
                         std::void_t<decltype(filteredDirect(std::declval<const G &>(),
                                                             std::declval<const Projector &>(),
                                                             std::declval<const DeviceSinogram &>(),
                                                             std::declval<DeviceVolume &>()))>> : std::true_type
{};

} // namespace

bool
directReconFilters(const Geometry & geometry)
{
  return std::visit([](const auto & g) { return HasFilteredDirect<std::decay_t<decltype(g)>>::value; }, geometry);
}

void
directReconInto(const Projector & projector, const DeviceSinogram & sinogram, DeviceVolume & volume)
{
  projector.checkOnDevices(sinogram, "the sinogram");
  projector.checkOnDevices(volume, "the volume");
  std::visit(
    [&](const auto & g) {
      if constexpr (HasFilteredDirect<std::decay_t<decltype(g)>>::value)
      {
        filteredDirect(g, projector, sinogram, volume);
      }
      else
      {
        normalisedBackProjection(projector, sinogram, volume);
      }
    },
    projector.geometry());
}

DeviceVolume
directRecon(const Projector & projector, const DeviceSinogram & sinogram)
{
  DeviceVolume volume(projector.groupPointer(), projector.reconShape());
  directReconInto(projector, sinogram, volume);
  return volume;
}

std::vector<float>
directRecon(const Projector & projector, ArrayView3 sinogram)
{
  const SinogramShape & s = projector.sinogramShape();
  if (sinogram.shape != std::array<int, 3>{ s.views, s.rows, s.channels })
  {
    throw std::invalid_argument("the sinogram has shape " + sinogram.str() + " but the geometry needs " + s.str());
  }
  return directRecon(projector, DeviceSinogram::upload(projector.groupPointer(), sinogram)).download();
}

std::vector<float>
directRecon(const Projector & projector, const std::vector<float> & sinogram)
{
  return directRecon(projector, ArrayView3(sinogram, projector.sinogramShape()));
}

} // namespace mbir
