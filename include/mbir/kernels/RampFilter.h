#pragma once
// The band-limited ramp (Ram-Lak) kernel shared by FBP and FDK (spec/projectors.md §1.5), its spectrum
// on an FFT grid, and the directional ramp the multi-axis FBP builds from it (§5.4).

#include "mbir/kernels/HostDevice.h"

#include <math.h>
#include <vector>

namespace mbir::kernels {

// h[n] = 1/4 at n = 0, -1/(pi n)^2 for odd n, 0 for even n != 0 (unit sample spacing).
MBIR_HOST_DEVICE inline double
rampKernel(int n)
{
  if (n == 0)
  {
    return 0.25;
  }
  if (n % 2 == 0)
  {
    return 0.0;
  }
  const double pin = 3.14159265358979323846 * n;
  return -1.0 / (pin * pin);
}

// Smallest power of two >= 2 * samples - 1: an FFT of this length turns the circular convolution with
// the (2 * samples - 1)-tap kernel into the linear one.
inline int
rampFftSize(int samples)
{
  int n = 1;
  while (n < 2 * samples - 1)
  {
    n *= 2;
  }
  return n;
}

// Spectrum of the kernel truncated to |n| < taps, at the bins f = 0 .. fftSize / 2 of a fftSize-point
// FFT. The kernel is even, so the spectrum is real; it is about |f| / fftSize cycles per sample.
inline std::vector<float>
rampSpectrum(int taps, int fftSize)
{
  std::vector<float> spectrum(fftSize / 2 + 1);
  for (int f = 0; f <= fftSize / 2; ++f)
  {
    double sum = rampKernel(0);
    for (int m = 1; m < taps; ++m)
    {
      sum += 2.0 * rampKernel(m) * cos(2.0 * 3.14159265358979323846 * f * m / fftSize);
    }
    spectrum[f] = static_cast<float>(sum);
  }
  return spectrum;
}

// The directional ramp at channel frequency fu and row frequency fv (cycles per sample, |f| <= 1/2):
// c * R(|a fu + b fv| / c) with c = |a| + |b| and R the spectrum above (fftSize-point grid along the
// channels), linearly interpolated. For b = 0 it is exactly |a| times the spectrum at bin |fu| fftSize.
MBIR_HOST_DEVICE inline float
directionalRampGain(const float * spectrum, int fftSize, float a, float b, float fu, float fv)
{
  const float c = fabsf(a) + fabsf(b);
  if (c == 0.0f)
  {
    return 0.0f;
  }
  const float position = fabsf(a * fu + b * fv) / c * static_cast<float>(fftSize);
  const int   last = fftSize / 2;
  const int   below = position >= static_cast<float>(last) ? last : static_cast<int>(position);
  const int   above = below < last ? below + 1 : last;
  const float t = position - static_cast<float>(below);
  return c * ((1.0f - t) * spectrum[below] + t * spectrum[above]);
}

} // namespace mbir::kernels
