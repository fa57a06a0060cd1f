#include "mbir/GeometryJson.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace mbir {
namespace {

// Numbers are float32 like the geometry fields, so the writer prints the shortest text that reads back to
// the same float and the reader rounds the decimal text once; keys keep the order they are written in.
using Json =
  nlohmann::basic_json<nlohmann::ordered_map, std::vector, std::string, bool, std::int64_t, std::uint64_t, float>;

constexpr const char * kFormat = "mbir-geometry";
constexpr int          kVersion = 1;
// Longer arrays of numbers are wrapped, this many to a line.
constexpr std::size_t kNumbersPerLine = 8;

const std::vector<const char *> kSharedFields = { "format",
                                                  "version",
                                                  "geometry",
                                                  "sinogram_shape",
                                                  "delta_det_channel",
                                                  "delta_det_row",
                                                  "det_channel_offset",
                                                  "det_row_offset",
                                                  "delta_voxel",
                                                  "voxel_row_aspect",
                                                  "voxel_slice_aspect",
                                                  "recon_shape",
                                                  "ror_mask" };

// Geometries whose slice range is placed by recon_slice_offset.
template<typename G>
constexpr bool kHasSliceOffset = std::is_same_v<G, ConeBeamGeometry> || std::is_same_v<G, MultiAxisParallelGeometry>;

[[noreturn]] void
fail(const std::string & message)
{
  throw std::invalid_argument("geometry JSON: " + message);
}

// A value as messages quote it: scalars as written (long strings cut), arrays and objects by their type.
std::string
describe(const Json & value)
{
  if (!value.is_primitive())
  {
    return std::string("an ") + value.type_name();
  }
  const std::string text = value.dump();
  return text.size() > 40 ? text.substr(0, 37) + "..." : text;
}

// Where a value sits in the file, for messages; built only when a message needs it, since masks are large.
struct Where
{
  std::string    field;
  std::ptrdiff_t entry = -1;
  std::ptrdiff_t component = -1;

  Where
  at(std::ptrdiff_t index) const
  {
    Where where = *this;
    (entry < 0 ? where.entry : where.component) = index;
    return where;
  }

  std::string
  str() const
  {
    std::string text = "field \"" + field + "\"";
    if (entry >= 0)
    {
      text += " entry " + std::to_string(entry);
    }
    if (component >= 0)
    {
      text += " component " + std::to_string(component);
    }
    return text;
  }
};

// ---- Reading

// Also rejects duplicate keys: nlohmann would keep the last one silently, and a repeated key is as likely
// a mistake as a typo.
Json
parse(const std::string & text)
{
  std::vector<std::set<std::string>> openObjects; // the keys seen in each open object, innermost last
  std::string                        lastKey;
  const Json::parser_callback_t      checkKeys = [&](int, Json::parse_event_t event, Json & parsed) {
    if (event == Json::parse_event_t::object_start)
    {
      openObjects.emplace_back();
    }
    else if (event == Json::parse_event_t::object_end)
    {
      openObjects.pop_back();
    }
    else if (event == Json::parse_event_t::key)
    {
      lastKey = parsed.get<std::string>();
      if (!openObjects.back().insert(lastKey).second)
      {
        fail("duplicate field \"" + lastKey + "\"");
      }
    }
    return true;
  };
  // nlohmann's messages start with "[json.exception.<kind>.<id>] ", which says nothing to a user.
  const auto message = [](const Json::exception & e) {
    const std::string what = e.what();
    const std::size_t end = what.find("] ");
    return end == std::string::npos ? what : what.substr(end + 2);
  };
  try
  {
    return Json::parse(text, checkKeys);
  }
  catch (const Json::out_of_range & e)
  {
    // A number beyond the float range (1e999, 1e39): the parser rejects it instead of storing infinity.
    fail(message(e) + (lastKey.empty() ? "" : " in field \"" + lastKey + "\"") + "; numbers must be finite" +
         (lastKey == "source_detector_dist" ? " (write \"infinity\" for parallel rays)" : ""));
  }
  catch (const Json::exception & e)
  {
    fail("not valid JSON: " + message(e));
  }
}

const Json *
find(const Json & object, const char * field)
{
  const auto it = object.find(field);
  return it == object.end() ? nullptr : &*it;
}

const Json &
require(const Json & object, const char * field, const char * prefix = "")
{
  if (const Json * value = find(object, field))
  {
    return *value;
  }
  fail("missing field \"" + std::string(prefix) + field + "\"");
}

void
rejectUnknownFields(const Json &                      object,
                    const std::vector<const char *> & known,
                    const std::vector<const char *> & alsoKnown,
                    const std::string &               context)
{
  for (const auto & item : object.items())
  {
    const auto matches = [&](const char * name) { return item.key() == name; };
    if (std::none_of(known.begin(), known.end(), matches) && std::none_of(alsoKnown.begin(), alsoKnown.end(), matches))
    {
      fail("unknown field \"" + item.key() + "\" " + context);
    }
  }
}

float
toFloat(const Json & value, const Where & where)
{
  if (!value.is_number())
  {
    fail(where.str() + " must be a number, got " + describe(value));
  }
  const float number = value.get<float>();
  // The parser already refuses overflow; checked here too so that no path lets a non-finite value in.
  if (!std::isfinite(number))
  {
    fail(where.str() + " must be finite");
  }
  return number;
}

float
toPositive(const Json & value, const Where & where)
{
  const float number = toFloat(value, where);
  // Checked before autoSetReconGeometry(), which divides by these.
  if (!(number > 0.0f))
  {
    fail(where.str() + " must be > 0, got " + describe(value));
  }
  return number;
}

int
toInt(const Json & value, const Where & where)
{
  if (!value.is_number_integer())
  {
    fail(where.str() + " must be an integer, got " + describe(value));
  }
  const bool outOfRange = value.is_number_unsigned()
                            ? value.get<std::uint64_t>() > std::uint64_t(std::numeric_limits<int>::max())
                            : value.get<std::int64_t>() < std::numeric_limits<int>::min() ||
                                value.get<std::int64_t>() > std::numeric_limits<int>::max();
  if (outOfRange)
  {
    fail(where.str() + " is out of range, got " + describe(value));
  }
  return static_cast<int>(value.get<std::int64_t>());
}

std::array<int, 3>
toShape(const Json & value, const Where & where)
{
  if (!value.is_array() || value.size() != 3)
  {
    fail(where.str() + " must be an array of 3 positive integers, got " + describe(value) +
         (value.is_array() ? " of " + std::to_string(value.size()) : ""));
  }
  std::array<int, 3> shape{};
  for (std::size_t i = 0; i < 3; ++i)
  {
    shape[i] = toInt(value[i], where.at(i));
    if (shape[i] <= 0)
    {
      fail(where.at(i).str() + " must be > 0, got " + std::to_string(shape[i]));
    }
  }
  return shape;
}

std::vector<float>
toFloats(const Json & value, const Where & where)
{
  if (!value.is_array())
  {
    fail(where.str() + " must be an array of numbers, got " + describe(value));
  }
  std::vector<float> numbers;
  numbers.reserve(value.size());
  for (std::size_t i = 0; i < value.size(); ++i)
  {
    numbers.push_back(toFloat(value[i], where.at(i)));
  }
  return numbers;
}

void
requireOnePerView(std::size_t entries, int views, const char * field)
{
  if (entries != static_cast<std::size_t>(views))
  {
    fail("field \"" + std::string(field) + "\" has " + std::to_string(entries) + " entries but sinogram_shape has " +
         std::to_string(views) + " views");
  }
}

std::vector<float>
readPerView(const Json & doc, const char * field, int views)
{
  std::vector<float> values = toFloats(require(doc, field), Where{ field });
  requireOnePerView(values.size(), views, field);
  return values;
}

// Leaves `target` at its default when the field is absent.
void
readOptionalNumber(const Json & doc, const char * field, float & target)
{
  if (const Json * value = find(doc, field))
  {
    target = toFloat(*value, Where{ field });
  }
}

void
readOptionalPositive(const Json & doc, const char * field, float & target)
{
  if (const Json * value = find(doc, field))
  {
    target = toPositive(*value, Where{ field });
  }
}

RorMask
toRorMask(const Json & value)
{
  if (value.is_string() && value == "ellipse")
  {
    return RorMask::ellipse();
  }
  if (value.is_string() && value == "none")
  {
    return RorMask::none();
  }
  if (!value.is_object())
  {
    fail("field \"ror_mask\" must be \"ellipse\", \"none\" or {\"rows\": r, \"cols\": c, \"mask\": [...]}, got " +
         describe(value));
  }
  rejectUnknownFields(value, { "rows", "cols", "mask" }, {}, "in ror_mask");
  const int    rows = toInt(require(value, "rows", "ror_mask."), Where{ "ror_mask.rows" });
  const int    cols = toInt(require(value, "cols", "ror_mask."), Where{ "ror_mask.cols" });
  const Json & mask = require(value, "mask", "ror_mask.");
  if (rows <= 0 || cols <= 0)
  {
    fail("field \"ror_mask\" must have rows and cols > 0, got " + std::to_string(rows) + " x " + std::to_string(cols));
  }
  const std::size_t size = static_cast<std::size_t>(rows) * cols;
  if (!mask.is_array() || mask.size() != size)
  {
    fail("field \"ror_mask.mask\" must be an array of rows x cols = " + std::to_string(rows) + " x " +
         std::to_string(cols) + " = " + std::to_string(size) + " entries, got " + describe(mask) +
         (mask.is_array() ? " of " + std::to_string(mask.size()) : ""));
  }
  std::vector<std::uint8_t> pixels(size);
  for (std::size_t p = 0; p < size; ++p)
  {
    const Json & entry = mask[p];
    if (!(entry.is_number_integer() && (entry == 0 || entry == 1)))
    {
      fail(Where{ "ror_mask.mask" }.at(p).str() + " must be 0 or 1, got " + describe(entry));
    }
    pixels[p] = entry == 1 ? 1 : 0;
  }
  return RorMask::custom(std::move(pixels), rows, cols);
}

// Sets the detector, the voxel aspects and the ROR mask, and the grid when the file gives it; returns
// whether it does.
bool
readDetectorAndGrid(const Json & doc, DetectorAndGrid & g)
{
  const std::array<int, 3> sinogram = toShape(require(doc, "sinogram_shape"), Where{ "sinogram_shape" });
  g.sinogramShape = SinogramShape{ sinogram[0], sinogram[1], sinogram[2] };
  readOptionalPositive(doc, "delta_det_channel", g.deltaDetChannel);
  readOptionalPositive(doc, "delta_det_row", g.deltaDetRow);
  readOptionalNumber(doc, "det_channel_offset", g.detChannelOffset);
  readOptionalNumber(doc, "det_row_offset", g.detRowOffset);
  readOptionalPositive(doc, "voxel_row_aspect", g.voxelRowAspect);
  readOptionalPositive(doc, "voxel_slice_aspect", g.voxelSliceAspect);
  if (const Json * mask = find(doc, "ror_mask"))
  {
    g.rorMask = toRorMask(*mask);
  }
  const Json * deltaVoxel = find(doc, "delta_voxel");
  const Json * reconShape = find(doc, "recon_shape");
  if ((deltaVoxel == nullptr) != (reconShape == nullptr))
  {
    fail(std::string("give both delta_voxel and recon_shape, or neither for the default grid (") +
         (deltaVoxel ? "recon_shape" : "delta_voxel") + " is missing)");
  }
  if (deltaVoxel == nullptr)
  {
    return false;
  }
  g.deltaVoxel = toPositive(*deltaVoxel, Where{ "delta_voxel" });
  const std::array<int, 3> recon = toShape(*reconShape, Where{ "recon_shape" });
  g.reconShape = ReconShape{ recon[0], recon[1], recon[2] };
  return true;
}

// The source-detector distance of cone beam may be the string "infinity" (JSON has no infinite number).
float
readSourceDetectorDist(const Json & doc, bool infinityAllowed)
{
  const Json & value = require(doc, "source_detector_dist");
  if (infinityAllowed && value.is_string())
  {
    if (value != "infinity")
    {
      fail("field \"source_detector_dist\" must be a number or \"infinity\", got " + describe(value));
    }
    return std::numeric_limits<float>::infinity();
  }
  return toPositive(value, Where{ "source_detector_dist" });
}

std::vector<const char *>
specificFields(const ParallelBeamGeometry &)
{
  return { "angles" };
}

std::vector<const char *>
specificFields(const ConeBeamGeometry &)
{
  return { "source_detector_dist", "source_iso_dist", "curved_detector",
           "recon_slice_offset",   "angles",          "helical_z_shifts" };
}

std::vector<const char *>
specificFields(const TranslationGeometry &)
{
  return { "source_detector_dist", "source_iso_dist", "translation_vectors" };
}

std::vector<const char *>
specificFields(const MultiAxisParallelGeometry &)
{
  return { "recon_slice_offset", "angles", "elevations" };
}

// The fields autoSetReconGeometry() needs; recon_slice_offset comes after it.
void
readSpecificFields(const Json & doc, ParallelBeamGeometry & g)
{
  g.angles = readPerView(doc, "angles", g.sinogramShape.views);
}

void
readSpecificFields(const Json & doc, ConeBeamGeometry & g)
{
  g.angles = readPerView(doc, "angles", g.sinogramShape.views);
  g.sourceDetectorDist = readSourceDetectorDist(doc, true);
  g.sourceIsoDist = toPositive(require(doc, "source_iso_dist"), Where{ "source_iso_dist" });
  if (const Json * shifts = find(doc, "helical_z_shifts"))
  {
    g.helicalZShifts = toFloats(*shifts, Where{ "helical_z_shifts" });
    if (!g.helicalZShifts.empty())
    {
      requireOnePerView(g.helicalZShifts.size(), g.sinogramShape.views, "helical_z_shifts");
    }
  }
  if (const Json * curved = find(doc, "curved_detector"))
  {
    if (!curved->is_boolean())
    {
      fail("field \"curved_detector\" must be true or false, got " + describe(*curved));
    }
    g.curvedDetector = curved->get<bool>();
  }
}

void
readSpecificFields(const Json & doc, TranslationGeometry & g)
{
  const Json & vectors = require(doc, "translation_vectors");
  const Where  where{ "translation_vectors" };
  if (!vectors.is_array())
  {
    fail(where.str() + " must be an array of [tx, ty, tz], got " + describe(vectors));
  }
  requireOnePerView(vectors.size(), g.sinogramShape.views, "translation_vectors");
  g.translations.resize(vectors.size());
  for (std::size_t v = 0; v < vectors.size(); ++v)
  {
    const std::vector<float> t = toFloats(vectors[v], where.at(v));
    if (t.size() != 3)
    {
      fail(where.at(v).str() + " must have 3 components [tx, ty, tz], got " + std::to_string(t.size()));
    }
    g.translations[v] = { t[0], t[1], t[2] };
  }
  g.sourceDetectorDist = readSourceDetectorDist(doc, false);
  g.sourceIsoDist = toPositive(require(doc, "source_iso_dist"), Where{ "source_iso_dist" });
}

void
readSpecificFields(const Json & doc, MultiAxisParallelGeometry & g)
{
  g.angles = readPerView(doc, "angles", g.sinogramShape.views);
  g.elevations = readPerView(doc, "elevations", g.sinogramShape.views);
}

// Fills a default-constructed geometry, so that absent fields keep the struct's defaults.
template<typename G>
void
readGeometry(const Json & doc, const char * kind, G & g)
{
  rejectUnknownFields(doc, kSharedFields, specificFields(g), std::string("for a ") + kind + " geometry");
  const bool gridGiven = readDetectorAndGrid(doc, g);
  readSpecificFields(doc, g);
  if (!gridGiven)
  {
    g.autoSetReconGeometry();
  }
  if constexpr (kHasSliceOffset<G>)
  {
    // After autoSetReconGeometry(), which centres cone beam's slices on the helical travel.
    readOptionalNumber(doc, "recon_slice_offset", g.reconSliceOffset);
  }
  try
  {
    g.validate();
  }
  catch (const std::invalid_argument & e)
  {
    fail(e.what());
  }
}

// One default-constructed geometry of each kind, to look a kind up by its geometryTypeName().
const std::vector<Geometry> &
geometryKinds()
{
  static const std::vector<Geometry> kinds = {
    ParallelBeamGeometry(), ConeBeamGeometry(), TranslationGeometry(), MultiAxisParallelGeometry()
  };
  return kinds;
}

// ---- Writing

Json
rorMaskToJson(const RorMask & mask, const ReconShape & shape)
{
  switch (mask.kind())
  {
    case RorMask::Kind::Ellipse:
      return "ellipse";
    case RorMask::Kind::None:
      return "none";
    case RorMask::Kind::Custom:
      break;
  }
  // RorMask keeps its array private; the pixel list of a mask that fits the grid gives it back.
  std::vector<int> pixels(shape.numPixels(), 0);
  for (const int p : mask.pixelIndices(shape))
  {
    pixels[p] = 1;
  }
  Json custom;
  custom["rows"] = shape.rows;
  custom["cols"] = shape.cols;
  custom["mask"] = pixels;
  return custom;
}

void
writeDetectorAndGrid(Json & doc, const DetectorAndGrid & g)
{
  const SinogramShape & s = g.sinogramShape;
  const ReconShape &    r = g.reconShape;
  doc["sinogram_shape"] = { s.views, s.rows, s.channels };
  doc["delta_det_channel"] = g.deltaDetChannel;
  doc["delta_det_row"] = g.deltaDetRow;
  doc["det_channel_offset"] = g.detChannelOffset;
  doc["det_row_offset"] = g.detRowOffset;
  doc["delta_voxel"] = g.deltaVoxel;
  doc["voxel_row_aspect"] = g.voxelRowAspect;
  doc["voxel_slice_aspect"] = g.voxelSliceAspect;
  doc["recon_shape"] = { r.rows, r.cols, r.slices };
  doc["ror_mask"] = rorMaskToJson(g.rorMask, r);
}

// Scalars first, the long per-view arrays last.
void
writeSpecificFields(Json & doc, const ParallelBeamGeometry & g)
{
  doc["angles"] = g.angles;
}

void
writeSpecificFields(Json & doc, const ConeBeamGeometry & g)
{
  doc["source_detector_dist"] = std::isinf(g.sourceDetectorDist) ? Json("infinity") : Json(g.sourceDetectorDist);
  doc["source_iso_dist"] = g.sourceIsoDist;
  doc["curved_detector"] = g.curvedDetector;
  doc["recon_slice_offset"] = g.reconSliceOffset;
  doc["angles"] = g.angles;
  doc["helical_z_shifts"] = g.helicalZShifts;
}

void
writeSpecificFields(Json & doc, const TranslationGeometry & g)
{
  doc["source_detector_dist"] = g.sourceDetectorDist;
  doc["source_iso_dist"] = g.sourceIsoDist;
  doc["translation_vectors"] = g.translations;
}

void
writeSpecificFields(Json & doc, const MultiAxisParallelGeometry & g)
{
  doc["recon_slice_offset"] = g.reconSliceOffset;
  doc["angles"] = g.angles;
  doc["elevations"] = g.elevations;
}

bool
isFlatArray(const Json & value)
{
  return value.is_array() && std::all_of(value.begin(), value.end(), [](const Json & v) { return v.is_primitive(); });
}

// Like dump(2), except that arrays of numbers take `perLine` entries to a line instead of one: a view
// list or a 512 x 512 mask would otherwise run to thousands of lines.
void
appendPretty(std::string & out, const Json & value, int indent, std::size_t perLine)
{
  const std::string pad(indent, ' ');
  if (value.is_object() && !value.empty())
  {
    out += "{\n";
    std::size_t i = 0;
    for (const auto & item : value.items())
    {
      // A custom ROR mask is written one grid row to a line.
      const bool maskRows = item.key() == "mask" && value.contains("cols") && value["cols"].is_number_integer() &&
                            value["cols"].get<std::int64_t>() > 0;
      const std::size_t itemPerLine = maskRows ? value["cols"].get<std::size_t>() : kNumbersPerLine;
      out += pad + "  " + Json(item.key()).dump() + ": ";
      appendPretty(out, item.value(), indent + 2, itemPerLine);
      out += ++i < value.size() ? ",\n" : "\n";
    }
    out += pad + "}";
  }
  else if (isFlatArray(value) && value.size() <= perLine)
  {
    out += "[";
    for (std::size_t i = 0; i < value.size(); ++i)
    {
      out += (i > 0 ? ", " : "") + value[i].dump();
    }
    out += "]";
  }
  else if (value.is_array() && !value.empty())
  {
    const bool        flat = isFlatArray(value);
    const std::size_t step = flat ? perLine : 1;
    out += "[\n";
    for (std::size_t i = 0; i < value.size(); ++i)
    {
      out += i % step == 0 ? pad + "  " : " ";
      appendPretty(out, value[i], indent + 2, kNumbersPerLine);
      out += i + 1 == value.size() ? "\n" : (i + 1) % step == 0 ? ",\n" : ",";
    }
    out += pad + "]";
  }
  else
  {
    out += value.dump();
  }
}

} // namespace

std::string
geometryToJson(const Geometry & geometry)
{
  // A file that fails to validate could not be read back, so refuse to write one.
  try
  {
    std::visit([](const auto & g) { g.validate(); }, geometry);
  }
  catch (const std::invalid_argument & e)
  {
    fail(std::string("cannot write an invalid geometry: ") + e.what());
  }
  Json doc;
  doc["format"] = kFormat;
  doc["version"] = kVersion;
  doc["geometry"] = geometryTypeName(geometry);
  writeDetectorAndGrid(doc, detectorAndGridOf(geometry));
  std::visit([&](const auto & g) { writeSpecificFields(doc, g); }, geometry);
  std::string text;
  appendPretty(text, doc, 0, kNumbersPerLine);
  return text;
}

Geometry
geometryFromJson(const std::string & text)
{
  const Json doc = parse(text);
  if (!doc.is_object())
  {
    fail("the top level must be an object, got " + describe(doc));
  }
  const Json & format = require(doc, "format");
  if (format != kFormat)
  {
    fail("field \"format\" must be \"" + std::string(kFormat) + "\", got " + describe(format));
  }
  const Json & version = require(doc, "version");
  if (!version.is_number_integer())
  {
    fail("field \"version\" must be an integer, got " + describe(version));
  }
  if (version != kVersion)
  {
    fail("unsupported version " + version.dump() + " (this build reads version " + std::to_string(kVersion) + ")");
  }
  const Json & kind = require(doc, "geometry");
  std::string  expected;
  for (const Geometry & candidate : geometryKinds())
  {
    if (kind.is_string() && kind == geometryTypeName(candidate))
    {
      Geometry geometry = candidate;
      std::visit([&](auto & g) { readGeometry(doc, geometryTypeName(candidate), g); }, geometry);
      return geometry;
    }
    const bool last = &candidate == &geometryKinds().back();
    expected += (expected.empty() ? "" : last ? " or " : ", ") + std::string(geometryTypeName(candidate));
  }
  fail("unknown geometry " + describe(kind) + "; expected " + expected);
}

void
writeGeometryFile(const Geometry & geometry, const std::string & path)
{
  const std::string text = geometryToJson(geometry) + "\n";
  std::ofstream     out(path, std::ios::binary);
  if (!out)
  {
    throw std::runtime_error(path + ": cannot open the geometry file for writing: " + std::strerror(errno));
  }
  out << text;
  out.close();
  if (!out)
  {
    throw std::runtime_error(path + ": cannot write the geometry file");
  }
}

Geometry
readGeometryFile(const std::string & path)
{
  std::ifstream in(path, std::ios::binary);
  if (!in)
  {
    throw std::runtime_error(path + ": cannot open the geometry file: " + std::strerror(errno));
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad())
  {
    throw std::runtime_error(path + ": cannot read the geometry file");
  }
  try
  {
    return geometryFromJson(text.str());
  }
  catch (const std::invalid_argument & e)
  {
    throw std::invalid_argument(path + ": " + e.what());
  }
}

} // namespace mbir
