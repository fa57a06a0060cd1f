#pragma once
// Every scan geometry the engine knows. Code that works for any geometry takes a Geometry and visits it;
// each alternative is a parameter struct (DetectorAndGrid plus its own fields) with the same methods:
// autoSetReconGeometry, validate, magnification, kernelParams, viewTable.

#include "mbir/ConeBeamGeometry.h"
#include "mbir/MultiAxisParallelGeometry.h"
#include "mbir/ParallelBeamGeometry.h"
#include "mbir/TranslationGeometry.h"

#include <variant>

namespace mbir {

using Geometry = std::variant<ParallelBeamGeometry, ConeBeamGeometry, TranslationGeometry, MultiAxisParallelGeometry>;

// The fields every geometry shares.
inline const DetectorAndGrid &
detectorAndGridOf(const Geometry & geometry)
{
  return std::visit([](const auto & g) -> const DetectorAndGrid & { return g; }, geometry);
}

inline DetectorAndGrid &
detectorAndGridOf(Geometry & geometry)
{
  return std::visit([](auto & g) -> DetectorAndGrid & { return g; }, geometry);
}

inline const SinogramShape &
sinogramShapeOf(const Geometry & geometry)
{
  return detectorAndGridOf(geometry).sinogramShape;
}

inline const ReconShape &
reconShapeOf(const Geometry & geometry)
{
  return detectorAndGridOf(geometry).reconShape;
}

inline float
magnificationOf(const Geometry & geometry)
{
  return std::visit([](const auto & g) { return g.magnification(); }, geometry);
}

// The "geometry" value of the JSON files, geometryTypeOf(geometry).name (GeometryRegistry.h).
const char *
geometryTypeName(const Geometry & geometry);

} // namespace mbir
