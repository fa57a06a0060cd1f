// qGGMRF prior on the CPU, and the denoiser's noise statistic: the shared per-voxel kernels looped over
// cylinders and slices.

#include "CpuBackend.h"
#include "mbir/kernels/LocalDeviation.h"

#include <cstddef>

#include "CpuPathTarget.h" // last: what follows is compiled for this file's instruction-set path

namespace mbir::cpu::MBIR_CPU_PATH_NAMESPACE {

void
qggmrfGradientHessian(const kernels::QGGMRFParams & prior,
                      const float *                 volume,
                      const ReconShape &            shape,
                      const kernels::SliceShard &   shard,
                      const CylinderBatch &         cylinders,
                      const float *                 below,
                      const float *                 above,
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
    const float * rowNext = row + 1 < shape.rows ? self + shape.cols * s : nullptr;
    const float * rowPrev = row > 0 ? self - shape.cols * s : nullptr;
    const float * colNext = col + 1 < shape.cols ? self + s : nullptr;
    const float * colPrev = col > 0 ? self - s : nullptr;
    const float * lower = below ? below + b : nullptr;
    const float * upper = above ? above + b : nullptr;
    float *       g = gradient + b * s;
    float *       h = hessian + b * s;
    for (int k = 0; k < slices; ++k)
    {
      float x, nbr[6];
      kernels::shardNeighbours(self, rowNext, rowPrev, colNext, colPrev, lower, upper, k, slices, shard, x, nbr);
      kernels::qggmrfGradientHessian(x, nbr, prior, g[k], h[k]);
    }
  }
}

double
qggmrfCost(const kernels::QGGMRFParams & prior,
           const float *                 volume,
           const ReconShape &            shape,
           const kernels::SliceShard &   shard,
           const float *                 abovePlane,
           int                           threads)
{
  const std::size_t s = shape.slices;
  const int         real = std::max(0, std::min(shape.slices, shard.total - shard.first)); // local real slices
  double            cost = 0.0;
#pragma omp parallel for reduction(+ : cost) schedule(static) num_threads(threads)
  for (int row = 0; row < shape.rows; ++row)
  {
    for (int col = 0; col < shape.cols; ++col)
    {
      const std::size_t pixel = static_cast<std::size_t>(row) * shape.cols + col;
      const float *     self = volume + pixel * s;
      double            sum = 0.0;
      for (int k = 0; k < real; ++k)
      {
        if (row + 1 < shape.rows)
        {
          sum += prior.b[0] * kernels::qggmrfPotential(self[k] - self[k + shape.cols * s], prior);
        }
        if (col + 1 < shape.cols)
        {
          sum += prior.b[2] * kernels::qggmrfPotential(self[k] - self[k + s], prior);
        }
        if (k + 1 < real)
        {
          sum += prior.b[4] * kernels::qggmrfPotential(self[k] - self[k + 1], prior);
        }
        else if (k + 1 == static_cast<int>(s) && abovePlane && shard.first + k + 1 < shard.total)
        {
          sum += prior.b[4] * kernels::qggmrfPotential(self[k] - abovePlane[pixel], prior);
        }
      }
      cost += sum;
    }
  }
  return cost;
}

Backend::WeightedProducts
localDeviationSums(const float *      volume,
                   const ReconShape & shape,
                   int                validSlices,
                   const float *      previousSlice,
                   double             threshold,
                   int                threads)
{
  const int stride = shape.slices;
  double    sum = 0.0, count = 0.0;
#pragma omp parallel for collapse(2) reduction(+ : sum, count) schedule(static) num_threads(threads)
  for (int row = 0; row < shape.rows; ++row)
  {
    for (int col = 0; col < shape.cols; ++col)
    {
      const float * self = volume + (static_cast<std::size_t>(row) * shape.cols + col) * stride;
      for (int k = 0; k < validSlices; ++k)
      {
        if (self[k] >= threshold)
        {
          sum +=
            kernels::localDeviationAt(volume, shape.rows, shape.cols, stride, validSlices, previousSlice, row, col, k);
          count += 1.0;
        }
      }
    }
  }
  return Backend::WeightedProducts{ sum, count };
}

} // namespace mbir::cpu::MBIR_CPU_PATH_NAMESPACE
