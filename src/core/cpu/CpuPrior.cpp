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
  // The cylinder loop, with p = 2 (the default: quadratic near 0) known at compile time where it holds.
  auto byExponent = [&](auto pIsTwo) {
    constexpr bool PIsTwo = decltype(pIsTwo)::value;
#pragma omp parallel num_threads(threads)
    {
      std::vector<float> slicePairs(slices + 1); // 2 btilde of each slice pair: voxels k and k + 1 share it
      std::vector<float> extended(slices + 2);   // the real slices between their two slice neighbours
#pragma omp for schedule(dynamic, 16)
      for (int b = 0; b < cylinders.numPixels; ++b)
      {
        const int     pixel = cylinders.pixels[b];
        const int     row = pixel / shape.cols;
        const int     col = pixel - row * shape.cols;
        const float * self = volume + pixel * s;
        float *       g = gradient + b * s;
        float *       h = hessian + b * s;
        // The real slices, the ends included, in SIMD lanes: the cylinder is copied between its slice neighbours
        // below slice 0 and above the last real slice, which shardNeighbours gives (the shard's halo, or the voxel
        // itself at the volume's ends), and a missing in-plane neighbour is read as the voxel itself.
        const int real = std::max(0, std::min(slices, shard.total - shard.first));
        if (real > 0)
        {
          float * const column = extended.data(); // column[k + 1] = self[k]
          std::copy(self, self + real, column + 1);
          const float * lower = below ? below + b : nullptr;
          const float * upper = above ? above + b : nullptr;
          float         x, nbr[6]; // only the slice neighbours, nbr[4] above and nbr[5] below, are used
          kernels::shardNeighbours(self, nullptr, nullptr, nullptr, nullptr, lower, upper, 0, slices, shard, x, nbr);
          column[0] = nbr[5];
          kernels::shardNeighbours(
            self, nullptr, nullptr, nullptr, nullptr, lower, upper, real - 1, slices, shard, x, nbr);
          column[real + 1] = nbr[4];
          const float *              rn = row + 1 < shape.rows ? self + shape.cols * s : self;
          const float *              rp = row > 0 ? self - shape.cols * s : self;
          const float *              cn = col + 1 < shape.cols ? self + s : self;
          const float *              cp = col > 0 ? self - s : self;
          const kernels::QGGMRFTerms terms = local;             // its own copy, unaliased by the stores
          float * const              pairs = slicePairs.data(); // pairs[k] between column[k] and column[k + 1]
#pragma omp simd
          for (int k = 0; k <= real; ++k)
          {
            pairs[k] = kernels::qggmrfTwoBTilde<PIsTwo>(column[k] - column[k + 1], terms);
          }
          // The same terms, in the same order, as kernels::qggmrfGradientHessian: the same values to the bit.
#pragma omp simd
          for (int k = 0; k < real; ++k)
          {
            const float x = column[k + 1];
            float       grad = 0.0f, hess = 0.0f;
            auto        add = [&](float delta, float weight) {
              grad += weight * delta;
              hess += weight;
            };
            add(x - rn[k], terms.b[0] * kernels::qggmrfTwoBTilde<PIsTwo>(x - rn[k], terms));
            add(x - rp[k], terms.b[1] * kernels::qggmrfTwoBTilde<PIsTwo>(x - rp[k], terms));
            add(x - cn[k], terms.b[2] * kernels::qggmrfTwoBTilde<PIsTwo>(x - cn[k], terms));
            add(x - cp[k], terms.b[3] * kernels::qggmrfTwoBTilde<PIsTwo>(x - cp[k], terms));
            add(x - column[k + 2], terms.b[4] * pairs[k + 1]);
            add(x - column[k], terms.b[5] * pairs[k]);
            g[k] = grad;
            h[k] = hess;
          }
        }
        // The shard's padding: gradient 0 and a positive curvature, so that its update is exactly 0.
        for (int k = real; k < slices; ++k)
        {
          float x, nbr[6];
          kernels::shardNeighbours(
            self, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, k, slices, shard, x, nbr);
          kernels::qggmrfGradientHessian(x, nbr, local, g[k], h[k]);
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
