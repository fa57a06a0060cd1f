#pragma once
// Array shapes in the engine's public layout (spec/projectors.md §0): a sinogram is (views, rows,
// channels) with channels contiguous; a recon is (rows, cols, slices) with slices contiguous.

#include <cstddef>
#include <string>

namespace mbir {

struct SinogramShape
{
  int views = 0;
  int rows = 0;
  int channels = 0;

  std::size_t
  size() const
  {
    return static_cast<std::size_t>(views) * rows * channels;
  }
  std::string
  str() const
  {
    return "(" + std::to_string(views) + ", " + std::to_string(rows) + ", " + std::to_string(channels) + ")";
  }
  friend bool
  operator==(const SinogramShape & a, const SinogramShape & b)
  {
    return a.views == b.views && a.rows == b.rows && a.channels == b.channels;
  }
};

struct ReconShape
{
  int rows = 0;
  int cols = 0;
  int slices = 0;

  std::size_t
  numPixels() const
  {
    return static_cast<std::size_t>(rows) * cols;
  }
  std::size_t
  size() const
  {
    return numPixels() * slices;
  }
  std::string
  str() const
  {
    return "(" + std::to_string(rows) + ", " + std::to_string(cols) + ", " + std::to_string(slices) + ")";
  }
  friend bool
  operator==(const ReconShape & a, const ReconShape & b)
  {
    return a.rows == b.rows && a.cols == b.cols && a.slices == b.slices;
  }
};

} // namespace mbir
