#pragma once
// The band-limited ramp (Ram-Lak) kernel shared by FBP and FDK (spec/projectors.md §1.5).

#include "mbir/kernels/HostDevice.h"

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

} // namespace mbir::kernels
