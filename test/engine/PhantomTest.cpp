// The low-dynamic-range Shepp-Logan phantom: checksums of spec/solver.md §7.1 and its orientation.

#include "mbir/Phantom.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

using namespace mbir;

namespace {

double
sum(const std::vector<float> & v)
{
  double s = 0.0;
  for (const float x : v)
  {
    s += x;
  }
  return s;
}

// Value at the grid point nearest to unit coordinates (x along rows, y along cols, z along slices).
float
valueAt(const std::vector<float> & v, const ReconShape & s, double x, double y, double z)
{
  auto      index = [](double u, int n) { return static_cast<int>(std::lround((u + 1.0) * 0.5 * (n - 1))); };
  const int i = index(x, s.rows), j = index(y, s.cols), k = index(z, s.slices);
  return v[(static_cast<std::size_t>(i) * s.cols + j) * s.slices + k];
}

} // namespace

TEST(SheppLogan, ChecksumsMatchSpec)
{
  const ReconShape         shape{ 128, 128, 40 };
  const std::vector<float> phantom = sheppLoganLowDynamicRange(shape);
  ASSERT_EQ(phantom.size(), shape.size());
  EXPECT_NEAR(sum(phantom), 53264.40, 0.05);
  // The spec's voxel counts by value. (Its L2 norm, 164.34477, disagrees with its own counts, which give
  // sqrt(27059.28) = 164.497; the counts and the sum are what we check.)
  std::map<long, int> counts;
  for (const float x : phantom)
  {
    counts[std::lround(x * 10.0)]++;
  }
  EXPECT_EQ(counts[0], 473420);
  EXPECT_EQ(counts[1], 882);
  EXPECT_EQ(counts[2], 153000);
  EXPECT_EQ(counts[3], 7814);
  EXPECT_EQ(counts[4], 20);
  EXPECT_EQ(counts[10], 20224);

  EXPECT_NEAR(sum(sheppLoganLowDynamicRange(ReconShape{ 100, 100, 100 })), 82307.60, 0.05);
  EXPECT_NEAR(sum(sheppLoganLowDynamicRange(ReconShape{ 64, 48, 20 })), 4692.40, 0.05);
}

TEST(SheppLogan, Orientation)
{
  // x runs along rows and y along columns: the small ellipsoid 8 sits at (x, y) = (-0.08, -0.605), so
  // the mirrored point in x is 0.1 darker; ellipsoid 5 at y = +0.35 is absent at y = -0.35.
  const ReconShape         shape{ 129, 129, 41 };
  const std::vector<float> p = sheppLoganLowDynamicRange(shape);
  EXPECT_NEAR(valueAt(p, shape, -0.08, -0.605, 0.0), 0.3f, 1e-6);
  EXPECT_NEAR(valueAt(p, shape, 0.08, -0.605, 0.0), 0.2f, 1e-6);
  EXPECT_NEAR(valueAt(p, shape, 0.0, 0.35, 0.0), 0.3f, 1e-6);
  EXPECT_NEAR(valueAt(p, shape, 0.0, -0.35, 0.0), 0.2f, 1e-6);
  EXPECT_NEAR(valueAt(p, shape, 0.0, 0.35, 0.45), 0.3f, 1e-6); // ellipsoid 5 reaches z = 0.5...
  EXPECT_NEAR(valueAt(p, shape, 0.0, 0.0, 0.95), 0.0f, 1e-6);  // ...and nothing reaches z = 0.95
  EXPECT_NEAR(valueAt(p, shape, 0.0, 0.0, 0.0), 0.2f, 1e-6);
}
