#pragma once
// A read-only view of a caller's 3-D array with its shape, so that shapes can be checked at the API, and
// where it lives: host memory, or a CUDA device's memory (a CuPy or PyTorch array), which the GPUs of a
// group read in place through unified addressing.

#include "mbir/Shapes.h"

#include <array>
#include <vector>

namespace mbir {

struct ArrayView3
{
  enum class Memory
  {
    Host,
    Cuda
  };

  const float *      data = nullptr;
  std::array<int, 3> shape{ 0, 0, 0 };
  Memory             memory = Memory::Host;
  int                cudaDevice = -1; // the CUDA device that holds the data when memory == Cuda

  ArrayView3() = default;
  ArrayView3(const float * values, std::array<int, 3> dims)
    : data(values)
    , shape(dims)
  {}
  ArrayView3(const std::vector<float> & values, const SinogramShape & s)
    : data(values.data())
    , shape{ s.views, s.rows, s.channels }
  {
    checkSize(values.size());
  }
  ArrayView3(const std::vector<float> & values, const ReconShape & s)
    : data(values.data())
    , shape{ s.rows, s.cols, s.slices }
  {
    checkSize(values.size());
  }

  // A view of an array in the memory of CUDA device `device`.
  static ArrayView3
  onCuda(const float * values, std::array<int, 3> dims, int device)
  {
    ArrayView3 view(values, dims);
    view.memory = Memory::Cuda;
    view.cudaDevice = device;
    return view;
  }

  bool
  empty() const
  {
    return data == nullptr;
  }
  bool
  onHost() const
  {
    return memory == Memory::Host;
  }
  std::size_t
  size() const
  {
    return static_cast<std::size_t>(shape[0]) * shape[1] * shape[2];
  }
  std::string
  str() const
  {
    return "(" + std::to_string(shape[0]) + ", " + std::to_string(shape[1]) + ", " + std::to_string(shape[2]) + ")";
  }

private:
  void
  checkSize(std::size_t n);
};

// Transposes each of `count` row-major matrices of (rows, cols) in `in` into (cols, rows) in `out`: blocked for the
// cache, over `threads` threads (defaultCpuThreads() when 0). The layout changes between the engine and the ITK
// images, and the CPU backend's sinogram uploads, go through it.
void
transposeMatrices(const float * in, std::size_t count, std::size_t rows, std::size_t cols, float * out, int threads);

} // namespace mbir
