#pragma once
// CPU kernels that live in their own translation units (internal to the CPU backend).

#include "mbir/Backend.h"

#include <memory>

// The kernels of the CPU backend are compiled once per instruction-set path (CpuDispatch.cpp):
// MBIR_CPU_PATH is 0 (baseline x86-64), 1 (AVX2 + FMA) or 2 (AVX-512), set by the wrapper file that
// includes CpuBackend.cpp or CpuPrior.cpp; each copy's names live in its path's namespace.
#ifndef MBIR_CPU_PATH
#  define MBIR_CPU_PATH 0
#endif
#if MBIR_CPU_PATH == 2
#  define MBIR_CPU_PATH_NAMESPACE avx512
#elif MBIR_CPU_PATH == 1
#  define MBIR_CPU_PATH_NAMESPACE avx2
#else
#  define MBIR_CPU_PATH_NAMESPACE baseline
#endif

namespace mbir::cpu {

void
rampFilter(const float *                      in,
           const SinogramShape &              shape,
           const std::vector<RampDirection> & directions,
           float *                            out,
           int                                threads);

namespace MBIR_CPU_PATH_NAMESPACE {

// The backend of this path (makeCpuBackend picks one).
std::shared_ptr<Backend>
makeBackend(int numThreads);

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

} // namespace MBIR_CPU_PATH_NAMESPACE

using MBIR_CPU_PATH_NAMESPACE::localDeviationSums;
using MBIR_CPU_PATH_NAMESPACE::qggmrfCost;
using MBIR_CPU_PATH_NAMESPACE::qggmrfGradientHessian;

} // namespace mbir::cpu
