#pragma once
// CPU kernels that live in their own translation units (internal to the CPU backend).

#include "mbir/Backend.h"

namespace mbir::cpu {

void
rampFilter(const float *                      in,
           const SinogramShape &              shape,
           const std::vector<RampDirection> & directions,
           float *                            out,
           int                                threads);

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
                      int                           threads);

double
qggmrfCost(const kernels::QGGMRFParams & prior,
           const float *                 volume,
           const ReconShape &            shape,
           const kernels::SliceShard &   shard,
           const float *                 abovePlane,
           int                           threads);

// Backend::localDeviationSums: the denoiser's noise statistic on a slice shard.
Backend::WeightedProducts
localDeviationSums(const float *      volume,
                   const ReconShape & shape,
                   int                validSlices,
                   const float *      previousSlice,
                   double             threshold,
                   int                threads);

} // namespace mbir::cpu
