#include "mbir/ConeBeamGeometry.h"

#include "mbir/GeometryDescription.h"

#include "GeometryChecks.h"

#include <algorithm>
#include <cmath>

namespace mbir {
namespace {

const std::string kName = "cone-beam";

} // namespace

ConeBeamGeometry::ConeBeamGeometry(SinogramShape      shape,
                                   std::vector<float> viewAngles,
                                   float              sourceDetectorDistance,
                                   float              sourceIsoDistance,
                                   std::vector<float> zShifts,
                                   bool               curved)
  : angles(std::move(viewAngles))
  , sourceDetectorDist(sourceDetectorDistance)
  , sourceIsoDist(sourceIsoDistance)
  , helicalZShifts(std::move(zShifts))
  , curvedDetector(curved)
{
  sinogramShape = shape;
  autoSetReconGeometry();
}

float
ConeBeamGeometry::magnification() const
{
  return std::isinf(sourceDetectorDist) ? 1.0f : sourceDetectorDist / sourceIsoDist;
}

bool
ConeBeamGeometry::isHelical() const
{
  if (helicalZShifts.empty())
  {
    return false;
  }
  const auto [low, high] = std::minmax_element(helicalZShifts.begin(), helicalZShifts.end());
  return *high > *low;
}

void
ConeBeamGeometry::autoSetReconGeometry()
{
  // Float32 values rounded as MBIRJAX rounds them, so that shapes agree to the voxel.
  const double M = magnification();
  deltaVoxel = static_cast<float>(deltaDetChannel / M);
  const double C = sinogramShape.channels, R = sinogramShape.rows;
  reconShape.rows =
    std::max(1, detail::gridCount(kName, std::nearbyint(float(C * (deltaDetChannel / double(deltaY())) / M))));
  reconShape.cols =
    std::max(1, detail::gridCount(kName, std::nearbyint(float(C * (deltaDetChannel / double(deltaVoxel)) / M))));
  double low = 0.0, high = 0.0;
  if (!helicalZShifts.empty())
  {
    const auto [l, h] = std::minmax_element(helicalZShifts.begin(), helicalZShifts.end());
    low = *l;
    high = *h;
  }
  const double heightAtIso = R * deltaDetRow / M;
  reconShape.slices = std::max(1, detail::gridCount(kName, std::ceil(float((heightAtIso + (high - low)) / deltaZ()))));
  reconSliceOffset = static_cast<float>(0.5 * (low + high));
}

void
ConeBeamGeometry::validate() const
{
  validateDetectorAndGrid(kName);
  detail::requirePerView(kName, angles, sinogramShape.views, "angles");
  detail::requireFiniteEntries(kName, angles, "angles");
  if (!helicalZShifts.empty())
  {
    detail::requirePerView(kName, helicalZShifts, sinogramShape.views, "helical_z_shifts");
    detail::requireFiniteEntries(kName, helicalZShifts, "helical_z_shifts");
  }
  detail::requireFinite(kName, reconSliceOffset, "recon_slice_offset");
  detail::requirePositive(kName, sourceIsoDist, "source_iso_dist", "give the source to rotation-axis distance");
  if (!(sourceDetectorDist > 0.0f) || std::isnan(sourceDetectorDist))
  {
    detail::invalidGeometry(
      kName, "source_detector_dist must be > 0 (or infinite), got " + detail::number(sourceDetectorDist));
  }
  if (curvedDetector && std::isinf(sourceDetectorDist))
  {
    detail::invalidGeometry(kName, "a curved detector needs a finite source_detector_dist (its radius)");
  }
  if (std::isfinite(sourceDetectorDist))
  {
    // The grid's corners sweep a circle of this radius as the scanner turns; the source must stay outside.
    const double halfWidth = 0.5 * reconShape.cols * double(deltaVoxel);
    const double halfDepth = 0.5 * reconShape.rows * double(deltaY());
    const double corner = std::sqrt(halfWidth * halfWidth + halfDepth * halfDepth);
    if (corner >= sourceIsoDist)
    {
      detail::invalidGeometry(kName,
                              "the source lies inside the recon grid: its corners reach " + detail::number(corner) +
                                " from the rotation axis but source_iso_dist is " + detail::number(sourceIsoDist) +
                                "; shrink recon_shape or delta_voxel, or check the distances");
    }
  }
}

kernels::ConeBeamParams
ConeBeamGeometry::kernelParams() const
{
  kernels::ConeBeamParams p{};
  static_cast<kernels::GridParams &>(p) = gridParams();
  p.sliceOffset = reconSliceOffset;
  p.sourceIso = sourceIsoDist;
  p.inverseSdd = std::isinf(sourceDetectorDist) ? 0.0f : 1.0f / sourceDetectorDist;
  p.curved = curvedDetector;
  return p;
}

std::vector<kernels::ConeBeamView>
ConeBeamGeometry::viewTable() const
{
  std::vector<kernels::ConeBeamView> table;
  table.reserve(angles.size());
  for (std::size_t v = 0; v < angles.size(); ++v)
  {
    table.push_back(kernels::makeConeBeamView(angles[v], helicalZShifts.empty() ? 0.0f : helicalZShifts[v]));
  }
  return table;
}

const GeometryDescription<ConeBeamGeometry> &
ConeBeamGeometry::description()
{
  using G = ConeBeamGeometry;
  static const GeometryDescription<G> d = [] {
    GeometryDescription<G> d{ "cone",
                              "ConeBeamGeometry",
                              "A point source circling the slice axis z at source_iso_dist, a flat or curved "
                              "detector at source_detector_dist from the source, and optional per-view helical "
                              "shifts of the scanner along z.",
                              detectorAndGridFields<G>() };
    d.fields.push_back(geometryField<G>(&G::sourceDetectorDist,
                                        "source_detector_dist",
                                        Required | Positive | InfinityAllowed,
                                        "ALU",
                                        "",
                                        "source to detector; \"infinity\" gives parallel rays (cone vertical model)"));
    d.fields.push_back(geometryField<G>(
      &G::sourceIsoDist, "source_iso_dist", Required | Positive, "ALU", "", "source to the rotation axis"));
    d.fields.push_back(geometryField<G>(&G::curvedDetector,
                                        "curved_detector",
                                        NoFlags,
                                        "",
                                        "false",
                                        "true: a cylinder of radius source_detector_dist centred on the source"));
    d.fields.push_back(geometryField<G>(&G::reconSliceOffset,
                                        "recon_slice_offset",
                                        AfterGridField,
                                        "ALU",
                                        "auto (centre of the helical travel; 0 with a given grid)",
                                        "z of the centre of the slice range; + toward larger rows"));
    d.fields.push_back(geometryField<G>(
      &G::angles, "angles", Required, "rad", "", "view angle per view; the scanner turns clockwise seen from +z"));
    d.fields.push_back(geometryField<G>(&G::helicalZShifts,
                                        "helical_z_shifts",
                                        EmptyAllowed,
                                        "ALU",
                                        "[] (circular scan)",
                                        "height of the scanner along +z per view; [] for a circular scan"));
    return d;
  }();
  return d;
}

} // namespace mbir
