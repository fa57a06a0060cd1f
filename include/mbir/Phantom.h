#pragma once
// Test and demo objects.

#include "mbir/Shapes.h"

#include <vector>

namespace mbir {

// The low-dynamic-range 3D Shepp-Logan phantom (spec/solver.md §7.1) on a (rows, cols, slices) grid
// spanning [-1, 1] along each axis; values 0 to 1.
std::vector<float>
sheppLoganLowDynamicRange(const ReconShape & shape);

} // namespace mbir
