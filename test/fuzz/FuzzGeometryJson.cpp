// Fuzz target: the geometry file reader. Any text either reads or is refused with std::invalid_argument (anything
// else is a finding: a crash, another exception, undefined behaviour); a file that reads writes back and reads back
// to the same text.

#include "mbir/GeometryJson.h"

#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

extern "C" int
LLVMFuzzerTestOneInput(const std::uint8_t * data, std::size_t size)
{
  const std::string text(reinterpret_cast<const char *>(data), size);
  mbir::Geometry    geometry;
  try
  {
    geometry = mbir::geometryFromJson(text);
  }
  catch (const std::invalid_argument &)
  {
    return 0;
  }
  const std::string written = mbir::geometryToJson(geometry);
  if (mbir::geometryToJson(mbir::geometryFromJson(written)) != written)
    std::abort(); // the round trip of a valid file must be exact
  return 0;
}
