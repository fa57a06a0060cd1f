#include "mbir/GeometryRegistry.h"

#include "mbir/GeometryDescription.h"

#include <utility>

namespace mbir {
namespace {

template<std::size_t... I>
std::vector<GeometryType>
typesOf(std::index_sequence<I...>)
{
  return { geometryTypeFrom(std::variant_alternative_t<I, Geometry>::description())... };
}

} // namespace

const GeometryParameter *
GeometryType::find(const std::string & parameterName) const
{
  for (const GeometryParameter & parameter : parameters)
  {
    if (parameter.name == parameterName)
    {
      return &parameter;
    }
  }
  return nullptr;
}

const std::vector<GeometryType> &
geometryTypes()
{
  static const std::vector<GeometryType> types = typesOf(std::make_index_sequence<std::variant_size_v<Geometry>>());
  return types;
}

const GeometryType &
geometryTypeOf(const Geometry & geometry)
{
  return geometryTypes()[geometry.index()];
}

const GeometryType *
findGeometryType(const std::string & name)
{
  for (const GeometryType & type : geometryTypes())
  {
    if (type.name == name)
    {
      return &type;
    }
  }
  return nullptr;
}

const char *
geometryTypeName(const Geometry & geometry)
{
  return geometryTypeOf(geometry).name.c_str();
}

} // namespace mbir
