#include "mbir/MultiAxisParallelGeometry.h"

#include "mbir/GeometryDescription.h"

#include "GeometryChecks.h"

#include <algorithm>
#include <cmath>

namespace mbir {
namespace {

const std::string kName = "multi-axis parallel";

} // namespace

MultiAxisParallelGeometry::MultiAxisParallelGeometry(SinogramShape      shape,
                                                     std::vector<float> azimuths,
                                                     std::vector<float> viewElevations)
  : angles(std::move(azimuths))
  , elevations(std::move(viewElevations))
{
  sinogramShape = shape;
  autoSetReconGeometry();
}

void
MultiAxisParallelGeometry::autoSetReconGeometry()
{
  deltaVoxel = deltaDetChannel;
  const float width = static_cast<float>(sinogramShape.channels) * deltaDetChannel;
  reconShape.rows = std::max(1, detail::gridCount(kName, std::ceil(width / deltaY())));
  reconShape.cols = std::max(1, detail::gridCount(kName, std::ceil(width / deltaVoxel)));
  double minCos = 1.0;
  for (const float e : elevations)
  {
    minCos = std::min(minCos, std::fabs(std::cos(double(e))));
  }
  const double height = double(sinogramShape.rows) * deltaDetRow / (std::max(minCos, 0.1) * deltaZ());
  reconShape.slices = std::max(1, detail::gridCount(kName, std::floor(float(height))));
}

void
MultiAxisParallelGeometry::validate() const
{
  validateDetectorAndGrid(kName);
  detail::requirePerView(kName, angles, sinogramShape.views, "angles");
  detail::requireFiniteEntries(kName, angles, "angles");
  detail::requirePerView(kName, elevations, sinogramShape.views, "elevations");
  detail::requireFiniteEntries(kName, elevations, "elevations");
  for (std::size_t v = 0; v < elevations.size(); ++v)
  {
    if (!(std::cos(elevations[v]) > 1e-3f))
    {
      detail::invalidGeometry(kName,
                              "elevations entry " + std::to_string(v) + " is " + detail::number(elevations[v]) +
                                " rad; rays must not run along the slice axis (|elevation| < pi/2)");
    }
  }
  detail::requireFinite(kName, reconSliceOffset, "recon_slice_offset");
}

kernels::MultiAxisParallelParams
MultiAxisParallelGeometry::kernelParams() const
{
  kernels::MultiAxisParallelParams p{};
  static_cast<kernels::GridParams &>(p) = gridParams();
  p.sliceOffset = reconSliceOffset;
  return p;
}

std::vector<kernels::MultiAxisParallelView>
MultiAxisParallelGeometry::viewTable() const
{
  std::vector<kernels::MultiAxisParallelView> table;
  table.reserve(angles.size());
  for (std::size_t v = 0; v < angles.size(); ++v)
  {
    table.push_back(kernels::makeMultiAxisParallelView(angles[v], elevations[v]));
  }
  return table;
}

const GeometryDescription<MultiAxisParallelGeometry> &
MultiAxisParallelGeometry::description()
{
  using G = MultiAxisParallelGeometry;
  static const GeometryDescription<G> d = [] {
    GeometryDescription<G> d{ "multi_axis_parallel",
                              "MultiAxisParallelGeometry",
                              "Parallel rays with a per-view azimuth (rotation about the slice axis z) and "
                              "elevation (tilt of the rays out of the slice plane); laminography is a constant "
                              "elevation.",
                              detectorAndGridFields<G>() };
    d.fields.push_back(geometryField<G>(&G::reconSliceOffset,
                                        "recon_slice_offset",
                                        AfterGridField,
                                        "ALU",
                                        "0",
                                        "z of the centre of the slice range; + toward larger rows"));
    d.fields.push_back(geometryField<G>(
      &G::angles, "angles", Required, "rad", "", "azimuth per view; the scanner turns clockwise seen from +z"));
    d.fields.push_back(geometryField<G>(
      &G::elevations, "elevations", Required, "rad", "", "elevation per view, |e| < pi/2; + tilts the rays toward +z"));
    return d;
  }();
  return d;
}

} // namespace mbir
