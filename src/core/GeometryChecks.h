#pragma once
// Validation helpers shared by the geometries: each throws std::invalid_argument whose message names
// the geometry, the field (as spelled in the geometry JSON) and what to do.

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace mbir::detail {

[[noreturn]] inline void
invalidGeometry(const std::string & geometry, const std::string & message)
{
  throw std::invalid_argument(geometry + " geometry: " + message);
}

inline std::string
number(double value)
{
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

inline void
requireFinite(const std::string & geometry, double value, const char * field)
{
  if (!std::isfinite(value))
  {
    invalidGeometry(geometry, std::string(field) + " must be finite, got " + number(value));
  }
}

inline void
requirePositive(const std::string & geometry, double value, const char * field, const char * fix)
{
  if (!(std::isfinite(value) && value > 0.0))
  {
    invalidGeometry(geometry, std::string(field) + " must be finite and > 0, got " + number(value) + "; " + fix);
  }
}

// A size of the automatic recon grid from its rounded expression. A NaN or infinite one (a detector pitch or
// distance that is NaN, infinite or 0) is refused, since casting it to int would be undefined behaviour.
inline int
gridCount(const std::string & geometry, double rounded)
{
  if (!(std::fabs(rounded) < double(std::numeric_limits<int>::max())))
  {
    invalidGeometry(geometry,
                    "the automatic recon grid would have " + number(rounded) +
                      " voxels along an axis; the detector pitches and distances must be finite and > 0");
  }
  return static_cast<int>(rounded);
}

// One finite entry per view.
template<typename T>
void
requirePerView(const std::string & geometry, const std::vector<T> & values, int views, const char * field)
{
  if (values.size() != static_cast<std::size_t>(views))
  {
    invalidGeometry(geometry,
                    std::string(field) + " has " + std::to_string(values.size()) + " entries for " +
                      std::to_string(views) + " views; give exactly one per view");
  }
}

inline void
requireFiniteEntries(const std::string & geometry, const std::vector<float> & values, const char * field)
{
  for (std::size_t v = 0; v < values.size(); ++v)
  {
    if (!std::isfinite(values[v]))
    {
      invalidGeometry(geometry, std::string(field) + " entry " + std::to_string(v) + " is not finite");
    }
  }
}

} // namespace mbir::detail
