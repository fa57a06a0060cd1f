#pragma once
// Every scan geometry the engine knows. Code that works for any geometry takes a Geometry and visits it.

#include "mbir/ParallelBeamGeometry.h"

#include <variant>

namespace mbir {

using Geometry = std::variant<ParallelBeamGeometry>;

inline const SinogramShape &
sinogramShapeOf(const Geometry & geometry)
{
  return std::visit([](const auto & g) -> const SinogramShape & { return g.sinogramShape; }, geometry);
}

inline const ReconShape &
reconShapeOf(const Geometry & geometry)
{
  return std::visit([](const auto & g) -> const ReconShape & { return g.reconShape; }, geometry);
}

} // namespace mbir
