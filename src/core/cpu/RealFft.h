#pragma once
// The real FFTs of the CPU ramp filter behind one small class, implemented twice and chosen at build time:
// RealFftKiss.cpp (KissFFT, BSD-3-Clause, the default) and RealFftFftw.cpp (FFTW, GPL, MBIR_USE_FFTW=ON).

#include <complex>
#include <memory>

namespace mbir::cpu {

// Forward real-to-complex transforms of an [outer][inner] float array into its [outer][inner / 2 + 1] half
// spectrum, and the inverse, unnormalised: a round trip multiplies by the number of points transformed.
// Lines transforms each of the `outer` lines along `inner`; Plane is the 2-D transform of the whole array.
// An object owns its buffers and plans and serves one thread at a time: make one per thread.
class RealFft
{
public:
  enum class Kind
  {
    Lines,
    Plane
  };

  RealFft(Kind kind, int outer, int inner);
  ~RealFft();
  RealFft(const RealFft &) = delete;
  RealFft &
  operator=(const RealFft &) = delete;

  // outer * inner values
  float *
  real()
  {
    return m_Real;
  }
  // outer * (inner / 2 + 1) values
  std::complex<float> *
  spectrum()
  {
    return m_Spectrum;
  }

  // real() -> spectrum()
  void
  forward();
  // spectrum() -> real(); spectrum() may be overwritten.
  void
  inverse();

private:
  struct Impl;
  std::unique_ptr<Impl> m_Impl;
  float *               m_Real = nullptr;
  std::complex<float> * m_Spectrum = nullptr;
};

} // namespace mbir::cpu
