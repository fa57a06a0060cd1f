#pragma once
// A read-only view of a caller's 3-D array with its shape, so that shapes can be checked at the API.

#include "mbir/Shapes.h"

#include <array>
#include <vector>

namespace mbir {

struct ArrayView3
{
  const float *      data = nullptr;
  std::array<int, 3> shape{ 0, 0, 0 };

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

  bool
  empty() const
  {
    return data == nullptr;
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

} // namespace mbir
