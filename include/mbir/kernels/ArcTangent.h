#pragma once
// atan2(y, x) in a form that compilers vectorise: the curved cone detector's channel is an arc length, one atan2 per
// (view, cylinder) pair, and the library's atan2f, a scalar call, kept the CPU's loop over pairs out of SIMD lanes.
// On the GPU it is atan2f.

#include "mbir/kernels/HostDevice.h"

#include <math.h>

namespace mbir::kernels {

#ifndef __CUDA_ARCH__
namespace detail {

// atan(z) for 0 <= z <= 1. Above tan(pi/8), atan(z) = pi/4 + atan(t) with t = (z - 1) / (z + 1); on |t| <= tan(pi/8),
// atan(t) = t P(t^2), P of degree 4 fitted to atan(t) / t for the least largest relative error (1.8e-8 in exact
// arithmetic, below float's rounding; scripts/fit-arc-tangent.py makes them).
inline float
arcTangentOfUnit(float z)
{
  const bool  above = z > 0.414213562f;
  const float t = above ? (z - 1.0f) / (z + 1.0f) : z;
  const float t2 = t * t;
  const float p = 0.999999982f + t2 * (-0.333328079f + t2 * (0.199747238f + t2 * (-0.138544521f + t2 * 0.0799362522f)));
  return (above ? 0.785398163f : 0.0f) + t * p;
}

} // namespace detail
#endif

// The angle of (x, y) from the x axis in [-pi, pi], as atan2f(y, x) within a few float roundings for finite x and y
// (NaN for a NaN). Selects rather than branches, so that a loop over pairs stays in SIMD lanes.
MBIR_HOST_DEVICE inline float
arcTangent(float y, float x)
{
#ifdef __CUDA_ARCH__
  return atan2f(y, x);
#else
  const float ay = fabsf(y), ax = fabsf(x);
  const bool  steep = ay > ax; // reduced to the octant 0 <= angle <= pi/4 by the line y = x
  const float high = steep ? ay : ax, low = steep ? ax : ay;
  float       angle = detail::arcTangentOfUnit(low / (high == 0.0f ? 1.0f : high)); // a NaN stays one
  angle = steep ? 1.57079633f - angle : angle;
  angle = x < 0.0f ? 3.14159265f - angle : angle;
  return copysignf(angle, y);
#endif
}

} // namespace mbir::kernels
