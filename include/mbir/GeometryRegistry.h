#pragma once
// The list of geometries and their parameters, as data: the JSON reader and writer, the ITK layer, the
// command-line tools and the Python bindings derive from it instead of naming each geometry. Each entry is
// built from the geometry's own description (GeometryDescription.h, next to its struct), in the order of
// the Geometry variant.

#include "mbir/Geometry.h"

#include <string>
#include <vector>

namespace mbir {

enum class ParameterKind
{
  Integer3,       // three positive integers, e.g. [views, rows, channels]
  Number,         // a float; may be the text "infinity" in JSON where infinityAllowed
  Boolean,        // true / false
  NumberPerView,  // one float per view
  Vector3PerView, // one [x, y, z] per view
  RorMask         // "ellipse", "none" or {"rows": r, "cols": c, "mask": [0/1, ...]}
};

struct GeometryParameter
{
  std::string   name;        // JSON key and Python attribute, snake_case, e.g. "source_detector_dist"
  ParameterKind kind;        //
  bool          required;    // must be given (JSON) / to the constructor (Python)
  std::string   unit;        // "ALU" (length), "rad", "" (ratio, count, flag)
  std::string   defaultText; // as the docs show it: "1", "false", "ellipse", "auto (default grid)", "" if required
  std::string   doc;         // one line, what it is and its sign convention

  bool shared = false;          // a DetectorAndGrid field, which every geometry has
  bool positive = false;        // Number: must be > 0 (Integer3 entries are always > 0)
  bool infinityAllowed = false; // Number: may be +infinity, written "infinity" in JSON
  bool emptyAllowed = false;    // per-view: may also be empty (or absent when not required)
  bool grid = false;            // delta_voxel / recon_shape: given together, or neither for the default grid
  bool afterGrid = false;       // applied after the default grid is set (which would otherwise overwrite it)
};

struct GeometryType
{
  std::string                    name;       // the JSON "geometry" value: "parallel", "cone", ...
  std::string                    className;  // the engine struct: "ParallelBeamGeometry", ...
  std::string                    doc;        // one paragraph
  std::vector<GeometryParameter> parameters; // the shared ones first, then its own, in JSON order

  // nullptr when the type has no such parameter.
  const GeometryParameter *
  find(const std::string & parameterName) const;
};

// In the order of the Geometry variant: geometryTypes()[geometry.index()] describes `geometry`.
const std::vector<GeometryType> &
geometryTypes();

const GeometryType &
geometryTypeOf(const Geometry & geometry);

// nullptr when no geometry type has this JSON name.
const GeometryType *
findGeometryType(const std::string & name);

} // namespace mbir
