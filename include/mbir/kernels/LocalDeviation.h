#pragma once
// The denoiser's noise statistic at one voxel (spec/solver.md §5.4): the population standard deviation of
// the voxel and its predecessors along rows, columns and slices, an index -1 wrapping to the last. Written
// once for the host statistics and the backends' sums over slice shards.

#include "mbir/kernels/HostDevice.h"

#include <math.h>
#include <stddef.h>

namespace mbir::kernels {

// Voxel (row, col, k) of a slice shard of rows x cols cylinders of `stride` values, `valid` of them real.
// `previous` holds, per pixel, the slice before the shard's first (for the first shard, the volume's last);
// nullptr when the shard is the whole volume, so that k - 1 wraps to its own last real slice.
MBIR_HOST_DEVICE inline double
localDeviationAt(const float * volume,
                 int           rows,
                 int           cols,
                 int           stride,
                 int           valid,
                 const float * previous,
                 int           row,
                 int           col,
                 int           k)
{
  const size_t  pixel = static_cast<size_t>(row) * cols + col;
  const int     rowBefore = row > 0 ? row - 1 : rows - 1, colBefore = col > 0 ? col - 1 : cols - 1;
  const float * self = volume + pixel * stride;
  const double  v[4] = { self[k],
                         volume[(static_cast<size_t>(rowBefore) * cols + col) * stride + k],
                         volume[(static_cast<size_t>(row) * cols + colBefore) * stride + k],
                        k > 0      ? self[k - 1]
                         : previous ? previous[pixel]
                                    : self[valid - 1] };
  const double  mean = 0.25 * (v[0] + v[1] + v[2] + v[3]);
  double        variance = 0.0;
  for (const double u : v)
  {
    variance += (u - mean) * (u - mean);
  }
  return sqrt(0.25 * variance);
}

} // namespace mbir::kernels
