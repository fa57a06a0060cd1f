// The CPU backend's ramp filter (with this build's FFT: KissFFT, or FFTW with MBIR_USE_FFTW) against
// references computed here in double precision without any FFT: the spatial convolution of every detector row
// with the band-limited ramp kernel (spec/projectors.md §1.5), and for the directional filter the convolution
// with its 2-D kernel, synthesised by a direct inverse DFT of the gain the filter applies.

#include "MBIRTestSupport.h"
#include "mbir/Backend.h"
#include "mbir/kernels/RampFilter.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

using namespace mbir;

namespace {

constexpr double kTwoPi = 6.283185307179586476925286766559;

std::vector<float>
filtered(Backend &                          backend,
         const SinogramShape &              shape,
         const std::vector<float> &         y,
         const std::vector<RampDirection> & directions,
         bool                               inPlace)
{
  DeviceArray<float> in = backend.upload(y.data(), y.size());
  DeviceArray<float> out = inPlace ? DeviceArray<float>() : backend.allocate<float>(y.size());
  float *            target = inPlace ? in.data() : out.data();
  backend.rampFilter(in.data(), shape, directions, target);
  std::vector<float> result(y.size());
  backend.copyToHost(target, result.data(), result.size() * sizeof(float));
  return result;
}

// One view ([channel][row]) filtered along the channels and scaled by |a|: each row convolved with h.
std::vector<double>
alongChannels(const float * view, int C, int R, float a)
{
  std::vector<double> result(static_cast<std::size_t>(C) * R, 0.0);
  for (int c = 0; c < C; ++c)
  {
    for (int k = 0; k < R; ++k)
    {
      double sum = 0.0;
      for (int m = 0; m < C; ++m)
      {
        sum += kernels::rampKernel(c - m) * view[static_cast<std::size_t>(m) * R + k];
      }
      result[static_cast<std::size_t>(c) * R + k] = std::fabs(a) * sum;
    }
  }
  return result;
}

// One view filtered with the directional ramp of d. The filter multiplies the half spectrum (row frequencies
// 0 .. NR/2) of the view, zero-padded to NC x NR, by directionalRampGain; the full gain is its Hermitian
// completion, and the result the real part of the inverse transform (the real transforms keep only the real
// part of the self-conjugate bins). Its kernel is inverse-transformed here directly, in double precision,
// and convolved circularly with the view.
std::vector<double>
directional(const float * view, int C, int R, RampDirection d)
{
  const int                NC = kernels::rampFftSize(C), NR = kernels::rampFftSize(R);
  const std::vector<float> spectrum = kernels::rampSpectrum(C, NC);
  const auto               gain = [&](int kc, int kr) {
    if (kr > NR / 2)
    {
      kc = (NC - kc) % NC;
      kr = NR - kr;
    }
    const float fu = static_cast<float>(kc < NC / 2 ? kc : kc - NC) / static_cast<float>(NC);
    const float fv = static_cast<float>(kr) / static_cast<float>(NR);
    return static_cast<double>(kernels::directionalRampGain(spectrum.data(), NC, d.channel, d.row, fu, fv));
  };
  const int           points = NC * NR;
  std::vector<double> gains(points), cosines(points);
  for (int kc = 0; kc < NC; ++kc)
  {
    for (int kr = 0; kr < NR; ++kr)
    {
      gains[kc * NR + kr] = gain(kc, kr);
    }
  }
  for (int i = 0; i < points; ++i)
  {
    cosines[i] = std::cos(kTwoPi * i / points);
  }
  // kernel(dc, dr) for dc in (-C, C), dr in (-R, R), stored at [(dc + C - 1) * (2R - 1) + dr + R - 1]
  const int           width = 2 * R - 1;
  std::vector<double> kernel(static_cast<std::size_t>(2 * C - 1) * width);
  for (int dc = 1 - C; dc < C; ++dc)
  {
    for (int dr = 1 - R; dr < R; ++dr)
    {
      const long long uc = (dc % NC + NC) % NC, ur = (dr % NR + NR) % NR;
      double          sum = 0.0;
      for (int kc = 0; kc < NC; ++kc)
      {
        for (int kr = 0; kr < NR; ++kr)
        {
          // angle 2 pi (kc dc / NC + kr dr / NR), in units of 2 pi / (NC NR)
          sum += gains[kc * NR + kr] * cosines[(kc * uc * NR + kr * ur * NC) % points];
        }
      }
      kernel[static_cast<std::size_t>(dc + C - 1) * width + dr + R - 1] = sum / points;
    }
  }
  std::vector<double> result(static_cast<std::size_t>(C) * R, 0.0);
  for (int c = 0; c < C; ++c)
  {
    for (int k = 0; k < R; ++k)
    {
      double sum = 0.0;
      for (int m = 0; m < C; ++m)
      {
        for (int l = 0; l < R; ++l)
        {
          sum += kernel[static_cast<std::size_t>(c - m + C - 1) * width + k - l + R - 1] *
                 view[static_cast<std::size_t>(m) * R + l];
        }
      }
      result[static_cast<std::size_t>(c) * R + k] = sum;
    }
  }
  return result;
}

// The shapes (views, rows, channels): odd and even channel and row counts, a single row, a single channel,
// and a long FFT.
const SinogramShape kShapes[] = { { 5, 3, 21 }, { 4, 6, 32 }, { 3, 1, 7 }, { 3, 4, 1 }, { 2, 3, 200 } };

TEST(RampFilter, AlongChannelsIsTheConvolutionWithTheRampKernel)
{
  const auto cpu = makeCpuBackend(2);
  for (const SinogramShape & shape : kShapes)
  {
    SCOPED_TRACE(shape.str());
    const std::vector<float>   y = test::uniformRandom(shape.size(), 3, -1.0f, 1.0f);
    std::vector<RampDirection> directions(shape.views);
    for (int v = 0; v < shape.views; ++v)
    {
      directions[v] = RampDirection{ (v % 2 ? -0.6f : 1.0f) * static_cast<float>(v + 1), 0.0f };
    }
    directions[shape.views - 1].channel = 0.0f;
    std::vector<double> expected;
    const std::size_t   viewSize = static_cast<std::size_t>(shape.rows) * shape.channels;
    for (int v = 0; v < shape.views; ++v)
    {
      const std::vector<double> view =
        alongChannels(y.data() + v * viewSize, shape.channels, shape.rows, directions[v].channel);
      expected.insert(expected.end(), view.begin(), view.end());
    }
    EXPECT_LT(test::relativeError(filtered(*cpu, shape, y, directions, false), expected), 1e-5);
    EXPECT_LT(test::relativeError(filtered(*cpu, shape, y, directions, true), expected), 1e-5);
  }
}

TEST(RampFilter, DirectionalIsTheConvolutionWithItsKernel)
{
  const auto cpu = makeCpuBackend(2);
  for (const SinogramShape & shape : kShapes)
  {
    SCOPED_TRACE(shape.str());
    const std::vector<float>   y = test::uniformRandom(shape.size(), 5, -1.0f, 1.0f);
    std::vector<RampDirection> directions(shape.views);
    for (int v = 0; v < shape.views; ++v)
    {
      const float angle = 0.7f + 1.1f * static_cast<float>(v);
      directions[v] = RampDirection{ 1.2f * std::cos(angle), 0.8f * std::sin(angle) };
    }
    directions[0] = RampDirection{ 0.0f, 0.9f };  // along the rows alone
    directions[1] = RampDirection{ -1.3f, 0.0f }; // along the channels alone: the 1-D kernel on every row
    const std::size_t   viewSize = static_cast<std::size_t>(shape.rows) * shape.channels;
    std::vector<double> expected;
    for (int v = 0; v < shape.views; ++v)
    {
      const float *             view = y.data() + v * viewSize;
      const std::vector<double> one = v == 1 ? alongChannels(view, shape.channels, shape.rows, directions[v].channel)
                                             : directional(view, shape.channels, shape.rows, directions[v]);
      expected.insert(expected.end(), one.begin(), one.end());
    }
    const std::vector<float> result = filtered(*cpu, shape, y, directions, false);
    EXPECT_LT(test::relativeError(result, expected), 1e-5);
    EXPECT_LT(test::relativeError(filtered(*cpu, shape, y, directions, true), expected), 1e-5);
    // The view along the channels alone, on its own.
    const std::vector<float>  second(result.begin() + viewSize, result.begin() + 2 * viewSize);
    const std::vector<double> secondExpected(expected.begin() + viewSize, expected.begin() + 2 * viewSize);
    EXPECT_LT(test::relativeError(second, secondExpected), 1e-5);
  }
}

} // namespace
