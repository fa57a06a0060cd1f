#pragma once
// The qGGMRF prior (spec/solver.md §1.3): potential, surrogate coefficient, and the gradient and
// surrogate-Hessian diagonal at one voxel from its six neighbours.

#include "mbir/kernels/HostDevice.h"
#include "mbir/kernels/PositivePow.h"

#include <math.h>

namespace mbir::kernels {

constexpr float kFloatEpsilon = 1.1920929e-7f; // float32 machine epsilon, as the spec uses it

struct QGGMRFParams
{
  float sigmaX; // scale of the prior
  float p;      // exponent near 0 (2 by default: quadratic there)
  float q;      // exponent far from 0
  float T;      // threshold in units of sigmaX
  // Neighbour weights b_k in the order row+1, row-1, col+1, col-1, slice+1, slice-1, summing to 1.
  float b[6];
};

// Neighbour weights from the per-axis weights [row, col, slice]: b = w / (2 * sum w) per side.
MBIR_HOST_DEVICE inline void
neighbourWeights(float rowWeight, float colWeight, float sliceWeight, float b[6])
{
  const float norm = 2.0f * (rowWeight + colWeight + sliceWeight);
  b[0] = b[1] = rowWeight / norm;
  b[2] = b[3] = colWeight / norm;
  b[4] = b[5] = sliceWeight / norm;
}

// The prior's per-call constants, worked out once for a loop rather than per voxel (loop-invariant powers
// and selects also stop the CPU's vectoriser).
struct QGGMRFTerms
{
  float inverseScale;   // 1 / (T sigma)
  float least;          // T sigma eps, the least |delta| the potential takes
  float ratioExponent;  // q - p
  float pMinus2;        // p - 2
  float p;              // p
  float potentialScale; // 1 / (p sigma^p)
  float curvatureScale; // T^(p-2) / sigma^2
  float qOverP;         // q / p
  float b[6];           // the neighbour weights
};

MBIR_HOST_DEVICE inline QGGMRFTerms
qggmrfTerms(const QGGMRFParams & g)
{
  QGGMRFTerms t;
  t.inverseScale = 1.0f / (g.T * g.sigmaX);
  t.least = g.T * g.sigmaX * kFloatEpsilon;
  t.ratioExponent = g.q - g.p;
  t.pMinus2 = g.p - 2.0f;
  t.p = g.p;
  t.potentialScale = 1.0f / (g.p * positivePow(g.sigmaX, g.p));
  t.curvatureScale = positivePow(g.T, g.p - 2.0f) / (g.sigmaX * g.sigmaX);
  t.qOverP = g.q / g.p;
  for (int k = 0; k < 6; ++k)
  {
    t.b[k] = g.b[k];
  }
  return t;
}

// rho(delta) = |delta|^p / (p sigma^p) * s^(q-p) / (1 + s^(q-p)),  s = |delta| / (T sigma).
MBIR_HOST_DEVICE inline float
qggmrfPotential(float delta, const QGGMRFTerms & t)
{
  const float magnitude = fabsf(delta) > t.least ? fabsf(delta) : t.least; // a select: fmaxf is a call on x86
  const float ratio = positivePow(magnitude * t.inverseScale, t.ratioExponent);
  return positivePow(magnitude, t.p) * t.potentialScale * ratio / (1.0f + ratio);
}
MBIR_HOST_DEVICE inline float
qggmrfPotential(float delta, const QGGMRFParams & g)
{
  return qggmrfPotential(delta, qggmrfTerms(g));
}

// 2 * btilde(delta) = rho'(delta) / delta, with eps added to s (not clipped) so that 0^(negative) cannot
// occur; 2 btilde(0) is then the curvature at 0. PIsTwo: p = 2 known where it is called, which spares the
// power s^(p-2) = 1 and gives the same value.
template<bool PIsTwo = false>
MBIR_HOST_DEVICE inline float
qggmrfTwoBTilde(float delta, const QGGMRFTerms & t)
{
  const float s = fabsf(delta) * t.inverseScale + kFloatEpsilon;
  const float ratio = positivePow(s, t.ratioExponent);
  float       sPowQm2 = ratio; // s^(q-2), and exactly ratio at p = 2 (s^0 = 1)
  if constexpr (!PIsTwo)
  {
    sPowQm2 *= positivePow(s, t.pMinus2);
  }
  const float denom = 1.0f + ratio;
  return t.curvatureScale * sPowQm2 * (t.qOverP + ratio) / (denom * denom);
}
MBIR_HOST_DEVICE inline float
qggmrfTwoBTilde(float delta, const QGGMRFParams & g)
{
  return qggmrfTwoBTilde(delta, qggmrfTerms(g));
}

// One neighbour's share of the gradient and surrogate-Hessian diagonal.
MBIR_HOST_DEVICE inline void
qggmrfAccumulate(float delta, float b, const QGGMRFTerms & t, float & gradient, float & hessian)
{
  const float weight = b * qggmrfTwoBTilde(delta, t);
  gradient += weight * delta;
  hessian += weight;
}

// Gradient and surrogate-Hessian diagonal at a voxel of value `x` whose neighbours (same order as b)
// have values `nbr`; a neighbour outside the volume is passed as x itself (difference 0). The six terms are
// written out, and the neighbours can come as six values: an indexed loop, or an array per SIMD lane, stops the
// CPU's vectoriser.
MBIR_HOST_DEVICE inline void
qggmrfGradientHessian(float               x,
                      float               rowNext,
                      float               rowPrev,
                      float               colNext,
                      float               colPrev,
                      float               sliceNext,
                      float               slicePrev,
                      const QGGMRFTerms & t,
                      float &             gradient,
                      float &             hessian)
{
  float grad = 0.0f, hess = 0.0f;
  qggmrfAccumulate(x - rowNext, t.b[0], t, grad, hess);
  qggmrfAccumulate(x - rowPrev, t.b[1], t, grad, hess);
  qggmrfAccumulate(x - colNext, t.b[2], t, grad, hess);
  qggmrfAccumulate(x - colPrev, t.b[3], t, grad, hess);
  qggmrfAccumulate(x - sliceNext, t.b[4], t, grad, hess);
  qggmrfAccumulate(x - slicePrev, t.b[5], t, grad, hess);
  gradient = grad;
  hessian = hess;
}
MBIR_HOST_DEVICE inline void
qggmrfGradientHessian(float x, const float nbr[6], const QGGMRFTerms & t, float & gradient, float & hessian)
{
  qggmrfGradientHessian(x, nbr[0], nbr[1], nbr[2], nbr[3], nbr[4], nbr[5], t, gradient, hessian);
}
MBIR_HOST_DEVICE inline void
qggmrfGradientHessian(float x, const float nbr[6], const QGGMRFParams & g, float & gradient, float & hessian)
{
  qggmrfGradientHessian(x, nbr, qggmrfTerms(g), gradient, hessian);
}

// Where a volume shard lies in the whole volume: its local slice k is global slice first + k, of `total`
// real slices; local slices at or beyond `total` are padding. A whole volume is { 0, slices }.
struct SliceShard
{
  int first;
  int total;
};

// The value of voxel k (local slice) of a cylinder and its six neighbours in the order of
// QGGMRFParams::b, for a shard of `count` local slices: in-plane neighbour cylinders are null outside
// the grid, `below` / `above` point to this cylinder's values of the slices just outside the shard (null
// at the volume's ends). A neighbour outside the volume, or in its padding, is the voxel itself
// (difference 0). Returns false for a padding voxel, whose value and neighbours are then 0 (never read),
// so that its gradient is 0 and its curvature positive: its update is exactly 0.
MBIR_HOST_DEVICE inline bool
shardNeighbours(const float * self,
                const float * rowNext,
                const float * rowPrev,
                const float * colNext,
                const float * colPrev,
                const float * below,
                const float * above,
                int           k,
                int           count,
                SliceShard    shard,
                float &       x,
                float         nbr[6])
{
  const int global = shard.first + k;
  if (global >= shard.total)
  {
    x = 0.0f;
    for (int n = 0; n < 6; ++n)
    {
      nbr[n] = 0.0f;
    }
    return false;
  }
  x = self[k];
  nbr[0] = rowNext ? rowNext[k] : x;
  nbr[1] = rowPrev ? rowPrev[k] : x;
  nbr[2] = colNext ? colNext[k] : x;
  nbr[3] = colPrev ? colPrev[k] : x;
  nbr[4] = global + 1 >= shard.total ? x : (k + 1 < count ? self[k + 1] : (above ? *above : x));
  nbr[5] = global == 0 ? x : (k > 0 ? self[k - 1] : (below ? *below : x));
  return true;
}

// One element of the VCD step direction (spec/solver.md §3.5): delta = -g / h with the data gradient
// -dataScale * backProjection and curvature dataScale * dataHessian added to the prior's.
MBIR_HOST_DEVICE inline float
vcdDirectionElement(float dataScale, float backProjection, float dataHessian, float priorGradient, float priorHessian)
{
  return (dataScale * backProjection - priorGradient) / (dataScale * dataHessian + priorHessian);
}

} // namespace mbir::kernels
