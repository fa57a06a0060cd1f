#pragma once
// Multi-axis parallel-beam system matrix (spec/projectors.md §5): parallel rays with a per-view azimuth
// alpha (rotation about the slice axis, as the parallel-beam angle) and elevation epsilon (tilt of the
// rays out of the slice plane). The channel stage is the parallel-beam one, so epsilon = 0 is exactly
// parallel beam. The row stage models the voxel's true vertical shadow: height
// max(cos(eps) dz, sin(eps) * depth extent) and weight dz / height, so a voxel's projection carries its
// full mass dx dy dz at every elevation (spec §9.3 flags MBIRJAX's cos(eps) loss) and voxel aspects count.

#include "mbir/kernels/ParallelBeam.h"
#include "mbir/kernels/RowMap.h"

namespace mbir::kernels {

struct MultiAxisParallelView
{
  ParallelBeamView azimuth;
  float            cosElevation;
  float            sinElevation;
};

struct MultiAxisParallelParams : GridParams
{
  using View = MultiAxisParallelView;

  float sliceOffset; // object height of the centre of the slice range [ALU]
};

MBIR_HOST_DEVICE inline MultiAxisParallelView
makeMultiAxisParallelView(float azimuth, float elevation)
{
  return MultiAxisParallelView{ makeParallelBeamView(azimuth), cosf(elevation), sinf(elevation) };
}

// The pair (view, the cylinder centred at `centre`).
MBIR_HOST_DEVICE inline PixelProjection
pixelProjection(const MultiAxisParallelParams & p, const MultiAxisParallelView & view, PixelCentre centre)
{
  const ParallelBeamParams inPlane{ p.numDetRows,   p.numDetChannels, p.reconRows, p.reconCols,
                                    p.deltaChannel, p.channelOffset,  p.deltaX,    p.deltaY };
  PixelProjection          projection;
  projection.channels = parallelBeamChannelFootprint(inPlane, view.azimuth, centre);

  const float xObject = centre.x, yObject = centre.y;
  // Depth along the in-plane ray (toward the detector), and the voxel's extent along it.
  const float depth = -(view.azimuth.sinAngle * xObject + view.azimuth.cosAngle * yObject);
  const float dx = fabsf(view.azimuth.sinAngle) * p.deltaX;
  const float dy = fabsf(view.azimuth.cosAngle) * p.deltaY;
  const float depthExtent = dx > dy ? dx : dy;

  // Detector v = z cos(eps) - depth sin(eps); row = (v + o_r) / dr + (R-1)/2.
  const float tall = fabsf(view.cosElevation) * p.deltaZ;
  const float deep = fabsf(view.sinElevation) * depthExtent;
  const float height = tall > deep ? tall : deep;
  const float zFirst = p.sliceOffset - 0.5f * static_cast<float>(p.reconSlices - 1) * p.deltaZ;
  const float vFirst = zFirst * view.cosElevation - depth * view.sinElevation;
  const float axisRow = p.rowOffset / p.deltaRow + 0.5f * static_cast<float>(p.numDetRows - 1);
  projection.rows = RowMap{ vFirst / p.deltaRow + axisRow,
                            p.deltaZ * view.cosElevation / p.deltaRow,
                            height / p.deltaRow,
                            p.deltaZ / height,
                            axisRow,
                            0.0f };
  return projection;
}

MBIR_HOST_DEVICE inline PixelProjection
pixelProjection(const MultiAxisParallelParams & p, const MultiAxisParallelView & view, int pixel)
{
  return pixelProjection(p, view, pixelCentre(pixel, p.reconRows, p.reconCols, p.deltaX, p.deltaY));
}

} // namespace mbir::kernels
