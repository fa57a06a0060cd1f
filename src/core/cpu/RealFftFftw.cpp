// RealFft with FFTW (single precision), built with MBIR_USE_FFTW=ON. FFTW is GPL: binaries that contain
// this file are GPL too.

#include "RealFft.h"

#include <fftw3.h>

#include <mutex>
#include <new>

namespace mbir::cpu {
namespace {

std::mutex &
fftwPlannerMutex()
{
  static std::mutex m; // FFTW's planner is not thread-safe; execution is
  return m;
}

} // namespace

struct RealFft::Impl
{
  Impl(Kind kind, int outer, int inner)
  {
    const int bins = inner / 2 + 1;
    real = static_cast<float *>(fftwf_malloc(sizeof(float) * outer * inner));
    spectrum = static_cast<fftwf_complex *>(fftwf_malloc(sizeof(fftwf_complex) * outer * bins));
    if (real == nullptr || spectrum == nullptr)
    {
      release();
      throw std::bad_alloc();
    }
    std::lock_guard<std::mutex> lock(fftwPlannerMutex());
    if (kind == Kind::Lines)
    {
      forward =
        fftwf_plan_many_dft_r2c(1, &inner, outer, real, nullptr, 1, inner, spectrum, nullptr, 1, bins, FFTW_ESTIMATE);
      inverse =
        fftwf_plan_many_dft_c2r(1, &inner, outer, spectrum, nullptr, 1, bins, real, nullptr, 1, inner, FFTW_ESTIMATE);
    }
    else
    {
      forward = fftwf_plan_dft_r2c_2d(outer, inner, real, spectrum, FFTW_ESTIMATE);
      inverse = fftwf_plan_dft_c2r_2d(outer, inner, spectrum, real, FFTW_ESTIMATE);
    }
  }
  ~Impl()
  {
    std::lock_guard<std::mutex> lock(fftwPlannerMutex());
    release();
  }
  Impl(const Impl &) = delete;
  Impl &
  operator=(const Impl &) = delete;

  // Under the planner lock, or before any plan exists.
  void
  release()
  {
    if (forward != nullptr)
    {
      fftwf_destroy_plan(forward);
    }
    if (inverse != nullptr)
    {
      fftwf_destroy_plan(inverse);
    }
    fftwf_free(real);
    fftwf_free(spectrum);
  }

  float *         real = nullptr;
  fftwf_complex * spectrum = nullptr;
  fftwf_plan      forward = nullptr;
  fftwf_plan      inverse = nullptr;
};

RealFft::RealFft(Kind kind, int outer, int inner)
  : m_Impl(std::make_unique<Impl>(kind, outer, inner))
{
  m_Real = m_Impl->real;
  m_Spectrum = reinterpret_cast<std::complex<float> *>(m_Impl->spectrum); // the same layout, float[2]
}

RealFft::~RealFft() = default;

void
RealFft::forward()
{
  fftwf_execute(m_Impl->forward);
}

void
RealFft::inverse()
{
  fftwf_execute(m_Impl->inverse);
}

} // namespace mbir::cpu
