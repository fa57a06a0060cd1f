// Ramp filtering with FFTW (single precision): zero-padded FFT convolution, which is the linear (not
// circular) convolution with the band-limited kernel when the FFT has >= 2C-1 points (2R-1 along rows
// for the directional filter).

#include "CpuBackend.h"
#include "mbir/Config.h"
#include "mbir/kernels/RampFilter.h"

#include <fftw3.h>

#include <algorithm>
#include <cmath>
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

template<typename T>
struct FftwBuffer
{
  explicit FftwBuffer(std::size_t count)
    : data(static_cast<T *>(fftwf_malloc(sizeof(T) * count)))
  {}
  ~FftwBuffer() { fftwf_free(data); }
  FftwBuffer(const FftwBuffer &) = delete;
  FftwBuffer &
      operator=(const FftwBuffer &) = delete;
  T * data;
};

// A plan made under the planner lock and destroyed under it.
class Plan
{
public:
  explicit Plan(fftwf_plan plan)
    : m_Plan(plan)
  {}
  ~Plan()
  {
    std::lock_guard<std::mutex> lock(fftwPlannerMutex());
    fftwf_destroy_plan(m_Plan);
  }
  Plan(const Plan &) = delete;
  Plan &
  operator=(const Plan &) = delete;
  fftwf_plan
  get() const
  {
    return m_Plan;
  }

private:
  fftwf_plan m_Plan;
};

int
threadIndex()
{
#if MBIR_USE_OPENMP
  return omp_get_thread_num();
#else
  return 0;
#endif
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
  const int                                               workers = std::max(1, std::min(threads, shape.views));
  std::vector<std::unique_ptr<FftwBuffer<float>>>         lines(workers);
  std::vector<std::unique_ptr<FftwBuffer<fftwf_complex>>> freq(workers);
  for (int t = 0; t < workers; ++t)
  {
    lines[t] = std::make_unique<FftwBuffer<float>>(std::size_t(N) * R);
    freq[t] = std::make_unique<FftwBuffer<fftwf_complex>>(std::size_t(F) * R);
  }
  std::unique_ptr<Plan> forward, inverse;
  {
    std::lock_guard<std::mutex> lock(fftwPlannerMutex());
    int                         n[] = { N };
    forward = std::make_unique<Plan>(
      fftwf_plan_many_dft_r2c(1, n, R, lines[0]->data, nullptr, 1, N, freq[0]->data, nullptr, 1, F, FFTW_ESTIMATE));
    inverse = std::make_unique<Plan>(
      fftwf_plan_many_dft_c2r(1, n, R, freq[0]->data, nullptr, 1, F, lines[0]->data, nullptr, 1, N, FFTW_ESTIMATE));
  }
  const std::size_t viewSize = static_cast<std::size_t>(C) * R;
#pragma omp parallel for schedule(dynamic) num_threads(workers)
  for (int v = 0; v < shape.views; ++v)
  {
    const int       t = threadIndex();
    float *         rows = lines[t]->data;
    fftwf_complex * bins = freq[t]->data;
    const float *   view = in + v * viewSize; // [channel][row]
    for (int k = 0; k < R; ++k)
    {
      float * line = rows + static_cast<std::size_t>(k) * N;
      for (int c = 0; c < C; ++c)
      {
        line[c] = view[static_cast<std::size_t>(c) * R + k];
      }
      std::fill(line + C, line + N, 0.0f);
    }
    fftwf_execute_dft_r2c(forward->get(), rows, bins);
    const float scale = std::fabs(directions[v].channel) / static_cast<float>(N); // FFTW's inverse is unnormalised
    for (int k = 0; k < R; ++k)
    {
      fftwf_complex * line = bins + static_cast<std::size_t>(k) * F;
      for (int f = 0; f < F; ++f)
      {
        line[f][0] *= spectrum[f] * scale;
        line[f][1] *= spectrum[f] * scale;
      }
    }
    fftwf_execute_dft_c2r(inverse->get(), bins, rows);
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
  std::vector<std::unique_ptr<FftwBuffer<float>>>         planes(workers);
  std::vector<std::unique_ptr<FftwBuffer<fftwf_complex>>> freq(workers);
  for (int t = 0; t < workers; ++t)
  {
    planes[t] = std::make_unique<FftwBuffer<float>>(std::size_t(NC) * NR);
    freq[t] = std::make_unique<FftwBuffer<fftwf_complex>>(std::size_t(NC) * FR);
  }
  std::unique_ptr<Plan> forward, inverse;
  {
    std::lock_guard<std::mutex> lock(fftwPlannerMutex());
    forward = std::make_unique<Plan>(fftwf_plan_dft_r2c_2d(NC, NR, planes[0]->data, freq[0]->data, FFTW_ESTIMATE));
    inverse = std::make_unique<Plan>(fftwf_plan_dft_c2r_2d(NC, NR, freq[0]->data, planes[0]->data, FFTW_ESTIMATE));
  }
  const std::size_t viewSize = static_cast<std::size_t>(C) * R;
  const float       norm = 1.0f / (static_cast<float>(NC) * static_cast<float>(NR));
#pragma omp parallel for schedule(dynamic) num_threads(workers)
  for (int v = 0; v < shape.views; ++v)
  {
    const int       t = threadIndex();
    float *         plane = planes[t]->data;
    fftwf_complex * bins = freq[t]->data;
    const float *   view = in + v * viewSize;
    std::fill(plane, plane + std::size_t(NC) * NR, 0.0f);
    for (int c = 0; c < C; ++c)
    {
      std::copy_n(view + static_cast<std::size_t>(c) * R, R, plane + static_cast<std::size_t>(c) * NR);
    }
    fftwf_execute_dft_r2c(forward->get(), plane, bins);
    const RampDirection d = directions[v];
    for (int kc = 0; kc < NC; ++kc)
    {
      const float fu = static_cast<float>(kc < NC / 2 ? kc : kc - NC) / static_cast<float>(NC);
      for (int kr = 0; kr < FR; ++kr)
      {
        const float     fv = static_cast<float>(kr) / static_cast<float>(NR);
        const float     gain = kernels::directionalRampGain(spectrum.data(), NC, d.channel, d.row, fu, fv) * norm;
        fftwf_complex & bin = bins[static_cast<std::size_t>(kc) * FR + kr];
        bin[0] *= gain;
        bin[1] *= gain;
      }
    }
    fftwf_execute_dft_c2r(inverse->get(), bins, plane);
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
