#pragma once
// Cone-beam system matrix (spec/projectors.md §3), flat or curved detector, circular or helical: per
// (view, pixel) a channel footprint from the voxel's fan angle and magnification, and a row map along
// the cylinder. The curved detector uses its own magnification D / sqrt((S - y)^2 + x^2) in both
// stages (spec §9.6 flags MBIRJAX's flat-panel value there).

#include "mbir/kernels/ArcTangent.h"
#include "mbir/kernels/RowMap.h"

namespace mbir::kernels {

struct ConeBeamView
{
  float cosAngle;
  float sinAngle;
  float zShift; // helical shift h_v: the scanner is centred at object height h_v [ALU]
};

struct ConeBeamParams : GridParams
{
  using View = ConeBeamView;

  float sliceOffset; // object height of the centre of the slice range [ALU]
  float sourceIso;   // S: source to rotation axis [ALU]
  float inverseSdd;  // 1 / D; 0 for D = infinity (parallel rays with the cone's vertical model)
  bool  curved;      // cylindrical detector of radius D centred on the source
};

MBIR_HOST_DEVICE inline ConeBeamView
makeConeBeamView(float angle, float zShift)
{
  return ConeBeamView{ cosf(angle), sinf(angle), zShift };
}

// The pair (view, the cylinder centred at `centre`) on a flat or a curved detector. Without a branch, so that a loop
// over pairs vectorises (the CPU works out blocks of them in SIMD lanes), the curved detector's arc included.
template<bool Curved>
MBIR_HOST_DEVICE inline PixelProjection
coneBeamProjection(const ConeBeamParams & p, const ConeBeamView & view, PixelCentre centre)
{
  const float xObject = centre.x, yObject = centre.y;
  // Scanner frame: x along the channels, y toward the source at (0, S).
  const float x = view.cosAngle * xObject - view.sinAngle * yObject;
  const float y = view.sinAngle * xObject + view.cosAngle * yObject;
  const float toSource = p.sourceIso - y;

  float magnification, u, cosFan, sinFan;
  if constexpr (Curved)
  {
    const float distance = sqrtf(toSource * toSource + x * x);
    cosFan = toSource / distance;
    sinFan = x / distance;
    magnification = 1.0f / (distance * p.inverseSdd);
    u = arcTangent(x, toSource) / p.inverseSdd; // arc length
  }
  else
  {
    // D / (S - y), written so that D = infinity gives 1.
    magnification = 1.0f / (p.inverseSdd > 0.0f ? toSource * p.inverseSdd : 1.0f);
    u = magnification * x;
    const float tanFan = u * p.inverseSdd;
    cosFan = 1.0f / sqrtf(1.0f + tanFan * tanFan);
    sinFan = tanFan * cosFan;
  }

  // Voxel width across the ray (direction beta - fan angle), box approximation.
  const float cosRay = view.cosAngle * cosFan + view.sinAngle * sinFan;
  const float sinRay = view.sinAngle * cosFan - view.cosAngle * sinFan;
  const float wx = fabsf(cosRay) * p.deltaX;
  const float wy = fabsf(sinRay) * p.deltaY;
  const float across = wx > wy ? wx : wy;
  // A flat panel sees the shadow stretched by 1 / cos(fan angle); a curved one does not.
  const float channelWidth = magnification * across / (p.deltaChannel * (Curved ? 1.0f : cosFan));
  const float channelCentre = (u + p.channelOffset) / p.deltaChannel + 0.5f * static_cast<float>(p.numDetChannels - 1);

  PixelProjection projection;
  projection.channels = makeFootprint(channelCentre, channelWidth, p.deltaX * p.deltaY / across, p.numDetChannels);

  // Slice k sits at height z_k = deltaZ (k - (N_k-1)/2) + sliceOffset - zShift, row (M z_k + o_r)/dr + c_m.
  const float axisRow = p.rowOffset / p.deltaRow + 0.5f * static_cast<float>(p.numDetRows - 1);
  const float zFirst = p.sliceOffset - view.zShift - 0.5f * static_cast<float>(p.reconSlices - 1) * p.deltaZ;
  const float step = magnification * p.deltaZ / p.deltaRow;
  projection.rows =
    RowMap{ magnification * zFirst / p.deltaRow + axisRow, step, step, 1.0f, axisRow, p.deltaRow * p.inverseSdd };
  return projection;
}

MBIR_HOST_DEVICE inline PixelProjection
pixelProjection(const ConeBeamParams & p, const ConeBeamView & view, PixelCentre centre)
{
  return p.curved ? coneBeamProjection<true>(p, view, centre) : coneBeamProjection<false>(p, view, centre);
}

MBIR_HOST_DEVICE inline PixelProjection
pixelProjection(const ConeBeamParams & p, const ConeBeamView & view, int pixel)
{
  return pixelProjection(p, view, pixelCentre(pixel, p.reconRows, p.reconCols, p.deltaX, p.deltaY));
}

} // namespace mbir::kernels
