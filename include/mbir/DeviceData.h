#pragma once
// Sinograms and volumes kept where a backend computes (host memory for the CPU backend, GPU memory for
// CUDA), so that data used many times are transferred once and results can stay for the next step.
// Values are checked when they arrive (finite; weights non-negative) and never modified afterwards by
// the engine's operations that take them as input.

#include "mbir/ArrayView.h"
#include "mbir/Backend.h"

#include <memory>
#include <vector>

namespace mbir {

// A sinogram in the device layout [view][channel][row].
class DeviceSinogram
{
public:
  DeviceSinogram() = default;
  // Zeros of the given shape.
  DeviceSinogram(std::shared_ptr<Backend> backend, const SinogramShape & shape);
  // Uploads a host sinogram (views, rows, channels); std::invalid_argument on NaN/Inf, naming the entry.
  static DeviceSinogram
  upload(std::shared_ptr<Backend> backend, ArrayView3 host);

  // The sinogram in the public layout (views, rows, channels).
  std::vector<float>
  download() const;

  const SinogramShape &
  shape() const
  {
    return m_Shape;
  }
  Backend &
  backend() const
  {
    return *m_Backend;
  }
  const std::shared_ptr<Backend> &
  backendPointer() const
  {
    return m_Backend;
  }
  bool
  empty() const
  {
    return m_Values.empty();
  }
  const float *
  data() const
  {
    return m_Values.data();
  }
  float *
  data()
  {
    return m_Values.data();
  }

private:
  std::shared_ptr<Backend> m_Backend;
  SinogramShape            m_Shape;
  DeviceArray<float>       m_Values;
};

// A volume (rows, cols, slices) with slices contiguous, every pixel present.
class DeviceVolume
{
public:
  DeviceVolume() = default;
  DeviceVolume(std::shared_ptr<Backend> backend, const ReconShape & shape);
  // Uploads a host volume (rows, cols, slices); std::invalid_argument on NaN/Inf.
  static DeviceVolume
  upload(std::shared_ptr<Backend> backend, ArrayView3 host);

  std::vector<float>
  download() const;

  const ReconShape &
  shape() const
  {
    return m_Shape;
  }
  Backend &
  backend() const
  {
    return *m_Backend;
  }
  const std::shared_ptr<Backend> &
  backendPointer() const
  {
    return m_Backend;
  }
  bool
  empty() const
  {
    return m_Values.empty();
  }
  const float *
  data() const
  {
    return m_Values.data();
  }
  float *
  data()
  {
    return m_Values.data();
  }

private:
  std::shared_ptr<Backend> m_Backend;
  ReconShape               m_Shape;
  DeviceArray<float>       m_Values;
};

// Names the first non-finite entry of an array as "NaN at (a i, b j, c k)" with the given axis names, or
// returns an empty string.
std::string
firstNonFinite(const ArrayView3 & array, const char * const axes[3]);

} // namespace mbir
