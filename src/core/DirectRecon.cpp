#include "mbir/DirectRecon.h"

#include "mbir/ArrayView.h"

#include <cmath>
#include <numeric>

namespace mbir {
namespace {

// The same ramp along the channels for every view.
std::vector<RampDirection>
rampAlongChannels(const SinogramShape & shape, double scale)
{
  return std::vector<RampDirection>(shape.views, RampDirection{ static_cast<float>(scale), 0.0f });
}

// Overwrites the ROR cylinders of `volume` with `values` (ROR pixels x slices).
void
replaceRorCylinders(Backend & backend, const CylinderBatch & ror, const float * values, float * volume)
{
  DeviceArray<float> previous = backend.allocate<float>(static_cast<std::size_t>(ror.numPixels) * ror.numSlices);
  backend.gatherCylinders(volume, ror, previous.data());
  backend.scatterAddCylinders(-1.0f, previous.data(), ror, volume);
  backend.scatterAddCylinders(1.0f, values, ror, volume);
}

// Ramp-filters the sinogram (after an optional per-detector-cell weight), back-projects it on the ROR,
// applies an optional per-slice factor and writes the result into the ROR cylinders of `volume`.
void
filteredBackProjection(const Projector &                  projector,
                       const float *                      sinogram,
                       const std::vector<float> &         cellWeights,
                       const std::vector<RampDirection> & directions,
                       const std::vector<float> &         sliceFactors,
                       float *                            volume)
{
  Backend &             backend = projector.backend();
  const SinogramShape & shape = projector.sinogramShape();
  DeviceArray<float>    filtered = backend.allocate<float>(projector.sinogramSize());
  backend.copy(sinogram, filtered.data(), filtered.size());
  if (!cellWeights.empty())
  {
    const DeviceArray<float> weights = backend.upload(cellWeights.data(), cellWeights.size());
    backend.multiplyPeriodic(weights.data(), weights.size(), filtered.data(), filtered.size());
  }
  backend.rampFilter(filtered.data(), shape, directions, filtered.data());

  const CylinderBatch ror = projector.rorCylinders();
  DeviceArray<float>  values = backend.allocate<float>(static_cast<std::size_t>(ror.numPixels) * ror.numSlices);
  backend.backProject(projector.deviceModel(), ror, filtered.data(), nullptr, projector.allViews(), 1, values.data());
  filtered = DeviceArray<float>();
  if (!sliceFactors.empty())
  {
    const DeviceArray<float> factors = backend.upload(sliceFactors.data(), sliceFactors.size());
    backend.multiplyPeriodic(factors.data(), factors.size(), values.data(), values.size());
  }
  replaceRorCylinders(backend, ror, values.data(), volume);
}

// FBP: 1 / (voxel area) cancels the area the adjoint spreads per voxel; pi / V is the angular step.
void
direct(const ParallelBeamGeometry & g, const Projector & projector, const float * sinogram, float * volume)
{
  const double area = double(g.deltaVoxel) * g.deltaY();
  filteredBackProjection(
    projector, sinogram, {}, rampAlongChannels(g.sinogramShape, M_PI / g.sinogramShape.views / area), {}, volume);
}

// FDK (spec §3.5): cosine pre-weight, ramp scaled by dr / (dx dy dz M) * pi / V, the adjoint as back
// projector (it supplies the distance weight), and for a helix each slice divided by the fraction of
// views whose detector covers it.
void
direct(const ConeBeamGeometry & g, const Projector & projector, const float * sinogram, float * volume)
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
direct(const MultiAxisParallelGeometry & g, const Projector & projector, const float * sinogram, float * volume)
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

// Translation has no rotation to filter along; its direct recon is the normalised back projection
// x = A^T (y / A 1) / A^T 1 (one SIRT step from zero), exact for a uniform object and the usual
// tomosynthesis shift-and-add otherwise.
void
direct(const TranslationGeometry &, const Projector & projector, const float * sinogram, float * volume)
{
  Backend &           backend = projector.backend();
  const CylinderBatch ror = projector.rorCylinders();
  const std::size_t   cylinders = static_cast<std::size_t>(ror.numPixels) * ror.numSlices;
  DeviceArray<float>  ones = backend.allocate<float>(std::max(cylinders, projector.sinogramSize()));
  backend.fill(1.0f, ones.data(), ones.size());

  DeviceArray<float> rowSums = backend.allocate<float>(projector.sinogramSize());
  backend.forwardProject(projector.deviceModel(), ror, ones.data(), projector.allViews(), rowSums.data());
  backend.divideWherePositive(sinogram, rowSums.data(), rowSums.data(), rowSums.size());
  DeviceArray<float> values = backend.allocate<float>(cylinders);
  backend.backProject(projector.deviceModel(), ror, rowSums.data(), nullptr, projector.allViews(), 1, values.data());
  rowSums = DeviceArray<float>();
  DeviceArray<float> columnSums = backend.allocate<float>(cylinders);
  backend.backProject(projector.deviceModel(), ror, ones.data(), nullptr, projector.allViews(), 1, columnSums.data());
  backend.divideWherePositive(values.data(), columnSums.data(), values.data(), cylinders);
  replaceRorCylinders(backend, ror, values.data(), volume);
}

} // namespace

void
directReconOnDevice(const Projector & projector, const float * sinogram, float * volume)
{
  std::visit([&](const auto & g) { direct(g, projector, sinogram, volume); }, projector.geometry());
}

DeviceVolume
directRecon(const Projector & projector, const DeviceSinogram & sinogram)
{
  projector.checkOnDevice(sinogram, "the sinogram");
  DeviceVolume volume(projector.backendPointer(), projector.reconShape());
  directReconOnDevice(projector, sinogram.data(), volume.data());
  return volume;
}

std::vector<float>
directRecon(const Projector & projector, const std::vector<float> & sinogram)
{
  const ArrayView3 checked(sinogram, projector.sinogramShape());
  return directRecon(projector, DeviceSinogram::upload(projector.backendPointer(), checked)).download();
}

} // namespace mbir
