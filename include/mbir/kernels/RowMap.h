#pragma once
// The vertical stage of the separable system matrix (spec/projectors.md §1.3) for every geometry whose
// slices do not map one-to-one onto detector rows: cone beam, translation, multi-axis parallel.
// A[(v, m, n), (p, k)] = a(n) * b(m, k); the channel weights a(n) are a Footprint, b(m, k) is a RowMap.

#include "mbir/kernels/Footprint.h"

namespace mbir::kernels {

// v clipped to [low, high] by selects: fminf / fmaxf are library calls on x86 (NaN rules), and these run per
// (view, cylinder).
MBIR_HOST_DEVICE inline float
clipped(float v, float low, float high)
{
  const float above = v > low ? v : low;
  return above < high ? above : high;
}

// Detector rows [first, last]; empty when last < first.
struct RowRange
{
  int first;
  int last;
};

// How the slices of one voxel cylinder fall on the detector rows in one view. Slice k casts a shadow
// `width` rows high centred on row first + step * k, weighted per unit overlap by
// scale * sqrt(1 + (obliquity * (centre - axisRow))^2): the path-length gain of a ray that leaves the
// detector's central row at a vertical angle (1 / cos(phi) in cone beam; obliquity 0 means none).
// Both projection directions evaluate b(m, k) through slice(), so the pair is an exact adjoint.
struct RowMap
{
  float first;     // fractional row of the centre of slice 0
  float step;      // rows per slice, > 0
  float width;     // shadow height [rows]
  float scale;     // weight per unit overlap
  float axisRow;   // fractional row hit by the ray in the plane of the source (cone) or 0
  float obliquity; // row pitch / source-detector distance, 0 without a vertical path-length gain

  MBIR_HOST_DEVICE float
  centre(int slice) const
  {
    return first + step * static_cast<float>(slice);
  }

  // Weight per unit overlap of slice k's shadow.
  MBIR_HOST_DEVICE float
  weightScale(int k) const
  {
    const float t = obliquity * (centre(k) - axisRow);
    return scale * sqrtf(1.0f + t * t);
  }

  // The rows hit by slice k, and their weights b(m, k) = weightScale(k) * trapezoid(centre(k) - m, width).
  MBIR_HOST_DEVICE Footprint
  slice(int k, int numRows) const
  {
    return makeFootprint(centre(k), width, weightScale(k), numRows);
  }

  // The slices whose shadow can reach row m, as [firstSlice, lastSlice] clipped to the volume (empty
  // when lastSlice < firstSlice). One slice of margin on each side absorbs rounding; the weights of
  // slices that do not reach m are exactly 0, so a gather over this range equals the scatter.
  MBIR_HOST_DEVICE void
  slicesReaching(int m, int numSlices, int & firstSlice, int & lastSlice) const
  {
    const float reach = 0.5f * (width + 1.0f);
    const float low = (static_cast<float>(m) - reach - first) / step;
    const float high = (static_cast<float>(m) + reach - first) / step;
    // Clip in float first so that the casts cannot overflow.
    const float top = static_cast<float>(numSlices);
    firstSlice = static_cast<int>(clipped(floorf(low), -1.0f, top)) - 1;
    lastSlice = static_cast<int>(clipped(ceilf(high), -1.0f, top)) + 1;
    firstSlice = firstSlice < 0 ? 0 : firstSlice;
    lastSlice = lastSlice >= numSlices ? numSlices - 1 : lastSlice;
  }

  // The detector rows that slices [firstSlice, lastSlice] can reach (rowsReached below).
  MBIR_HOST_DEVICE RowRange
  rowsReached(int firstSlice, int lastSlice, int numRows) const;
};

// The detector rows that slices [firstSlice, lastSlice] of a row map (first, step, width) can reach, clipped to the
// detector (empty when last < first). Of the map's fields rather than the map, and without branches, so that the
// CPU's loop over a block of pairs vectorises: GCC kept an aggregate whose address a call takes in an array per SIMD
// lane, and left the loop scalar.
MBIR_HOST_DEVICE inline RowRange
rowsReached(float first, float step, float width, int firstSlice, int lastSlice, int numRows)
{
  const float a = first + step * static_cast<float>(firstSlice), b = first + step * static_cast<float>(lastSlice);
  const float reach = 0.5f * (width + 1.0f);
  const float top = static_cast<float>(numRows);
  const int   low = static_cast<int>(clipped(floorf((a < b ? a : b) - reach), -1.0f, top));
  const int   high = static_cast<int>(clipped(ceilf((a > b ? a : b) + reach), -1.0f, top));
  const int   firstRow = low < 0 ? 0 : low;
  return { firstRow, lastSlice < firstSlice ? firstRow - 1 : (high >= numRows ? numRows - 1 : high) };
}

MBIR_HOST_DEVICE inline RowRange
RowMap::rowsReached(int firstSlice, int lastSlice, int numRows) const
{
  return kernels::rowsReached(first, step, width, firstSlice, lastSlice, numRows);
}

// The detector and recon grid as the kernels of the row-map geometries read them.
struct GridParams
{
  int   numDetRows;     // R
  int   numDetChannels; // C
  int   reconRows;      // N_i (y)
  int   reconCols;      // N_j (x)
  int   reconSlices;    // N_k (z)
  float deltaChannel;   // detector channel pitch [ALU] (arc length on a curved detector)
  float deltaRow;       // detector row pitch [ALU]
  float channelOffset;  // the central ray hits channel (C-1)/2 + channelOffset / deltaChannel
  float rowOffset;      // the central ray hits row (R-1)/2 + rowOffset / deltaRow
  float deltaX;         // voxel pitch along columns [ALU]
  float deltaY;         // voxel pitch along rows [ALU]
  float deltaZ;         // voxel pitch along slices [ALU]
};

// Everything one (view, pixel) pair contributes: channel weights and the slice-to-row map.
struct PixelProjection
{
  Footprint channels;
  RowMap    rows;
};

} // namespace mbir::kernels
