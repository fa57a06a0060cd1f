#include "mbir/Phantom.h"

#include <cmath>
#include <iterator>

namespace mbir {
namespace {

// Centres and semi-axes in [-1, 1] coordinates; x runs along recon rows, y along columns, z along slices.
const PhantomEllipsoid kSheppLoganLowDynamicRange[] = {
  { 0.0, 0.0, 0.0, 0.69, 0.92, 0.9, 0.0, 1.0 },       { 0.0, 0.0184, 0.0, 0.6624, 0.874, 0.88, 0.0, -0.8 },
  { 0.22, 0.0, 0.0, 0.41, 0.16, 0.21, 108.0, -0.2 },  { -0.22, 0.0, 0.0, 0.31, 0.11, 0.22, 72.0, -0.2 },
  { 0.0, 0.35, 0.0, 0.21, 0.25, 0.5, 0.0, 0.1 },      { 0.0, 0.1, 0.0, 0.046, 0.046, 0.046, 0.0, 0.1 },
  { 0.0, -0.1, 0.0, 0.046, 0.046, 0.046, 0.0, 0.1 },  { -0.08, -0.605, 0.0, 0.046, 0.023, 0.02, 0.0, 0.1 },
  { 0.0, -0.605, 0.0, 0.023, 0.023, 0.02, 0.0, 0.1 },
};

// Point `index` of n equally spaced points from -1 to 1, both ends included.
double
unitCoordinate(int index, int n)
{
  return n > 1 ? -1.0 + 2.0 * index / (n - 1) : -1.0;
}

} // namespace

const std::vector<PhantomEllipsoid> &
sheppLoganLowDynamicRangeEllipsoids()
{
  static const std::vector<PhantomEllipsoid> table(std::begin(kSheppLoganLowDynamicRange),
                                                   std::end(kSheppLoganLowDynamicRange));
  return table;
}

std::vector<float>
sheppLoganLowDynamicRange(const ReconShape & shape)
{
  std::vector<float> volume(shape.size(), 0.0f);
  const double       pi = std::acos(-1.0);
  for (const PhantomEllipsoid & e : kSheppLoganLowDynamicRange)
  {
    const double cosA = std::cos(e.angleDegrees * pi / 180.0);
    const double sinA = std::sin(e.angleDegrees * pi / 180.0);
    for (int i = 0; i < shape.rows; ++i)
    {
      const double x = unitCoordinate(i, shape.rows) - e.x0;
      for (int j = 0; j < shape.cols; ++j)
      {
        const double y = unitCoordinate(j, shape.cols) - e.y0;
        const double xr = cosA * x + sinA * y;
        const double yr = -sinA * x + cosA * y;
        const double inPlane = xr * xr / (e.a * e.a) + yr * yr / (e.b * e.b);
        if (inPlane > 1.0)
        {
          continue;
        }
        float * cylinder = volume.data() + (static_cast<std::size_t>(i) * shape.cols + j) * shape.slices;
        for (int k = 0; k < shape.slices; ++k)
        {
          const double z = unitCoordinate(k, shape.slices) - e.z0;
          if (inPlane + z * z / (e.c * e.c) <= 1.0)
          {
            cylinder[k] += static_cast<float>(e.intensity);
          }
        }
      }
    }
  }
  return volume;
}

} // namespace mbir
