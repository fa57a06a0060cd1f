#pragma once
// A geometry's parameters bound to its struct's members: what the registry (GeometryRegistry.h) publishes
// and what the JSON reader and writer walk. Each geometry struct provides
//
//   static const GeometryDescription<Self> & description();
//
// in its .cpp, listing detectorAndGridFields<Self>() first and then its own fields in JSON order.

#include "mbir/DetectorAndGrid.h"
#include "mbir/GeometryRegistry.h"

#include <array>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

namespace mbir {

// Flags of a field, besides its kind (which follows from the member's type).
enum FieldFlag : unsigned
{
  NoFlags = 0,
  Required = 1u << 0,
  Positive = 1u << 1,
  InfinityAllowed = 1u << 2,
  EmptyAllowed = 1u << 3,
  GridField = 1u << 4,
  AfterGridField = 1u << 5
};

template<typename G>
struct GeometryField
{
  using Member = std::variant<SinogramShape                     G::*,
                              ReconShape                        G::*,
                              float                             G::*,
                              bool                              G::*,
                              std::vector<float>                G::*,
                              std::vector<std::array<float, 3>> G::*,
                              RorMask                           G::*>;

  GeometryParameter parameter;
  Member            member;
};

template<typename G>
struct GeometryDescription
{
  std::string                   name;      // the JSON "geometry" value
  std::string                   className; // the struct's name
  std::string                   doc;
  std::vector<GeometryField<G>> fields; // shared first, then the geometry's own, in JSON order
};

namespace detail {

template<typename T>
constexpr ParameterKind
parameterKindOf()
{
  if constexpr (std::is_same_v<T, SinogramShape> || std::is_same_v<T, ReconShape>)
    return ParameterKind::Integer3;
  else if constexpr (std::is_same_v<T, float>)
    return ParameterKind::Number;
  else if constexpr (std::is_same_v<T, bool>)
    return ParameterKind::Boolean;
  else if constexpr (std::is_same_v<T, std::vector<float>>)
    return ParameterKind::NumberPerView;
  else if constexpr (std::is_same_v<T, std::vector<std::array<float, 3>>>)
    return ParameterKind::Vector3PerView;
  else
  {
    static_assert(std::is_same_v<T, RorMask>, "a geometry field has a type the registry does not know");
    return ParameterKind::RorMask;
  }
}

} // namespace detail

// One field of G; `member` may be a member of DetectorAndGrid or of G. The kind follows from its type.
template<typename G, typename T, typename Owner>
GeometryField<G>
geometryField(T Owner::*   member,
              const char * name,
              unsigned     flags,
              const char * unit,
              const char * defaultText,
              const char * doc)
{
  static_assert(std::is_base_of_v<Owner, G>, "the member must belong to the geometry");
  GeometryParameter parameter{ name, detail::parameterKindOf<T>(), (flags & Required) != 0, unit, defaultText, doc };
  parameter.shared = std::is_same_v<Owner, DetectorAndGrid>;
  parameter.positive = (flags & Positive) != 0;
  parameter.infinityAllowed = (flags & InfinityAllowed) != 0;
  parameter.emptyAllowed = (flags & EmptyAllowed) != 0;
  parameter.grid = (flags & GridField) != 0;
  parameter.afterGrid = (flags & AfterGridField) != 0;
  return GeometryField<G>{ std::move(parameter), static_cast<T G::*>(member) };
}

// The fields every geometry shares, in JSON order; `rorMaskDefault` is the default text of ror_mask, which
// is what G's default constructor sets.
template<typename G>
std::vector<GeometryField<G>>
detectorAndGridFields(const char * rorMaskDefault = "ellipse")
{
  using D = DetectorAndGrid;
  return {
    geometryField<G>(&D::sinogramShape,
                     "sinogram_shape",
                     Required,
                     "",
                     "",
                     "[views, rows, channels] of the sinogram, positive integers"),
    geometryField<G>(&D::deltaDetChannel,
                     "delta_det_channel",
                     Positive,
                     "ALU",
                     "1",
                     "detector channel pitch (an arc length on a curved detector)"),
    geometryField<G>(&D::deltaDetRow, "delta_det_row", Positive, "ALU", "1", "detector row pitch"),
    geometryField<G>(
      &D::detChannelOffset,
      "det_channel_offset",
      NoFlags,
      "ALU",
      "0",
      "the central ray hits channel (C-1)/2 + offset / delta_det_channel: + moves it to larger channels"),
    geometryField<G>(&D::detRowOffset,
                     "det_row_offset",
                     NoFlags,
                     "ALU",
                     "0",
                     "the central ray hits row (R-1)/2 + offset / delta_det_row: + moves it to larger rows"),
    geometryField<G>(&D::deltaVoxel,
                     "delta_voxel",
                     Positive | GridField,
                     "ALU",
                     "auto (default grid)",
                     "voxel pitch along the recon columns (x); give it with recon_shape, or neither"),
    geometryField<G>(
      &D::voxelRowAspect, "voxel_row_aspect", Positive, "", "1", "recon row (y) pitch over column (x) pitch"),
    geometryField<G>(
      &D::voxelSliceAspect, "voxel_slice_aspect", Positive, "", "1", "slice (z) pitch over column (x) pitch"),
    geometryField<G>(&D::reconShape,
                     "recon_shape",
                     GridField,
                     "",
                     "auto (default grid)",
                     "[rows, cols, slices] of the recon grid; give it with delta_voxel, or neither"),
    geometryField<G>(&D::rorMask,
                     "ror_mask",
                     NoFlags,
                     "",
                     rorMaskDefault,
                     "region of reconstruction: \"ellipse\" (inscribed in the rows x cols grid), \"none\" (every "
                     "pixel) or {\"rows\": r, \"cols\": c, \"mask\": [0/1, ...]} row-major"),
  };
}

// The registry's view of a description: the parameters without the member bindings.
template<typename G>
GeometryType
geometryTypeFrom(const GeometryDescription<G> & description)
{
  GeometryType type{ description.name, description.className, description.doc, {} };
  for (const GeometryField<G> & field : description.fields)
  {
    type.parameters.push_back(field.parameter);
  }
  return type;
}

} // namespace mbir
