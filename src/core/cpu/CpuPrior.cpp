// qGGMRF prior on the CPU: the shared per-voxel kernel looped over cylinders and slices.

#include "CpuBackend.h"

#include <cstddef>

namespace mbir::cpu {

void
qggmrfGradientHessian(const kernels::QGGMRFParams & prior,
                      const float *                 volume,
                      const ReconShape &            shape,
                      const CylinderBatch &         cylinders,
                      float *                       gradient,
                      float *                       hessian,
                      int                           threads)
{
  const int         slices = shape.slices;
  const std::size_t s = slices;
#pragma omp parallel for schedule(dynamic, 16) num_threads(threads)
  for (int b = 0; b < cylinders.numPixels; ++b)
  {
    const int     pixel = cylinders.pixels[b];
    const int     row = pixel / shape.cols;
    const int     col = pixel - row * shape.cols;
    const float * self = volume + pixel * s;
    // In-plane neighbours; one outside the grid is the cylinder itself (difference 0).
    const float * rowNext = row + 1 < shape.rows ? self + shape.cols * s : self;
    const float * rowPrev = row > 0 ? self - shape.cols * s : self;
    const float * colNext = col + 1 < shape.cols ? self + s : self;
    const float * colPrev = col > 0 ? self - s : self;
    float *       g = gradient + b * s;
    float *       h = hessian + b * s;
#pragma omp simd
    for (int k = 0; k < slices; ++k)
    {
      const float x = self[k];
      const float nbr[6] = {
        rowNext[k], rowPrev[k], colNext[k], colPrev[k], k + 1 < slices ? self[k + 1] : x, k > 0 ? self[k - 1] : x
      };
      kernels::qggmrfGradientHessian(x, nbr, prior, g[k], h[k]);
    }
  }
}

double
qggmrfCost(const kernels::QGGMRFParams & prior, const float * volume, const ReconShape & shape, int threads)
{
  const int         slices = shape.slices;
  const std::size_t s = slices;
  double            cost = 0.0;
#pragma omp parallel for reduction(+ : cost) schedule(static) num_threads(threads)
  for (int row = 0; row < shape.rows; ++row)
  {
    for (int col = 0; col < shape.cols; ++col)
    {
      const float * self = volume + (static_cast<std::size_t>(row) * shape.cols + col) * s;
      double        sum = 0.0;
      for (int k = 0; k < slices; ++k)
      {
        if (row + 1 < shape.rows)
        {
          sum += prior.b[0] * kernels::qggmrfPotential(self[k] - self[k + shape.cols * s], prior);
        }
        if (col + 1 < shape.cols)
        {
          sum += prior.b[2] * kernels::qggmrfPotential(self[k] - self[k + s], prior);
        }
        if (k + 1 < slices)
        {
          sum += prior.b[4] * kernels::qggmrfPotential(self[k] - self[k + 1], prior);
        }
      }
      cost += sum;
    }
  }
  return cost;
}

} // namespace mbir::cpu
