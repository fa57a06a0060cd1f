#include "mbir/ParallelBeamGeometry.h"

#include <cmath>
#include <stdexcept>

namespace mbir {
namespace {

void
requirePositive(float value, const char * name, const char * fix)
{
  if (!(std::isfinite(value) && value > 0.0f))
  {
    throw std::invalid_argument(std::string("parallel-beam geometry: ") + name + " must be finite and > 0, got " +
                                std::to_string(value) + "; " + fix);
  }
}

} // namespace

ParallelBeamGeometry::ParallelBeamGeometry(SinogramShape shape, std::vector<float> viewAngles)
  : sinogramShape(shape)
  , angles(std::move(viewAngles))
{
  autoSetReconGeometry();
}

void
ParallelBeamGeometry::autoSetReconGeometry()
{
  // Shapes come from float32 values, like MBIRJAX's, so that they agree to the voxel.
  deltaVoxel = deltaDetChannel;
  const float deltaY = voxelRowAspect * deltaVoxel;
  const float width = static_cast<float>(sinogramShape.channels) * deltaDetChannel;
  reconShape.rows = static_cast<int>(std::ceil(width / deltaY));
  reconShape.cols = static_cast<int>(std::ceil(width / deltaVoxel));
  reconShape.slices =
    static_cast<int>(std::nearbyint(static_cast<float>(sinogramShape.rows) * (deltaDetRow / deltaVoxel)));
}

void
ParallelBeamGeometry::validate() const
{
  if (sinogramShape.views <= 0 || sinogramShape.rows <= 0 || sinogramShape.channels <= 0)
  {
    throw std::invalid_argument("parallel-beam geometry: sinogram shape " + sinogramShape.str() +
                                " must have at least one view, one row and one channel");
  }
  if (angles.size() != static_cast<std::size_t>(sinogramShape.views))
  {
    throw std::invalid_argument("parallel-beam geometry: " + std::to_string(angles.size()) + " angles given for " +
                                std::to_string(sinogramShape.views) + " views; give exactly one angle per view");
  }
  for (std::size_t v = 0; v < angles.size(); ++v)
  {
    if (!std::isfinite(angles[v]))
    {
      throw std::invalid_argument("parallel-beam geometry: angle of view " + std::to_string(v) + " is not finite");
    }
  }
  requirePositive(deltaDetChannel, "delta_det_channel", "give the detector channel pitch");
  requirePositive(deltaDetRow, "delta_det_row", "give the detector row pitch");
  requirePositive(deltaVoxel, "delta_voxel", "call autoSetReconGeometry() or give the voxel pitch");
  requirePositive(voxelRowAspect, "voxel_row_aspect", "give the ratio of row pitch to column pitch");
  if (!std::isfinite(detChannelOffset))
  {
    throw std::invalid_argument("parallel-beam geometry: det_channel_offset is not finite");
  }
  if (voxelSliceAspect != 1.0f)
  {
    throw std::invalid_argument(
      "parallel-beam geometry: voxel_slice_aspect must be 1 (slice k is detector row k), got " +
      std::to_string(voxelSliceAspect));
  }
  if (reconShape.rows <= 0 || reconShape.cols <= 0 || reconShape.slices <= 0)
  {
    throw std::invalid_argument("parallel-beam geometry: recon shape " + reconShape.str() +
                                " must be positive in every axis; call autoSetReconGeometry() or set it");
  }
  if (reconShape.slices != sinogramShape.rows)
  {
    throw std::invalid_argument("parallel-beam geometry: recon has " + std::to_string(reconShape.slices) +
                                " slices but the detector has " + std::to_string(sinogramShape.rows) +
                                " rows; parallel beam needs one slice per detector row");
  }
  rorMask.validate(reconShape);
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
  p.deltaY = voxelRowAspect * deltaVoxel;
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

} // namespace mbir
