#include "mbir/DetectorAndGrid.h"

#include "GeometryChecks.h"

#include <algorithm>
#include <limits>

namespace mbir {

void
DetectorAndGrid::scaleReconShape(float rowScale, float colScale)
{
  if (!(rowScale > 0.0f && colScale > 0.0f && std::isfinite(rowScale) && std::isfinite(colScale)))
  {
    throw std::invalid_argument("scaleReconShape: the scales must be finite and > 0, got " + detail::number(rowScale) +
                                " and " + detail::number(colScale));
  }
  reconShape.rows = std::max(1, static_cast<int>(static_cast<float>(reconShape.rows) * rowScale));
  reconShape.cols = std::max(1, static_cast<int>(static_cast<float>(reconShape.cols) * colScale));
}

kernels::GridParams
DetectorAndGrid::gridParams() const
{
  kernels::GridParams p{};
  p.numDetRows = sinogramShape.rows;
  p.numDetChannels = sinogramShape.channels;
  p.reconRows = reconShape.rows;
  p.reconCols = reconShape.cols;
  p.reconSlices = reconShape.slices;
  p.deltaChannel = deltaDetChannel;
  p.deltaRow = deltaDetRow;
  p.channelOffset = detChannelOffset;
  p.rowOffset = detRowOffset;
  p.deltaX = deltaVoxel;
  p.deltaY = deltaY();
  p.deltaZ = deltaZ();
  return p;
}

void
DetectorAndGrid::validateDetectorAndGrid(const std::string & geometry) const
{
  const SinogramShape & s = sinogramShape;
  if (s.views <= 0 || s.rows <= 0 || s.channels <= 0)
  {
    detail::invalidGeometry(geometry,
                            "sinogram_shape " + s.str() + " must have at least one view, one row and one channel");
  }
  // Pixel and detector-cell indices are 32-bit (CylinderBatch, the kernels).
  constexpr std::size_t kMaxIndex = std::size_t(std::numeric_limits<int>::max());
  if (std::size_t(s.rows) * std::size_t(s.channels) > kMaxIndex)
  {
    detail::invalidGeometry(geometry,
                            "sinogram_shape " + s.str() + " has " + std::to_string(std::size_t(s.rows) * s.channels) +
                              " detector cells per view, more than the 2^31 - 1 this engine indexes; bin the "
                              "detector");
  }
  detail::requirePositive(geometry, deltaDetChannel, "delta_det_channel", "give the detector channel pitch");
  detail::requirePositive(geometry, deltaDetRow, "delta_det_row", "give the detector row pitch");
  detail::requireFinite(geometry, detChannelOffset, "det_channel_offset");
  detail::requireFinite(geometry, detRowOffset, "det_row_offset");
  detail::requirePositive(geometry, deltaVoxel, "delta_voxel", "call autoSetReconGeometry() or give the voxel pitch");
  detail::requirePositive(geometry, voxelRowAspect, "voxel_row_aspect", "give the ratio of row pitch to column pitch");
  detail::requirePositive(
    geometry, voxelSliceAspect, "voxel_slice_aspect", "give the ratio of slice pitch to column pitch");
  if (reconShape.rows <= 0 || reconShape.cols <= 0 || reconShape.slices <= 0)
  {
    detail::invalidGeometry(geometry,
                            "recon_shape " + reconShape.str() +
                              " must be positive in every axis; call autoSetReconGeometry() or set it");
  }
  if (reconShape.numPixels() > kMaxIndex)
  {
    detail::invalidGeometry(geometry,
                            "recon_shape " + reconShape.str() + " has " + std::to_string(reconShape.numPixels()) +
                              " pixels per slice, more than the 2^31 - 1 this engine indexes; use a coarser grid "
                              "(delta_voxel) or fewer rows and columns");
  }
  rorMask.validate(reconShape);
}

} // namespace mbir
