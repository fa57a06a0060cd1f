#pragma once
// Region of reconstruction: the pixels (voxel cylinders) that projections and updates touch
// (spec/projectors.md §1.2).

#include "mbir/Shapes.h"

#include <cstdint>
#include <vector>

namespace mbir {

class RorMask
{
public:
  enum class Kind
  {
    Ellipse, // the ellipse inscribed in the (rows, cols) grid
    None,    // every pixel
    Custom   // a user 0/1 array of shape (rows, cols)
  };

  static RorMask
  ellipse()
  {
    return RorMask(Kind::Ellipse, {}, 0, 0);
  }
  static RorMask
  none()
  {
    return RorMask(Kind::None, {}, 0, 0);
  }
  // `mask` is row-major (rows, cols); entries must be 0 or 1.
  static RorMask
  custom(std::vector<std::uint8_t> mask, int rows, int cols);

  Kind
  kind() const
  {
    return m_Kind;
  }

  // Flat indices row * cols + col of the pixels inside the mask, ascending. Throws std::invalid_argument
  // when a custom mask does not match the grid.
  std::vector<int>
  pixelIndices(const ReconShape & shape) const;

  // Throws std::invalid_argument when this mask cannot be used with `shape`.
  void
  validate(const ReconShape & shape) const;

private:
  RorMask(Kind kind, std::vector<std::uint8_t> mask, int rows, int cols)
    : m_Kind(kind)
    , m_Mask(std::move(mask))
    , m_Rows(rows)
    , m_Cols(cols)
  {}

  Kind                      m_Kind;
  std::vector<std::uint8_t> m_Mask;
  int                       m_Rows;
  int                       m_Cols;
};

} // namespace mbir
