#pragma once
// Parallel-beam system matrix (spec/projectors.md §2): one channel footprint per (view, pixel); the
// vertical stage is the identity because slice k is detector row k.

#include "mbir/kernels/Footprint.h"

namespace mbir::kernels {

// One entry of the view table.
struct ParallelBeamView
{
  float cosAngle;
  float sinAngle;
};

// Everything the parallel-beam kernels read, as plain values so it can be passed to a GPU kernel.
struct ParallelBeamParams
{
  using View = ParallelBeamView;

  int   numDetRows;     // R, equal to the number of slices
  int   numDetChannels; // C
  int   reconRows;      // N_i (y, along recon rows)
  int   reconCols;      // N_j (x, along recon columns)
  float deltaChannel;   // detector channel pitch [ALU]
  float channelOffset;  // the rotation axis projects to channel (C-1)/2 + channelOffset / deltaChannel
  float deltaX;         // voxel pitch along columns [ALU]
  float deltaY;         // voxel pitch along rows [ALU]
};

MBIR_HOST_DEVICE inline ParallelBeamView
makeParallelBeamView(float angle)
{
  return ParallelBeamView{ cosf(angle), sinf(angle) };
}

// Where the cylinder centred at (xObject, yObject) casts its shadow on the channels in one view: the
// centre (fractional channel), the width in channels and the weight per unit overlap.
struct ChannelShadow
{
  float centre;
  float width;
  float scale;
};

MBIR_HOST_DEVICE inline ChannelShadow
parallelBeamShadow(const ParallelBeamParams & p, const ParallelBeamView & view, float xObject, float yObject)
{
  const float u = view.cosAngle * xObject - view.sinAngle * yObject; // along the detector
  const float centre = (u + p.channelOffset) / p.deltaChannel + 0.5f * static_cast<float>(p.numDetChannels - 1);
  // Box approximation of the voxel width across the ray; the chord length times coverage is the weight.
  const float wx = fabsf(view.cosAngle) * p.deltaX;
  const float wy = fabsf(view.sinAngle) * p.deltaY;
  const float across = wx > wy ? wx : wy;
  return ChannelShadow{ centre, across / p.deltaChannel, p.deltaX * p.deltaY / across };
}

// The channels hit by the cylinder centred at `centre` in one view.
MBIR_HOST_DEVICE inline Footprint
parallelBeamChannelFootprint(const ParallelBeamParams & p, const ParallelBeamView & view, PixelCentre centre)
{
  const ChannelShadow shadow = parallelBeamShadow(p, view, centre.x, centre.y);
  return makeFootprint(shadow.centre, shadow.width, shadow.scale, p.numDetChannels);
}

// ... at flat pixel index `pixel` (= row * reconCols + col).
MBIR_HOST_DEVICE inline Footprint
parallelBeamChannelFootprint(const ParallelBeamParams & p, const ParallelBeamView & view, int pixel)
{
  return parallelBeamChannelFootprint(p, view, pixelCentre(pixel, p.reconRows, p.reconCols, p.deltaX, p.deltaY));
}

} // namespace mbir::kernels
