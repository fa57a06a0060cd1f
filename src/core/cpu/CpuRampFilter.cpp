// Ramp filtering of detector rows with FFTW (single precision): zero-padded FFT convolution, which is
// the linear (not circular) convolution with the length-(2C-1) kernel when the FFT has >= 2C-1 points.

#include "CpuBackend.h"
#include "mbir/Config.h"
#include "mbir/kernels/RampFilter.h"

#include <fftw3.h>

#include <complex>
#include <memory>
#include <mutex>
#include <vector>

#if MBIR_USE_OPENMP
#  include <omp.h>
#endif

namespace mbir::cpu {
namespace {

std::mutex &
fftwPlannerMutex()
{
  static std::mutex m; // FFTW's planner is not thread-safe; execution is
  return m;
}

struct FftwFree
{
  void
  operator()(void * p) const
  {
    fftwf_free(p);
  }
};

int
fftSize(int channels)
{
  int n = 1;
  while (n < 2 * channels - 1)
  {
    n *= 2;
  }
  return n;
}

} // namespace

void
rampFilter(const float * in, const SinogramShape & shape, float scale, float * out, int threads)
{
  const int C = shape.channels, R = shape.rows, N = fftSize(C), F = N / 2 + 1;

  // Spectrum of the kernel laid out circularly; the kernel is even, so the spectrum is real.
  std::unique_ptr<float, FftwFree>         kernel(static_cast<float *>(fftwf_malloc(sizeof(float) * N)));
  std::unique_ptr<fftwf_complex, FftwFree> spectrum(
    static_cast<fftwf_complex *>(fftwf_malloc(sizeof(fftwf_complex) * F)));
  for (int n = 0; n < N; ++n)
  {
    kernel.get()[n] = 0.0f;
  }
  for (int n = 0; n < C; ++n)
  {
    kernel.get()[n] = static_cast<float>(kernels::rampKernel(n));
    if (n > 0)
    {
      kernel.get()[N - n] = static_cast<float>(kernels::rampKernel(-n));
    }
  }
  std::vector<float> gain(F);
  {
    std::lock_guard<std::mutex> lock(fftwPlannerMutex());
    fftwf_plan                  plan = fftwf_plan_dft_r2c_1d(N, kernel.get(), spectrum.get(), FFTW_ESTIMATE);
    fftwf_execute(plan);
    fftwf_destroy_plan(plan);
  }
  for (int f = 0; f < F; ++f)
  {
    gain[f] = spectrum.get()[f][0] * scale / static_cast<float>(N); // FFTW's inverse is unnormalised
  }

  // One view at a time per thread: its R rows, zero-padded to N, transformed together.
  const int                                             workers = std::max(1, std::min(threads, shape.views));
  std::vector<std::unique_ptr<float, FftwFree>>         rowsBuffer(workers);
  std::vector<std::unique_ptr<fftwf_complex, FftwFree>> freqBuffer(workers);
  for (int t = 0; t < workers; ++t)
  {
    rowsBuffer[t].reset(static_cast<float *>(fftwf_malloc(sizeof(float) * N * R)));
    freqBuffer[t].reset(static_cast<fftwf_complex *>(fftwf_malloc(sizeof(fftwf_complex) * F * R)));
  }
  fftwf_plan forward, inverse;
  {
    std::lock_guard<std::mutex> lock(fftwPlannerMutex());
    int                         n[] = { N };
    forward = fftwf_plan_many_dft_r2c(
      1, n, R, rowsBuffer[0].get(), nullptr, 1, N, freqBuffer[0].get(), nullptr, 1, F, FFTW_ESTIMATE);
    inverse = fftwf_plan_many_dft_c2r(
      1, n, R, freqBuffer[0].get(), nullptr, 1, F, rowsBuffer[0].get(), nullptr, 1, N, FFTW_ESTIMATE);
  }
  const std::size_t viewSize = static_cast<std::size_t>(C) * R;
#pragma omp parallel for schedule(dynamic) num_threads(workers)
  for (int v = 0; v < shape.views; ++v)
  {
#if MBIR_USE_OPENMP
    const int t = omp_get_thread_num();
#else
    const int t = 0;
#endif
    float *         rows = rowsBuffer[t].get();
    fftwf_complex * freq = freqBuffer[t].get();
    const float *   view = in + v * viewSize; // [channel][row]
    for (int k = 0; k < R; ++k)
    {
      float * line = rows + static_cast<std::size_t>(k) * N;
      for (int c = 0; c < C; ++c)
      {
        line[c] = view[static_cast<std::size_t>(c) * R + k];
      }
      for (int c = C; c < N; ++c)
      {
        line[c] = 0.0f;
      }
    }
    fftwf_execute_dft_r2c(forward, rows, freq);
    for (int k = 0; k < R; ++k)
    {
      fftwf_complex * line = freq + static_cast<std::size_t>(k) * F;
      for (int f = 0; f < F; ++f)
      {
        line[f][0] *= gain[f];
        line[f][1] *= gain[f];
      }
    }
    fftwf_execute_dft_c2r(inverse, freq, rows);
    float * target = out + v * viewSize;
    for (int c = 0; c < C; ++c)
    {
      for (int k = 0; k < R; ++k)
      {
        target[static_cast<std::size_t>(c) * R + k] = rows[static_cast<std::size_t>(k) * N + c];
      }
    }
  }
  std::lock_guard<std::mutex> lock(fftwPlannerMutex());
  fftwf_destroy_plan(forward);
  fftwf_destroy_plan(inverse);
}

} // namespace mbir::cpu
