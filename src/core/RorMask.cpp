#include "mbir/RorMask.h"

#include <stdexcept>

namespace mbir {

RorMask
RorMask::custom(std::vector<std::uint8_t> mask, int rows, int cols)
{
  if (rows <= 0 || cols <= 0 || mask.size() != static_cast<std::size_t>(rows) * cols)
  {
    throw std::invalid_argument("custom ROR mask: expected a (rows, cols) array with rows, cols > 0 and " +
                                std::to_string(rows) + " x " + std::to_string(cols) + " entries, got " +
                                std::to_string(mask.size()) + " entries");
  }
  for (const std::uint8_t v : mask)
  {
    if (v > 1)
    {
      throw std::invalid_argument("custom ROR mask: entries must be 0 or 1, found " + std::to_string(v));
    }
  }
  return RorMask(Kind::Custom, std::move(mask), rows, cols);
}

void
RorMask::validate(const ReconShape & shape) const
{
  if (m_Kind == Kind::Custom && (m_Rows != shape.rows || m_Cols != shape.cols))
  {
    throw std::invalid_argument("custom ROR mask has shape (" + std::to_string(m_Rows) + ", " + std::to_string(m_Cols) +
                                ") but the recon grid has (rows, cols) = (" + std::to_string(shape.rows) + ", " +
                                std::to_string(shape.cols) + "); make the mask match recon_shape[:2]");
  }
}

std::vector<int>
RorMask::pixelIndices(const ReconShape & shape) const
{
  validate(shape);
  std::vector<int> pixels;
  pixels.reserve(shape.numPixels());
  const double rowCenter = 0.5 * (shape.rows - 1);
  const double colCenter = 0.5 * (shape.cols - 1);
  for (int r = 0; r < shape.rows; ++r)
  {
    for (int c = 0; c < shape.cols; ++c)
    {
      const int p = r * shape.cols + c;
      bool      inside = true;
      if (m_Kind == Kind::Ellipse)
      {
        // A grid one pixel wide along an axis has zero radius there: that axis does not restrict.
        const double dr = rowCenter > 0 ? (r - rowCenter) / rowCenter : 0.0;
        const double dc = colCenter > 0 ? (c - colCenter) / colCenter : 0.0;
        inside = dr * dr + dc * dc <= 1.0;
      }
      else if (m_Kind == Kind::Custom)
      {
        inside = m_Mask[p] != 0;
      }
      if (inside)
      {
        pixels.push_back(p);
      }
    }
  }
  return pixels;
}

} // namespace mbir
