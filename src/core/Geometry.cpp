#include "mbir/Geometry.h"

namespace mbir {

const char *
geometryTypeName(const Geometry & geometry)
{
  static const char * const names[] = { "parallel", "cone", "translation", "multi_axis_parallel" };
  return names[geometry.index()];
}

} // namespace mbir
