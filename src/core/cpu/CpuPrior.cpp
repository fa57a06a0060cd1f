// qGGMRF prior on the CPU, and the denoiser's noise statistic: the shared per-voxel kernels looped over
// cylinders and slices.

#include "CpuBackend.h"
#include "mbir/kernels/LocalDeviation.h"

#include <algorithm>
#include <cstddef>
#include <type_traits>
#include <vector>

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
  const int                  slices = shape.slices;
  const std::size_t          s = slices;
  const kernels::QGGMRFTerms local = kernels::qggmrfTerms(prior); // once, and unaliased by the stores
  // The bulk loop, with p = 2 (the default: quadratic near 0) known at compile time where it holds.
  auto byExponent = [&](auto pIsTwo) {
    constexpr bool PIsTwo = decltype(pIsTwo)::value;
#pragma omp parallel num_threads(threads)
    {
      std::vector<float> slicePairs(slices); // 2 btilde(x_k - x_k+1): voxels k and k + 1 share it
#pragma omp for schedule(dynamic, 16)
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
        // Slices 0 and real - 1 (which may take their slice neighbours from the shard's halos) and the padding go
        // through shardNeighbours; the slices between, the bulk, in SIMD lanes with a missing in-plane neighbour
        // read as the voxel itself, as shardNeighbours does.
        const int real = std::max(0, std::min(slices, shard.total - shard.first));
        auto      edge = [&](int k) {
          float x, nbr[6];
          kernels::shardNeighbours(self, rowNext, rowPrev, colNext, colPrev, lower, upper, k, slices, shard, x, nbr);
          kernels::qggmrfGradientHessian(x, nbr, local, g[k], h[k]);
        };
        const float *              rn = rowNext ? rowNext : self;
        const float *              rp = rowPrev ? rowPrev : self;
        const float *              cn = colNext ? colNext : self;
        const float *              cp = colPrev ? colPrev : self;
        const kernels::QGGMRFTerms terms = local; // its own copy: the lambda above takes `local` by reference
        float *                    pairs = slicePairs.data();
#pragma omp simd
        for (int k = 0; k < real - 1; ++k)
        {
          pairs[k] = kernels::qggmrfTwoBTilde<PIsTwo>(self[k] - self[k + 1], terms);
        }
        // The same terms, in the same order, as kernels::qggmrfGradientHessian: the same values to the bit.
#pragma omp simd
        for (int k = 1; k < real - 1; ++k)
        {
          const float x = self[k];
          float       grad = 0.0f, hess = 0.0f;
          auto        add = [&](float delta, float weight) {
            grad += weight * delta;
            hess += weight;
          };
          add(x - rn[k], terms.b[0] * kernels::qggmrfTwoBTilde<PIsTwo>(x - rn[k], terms));
          add(x - rp[k], terms.b[1] * kernels::qggmrfTwoBTilde<PIsTwo>(x - rp[k], terms));
          add(x - cn[k], terms.b[2] * kernels::qggmrfTwoBTilde<PIsTwo>(x - cn[k], terms));
          add(x - cp[k], terms.b[3] * kernels::qggmrfTwoBTilde<PIsTwo>(x - cp[k], terms));
          add(x - self[k + 1], terms.b[4] * pairs[k]);
          add(x - self[k - 1], terms.b[5] * pairs[k - 1]);
          g[k] = grad;
          h[k] = hess;
        }
        if (slices > 0)
        {
          edge(0);
        }
        for (int k = std::max(real - 1, 1); k < slices; ++k)
        {
          edge(k);
        }
      }
    }
  };
  if (local.pMinus2 == 0.0f)
  {
    byExponent(std::true_type{});
  }
  else
  {
    byExponent(std::false_type{});
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
  const std::size_t          s = shape.slices;
  const int                  real = std::max(0, std::min(shape.slices, shard.total - shard.first)); // local real
  const kernels::QGGMRFTerms local = kernels::qggmrfTerms(prior); // once, and unaliased by the stores
  double                     cost = 0.0;
#pragma omp      parallel for reduction(+ : cost) schedule(static) num_threads(threads)
  for (int row = 0; row < shape.rows; ++row)
  {
    for (int col = 0; col < shape.cols; ++col)
    {
      const std::size_t pixel = static_cast<std::size_t>(row) * shape.cols + col;
      const float *     self = volume + pixel * s;
      // Each voxel's potential with its next neighbour along row, column and slice; a missing in-plane
      // neighbour has weight 0 (read as the voxel itself), the last real slice's is the plane above or none.
      const bool    hasRow = row + 1 < shape.rows, hasCol = col + 1 < shape.cols;
      const float   wRow = hasRow ? local.b[0] : 0.0f, wCol = hasCol ? local.b[2] : 0.0f;
      const float * rn = hasRow ? self + shape.cols * s : self;
      const float * cn = hasCol ? self + s : self;
      double        sum = 0.0;
#pragma omp simd reduction(+ : sum)
      for (int k = 0; k < real - 1; ++k)
      {
        sum += wRow * kernels::qggmrfPotential(self[k] - rn[k], local) +
               wCol * kernels::qggmrfPotential(self[k] - cn[k], local) +
               local.b[4] * kernels::qggmrfPotential(self[k] - self[k + 1], local);
      }
      if (real > 0)
      {
        const int k = real - 1;
        sum += wRow * kernels::qggmrfPotential(self[k] - rn[k], local) +
               wCol * kernels::qggmrfPotential(self[k] - cn[k], local);
        if (k + 1 == static_cast<int>(s) && abovePlane && shard.first + k + 1 < shard.total)
        {
          sum += local.b[4] * kernels::qggmrfPotential(self[k] - abovePlane[pixel], local);
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
