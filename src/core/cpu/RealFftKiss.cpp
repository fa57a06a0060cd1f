// RealFft with KissFFT (float), the default build. kiss_fftr needs an even length; the ramp filter's lengths
// are powers of two, and the only odd one, 1, is the identity. A KissFFT configuration holds scratch space
// that every transform writes, so each RealFft has its own. The 2-D transform is done as kiss_fftr along the
// inner lines, then complex transforms down the columns of the half spectrum.

#include "RealFft.h"

#include <kiss_fft.h>
#include <kiss_fftr.h>

#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace mbir::cpu {
namespace {

static_assert(std::is_same<kiss_fft_scalar, float>::value, "KissFFT must be its float flavour (kissfft-float)");
static_assert(sizeof(kiss_fft_cpx) == sizeof(std::complex<float>), "kiss_fft_cpx and std::complex<float> differ");

struct KissFree
{
  void
  operator()(void * config) const
  {
    kiss_fft_free(config);
  }
};
using LineConfig = std::unique_ptr<kiss_fftr_state, KissFree>;
using ColumnConfig = std::unique_ptr<kiss_fft_state, KissFree>;

template<typename Config>
Config
checked(Config config)
{
  if (!config)
  {
    throw std::bad_alloc();
  }
  return config;
}

kiss_fft_cpx *
kiss(std::complex<float> * values)
{
  return reinterpret_cast<kiss_fft_cpx *>(values);
}

} // namespace

struct RealFft::Impl
{
  Impl(Kind kind, int outer, int inner)
    : outer(outer)
    , inner(inner)
    , bins(inner / 2 + 1)
    , real(static_cast<std::size_t>(outer) * inner)
    , spectrum(static_cast<std::size_t>(outer) * bins)
  {
    if (inner > 1)
    {
      if (inner % 2 != 0)
      {
        throw std::invalid_argument("RealFft: KissFFT's real transform needs an even length, not " +
                                    std::to_string(inner));
      }
      forwardLine = checked(LineConfig(kiss_fftr_alloc(inner, 0, nullptr, nullptr)));
      inverseLine = checked(LineConfig(kiss_fftr_alloc(inner, 1, nullptr, nullptr)));
    }
    if (kind == Kind::Plane && outer > 1)
    {
      forwardColumn = checked(ColumnConfig(kiss_fft_alloc(outer, 0, nullptr, nullptr)));
      inverseColumn = checked(ColumnConfig(kiss_fft_alloc(outer, 1, nullptr, nullptr)));
      column.resize(outer);
    }
  }

  void
  forwardLines()
  {
    for (int i = 0; i < outer; ++i)
    {
      const float *         line = real.data() + static_cast<std::size_t>(i) * inner;
      std::complex<float> * half = spectrum.data() + static_cast<std::size_t>(i) * bins;
      if (forwardLine)
      {
        kiss_fftr(forwardLine.get(), line, kiss(half));
      }
      else
      {
        half[0] = line[0];
      }
    }
  }

  void
  inverseLines()
  {
    for (int i = 0; i < outer; ++i)
    {
      std::complex<float> * half = spectrum.data() + static_cast<std::size_t>(i) * bins;
      float *               line = real.data() + static_cast<std::size_t>(i) * inner;
      if (inverseLine)
      {
        kiss_fftri(inverseLine.get(), kiss(half), line);
      }
      else
      {
        line[0] = half[0].real();
      }
    }
  }

  // Each column k of the [outer][bins] half spectrum through `config`, in place.
  void
  transformColumns(kiss_fft_state * config)
  {
    for (int k = 0; k < bins; ++k)
    {
      std::complex<float> * top = spectrum.data() + k;
      kiss_fft_stride(config, kiss(top), kiss(column.data()), bins);
      for (int i = 0; i < outer; ++i)
      {
        top[static_cast<std::size_t>(i) * bins] = column[i];
      }
    }
  }

  int                              outer, inner, bins;
  std::vector<float>               real;
  std::vector<std::complex<float>> spectrum;
  std::vector<std::complex<float>> column;
  LineConfig                       forwardLine, inverseLine;
  ColumnConfig                     forwardColumn, inverseColumn;
};

RealFft::RealFft(Kind kind, int outer, int inner)
  : m_Impl(std::make_unique<Impl>(kind, outer, inner))
{
  m_Real = m_Impl->real.data();
  m_Spectrum = m_Impl->spectrum.data();
}

RealFft::~RealFft() = default;

void
RealFft::forward()
{
  m_Impl->forwardLines();
  if (m_Impl->forwardColumn)
  {
    m_Impl->transformColumns(m_Impl->forwardColumn.get());
  }
}

void
RealFft::inverse()
{
  if (m_Impl->inverseColumn)
  {
    m_Impl->transformColumns(m_Impl->inverseColumn.get());
  }
  m_Impl->inverseLines();
}

} // namespace mbir::cpu
