#pragma once
// One-dimensional footprint shared by every geometry (spec/projectors.md §0): a voxel casts a box-shaped
// shadow `width` detector cells wide; the overlap with one unit cell is a trapezoid in the centre distance.

#include "mbir/kernels/HostDevice.h"

#include <math.h>

namespace mbir::kernels {

// Overlap of a shadow of `width` cells, centred `distance` cells from a cell centre, with that cell.
MBIR_HOST_DEVICE inline float
trapezoid(float distance, float width)
{
  const float overlap = 0.5f * (width + 1.0f) - fabsf(distance);
  const float cap = width < 1.0f ? width : 1.0f;
  return overlap <= 0.0f ? 0.0f : (overlap < cap ? overlap : cap);
}

// Nearest integer, ties to even (the default rounding mode on CPU and GPU); ties do not change results
// because the trapezoid vanishes at the ends of its support.
MBIR_HOST_DEVICE inline int
nearestIndex(float x)
{
  return static_cast<int>(rintf(x));
}

// The cells touched by one voxel's shadow along one detector axis, and the weight of each.
struct Footprint
{
  float center; // fractional cell index of the shadow centre
  float width;  // shadow width in cells
  float scale;  // weight per unit overlap (chord length, ALU)
  int   first;  // first touched cell, clipped to the detector
  int   last;   // last touched cell (inclusive), clipped; last < first when nothing is hit

  MBIR_HOST_DEVICE float
  weight(int cell) const
  {
    return scale * trapezoid(center - static_cast<float>(cell), width);
  }
};

// Smallest loop radius around the nearest cell that catches every cell a shadow of `width` cells can
// touch, wherever its centre lies: ceil(ceil(width) / 2) (spec/projectors.md §0, support radius rule).
MBIR_HOST_DEVICE inline int
supportRadius(float width)
{
  return static_cast<int>(ceilf(ceilf(width) * 0.5f));
}

// The footprint of a shadow centred at `center`, clipped to a detector axis of `numCells` cells. Both
// projection directions build it the same way, so the pair is an exact adjoint for any width.
MBIR_HOST_DEVICE inline Footprint
makeFootprint(float center, float width, float scale, int numCells)
{
  const int radius = supportRadius(width);
  // Far outside the detector (or not finite): nothing is hit, and rint must not overflow.
  if (!(center > -width - 1.0f && center < static_cast<float>(numCells) + width + 1.0f))
  {
    return Footprint{ center, width, scale, 0, -1 };
  }
  const int nearest = nearestIndex(center);
  int       first = nearest - radius;
  int       last = nearest + radius;
  first = first < 0 ? 0 : first;
  last = last >= numCells ? numCells - 1 : last;
  return Footprint{ center, width, scale, first, last };
}

// The centre of the voxel cylinder at flat pixel index `pixel` (= row * cols + col) in the object frame:
// x along columns, y along rows, both from the grid centre [ALU].
struct PixelCentre
{
  float x;
  float y;
};

MBIR_HOST_DEVICE inline PixelCentre
pixelCentre(int pixel, int rows, int cols, float deltaX, float deltaY)
{
  const int row = pixel / cols;
  const int col = pixel - row * cols;
  return PixelCentre{ deltaX * (static_cast<float>(col) - 0.5f * static_cast<float>(cols - 1)),
                      deltaY * (static_cast<float>(row) - 0.5f * static_cast<float>(rows - 1)) };
}

// Raises a coefficient to the power used by a back projection (1) or a Hessian diagonal (2).
MBIR_HOST_DEVICE inline float
coefficientPower(float a, int power)
{
  return power == 2 ? a * a : a;
}

} // namespace mbir::kernels
