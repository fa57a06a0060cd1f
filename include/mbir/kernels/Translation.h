#pragma once
// Translation system matrix (spec/projectors.md §4): a fixed cone-beam source and flat detector, the
// object shifted by a per-view vector instead of rotated. Rays run nearly along the recon rows (y), so
// the channel footprint is the voxel's magnified width and the weight its depth over cos(fan angle).

#include "mbir/kernels/RowMap.h"

namespace mbir::kernels {

struct TranslationView
{
  float x; // the object moves by -x along the channels (t_x > 0 moves it left)
  float y; // ... by -y along the rays (t_y > 0 moves it away from the source)
  float z; // ... by -z along the slices (t_z > 0 moves it up)
};

struct TranslationParams : GridParams
{
  using View = TranslationView;

  float sourceIso;  // S [ALU]
  float inverseSdd; // 1 / D (D is finite for translation)
};

// The pair (view, the cylinder centred at `centre`).
MBIR_HOST_DEVICE inline PixelProjection
pixelProjection(const TranslationParams & p, const TranslationView & view, PixelCentre centre)
{
  const float       x = centre.x - view.x;
  const float       y = centre.y - view.y;
  const float       magnification = 1.0f / ((p.sourceIso - y) * p.inverseSdd);
  const float       u = magnification * x;
  const float       tanFan = u * p.inverseSdd;
  const float       cosFan = 1.0f / sqrtf(1.0f + tanFan * tanFan);
  const float channelCentre = (u + p.channelOffset) / p.deltaChannel + 0.5f * static_cast<float>(p.numDetChannels - 1);

  PixelProjection projection;
  projection.channels =
    makeFootprint(channelCentre, magnification * p.deltaX / p.deltaChannel, p.deltaY / cosFan, p.numDetChannels);

  const float axisRow = p.rowOffset / p.deltaRow + 0.5f * static_cast<float>(p.numDetRows - 1);
  const float zFirst = -view.z - 0.5f * static_cast<float>(p.reconSlices - 1) * p.deltaZ;
  const float step = magnification * p.deltaZ / p.deltaRow;
  projection.rows =
    RowMap{ magnification * zFirst / p.deltaRow + axisRow, step, step, 1.0f, axisRow, p.deltaRow * p.inverseSdd };
  return projection;
}

MBIR_HOST_DEVICE inline PixelProjection
pixelProjection(const TranslationParams & p, const TranslationView & view, int pixel)
{
  return pixelProjection(p, view, pixelCentre(pixel, p.reconRows, p.reconCols, p.deltaX, p.deltaY));
}

} // namespace mbir::kernels
