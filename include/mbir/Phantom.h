#pragma once
// Test and demo objects.

#include "mbir/Shapes.h"

#include <vector>

namespace mbir {

// One ellipsoid of a phantom, in the phantom's [-1, 1] coordinates: x along recon rows, y along columns,
// z along slices; turned by angleDegrees about z; `intensity` adds inside it.
struct PhantomEllipsoid
{
  double x0, y0, z0, a, b, c, angleDegrees, intensity;
};

// The ellipsoids of the low-dynamic-range 3D Shepp-Logan phantom (spec/solver.md §7.1), so that tests
// can integrate the same object analytically.
const std::vector<PhantomEllipsoid> &
sheppLoganLowDynamicRangeEllipsoids();

// The low-dynamic-range 3D Shepp-Logan phantom (spec/solver.md §7.1) on a (rows, cols, slices) grid
// spanning [-1, 1] along each axis; values 0 to 1.
std::vector<float>
sheppLoganLowDynamicRange(const ReconShape & shape);

} // namespace mbir
