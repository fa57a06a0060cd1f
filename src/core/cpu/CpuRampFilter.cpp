// Ramp filtering by zero-padded FFT convolution, which is the linear (not circular) convolution with the
// band-limited kernel when the FFT has >= 2C-1 points (2R-1 along rows for the directional filter). The FFT
// itself is RealFft (KissFFT, or FFTW with MBIR_USE_FFTW).

#include "CpuBackend.h"
#include "RealFft.h"
#include "mbir/Config.h"
#include "mbir/kernels/RampFilter.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <memory>
#include <vector>

#if MBIR_USE_OPENMP
#  include <omp.h>
#endif

namespace mbir::cpu {
namespace {

int
threadIndex()
{
#if MBIR_USE_OPENMP
  return omp_get_thread_num();
#else
  return 0;
#endif
}

// One transform (with its buffers) per worker thread.
std::vector<std::unique_ptr<RealFft>>
perThread(int workers, RealFft::Kind kind, int outer, int inner)
{
  std::vector<std::unique_ptr<RealFft>> ffts(workers);
  for (auto & fft : ffts)
  {
    fft = std::make_unique<RealFft>(kind, outer, inner);
  }
  return ffts;
}

// Every view's rows along the channels, view v scaled by |directions[v].channel|.
void
filterAlongChannels(const float *                      in,
                    const SinogramShape &              shape,
                    const std::vector<RampDirection> & directions,
                    float *                            out,
                    int                                threads)
{
  const int                C = shape.channels, R = shape.rows, N = kernels::rampFftSize(C), F = N / 2 + 1;
  const std::vector<float> spectrum = kernels::rampSpectrum(C, N);

  // One view at a time per thread: its R rows, zero-padded to N, transformed together.
  const int         workers = std::max(1, std::min(threads, shape.views));
  const auto        ffts = perThread(workers, RealFft::Kind::Lines, R, N);
  const std::size_t viewSize = static_cast<std::size_t>(C) * R;
#pragma omp parallel for schedule(dynamic) num_threads(workers)
  for (int v = 0; v < shape.views; ++v)
  {
    RealFft &     fft = *ffts[threadIndex()];
    float *       rows = fft.real();
    const float * view = in + v * viewSize; // [channel][row]
    for (int k = 0; k < R; ++k)
    {
      float * line = rows + static_cast<std::size_t>(k) * N;
      for (int c = 0; c < C; ++c)
      {
        line[c] = view[static_cast<std::size_t>(c) * R + k];
      }
      std::fill(line + C, line + N, 0.0f);
    }
    fft.forward();
    const float           scale = std::fabs(directions[v].channel) / static_cast<float>(N); // unnormalised inverse
    std::complex<float> * bins = fft.spectrum();
    for (int k = 0; k < R; ++k)
    {
      std::complex<float> * line = bins + static_cast<std::size_t>(k) * F;
      for (int f = 0; f < F; ++f)
      {
        line[f] *= spectrum[f] * scale;
      }
    }
    fft.inverse();
    float * target = out + v * viewSize;
    for (int c = 0; c < C; ++c)
    {
      for (int k = 0; k < R; ++k)
      {
        target[static_cast<std::size_t>(c) * R + k] = rows[static_cast<std::size_t>(k) * N + c];
      }
    }
  }
}

// Every view with its own 2-D directional ramp: one zero-padded 2-D FFT of the [channel][row] view.
void
filterDirectional(const float *                      in,
                  const SinogramShape &              shape,
                  const std::vector<RampDirection> & directions,
                  float *                            out,
                  int                                threads)
{
  const int                C = shape.channels, R = shape.rows;
  const int                NC = kernels::rampFftSize(C), NR = kernels::rampFftSize(R), FR = NR / 2 + 1;
  const std::vector<float> spectrum = kernels::rampSpectrum(C, NC);
  const int                workers = std::max(1, std::min(threads, shape.views));
  const auto               ffts = perThread(workers, RealFft::Kind::Plane, NC, NR);
  const std::size_t        viewSize = static_cast<std::size_t>(C) * R;
  const float              norm = 1.0f / (static_cast<float>(NC) * static_cast<float>(NR)); // unnormalised inverse
#pragma omp parallel for schedule(dynamic) num_threads(workers)
  for (int v = 0; v < shape.views; ++v)
  {
    RealFft &     fft = *ffts[threadIndex()];
    float *       plane = fft.real();
    const float * view = in + v * viewSize;
    std::fill(plane, plane + std::size_t(NC) * NR, 0.0f);
    for (int c = 0; c < C; ++c)
    {
      std::copy_n(view + static_cast<std::size_t>(c) * R, R, plane + static_cast<std::size_t>(c) * NR);
    }
    fft.forward();
    const RampDirection   d = directions[v];
    std::complex<float> * bins = fft.spectrum();
    for (int kc = 0; kc < NC; ++kc)
    {
      const float fu = static_cast<float>(kc < NC / 2 ? kc : kc - NC) / static_cast<float>(NC);
      for (int kr = 0; kr < FR; ++kr)
      {
        const float fv = static_cast<float>(kr) / static_cast<float>(NR);
        bins[static_cast<std::size_t>(kc) * FR + kr] *=
          kernels::directionalRampGain(spectrum.data(), NC, d.channel, d.row, fu, fv) * norm;
      }
    }
    fft.inverse();
    float * target = out + v * viewSize;
    for (int c = 0; c < C; ++c)
    {
      std::copy_n(plane + static_cast<std::size_t>(c) * NR, R, target + static_cast<std::size_t>(c) * R);
    }
  }
}

} // namespace

void
rampFilter(const float *                      in,
           const SinogramShape &              shape,
           const std::vector<RampDirection> & directions,
           float *                            out,
           int                                threads)
{
  const bool alongChannels =
    std::all_of(directions.begin(), directions.end(), [](const RampDirection & d) { return d.row == 0.0f; });
  if (alongChannels)
  {
    filterAlongChannels(in, shape, directions, out, threads);
  }
  else
  {
    filterDirectional(in, shape, directions, out, threads);
  }
}

} // namespace mbir::cpu
