#pragma once
// x^y for x > 0 in a form that compilers vectorise: the qGGMRF loops call it in SIMD lanes on the CPU, where the
// library's powf is a scalar call per voxel neighbour (the largest single cost of a CPU recon before). On the GPU
// it is powf.

#include "mbir/kernels/HostDevice.h"

#include <math.h>
#ifndef __CUDA_ARCH__
#  include <cstdint>
#  include <cstring>
#endif

namespace mbir::kernels {

#ifndef __CUDA_ARCH__
namespace detail {

inline float
floatFromBits(std::int32_t bits)
{
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

// log2(x) for x > 0, x below the least normal float counting as it: the exponent, plus log2 of the mantissa in
// [sqrt(1/2), sqrt(2)) from the atanh series log(m) = 2 (t + t^3/3 + t^5/5 + ...), t = (m - 1) / (m + 1), |t| <= 0.172:
// terms to t^9 leave < 1e-9.
inline float
log2Positive(float x)
{
  std::int32_t bits; // x > 0: the sign bit is 0, and signed compares vectorise on every x86 path
  std::memcpy(&bits, &x, sizeof bits);
  bits = bits < 0x00800000 ? 0x00800000 : bits; // on the bits: a float select here stops the vectoriser
  const int  biased = bits >> 23;
  float      mantissa = floatFromBits((bits & 0x007fffff) | 0x3f800000); // [1, 2)
  const bool high = mantissa > 1.41421356f;
  mantissa = high ? 0.5f * mantissa : mantissa;
  const float exponent = static_cast<float>(biased - 127 + (high ? 1 : 0));
  const float t = (mantissa - 1.0f) / (mantissa + 1.0f);
  const float t2 = t * t;
  const float series = 1.0f + t2 * (1.0f / 3.0f + t2 * (1.0f / 5.0f + t2 * (1.0f / 7.0f + t2 * (1.0f / 9.0f))));
  return exponent + t * series * 2.88539008f; // 2 / ln 2
}

// 2^z: z = n + f with n whole and |f| <= 1/2; 2^f = e^(f ln 2) from its Taylor series to degree 7 (< 1e-8 left),
// 2^n from the exponent bits. Below 2^-126 it gives 0 and above 2^128 infinity.
inline float
exp2Any(float z)
{
  const float low = z > -127.0f ? z : -127.0f; // selects, not fmaxf / fminf: those are library calls on x86
  const float clamped = low < 128.0f ? low : 128.0f;
  const float whole = (clamped + 12582912.0f) - 12582912.0f; // round to nearest (1.5 * 2^23)
  const float u = (clamped - whole) * 0.693147181f;
  const float fraction =
    1.0f +
    u * (1.0f + u * (0.5f + u * (1.0f / 6.0f + u * (1.0f / 24.0f + u * (1.0f / 120.0f +
                                                                        u * (1.0f / 720.0f + u * (1.0f / 5040.0f)))))));
  const int n = static_cast<int>(whole);
  return fraction * floatFromBits((n + 127) << 23); // n = -127: 0; n = 128: infinity
}

} // namespace detail
#endif

// x^y for x > 0 (0 < x < 2^-126 counts as 2^-126). Relative error within about 1e-6 (1 + |y log2 x|) of powf.
MBIR_HOST_DEVICE inline float
positivePow(float x, float y)
{
#ifdef __CUDA_ARCH__
  return powf(x, y);
#else
  return detail::exp2Any(y * detail::log2Positive(x));
#endif
}

} // namespace mbir::kernels
