#include "mbir/ParallelBeamGeometry.h"

#include "mbir/GeometryDescription.h"

#include "GeometryChecks.h"

#include <cmath>

namespace mbir {
namespace {

const std::string kName = "parallel-beam";

} // namespace

ParallelBeamGeometry::ParallelBeamGeometry(SinogramShape shape, std::vector<float> viewAngles)
  : angles(std::move(viewAngles))
{
  sinogramShape = shape;
  autoSetReconGeometry();
}

void
ParallelBeamGeometry::autoSetReconGeometry()
{
  // Shapes come from float32 values, like MBIRJAX's, so that they agree to the voxel.
  deltaVoxel = deltaDetChannel;
  const float width = static_cast<float>(sinogramShape.channels) * deltaDetChannel;
  reconShape.rows = detail::gridCount(kName, std::ceil(width / deltaY()));
  reconShape.cols = detail::gridCount(kName, std::ceil(width / deltaVoxel));
  // Slice k is detector row k whatever the row pitch (MBIRJAX's rint(R dr / dv) fails validation when
  // dr != dc, spec §9.9).
  reconShape.slices = sinogramShape.rows;
}

void
ParallelBeamGeometry::validate() const
{
  validateDetectorAndGrid(kName);
  detail::requirePerView(kName, angles, sinogramShape.views, "angles");
  detail::requireFiniteEntries(kName, angles, "angles");
  if (voxelSliceAspect != 1.0f)
  {
    detail::invalidGeometry(
      kName, "voxel_slice_aspect must be 1 (slice k is detector row k), got " + detail::number(voxelSliceAspect));
  }
  if (detRowOffset != 0.0f)
  {
    detail::invalidGeometry(kName,
                            "det_row_offset must be 0 (slice k is detector row k), got " +
                              detail::number(detRowOffset) +
                              "; use the cone-beam geometry with an infinite "
                              "source_detector_dist for a general vertical model");
  }
  if (reconShape.slices != sinogramShape.rows)
  {
    detail::invalidGeometry(kName,
                            "recon has " + std::to_string(reconShape.slices) + " slices but the detector has " +
                              std::to_string(sinogramShape.rows) + " rows; parallel beam needs one slice per row");
  }
}

kernels::ParallelBeamParams
ParallelBeamGeometry::kernelParams() const
{
  kernels::ParallelBeamParams p{};
  p.numDetRows = sinogramShape.rows;
  p.numDetChannels = sinogramShape.channels;
  p.reconRows = reconShape.rows;
  p.reconCols = reconShape.cols;
  p.deltaChannel = deltaDetChannel;
  p.channelOffset = detChannelOffset;
  p.deltaX = deltaVoxel;
  p.deltaY = deltaY();
  return p;
}

std::vector<kernels::ParallelBeamView>
ParallelBeamGeometry::viewTable() const
{
  std::vector<kernels::ParallelBeamView> table;
  table.reserve(angles.size());
  for (const float angle : angles)
  {
    table.push_back(kernels::makeParallelBeamView(angle));
  }
  return table;
}

const GeometryDescription<ParallelBeamGeometry> &
ParallelBeamGeometry::description()
{
  using G = ParallelBeamGeometry;
  static const GeometryDescription<G> d = [] {
    GeometryDescription<G> d{ "parallel",
                              "ParallelBeamGeometry",
                              "Parallel rays turning about the slice axis z; slice k is detector row k, so "
                              "voxel_slice_aspect is 1 and det_row_offset 0.",
                              detectorAndGridFields<G>() };
    d.fields.push_back(geometryField<G>(
      &G::angles, "angles", Required, "rad", "", "view angle per view; the scanner turns clockwise seen from +z"));
    return d;
  }();
  return d;
}

} // namespace mbir
